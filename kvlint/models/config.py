"""config.json -> ModelSpec: the one place that assembles a config's facts into the record engines read.

Engines, weights and rules read the ModelSpec only, so every decision about where a fact lives in a
config is made once, the way the engines make it (engines.md 1.1 for vLLM 0.33, 3.2 for SGLang 0.5.23),
in the module named for it: text_config (nesting, class defaults, dtype), heads (KV heads, head dims, MLA
latents), layers (per-layer attention patterns), maxlen (derived context length), moe, quant
(quantization blocks) and vision (multimodal towers). This module checks the required fields and builds
the record.
"""

from __future__ import annotations

from typing import Any

from kvlint.errors import KvlintError
from kvlint.models.heads import head_dims, mla_dims, num_kv_heads
from kvlint.models.layers import layer_kvs, sliding_window
from kvlint.models.maxlen import max_len_sglang, max_len_vllm, max_len_vllm_before_longrope_default
from kvlint.models.moe import moe_of
from kvlint.models.quant import quantization
from kvlint.models.spec import MAMBA, ModelSpec
from kvlint.models.text_config import checkpoint_dtype, text_config
from kvlint.models.vision import vision_params


class ModelConfigError(KvlintError):
    """A config.json lacks a field every decoder needs (layers, hidden size, heads)."""


def spec_from_config(
    cfg: dict[str, Any], model_id: str, source: str, *, hf_quant_config: dict[str, Any] | None = None
) -> ModelSpec:
    """Build the ModelSpec. `hf_quant_config` is ModelOpt's side file (hf_quant_config.json), when shipped.

    A malformed config (a string where a number belongs, ...) is a ModelConfigError, never a traceback.
    """
    if not isinstance(cfg, dict):
        raise ModelConfigError(f"{model_id}: config.json is not a JSON object")
    _check_ranges(cfg, model_id, 0)
    try:
        return _build(cfg, model_id, source, hf_quant_config)
    except (TypeError, ValueError, KeyError, AttributeError, ZeroDivisionError, IndexError, OverflowError) as exc:
        raise ModelConfigError(f"{model_id}: config.json has a malformed field ({type(exc).__name__}: {exc})") from None


def _build(cfg: dict[str, Any], model_id: str, source: str, hf_quant_config: dict[str, Any] | None) -> ModelSpec:
    text, nested = text_config(cfg)
    layers_n = _num_layers(text, model_id)
    hidden = _require(text, ("hidden_size", "n_embd", "d_model"), model_id)
    heads = _require(text, ("num_attention_heads", "n_head", "num_heads"), model_id)
    kv_heads = num_kv_heads(text, heads)
    mla = mla_dims(text, cfg)
    head_k, head_v = head_dims(text, hidden, heads, mla)
    window = sliding_window(text)
    layers = layer_kvs(text, layers_n, kv_heads, head_k, head_v, mla, window)
    if any(layer.kind == MAMBA and layer.state_bytes is None for layer in layers):
        raise ModelConfigError(f"{model_id}: config.json has Mamba or linear-attention layers but none of the state "
                               "sizes kvlint reads (linear_num_value_heads, mamba_num_heads); not sized")
    len_v, key_v = max_len_vllm(text)
    len_s, key_s = max_len_sglang(text)
    return ModelSpec(
        model_id=model_id,
        source=source,
        architecture=(cfg.get("architectures") or [""])[0],
        model_type=str(text.get("model_type") or cfg.get("model_type") or ""),
        num_layers=layers_n,
        layers=layers,
        hidden_size=int(hidden),
        num_attention_heads=int(heads),
        num_kv_heads=int(kv_heads),
        head_dim=head_k,
        v_head_dim=head_v,
        intermediate_size=int(_intermediate(text, hidden)),
        vocab_size=int(text.get("vocab_size") or cfg.get("vocab_size") or 0),
        tie_word_embeddings=bool(_first(text, cfg, "tie_word_embeddings", default=False)),
        dtype=checkpoint_dtype(text, cfg),
        max_len_vllm=len_v,
        max_len_vllm_legacy=max_len_vllm_before_longrope_default(text),
        max_len_sglang=len_s,
        max_len_key=key_v,
        mla=mla,
        moe=moe_of(text, layers_n),
        quant=quantization(cfg, hf_quant_config),
        num_mtp_layers=mtp_layers(text) or 0,
        mtp_unknown=mtp_layers(text, None) is None and copied(source),
        mtp_shares_embeddings="mtp_num_hidden_layers" in text and not text.get("mtp_use_dedicated_embeddings"),
        sliding_window=window,
        is_multimodal=nested or "vision_config" in cfg,
        vision_params=vision_params(cfg.get("vision_config"), hidden),
        raw=cfg,
        text_config_key="text_config" if nested else None,
        max_len_key_sglang=key_s,
    )


