"""config.json -> ModelSpec: the one place that knows config.json's quirks.

Engines, weights and rules read the ModelSpec only, so every decision about where a fact lives in a
config (text_config nesting, head_dim vs hidden/heads, MLA latents, per-layer attention patterns,
derived context length, quantization blocks) is made here, once, the way the engines make it
(engines.md 1.1 for vLLM 0.33, 3.2 for SGLang 0.5.23).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from kvlint.data import REGISTRY_DIR, load_json
from kvlint.errors import KvlintError
from kvlint.models.spec import (
    CHUNKED,
    FULL,
    MAMBA,
    MLA,
    SLIDING,
    LayerKV,
    MLADims,
    ModelSpec,
    MoE,
    Quantization,
)

# vLLM derive_max_model_len_and_key: the min over these keys (model_max_length overrides).
VLLM_LEN_KEYS = (
    "max_position_embeddings",
    "n_positions",
    "max_seq_len",
    "seq_length",
    "model_max_length",
    "max_target_positions",
    "max_sequence_length",
    "max_seq_length",
    "seq_len",
)
# SGLang get_context_length: the FIRST present key in this order wins.
SGLANG_LEN_KEYS = ("max_sequence_length", "seq_length", "max_seq_len", "model_max_length", "max_position_embeddings")
# RoPE types whose factor vLLM does not multiply into the derived length.
VLLM_NO_FACTOR_ROPE = frozenset({"su", "longrope", "llama3", "yarn", "deepseek_yarn", "deepseek_llama_scaling"})
DEFAULT_MAX_LEN = 2048  # both engines when no length key exists
# model_type values whose kv_lora_rank means MLA in vLLM (is_deepseek_mla).
MLA_MODEL_TYPES = frozenset(
    {"deepseek_v2", "deepseek_v3", "deepseek_v32", "deepseek_mtp", "kimi_k2", "kimi_vl", "kimi_linear", "deepseek_v4"}
)
FALCON_TYPES = frozenset({"falcon", "RefinedWeb", "RefinedWebModel"})
KV_HEAD_KEYS = ("n_head_kv", "num_kv_heads", "num_key_value_heads", "multi_query_group_num", "num_attention_groups")
DTYPE_BYTES = {"float32": 4, "float16": 2, "bfloat16": 2}


class ConfigError(KvlintError):
    """A config.json lacks a field every decoder needs (layers, hidden size, heads)."""


def spec_from_config(
    cfg: dict[str, Any], model_id: str, source: str, *, hf_quant_config: dict[str, Any] | None = None
) -> ModelSpec:
    """Build the ModelSpec. `hf_quant_config` is ModelOpt's side file (hf_quant_config.json), when shipped.

    A malformed config (a string where a number belongs, ...) is a ConfigError, never a traceback.
    """
    if not isinstance(cfg, dict):
        raise ConfigError(f"{model_id}: config.json is not a JSON object")
    try:
        return _build(cfg, model_id, source, hf_quant_config)
    except (TypeError, ValueError, KeyError, AttributeError, ZeroDivisionError, IndexError) as exc:
        raise ConfigError(f"{model_id}: config.json has a malformed field ({type(exc).__name__}: {exc})") from None


def _build(cfg: dict[str, Any], model_id: str, source: str, hf_quant_config: dict[str, Any] | None) -> ModelSpec:
    text, nested = _text_config(cfg)
    layers_n = _num_layers(text, model_id)
    hidden = _require(text, ("hidden_size", "n_embd", "d_model"), model_id)
    heads = _require(text, ("num_attention_heads", "n_head", "num_heads"), model_id)
    kv_heads = _kv_heads(text, heads)
    mla = _mla_dims(text, cfg)
    head_k, head_v = _head_dims(text, hidden, heads, mla)
    window = _sliding_window(text)
    layers = _layers(text, layers_n, kv_heads, head_k, head_v, mla, window)
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
        dtype=_dtype(text, cfg),
        max_len_vllm=len_v,
        max_len_sglang=len_s,
        max_len_key=key_v,
        mla=mla,
        moe=_moe(text, layers_n),
        quant=quantization(cfg, hf_quant_config),
        num_mtp_layers=int(text.get("num_nextn_predict_layers") or 0),
        sliding_window=window,
        is_multimodal=nested or "vision_config" in cfg,
        vision_params=vision_params(cfg.get("vision_config"), hidden),
        raw=cfg,
        text_config_key="text_config" if nested else None,
        max_len_key_sglang=key_s,
    )


# ---------------------------------------------------------------- text config and defaults


@lru_cache(maxsize=1)
def _class_defaults() -> dict[str, dict[str, Any]]:
    """transformers class defaults for keys a minimal config.json omits (registry/defaults.json)."""
    return {k: v for k, v in load_json("defaults.json", REGISTRY_DIR).items() if not k.startswith("_")}


def _text_config(cfg: dict[str, Any]) -> tuple[dict[str, Any], bool]:
    """The decoder's config with class defaults filled in; multimodal configs nest it in text_config."""
    nested = isinstance(cfg.get("text_config"), dict)
    text = dict(cfg["text_config"]) if nested else dict(cfg)
    model_type = text.get("model_type") or _text_type_of(cfg)
    for key, value in _class_defaults().get(str(model_type), {}).items():
        text.setdefault(key, value)
    if nested:
        text.setdefault("model_type", model_type)
        for key in ("torch_dtype", "dtype", "quantization_config", "tie_word_embeddings"):
            if key in cfg and key not in text:
                text[key] = cfg[key]
    return text, nested


