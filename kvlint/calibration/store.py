"""The .kvlint.yaml that holds calibrations: found upward from a folder, read as a mapping, written safely.

A write is checked before it lands: the spliced text must parse, keep every other key, and read back
the intended entries, else the user is asked to add the block by hand. It lands atomically (a
temporary file beside the old one, fsync, rename, the old file's mode kept), under a lock on the
folder, and never through a symlink that leads out of the repository.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache
from typing import Any

from kvlint.calibration.entry import Calibration, entries
from kvlint.calibration.match import lookup
from kvlint.calibration.render import render_block, render_toml, splice
from kvlint.errors import InputError, KvlintError

CONFIG_NAMES = (".kvlint.yaml", ".kvlint.yml")


def find_config_file(start: str) -> str | None:
    """The nearest .kvlint.yaml from start up to the repository root (the folder with .git)."""
    here = os.path.abspath(start)
    while True:
        for name in CONFIG_NAMES:
            path = os.path.join(here, name)
            if os.path.isfile(path):
                return path
        parent = os.path.dirname(here)
        if os.path.exists(os.path.join(here, ".git")) or parent == here:
            return None
        here = parent


def save(entry: Calibration, start_dir: str = ".") -> str:
    """Add or replace `entry` in the nearest .kvlint.yaml (created in start_dir if none); returns its path.

    The whole read-splice-write runs under a lock on the file's folder, so two runs calibrating at once
    both land; the new text goes to a temporary file beside the old one, is flushed to disk and renamed
    over it, so a full disk or a kill leaves the old bytes whole. A symlinked .kvlint.yaml is written
    through only when its target stays inside the repository.
    """
    path = find_config_file(start_dir) or _new_file(entry, start_dir)
    target = _write_target(path, start_dir)
    with _folder_lock(os.path.dirname(target)):
        _remove_stale_temporaries(target)
        text = _current_text(target)
        current = _current_data(path, text)
        kept = [c for c in entries(current) if not c.same_target(entry)]
        new_text = splice(text, render_block(kept + [entry]))
        if not _round_trips(path, new_text, current, kept + [entry]):
            raise KvlintError(f"{path}: cannot place a calibration block in this layout; add it by hand:\n"
                              + render_block([entry]))
        atomic_write(target, new_text)
    return path


def _current_text(path: str) -> str:
    from kvlint.config import read_config_text

    return read_config_text(path) if os.path.lexists(path) else ""


def _current_data(path: str, text: str) -> dict[str, Any]:
    """The configuration as a mapping, read by the hardened loader (a ConfigError names file and line)."""
    from kvlint.config import parse_config_yaml

    return parse_config_yaml(path, text)[0] if text.strip() else {}


def _write_target(path: str, start_dir: str) -> str:
    """The file to replace: `path`, or the file its symlink names when that stays inside the repository."""
    if not os.path.islink(path):
        return path
    real = os.path.realpath(path)
    repo = _repo_root(os.path.dirname(os.path.abspath(path))) or os.path.dirname(os.path.abspath(path))
    if os.path.commonpath([real, os.path.realpath(repo)]) != os.path.realpath(repo):
        raise KvlintError(f"{path} is a symlink to {real}, outside this repository ({repo}); not written",
                          "copy the file into the repository or calibrate there")
    return real


def _repo_root(start: str) -> str | None:
    here = os.path.abspath(start)
    while True:
        if os.path.exists(os.path.join(here, ".git")):
            return here
        parent = os.path.dirname(here)
        if parent == here:
            return None
        here = parent


@contextmanager
def _folder_lock(folder: str) -> Iterator[None]:
    """An exclusive flock on the folder (no lock file left behind); where fcntl is missing (Windows), none."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows
        yield
        return
    try:
        fd = os.open(folder or ".", os.O_RDONLY)
    except OSError as exc:
        raise InputError(f"{folder}: cannot open the folder to lock it: {exc.strerror}") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing releases the lock


