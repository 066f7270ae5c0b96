"""SGLang's KV pool sizing: mem_fraction_static, the rest memory, the cell size, max_total_num_tokens.

SGLang sizes the pool a priori (engines.md 3): it reserves (1 - mem_fraction_static) of the memory free
before weights load for activations and CUDA graphs, and gives the pool what is left after weights:

    pre_load   = total - CUDA context (- NCCL when multi-GPU)        [estimated]
    after_load = pre_load - weights - allocations before the pool    [weights from the models helper]
    rest       = after_load - pre_load * (1 - mem_fraction_static)
    tokens     = (rest // cell_size) // page_size * page_size

so the pool is about mem_fraction_static * pre_load - weights. mem_fraction_static itself is computable
on paper from the GPU's nvidia-smi size and the flags (3.1), which kvlint does exactly.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, NamedTuple

from kvlint.budget import Budget, Parallel, SglangDetail
from kvlint.engines.architectures import refuse_unmodelled
from kvlint.errors import InvalidSettingError
from kvlint.memory import nonkv
from kvlint.memory.common import (
    GIB,
    GpuFacts,
    Steps,
    float_setting,
    gib,
    int_setting,
    model_weights,
    resolve_model_dtype,
    setting,
    start_steps,
    weights_unchecked_text,
)
from kvlint.memory.memo import PerModel
from kvlint.memory.reservations import Speculative, sglang_mamba_pool, sglang_mm_reservation, sglang_speculative
from kvlint.memory.versions import SglangVersion, sglang_version
from kvlint.models.spec import CHUNKED, FULL, MLA, SLIDING, LayerKV, ModelSpec
from kvlint.models.weights import Placement

from .facts import NAME

HYBRID_SWA_ARCHS = ("GptOss", "Llama4", "Gemma4", "EmbeddingGemma2", "MiMoV2", "Step3p5", "DeepseekV4")
_KV_BYTES = {"fp8_e4m3": 1.0, "fp8_e5m2": 1.0, "mxfp8": 1.0, "bf16": 2.0, "bfloat16": 2.0, "nvfp4": 0.5,
             "fp4_mx_block16": 0.5}


def band(gpu_mib: int | None, tp: int, ver: SglangVersion) -> tuple[int, int]:
    """(chunked_prefill_size, decode CUDA-graph max_bs) defaults for this GPU size."""
    if gpu_mib is None:
        cps, small, _ = ver.unknown_band
        return cps, small
    for upper, cps, small, large in ver.bands:
        if upper is None or gpu_mib < upper:
            return cps, small if tp < 4 else large
    raise AssertionError("bands end with an open upper bound")


def prefill_graph_sizes(max_bs: int) -> int:
    """Count of breakable prefill CUDA-graph sizes up to max_bs (58 for 8192)."""
    steps = [(4, 32, 4), (48, 256, 16), (288, 512, 32), (576, 1024, 64), (1280, 4096, 256), (4608, max_bs, 512)]
    return len({s for lo, hi, st in steps for s in range(lo, min(hi, max_bs) + 1, st)})


def mem_fraction(settings: Mapping[str, Any], model: ModelSpec, gpu_mib: int | None, ver: SglangVersion,
                 steps: Steps) -> tuple[float, int, int]:
    """(mem_fraction_static, chunked_prefill_size, decode max_bs); the reserved-memory formula when unset."""
    tp, pp = int_setting(settings, "tp_size", 1), int_setting(settings, "pp_size", 1)
    cps, max_bs = band(gpu_mib, tp, ver)
    cps = int_setting(settings, "chunked_prefill_size", cps)
    max_bs = int_setting(settings, "cuda_graph_max_bs_decode", int_setting(settings, "cuda_graph_max_bs", max_bs))
    mrr = int_setting(settings, "max_running_requests")
    if mrr is not None and setting(settings, "cuda_graph_max_bs_decode") is None:
        max_bs = min(max_bs, mrr)
    user = float_setting(settings, "mem_fraction_static")
    capped = setting(settings, "max_total_tokens") is not None
    if user is not None and not (0 < user <= 1 or (capped and 1 < user < 1e6)):
        # SGLang takes any float, then sizes the pool as rest = free - total x (1 - fraction): above 1 the pool is
        # more than the card holds and its allocation fails once the weights are loaded, unless --max-total-tokens
        # caps it (then the cap is the pool; 1e308 is no arithmetic at all)
        raise InvalidSettingError(f"mem_fraction_static must be in (0, 1], got {user}", "mem_fraction_static",
                                  "must be in (0, 1]: the KV pool it asks for is more than the GPU holds, and its "
                                  "allocation fails", after_load=True)
    if user is not None:
        return user, cps, max_bs
    if gpu_mib is None:
        return _vlm_adjusted(ver.fallback_mem_fraction, model, steps), cps, max_bs
    if ver.fixed_reserve:
        return _fixed_reserve(settings, model, gpu_mib, ver, tp * pp, steps), cps, max_bs
    graphs = not setting(settings, "disable_cuda_graph", False)
    activation = max(cps, 2048) if cps > 0 else max(int_setting(settings, "max_prefill_tokens", 16384), 2048)
    reserved = 512 + 1.5 * activation + tp * pp / 8 * 1024
    graph: float = 2 * max_bs if graphs else 0
    attn_dp = int_setting(settings, "attn_dp_size", 1)
    if attn_dp > 1 and graphs:
        graph += max_bs * attn_dp * 3 + (max_bs * attn_dp * 1.5 if max_bs > 300 else 0)
    if ver.prefill_graph_reserve and graphs and pp == 1 and int_setting(settings, "dcp_size", 1) == 1 \
            and prefill_graphs_allowed(model):
        graph += 1536 if model.is_mla else 8 * prefill_graph_sizes(prefill_graph_max_bs(settings, model, cps))
    reserved += graph
    if gpu_mib > 60 * 1024:
        reserved = max(reserved, 10240)
    mfs = round((gpu_mib - reserved) / gpu_mib, 3)
    steps.add("reserved (MB)", f"512 + 1.5 x {activation} + tp*pp/8 x 1024 + graphs {graph:g}; floor 10240 above "
              "60 GB", reserved, "MiB")
    steps.add("mem_fraction_static", f"round(({gpu_mib} - {reserved:g}) / {gpu_mib}, 3)", mfs)
    return _vlm_adjusted(mfs, model, steps), cps, max_bs


def _fixed_reserve(settings: Mapping[str, Any], model: ModelSpec, gpu_mib: int, ver: SglangVersion, ranks: int,
                   steps: Steps) -> float:
    """Before 0.5.3, server_args reserved a fixed amount by memory band (plus TP x PP), whatever the chunked
    prefill size: the fraction stays positive where 0.5.3's activation formula goes negative."""
    base, per = next((b, p) for upper, b, p in ver.fixed_reserve if upper is None or gpu_mib < upper)
    reserved = (base + ranks * per) * 1024
    if setting(settings, "speculative_algorithm") is not None:
        reserved += 2 * 1024
    if setting(settings, "enable_dp_attention", False):
        reserved += 4 * 1024
    mfs = round((gpu_mib - reserved) / gpu_mib, 3)
    steps.add("reserved (MB)", f"({base:g} + tp*pp x {per:g}) x 1024 by memory band ({ver.version})", reserved, "MiB")
    steps.add("mem_fraction_static", f"round(({gpu_mib} - {reserved:g}) / {gpu_mib}, 3)", mfs)
    if model.is_multimodal:
        mfs *= 0.90
        steps.add("mem_fraction_static (VLM)", "x 0.90", mfs)
    return mfs


