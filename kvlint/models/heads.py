"""KV heads and head widths as vLLM's get_total_num_kv_heads / get_head_size read them, MLA latents included.

Which config key wins differs by family (Falcon multi-query, GLM groups, DeepSeek latents); the
per-token KV cell rests on these numbers, so the engines' order of precedence is kept exactly.
"""

from __future__ import annotations

from typing import Any

from kvlint.models.spec import MLADims

# model_type values whose kv_lora_rank means MLA in vLLM (is_deepseek_mla).
MLA_MODEL_TYPES = frozenset(
    {"deepseek_v2", "deepseek_v3", "deepseek_v32", "deepseek_mtp", "kimi_k2", "kimi_vl", "kimi_linear", "deepseek_v4"}
)
FALCON_TYPES = frozenset({"falcon", "RefinedWeb", "RefinedWebModel"})
KV_HEAD_KEYS = ("n_head_kv", "num_kv_heads", "num_key_value_heads", "multi_query_group_num", "num_attention_groups")


def num_kv_heads(text: dict[str, Any], heads: int) -> int:
    """vLLM get_total_num_kv_heads: Falcon multi-query first, then the first present key."""
    new_arch = text.get("model_type") in FALCON_TYPES and text.get("new_decoder_architecture", False)
    if not new_arch and text.get("multi_query", False):
        return 1
    for key in KV_HEAD_KEYS:
        value = text.get(key)
        if isinstance(value, int) and value > 0:
            return value
    return int(heads)


def _is_mla(text: dict[str, Any], cfg: dict[str, Any]) -> bool:
    types = {str(text.get("model_type")), str(cfg.get("model_type"))}
    return text.get("kv_lora_rank") is not None and bool(types & MLA_MODEL_TYPES)


def mla_dims(text: dict[str, Any], cfg: dict[str, Any]) -> MLADims | None:
    """MLA latent sizes, or None: kv_lora_rank alone is not enough, vLLM also checks the model type."""
    if text.get("model_type") == "deepseek_v4" and text.get("head_dim"):
        return _v4_dims(text)
    if not _is_mla(text, cfg):
        return None
    return MLADims(
        kv_lora_rank=int(text["kv_lora_rank"]),
        qk_rope_head_dim=int(text.get("qk_rope_head_dim") or 64),
        qk_nope_head_dim=int(text.get("qk_nope_head_dim") or 128),
        v_head_dim=int(text.get("v_head_dim") or 128),
        q_lora_rank=text.get("q_lora_rank"),
        index_head_dim=text.get("index_head_dim"),
        index_topk=text.get("index_topk"),
        index_kpool=max(int(text.get("index_kpool") or 1), 1),
        index_shared_layers=index_shared_layers(text),
    )


def index_shared_layers(text: dict[str, Any]) -> tuple[int, ...]:
    """Sparse-attention layers that reuse the previous layer's top-k and so keep no indexer key, by the first key
    the config names (SGLang 0.5.23 dsa_layer_skips_topk): `indexer_types` ("shared"), LongCat's `cli_factor` (a
    fresh top-k every N layers), `index_topk_pattern` ("S"), `index_topk_freq` (a fresh top-k every N layers
    from layer 1, or from `index_skip_topk_offset`). DeepSeek-V3.2 names none: every layer has its own."""
    if not text.get("index_topk"):
        return ()
    layers = int(text.get("num_hidden_layers") or 0)
    kinds = text.get("indexer_types")
    if isinstance(kinds, list):
        return tuple(i for i, kind in enumerate(kinds) if kind == "shared")
    every = int(text.get("cli_factor") or 1)
    if every > 1:
        return tuple(i for i in range(layers) if i % every)
    pattern = text.get("index_topk_pattern")
    if isinstance(pattern, (str, list)):
        return tuple(i for i, mark in enumerate(pattern) if mark == "S")
    freq = max(int(text.get("index_topk_freq") or 1), 1)
    offset = text.get("index_skip_topk_offset")
    first = int(offset) - 1 if isinstance(offset, int) and offset > 0 else 1
    return tuple(i for i in range(layers) if max(i - first, 0) % freq)


def _v4_dims(text: dict[str, Any]) -> MLADims:
    """DeepSeek-V4 caches one shared K=V vector of head_dim per token (vLLM sizes it as MLA with
    head_size = head_dim); expressed as a latent of head_dim - rope plus the rope part. Its compressed
    and sliding layers (compress_ratios, sliding_window) are not modelled."""
    rope = int(text.get("qk_rope_head_dim") or 64)
    head = int(text["head_dim"])
    return MLADims(head - rope, rope, head - rope, head, text.get("q_lora_rank"), text.get("index_head_dim"),
                   text.get("index_topk"))


def head_dims(text: dict[str, Any], hidden: int, heads: int, mla: MLADims | None) -> tuple[int, int]:
    """K and V widths per head as vLLM's get_head_size; MLA's latent is K with no V."""
    if mla is not None:
        return mla.kv_lora_rank + mla.qk_rope_head_dim, 0
    head = text.get("head_dim")
    if not (isinstance(head, int) and head > 0):
        head = text.get("hidden_size_per_head") or int(hidden) // int(heads)
    v_head = text.get("v_head_dim")
    return int(head), int(v_head) if isinstance(v_head, int) and v_head > 0 else int(head)