TEMP_SUFFIX = ".kvlint-tmp"


def atomic_write(path: str, text: str) -> None:
    """Replace `path` with `text`: a temporary file in the same folder, written in full, fsync'd, given the
    old file's mode, then renamed over it (rename is atomic within a file system). Any failure leaves `path`
    as it was and removes the temporary file; InputError says what failed."""
    folder = os.path.dirname(os.path.abspath(path))
    data = text.encode("utf-8")
    try:
        mode = stat.S_IMODE(os.stat(path).st_mode)
    except FileNotFoundError:
        mode = None
    except OSError as exc:
        raise InputError(f"{path}: cannot write: {exc.strerror}") from None
    try:
        fd, tmp = tempfile.mkstemp(prefix=os.path.basename(path) + ".", suffix=TEMP_SUFFIX, dir=folder)
    except OSError as exc:
        raise InputError(f"{path}: cannot write: {exc.strerror}") from None
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            os.fsync(fd)
            os.fchmod(fd, mode if mode is not None else 0o666 & ~_umask())
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.remove(tmp)
        raise InputError(f"{path}: cannot write: {exc.strerror}; the file is unchanged") from None
    _fsync_folder(folder)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _fsync_folder(folder: str) -> None:
    """Make the rename itself durable (POSIX); best effort, the data is already safe either way."""
    with contextlib.suppress(OSError, AttributeError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _remove_stale_temporaries(path: str) -> None:
    """Temporary files a killed run left beside the configuration (the lock is held: none is in use)."""
    folder, name = os.path.split(os.path.abspath(path))
    with contextlib.suppress(OSError):
        for entry in os.scandir(folder):
            if entry.name.startswith(name + ".") and entry.name.endswith(TEMP_SUFFIX):
                with contextlib.suppress(OSError):
                    os.remove(entry.path)


def _new_file(entry: Calibration, start_dir: str) -> str:
    """A new .kvlint.yaml in start_dir, unless [tool.kvlint] in a pyproject.toml governs it: a new file would
    hide those settings from `kvlint check` (it prefers .kvlint.yaml), so ask for the TOML entry instead."""
    from kvlint.config import find_config

    governing = find_config(os.path.abspath(start_dir))
    if governing and os.path.basename(governing) == "pyproject.toml":
        raise KvlintError(f"{governing} configures kvlint ([tool.kvlint]); a new .kvlint.yaml would hide it. "
                          f"Add this to {governing}:\n" + render_toml(entry))
    return os.path.join(os.path.abspath(start_dir), CONFIG_NAMES[0])


def _round_trips(path: str, text: str, before: dict[str, Any], wanted: list[Calibration]) -> bool:
    """The spliced text still parses, keeps every other key unchanged, and reads back our entries."""
    from kvlint.config import ConfigError

    try:
        after = _current_data(path, text)
    except ConfigError:
        return False
    others = {k: v for k, v in before.items() if k != "calibration"}
    return {k: v for k, v in after.items() if k != "calibration"} == others and entries(after) == wanted


def load_file(path: str) -> dict[str, Any]:
    """A configuration file as a plain mapping (for lookup); {} when absent, unreadable or not a valid mapping
    (`kvlint check` is where a configuration's errors are reported)."""
    from kvlint.config import ConfigError

    try:
        return _current_data(path, _current_text(path))
    except ConfigError:
        return {}


def lookup_file(path: str | None, model: str | None, gpu: str | None, tp: int | None, engine: str | None,
                version: str | None) -> int | None:
    """lookup() against a .kvlint.yaml path (the check helper's Config.path); None for other files."""
    if not path or os.path.basename(path) not in CONFIG_NAMES:
        return None
    try:
        stamp = os.stat(path).st_mtime_ns
    except OSError:
        return None
    return lookup(_cached_file(path, stamp), model, gpu, tp, engine, version)


@lru_cache(maxsize=32)
def _cached_file(path: str, stamp: int) -> dict[str, Any]:
    return load_file(path)
