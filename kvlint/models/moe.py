"""Mixture-of-experts layout: expert counts and widths, shared experts, and which layers carry experts.

Weight bytes per rank depend on it, and each family spells it differently (DeepSeek's first dense
layers, Qwen's decoder_sparse_step and mlp_only_layers, Llama-4's interleaving and shared expert).
"""

from __future__ import annotations

from typing import Any

from kvlint.models.layers import hybrid_pattern
from kvlint.models.spec import MoE


def moe_of(text: dict[str, Any], num_layers: int) -> MoE | None:
    """None for a dense model (one expert counts as dense: nothing is routed)."""
    experts = _int_of(text, ("n_routed_experts", "num_local_experts", "num_experts", "moe_num_experts"))
    if not experts or experts <= 1:
        return None
    top_k = _int_of(text, ("num_experts_per_tok", "experts_per_token", "moe_top_k", "top_k_experts")) or 1
    shared = int(text.get("n_shared_experts") or 0)
    shared_size = text.get("shared_expert_intermediate_size")
    if text.get("model_type") == "llama4_text":
        shared, shared_size = 1, int(text["intermediate_size"])
    elif shared_size and text.get("model_type") in ("qwen2_moe", "qwen3_next"):
        shared = 1
    elif text.get("moe_shared_expert_intermediate_size"):  # Nemotron-H
        shared_size = int(text["moe_shared_expert_intermediate_size"]) * max(shared, 1)
    else:
        shared_size = None
    expert_size = _expert_size(text)
    first_dense = int(text.get("first_k_dense_replace") or 0)
    freq = int(text.get("interleave_moe_layer_step") or text.get("decoder_sparse_step") or text.get("moe_layer_freq")
               or 1)
    return MoE(
        num_experts=experts,
        experts_per_token=int(top_k),
        moe_intermediate_size=expert_size,
        num_shared_experts=shared,
        shared_intermediate_size=int(shared_size) if shared_size else None,
        first_dense_layers=first_dense,
        layer_freq=freq,
        dense_intermediate_size=_dense_size(text),
        moe_layer_ids=moe_layer_ids(text, num_layers, first_dense, freq),
    )


def _int_of(text: dict[str, Any], keys: tuple[str, ...]) -> int | None:
    return next((int(text[k]) for k in keys if isinstance(text.get(k), int)), None)


def _expert_size(text: dict[str, Any]) -> int:
    """Mixtral, gpt-oss and Llama-4 size experts with intermediate_size; the rest with moe_intermediate_size."""
    if text.get("moe_intermediate_size"):
        return int(text["moe_intermediate_size"])
    return int(text.get("intermediate_size") or 0)


def _dense_size(text: dict[str, Any]) -> int | None:
    if text.get("model_type") == "llama4_text":
        return int(text.get("intermediate_size_mlp") or 0) or None
    if text.get("moe_intermediate_size"):
        return int(text.get("intermediate_size") or 0) or None
    return None


def moe_layer_ids(text: dict[str, Any], num_layers: int, first_dense: int, freq: int) -> tuple[int, ...]:
    """Which decoder layers carry experts, as each family's model code decides it."""
    dense_only = set(text.get("mlp_only_layers") or [])
    pattern = hybrid_pattern(text)
    if pattern is not None:  # Nemotron-H: the "E" blocks
        return tuple(i for i, c in enumerate(pattern[:num_layers]) if c == "E")
    if text.get("model_type") == "llama4_text" or "decoder_sparse_step" in text:
        ids = [i for i in range(num_layers) if (i + 1) % freq == 0]
    else:  # DeepSeek / GLM: dense first k, then every freq-th
        ids = [i for i in range(first_dense, num_layers) if i % freq == 0]
    return tuple(i for i in ids if i not in dense_only)
