"""gitignore patterns, as git matches them: the `.gitignore` files a folder walk honours, and the globs of the
configuration (`exclude`, `per-path-ignores`, `gpus`, `vllm-config-files`).

Why not fnmatch: its `*` crosses `/`, so `k8s/*.yaml` silenced `k8s/sub/x.yaml`, and a `.gitignore` read
with it could only take slash-free names (`kvlint check .` linted files git ignores). Why not pathspec (the
maintained gitwildmatch library): importing it costs a large share of a one-file run, and the walk
needs it in every repository with a `.gitignore`. The translation below is git's wildmatch with the
pathname flag, about sixty lines, checked against `git check-ignore` itself (tests/test_ignore.py):

- `*` and `?` do not match `/`; `[a-z]`, `[!x]`, `[^x]` are classes of one character other than `/`;
- `**/` at the start or `/**/` in the middle match any number of folders, `/**` at the end everything below;
- a pattern with a `/` before its end is relative to its base (the `.gitignore`'s folder, the configuration's);
  one without matches a name at any depth; a trailing `/` matches folders only;
- `!` re-includes (the last matching pattern decides; a deeper `.gitignore` after the ones above it), `\\`
  escapes, `#` starts a comment, trailing spaces are dropped.

Each `.gitignore` is compiled once into one alternation, so a walked name costs one regex search per file
that applies, and the pattern list is searched only when that search hits.
"""

from __future__ import annotations

import os
import re
from functools import lru_cache

from kvlint.record import record

_CLASSES = {"alpha": "a-zA-Z", "digit": "0-9", "alnum": "a-zA-Z0-9", "upper": "A-Z", "lower": "a-z",
            "space": r" \t\n\r\f\v", "xdigit": "0-9A-Fa-f", "blank": r" \t"}


@record
class Pattern:
    """One pattern line: its regex over the path relative to the base, and how it applies."""

    regex: str
    negated: bool = False
    dir_only: bool = False


def parse_line(line: str) -> Pattern | None:
    """One `.gitignore` line as a pattern; None for a blank line or a comment."""
    line = line.rstrip("\n\r")
    if not line or line.startswith("#"):
        return None
    line = _strip_trailing_spaces(line)
    negated = line.startswith("!")
    if negated or line.startswith(("\\!", "\\#")):  # `\!` and `\#` are the literal characters
        line = line[1:]
    dir_only = line.endswith("/") and not line.endswith("\\/")
    line = line.rstrip("/") if dir_only else line
    if not line:
        return None
    return Pattern(translate(line), negated, dir_only)


def _strip_trailing_spaces(line: str) -> str:
    """Trailing spaces go unless escaped with a backslash (`a\\ ` keeps one)."""
    end = len(line)
    while end and line[end - 1] == " " and not (end >= 2 and line[end - 2] == "\\"):
        end -= 1
    return line[:end]


@lru_cache(maxsize=1024)
def translate(glob: str) -> str:
    """The regex (anchored at both ends) of a pattern without its `!` and trailing `/`, over `/`-joined paths
    relative to the pattern's base."""
    anchored = "/" in glob
    glob = glob[1:] if glob.startswith("/") else glob
    body = _body(glob)
    return "^" + ("" if anchored or body.startswith("(?:.*/)?") else "(?:.*/)?") + body + "$"


def _body(glob: str) -> str:
    out: list[str] = []
    i, n = 0, len(glob)
    while i < n:
        c = glob[i]
        if c == "*" and glob.startswith("**", i) and (i == 0 or glob[i - 1] == "/") and \
                (i + 2 == n or glob[i + 2] == "/"):
            if i + 2 == n:  # `x/**`: everything below x (i > 0 here: a lone `**` matches all)
                out.append(".*" if i == 0 else ".+")
            else:  # `**/` at the start, `/**/` inside: any number of folders, none included
                out.append("(?:.*/)?")
                i += 1
            i += 2
        elif c == "*":
            while i < n and glob[i] == "*":
                i += 1
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
            i += 1
        elif c == "[":
            part, i = _bracket(glob, i)
            out.append(part)
        elif c == "\\" and i + 1 < n:
            out.append(re.escape(glob[i + 1]))
            i += 2
        else:
            out.append(re.escape(c))
            i += 1
    return "".join(out)


