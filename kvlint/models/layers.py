"""Per-layer attention kinds (full, sliding, chunked, linear state, MLA) and each layer's KV shape.

Families encode their layer pattern in different keys (layer_types, Gemma's every-N-th, Qwen's
max_window_layers, Llama-4's no_rope_layers); the engines size each kind's pages differently, so the
pattern is resolved here into one LayerKV per decoder layer.
"""

from __future__ import annotations

from typing import Any

from kvlint.models.spec import CHUNKED, FULL, MAMBA, MLA, NONE, SLIDING, LayerKV, MLADims
from kvlint.models.text_config import checkpoint_dtype

DTYPE_BYTES = {"float32": 4, "float16": 2, "bfloat16": 2}


def sliding_window(text: dict[str, Any]) -> int | None:
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
    pattern = hybrid_pattern(text)
    if pattern is not None:
        return hybrid_pattern_kinds(pattern, num_layers)
    if text.get("attention_chunk_size"):
        return _llama4_kinds(text, num_layers)
    if window is None:
        return [FULL] * num_layers
    return _window_pattern(text, num_layers)


# Nemotron-H's hybrid_override_pattern: one character per decoder block. Only "*" blocks attend (and cache KV),
# "M" blocks are Mamba-2 mixers (a fixed state per request), "-" (MLP) and "E" (MoE) blocks cache nothing.
HYBRID_BLOCKS = {"*": FULL, "M": MAMBA, "-": NONE, "E": NONE}


BLOCK_TYPES = {"attention": "*", "mamba": "M", "mlp": "-", "moe": "E"}  # layers_block_type, the later spelling


def hybrid_pattern(text: dict[str, Any]) -> str | None:
    """Nemotron-H's block pattern, from hybrid_override_pattern or (later configs) the layers_block_type list."""
    if text.get("model_type") != "nemotron_h":
        return None
    pattern = text.get("hybrid_override_pattern")
    if isinstance(pattern, str):
        return pattern
    blocks = text.get("layers_block_type")
    if isinstance(blocks, list):
        return "".join(BLOCK_TYPES.get(str(b), "?") for b in blocks)
    return None


def hybrid_pattern_kinds(pattern: str, num_layers: int) -> list[str]:
    """Nemotron-H: the block kind of each character; a pattern that disagrees with num_hidden_layers is refused."""
    if len(pattern) != num_layers or set(pattern) - set(HYBRID_BLOCKS):
        raise ValueError(f"hybrid_override_pattern {pattern!r} does not give {num_layers} blocks of kinds "
                         f"{''.join(HYBRID_BLOCKS)}")
    return [HYBRID_BLOCKS[c] for c in pattern]


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


def layer_kvs(
    text: dict[str, Any],
    num_layers: int,
    kv_heads: int,
    head_k: int,
    head_v: int,
    mla: MLADims | None,
    window: int | None,
) -> tuple[LayerKV, ...]:
    """One LayerKV per decoder layer; MLA layers hold one latent "head" whatever their kind."""
    if mla is not None:
        return tuple(LayerKV(MLA, 1, head_k, 0) for _ in range(num_layers))
    state = linear_state_bytes(text)
    full_heads, full_head = _full_layer_shape(text, kv_heads, head_k)
    shared_from = num_layers - int(text.get("num_kv_shared_layers") or 0)
    out = []
    for i, kind in enumerate(layer_kinds(text, num_layers, window)):
        if i >= shared_from:
            out.append(LayerKV(NONE))  # reads an earlier layer's KV (Gemma-3n/4 KV sharing): no cache of its own
        elif kind == NONE:
            out.append(LayerKV(NONE))
        elif kind == MAMBA:
            elements, per, named = ssm_state(text)
            out.append(LayerKV(MAMBA, state_bytes=state, ssm_elements=elements, ssm_bytes=per, ssm_named=named))
        elif kind == CHUNKED:
            out.append(LayerKV(CHUNKED, kv_heads, head_k, head_v, int(text["attention_chunk_size"])))
        elif kind == FULL:
            out.append(LayerKV(FULL, full_heads, full_head or head_k, full_head or head_v))
        else:
            out.append(LayerKV(kind, kv_heads, head_k, head_v, window if kind == SLIDING else None))
    return tuple(out)