# cuda_graph_hook.py disables breakable prefill graphs for multimodal models except these (configs/model_config.py
# multimodal_breakable_cuda_graph_supported_model_archs, 0.5.23).
BCG_MULTIMODAL_ARCHS = ("MiniMaxM3SparseForConditionalGeneration", "Cohere2VisionForConditionalGeneration",
                        "Glm5NextForConditionalGeneration", "InternS2MobiusForConditionalGeneration",
                        "PaddleOCRVLForConditionalGeneration", "Qwen3_5ForConditionalGeneration",
                        "Qwen3_5MoeForConditionalGeneration", "Qwen4ExpForConditionalGeneration",
                        "MuseGlimmerForConditionalGeneration", "MuseSparkForConditionalGeneration",
                        "KimiK3ForConditionalGeneration", "KimiK25ForConditionalGeneration",
                        "MiniMaxM3SparseForCausalLM")


def prefill_graphs_allowed(model: ModelSpec) -> bool:
    """Multimodal prefill replay faults under breakable graphs, so SGLang turns them off outside its allowlist
    (and for DeepSeek-V4, whose capture pool OOMs)."""
    if model.architecture.startswith("DeepseekV4"):
        return False
    return not model.is_multimodal or model.architecture in BCG_MULTIMODAL_ARCHS


def prefill_graph_max_bs(settings: Mapping[str, Any], model: ModelSpec, cps: int) -> int:
    """Largest breakable prefill graph: chunked_prefill_size, capped by --max-total-tokens and, for a model path
    containing "llama-2", at 4096 (memory_hook.py)."""
    max_bs = cps
    cap = int_setting(settings, "max_total_tokens")
    if cap is not None:
        max_bs = min(max_bs, cap)
    if "llama-2" in model.model_id.lower():
        max_bs = min(max_bs, 4096)
    return max_bs