def _bracket(glob: str, start: int) -> tuple[str, int]:
    """A `[...]` class from `start`, and the index after it; an unclosed `[` is a literal."""
    i = start + 1
    negate = i < len(glob) and glob[i] in "!^"
    i += negate
    items: list[str] = []
    first = True
    while i < len(glob) and (glob[i] != "]" or first):
        first = False
        if glob.startswith("[:", i) and (end := glob.find(":]", i + 2)) != -1 and glob[i + 2:end] in _CLASSES:
            items.append(_CLASSES[glob[i + 2:end]])
            i = end + 2
        elif glob[i] == "\\" and i + 1 < len(glob):
            items.append(re.escape(glob[i + 1]))
            i += 2
        elif glob[i] == "-" and items and i + 1 < len(glob) and glob[i + 1] != "]":
            items.append("-")
            i += 1
        else:
            items.append(re.escape(glob[i]) if glob[i] in "\\^[]" else glob[i])
            i += 1
    if i >= len(glob):
        return re.escape("["), start + 1
    body = "".join(items)
    return ("[^/" + body + "]" if negate else "(?!/)[" + body + "]"), i + 1


class IgnoreFile:
    """One `.gitignore`'s patterns with the folder they are relative to (absolute, `/`-separated)."""

    __slots__ = ("base", "patterns", "compiled", "any")

    def __init__(self, base: str, patterns: list[Pattern]) -> None:
        self.base = base.rstrip("/")
        self.patterns = patterns
        self.compiled = [re.compile(p.regex) for p in patterns]
        self.any = re.compile("|".join(f"(?:{p.regex})" for p in patterns)) if patterns else None

    def decide(self, path: str, is_dir: bool) -> bool | None:
        """True ignored, False re-included (`!`), None when no pattern of this file matches `path` (absolute)."""
        if self.any is None or not path.startswith(self.base + "/"):
            return None
        rel = path[len(self.base) + 1:]
        if not self.any.match(rel):
            return None
        for pattern, regex in zip(reversed(self.patterns), reversed(self.compiled), strict=True):
            if (is_dir or not pattern.dir_only) and regex.match(rel):
                return not pattern.negated
        return None


def read_ignore_file(folder: str) -> IgnoreFile | None:
    """A folder's `.gitignore` (its first 64 KiB, a regular file only: a FIFO must not block the walk)."""
    from kvlint.sources.text import SourceError, read_head

    try:
        text = read_head(os.path.join(folder, ".gitignore"), 65536).decode("utf-8", "replace")
    except (OSError, SourceError):
        return None
    patterns = [p for p in (parse_line(line) for line in text.splitlines()) if p is not None]
    return IgnoreFile(os.path.abspath(folder).replace(os.sep, "/"), patterns) if patterns else None


class Ignores:
    """The `.gitignore` files that apply inside one folder of a walk: its ancestors' up to the repository's
    root, then each folder's own as the walk enters it (`entering`); the last decision wins."""

    __slots__ = ("files",)

    def __init__(self, files: tuple[IgnoreFile, ...] = ()) -> None:
        self.files = files

    @classmethod
    def above(cls, root: str) -> Ignores:
        """The `.gitignore` files of the folders above a walk's root, up to the repository root (the folder
        with `.git`); none when the root is in no repository (then only the walked folders' own apply)."""
        here = os.path.abspath(root)
        chain: list[str] = []
        while True:
            parent = os.path.dirname(here)
            if os.path.exists(os.path.join(here, ".git")):
                break
            if parent == here:
                return cls()
            here = parent
            chain.append(here)
        files = (read_ignore_file(folder) for folder in reversed(chain))
        return cls(tuple(f for f in files if f is not None))

    def entering(self, folder: str, names: frozenset[str]) -> Ignores:
        """These rules and the folder's own `.gitignore`, when it has one."""
        if ".gitignore" not in names:
            return self
        own = read_ignore_file(folder)
        return Ignores(self.files + (own,)) if own is not None else self

    def ignored(self, path: str, is_dir: bool) -> bool:
        """Whether git ignores `path` (absolute, `/`-separated), deciding by the last matching pattern."""
        for ignore_file in reversed(self.files):
            decided = ignore_file.decide(path, is_dir)
            if decided is not None:
                return decided
        return False


def glob_match(rel: str, glob: str) -> bool:
    """A configuration glob (gitignore syntax, no `!`) against a path relative to the configuration's folder:
    the path itself or a folder above it matches (`vendor/` and `charts/*/templates` cover what they hold)."""
    regex = _glob_regex(glob)
    if regex is None:
        return False
    parts = rel.split("/")
    return any(regex.match("/".join(parts[:k])) for k in range(len(parts), 0, -1))


@lru_cache(maxsize=256)
def _glob_regex(glob: str) -> re.Pattern[str] | None:
    pattern = parse_line(glob.strip())
    return re.compile(pattern.regex) if pattern is not None else None
