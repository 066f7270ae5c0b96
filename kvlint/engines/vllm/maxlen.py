"""The longest context vLLM derives from config.json when no length is given.

The derivation (rope scaling, sliding windows, the keys each architecture reads) is kvlint.models.maxlen's,
kept on the model spec as `max_len_vllm`; this module is the engine's entry in it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from kvlint.models.spec import ModelSpec


def derived_max_len(model: ModelSpec) -> int:
    return model.max_len_vllm
