"""The .kvlint.yaml that holds calibrations: found upward from a folder, read as a mapping, written safely.

A write is checked before it lands: the spliced text must parse, keep every other key, and read back
the intended entries, else the user is asked to add the block by hand.
"""

from __future__ import annotations

import os
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
    """Add or replace `entry` in the nearest .kvlint.yaml (created in start_dir if none); returns its path."""
    import yaml

    path = find_config_file(start_dir) or _new_file(entry, start_dir)
    try:
        text = ""
        if os.path.exists(path):
            with open(path, encoding="utf-8") as fh:
                text = fh.read()
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror}") from None
    try:
        current = yaml.safe_load(text) if text.strip() else {}
    except yaml.YAMLError:
        raise KvlintError(f"{path}: not valid YAML; fix it before calibrating") from None
    if current is not None and not isinstance(current, dict):
        raise KvlintError(f"{path}: the configuration must be a mapping of keys")
    kept = [c for c in entries(current) if not c.same_target(entry)]
    new_text = splice(text, render_block(kept + [entry]))
    if not _round_trips(new_text, current or {}, kept + [entry]):
        raise KvlintError(f"{path}: cannot place a calibration block in this layout; add it by hand:\n"
                          + render_block([entry]))
    try:
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(new_text)
    except OSError as exc:
        raise InputError(f"{path}: cannot write: {exc.strerror}") from None
    return path


def _new_file(entry: Calibration, start_dir: str) -> str:
    """A new .kvlint.yaml in start_dir, unless [tool.kvlint] in a pyproject.toml governs it: a new file would
    hide those settings from `kvlint check` (it prefers .kvlint.yaml), so ask for the TOML entry instead."""
    from kvlint.config import find_config

    governing = find_config(os.path.abspath(start_dir))
    if governing and os.path.basename(governing) == "pyproject.toml":
        raise KvlintError(f"{governing} configures kvlint ([tool.kvlint]); a new .kvlint.yaml would hide it. "
                          f"Add this to {governing}:\n" + render_toml(entry))
    return os.path.join(os.path.abspath(start_dir), CONFIG_NAMES[0])


def _round_trips(text: str, before: dict[str, Any], wanted: list[Calibration]) -> bool:
    """The spliced text still parses, keeps every other key unchanged, and reads back our entries."""
    import yaml

    try:
        after = yaml.safe_load(text)
    except yaml.YAMLError:
        return False
    if not isinstance(after, dict):
        return False
    others = {k: v for k, v in before.items() if k != "calibration"}
    return {k: v for k, v in after.items() if k != "calibration"} == others and entries(after) == wanted


def load_file(path: str) -> dict[str, Any]:
    """A configuration file as a plain mapping (for lookup); {} when absent or not a mapping."""
    import yaml

    try:
        with open(path, encoding="utf-8") as fh:
            data = yaml.safe_load(fh)
    except (OSError, yaml.YAMLError):
        return {}
    return data if isinstance(data, dict) else {}


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
