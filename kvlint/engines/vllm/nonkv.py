"""vLLM's non-KV coefficients (kvlint/data/nonkv.json, with their evidence): the terms of its estimate of the
memory outside weights and KV.

The estimate stays in kvlint.memory.nonkv, one module for both engines (the live tensors, activation peaks and
workspaces are shared arithmetic); this module is the engine's entry in it, which the engine record exposes.
"""

from typing import Any

from .facts import NAME


def coefficients() -> dict[str, Any]:
    """This engine's coefficients of the non-KV estimate."""
    from kvlint.memory.nonkv import coefficients as every_engine

    found: dict[str, Any] = every_engine()[NAME]
    return found


def pool_bands() -> tuple[Any, ...]:
    """The estimate's uncertainty per release era (kvlint/data/nonkv.json `uncertainty`), oldest first."""
    from kvlint.memory.nonkv import pool_bands as every_era

    return every_era()
