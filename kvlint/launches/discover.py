"""Which files in a folder are deployment files, walked without following symlink loops."""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from kvlint.launches.kinds import kind_for, walked, walked_size
from kvlint.lazyre import lazy

if TYPE_CHECKING:
    from kvlint.ignore import Ignores

SKIP_DIRS = {".git", "node_modules", ".venv", "venv", "__pycache__", ".tox", ".mypy_cache", ".pytest_cache"}


def kind_of(path: str) -> str | None:
    """The kind a file name claims (kvlint.launches.kinds), or None when the name is not a deployment format."""

    kind = kind_for(path)
    return kind.name if kind is not None else None


class Listings:
    """The names in each folder the walk is inside (by absolute path), while it is inside: the configuration
    lookup for a file walks up exactly these folders, and a name a listing lacks needs no stat (four per
    folder: .kvlint.yaml, .kvlint.yml, pyproject.toml, .git). A folder's names go when the walk leaves it, so
    memory follows the depth of the tree, not its size."""

    def __init__(self) -> None:
        self.by_folder: dict[str, frozenset[str]] = {}

    def names(self, folder: str) -> frozenset[str] | None:
        """The names in `folder` (absolute), or None when the walk is not inside it."""
        return self.by_folder.get(folder)


def iter_files(paths: Iterable[str], listings: Listings | None = None) -> Iterator[tuple[str, str | None]]:
    """(path, None) to read, or (path, reason) skipped; `is_note(reason)` tells a note from an unreadable input.

    Paths come in the order of their strings (a folder's as `folder/`, as its files' paths sort), whatever
    order they were given in: the order of the report (see _walk). `listings`, when given, holds the names
    of the folders the walk is inside as each file is yielded."""
    for path in sorted(dict.fromkeys(paths), key=lambda p: p + "/" if os.path.isdir(p) else p):
        if path == "-":
            yield path, None
        elif os.path.isdir(path):
            yield from _walk(path, listings if listings is not None else Listings())
        elif not os.path.exists(path):
            yield path, "no such file or directory"
        else:
            yield path, _irregular(path)  # named explicitly: read it whatever its name


def is_note(reason: str) -> bool:
    """Skips that are worth a note but refuse nothing (exit codes unchanged); the rest are unreadable inputs."""
    return reason.startswith(NOTE_REASONS)


NOTE_REASONS = ("symlink loop", "broken symlink", "not a regular file", "symlink to outside")


def _irregular(path: str) -> str | None:
    """Why a path that is not a regular file is skipped (a FIFO would block the read, /dev/zero never ends)."""
    from kvlint.sources.text import not_regular

    try:
        what = not_regular(os.stat(path).st_mode)
    except OSError:
        return None  # the read says why
    return None if what is None else f"not a regular file ({what}); skipped"


FOLDER = object()  # an entry of a folder listing to descend into


def _walk(root: str, listings: Listings) -> Iterator[tuple[str, str | None]]:
    """Depth first, each folder's entries by name with a folder's name read as `name/`. So files come in the
    order of their path strings (`a.yaml` < `a/` < `a-b/` as `a.yaml` < `a/x` < `a-b/x`), the order the
    report sorts findings in, and a run can write each file's findings as soon as they are made."""
    from kvlint.ignore import Ignores

    seen: set[tuple[int, int]] = set()
    inside = os.path.realpath(root)
    pending: list[tuple[str | None, Iterator[tuple[str, object]], Ignores]] = [
        (None, iter([(root, FOLDER)]), Ignores.above(root))]
    while pending:
        folder, entries, ignores = pending[-1]
        item = next(entries, None)
        if item is None:
            pending.pop()
            if folder is not None:
                listings.by_folder.pop(folder, None)
        elif item[1] is not FOLDER:
            yield item[0], item[1]  # type: ignore[misc]  # a file: None to read, or why it is skipped
        else:
            listed = _list(item[0], seen, ignores, inside)
            if isinstance(listed, str):
                yield item[0], listed
            else:
                where = os.path.abspath(item[0])
                listings.by_folder[where] = listed[1]
                pending.append((where, iter(listed[0]), listed[2]))


