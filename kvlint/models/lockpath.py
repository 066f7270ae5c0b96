"""Where a project's kvlint.lock lives, apart from reading it: every check asks, few projects have one, so
this costs no parser, regex or hash at start-up (kvlint.models.lock reads and writes the file itself)."""

from __future__ import annotations

import os
from functools import lru_cache

LOCK_NAME = "kvlint.lock"


_TOLD: dict[str, str] = {}  # folder -> project root, as a walk's configuration lookup found it (remember)
TOLD_BOUND = 65_536


def project_root(beside: str) -> str:
    """The real path of the project a file is in (lock_dir of its folder), with a trailing separator: a path starts
    with it when it lies in the project (a mounted script, an imported module of the repository's)."""
    return os.path.realpath(lock_dir(os.path.dirname(os.path.abspath(beside)))).rstrip(os.sep) + os.sep


def lock_dir(start: str) -> str:
    """The project root for a folder: the configuration's folder, else the git root, else the current folder."""
    return _root(os.path.abspath(start or "."))


def _root(here: str) -> str:
    """lock_dir of an absolute, normalised folder."""
    return _TOLD.get(here) or _lock_dir(here)


def remember(folder: str, root: str) -> None:
    """The root of a folder the configuration lookup (kvlint.config.ConfigCache) walked up from while the walk
    listed it: the same answer, found without a stat (five per folder here: a 1,000-file tree has 1,500 folders)."""
    if len(_TOLD) >= TOLD_BOUND:
        _TOLD.clear()
    _TOLD[folder] = root


@lru_cache(maxsize=4096)
def _lock_dir(here: str) -> str:
    """Folder by folder up to the repository root, each answer memoised, so the folders of one tree share the
    walk above them (a stat per folder once per run, not a walk per folder: a 1,000-file tree made 700 walks)."""
    from kvlint.config import _config_in, _is_top

    found = _config_in(here) if os.path.isdir(here) else None
    if found is not None:
        return here
    if _is_top(here):
        return here if os.path.exists(os.path.join(here, ".git")) else os.getcwd()
    return _lock_dir(os.path.dirname(here))


def lock_path_for(file_path: str) -> str:
    """The lock a checked file's launches read (`-`, stdin: the current folder's project)."""
    folder = os.path.dirname(os.path.abspath(file_path)) if file_path not in ("", "-") else os.getcwd()
    return os.path.join(_root(folder), LOCK_NAME)


__all__ = ["LOCK_NAME", "lock_dir", "lock_path_for", "remember"]