def _vlm_adjusted(mfs: float, model: ModelSpec, steps: Steps) -> float:
    """A multimodal model scales the fraction by its ViT size, also when the GPU size is unknown (0.95 fallback)."""
    factor = vision_factor(model)
    if factor == 1.0:
        return mfs
    steps.add("mem_fraction_static (VLM)", f"x 0.95 x clamp(1 - 0.1 x (ViT size / ViT-L - 1)) = x {factor:.4f}",
              mfs * factor)
    return mfs * factor


def vision_factor(model: ModelSpec) -> float:
    """Multimodal models keep more headroom for the vision tower's activations, scaled by its size
    (memory_hook.py adjust_mem_fraction_for_vlm: vision_config.num_hidden_layers, default 24, and hidden_size,
    default 1024; a `depth` key is not read)."""
    vision = model.raw.get("vision_config") if model.is_multimodal else None
    if not isinstance(vision, dict):
        return 1.0
    layers = vision.get("num_hidden_layers", 24)
    hidden = vision.get("hidden_size", 1024)
    scale = 1 - 0.1 * (layers * hidden**2 / (24 * 1024**2) - 1)
    return 0.95 * min(max(scale, 0.8), 1.05)


# Sparse-attention (DSA) models SGLang's server-args post-process gives its own --kv-cache-dtype auto
# (arg_groups/overrides.py _dsa_kv_cache_dtype_default, 0.5.23: the DeepSeek family that is_deepseek_dsa also names).
DSA_KV_DEFAULT_ARCHS = frozenset({
    "DeepseekV3ForCausalLM", "DeepseekV32ForCausalLM", "MistralLarge3ForCausalLM", "PixtralForConditionalGeneration",
    "GlmMoeDsaForCausalLM", "Glm5NextForConditionalGeneration", "HYV4ForCausalLM", "HYV4ForCausalLMNextN",
    "LongcatFlashForCausalLM", "LongcatFlashForCausalLMNextN", "Dots3NoteForCausalLM"})


def dsa_auto_kv(model: ModelSpec, cc: tuple[int, int] | None, rule: str = "card") -> str | None:
    """--kv-cache-dtype auto on a sparse-attention (DSA) model, as SGLang's server args set it before the checkpoint is
    read: fp8_e4m3 on SM100+ (bfloat16 with learnable attention sinks), else bfloat16, whatever KV scheme the
    checkpoint names (so an NVFP4 V3.2 with an FP8 KV scheme runs bf16 KV on Hopper). A card of unknown compute
    capability is taken as pre-Blackwell. None: not such a model, or (`rule` "blackwell_fp8", 0.5.4) not SM100+."""
    if model.architecture not in DSA_KV_DEFAULT_ARCHS or model.mla is None or not model.mla.index_topk:
        return None
    if rule == "blackwell_fp8":
        return "fp8_e4m3" if cc is not None and cc[0] >= 10 else None
    sinks = bool(model.raw.get("learnable_sink") or (model.raw.get("text_config") or {}).get("learnable_sink"))
    return "fp8_e4m3" if cc is not None and cc[0] >= 10 and not sinks else "bfloat16"


def kv_dtype_bytes(flag: str | None, model: ModelSpec, dtype: str,
                   cc: tuple[int, int] | None = None, rule: str = "card") -> tuple[str, float]:
    value = (flag or "auto").lower()
    if rule == "blackwell_fp8" and dsa_auto_kv(model, cc, rule):  # 0.5.4 overrode even an explicit flag
        return "fp8_e4m3", 1.0
    if value == "auto":
        dsa = dsa_auto_kv(model, cc, rule)
        if dsa is not None:
            return dsa, _KV_BYTES[dsa]
        scheme = model.quant.kv_cache_dtype if model.quant else None
        if scheme and "fp8" in scheme.lower():
            return "fp8_e4m3", 1.0
        return dtype, 4.0 if dtype == "float32" else 2.0
    if value not in _KV_BYTES:
        raise InvalidSettingError(f"--kv-cache-dtype {flag!r} is not one of auto, {', '.join(_KV_BYTES)}",
                                  "kv_cache_dtype", f"valid: auto, {', '.join(_KV_BYTES)}")
    return value, _KV_BYTES[value]


