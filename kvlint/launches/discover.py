"""Which files in a folder are deployment files, walked without following symlink loops."""

from __future__ import annotations

import fnmatch
import os
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
    for path in paths:
        if path == "-":
            yield path, None
        elif os.path.isdir(path):
            yield from _walk(path)
        elif not os.path.exists(path):
            yield path, "no such file or directory"
        else:
            yield path, None  # named explicitly: read it whatever its name


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
                is_dir = entry.is_dir()
            except OSError:
                continue
            if is_dir:
                subdirs.append(entry.path)
            elif kind_of(entry.path) is not None and _wanted(entry.name):
                yield entry.path, None
        stack.extend(reversed(subdirs))


def _wanted(name: str) -> bool:
    """In a folder walk, JSON only when its name says engine config (package.json is not)."""
    low = name.lower()
    return not low.endswith(".json") or low == "hub.json" or any(w in low for w in JSON_NAME_HINTS)


def _gitignore(folder: str) -> list[str]:
    """Simple name patterns from a folder's own .gitignore (enough to skip build output)."""
    try:
        with open(os.path.join(folder, ".gitignore"), encoding="utf-8", errors="replace") as fh:
            lines = fh.read(65536).splitlines()
    except OSError:
        return []
    return [ln.strip().strip("/") for ln in lines if ln.strip() and not ln.startswith(("#", "!")) and "/" not in ln.strip().strip("/")]


def _ignored(name: str, patterns: list[str]) -> bool:
    return any(fnmatch.fnmatch(name, p) for p in patterns)
