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


def max_len_limit(model: ModelSpec) -> int:
    """What a user's --max-model-len is checked against: the derived maximum before LongRoPE's default moved to
    original_max_position_embeddings (0.12); every release compares a given length with the full derivation."""
    return model.max_len_vllm_legacy if model.max_len_vllm_legacy is not None else model.max_len_vllm