def per_token(model: ModelSpec, layer: LayerKV, attn_tp: int, dcp: int, size: float, kv_name: str) -> float:
    """Bytes one token costs in one layer on one rank (MLA: the latent, not divided by TP)."""
    if layer.kind == MLA:
        if model.mla and model.mla.index_topk and kv_name.startswith("fp8"):
            rank, rope = model.mla.kv_lora_rank, model.mla.qk_rope_head_dim
            return rank + rank // 128 * 4 + rope * 2
        return layer.head_dim_k * size
    heads = max(1, layer.num_kv_heads // max(attn_tp // dcp, 1))
    return heads * (layer.head_dim_k + layer.head_dim_v) * size


def mxfp8_scale_bytes(layers: list, attn_tp: int, dcp: int, kv_name: str) -> int:
    """mxfp8 keeps one scale byte per 32 elements: n x (head_dim + v_head_dim) x layers // 32 per token."""
    if kv_name != "mxfp8":
        return 0
    elements = sum(max(1, ly.num_kv_heads // max(attn_tp // dcp, 1)) * (ly.head_dim_k + ly.head_dim_v)
                   for ly in layers if ly.kind != MLA)
    return elements // 32


def dsa_indexer_bytes(model: ModelSpec, layers: Any, dcp: int) -> int:
    """Bytes per token of a sparse-attention model's indexer keys on one rank (DeepSeek-V3.2, GLM DSA; SGLang
    0.5.23 DefaultPoolConfigurator._compute_dsa_indexer_cell_size, part of the cell max_total_num_tokens divides
    by): each layer computing its own top-k keeps index_head_dim fp8 bytes plus a 4-byte scale per 128, over
    index_kpool pooled tokens (rounded up), whatever --kv-cache-dtype; layers reusing the previous top-k keep
    none. The keys are replicated under decode context parallelism while the latent is not, so x dcp."""
    mla = model.mla
    if mla is None or not mla.index_topk or not mla.index_head_dim:
        return 0
    width = -(-(mla.index_head_dim + mla.index_head_dim // 128 * 4) // mla.index_kpool)
    shared = set(mla.index_shared_layers)
    own = sum(1 for i in layers if model.layers[i].kind == MLA and i not in shared)
    return width * own * dcp


def is_hybrid_swa(model: ModelSpec, settings: Mapping[str, Any]) -> bool:
    if setting(settings, "disable_hybrid_swa_memory", False):
        return False
    kinds = {layer.kind for layer in model.layers}
    return model.architecture.startswith(HYBRID_SWA_ARCHS) and bool(kinds & {SLIDING, CHUNKED})


def page_align(n: int, page: int) -> int:
    return n // page * page


def pool_tokens(model: ModelSpec, settings: Mapping[str, Any], layers: Any, attn_tp: int, dcp: int, size: float,
                kv_name: str, available: int, page: int, steps: Steps, draft_layers: int = 0) -> tuple[int, int]:
    """(max_total_num_tokens, cell bytes) for the default or hybrid-SWA configurator."""
    sums = cell_sums(model, layers, attn_tp, dcp, size, kv_name)
    if not sums.layers:
        return 0, 0
    if is_hybrid_swa(model, settings):
        ratio = float_setting(settings, "swa_full_tokens_ratio", 0.8)
        cell = sums.full + ratio * sums.swa
        return page_align(int(available // cell), page), math.ceil(cell)
    cell = math.ceil(sums.every)
    cell += sums.mxfp8_scales
    indexer = dsa_indexer_bytes(model, layers, dcp)
    if indexer:
        steps.add("DSA indexer cache", "fp8 index keys + a 4-byte scale per 128, on every layer with its own top-k"
                  + (f", x DCP {dcp} (replicated)" if dcp > 1 else ""), indexer, "B")
        cell += indexer
    if draft_layers:  # EAGLE / NEXTN: the draft shares the target's per-layer KV size (pool_configurator.py)
        draft = int(cell * draft_layers / sums.layers)
        steps.add("speculative draft KV", f"int(cell {cell} x {draft_layers} draft layers / {sums.layers} layers)",
                  draft, "B")
        cell += draft
    return page_align(available // cell, page), cell


class CellSums(NamedTuple):
    """Per-token bytes of one rank's attention layers, summed in layer order as SGLang's configurators sum them."""

    layers: int  # attention layers (full, sliding, chunked, MLA)
    every: float  # over all of them (the default configurator)
    full: float  # over the full-attention and MLA ones (hybrid SWA)
    swa: float  # over the sliding and chunked ones (hybrid SWA)
    mxfp8_scales: int


def cell_sums(model: ModelSpec, layers: range, attn_tp: int, dcp: int, size: float, kv_name: str) -> CellSums:
    """The sums, memoised per model object (kvlint.memory.memo): they read the model's layers and these arguments
    only, and a catalogue sweep sizes one launch on ~50 cards (a pass over every layer each)."""
    def make() -> CellSums:
        attn = [model.layers[i] for i in layers if model.layers[i].kind in (FULL, SLIDING, CHUNKED, MLA)]
        cost = [per_token(model, ly, attn_tp, dcp, size, kv_name) for ly in attn]
        full = [ly.kind in (FULL, MLA) for ly in attn]
        return CellSums(len(attn), sum(cost), sum([c for c, f in zip(cost, full, strict=True) if f]),
                        sum([c for c, f in zip(cost, full, strict=True) if not f]),
                        mxfp8_scale_bytes(attn, attn_tp, dcp, kv_name))

    return _CELLS.get(model, (layers.start, layers.stop, layers.step, attn_tp, dcp, size, kv_name), make)


_CELLS: PerModel[CellSums] = PerModel()


def _swa_split(model: ModelSpec, settings: Mapping[str, Any], tokens: int, page: int, steps: Steps) -> None:
    """The SWA pool follows the final full-pool size: after the PP ranks agree on the smallest and after
    --max-total-tokens (KVCacheConfigurator.config_from_budget re-derives it from the capped count,
    HybridSWAPoolConfigurator._solve_pool_sizes, SGLang 0.5.23)."""
    if tokens and is_hybrid_swa(model, settings):
        ratio = float_setting(settings, "swa_full_tokens_ratio", 0.8)
        steps.add("SWA pool", f"swa tokens = page_align(full tokens x {ratio})", page_align(int(tokens * ratio), page),
                  "tokens")


def tokens_for_pool(model: ModelSpec, available_bytes: int,
                    settings: Mapping[str, Any] | None = None) -> tuple[int, int]:
    """(max_total_num_tokens, cell size) SGLang would derive from a given pool (no memory model involved)."""
    settings = settings or {}
    tp, attn_dp = int_setting(settings, "tp_size", 1), int_setting(settings, "attn_dp_size", 1)
    dtype = resolve_model_dtype(setting(settings, "dtype"), model, None)
    kv_name, size = kv_dtype_bytes(setting(settings, "kv_cache_dtype"), model, dtype)
    return pool_tokens(model, settings, range(model.num_layers), tp // attn_dp, int_setting(settings, "dcp_size", 1),
                       size, kv_name, int(available_bytes), page_size(settings, 1), Steps())


def page_size(settings: Mapping[str, Any], default: int) -> int:
    """Tokens per page; pools round down to it, so zero or less is a configuration error, not a division."""
    page = int_setting(settings, "page_size", default)
    if page < 1:
        raise InvalidSettingError(f"page_size must be >= 1, got {page}", "page_size", "must be >= 1")
    return page


def parallel_sizes(settings: Mapping[str, Any]) -> tuple[tuple[int, int, int, int, int], Mapping[str, Any]]:
    """(tp, pp, dp, dcp, attn_dp); the deprecated --enable-dp-attention turns dp into attention DP."""
    tp, pp = int_setting(settings, "tp_size", 1), int_setting(settings, "pp_size", 1)
    dp, dcp = int_setting(settings, "dp_size", 1), int_setting(settings, "dcp_size", 1)
    attn_dp = int_setting(settings, "attn_dp_size", 1)
    if setting(settings, "enable_dp_attention", False) and setting(settings, "attn_dp_size") is None:
        attn_dp, dp = dp, 1
        settings = {**settings, "attn_dp_size": attn_dp}
    if min(tp, pp, dp, dcp, attn_dp) < 1:
        names = ("tp_size", "pp_size", "dp_size", "dcp_size", "attn_dp_size")
        bad = next(n for n, v in zip(names, (tp, pp, dp, dcp, attn_dp), strict=False) if v < 1)
        raise InvalidSettingError("parallel sizes (tp_size, pp_size, dp_size, dcp_size, attn_dp_size) must be >= 1",
                                  bad, "must be >= 1")
    return (tp, pp, dp, dcp, attn_dp), settings


def rank_pool(model: ModelSpec, settings: Mapping[str, Any], rank: int, sizes: tuple[int, int, int, int], dtype: str,
              kv: tuple[str, float], page: int, budget: float, weights_bytes: int | None, steps: Steps,
              spec: Speculative | None = None) -> tuple[int, int, int, int, int | None]:
    """(tokens, cell, weights, pool bytes, Mamba slots) on one PP rank: its own weights, layers and state pools."""
    tp, pp, dcp, attn_dp = sizes
    ep, placement = sglang_placement(settings, tp, attn_dp)
    weights = weights_bytes if weights_bytes is not None else rank_weights(
        model, tp, pp, rank if pp > 1 else None, ep, dtype, setting(settings, "quantization"), placement)
    rest = int(budget - weights - sglang_mm_reservation(model))
    layers = layers_of_stage(model.num_layers, pp, rank)
    mamba = sglang_mamba_pool(model, settings, tp // attn_dp, attn_dp, max(rest, 0), 4 if dtype == "float32" else 2,
                              max_stage_mamba_layers(model, pp))
    if mamba is not None:
        rest -= mamba.pool_bytes
        if rank == 0:
            steps.add("Mamba state pool", mamba.how, mamba.pool_bytes, "B")
    tokens, cell = pool_tokens(model, settings, layers, tp // attn_dp, dcp, kv[1], kv[0], max(rest, 0), page, steps,
                               spec.draft_layers if spec else 0)
    return tokens, cell, int(weights), rest, mamba.slots if mamba is not None else None


def rank_weights(model: ModelSpec, tp: int, pp: int, pp_rank: int | None, ep: int, dtype: str, quantization: Any,
                 placement: Placement | None) -> int:
    """model_weights for one rank, memoised per model object (kvlint.memory.memo): the weights model's own cache
    hashes the whole ModelSpec on every call, and a catalogue sweep asks ~50 times for the same rank."""
    return _WEIGHTS.get(model, (tp, pp, pp_rank, ep, dtype, quantization, placement),
                        lambda: model_weights(model, tp=tp, pp=pp, pp_rank=pp_rank, ep=ep, dtype=dtype,
                                              quantization=quantization, placement=placement))


_WEIGHTS: PerModel[int] = PerModel()


# The all-to-all MoE backends that span the whole TP group: SGLang sets ep_size = tp_size under them
# (arg_groups/overrides.py _A2A_EP_SPANNING_BACKENDS, 0.5.23) and replicates shared experts (models/qwen2_moe.py,
# deepseek_v2.py `_shared_expert_use_tp1`).
SGLANG_A2A_EP_BACKENDS = frozenset({"deepep", "deepep_v2", "megamoe", "mooncake", "nixl", "ascend_fuseep",
                                    "flashinfer", "flashinfer_megamoe", "mori", "pplx"})


def sglang_placement(settings: Mapping[str, Any], tp: int, attn_dp: int) -> tuple[int, Placement | None]:
    """(ep, placement) of one rank's weights under SGLang's parallel widths (runtime_context.derive_parallel_widths):
    attention and the input embedding over attn_tp = tp / attn_dp, the lm_head there only with
    --enable-dp-lm-head, routed experts over ep x moe_tp = tp (ep from --ep-size, or tp under an all-to-all
    backend), dense FFN layers replicated with --moe-dense-tp-size 1, shared experts replicated under the
    all-to-all backends. None: every part over the TP group (the default launch)."""
    backend = str(setting(settings, "moe_a2a_backend", "none") or "none").lower()
    a2a = backend in SGLANG_A2A_EP_BACKENDS or bool(setting(settings, "enable_deepep_moe", False))
    ep = tp if a2a else int_setting(settings, "ep_size", 1)
    if ep < 1 or tp % ep:
        raise InvalidSettingError(f"ep_size * moe_dp_size must be equal to tp_size (ep_size {ep}, tp_size {tp})",
                                  "ep_size", f"must divide --tp-size {tp}")
    attn_tp = max(tp // attn_dp, 1)
    dense_replicated = int_setting(settings, "moe_dense_tp_size", 0) == 1  # is_dense_ffn_fully_dp: 1 or the TP group
    # --ep-num-redundant-experts: E + R physical experts (the models' FusedMoE num_experts, e.g. glm4_moe.py)
    redundant = max(int_setting(settings, "ep_num_redundant_experts", 0), 0) if ep > 1 else 0
    if attn_dp == 1 and ep == 1 and not a2a and not dense_replicated:
        return 1, None
    return ep, Placement(attn_tp=attn_tp, head_tp=attn_tp if setting(settings, "enable_dp_lm_head", False) else tp,
                         dense_tp=1 if dense_replicated else None, shared_tp=1 if a2a else None, expert_tp=tp // ep,
                         redundant_experts=redundant)


def mamba_slots_per_request(settings: Mapping[str, Any]) -> int:
    """KVCacheConfigurator._calculate_mamba_ratio (SGLang 0.5.23): a running request holds 3 Mamba state slots
    with the radix cache on (no extra buffer), 1 with it off; resolve_max_num_reqs caps the requests at
    max_mamba_cache_size // that."""
    return 1 if setting(settings, "disable_radix_cache", False) else 3


def layers_of_stage(num_layers: int, pp: int, rank: int) -> range:
    """SGLang's get_pp_indices (distributed/utils.py, 0.5.23): an equal split with the remainder one each to the
    LAST stages (vLLM gives it to stages -2, -3, ..., never the last): 30 layers on PP 4 are 7, 7, 8, 8."""
    per, rem = divmod(num_layers, pp)
    if rank >= pp - rem:
        start = rank * (per + 1) - (pp - rem)
        return range(start, start + per + 1)
    return range(rank * per, rank * per + per)


def max_stage_mamba_layers(model: ModelSpec, pp: int) -> int:
    """Every PP rank charges the largest stage's share of Mamba layers (so all ranks derive one pool)."""
    return max(sum(1 for i in layers_of_stage(model.num_layers, pp, r) if model.layers[i].kind == "mamba")
               for r in range(pp))


def sglang_budget(model: ModelSpec, settings: Mapping[str, Any], gpu: Any, *, version: str | None = None,
                  non_kv_bytes: int | None = None, gpu_memory_bytes: int | None = None,
                  weights_bytes: int | None = None) -> Budget:
    resolved = sglang_version(version)
    ver = resolved.record
    steps, facts = start_steps(NAME, resolved, gpu, gpu_memory_bytes)
    (tp, pp, dp, dcp, attn_dp), settings = parallel_sizes(settings)
    spec = sglang_speculative(settings, model)
    if spec is not None:
        steps.add("speculative decoding", f"{spec.method}: {spec.source}", spec.draft_layers, "layers",
                  estimated=not spec.exact)
        steps.note("speculative decoding: the draft's weights are not counted" + ("" if spec.exact else
                   f"; {spec.source}"))
    if model.is_multimodal:
        steps.add("multimodal cache", "SGLANG_VLM_CACHE_SIZE_MB default, taken from the rest memory",
                  sglang_mm_reservation(model), "B")
    mfs, cps, max_bs = mem_fraction(settings, model, facts.memory_mib, ver, steps)
    dtype = resolve_model_dtype(setting(settings, "dtype"), model, facts.compute_capability)
    kv_name, size = kv_dtype_bytes(setting(settings, "kv_cache_dtype"), model, dtype, facts.compute_capability,
                                   ver.dsa_kv_default)
    if dsa_auto_kv(model, facts.compute_capability, ver.dsa_kv_default) and (
            ver.dsa_kv_default != "card" or str(setting(settings, "kv_cache_dtype", "auto")).lower() == "auto"):
        how = ("--kv-cache-dtype auto on a sparse-attention model: fp8_e4m3 on SM100+, else bfloat16 (SGLang's "
               "server args, before the checkpoint's KV scheme)" if ver.dsa_kv_default == "card" else
               f"a sparse-attention model on SM100+: fp8_e4m3 whatever --kv-cache-dtype says ({ver.version})")
        steps.add("KV cache dtype (DSA)", how, _KV_BYTES[kv_name], "B per element")
    page = page_size(settings, 64 if facts.compute_capability and facts.compute_capability[0] == 10 else 1)
    context = int_setting(settings, "context_length", model.max_len_sglang)

    pre_load = facts.total_bytes - nonkv.sglang_context(tp, pp)
    other = nonkv.sglang_pre_pool() if non_kv_bytes is None else int(non_kv_bytes)
    ranks = [rank_pool(model, settings, rank, (tp, pp, dcp, attn_dp), dtype, (kv_name, size), page,
                       pre_load - other - pre_load * (1 - mfs), weights_bytes, steps, spec) for rank in range(pp)]
    tokens, cell, weights, rest, mamba_slots = min(ranks)
    cap = int_setting(settings, "max_total_tokens")
    if cap is not None and cap < tokens:
        tokens = page_align(cap, page)
        steps.add("max_total_tokens cap", "--max-total-tokens, page aligned", tokens, "tokens")
    pool_cap = page_align(cap, page) if cap is not None and 0 < cap < context else None
    _swa_split(model, settings, tokens, page, steps)

    estimated = max(2048, min(4096, int(tokens / max(context, 1) * 512)))
    user_mrr = int_setting(settings, "max_running_requests")
    mrr = min(max(1, user_mrr // attn_dp) if user_mrr else estimated, tokens // 2)
    if mamba_slots is not None:
        mrr = min(mrr, mamba_slots // mamba_slots_per_request(settings))
    kv = _kv_sizes(model, tokens, page, tp // attn_dp, dcp, size, kv_name)
    unchecked = weights_unchecked_text(model, weights_bytes is not None)
    if not steps.quiet:
        _log(steps, facts, _Pool(pre_load, weights, other, mfs, rest, cell, tokens, page, context, mrr), non_kv_bytes,
             unchecked)
    return Budget(
        engine=NAME, engine_version=ver.version, model=model.model_id, gpu_name=facts.name,
        gpu_memory_bytes=facts.total_bytes, parallel=Parallel(tp=tp, pp=pp, dp=dp, dcp=dcp, attn_dp=attn_dp),
        kv_bytes_per_token=cell, weights_bytes=weights, non_kv_bytes=facts.total_bytes - pre_load + other,
        non_kv_source="user" if non_kv_bytes is not None else "estimated", kv_pool_bytes=max(rest, 0),
        kv_pool_estimated=non_kv_bytes is None, max_model_len=context, kv_tokens=tokens,
        max_concurrency=tokens / context if context else 0.0, fits_one_request=tokens >= context,
        estimated_max_model_len=min(tokens, max(context, model.max_len_sglang)),
        requested_bytes=int(pre_load * mfs), kv_cache_dtype=kv_name, weights_dtype=dtype,
        mem_fraction_static=mfs, max_num_seqs=mrr, max_num_batched_tokens=cps, steps=tuple(steps.items),
        notes=tuple(steps.notes),
        detail=SglangDetail(page_size=page, k_size_gb=kv[0], v_size_gb=kv[1], cuda_graph_max_bs=max_bs,
                            reserve_bytes=int(pre_load * (1 - mfs))),
        pool_cap=pool_cap,
    )


def _kv_sizes(model: ModelSpec, tokens: int, page: int, attn_tp: int, dcp: int, size: float,
              kv_name: str) -> tuple[float, float]:
    """The K and V sizes SGLang logs: every layer buffer holds tokens + one padding page (MLA: one KV buffer)."""
    rows = tokens + page
    k = v = 0.0
    for mla, k_part, v_part in _kv_parts(model, attn_tp, dcp, size, kv_name):
        if mla:
            k += rows * k_part
        else:  # (rows x heads) x head_dim, integers, then x size: the same float as rows x heads x head_dim x size
            k += rows * k_part * size
            v += rows * v_part * size
    return k / GIB, v / GIB


def _kv_parts(model: ModelSpec, attn_tp: int, dcp: int, size: float, kv_name: str) -> tuple[tuple[bool, Any, int], ...]:
    """Per KV layer, in order: (MLA, its per-token bytes | heads x K head dim, heads x V head dim), memoised per
    model object: _kv_sizes runs on every budget of a sweep, and these read only the model and these arguments."""
    def make() -> tuple[tuple[bool, Any, int], ...]:
        out: list[tuple[bool, Any, int]] = []
        for layer in model.layers:
            if layer.kind == MLA:
                out.append((True, per_token(model, layer, attn_tp, dcp, size, kv_name), 0))
            elif layer.kind in (FULL, SLIDING, CHUNKED):
                heads = max(1, layer.num_kv_heads // max(attn_tp // dcp, 1))
                out.append((False, heads * layer.head_dim_k, heads * layer.head_dim_v))
        return tuple(out)

    return _KV_PARTS.get(model, (attn_tp, dcp, size, kv_name), make)


_KV_PARTS: PerModel[tuple[tuple[bool, Any, int], ...]] = PerModel()


class _Pool(NamedTuple):
    """The numbers SGLang's pool sizing went through, in the order its log prints them."""

    pre_load: float
    weights: int
    other: int
    mfs: float
    rest: float
    cell: float
    tokens: int
    page: int
    context: int
    mrr: int


def _log(steps: Steps, facts: GpuFacts, pool: _Pool, user: int | None, unchecked: str = "") -> None:
    pre_load, weights, other, mfs, rest, cell, tokens, page, context, mrr = pool
    steps.add("total GPU memory", f"{facts.name}: nvidia-smi {facts.memory_mib} MiB", facts.total_bytes, "B")
    steps.add("pre-load free", "total - CUDA context (+ NCCL)", pre_load, "B", estimated=True)
    steps.add("weights per rank", "weights model" + (f"; {unchecked}" if unchecked else ""), weights, "B")
    steps.note(unchecked)
    steps.add("pre-pool allocations", "buffers allocated before the pool is sized", other, "B", estimated=user is None)
    steps.add("reserve", f"pre-load x (1 - {round(mfs, 3):g}) for activations and CUDA graphs",
              int(pre_load * (1 - mfs)), "B")
    steps.add("KV pool", f"pre-load - weights - pre-pool - reserve = {gib(rest)}", rest, "B", estimated=True)
    steps.add("cell size", "per-rank bytes per token over all layers", cell, "B")
    steps.add("max_total_num_tokens", f"(pool // cell) // page {page} x page", tokens, "tokens")
    steps.add("context_len", "flag, else derived from config.json", context, "tokens")
    steps.add("max_running_requests", "min(clamp(tokens/context x 512, 2048, 4096), tokens // 2)", mrr)


def card_reads(gpu: Any) -> tuple[Any, ...]:
    """The facts of a catalogue card this memory model reads (gpu_facts: totals and compute capability; the name
    only in the derivation log and the budget's label), for Engine.card_reads."""
    return (gpu.total_bytes(NAME), gpu.memory_mib, gpu.compute_capability)


def budget(model: ModelSpec, settings: Mapping[str, Any], gpu: Any, *, version: str | None = None,
           non_kv_bytes: int | None = None, gpu_memory_bytes: int | None = None,
           weights_bytes: int | None = None) -> Budget:
    """The memory model under the name every engine's memory.py gives it (kvlint.memory.compute_budget and the
    engine record call it): an architecture kvlint does not model is refused before anything is sized."""
    refuse_unmodelled(model.architecture)
    return sglang_budget(model, settings, gpu, version=version, non_kv_bytes=non_kv_bytes,
                         gpu_memory_bytes=gpu_memory_bytes, weights_bytes=weights_bytes)