def _text_type_of(cfg: dict[str, Any]) -> str:
    """Multimodal wrappers whose text_config carries no model_type (Kimi-VL's is DeepSeek-V3 code)."""
    top = str(cfg.get("model_type") or "")
    return {"kimi_vl": "deepseek_v3", "gemma3": "gemma3_text", "llama4": "llama4_text"}.get(top, top)


def _first(text: dict[str, Any], cfg: dict[str, Any], key: str, default: Any = None) -> Any:
    if key in text and text[key] is not None:
        return text[key]
    return cfg.get(key, default) if cfg.get(key) is not None else default


def _require(text: dict[str, Any], keys: tuple[str, ...], model_id: str) -> int:
    for key in keys:
        if isinstance(text.get(key), int) and text[key] > 0:
            return int(text[key])
    raise ConfigError(f"{model_id}: config.json has none of {', '.join(keys)}")


def _num_layers(text: dict[str, Any], model_id: str) -> int:
    return _require(text, ("num_hidden_layers", "n_layer", "num_layers", "n_layers"), model_id)


def _dtype(text: dict[str, Any], cfg: dict[str, Any]) -> str:
    """Checkpoint dtype; newer transformers write `dtype`, older `torch_dtype`; none means float32."""
    for source in (text, cfg):
        for key in ("torch_dtype", "dtype"):
            value = source.get(key)
            if isinstance(value, str) and value:
                return value.replace("torch.", "")
    return "float32"


def _intermediate(text: dict[str, Any], hidden: int) -> int:
    for key in ("intermediate_size", "ffn_hidden_size", "ff_intermediate_size", "n_inner"):
        if isinstance(text.get(key), int) and text[key] > 0:
            return int(text[key])
    return 4 * int(hidden)  # Falcon / GPT-style 4h MLP


# ---------------------------------------------------------------- heads and dims


def _kv_heads(text: dict[str, Any], heads: int) -> int:
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


def _mla_dims(text: dict[str, Any], cfg: dict[str, Any]) -> MLADims | None:
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
    )


def _v4_dims(text: dict[str, Any]) -> MLADims:
    """DeepSeek-V4 caches one shared K=V vector of head_dim per token (vLLM sizes it as MLA with
    head_size = head_dim); expressed as a latent of head_dim - rope plus the rope part. Its compressed
    and sliding layers (compress_ratios, sliding_window) are not modelled."""
    rope = int(text.get("qk_rope_head_dim") or 64)
    head = int(text["head_dim"])
    return MLADims(head - rope, rope, head - rope, head, text.get("q_lora_rank"), text.get("index_head_dim"), text.get("index_topk"))


def _head_dims(text: dict[str, Any], hidden: int, heads: int, mla: MLADims | None) -> tuple[int, int]:
    """K and V widths per head as vLLM's get_head_size; MLA's latent is K with no V."""
    if mla is not None:
        return mla.kv_lora_rank + mla.qk_rope_head_dim, 0
    head = text.get("head_dim")
    if not (isinstance(head, int) and head > 0):
        head = text.get("hidden_size_per_head") or int(hidden) // int(heads)
    v_head = text.get("v_head_dim")
    return int(head), int(v_head) if isinstance(v_head, int) and v_head > 0 else int(head)


# ---------------------------------------------------------------- per-layer attention kinds


def _sliding_window(text: dict[str, Any]) -> int | None:
    """The window W when some layer slides; Qwen's use_sliding_window=false switches it off."""
    if text.get("use_sliding_window") is False:
        return None
    window = text.get("sliding_window")
    if window is None:
        window = text.get("sliding_window_size")
    return int(window) if isinstance(window, int) and window > 0 else None


