"""An engine the repository holds as its own source tree (a fork): its argument parser sits beside the file.

A repository that vendors or forks the engine (`python/sglang/srt/server_args.py`, `vllm/engine/arg_utils.py`
under the project root) runs that tree, not a release: a flag no release has may be the fork's own
(WittenYeh/LSMCache adds `--enable-kvstore` to SGLang 0.4.6). KV004 then says so instead of "the server
exits". The search goes from the file's folder up to the project root (kvlint.models.lockpath.lock_dir),
each folder's answer memoised; the parser is read (at most 2 MiB) only for the option strings it names.
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

    def defines(self, flag: str) -> bool:
        return flag in self.options or flag.replace("_", "-") in self.options


def engine_tree(file_path: str, markers: tuple[str, ...]) -> EngineTree | None:
    """The engine source tree in the file's project, or None (stdin, no marker, unreadable parser)."""
    if not markers or file_path in ("", "-"):
        return None
    from kvlint.models.lockpath import lock_dir

    folder = os.path.dirname(os.path.abspath(file_path))
    return _search(folder, lock_dir(folder), markers)


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
