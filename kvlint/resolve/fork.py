"""An engine the repository holds as its own source tree (a fork): its argument parser sits beside the file.

A repository that vendors or forks the engine (`python/sglang/srt/server_args.py`, `vllm/engine/arg_utils.py`
under the project root) runs that tree, not a release: a flag no release has may be the fork's own
(WittenYeh/LSMCache adds `--enable-kvstore` to SGLang 0.4.6). KV004 then says so instead of "the server
exits". The search goes from the file's folder up to the project root (kvlint.models.lockpath.lock_dir),
each folder's answer memoised; the parser is read (at most 2 MiB) only for the option strings it names.

A repository that holds no engine tree may still add the flag itself (a plugin, a patched entry point, a fork
kept as a package): an unknown flag that the repository's own Python code adds with `add_argument("--flag")` is
its own, not a typo (`adds`). The project's Python files are read for that only when a flag is unknown to every
release, once per project and run, and within bounds (OWN_CODE_FILES files, READ_CAP each).
"""

from __future__ import annotations

import os
import re
from functools import lru_cache

from kvlint.record import record

READ_CAP = 2 * 1024 * 1024
_OPTION = re.compile(r"""["'](--[A-Za-z0-9][A-Za-z0-9_.-]*)["']""")


@record
class EngineTree:
    """The repository's own copy of the engine: where its parser is and the option strings it names."""

    parser: str  # the parser file, relative to the project root ("python/sglang/srt/server_args.py")
    options: frozenset[str]
    # No engine tree, but the repository's own Python code adds these flags: (flag, file, line) of each. Only those
    # flags are the repository's own; any other unknown flag stays unknown.
    adds: tuple[tuple[str, str, int], ...] = ()

    def defines(self, flag: str) -> bool:
        return flag in self.options or flag.replace("_", "-") in self.options

    def added_at(self, flag: str) -> tuple[str, int] | None:
        """Where the repository's own code adds the flag (file, line), when this is not an engine tree."""
        wanted = (flag, flag.replace("_", "-"))
        return next(((path, line) for name, path, line in self.adds if name in wanted), None)


def engine_tree(file_path: str, markers: tuple[str, ...], flags: tuple[str, ...] = (),
                command: str = "") -> EngineTree | None:
    """The engine source tree in the file's project, else the unknown `flags` its own Python code adds (or all of
    them, where the project installs its own `command`, the engine's console script), or None (stdin, no marker
    and no flag added, unreadable parser)."""
    if not markers or file_path in ("", "-"):
        return None
    from kvlint.models.lockpath import lock_dir

    folder = os.path.dirname(os.path.abspath(file_path))
    root = lock_dir(folder)
    tree = _search(folder, root, markers)
    if tree is not None or not flags:
        return tree
    scope = _project(folder, root)
    added = _added_flags(scope)
    adds = tuple((f, *added[n]) for f in dict.fromkeys(flags)
                 for n in dict.fromkeys((f, f.replace("_", "-"))) if n in added)
    rest = [f for f in dict.fromkeys(flags) if not any(a[0] == f for a in adds)]
    wrapper = _own_command(scope, command) if command and rest else None
    if wrapper is not None:  # the rest are the wrapper's to take or hand on
        adds += tuple((f, *wrapper) for f in rest)
    if not adds:
        return None
    first = adds[0][1]
    return EngineTree(first, frozenset(f for f, _, _ in adds), adds)


OWN_CODE_FILES = 4000  # Python files read for the flags a repository adds (a large monorepo stops there)
OWN_CODE_FOLDERS = 20000  # folders walked for them (a data tree of no Python files stops there)
_SKIP_DIRS = frozenset({"node_modules", "__pycache__", "site-packages", "venv", "build", "dist"})
_STRING = r"""[rRuU]?["'][^"'\n]{0,200}["']"""
_ADD_ARGUMENT = re.compile(rf"""add_argument\(\s*((?:{_STRING}\s*,\s*){{0,4}}{_STRING})""")
_LONG = re.compile(r"""["'](--[A-Za-z0-9][A-Za-z0-9_.-]*)["']""")


