"""`source FILE` / `. FILE` in a script: the settings file of the same repository whose variables the launch uses.

A launch script often keeps its values in a file beside it (`source "$SCRIPT_DIR/config.sh"`, `. ./env.sh`,
`source "$(dirname "$0")/00_common.sh"`, `source "${SCRIPT_DIR}/../config/serving.env"`): the model, the
image and the flags' values are that file's assignments. The file is found relative to the script's folder
(`./x`, `x`, a variable assigned from the script's own folder: `$(dirname "$0")`, `$(cd "$(dirname
"${BASH_SOURCE[0]}")" && pwd)`, `${BASH_SOURCE%/*}`, and one derived from it with `/..`), never by a path
kvlint would have to guess (a home folder, an absolute path, a variable set elsewhere). It must lie in the
same repository (under the folder holding `.git`, else at most two folders above the script), and is read
at most 256 KiB; the script reader then reads its assignments as if they stood at the `source` line.
"""

from __future__ import annotations

import os
import re

from kvlint.lazyre import lazy

CAP = 256 * 1024
_LEVELS = 8  # folders above the script looked at for the repository root
_NO_REPO_LEVELS = 2  # without a repository root: how far above the script's folder a sourced file may lie

# the script's own folder, as scripts compute it
_SCRIPT_DIR = lazy(r"dirname\s+[\"']?(?:\$0|\$\{0\}|\$\{?BASH_SOURCE(?:\[0\])?\}?|\$\(readlink\s+-f\s+[\"']?\$(?:0|\{?"
                   r"BASH_SOURCE(?:\[0\])?\}?)[\"']?\))|\$\{(?:BASH_SOURCE(?:\[0\])?|0)%/\*\}")
# a folder derived from one of those: `$(cd "$SCRIPT_DIR/.." && pwd)`, `"$SCRIPT_DIR/.."`, `$(dirname "$SCRIPT_DIR")`
_DERIVED = lazy(r"^(?:\$\(\s*cd\s+)?\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?((?:/[^\s)&;]*)?)(?:\s*&&\s*pwd(?:\s+-P)?\s*\))?$")
_HEAD = lazy(r"^(\$\{(?:BASH_SOURCE(?:\[0\])?|0)%/\*\}|\$\{[A-Za-z_][A-Za-z0-9_]*\}|\$[A-Za-z_][A-Za-z0-9_]*)(.*)$")
_PARENT_OF = lazy(r"^\$\(\s*dirname\s+\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?\s*\)$")


def unquoted(raw: str) -> str:
    return raw.replace('"', "").replace("'", "")


def script_folder_of(raw_value: str, folders: dict[str, str]) -> str | None:
    """The folder (relative to the script's, "." itself) an assignment's raw value computes, or None: the script's
    own folder by `dirname "$0"` and its kin, or a folder derived from one already known (`$SCRIPT_DIR/..`)."""
    text = unquoted(raw_value).strip()
    if _SCRIPT_DIR.search(text) and text.count("$(") <= 3:
        m = re.search(r"&&\s*pwd(?:\s+-P)?\s*\)\s*(/.*)?$", text)
        rest = m.group(1) if m and m.group(1) else ""
        inner = re.search(r"cd\s+\$\(dirname[^)]*\)(/[^\s)&;]*)", text)  # $(cd "$(dirname "$0")/.." && pwd)
        return os.path.normpath("./" + (inner.group(1) if inner else "") + rest)
    m = _DERIVED.match(text)
    if m and m.group(1) in folders:
        return os.path.normpath(os.path.join(folders[m.group(1)], "." + (m.group(2) or "")))
    m = _PARENT_OF.match(text)
    if m and m.group(1) in folders:
        return os.path.normpath(os.path.join(folders[m.group(1)], ".."))
    return None


def sourced_path(raw_arg: str, script: str, folders: dict[str, str]) -> str | None:
    """The file a `source` argument names, or None when it is not found relative to the script's folder, lies
    outside the repository, or is not a readable file of at most CAP bytes."""
    if script in ("", "-"):
        return None
    text = unquoted(raw_arg).strip()
    base = os.path.dirname(os.path.abspath(script))
    rel = _relative(text, folders)
    if rel is None:
        return None
    path = os.path.normpath(os.path.join(base, rel))
    root = _repository_root(base)
    real, top = os.path.realpath(path), os.path.realpath(root)
    if not (real == top or real.startswith(top.rstrip(os.sep) + os.sep)):
        return None
    try:
        if not os.path.isfile(real) or os.path.getsize(real) > CAP:
            return None
    except OSError:
        return None
    return path


def _relative(text: str, folders: dict[str, str]) -> str | None:
    if not text or text.startswith(("~", "/")):
        return None
    if "$" not in text and "`" not in text:
        return text  # `./env.sh`, `config.sh`: beside the script, as it is run from its folder
    if text.startswith("$("):
        depth, end = 0, -1
        for k, ch in enumerate(text):
            depth += ch == "("
            depth -= ch == ")"
            if depth == 0 and ch == ")":
                end = k
                break
        head, rest = text[: end + 1], text[end + 1 :]
        folder = script_folder_of(head, folders) if end > 0 else None
    else:
        m = _HEAD.match(text)
        if m is None:
            return None
        head, rest = m.group(1), m.group(2)
        name = head.strip("${}")
        folder = "." if "%/*" in head else folders.get(name)
    if folder is None or not rest.startswith("/") or "$" in rest or "`" in rest:
        return None
    return os.path.normpath(folder + rest)


def _repository_root(base: str) -> str:
    """The folder holding `.git` above the script, else the folder two above it (the bound of a sample's copy)."""
    here = base
    for _ in range(_LEVELS):
        if os.path.exists(os.path.join(here, ".git")):
            return here
        parent = os.path.dirname(here)
        if parent == here:
            break
        here = parent
    out = base
    for _ in range(_NO_REPO_LEVELS):
        out = os.path.dirname(out)
    return out


def read_text(path: str) -> str | None:
    from kvlint.sidefile import side_text

    return side_text(path, CAP)


__all__ = ["CAP", "read_text", "script_folder_of", "sourced_path", "unquoted"]