def layer_kinds(text: dict[str, Any], num_layers: int, window: int | None) -> list[str]:
    """One kind per layer from whatever pattern the config family uses."""
    types = text.get("layer_types")
    if isinstance(types, list) and len(types) == num_layers:
        return [_kind_of_type(t, window) for t in types]
    if text.get("full_attention_interval") and text.get("model_type") == "qwen3_next":
        step = int(text["full_attention_interval"])
        return [FULL if (i + 1) % step == 0 else MAMBA for i in range(num_layers)]
    if text.get("attention_chunk_size"):
        return _llama4_kinds(text, num_layers)
    if window is None:
        return [FULL] * num_layers
    return _window_pattern(text, num_layers)


def _kind_of_type(layer_type: str, window: int | None) -> str:
    if layer_type in ("sliding_attention", "sliding_window", "local") and window:
        return SLIDING
    if layer_type in ("linear_attention", "mamba"):
        return MAMBA
    if layer_type == "chunked_attention":
        return CHUNKED
    return FULL


def _llama4_kinds(text: dict[str, Any], num_layers: int) -> list[str]:
    """Llama-4: RoPE layers use chunked local attention, NoPE layers (no_rope_layers == 0) full."""
    no_rope = text.get("no_rope_layers") or []
    if len(no_rope) != num_layers:
        interval = int(text.get("no_rope_layer_interval") or 4)
        no_rope = [int((i + 1) % interval != 0) for i in range(num_layers)]
    return [CHUNKED if uses_rope else FULL for uses_rope in no_rope]


def _window_pattern(text: dict[str, Any], num_layers: int) -> list[str]:
    """Gemma-2 alternates, Gemma-3 slides except every N-th, Qwen slides from max_window_layers on."""
    model_type = str(text.get("model_type"))
    if model_type == "gemma2":
        return [SLIDING if i % 2 == 0 else FULL for i in range(num_layers)]
    pattern = text.get("sliding_window_pattern")
    if model_type.startswith("gemma3") or pattern:
        every = int(pattern or 6)
        return [FULL if (i + 1) % every == 0 else SLIDING for i in range(num_layers)]
    if text.get("use_sliding_window") and text.get("max_window_layers") is not None:
        first = int(text["max_window_layers"])
        return [SLIDING if i >= first else FULL for i in range(num_layers)]
    return [SLIDING] * num_layers


def _layers(
    text: dict[str, Any],
    num_layers: int,
    kv_heads: int,
    head_k: int,
    head_v: int,
    mla: MLADims | None,
    window: int | None,
) -> tuple[LayerKV, ...]:
    if mla is not None:
        return tuple(LayerKV(MLA, 1, head_k, 0) for _ in range(num_layers))
    state = linear_state_bytes(text)
    out = []
    for kind in layer_kinds(text, num_layers, window):
        if kind == MAMBA:
            out.append(LayerKV(MAMBA, state_bytes=state))
        elif kind == CHUNKED:
            out.append(LayerKV(CHUNKED, kv_heads, head_k, head_v, int(text["attention_chunk_size"])))
        else:
            out.append(LayerKV(kind, kv_heads, head_k, head_v, window if kind == SLIDING else None))
    return tuple(out)


def linear_state_bytes(text: dict[str, Any]) -> int | None:
    """Per-request, per-layer state of a gated-delta-net layer (Qwen3-Next) at the model dtype.

    conv state: (2*key_dim + value_dim) x (kernel - 1); recurrent state: v_heads x k_dim x v_dim.
    """
    if not text.get("linear_num_value_heads"):
        return None
    key_dim = int(text["linear_num_key_heads"]) * int(text["linear_key_head_dim"])
    v_heads, v_dim = int(text["linear_num_value_heads"]), int(text["linear_value_head_dim"])
    conv = (2 * key_dim + v_heads * v_dim) * (int(text.get("linear_conv_kernel_dim") or 4) - 1)
    recurrent = v_heads * int(text["linear_key_head_dim"]) * v_dim
    return (conv + recurrent) * DTYPE_BYTES.get(_dtype(text, {}), 2)


# ---------------------------------------------------------------- derived max length


def rope_sets(text: dict[str, Any]) -> list[dict[str, Any]]:
    """RoPE parameter sets: rope_scaling, or rope_parameters (flat or one set per layer type)."""
    rope = text.get("rope_scaling") or text.get("rope_parameters")
    if not isinstance(rope, dict):
        return []
    if all(isinstance(v, dict) for v in rope.values()) and rope:
        return list(rope.values())
    return [rope]


def _rope_type(rope: dict[str, Any]) -> str:
    return str(rope.get("rope_type") or rope.get("type") or "default")