def _project(folder: str, root: str) -> str:
    """The folder whose code is the launch's repository: the project root when it is one (a .git, a kvlint
    configuration), else (a folder of several checkouts, the current folder by default) the root's child the file
    lies in."""
    if not _under(folder, root):  # a file outside the folder kvlint runs in, in no repository: its own folder
        return folder
    if os.path.exists(os.path.join(root, ".git")) or folder == root:
        return root
    from kvlint.config import _config_in

    if _config_in(root) is not None:
        return root
    return os.path.join(root, os.path.relpath(folder, root).split(os.sep, 1)[0])


@lru_cache(maxsize=64)
def _added_flags(scope: str) -> dict[str, tuple[str, int]]:
    """Every long option string the project's Python files pass to `add_argument`, with the first file and line."""
    found: dict[str, tuple[str, int]] = {}
    seen = folders = 0
    for here, dirs, files in os.walk(scope):
        folders += 1
        if folders > OWN_CODE_FOLDERS:
            return found
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in _SKIP_DIRS)
        for name in sorted(files):
            if not name.endswith(".py"):
                continue
            seen += 1
            if seen > OWN_CODE_FILES:
                return found
            path = os.path.join(here, name)
            try:
                with open(path, "rb") as handle:
                    data = handle.read(READ_CAP)
            except OSError:
                continue
            if b"add_argument" not in data:
                continue
            text = data.decode("utf-8", "replace")
            for call in _ADD_ARGUMENT.finditer(text):
                for option in _LONG.finditer(call.group(1)):
                    line = text.count("\n", 0, call.start(1) + option.start()) + 1
                    found.setdefault(option.group(1), (os.path.relpath(path, scope), line))
    return found


_PROJECT_FILES = ("pyproject.toml", "setup.cfg", "setup.py")


@lru_cache(maxsize=64)
def _own_command(scope: str, command: str) -> tuple[str, int] | None:
    """(file, line) where the project installs a console script under the engine's own command name (pyproject's
    `[project.scripts] vllm = "pkg.cli:main"`, setup.cfg's `vllm = pkg.cli:main` under console_scripts, setup.py's
    `"vllm=pkg.cli:main"`): in an environment with the project installed, `vllm serve ...` runs the project's
    wrapper, which takes options of its own and hands the rest to the engine (vllm-project/agentic-stack's
    `--agentic-api`, turn 37's K327). Only the project root's files are read, each within READ_CAP."""
    entry = re.compile(rf"""(?m)^[ \t]*["']?{re.escape(command)}["']?[ \t]*=[ \t]*["']?[\w.]+:\w+""")
    for name in _PROJECT_FILES:
        path = os.path.join(scope, name)
        try:
            with open(path, "rb") as handle:
                text = handle.read(READ_CAP).decode("utf-8", "replace")
        except OSError:
            continue
        found = entry.search(text) or re.search(rf"""["']{re.escape(command)}[ \t]*=[ \t]*[\w.]+:\w+["']""", text)
        if found is not None:
            return name, text.count("\n", 0, found.start() + found.group(0).index(command)) + 1
    return None


@lru_cache(maxsize=4096)
def _search(folder: str, root: str, markers: tuple[str, ...]) -> EngineTree | None:
    for marker in markers:
        path = os.path.join(folder, marker)
        if os.path.isfile(path):
            return _read(path, os.path.relpath(path, root) if _under(path, root) else path)
    parent = os.path.dirname(folder)
    if folder == root or parent == folder or not _under(folder, root):
        return None
    return _search(parent, root, markers)


def _under(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def _read(path: str, shown: str) -> EngineTree | None:
    try:
        with open(path, "rb") as handle:
            text = handle.read(READ_CAP).decode("utf-8", "replace")
    except OSError:
        return None
    return EngineTree(shown, frozenset(_OPTION.findall(text)))
