"""Files read beside a launch (a project's lock, a settings file a script sources, the Dockerfile of an image the
script builds): evidence kvlint can do without, so any failure is None, never an error or a wait.

Its own module, below every stage, because both the launch readers and resolve read such files and the pipeline's
layers keep resolve from importing kvlint.sources.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator


def side_text(path: str, cap: int) -> str | None:
    """The file's text, or None when it is missing, not a regular file (opening a FIFO waits for a writer), unreadable
    or over `cap` bytes. The type is checked before opening and again on the descriptor."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return None
        flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
        with os.fdopen(os.open(path, flags), "rb") as handle:
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                return None
            data = handle.read(cap + 1)
    except (OSError, ValueError):
        return None
    return None if len(data) > cap else data.decode("utf-8", "replace")


def folders_up(start: str, levels: int) -> Iterator[str]:
    """`start` and the folders above it, at most `levels` more, stopping after the repository's root (the folder
    holding `.git`) or the file system's: where files a launch names beside it are looked for."""
    folder = start
    for _ in range(levels + 1):
        yield folder
        parent = os.path.dirname(folder)
        if parent == folder or os.path.exists(os.path.join(folder, ".git")):
            return
        folder = parent
