"""The engines' memory models (stage 5) behind one call: compute_budget(engine, model, settings, gpu) -> Budget.

Each model is its engine folder's memory.py (kvlint/engines/<name>/memory.py: `budget`), found by name through
kvlint.engines.registered; this package holds the arithmetic they share (common, memo, nonkv, reservations,
versions).

Settings are canonical (each engine's argparse dest names, typed values), so the models never know how a
flag was spelled or which file it came from. `weights_bytes` lets a caller (or a test) state the
per-rank weight memory instead of the models helper's estimate.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kvlint.budget import Budget
from kvlint.engines.registered import part
from kvlint.errors import KvlintError
from kvlint.models.spec import ModelSpec


def compute_budget(engine: str, model: ModelSpec, settings: Mapping[str, Any], gpu: Any, *,
                   version: str | None = None, non_kv_bytes: int | None = None,
                   gpu_memory_bytes: int | None = None, weights_bytes: int | None = None) -> Budget:
    """Everything the engine would compute at startup for one instance (one DP replica, one rank's view)."""
    for name, value in (("non-KV memory", non_kv_bytes), ("weights", weights_bytes)):
        if value is not None and value < 0:
            raise KvlintError(f"{name} cannot be negative, got {value / 2**30:.2f} GiB")
    found: Budget = part(engine, "memory").budget(model, settings, gpu, version=version, non_kv_bytes=non_kv_bytes,
                                                  gpu_memory_bytes=gpu_memory_bytes, weights_bytes=weights_bytes)
    return found