MTP_KEYS = ("num_nextn_predict_layers", "mtp_num_hidden_layers")  # DeepSeek / GLM / MiMo; Qwen3.5 / Qwen3-Next
# Sources whose config is a copy kvlint trimmed or derived (kvlint.models.resolve, derive, lock): a key such
# a copy lacks may have been dropped on the way (Qwen3.5's mtp_num_hidden_layers was, until the trim kept it).
COPIED_SOURCES = ("bundled:", "derived:", "lock:")


def copied(source: str) -> bool:
    """Whether a ModelSpec's source is a trimmed or derived copy, not the model's own config.json."""
    return any(prefix in source for prefix in COPIED_SOURCES)


def mtp_layers(text: dict[str, Any], absent: int | None = 0) -> int | None:
    """The MTP (next-n) layers the checkpoint ships, by either spelling; `absent` when no key states it."""
    for key in MTP_KEYS:
        if text.get(key) is not None:
            return int(text[key])
    return absent


# Generous ceilings on the sizes a config gives (real models: <= 200 layers, hidden 25k, vocab 300k, 10M
# positions). Every per-layer and per-head loop takes its count from these, so a value checked here bounds the
# work: num_hidden_layers 1e6 took 33 s and 840 MiB, 1e7 ended in MemoryError and lost the whole run.
_LAYERS, _DIM, _HEADS, _VOCAB, _POSITIONS, _EXPERTS = 10_000, 1_000_000, 100_000, 100_000_000, 1 << 32, 1_000_000
_CEILINGS = {
    **dict.fromkeys(("num_hidden_layers", "n_layer", "num_layers", "n_layers", "num_nextn_predict_layers",
                     "mtp_num_hidden_layers",
                     "first_k_dense_replace"), _LAYERS),
    **dict.fromkeys(("hidden_size", "n_embd", "d_model", "intermediate_size", "ffn_hidden_size", "n_inner",
                     "ffn_dim", "ff_intermediate_size", "moe_intermediate_size", "shared_expert_intermediate_size",
                     "head_dim", "kv_lora_rank", "q_lora_rank", "qk_rope_head_dim", "qk_nope_head_dim",
                     "v_head_dim", "global_head_dim", "kv_channels"), _DIM),
    **dict.fromkeys(("num_attention_heads", "n_head", "num_heads", "num_key_value_heads", "n_head_kv",
                     "multi_query_group_num", "num_kv_heads"), _HEADS),
    "vocab_size": _VOCAB,
    **dict.fromkeys(("max_position_embeddings", "n_positions", "seq_length", "max_seq_len", "max_sequence_length",
                     "n_ctx", "original_max_position_embeddings", "sliding_window", "model_max_length"), _POSITIONS),
    **dict.fromkeys(("num_experts", "num_local_experts", "n_routed_experts", "n_shared_experts",
                     "num_experts_per_tok", "moe_topk", "num_shared_experts"), _EXPERTS),
}


def _check_ranges(cfg: dict[str, Any], model_id: str, depth: int) -> None:
    """Every size the config gives is a number in 0..its ceiling, in the config and its nested sub-configs
    (text_config, vision_config, ...): a clear ModelConfigError instead of minutes of work, a MemoryError, or
    a confident verdict from a negative vocabulary or context length."""
    for key, value in cfg.items():
        if isinstance(value, dict) and depth < 3:
            _check_ranges(value, model_id, depth + 1)
            continue
        ceiling = _CEILINGS.get(key)
        if ceiling is None or value is None or isinstance(value, bool):
            continue
        if isinstance(value, (int, float)) and 0 <= value <= ceiling:
            continue
        shown = f"{value}"[:40] + ("..." if len(f"{value}") > 40 else "") if isinstance(value, (int, float)) \
            else type(value).__name__
        raise ModelConfigError(f"{model_id}: config.json {key} = {shown} is not a plausible value "
                               f"(a number from 0 to {ceiling:,}); not sized")


def _first(text: dict[str, Any], cfg: dict[str, Any], key: str, default: Any = None) -> Any:
    if key in text and text[key] is not None:
        return text[key]
    return cfg.get(key, default) if cfg.get(key) is not None else default


def _require(text: dict[str, Any], keys: tuple[str, ...], model_id: str) -> int:
    for key in keys:
        if isinstance(text.get(key), int) and text[key] > 0:
            return int(text[key])
    raise ModelConfigError(f"{model_id}: config.json has none of {', '.join(keys)}")


def _num_layers(text: dict[str, Any], model_id: str) -> int:
    return _require(text, ("num_hidden_layers", "n_layer", "num_layers", "n_layers"), model_id)


def _intermediate(text: dict[str, Any], hidden: int) -> int:
    for key in ("intermediate_size", "ffn_hidden_size", "ff_intermediate_size", "n_inner", "ffn_dim"):
        if isinstance(text.get(key), int) and text[key] > 0:
            return int(text[key])
    return 4 * int(hidden)  # Falcon / GPT-style 4h MLP
