"""Memoised pieces of the memory models that do not depend on the card.

The catalogue sweep sizes one launch on ~35 cards plus a bisection, about 50 budgets for one set of
settings; each budget used to rebuild the layer specs, the KV groups, the per-stage layouts and the
weights from scratch although none of them depends on the card. These caches keep them per model and
inputs. Keys hold every input the cached function reads, so a hit returns exactly what the call would
compute; the numbers never change, only how often they are computed.

A ModelSpec holds an unhashable `raw` dict and hashing its layer tuple on every lookup would cost what
the cache saves, so a model is keyed by identity and kept alive beside its entries: an id cannot be
reused by another object while an entry holding that object exists. Each cache is bounded (cleared
when full), so a run over thousands of files keeps its memory flat.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any, Generic, TypeVar

T = TypeVar("T")


class PerModel(Generic[T]):
    """Values per (model object, hashable key), computed by `make` on a miss; failures are not cached."""

    def __init__(self, size: int = 2048):
        self.size = size
        self._entries: dict[tuple[int, Hashable], tuple[Any, T]] = {}

    def get(self, model: Any, key: Hashable, make: Callable[[], T]) -> T:
        slot = (id(model), key)
        found = self._entries.get(slot)
        if found is not None and found[0] is model:
            return found[1]
        value = make()
        if len(self._entries) >= self.size:
            self._entries.clear()
        self._entries[slot] = (model, value)
        return value

    def clear(self) -> None:
        self._entries.clear()


def settings_key(settings: Any) -> tuple[tuple[str, str], ...]:
    """A hashable stand-in for a settings mapping: every (name, repr(value)), sorted (values may be dicts)."""
    return tuple(sorted([(k, repr(v)) for k, v in settings.items()]))
