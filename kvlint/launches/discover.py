"""Which files in a folder are deployment files, walked without following symlink loops."""

from __future__ import annotations

import errno
import fnmatch
import os
import stat
from collections.abc import Iterable, Iterator

SKIP_DIRS = {".git", "node_modules", ".venv", "venv", "__pycache__", ".tox", ".mypy_cache", ".pytest_cache"}
SHELL_EXT = (".sh", ".bash", ".slurm", ".sbatch")
YAML_EXT = (".yaml", ".yml")
JSON_NAME_HINTS = ("vllm", "sglang", "engine", "serve")


def kind_of(path: str) -> str | None:
    """The reader for a file name, or None when the name is not a deployment format."""
    base = os.path.basename(path).lower()
    if base.endswith(YAML_EXT) or base.endswith(".yaml.tpl") or base.endswith(".yml.tpl"):
        return "yaml"
    if base.endswith(SHELL_EXT):
        return "shell"
    if base.startswith("dockerfile") or base.endswith(".dockerfile"):
        return "dockerfile"
    if base.endswith(".json"):
        return "json"
    return None


def iter_files(paths: Iterable[str]) -> Iterator[tuple[str, str | None]]:
    """(path, None) to read, or (path, reason) skipped; `is_note(reason)` tells a note from an unreadable input."""
    for path in paths:
        if path == "-":
            yield path, None
        elif os.path.isdir(path):
            yield from _walk(path)
        elif not os.path.exists(path):
            yield path, "no such file or directory"
        else:
            yield path, _irregular(path)  # named explicitly: read it whatever its name


def is_note(reason: str) -> bool:
    """Skips that are worth a note but refuse nothing (exit codes unchanged); the rest are unreadable inputs."""
    return reason.startswith(NOTE_REASONS)


NOTE_REASONS = ("symlink loop", "broken symlink", "not a regular file")


def _irregular(path: str) -> str | None:
    """Why a path that is not a regular file is skipped (a FIFO would block the read, /dev/zero never ends)."""
    from kvlint.sources.text import not_regular

    try:
        what = not_regular(os.stat(path).st_mode)
    except OSError:
        return None  # the read says why
    return None if what is None else f"not a regular file ({what}); skipped"


def _walk(root: str) -> Iterator[tuple[str, str | None]]:
    seen: set[tuple[int, int]] = set()
    stack = [root]
    while stack:
        folder = stack.pop()
        try:
            st = os.stat(folder)
        except OSError as exc:
            yield folder, f"cannot enter folder: {exc.strerror}"
            continue
        if (st.st_dev, st.st_ino) in seen:
            yield folder, "symlink loop (folder already visited)"
            continue
        seen.add((st.st_dev, st.st_ino))
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError as exc:
            yield folder, f"cannot list folder: {exc.strerror}"
            continue
        ignored = _gitignore(folder)
        subdirs = []
        for entry in entries:
            if entry.name in SKIP_DIRS or _ignored(entry.name, ignored):
                continue
            try:
                mode = entry.stat().st_mode  # follows symlinks
            except OSError as exc:
                why = _unstatable(entry, exc)
                if why is not None:
                    yield entry.path, why
                continue
            if stat.S_ISDIR(mode):
                subdirs.append(entry.path)
            elif kind_of(entry.path) is not None and _wanted(entry.name):
                yield entry.path, _irregular(entry.path) if not stat.S_ISREG(mode) else None
        stack.extend(reversed(subdirs))


def _unstatable(entry: os.DirEntry, exc: OSError) -> str | None:
    """A walked entry whose target cannot be reached: a loop is always said; a broken link or an error only for a
    file kvlint would have read."""
    if exc.errno == errno.ELOOP:
        return "symlink loop (a link that resolves to itself); skipped"
    if kind_of(entry.path) is None or not _wanted(entry.name):
        return None
    if exc.errno == errno.ENOENT and entry.is_symlink():
        return "broken symlink (its target does not exist); skipped"
    return f"cannot read: {exc.strerror}"


def _wanted(name: str) -> bool:
    """In a folder walk, JSON only when its name says engine config (package.json is not)."""
    low = name.lower()
    return not low.endswith(".json") or low == "hub.json" or any(w in low for w in JSON_NAME_HINTS)


def _gitignore(folder: str) -> list[str]:
    """Simple name patterns from a folder's own .gitignore (enough to skip build output)."""
    from kvlint.sources.text import SourceError, read_head

    try:  # a regular file only, and only its first 64 KiB (a FIFO named .gitignore must not block the walk)
        lines = read_head(os.path.join(folder, ".gitignore"), 65536).decode("utf-8", "replace").splitlines()
    except (OSError, SourceError):
        return []
    names = (ln.strip().strip("/") for ln in lines if not ln.startswith(("#", "!")))
    return [name for name in names if name and "/" not in name]


def _ignored(name: str, patterns: list[str]) -> bool:
    return any(fnmatch.fnmatch(name, p) for p in patterns)