def max_len_vllm(text: dict[str, Any]) -> tuple[int, str | None]:
    """vLLM 0.33 derived max_model_len and the key it came from (engines.md 1.1 steps 1, 4, 5, 7)."""
    present = [(int(text[k]), k) for k in VLLM_LEN_KEYS if isinstance(text.get(k), (int, float)) and text[k]]
    if not present:
        return DEFAULT_MAX_LEN, None
    derived, key = min(present)
    if text.get("model_max_length"):
        derived, key = int(text["model_max_length"]), "model_max_length"
    factor = 1.0
    if "gemma3" not in str(text.get("model_type")):
        for rope in rope_sets(text):
            if _rope_type(rope) not in VLLM_NO_FACTOR_ROPE:
                factor = float(rope.get("factor") or 1.0)
    if any(_rope_type(r) == "longrope" for r in rope_sets(text)) and text.get("original_max_position_embeddings"):
        return int(text["original_max_position_embeddings"]), "original_max_position_embeddings"
    return int(derived * factor), key


def max_len_sglang(text: dict[str, Any]) -> tuple[int, str | None]:
    """SGLang 0.5.23 context length: first key in its order, times the rope factor unless the set
    names original_max_position_embeddings or is llama3. SGLang reads `rope_scaling`; a config with
    only flat `rope_parameters` is read the same way (not verified against the engine)."""
    key = next((k for k in SGLANG_LEN_KEYS if isinstance(text.get(k), (int, float)) and text[k]), None)
    if key is None:
        return DEFAULT_MAX_LEN, None
    rope = text.get("rope_scaling") or text.get("rope_parameters")
    factor = 1.0
    if isinstance(rope, dict) and "original_max_position_embeddings" not in rope:
        if rope.get("rope_type") != "llama3" and not all(isinstance(v, dict) for v in rope.values()):
            factor = float(rope.get("factor") or 1)
    return int(text[key] * factor), key


# ---------------------------------------------------------------- MoE


def _moe(text: dict[str, Any], num_layers: int) -> MoE | None:
    experts = _int_of(text, ("n_routed_experts", "num_local_experts", "num_experts", "moe_num_experts"))
    if not experts or experts <= 1:
        return None
    top_k = _int_of(text, ("num_experts_per_tok", "experts_per_token", "moe_top_k")) or 1
    shared = int(text.get("n_shared_experts") or 0)
    shared_size = text.get("shared_expert_intermediate_size")
    if text.get("model_type") == "llama4_text":
        shared, shared_size = 1, int(text["intermediate_size"])
    elif shared_size and text.get("model_type") in ("qwen2_moe", "qwen3_next"):
        shared = 1
    else:
        shared_size = None
    expert_size = _expert_size(text)
    first_dense = int(text.get("first_k_dense_replace") or 0)
    freq = int(text.get("interleave_moe_layer_step") or text.get("decoder_sparse_step") or text.get("moe_layer_freq") or 1)
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
    if text.get("model_type") == "llama4_text" or "decoder_sparse_step" in text:
        ids = [i for i in range(num_layers) if (i + 1) % freq == 0]
    else:  # DeepSeek / GLM: dense first k, then every freq-th
        ids = [i for i in range(first_dense, num_layers) if i % freq == 0]
    return tuple(i for i in ids if i not in dense_only)


# ---------------------------------------------------------------- quantization


def quantization(cfg: dict[str, Any], hf_quant: dict[str, Any] | None = None) -> Quantization | None:
    """The checkpoint's declared weight (and KV) quantization; never guessed from the repo name."""
    text = cfg.get("text_config") if isinstance(cfg.get("text_config"), dict) else {}
    qc = cfg.get("quantization_config") or text.get("quantization_config")
    if isinstance(qc, dict) and qc.get("quant_method"):
        return _from_quant_config(qc)
    if isinstance(hf_quant, dict) and isinstance(hf_quant.get("quantization"), dict):
        return _from_modelopt(hf_quant["quantization"], hf_quant)
    return None


