"""Memory the engines set aside beside the plain KV pool: speculative drafts, LoRA slots, multimodal caches.

Each term says whether the engine computes it (exact: the draft's KV layers live in the same pool as the
target's, with the same page) or measures it at start-up (an estimate from the model's shapes, marked so
in the derivation). Both memory models ask here; the engine-specific rules sit in the two halves below.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from kvlint.errors import InvalidSettingError
from kvlint.memory.common import int_setting, setting
from kvlint.models.spec import ModelSpec
from kvlint.record import record

# vLLM speculative methods whose drafter keeps no KV cache of its own.
_NO_KV_METHODS = frozenset({"ngram", "suffix", "medusa", "mlp_speculator", "ngram_gpu"})
_MTP_METHODS = frozenset({"mtp", "deepseek_mtp", "mimo_mtp", "glm4_moe_mtp", "ernie_mtp", "qwen3_next_mtp",
                          "longcat_flash_mtp", "pangu_ultra_moe_mtp", "nextn"})
_EAGLE_METHODS = frozenset({"eagle", "eagle3"})


@record
class Speculative:
    """What a speculative-decoding setting adds: draft KV layers (same page as a target layer) and query length."""

    method: str
    num_tokens: int  # num_speculative_tokens / --speculative-num-draft-tokens - 1
    draft_layers: int  # decoder layers of the drafter that hold KV in the target's pool
    exact: bool  # False when the drafter's own config.json is not known (EAGLE heads: assumed 1 layer)
    source: str  # where the layer count came from, for the derivation


# A bundled / locked / derived copy of config.json that states no MTP layer count: unknown, not zero (the key
# may have been dropped on the way), so the draft is sized as one layer and nothing is refused.
_MTP_UNKNOWN = "MTP layer count not stated by kvlint's copy of config.json: one layer assumed"


def vllm_speculative(settings: Mapping[str, Any], model: ModelSpec) -> Speculative | None:
    """--speculative-config {"method", "model", "num_speculative_tokens", "num_nextn_predict_layers"?}."""
    raw = setting(settings, "speculative_config")
    if raw in (None, "", {}):
        return None
    config = _json_object(raw)
    method = str(config.get("method") or ("eagle" if "eagle" in str(config.get("model", "")).lower() else
                                          "draft_model" if config.get("model") else "ngram")).lower()
    tokens = config.get("num_speculative_tokens")
    if not isinstance(tokens, int) or isinstance(tokens, bool) or tokens < 1:
        raise InvalidSettingError("speculative_config needs num_speculative_tokens >= 1", "speculative_config",
                                  "num_speculative_tokens must be a positive integer")
    return _draft(method, tokens, model, config.get("model"))


def _draft(method: str, tokens: int, model: ModelSpec, draft_model: Any) -> Speculative:
    if method in _NO_KV_METHODS:
        return Speculative(method, tokens, 0, True, f"{method} keeps no draft KV cache")
    if method in _MTP_METHODS or (method in _EAGLE_METHODS and not draft_model and model.num_mtp_layers):
        layers = model.num_mtp_layers
        if not layers and model.mtp_unknown:
            return Speculative(method, tokens, 1, False, _MTP_UNKNOWN)
        if not layers:
            raise InvalidSettingError(f"speculative method {method} needs MTP layers, and {model.model_id} ships none "
                                      "(num_nextn_predict_layers / mtp_num_hidden_layers)", "speculative_config",
                                      "the model has no MTP layers")
        return Speculative(method, tokens, layers, True, f"MTP layers {layers} of config.json")
    if method in _EAGLE_METHODS:
        return Speculative(method, tokens, 1, False, "EAGLE head assumed one layer with the target's attention shape")
    return Speculative(method, tokens, 0, False, "draft model's config.json not read: its KV is not counted")


def sglang_speculative(settings: Mapping[str, Any], model: ModelSpec) -> Speculative | None:
    """--speculative-algorithm EAGLE / EAGLE3 / NEXTN / STANDALONE with --speculative-num-draft-tokens."""
    algo = setting(settings, "speculative_algorithm")
    if not algo:
        return None
    name = str(algo).upper()
    draft_tokens = int_setting(settings, "speculative_num_draft_tokens") or 1
    if name == "NEXTN" or (name in ("EAGLE", "EAGLE3") and not setting(settings, "speculative_draft_model_path")):
        layers = model.num_mtp_layers
        if layers:
            return Speculative(name, draft_tokens - 1, layers, True, f"MTP layers {layers} of config.json")
        if model.mtp_unknown:
            return Speculative(name, draft_tokens - 1, 1, False, _MTP_UNKNOWN)
    if name in ("EAGLE", "EAGLE3", "NEXTN"):
        return Speculative(name, draft_tokens - 1, 1, False, "EAGLE draft assumed one layer (draft config not read)")
    if name == "STANDALONE":
        return Speculative(name, draft_tokens - 1, 0, False, "standalone draft model's config.json not read")
    return Speculative(name, draft_tokens - 1, 0, False, f"{name} draft KV not modelled")


def _json_object(raw: Any) -> dict[str, Any]:
    if isinstance(raw, Mapping):
        return dict(raw)
    try:
        value = json.loads(str(raw))
    except ValueError:
        raise InvalidSettingError(f"speculative_config is not JSON: {raw!r}", "speculative_config",
                                  "must be a JSON object") from None
    if not isinstance(value, dict):
        raise InvalidSettingError("speculative_config must be a JSON object", "speculative_config",
                                  "must be a JSON object")
    return value


# ------------------------------------------------------------------ LoRA (vLLM)


@record
class Lora:
    max_loras: int
    max_rank: int
    bytes_per_rank: int  # GPU bytes of all adapter slots on one rank
    how: str


def vllm_lora(settings: Mapping[str, Any], model: ModelSpec, tp: int, dtype_bytes: int) -> Lora | None:
    """--enable-lora: vLLM pre-allocates max_loras adapter slots of max_lora_rank on every LoRA-capable linear
    layer (attention qkv/o, MLP gate_up/down; the A or B half is split by TP the way its base layer is).
    --max-cpu-loras only sizes the CPU cache."""
    if not setting(settings, "enable_lora", False):
        return None
    loras = int_setting(settings, "max_loras", 1)
    rank = int_setting(settings, "max_lora_rank", 16)
    if loras < 1 or rank < 1:
        raise InvalidSettingError("max_loras and max_lora_rank must be >= 1", "max_loras", "must be >= 1")
    hidden, inter = model.hidden_size, model.intermediate_size
    if model.moe is not None:
        inter = model.moe.moe_intermediate_size * max(model.moe.experts_per_token, 1)
    if model.mla is not None:
        attn_out, attn_in = 0, model.num_attention_heads * model.mla.v_head_dim  # MLA projections: o_proj only
    else:
        attn_out = (model.num_attention_heads + 2 * model.num_kv_heads) * model.head_dim
        attn_in = model.num_attention_heads * model.head_dim
    attention = (hidden + attn_out // tp) + (attn_in // tp + hidden)  # qkv: A whole, B split; o: A split, B whole
    mlp = (hidden + 2 * inter // tp) + (inter // tp + hidden)  # gate_up like qkv, down like o
    per_layer = attention + mlp
    layers = sum(1 for layer in model.layers if layer.kind != "mamba") or model.num_layers
    total = loras * rank * per_layer * layers * dtype_bytes
    how = (f"{loras} slots x rank {rank} x {layers} layers x (qkv, o, gate_up, down A+B) x {dtype_bytes} B"
           " (MoE experts counted as top-k dense width)")
    return Lora(loras, rank, total, how)


# ------------------------------------------------------------------ multimodal


def vllm_encoder_cache(model: ModelSpec, max_num_batched_tokens: int, dtype_bytes: int) -> tuple[int, str] | None:
    """The profile run encodes a dummy multimodal batch of the encoder budget (max(mnbt, largest item), here mnbt)
    and keeps its embeddings in the encoder cache: budget x text hidden size x dtype, measured by vLLM."""
    if not model.is_multimodal:
        return None
    size = max_num_batched_tokens * model.hidden_size * dtype_bytes
    return size, f"encoder budget {max_num_batched_tokens} tokens x hidden {model.hidden_size} x {dtype_bytes} B"


SGLANG_VLM_CACHE_MB = 100  # SGLANG_VLM_CACHE_SIZE_MB default (environ.py, 0.5.23)


def sglang_mm_reservation(model: ModelSpec) -> int:
    """SGLang subtracts SGLANG_VLM_CACHE_SIZE_MB from the rest memory of a multimodal model."""
    return SGLANG_VLM_CACHE_MB * 2**20 if model.is_multimodal else 0


# ------------------------------------------------------------------ SGLang Mamba state pool


@record
class MambaPool:
    per_request: int  # state bytes of one request on this rank (conv at the model dtype, SSM state at fp32)
    slots: int  # max_mamba_cache_size (+1 padding slot is allocated too)
    pool_bytes: int
    how: str


def sglang_mamba_pool(model: ModelSpec, settings: Mapping[str, Any], tp: int, attn_dp: int, rest: int,
                      dtype_bytes: int, stage_layers: int) -> MambaPool | None:
    """kv_cache_configurator.py _handle_max_mamba_cache: the state pool comes out of the rest memory before the
    KV pool is sized. By default it takes rest x r / (1 + r) (r = --mamba-full-memory-ratio, 0.9) as whole
    request slots; --max-mamba-cache-size, or --disable-radix-cache with --max-running-requests, fix the slots."""
    mamba = [ly for ly in model.layers if ly.kind == "mamba"]
    if not mamba:
        return None
    per_layer, how = _linear_state_bytes(model, tp, dtype_bytes)
    per_req = per_layer * stage_layers
    if per_req <= 0:
        return None
    fixed = int_setting(settings, "max_mamba_cache_size")
    mrr = int_setting(settings, "max_running_requests")
    if fixed is not None:
        slots, why = fixed // max(attn_dp, 1), "--max-mamba-cache-size"
    elif setting(settings, "disable_radix_cache", False) and mrr is not None:
        slots, why = max(1, mrr // max(attn_dp, 1)), "--max-running-requests (radix cache off)"
    else:
        ratio = float(setting(settings, "mamba_full_memory_ratio", 0.9))
        budget = rest * ratio / (1 + ratio)
        slots, why = int((budget - per_req) // per_req), f"rest x {ratio} / (1 + {ratio}) as whole slots"
    slots = max(slots, 0)
    return MambaPool(per_req, slots, (slots + 1) * per_req if slots else 0,
                     f"{slots} slots ({why}) + 1 padding x {per_req:,} B/request ({stage_layers} layers; {how})")


def _linear_state_bytes(model: ModelSpec, tp: int, dtype_bytes: int) -> tuple[int, str]:
    """One gated-delta-net layer's state per request on one rank: conv (conv_dim/tp x (kernel-1)) at the model
    dtype + recurrent (v_heads/tp x k_dim x v_dim) at mamba_ssm_dtype (float32 unless config.json says)."""
    text = model.raw.get(model.text_config_key) if model.text_config_key else model.raw
    text = text if isinstance(text, dict) else {}
    keys = ("linear_num_key_heads", "linear_num_value_heads", "linear_key_head_dim", "linear_value_head_dim")
    if not all(isinstance(text.get(k), int) for k in keys):
        state = next((ly.state_bytes or 0 for ly in model.layers if ly.kind == "mamba"), 0)
        return state // max(tp, 1), "state bytes from the layer model"
    nk, nv, dk, dv = (int(text[k]) for k in keys)
    kernel = int(text.get("linear_conv_kernel_dim") or 4)
    ssm = {"float32": 4, "bfloat16": 2, "float16": 2}.get(str(text.get("mamba_ssm_dtype") or "float32"), 4)
    conv = (2 * nk * dk + nv * dv) // tp * (kernel - 1) * dtype_bytes
    recurrent = nv // tp * dk * dv * ssm
    return conv + recurrent, f"conv {conv:,} B + recurrent {recurrent:,} B per layer"
