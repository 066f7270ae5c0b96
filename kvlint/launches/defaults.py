"""Defaults the engine would use for the KV-relevant settings a launch leaves out (for inspect).

The flag table holds the newest release's defaults; a setting whose default moved between releases
(vLLM's gpu_memory_utilization: 0.9, then 0.92 from 0.20) is in the release table
(kvlint/data/engine_versions.json), and the release the memory model follows decides it: `inspect`
exists to show what kvlint understood, so it shows the default the budget used.
"""

from __future__ import annotations

import re

from kvlint.deployment import Deployment
from kvlint.engines.registered import facts


def _kv_settings(engine: str) -> tuple[str, ...]:
    """The settings of `engine` that size its KV pool (its facts' KV_SETTINGS), in the order inspect shows them."""
    found: tuple[str, ...] = facts(engine).KV_SETTINGS
    return found


def defaulted(dep: Deployment, release: str | None = None) -> dict[str, object]:
    """KV-relevant settings not given, with the engine's default (None = derived) in `release` (the release
    modelled; None: the newest, the flag table's)."""
    from kvlint.launches.argv import spec_by_dest

    moved = release_defaults(dep.engine, release) if release else {}
    out: dict[str, object] = {}
    for name in _kv_settings(dep.engine):
        spec = spec_by_dest(dep.engine, name) if name not in dep.settings else None
        if spec is not None:
            out[name] = moved.get(name, spec.default)
    return out


def release_defaults(engine: str, release: str) -> dict[str, object]:
    """The KV settings' defaults the release table records for one release (those that moved over time)."""
    from kvlint.data import load_json

    record = load_json("engine_versions.json").get(engine, {}).get("versions", {}).get(release, {})
    return {name: record[name] for name in _kv_settings(engine) if name in record}


def substitution(pinned: str | None, modelled: str) -> str | None:
    """Why the release modelled is not the one pinned ('0.10.1.1 is not in kvlint's release table: modelled as
    0.10.1'), or None when they are the same release."""
    if not pinned or _numbers(pinned) == _numbers(modelled):
        return None
    return f"{pinned} is not in kvlint's release table: modelled as {modelled}"


def _numbers(version: str) -> tuple[int, ...]:
    """'v0.10.1' -> (0, 10, 1, 0): a tag's release numbers, padded so 0.10 and 0.10.0 are one release."""
    found = re.match(r"v?(\d+(?:\.\d+)*)", version.strip())
    parts = tuple(int(p) for p in found.group(1).split(".")) if found else ()
    return (parts + (0, 0, 0))[:3] + parts[3:]