def _full_layer_shape(text: dict[str, Any], kv_heads: int, head_k: int) -> tuple[int, int | None]:
    """Gemma-4's full-attention layers: `global_head_dim`, and with `attention_k_eq_v` (K reused as V, no v_proj)
    `num_global_key_value_heads` KV heads; the cache still holds K and V pages (vLLM gemma4.py)."""
    head = text.get("global_head_dim")
    if not isinstance(head, int) or head <= 0:
        return kv_heads, None
    heads = text.get("num_global_key_value_heads") if text.get("attention_k_eq_v") else None
    return (int(heads) if isinstance(heads, int) and heads > 0 else kv_heads), head


def linear_state_bytes(text: dict[str, Any]) -> int | None:
    """Per-request, per-layer state of a gated-delta-net layer (Qwen3-Next) at the model dtype.

    conv state: (2*key_dim + value_dim) x (kernel - 1); recurrent state: v_heads x k_dim x v_dim.
    """
    if text.get("mamba_num_heads"):
        return mamba2_state_bytes(text)
    if not text.get("linear_num_value_heads"):
        return None
    key_dim = int(text["linear_num_key_heads"]) * int(text["linear_key_head_dim"])
    v_heads, v_dim = int(text["linear_num_value_heads"]), int(text["linear_value_head_dim"])
    conv = (2 * key_dim + v_heads * v_dim) * (int(text.get("linear_conv_kernel_dim") or 4) - 1)
    recurrent = v_heads * int(text["linear_key_head_dim"]) * v_dim
    return (conv + recurrent) * DTYPE_BYTES.get(checkpoint_dtype(text, {}), 2)


NEMOTRON_H_SSM_DTYPE = "float32"  # vLLM NemotronHForCausalLMConfig.DEFAULT_MAMBA_SSM_CACHE_DTYPE; SGLang's default


def ssm_state(text: dict[str, Any]) -> tuple[int, int, bool]:
    """(elements, bytes each, named) of a Nemotron-H Mamba-2 layer's SSM state inside mamba2_state_bytes: the part
    whose dtype is an engine default when the config names none (vLLM gates it by release,
    VllmVersion.nemotron_h_ssm_dtype); (0, 0, False) for any other layer."""
    if not text.get("mamba_num_heads") or text.get("model_type") != "nemotron_h":
        return 0, 0, False
    heads, head_dim = int(text["mamba_num_heads"]), int(text.get("mamba_head_dim") or 64)
    named = text.get("mamba_ssm_cache_dtype")
    model = DTYPE_BYTES.get(checkpoint_dtype(text, {}), 2)
    per = DTYPE_BYTES.get(str(named or NEMOTRON_H_SSM_DTYPE), model)
    return heads * head_dim * int(text.get("ssm_state_size") or 128), per, bool(named)


def mamba2_state_bytes(text: dict[str, Any]) -> int:
    """Per-request, per-layer state of a Mamba-2 mixer (Nemotron-H): conv state (d_inner + 2 x groups x d_state) x
    (kernel - 1) at the model dtype; SSM state heads x head_dim x d_state at mamba_ssm_cache_dtype when the config
    names it, else float32 for Nemotron-H (vLLM 0.20+ NemotronHForCausalLMConfig, SGLang mamba2_state_dtype: "only
    float32 is known to have no accuracy issues"), else the model dtype."""
    heads, head_dim = int(text["mamba_num_heads"]), int(text.get("mamba_head_dim") or 64)
    groups, d_state = int(text.get("n_groups") or 1), int(text.get("ssm_state_size") or 128)
    model = DTYPE_BYTES.get(checkpoint_dtype(text, {}), 2)
    default = NEMOTRON_H_SSM_DTYPE if text.get("model_type") == "nemotron_h" else ""
    ssm = DTYPE_BYTES.get(str(text.get("mamba_ssm_cache_dtype") or default), model)
    conv = (heads * head_dim + 2 * groups * d_state) * (int(text.get("conv_kernel") or 4) - 1)
    return conv * model + heads * head_dim * d_state * ssm
