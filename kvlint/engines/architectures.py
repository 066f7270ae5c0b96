"""Architectures an engine release refuses by name (kvlint/data/architectures.json, from the engine's own table).

vLLM keeps a list of model classes it served until some release and names that release when it refuses one
("supported in vLLM until v0.10.2, and is not supported anymore"), and a list it moved to out-of-tree plugins.
A launch that pins a later image with such a model fails at start-up, before any memory is sized: the
one refusal the model's config.json and the image tag alone decide.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from kvlint.data import load_json
from kvlint.errors import NotModelledError
from kvlint.lazyre import lazy
from kvlint.record import record


@record
class Retired:
    """Why `engine` at `version` no longer serves an architecture in-tree."""

    architecture: str
    last_release: str | None  # the last release that served it (None: moved to a plugin)
    plugin: str | None = None  # where it is served now
    resaved_as: str | None = None  # current checkpoints name this served class instead (re-download config.json)


@lru_cache(maxsize=1)
def _table() -> dict[str, Any]:
    table: dict[str, Any] = load_json("architectures.json")
    return table


_VERSION = lazy(r"v?(\d{1,9}(?:\.\d{1,9}){0,5})(?!\d)")  # asked per launch and release: compiled once


def _release(version: str) -> tuple[int, ...] | None:
    m = _VERSION.match(version.strip())
    return tuple(int(p) for p in m.group(1).split(".")) if m else None


def _padded(key: tuple[int, ...]) -> tuple[int, ...]:
    return (key + (0, 0, 0))[:3] if len(key) < 3 else key


def retired(engine: str, architecture: str, version: str) -> Retired | None:
    """The refusal `engine` `version` gives for `architecture`, or None when it serves it (or kvlint cannot tell)."""
    entry = _table().get(engine, {})
    pinned = _release(version)
    if pinned is None:
        return None
    plugin = entry.get("out_of_tree", {}).get(architecture)
    as_of = _release(entry.get("as_of", ""))
    if plugin is not None and as_of is not None and _padded(pinned) >= _padded(as_of):  # moved by then
        return Retired(architecture, None, plugin)
    last = entry.get("removed", {}).get(architecture)
    until = _release(last) if last else None
    if until is None or _padded(pinned) <= _padded(until):
        return None
    return Retired(architecture, last, resaved_as=entry.get("resaved", {}).get(architecture))


def not_modelled(architecture: str) -> str | None:
    """Why kvlint does not size this architecture's KV cache (its layout is one kvlint lacks), or None.

    Such a launch is refused by architecture with the reason, never sized with a confident guess."""
    reason: str | None = _table().get("not_modelled", {}).get(architecture)
    return reason


def refuse_unmodelled(architecture: str) -> None:
    """Raise NotModelledError for an architecture in the not-modelled table (both engines' budgets call it)."""
    reason = not_modelled(architecture)
    if reason is not None:
        raise NotModelledError(f"{architecture} is not modelled: {reason}",
                               "its KV pool is not sized; check the engine's start-up log for its figures")
