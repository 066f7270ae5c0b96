"""vLLM's KV-cache sizing, from (model, GPU, canonical settings) to the numbers its startup log prints.

Order follows the engine (engines.md 1.1-1.7): resolve dtypes, lengths and batch defaults; build one
spec per layer on each pipeline stage; group them; take the memory left after weights and non-KV;
divide into blocks; check one request fits; derive the logged token count and concurrency. Only the
non-KV term is an estimate (kvlint.memory.nonkv); everything else is the engine's own arithmetic.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from functools import partial
from types import MappingProxyType
from typing import Any

from kvlint.budget import Budget, FixedPool, Parallel, Step, VllmDetail
from kvlint.engines.architectures import refuse_unmodelled
from kvlint.errors import InvalidSettingError, KvlintError, NotModelledError
from kvlint.memory import nonkv
from kvlint.memory.common import (
    GIB,
    GpuFacts,
    Steps,
    ceil_mul,
    float_setting,
    gib,
    int_setting,
    model_weights,
    resolve_model_dtype,
    setting,
    start_steps,
    weights_unchecked_text,
)
from kvlint.memory.memo import PerModel, settings_key
from kvlint.memory.reservations import Speculative, vllm_encoder_cache, vllm_lora, vllm_speculative
from kvlint.memory.versions import VllmVersion, vllm_version
from kvlint.models.spec import CHUNKED, FULL, MAMBA, MLA, NONE, SLIDING, ModelSpec
from kvlint.models.weights import Placement, mxfp4_layout_bytes, rope_cache_bytes
from kvlint.record import field, record, replace

from .facts import NAME
from .planning import (
    Group,
    bytes_per_block,
    kv_groups,
    layer_needed_bytes,
    layers_of_stage,
    longest_length,
    needed_bytes,
    padding_layers,
    worker_groups,
)
from .specs import KVDtype, KVSpec, LayerKey, cdiv, indexer_specs, layer_specs, resolve_kv_dtype


@record
class Stage:
    """One pipeline stage (its TP ranks are identical): layers, memory terms, and block accounting."""

    layers: frozenset[LayerKey]
    weights: int
    non_kv: int
    available: int
    bpb: int
    groups: tuple[Group, ...]
    weights_known: bool = True  # False: a fixed pool let a weights-model error pass
    raw_available: int = 0  # the pool before --num-gpu-blocks-override (what <= 0.21 checks against)
    raw_specs: tuple[KVSpec, ...] = ()  # this stage's layer specs before grouping (0.11's check sums these)
    raw_counts: tuple[tuple[KVSpec, int], ...] = ()  # raw_specs as (distinct spec, layers with it): the same sum
    kv_bytes_per_token: int | None = None  # unpadded bytes a token costs over this stage's layers (None: not summed)
    layout: StageLayout | None = field(default=None, compare=False, repr=False)  # memoises the one-request need

    @property
    def num_blocks(self) -> int:
        return max(self.available // self.bpb, 0) if self.bpb else 1


def parallel_of(settings: Mapping[str, Any]) -> Parallel:
    sizes = {name: int_setting(settings, name, 1) for name in
             ("tensor_parallel_size", "pipeline_parallel_size", "data_parallel_size", "decode_context_parallel_size")}
    for name, value in sizes.items():
        if value < 1:
            raise InvalidSettingError(f"{name} must be >= 1, got {value}", name, "must be >= 1")
    return Parallel(tp=sizes["tensor_parallel_size"], pp=sizes["pipeline_parallel_size"],
                    dp=sizes["data_parallel_size"], dcp=sizes["decode_context_parallel_size"],
                    ep=bool(setting(settings, "enable_expert_parallel", False)))


_DCP = "decode_context_parallel_size"
_PCP = "prefill_context_parallel_size"


def refuse_context_parallel_prefill(settings: Mapping[str, Any]) -> None:
    """Prefill context parallelism (`-pcp N`, N > 1: sample K544's TPU runbook, `-pcp 8` beside TP 1) adds ranks that
    split each request's KV cache and share the weights in a layout kvlint does not size: refused by name, never
    sized (or swept) as one TP rank holding it all."""
    pcp = int_setting(settings, _PCP, 1)
    if pcp > 1:
        raise NotModelledError(f"prefill context parallelism (-pcp {pcp}) is not modelled: its {pcp} ranks split each "
                               "request's KV cache in a layout kvlint does not size",
                               "its KV pool is not sized; check the engine's start-up log for its figures")


def check_dcp(model: ModelSpec, par: Parallel, ver: VllmVersion) -> None:
    """The DCP rules vLLM enforces at start-up for GQA/MQA (config/model.py verify_with_parallel_config); MLA is free.

    0.11 has no such rules but only its MLA backends return the softmax LSE that DCP needs, so any other
    model trips the model runner's assertion."""
    if par.dcp <= 1 or model.is_mla:
        return
    if ver.dcp_check == "lse":
        raise InvalidSettingError("DCP requires attention impls to return the softmax lse for decode (vLLM 0.11: only "
                                  "MLA backends do)", _DCP, "needs an MLA model in this vLLM release")
    kv, heads, tp, dcp = model.num_kv_heads, model.num_attention_heads, par.tp, par.dcp
    if tp <= kv:
        raise InvalidSettingError(
            f"Decode context parallelism for GQA/MQA requires `--tensor-parallel-size` ({tp}) to be greater than the "
            f"model's total number of KV heads ({kv}).", _DCP, f"needs --tensor-parallel-size > {kv} KV heads")
    if dcp > tp // kv:
        raise InvalidSettingError(
            f"`--decode-context-parallel-size` ({dcp}) exceeds the maximum supported value ({tp // kv}) for "
            f"`--tensor-parallel-size` ({tp}) and {kv} model KV heads.", _DCP, f"must be <= {tp // kv}")
    if (heads // kv) % dcp:
        raise InvalidSettingError(
            f"The model's number of query heads per KV head ({heads // kv}) must be divisible by "
            f"`--decode-context-parallel-size` ({dcp}) for GQA/MQA.", _DCP, f"must divide {heads // kv}")


def check_dcp_groups(groups: list[Group], dcp: int) -> None:
    """Sliding-window, chunked-local and Mamba groups assert DCP == 1 when their managers are built."""
    if dcp <= 1:
        return
    for kind, what in ((SLIDING, "sliding window"), (CHUNKED, "chunked local attn"), (MAMBA, "mamba")):
        if any(sp.kind == kind for g in groups for sp in g.specs):
            raise InvalidSettingError(f"DCP not support {what}.", _DCP, f"must be 1 with {what} layers")


def derived_len(model: ModelSpec, ver: VllmVersion) -> int:
    """The length vLLM derives from config.json in this release (LongRoPE's default moved at 0.12)."""
    if model.max_len_vllm_legacy is not None and not ver.longrope_original_default:
        return model.max_len_vllm_legacy
    return model.max_len_vllm


def max_model_len(settings: Mapping[str, Any], model: ModelSpec, ver: VllmVersion) -> tuple[int, bool]:
    """(length, auto-fit requested). -1 / 'auto' starts from the derived length and may shrink it."""
    value = setting(settings, "max_model_len")
    if value is None:
        return derived_len(model, ver), False
    if str(value).strip().lower() in ("-1", "auto"):
        return derived_len(model, ver), True
    length = int_setting(settings, "max_model_len", 0)
    if length < 1:
        raise InvalidSettingError(f"max_model_len must be positive, got {length}", "max_model_len",
                                  "must be a positive length, auto or -1")
    return length, False


def name_traits(name: str) -> tuple[bool, bool]:
    """What the memory model reads from a card's name, and only this (batch_defaults): whether it names an H100 or
    H200 (the batch tier before 0.9.2), and whether it names an A100 (no large batch below 0.30's tier). A sweep
    shares a budget between cards equal in these and their numbers (card_reads), so every read of the name must
    go through here."""
    name = name.lower()
    return "h100" in name or "h200" in name, "a100" in name


def card_reads(gpu: Any) -> tuple[Any, ...]:
    """The facts of a catalogue card this memory model reads (gpu_facts: totals and compute capability; the name's
    traits), for Engine.card_reads."""
    return (gpu.total_bytes(NAME), gpu.memory_mib, gpu.compute_capability, name_traits(gpu.name))


def batch_defaults(settings: Mapping[str, Any], facts: GpuFacts, ver: VllmVersion, length: int,
                   model: ModelSpec | None = None) -> tuple[int, int]:
    """(max_num_seqs, max_num_batched_tokens) as `vllm serve` resolves them (engines.md 1.1 table)."""
    if ver.v0_profile:
        return v0_batch_defaults(settings, length)
    hopper_name, a100_name = name_traits(facts.name)
    if ver.batch_tier == "h100_name":
        mnbt, mns = (8192 if hopper_name else 2048), 1024
    elif ver.large_gpu_tier and facts.total_bytes >= 160 * GIB:
        mnbt, mns = 16384, 1024
    elif facts.total_bytes >= 70 * GIB and not a100_name and facts.compute_capability != (12, 1):
        mnbt, mns = 8192, 1024
    else:
        mnbt, mns = 2048, 256
    user_mns = int_setting(settings, "max_num_seqs")
    user_mnbt = int_setting(settings, "max_num_batched_tokens")
    if setting(settings, "performance_mode") == "throughput":
        mnbt, mns = mnbt * 2, mns * 2
    mns = user_mns if user_mns is not None else mns
    if user_mnbt is not None:
        mnbt = user_mnbt
    else:
        if setting(settings, "enable_chunked_prefill", True) is False:
            mnbt = max(length, mnbt)
        if ver.mm_item_batch_floor and model is not None:
            mnbt = max(mnbt, mm_item_tokens(model))
        mnbt = min(mns * length, mnbt)
    if user_mns is None:
        mns = min(mns, mnbt)
    return mns, mnbt


GEMMA4_VIDEO_FRAMES, GEMMA4_FRAME_TOKENS = 32, 70 + 2 + 6  # gemma4_mm.py: _VIDEO_MAX_FRAMES; a frame's 70 soft tokens
# (_VIDEO_MAX_SOFT_TOKENS) + begin/end of image + ~6 timestamp tokens (0.21-0.33)


def mm_item_tokens(model: ModelSpec) -> int:
    """The largest multimodal item a prefix-LM model's processor states (get_mm_max_tokens_per_item), 0 where it
    states none. Gemma-4 with its vision tower: max(image: vision_config.default_output_length (280), video: 32
    frames x 78 = 2,496, audio: the processor's audio_seq_length, not read here); the video ceiling is taken
    (--limit-mm-per-prompt's video num_frames, which lowers it, is not read). On gemma-4-26B-A4B (L40S, 0.25.1:
    2,048 -> 2,496) it lifts each sliding group's reservation from 193 to 221 blocks: the logged 321,600 tokens
    (the 0.21 table gave 344,138)."""
    if not model.is_multimodal or not model.architecture.startswith("Gemma4"):
        return 0
    return GEMMA4_VIDEO_FRAMES * GEMMA4_FRAME_TOKENS


def v0_batch_defaults(settings: Mapping[str, Any], length: int) -> tuple[int, int]:
    """V0 engine (< 0.8, arg_utils.py / SchedulerConfig): 256 sequences; chunked prefill on by default only above
    32K tokens, then 2048 batched tokens, else max(max_model_len, 2048), the whole prompt in one profile pass."""
    mns = int_setting(settings, "max_num_seqs") or 256
    user_mnbt = int_setting(settings, "max_num_batched_tokens")
    if user_mnbt is not None:
        return mns, user_mnbt
    chunked = setting(settings, "enable_chunked_prefill", None)
    if chunked is None:
        chunked = length > 32768
    return mns, 2048 if chunked else max(length, 2048)


def default_block_size(settings: Mapping[str, Any], model: ModelSpec, facts: GpuFacts, ver: VllmVersion,
                       kv_name: str) -> int:
    """16, unless the MLA backend vLLM picks for this GPU and KV dtype needs other blocks (engines.md 1.1)."""
    user = int_setting(settings, "block_size")
    if user is not None and user < 1:
        raise InvalidSettingError(f"block_size must be positive, got {user}", "block_size", "must be positive")
    if model.mla is not None and model.mla.index_topk:
        return user or 64  # sparse MLA (DeepSeek-V3.2): FLASHMLA_SPARSE kernels take multiples of 64
    if model.mla is None:
        return user or 16
    major = facts.compute_capability[0] if facts.compute_capability else None
    if ver.mla_block_rule == "backend":
        if user is not None:
            return user
        if major == 10:
            return 32  # FLASHINFER_MLA first on SM10x
        return 64 if major == 9 and kv_name.startswith("fp8") else 16  # FLASH_ATTN_MLA has no fp8: FLASHMLA
    return _forced_mla_block(ver.mla_block_rule, major, user or 16, model)


def _forced_mla_block(rule: str, major: int | None, block: int, model: ModelSpec) -> int:
    """Before 0.20 the platform forced the MLA block size (platforms/cuda.py check_and_update_config): FlashMLA on
    Hopper; on Blackwell CUTLASS MLA (0.11-0.14) or, from 0.15, FlashInfer MLA when qk_nope is 128. 0.11 forces the
    backend's size over --block-size; 0.12+ only replace a --block-size that is not a multiple of it."""
    if rule == "forced_exact":
        return {9: 64, 10: 128}.get(major or 0, block)
    if major == 9:
        return block if block % 64 == 0 else 64
    flashinfer = rule == "forced_multiple" and model.mla is not None and model.mla.qk_nope_head_dim == 128
    if major == 10 and flashinfer:
        return block if block == 32 or block % 64 == 0 else 64
    if major == 10:
        return block if block % 128 == 0 else 128
    return block


def sparse_mla_dtype(model: ModelSpec, kvd: KVDtype) -> KVDtype:
    """Sparse MLA stores any fp8 cache as fp8_ds_mla (656 B per token: fp8 latent + scales + bf16 rope)."""
    if model.mla is not None and model.mla.index_topk and kvd.name.startswith("fp8") and kvd.name != "fp8_ds_mla":
        return KVDtype("fp8_ds_mla", 1, f"{kvd.name} canonicalized by the sparse MLA backend")
    return kvd


def hybrid_manager(settings: Mapping[str, Any], model: ModelSpec, ver: VllmVersion, steps: Steps,
                   spec: Speculative | None = None) -> bool:
    if setting(settings, "disable_hybrid_kv_cache_manager", False):
        return False
    if spec is not None and spec.method in ("eagle", "eagle3") and any(ly.kind == CHUNKED for ly in model.layers):
        steps.note("EAGLE with chunked local attention disables vLLM's hybrid KV cache manager")
        return False
    if ver.chunked_disables_hma and any(layer.kind == CHUNKED for layer in model.layers):
        steps.note("chunked local attention (Llama-4) disables vLLM's hybrid KV cache manager: chunked layers "
                   "are allocated as full attention")
        return False
    return True


def align_mamba(specs: dict[LayerKey, KVSpec], block_size: int) -> tuple[dict[LayerKey, KVSpec], int]:
    """Attention blocks grow until their page covers a Mamba state; the state is padded to match (engines.md 1.1)."""
    mamba = [s for s in specs.values() if s.kind == MAMBA]
    attn = [s for s in specs.values() if s.kind != MAMBA]
    if not mamba or not attn:
        return specs, block_size
    one_token = max(s.num_heads * s.content_bytes for s in attn)
    align = max(128 if any(s.kind == MLA for s in attn) else 16, block_size)
    need = align * cdiv(max(s.state_bytes for s in mamba), align * one_token)
    block = max(block_size, need)
    out = {k: replace(s, block_size=block, page_padded=block * one_token if s.kind == MAMBA else s.page_padded)
           for k, s in specs.items()}
    return out, block


def mamba_blocks(settings: Mapping[str, Any], ver: VllmVersion, spec_tokens: int, steps: Steps) -> int:
    """Blocks one request's Mamba state holds: 1 (+ speculative) without prefix caching; in "align" mode
    (prefix caching on, the default for generative hybrids from 0.33) 2 + speculative + prefill checkpoint."""
    caching = setting(settings, "enable_prefix_caching", ver.hybrid_prefix_caching)
    if not caching:
        return 1 + spec_tokens
    blocks = 2 + spec_tokens + ver.mamba_checkpoint_blocks
    steps.add("Mamba state blocks", f"prefix caching on: mamba_cache_mode align, 2 + {spec_tokens} speculative + "
              f"{ver.mamba_checkpoint_blocks} prefill checkpoint per request", blocks, "blocks")
    return blocks


def draft_specs(specs: dict[LayerKey, KVSpec], model: ModelSpec, spec: Speculative | None,
                steps: Steps) -> dict[LayerKey, KVSpec]:
    """Draft layers hold KV in the target's pool with a target layer's page (the MTP / EAGLE layer copies the
    target's attention): exact for MTP layers shipped in config.json, an assumption for EAGLE heads."""
    if spec is None or not spec.draft_layers:
        return {}
    template = next((s for k, s in sorted(specs.items(), reverse=True) if s.kind in (FULL, MLA)), None)
    if template is None:
        return {}
    steps.add("speculative draft layers", f"{spec.method}, {spec.num_tokens} speculative tokens: {spec.source}",
              spec.draft_layers, "layers", estimated=not spec.exact)
    return {(model.num_layers + i, 0): template for i in range(spec.draft_layers)}


def build_specs(model: ModelSpec, settings: Mapping[str, Any], par: Parallel, block: int, kvd: KVDtype,
                steps: Steps, ver: VllmVersion, spec: Speculative | None = None) -> tuple[dict[LayerKey, KVSpec], int]:
    specs = layer_specs(model, tp=par.tp, dcp=par.dcp, block_size=block, dtype=kvd, ssm_dtype=ver.nemotron_h_ssm_dtype)
    specs.update(indexer_specs(model, block_size=block))
    specs.update(draft_specs(specs, model, spec, steps))
    if any(s.kind == MAMBA for s in specs.values()):
        held = mamba_blocks(settings, ver, spec.num_tokens if spec else 0, steps)
        specs = {k: replace(s, mamba_blocks=held) if s.kind == MAMBA else s for k, s in specs.items()}
        specs, aligned = align_mamba(specs, block)
        if aligned != block:
            steps.add("attention block size", "raised so one attention page >= one Mamba state page", aligned, "tokens")
            block = aligned
    return specs, block


class _Reads(Mapping[str, Any]):
    """Settings as a cached computation reads them: the names it asked for are kept, to be asked again on a hit
    (a caller's mapping may record reads, as the resolve stage's view does for values left unresolved)."""

    def __init__(self, settings: Mapping[str, Any]):
        self._settings = settings
        self.names: list[str] = []

    def __getitem__(self, key: str) -> Any:
        self.names.append(key)
        return self._settings[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._settings)

    def __len__(self) -> int:
        return len(self._settings)


@record
class StageLayout:
    """One pipeline stage's layers and block accounting: nothing here depends on the card."""

    layers: frozenset[LayerKey]
    bpb: int
    groups: tuple[Group, ...]
    raw_specs: tuple[KVSpec, ...]
    raw_counts: tuple[tuple[KVSpec, int], ...]
    kv_bytes_per_token: int
    needed: dict[tuple[str, int, int], int] = field(default_factory=dict, compare=False, repr=False)

    def need(self, basis: str, length: int, reserve: int, compute: Callable[[int], int]) -> int:
        """compute(length) memoised: the binary searches of every card of a sweep ask for the same lengths."""
        key = (basis, length, reserve)
        found = self.needed.get(key)
        if found is None:
            if len(self.needed) >= 4096:
                self.needed.clear()
            found = self.needed[key] = compute(length)
        return found


@record
class Layout:
    """The layer specs, block size and KV groups one set of settings makes of a model, before any card is involved.

    Built once per (model, settings, block size, KV dtype, release) and replayed on every card of a sweep:
    what building it logged is added to each budget's steps again, and the settings it read are read again
    from the caller's mapping, so a hit leaves exactly the trace a fresh build would."""

    specs: Mapping[LayerKey, KVSpec]
    block: int
    groups: tuple[Group, ...]
    steps: tuple[Step, ...] = ()
    notes: tuple[str, ...] = ()
    reads: tuple[str, ...] = ()
    pages: tuple[int, ...] = ()  # the distinct pages, smallest first (the derivation log shows them)
    stage_layouts: dict[tuple[int, int, int], StageLayout] = field(default_factory=dict, compare=False, repr=False)

    def replay(self, settings: Mapping[str, Any], steps: Steps) -> None:
        for name in self.reads:
            settings.get(name)
        steps.items.extend(self.steps)
        for text in self.notes:
            steps.note(text)

    def stage(self, model: ModelSpec, pp: int, rank: int, draft_layers: int) -> StageLayout:
        key = (pp, rank, draft_layers)
        found = self.stage_layouts.get(key)
        if found is None:
            found = self.stage_layouts[key] = stage_layout(self.specs, list(self.groups), model, pp, rank, draft_layers)
        return found


_LAYOUTS: PerModel[Layout] = PerModel()


def layout_of(model: ModelSpec, settings: Mapping[str, Any], par: Parallel, block: int, kvd: KVDtype, steps: Steps,
              ver: VllmVersion, spec: Speculative | None) -> Layout:
    """build_specs + kv_groups for these inputs, memoised (par and spec are functions of the settings and model)."""
    def make() -> Layout:
        recorded, reads = Steps(), _Reads(settings)
        specs, size = build_specs(model, reads, par, block, kvd, recorded, ver, spec)
        groups = kv_groups(specs, hybrid_manager=hybrid_manager(reads, model, ver, recorded, spec),
                           unify=ver.unifies_page_sizes, ratio=ver.group_size_ratio)
        return Layout(MappingProxyType(specs), size, tuple(groups), tuple(recorded.items), tuple(recorded.notes),
                      tuple(dict.fromkeys(reads.names)), tuple(sorted({s.page for s in specs.values()})))

    layout = _LAYOUTS.get(model, (settings_key(settings), block, kvd, ver), make)
    layout.replay(settings, steps)
    return layout


def stage_layout(specs: Mapping[LayerKey, KVSpec], groups: list[Group], model: ModelSpec, pp: int, rank: int,
                 draft_layers: int) -> StageLayout:
    idx = set(layers_of_stage(model.num_layers, pp, rank))
    if rank == pp - 1:  # the drafter runs on the last stage
        idx |= set(range(model.num_layers, model.num_layers + draft_layers))
    layers = frozenset(k for k in specs if k[0] in idx)
    raw = tuple(specs[k] for k in sorted(layers))
    return StageLayout(layers, bytes_per_block(groups, layers), tuple(worker_groups(groups, layers)), raw,
                       tuple(Counter(raw).items()), sum(specs[k].bytes_per_token for k in layers))


@record
class Inputs:
    """Every input the planner needs, resolved once the way the engine resolves it (engines.md 1.1)."""

    model: ModelSpec
    settings: Mapping[str, Any]
    ver: VllmVersion
    facts: GpuFacts
    par: Parallel
    dtype: str  # model (weights) dtype
    kvd: KVDtype
    length: int  # max_model_len before auto-fit
    auto: bool  # --max-model-len -1 / auto
    block: int
    specs: Mapping[LayerKey, KVSpec]
    groups: tuple[Group, ...]
    weights_bytes: int | None  # given per rank, else the weights model
    non_kv_bytes: int | None  # given per rank, else the estimate
    mns: int
    mnbt: int
    requested: int  # bytes vLLM may use: total x gpu_memory_utilization
    reserve: int  # tokens a sliding/chunked layer keeps beyond its window
    cudagraphs: bool  # the CUDA-graph estimate is subtracted
    blackwell: bool
    fixed_pool: int | None  # --kv-cache-memory-bytes
    override: int | None  # --num-gpu-blocks-override
    spec: Speculative | None = None  # --speculative-config
    reserved: tuple[tuple[str, int, str], ...] = ()  # LoRA slots, encoder cache: measured by vLLM, estimated here
    layout: Layout | None = None  # where specs and groups came from (its stage layouts are memoised)
    settled: Settled | None = field(default=None, compare=False, repr=False)  # shared by a sweep's quiet budgets


@record
class StageMemory:
    """(weights, non-KV, available KV) on one stage; weights_known is False when a fixed pool hid a weights error."""

    weights: int
    non_kv: int
    available: int
    weights_known: bool = True


def stage_weights(inp: Inputs, rank: int) -> int:
    """What vLLM's "Model loading took" measures on one stage: the parameters in the layout the engine's kernels
    keep (mxfp4 MoE backends pad and re-lay experts) plus the RoPE cos/sin table, a buffer allocated at load."""
    if inp.weights_bytes is not None:
        return int(inp.weights_bytes)
    par = inp.par
    ep = par.tp * par.dp if par.ep else 1
    redundant = eplb_redundant_experts(inp.settings) if ep > 1 else 0
    pp_rank = rank if par.pp > 1 else None
    quant = setting(inp.settings, "quantization")
    backend = mxfp4_backend(inp.ver, inp.facts)
    return _WEIGHTS.get(inp.model, (par.tp, par.pp, pp_rank, ep, redundant, inp.dtype, quant, backend),
                        lambda: _stage_weights(inp.model, par.tp, par.pp, pp_rank, ep, inp.dtype, quant, backend,
                                               redundant))


_WEIGHTS: PerModel[int] = PerModel()


def eplb_redundant_experts(settings: Mapping[str, Any]) -> int:
    """--enable-eplb with --eplb-config '{"num_redundant_experts": R}': R more physical experts over the EP ranks
    (fused_moe/layer.py determine_expert_counts: global experts = E + R); 0 without EPLB."""
    if not setting(settings, "enable_eplb", False):
        return 0
    config = setting(settings, "eplb_config")
    if isinstance(config, str):
        import json

        try:
            config = json.loads(config)
        except ValueError:
            return 0
    value = config.get("num_redundant_experts", 0) if isinstance(config, Mapping) else 0
    try:
        redundant = int(value)
    except (TypeError, ValueError):
        return 0
    if redundant < 0:
        raise InvalidSettingError(f"num_redundant_experts must be non-negative, got {redundant}", "eplb_config",
                                  "num_redundant_experts must be >= 0")
    return redundant


def _stage_weights(model: ModelSpec, tp: int, pp: int, pp_rank: int | None, ep: int, dtype: str, quant: Any,
                   backend: str, redundant: int = 0) -> int:
    params = model_weights(model, tp=tp, pp=pp, pp_rank=pp_rank, ep=ep, dtype=dtype, quantization=quant,
                           placement=Placement(redundant_experts=redundant) if redundant else None)
    layout = mxfp4_layout_bytes(model, backend, tp=tp, pp=pp, pp_rank=pp_rank, ep=ep)
    return params + layout + vllm_rope_table(model, dtype)


def mxfp4_backend(ver: VllmVersion, facts: GpuFacts) -> str:
    """vLLM's mxfp4 MoE backend for the card (quantization/mxfp4.py get_mxfp4_backend): Marlin below SM 9.0 and
    from SM 11 (triton_kernels are confirmed on 9.0-10.x only), Triton on Hopper (Marlin in 0.10.1, whose torch
    2.7.1 predates triton_kernels' 2.8 requirement), FlashInfer on Blackwell; the checkpoint layout when the
    card is unknown."""
    cc = facts.compute_capability
    if cc is None:
        return "checkpoint"
    if cc[0] == 9:
        return ver.mxfp4_hopper
    return "flashinfer" if cc[0] == 10 else "marlin"


def vllm_rope_table(model: ModelSpec, dtype: str) -> int:
    """RoPE cos/sin cache (rotary_embedding/base.py: max_position x rotary_dim at the model dtype, one table per
    distinct RoPE): registered as a buffer at load, so inside "Model loading took" (Llama-4 Scout: 2.5 GiB)."""
    if not any(layer.kind not in (MAMBA, NONE) for layer in model.layers):
        return 0
    return rope_cache_bytes(model, dtype)


def stage_memory(inp: Inputs, rank: int, layers: frozenset[LayerKey], steps: Steps) -> StageMemory:
    """Weights, non-KV and available KV bytes on one stage; kv_cache_memory_bytes replaces the subtraction."""
    if inp.settled is None:
        weights, other, known = stage_costs(inp, rank, layers, steps)
    else:  # the card's batch defaults and the given figures are all the costs read beside what Settled fixes
        weights, other, known = inp.settled.stage_costs((rank, inp.mns, inp.mnbt, inp.weights_bytes,
                                                         inp.non_kv_bytes),
                                                        lambda: stage_costs(inp, rank, layers, steps))
    if inp.fixed_pool is not None:
        return StageMemory(weights, 0, inp.fixed_pool, known)
    return StageMemory(weights, other, inp.requested - weights - other)


def stage_costs(inp: Inputs, rank: int, layers: frozenset[LayerKey], steps: Steps) -> tuple[int, int, bool]:
    """(weights after CPU offload, non-KV, weights known) on one stage: the card's memory plays no part (its compute
    capability does: the mxfp4 backend, all-reduce fusion, Blackwell's graphs). With a fixed pool the non-KV term
    is not taken (0) and a weights-model error passes (weights 0, not known)."""
    try:
        weights, known = stage_weights(inp, rank), True
    except KvlintError:
        if inp.fixed_pool is None:
            raise
        weights, known = 0, False
    offload = int((float_setting(inp.settings, "cpu_offload_gb", 0.0) or 0.0) * GIB)
    weights = max(weights - offload, 0)
    if inp.fixed_pool is not None:
        return weights, 0, known
    return weights, stage_non_kv(inp, rank, layers, steps), known


def stage_non_kv(inp: Inputs, rank: int, layers: frozenset[LayerKey], steps: Steps) -> int:
    """The working set beside weights and pool on one stage: the given figure, else the estimate (logged once)."""
    if inp.non_kv_bytes is not None:
        return int(inp.non_kv_bytes)
    args: dict[str, Any] = dict(max_num_seqs=inp.mns, max_num_batched_tokens=inp.mnbt, tp=inp.par.tp, pp=inp.par.pp,
                layers_on_rank=len({k[0] for k in layers}) or inp.model.num_layers, cudagraphs=inp.cudagraphs,
                blackwell=inp.blackwell, spec_tokens=inp.spec.num_tokens if inp.spec else 0, extra=inp.reserved,
                collectives=allreduce_fusion(inp), sampler=sampler_path(inp), dtype=inp.dtype)
    est = _NON_KV.get(inp.model, tuple(args.items()), lambda: nonkv.vllm_non_kv(inp.model, **args))
    if rank == 0:
        for name, value, how in est.parts:
            steps.add(f"non-KV: {name}", how, value, "B", estimated=True)
    return est.total


_NON_KV: PerModel[nonkv.NonKV] = PerModel()


def sampler_path(inp: Inputs) -> str:
    """The dummy sampler's path on this install. From 0.8 to 0.11 the V1 sampler (topk_topp_sampler.py
    TopKTopPSampler.__init__) takes FlashInfer's kernels only when the flashinfer package imports and
    VLLM_USE_FLASHINFER_SAMPLER is not 0; otherwise it sorts the fp32 logits (apply_top_k_top_p), the 0.12-0.16 path.
    The vllm/vllm-openai image ships FlashInfer; the PyPI wheel lists it as an extra, so a plain `pip install vllm`
    sorts. `flashinfer_sampler` (not a flag: True for an image of the engine (resolve.lookups.install_settings) or a
    log's "Using FlashInfer for top-p & top-k sampling" line, False for its "Falling back to the PyTorch-native
    implementation" line) picks; unset, the wheel's path, which is also the larger working set, so a refusal is not
    missed. Evidence: flashinfer issue 1180 (same launch 4.00 GiB of KV with FlashInfer, 2.49 without), issue 23278
    (gpt-oss-120b, 0.10.1 in a conda env: -2.14 GiB logged, the sorting path's figure)."""
    path = inp.ver.sampler
    if path == "flashinfer" and setting(inp.settings, "flashinfer_sampler") is not True:
        return "torch_sort"
    return path


def allreduce_fusion(inp: Inputs) -> bool:
    """vLLM 0.17+ enable_allreduce_rms_fusion: TP > 1, DP == PP == 1, SM 9.0 or 10.x, compiled (not eager); its
    workspace and the TP group's first NCCL communicator are made during the profile run (VllmVersion)."""
    cc, par = inp.facts.compute_capability, inp.par
    return (inp.ver.allreduce_fusion and par.tp > 1 and par.pp == 1 and par.dp == 1
            and cc is not None and (cc == (9, 0) or cc[0] == 10) and not setting(inp.settings, "enforce_eager", False))


def fixed_pool_footprint(inp: Inputs, stages: list[Stage], steps: Steps) -> FixedPool | None:
    """With --kv-cache-memory-bytes vLLM skips profiling, yet the pool is still allocated beside the weights and
    the working set (activations, CUDA graphs): past the card's total that is a CUDA OOM at allocation."""
    if inp.fixed_pool is None or not all(st.weights_known for st in stages):
        return None
    worst = max(((st.weights, stage_non_kv(inp, rank, st.layers, steps)) for rank, st in enumerate(stages)), key=sum)
    total = inp.facts.total_bytes
    over = worst[0] + inp.fixed_pool + worst[1] - total
    if over > 0:
        g = lambda n: f"{n / GIB:.2f} GiB"  # noqa: E731 - a note reads better at two decimals
        steps.note(f"the fixed KV pool ({g(inp.fixed_pool)}) does not fit beside weights {g(worst[0])} and non-KV "
                   f"{g(worst[1])} on {g(total)}: over by {g(over)}; vLLM fails "
                   f"with CUDA out of memory when it allocates the pool")
    return FixedPool(worst[0], worst[1], over, inp.non_kv_bytes is None)


def requested_memory(facts: GpuFacts, util: float, ver: VllmVersion) -> int:
    return int(facts.total_bytes * util) if ver.requested == "float" else ceil_mul(facts.total_bytes, util)


def plan_stages(inp: Inputs, steps: Steps) -> list[Stage]:
    stages = []
    draft = inp.spec.draft_layers if inp.spec else 0
    for rank in range(inp.par.pp):
        lay = (inp.layout.stage(inp.model, inp.par.pp, rank, draft) if inp.layout is not None
               else stage_layout(inp.specs, list(inp.groups), inp.model, inp.par.pp, rank, draft))
        mem = stage_memory(inp, rank, lay.layers, steps)
        avail = inp.override * lay.bpb if inp.override is not None else mem.available
        stages.append(Stage(lay.layers, mem.weights, mem.non_kv, avail, lay.bpb, lay.groups, mem.weights_known,
                            mem.available, lay.raw_specs, lay.raw_counts, lay.kv_bytes_per_token, lay))
    return stages


def capacity(groups: list[Group], num_blocks: int, length: int, reserve: int, ver: VllmVersion,
             dcp: int) -> tuple[int, float, int]:
    """(blocks per request, max_concurrency, logged tokens) from the scheduler's view (engines.md 1.7, 8)."""
    if not groups:
        return 0, 0.0, 0
    per_request = sum(g.blocks_per_request(length, reserve) for g in groups)
    concurrency = num_blocks / per_request
    if ver.tokens_formula == "concurrency":
        tokens = int(concurrency * length)
    else:
        tokens = num_blocks // len(groups) * min(g.block_size for g in groups) * dcp
    return per_request, concurrency, tokens


def stage_needed(st: Stage, ver: VllmVersion, reserve: int) -> Callable[[int], int]:
    """Bytes one request of a given length needs on a stage, as this release's check counts them."""
    compute = _stage_need(st, ver, reserve)
    lay = st.layout
    if lay is None:
        return compute
    return partial(lay.need, ver.check_basis, reserve=reserve, compute=compute)  # need(basis, n, ...)


def _stage_need(st: Stage, ver: VllmVersion, reserve: int) -> Callable[[int], int]:
    if ver.check_basis == "layers":
        if st.raw_counts:  # the same sum, once per distinct spec
            return lambda n: sum(count * s.max_memory(n, reserve) for s, count in st.raw_counts)
        return lambda n: layer_needed_bytes(list(st.raw_specs), n, reserve)
    groups = list(st.groups)
    return lambda n: needed_bytes(groups, st.bpb, n, reserve)


def check_memory_of(st: Stage, ver: VllmVersion) -> int:
    """What the check may use: the override's blocks from 0.27 (else the profiled pool), less the null block (0.33)."""
    mem = st.available if ver.override_clamps_check else st.raw_available
    return mem - (st.bpb if ver.null_block_check else 0)


def check_stages(stages: list[Stage], length: int, reserve: int, ver: VllmVersion) -> tuple[bool, list[int]]:
    """The startup check on every stage; returns (fits, memory each stage may use for the check)."""
    fits, check = True, []
    for st in stages:
        mem = check_memory_of(st, ver)
        check.append(mem)
        if st.groups and (mem <= 0 or stage_needed(st, ver, reserve)(length) > mem):
            fits = False
    return fits, check


def longest_fit(stages: list[Stage], check: list[int], upper: int, reserve: int, ver: VllmVersion) -> int:
    lengths = [longest_length(stage_needed(st, ver, reserve), mem, upper)
               for st, mem in zip(stages, check, strict=False) if st.groups]
    return min(lengths, default=upper)


@record
class Fit:
    """The length the engine settles on and what the one-request check says about it (engines.md 1.6)."""

    length: int  # max_model_len after auto-fit
    fits: bool
    estimated_len: int  # longest length that fits every stage
    engine_len: int | None = None  # the length vLLM's refusal prints: the first failing stage's (None: none printed)


@record
class Capacity:
    """The scheduler's view of the limiting stage (engines.md 1.7)."""

    num_blocks: int
    per_request: int
    concurrency: float
    tokens: int


def vllm_budget(model: ModelSpec, settings: Mapping[str, Any], gpu: Any, *, version: str | None = None,
                non_kv_bytes: int | None = None, gpu_memory_bytes: int | None = None,
                weights_bytes: int | None = None) -> Budget:
    inp, steps = prepare(model, settings, gpu, version, non_kv_bytes, gpu_memory_bytes, weights_bytes)
    stages = plan_stages(inp, steps)
    fit = fit_length(inp, stages, steps)
    limiting = min(stages, key=lambda st: st.num_blocks)
    cap = Capacity(limiting.num_blocks, *capacity(list(inp.groups), limiting.num_blocks, fit.length, inp.reserve,
                                                  inp.ver, inp.par.dcp))
    footprint = fixed_pool_footprint(inp, stages, steps)
    if not steps.quiet:
        _log_results(steps, inp, limiting, cap, fit, footprint)
    return assemble(inp, steps, stages, limiting, fit, cap, footprint)


def reserved_terms(settings: Mapping[str, Any], model: ModelSpec, par: Parallel, dtype: str, mnbt: int,
                   steps: Steps) -> tuple[tuple[str, int, str], ...]:
    """What the profile run also measures beside activations: LoRA adapter slots and the multimodal encoder cache."""
    size = 4 if dtype == "float32" else 2
    out = []
    lora = vllm_lora(settings, model, par.tp, size)
    if lora is not None:
        out.append(("LoRA adapters", lora.bytes_per_rank, lora.how))
        if int_setting(settings, "max_cpu_loras") is not None:
            steps.note("--max-cpu-loras sizes the CPU-side adapter cache; GPU memory holds --max-loras slots")
    encoder = vllm_encoder_cache(model, mnbt, size)
    if encoder is not None:
        out.append(("encoder cache", encoder[0], encoder[1]))
    return tuple(out)


def prepare(model: ModelSpec, settings: Mapping[str, Any], gpu: Any, version: str | None, non_kv_bytes: int | None,
            gpu_memory_bytes: int | None, weights_bytes: int | None) -> tuple[Inputs, Steps]:
    """Every input the planner needs, resolved the way the engine resolves it (engines.md 1.1)."""
    resolved = vllm_version(version)
    ver = resolved.record
    steps, facts = start_steps(NAME, resolved, gpu, gpu_memory_bytes)
    if steps.quiet and type(settings) is dict:
        settled, mns, mnbt = _settled_quietly(model, settings, ver, facts, steps)
        reserved = settled.reserved_terms(mnbt, lambda: reserved_terms(settings, model, settled.par, settled.dtype,
                                                                       mnbt, steps))
    else:
        settled, mns, mnbt = settle(model, settings, ver, facts, steps)
        reserved = reserved_terms(settings, model, settled.par, settled.dtype, mnbt, steps)
    par, layout = settled.par, settled.layout
    inp = Inputs(model=model, settings=settings, ver=ver, facts=facts, par=par, dtype=settled.dtype, kvd=settled.kvd,
                 length=settled.length, auto=settled.auto, block=layout.block, specs=layout.specs,
                 groups=layout.groups, weights_bytes=weights_bytes, non_kv_bytes=non_kv_bytes, mns=mns, mnbt=mnbt,
                 requested=requested_memory(facts, settled.util, ver),
                 reserve=mnbt if ver.sliding_reservation == "mnbt" else settled.batches * mnbt,
                 cudagraphs=settled.cudagraphs,
                 blackwell=bool(facts.compute_capability and facts.compute_capability[0] == 10),
                 fixed_pool=settled.fixed_pool, override=settled.override, spec=settled.spec, reserved=reserved,
                 layout=layout, settled=settled if steps.quiet and type(settings) is dict else None)
    if not steps.quiet:
        _log_inputs(steps, inp, settled.util)
    return inp, steps


class Settled:
    """What `prepare` resolves from the settings, the release and the card's compute capability, and from nothing
    else of the card (its name and memory: the batch defaults, the requested bytes), in the engine's order.

    A catalogue sweep's quiet budgets (trial cards, bisection points: ~40 a sweep) share one per (model, settings,
    release, compute capability) (`_settled_quietly`), and with it what the card's batch defaults alone change:
    the reserved terms by max_num_batched_tokens and each stage's weights and non-KV by the batch defaults and the
    given figures (`stage_costs`). Only the pool (requested - weights - non-KV) and what follows from it is
    computed per card. A plain class, not a record: every budget makes one (a record's first use builds its class,
    ~0.5 M instructions of a one-file check), and none is compared, hashed or pickled."""

    __slots__ = ("ver", "spec", "par", "dtype", "kvd", "length", "auto", "layout", "batches", "util", "cudagraphs",
                 "fixed_pool", "override", "memo")

    def __init__(self, ver: VllmVersion, spec: Speculative | None, par: Parallel, dtype: str, kvd: KVDtype,
                 length: int, auto: bool, layout: Layout, batches: int, util: float, cudagraphs: bool,
                 fixed_pool: int | None, override: int | None):
        self.ver, self.spec, self.par, self.dtype, self.kvd = ver, spec, par, dtype, kvd
        self.length, self.auto, self.layout = length, auto, layout
        self.batches = batches  # scheduler batches in flight: PP (+1 with async scheduling)
        self.util, self.cudagraphs, self.fixed_pool, self.override = util, cudagraphs, fixed_pool, override
        self.memo: dict[Any, Any] = {}

    def reserved_terms(self, mnbt: int, make: Callable[[], tuple[tuple[str, int, str], ...]]
                       ) -> tuple[tuple[str, int, str], ...]:
        """reserved_terms for these settings at `mnbt` (they read nothing else that a card changes)."""
        return self._memo(("reserved", mnbt), make)

    def stage_costs(self, key: tuple[Any, ...], make: Callable[[], tuple[int, int, bool]]) -> tuple[int, int, bool]:
        """stage_costs for one stage; `key` holds every Inputs field they read that is not fixed here."""
        return self._memo(key, make)

    def _memo(self, key: Any, make: Callable[[], Any]) -> Any:
        found = self.memo.get(key)
        if found is None:
            found = self.memo[key] = make()  # failures raise before anything is stored
        return found


_SETTLED: PerModel[Settled] = PerModel()


def _settled_quietly(model: ModelSpec, settings: dict[str, Any], ver: VllmVersion, facts: GpuFacts,
                     steps: Steps) -> tuple[Settled, int, int]:
    """settle(), memoised for a quiet budget whose settings are a plain dict: reading a dict has no effect (a
    SettingsView records the unresolved names it is asked for, so it is settled afresh every time) and a quiet
    budget keeps no log, so a hit leaves exactly what a fresh call would. A fresh call raises the same refusals
    whatever the card (they read the settings), so a hit, which follows a call that did not raise, raises none.
    The release is keyed by identity: the Settled kept in the entry holds it, so its id is not reused meanwhile."""
    fresh: list[tuple[Settled, int, int]] = []

    def make() -> Settled:
        fresh.append(settle(model, settings, ver, facts, steps))
        return fresh[0][0]

    settled = _SETTLED.get(model, (settings_key(settings), id(ver), facts.compute_capability), make)
    if fresh:
        return fresh[0]
    if settled.ver is not ver:  # defensive: an id reused by another release record after an entry was cleared
        return settle(model, settings, ver, facts, steps)
    steps.items.extend(settled.layout.steps)  # what layout_of's replay adds (a quiet log keeps no note)
    mns, mnbt = batch_defaults(settings, facts, ver, settled.length, model)
    return settled, mns, mnbt


def settle(model: ModelSpec, settings: Mapping[str, Any], ver: VllmVersion, facts: GpuFacts,
           steps: Steps) -> tuple[Settled, int, int]:
    """The card-independent inputs (Settled) and this card's batch defaults, resolved and checked in the engine's
    order, so the first refusal is the one vLLM raises."""
    spec = vllm_speculative(settings, model)
    if spec is not None and not spec.exact:
        steps.note(f"speculative decoding ({spec.method}): {spec.source}")
    par = parallel_of(settings)
    refuse_context_parallel_prefill(settings)
    check_dcp(model, par, ver)
    dtype = resolve_model_dtype(setting(settings, "dtype"), model, facts.compute_capability)
    kvd = sparse_mla_dtype(model, resolve_kv_dtype(setting(settings, "kv_cache_dtype"), model, dtype,
                                                       ver.checkpoint_kv_dtype))
    length, auto = max_model_len(settings, model, ver)
    mns, mnbt = batch_defaults(settings, facts, ver, length, model)
    layout = layout_of(model, settings, par, default_block_size(settings, model, facts, ver, kvd.name), kvd, steps,
                       ver, spec)
    check_dcp_groups(list(layout.groups), par.dcp)
    batches = par.pp + 1 if setting(settings, "async_scheduling", True) is not False else par.pp
    util = float_setting(settings, "gpu_memory_utilization", ver.gpu_memory_utilization)
    if not 0 < util <= 1:
        raise InvalidSettingError(f"gpu_memory_utilization must be in (0, 1], got {util}", "gpu_memory_utilization",
                                  "must be in (0, 1]")
    settled = Settled(ver=ver, spec=spec, par=par, dtype=dtype, kvd=kvd, length=length, auto=auto, layout=layout,
                      batches=batches, util=util,
                      cudagraphs=ver.cudagraph_estimate and not setting(settings, "enforce_eager", False),
                      fixed_pool=int_setting(settings, "kv_cache_memory_bytes"),
                      override=int_setting(settings, "num_gpu_blocks_override"))
    return settled, mns, mnbt


def check_view(inp: Inputs, stages: list[Stage]) -> list[Stage]:
    """The stages as this release's one-request check and auto-fit see them (kv_cache_utils.get_kv_cache_configs).

    0.14-0.18 size a request by the first group's blocks alone (_max_memory_usage_bytes_from_groups takes
    `kv_cache_groups[0]`'s spec: a hybrid model's other groups add nothing; 0.19 sums every group); 0.14 and 0.15 also
    check the whole model's groups once, against the smallest worker's memory, where later releases check each
    worker's own layers. The stages' pools and blocks stay as planned: only the check reads this view."""
    basis, groups = inp.ver.check_basis, inp.groups
    if basis not in ("first_group", "model_first_group") or not groups:
        return stages
    first = groups[:1]
    if basis == "first_group":
        if len(groups) == 1:
            return stages
        return [replace(st, groups=first, layout=None) if st.groups else st for st in stages]
    every = frozenset(inp.specs)
    whole = replace(stages[0], layers=every, bpb=bytes_per_block(list(groups), every), groups=first, layout=None,
                    available=min(st.available for st in stages), raw_available=min(st.raw_available for st in stages))
    return [whole]


def fit_length(inp: Inputs, stages: list[Stage], steps: Steps) -> Fit:
    """max_model_len after auto-fit, whether one request fits, and the longest length that fits (engines.md 1.6)."""
    length, reserve, ver = inp.length, inp.reserve, inp.ver
    stages = check_view(inp, stages)
    fits, check = check_stages(stages, length, reserve, ver)
    derived = derived_len(inp.model, ver)
    if inp.auto:
        fitted = longest_fit(stages, check, derived, reserve, ver)
        if fitted == 0:
            steps.note("Cannot auto-fit max_model_len: not enough GPU memory to serve even a single token")
        elif fitted < derived:
            steps.add("max_model_len (auto-fit)", f"reduced from {derived} to the longest length that fits",
                      fitted, "tokens", estimated=True)
            length = fitted
        fits, check = check_stages(stages, length, reserve, ver)
    return Fit(length, fits, longest_fit(stages, check, length, reserve, ver),
               None if fits else printed_estimate(stages, check, length, reserve, ver))


def printed_estimate(stages: list[Stage], check: list[int], length: int, reserve: int, ver: VllmVersion) -> int | None:
    """The estimate vLLM's refusal prints (kv_cache_planning.get_kv_cache_configs): the workers are checked in rank
    order and the first that fails raises with its own binary search, so with PP 3 or 4 the message quotes the
    first failing stage, which may be longer than what fits every stage. None when that stage has no memory ("No
    available memory for the cache blocks") or not one token fits (the message then gives no length)."""
    for st, mem in zip(stages, check, strict=False):
        if not st.groups:
            continue
        if mem <= 0:
            return None
        needed = stage_needed(st, ver, reserve)
        if needed(length) > mem:
            return longest_length(needed, mem, length) or None
    return None


def assemble(inp: Inputs, steps: Steps, stages: list[Stage], limiting: Stage, fit: Fit, cap: Capacity,
             footprint: FixedPool | None) -> Budget:
    fixed = inp.fixed_pool is not None
    source = ("not-needed" if fixed or inp.override is not None
              else ("user" if inp.non_kv_bytes is not None else "estimated"))
    return Budget(
        engine=NAME, engine_version=inp.ver.version, model=inp.model.model_id, gpu_name=inp.facts.name,
        gpu_memory_bytes=inp.facts.total_bytes, parallel=inp.par,
        kv_bytes_per_token=max(st.kv_bytes_per_token if st.kv_bytes_per_token is not None
                               else sum(inp.specs[k].bytes_per_token for k in st.layers) for st in stages),
        weights_bytes=limiting.weights, non_kv_bytes=limiting.non_kv, non_kv_source=source,
        kv_pool_bytes=max(limiting.available, 0), kv_pool_estimated=source == "estimated",
        max_model_len=fit.length, kv_tokens=cap.tokens, max_concurrency=cap.concurrency,
        fits_one_request=fit.fits, estimated_max_model_len=fit.estimated_len,
        requested_bytes=0 if fixed else inp.requested, kv_cache_dtype=inp.kvd.name, weights_dtype=inp.dtype,
        num_blocks=limiting.num_blocks, block_size=inp.block, max_num_seqs=inp.mns,
        max_num_batched_tokens=inp.mnbt, steps=tuple(steps.items), notes=tuple(steps.notes),
        detail=VllmDetail(kv_groups=len(inp.groups), blocks_per_request=cap.per_request, bytes_per_block=limiting.bpb,
                          padding_layers=padding_layers(list(inp.groups)), fixed_pool=footprint,
                          engine_estimated_len=fit.engine_len),
        **_band(inp.ver, source),
    )


def _band(ver: VllmVersion, source: str) -> dict[str, Any]:
    """The estimate's uncertainty on this release's era (only for an estimated non-KV term)."""
    if source != "estimated":
        return {}
    band = nonkv.pool_band(ver.sampler, ver.cudagraph_estimate)
    logs = f"{band.logs} log{'s' if band.logs != 1 else ''}" if band.logs else "no log"
    return {"pool_band_bytes": band.bytes, "pool_band_era": f"vLLM {band.era}, {logs}"}


def _log_fixed_pool(steps: Steps, inp: Inputs, st: Stage, fp: FixedPool) -> None:
    """A pool given by --kv-cache-memory-bytes: its size is the flag's; what it must share the card with is checked."""
    estimated = inp.non_kv_bytes is None
    steps.add("non-KV", "activation peak + sampler + collectives + CUDA graphs (beside the fixed pool)",
              fp.non_kv_bytes, "B", estimated=estimated)
    steps.add("KV pool", f"--kv-cache-memory-bytes as given = {gib(st.available)} (profiling skipped)",
              st.available, "B")
    over = fp.overcommit_bytes
    steps.add("over-commit" if over > 0 else "headroom",
              f"weights {gib(fp.weights_bytes)} + pool {gib(st.available)} + non-KV "
              f"{gib(fp.non_kv_bytes)} - total {gib(inp.facts.total_bytes)} = {gib(over)}"
              + (" (CUDA out of memory at allocation)" if over > 0 else ""), abs(over), "B", estimated=estimated)


def _log_inputs(steps: Steps, inp: Inputs, util: float) -> None:
    facts, kvd = inp.facts, inp.kvd
    steps.add("total GPU memory", f"{facts.name} as vLLM measures it", facts.total_bytes, "B")
    steps.add("requested", f"ceil(total x gpu_memory_utilization {util})", inp.requested, "B")
    steps.add("max_model_len", "flag, else derived from config.json", inp.length, "tokens")
    steps.add("batch", f"max_num_seqs {inp.mns}, max_num_batched_tokens {inp.mnbt}", inp.mnbt, "tokens")
    steps.add("kv_cache_dtype", f"{kvd.name} ({kvd.source})", kvd.name)
    steps.add("block_size", "tokens per block", inp.block, "tokens")
    pages = list(inp.layout.pages) if inp.layout is not None else sorted({s.page for s in inp.specs.values()})
    steps.add("page per layer", f"kv heads/rank x block x (head_k + head_v) x dtype; distinct: {pages}",
              pages[0] if pages else 0, "B")
    groups = list(inp.groups)
    steps.add("KV cache groups", f"{len(groups)} group(s), {padding_layers(groups)} padding layer(s)", len(groups))


def weights_formula(inp: Inputs) -> str:
    """How the per-rank weights were counted: the parts vLLM's load adds to the checkpoint's parameters."""
    if inp.weights_bytes is not None:
        return "as given"
    backend, par = mxfp4_backend(inp.ver, inp.facts), inp.par
    ep = par.tp * par.dp if par.ep else 1
    return _FORMULAS.get(inp.model, (inp.dtype, backend, par.tp, par.pp, ep),
                         lambda: _weights_formula(inp.model, inp.dtype, backend, par.tp, par.pp, ep))


_FORMULAS: PerModel[str] = PerModel()


def _weights_formula(model: ModelSpec, dtype: str, backend: str, tp: int, pp: int, ep: int) -> str:
    text = "weights model (per rank, this stage)"
    rope = vllm_rope_table(model, dtype)
    if rope:
        text += f" + RoPE cos/sin table {gib(rope)}"
    layout = mxfp4_layout_bytes(model, backend, tp=tp, pp=pp, ep=ep)
    if layout:
        text += f" + mxfp4 {backend} layout {gib(layout)}"
    return text


def _log_results(steps: Steps, inp: Inputs, st: Stage, cap: Capacity, fit: Fit, footprint: FixedPool | None) -> None:
    estimated = inp.non_kv_bytes is None
    unchecked = weights_unchecked_text(inp.model, inp.weights_bytes is not None)
    steps.add("weights per rank", weights_formula(inp) + (f"; {unchecked}" if unchecked else ""), st.weights, "B")
    steps.note(unchecked)
    if footprint:
        _log_fixed_pool(steps, inp, st, footprint)
    elif inp.fixed_pool is not None:
        steps.add("KV pool", f"--kv-cache-memory-bytes as given = {gib(st.available)} (profiling skipped)",
                  st.available, "B")
    else:
        steps.add("non-KV", "activation peak + sampler + collectives + CUDA graphs", st.non_kv, "B",
                  estimated=estimated)
        steps.add("KV pool", f"requested - weights - non-KV = {gib(st.available)}", st.available, "B",
                  estimated=estimated)
    steps.add("bytes per block", "max over groups of the summed pages of its layers", st.bpb, "B")
    steps.add("num_blocks", "pool // bytes per block (incl. the null block)", cap.num_blocks, "blocks")
    steps.add("blocks per request", f"sum over groups of cdiv(max usage at {fit.length} tokens, page)",
              cap.per_request, "blocks")
    steps.add("max_concurrency", "num_blocks / blocks per request", round(cap.concurrency, 4), "x")
    steps.add("GPU KV cache size", "int(max_concurrency x max_model_len) (<=0.20: blocks // groups x block)",
              cap.tokens, "tokens")
    steps.add("fits one request", "needed <= pool - one block (null block)", "yes" if fit.fits else "no")
    steps.add("estimated max model len", "binary search on the one-request check", fit.estimated_len, "tokens")
    if fit.engine_len is not None and fit.engine_len != fit.estimated_len:
        steps.add("estimated max model len (vLLM's message)", "the first pipeline stage that fails, as vLLM prints it; "
                  f"{fit.estimated_len} fits every stage", fit.engine_len, "tokens")


def budget(model: ModelSpec, settings: Mapping[str, Any], gpu: Any, *, version: str | None = None,
           non_kv_bytes: int | None = None, gpu_memory_bytes: int | None = None,
           weights_bytes: int | None = None) -> Budget:
    """The memory model under the name every engine's memory.py gives it (kvlint.memory.compute_budget and the
    engine record call it): an architecture kvlint does not model is refused before anything is sized."""
    refuse_unmodelled(model.architecture)
    return vllm_budget(model, settings, gpu, version=version, non_kv_bytes=non_kv_bytes,
                       gpu_memory_bytes=gpu_memory_bytes, weights_bytes=weights_bytes)