def _from_quant_config(qc: dict[str, Any]) -> Quantization:
    method = str(qc["quant_method"]).lower()
    if method == "compressed-tensors":
        return _compressed_tensors(qc)
    if method.startswith("modelopt"):
        return _from_modelopt(qc, qc)
    if method in ("awq", "gptq", "awq_marlin", "gptq_marlin"):
        bits = int(qc.get("bits") or qc.get("w_bit") or 4)
        group = int(qc.get("group_size") or qc.get("q_group_size") or 128)
        ignored = tuple(qc.get("modules_to_not_convert") or ())
        return Quantization(method.split("_")[0], bits, group, None, ignored, qc)
    if method == "fp8":
        return Quantization("fp8", 8, None, None, tuple(qc.get("modules_to_not_convert") or ()), qc)
    if method == "bitsandbytes":
        bits = 4 if qc.get("load_in_4bit") else 8
        return Quantization("bitsandbytes", bits, int(qc.get("bnb_4bit_blocksize") or 64), None, (), qc)
    if method == "mxfp4":
        return Quantization("mxfp4", 4, 32, None, tuple(qc.get("modules_to_not_convert") or ()), qc)
    return Quantization(method, _int_or_none(qc.get("bits")), _int_or_none(qc.get("group_size")), None, (), qc)


def _int_or_none(value: Any) -> int | None:
    return int(value) if isinstance(value, int) else None


def _compressed_tensors(qc: dict[str, Any]) -> Quantization:
    """compressed-tensors: weight bits from the first config group; any kv_cache_scheme means fp8 KV."""
    groups = [g for g in (qc.get("config_groups") or {}).values() if isinstance(g, dict)]
    weights = next((g.get("weights") for g in groups if isinstance(g.get("weights"), dict)), {}) or {}
    kv = "fp8" if qc.get("kv_cache_scheme") else None
    return Quantization(
        "compressed-tensors",
        _int_or_none(weights.get("num_bits")),
        _int_or_none(weights.get("group_size")),
        kv,
        tuple(qc.get("ignore") or ()),
        qc,
    )


def _from_modelopt(quant: dict[str, Any], raw: dict[str, Any]) -> Quantization:
    algo = str(quant.get("quant_algo") or "").upper()
    kv_algo = quant.get("kv_cache_quant_algo") or quant.get("kv_cache_scheme")
    kv = None
    if isinstance(kv_algo, str):
        kv = {"FP8": "fp8", "NVFP4": "nvfp4"}.get(kv_algo.upper(), kv_algo.lower())
    elif isinstance(kv_algo, dict):
        kv = "fp8" if kv_algo.get("num_bits") == 8 else "nvfp4"
    bits = 4 if "FP4" in algo or "INT4" in algo else 8
    group = quant.get("group_size") if bits == 4 else None
    ignored = tuple(quant.get("exclude_modules") or ())
    return Quantization("modelopt", bits, _int_or_none(group), kv, ignored, raw)


# ---------------------------------------------------------------- vision tower


def vision_params(vision: dict[str, Any] | None, text_hidden: int) -> int:
    """Parameters of a ViT-style vision tower plus its projector into the text width.

    Counted from the shapes the config gives (layers x (attention 4h^2 + MLP) + patch embedding +
    projector); an approximation, since towers differ in biases, position tables and merger MLPs.
    """
    if not isinstance(vision, dict):
        return 0
    hidden = int(vision.get("hidden_size") or vision.get("embed_dim") or 0)
    layers = int(vision.get("num_hidden_layers") or vision.get("depth") or 0)
    inter = int(vision.get("intermediate_size") or 4 * hidden)
    if not hidden or not layers:
        return 0
    gated = str(vision.get("hidden_act", "")) == "silu" and "depth" in vision  # Qwen2.5-VL SwiGLU blocks
    mlp = (3 if gated else 2) * hidden * inter + inter + hidden
    attn = 4 * hidden * hidden + 4 * hidden
    per_layer = attn + mlp + 4 * hidden
    patch = int(vision.get("patch_size") or 14)
    channels = int(vision.get("num_channels") or vision.get("in_chans") or 3)
    temporal = int(vision.get("temporal_patch_size") or 1)
    embed = channels * temporal * patch * patch * hidden
    positions = (int(vision.get("image_size") or 0) // patch) ** 2 * hidden
    return layers * per_layer + embed + positions + _projector(vision, hidden, text_hidden)


def _projector(vision: dict[str, Any], hidden: int, text_hidden: int) -> int:
    if vision.get("out_hidden_size"):  # Qwen2.5-VL merger: (4h -> 4h -> out)
        merged = hidden * int(vision.get("spatial_merge_size") or 2) ** 2
        return merged * merged + merged * int(vision["out_hidden_size"])
    if vision.get("projector_output_dim"):  # Llama-4: vision adapter MLP + projector to text width
        return 2 * int(vision["projector_input_dim"]) * int(vision["projector_output_dim"]) + int(
            vision.get("vision_output_dim") or 0
        ) * int(text_hidden)
    merge = vision.get("merge_kernel_size") or [1, 1]
    width = hidden * int(merge[0]) * int(merge[1])
    return width * width + width * int(text_hidden) if width != hidden else hidden * int(text_hidden)
