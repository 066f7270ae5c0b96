"""The engine records: what differs between vLLM and SGLang, behind one protocol (base.py).

`get_engine(name)` is the one place an engine's name turns into its record; everything else asks the
record. A third engine is a module beside vllm.py and sglang.py and one entry in `_MODULES`.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from kvlint.engines.base import Engine

_MODULES = {"vllm": "kvlint.engines.vllm.engine", "sglang": "kvlint.engines.sglang.engine"}
ENGINE_NAMES = tuple(_MODULES)
_LOADED: dict[str, Engine] = {}


def get_engine(name: str) -> Engine:
    """The record of engine `name` (KvlintError with the known names otherwise)."""
    found = _LOADED.get(name)
    if found is None:
        module = _MODULES.get(name)
        if module is None:
            from kvlint.errors import KvlintError

            raise KvlintError(f"unknown engine {name!r}: expected one of {', '.join(ENGINE_NAMES)}")
        found = _LOADED[name] = importlib.import_module(module).ENGINE
    return found


def all_engines() -> Iterator[Engine]:
    """Every engine's record in a fixed order, each loaded when reached: a search that stops at vLLM's
    (an image, a command) does not load SGLang's record and what it imports."""
    return (get_engine(n) for n in ENGINE_NAMES)

