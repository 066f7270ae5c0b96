"""The engine records: what differs between vLLM and SGLang, behind one protocol (base.py).

`get_engine(name)` is the one place an engine's name turns into its record; everything else asks the
record. Each engine is a folder (kvlint/engines/vllm/, kvlint/engines/sglang/) registered by one line in
kvlint.engines.registered; a third engine is a copy of a sibling folder and one entry there.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from kvlint.engines.registered import engine_names, part

if TYPE_CHECKING:
    from kvlint.engines.base import Engine

ENGINE_NAMES = engine_names()  # the engines kvlint ships; a search that must also see a plugin calls engine_names()
_LOADED: dict[str, Engine] = {}


def get_engine(name: str) -> Engine:
    """The record of engine `name` (KvlintError with the known names otherwise)."""
    found = _LOADED.get(name)
    if found is None:
        found = _LOADED[name] = part(name, "engine").ENGINE
    return found


def all_engines() -> Iterator[Engine]:
    """Every engine's record in a fixed order, each loaded when reached: a search that stops at vLLM's
    (an image, a command) does not load SGLang's record and what it imports."""
    return (get_engine(n) for n in engine_names())