def _list(folder: str, seen: set[tuple[int, int]],
          ignores: Ignores, inside: str = "") -> str | tuple[list[tuple[str, object]], frozenset[str], Ignores]:
    """A folder's entries in visiting order: (path, FOLDER) to descend, (path, None) to read, (path, reason)
    skipped, the names it holds and the .gitignore rules inside it; or why the folder cannot be entered. A
    symlink whose target lies outside `inside` (the walked tree, resolved) is not followed: a repository's link
    to /etc/shadow or a home folder is not the repository's to report on (a path given by name is read whatever
    it is)."""
    try:
        st = os.stat(folder)
    except OSError as exc:
        return f"cannot enter folder: {exc.strerror}"
    if (st.st_dev, st.st_ino) in seen:
        return "symlink loop (folder already visited)"
    seen.add((st.st_dev, st.st_ino))
    try:
        listing = list(os.scandir(folder))
    except OSError as exc:
        return f"cannot list folder: {exc.strerror}"
    names = frozenset(entry.name for entry in listing)
    ignores = ignores.entering(folder, names)
    where = os.path.abspath(folder).replace(os.sep, "/") if ignores.files else ""
    visit: list[tuple[str, str, object]] = []
    for entry in listing:
        if entry.name in SKIP_DIRS or where and ignores.ignored(f"{where}/{entry.name}", _is_dir(entry)):
            continue
        try:
            mode = entry.stat().st_mode  # follows symlinks
        except OSError as exc:
            why = _unstatable(entry, exc)
            if why is not None:
                visit.append((entry.name, entry.path, why))
            continue
        folder_entry = stat.S_ISDIR(mode)
        reads = not folder_entry and (kind_of(entry.path) is not None and _wanted(entry.name)
                                      or _shell_script(entry, mode))
        if (folder_entry or reads) and inside and entry.is_symlink() and not _within(os.path.realpath(entry.path),
                                                                                      inside):
            visit.append((entry.name, entry.path, OUTSIDE))
        elif folder_entry:
            visit.append((entry.name + "/", entry.path, FOLDER))
        elif reads and _small_enough(entry):
            visit.append((entry.name, entry.path, _irregular(entry.path) if not stat.S_ISREG(mode) else None))
    visit.sort(key=lambda v: v[0])
    return [(path, what) for _, path, what in visit], names, ignores


# suffixes of files that are never a script (media, archives, data, compiled code, sources of compiled languages):
# not opened to look for a shebang
_NEVER_SCRIPTS = frozenset({
    ".png", ".jpg", ".jpeg", ".gif", ".svg", ".ico", ".webp", ".bmp", ".pdf", ".zip", ".gz", ".tgz", ".bz2", ".xz",
    ".tar", ".zst", ".7z", ".whl", ".egg", ".so", ".o", ".a", ".dll", ".dylib", ".exe", ".pyc", ".pyo", ".bin",
    ".safetensors", ".pt", ".pth", ".ckpt", ".onnx", ".gguf", ".parquet", ".arrow", ".csv", ".tsv", ".jsonl",
    ".lock", ".c", ".h", ".cc", ".cpp", ".hpp", ".cu", ".cuh", ".css", ".scss", ".html", ".htm", ".xml", ".woff",
    ".woff2", ".ttf", ".otf", ".mp3", ".mp4", ".wav", ".mov", ".npy", ".npz", ".pkl", ".db", ".sqlite", ".log",
    ".map", ".pem", ".key", ".crt", ".jar", ".class"})
_SCRIPT_BYTES = 256 * 1024
_SHELLS = lazy(rb"^#![ \t]*/\S*?(?:/env[ \t]+(?:-\S+[ \t]+)*)?(?:ba|z|k|da)?sh\b")


def _shell_script(entry: os.DirEntry, mode: int) -> bool:
    """A file under a suffix no kind claims whose first line is a shell's shebang (`generate_pairs.ssub`, sample K369's
    Slurm jobs: `#!/bin/bash` then `#SBATCH` lines): a script, read as one. A scheduler or site names its job scripts
    as it likes; the first line says what runs them. Only a small regular file of a suffix that may hold text is
    opened, for its first bytes."""
    suffix = os.path.splitext(entry.name)[1].lower()
    if not suffix or suffix in _NEVER_SCRIPTS or not stat.S_ISREG(mode) or entry.is_symlink():
        return False  # a link is not opened to look: it may lead out of the tree
    try:
        if not 0 < entry.stat().st_size <= _SCRIPT_BYTES:
            return False
        with open(entry.path, "rb") as handle:
            return _SHELLS.match(handle.read(128)) is not None
    except OSError:
        return False


def _small_enough(entry: os.DirEntry) -> bool:
    """A kind bounded in size (kvlint.launches.kinds.Kind.walk_bytes: notes) reads only files within it."""

    try:
        return walked_size(entry.path, entry.stat().st_size)
    except OSError:
        return True  # the read says why


def _is_dir(entry: os.DirEntry) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False


OUTSIDE = "symlink to outside the tree being checked; not followed"


def _within(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


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
    """In a folder walk, JSON only when its name says engine config (package.json is not): the kind's walk hint."""

    return walked(name)

