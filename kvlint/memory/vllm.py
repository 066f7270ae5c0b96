"""vLLM's KV-cache sizing, from (model, GPU, canonical settings) to the numbers its startup log prints.

Order follows the engine (engines.md 1.1-1.7): resolve dtypes, lengths and batch defaults; build one
spec per layer on each pipeline stage; group them; take the memory left after weights and non-KV;
divide into blocks; check one request fits; derive the logged token count and concurrency. Only the
non-KV term is an estimate (kvlint.memory.nonkv); everything else is the engine's own arithmetic.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from kvlint.budget import Budget, Parallel
from kvlint.errors import InvalidSettingError, KvlintError
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
)
from kvlint.memory.versions import VllmVersion, vllm_version
from kvlint.memory.vllm_planning import (
    Group,
    bytes_per_block,
    estimate_max_len,
    kv_groups,
    layers_of_stage,
    needed_bytes,
    padding_layers,
    worker_groups,
)
from kvlint.memory.vllm_specs import KVDtype, cdiv, indexer_specs, layer_specs, resolve_kv_dtype
from kvlint.models.spec import CHUNKED, MAMBA, MLA, ModelSpec


@dataclass(frozen=True)
class Stage:
    """One pipeline stage (its TP ranks are identical): layers, memory terms, and block accounting."""

    layers: frozenset
    weights: int
    non_kv: int
    available: int
    bpb: int
    groups: tuple[Group, ...]

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


def max_model_len(settings: Mapping[str, Any], model: ModelSpec) -> tuple[int, bool]:
    """(length, auto-fit requested). -1 / 'auto' starts from the derived length and may shrink it."""
    value = setting(settings, "max_model_len")
    if value is None:
        return model.max_len_vllm, False
    if str(value).strip().lower() in ("-1", "auto"):
        return model.max_len_vllm, True
    length = int_setting(settings, "max_model_len")
    if length < 1:
        raise InvalidSettingError(f"max_model_len must be positive, got {length}", "max_model_len",
                                  "must be a positive length, auto or -1")
    return length, False


def batch_defaults(settings: Mapping[str, Any], facts: GpuFacts, ver: VllmVersion, length: int) -> tuple[int, int]:
    """(max_num_seqs, max_num_batched_tokens) as `vllm serve` resolves them (engines.md 1.1 table)."""
    if ver.large_gpu_tier and facts.total_bytes >= 160 * GIB:
        mnbt, mns = 16384, 1024
    elif facts.total_bytes >= 70 * GIB and "a100" not in facts.name.lower() and facts.compute_capability != (12, 1):
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
        mnbt = min(mns * length, mnbt)
    if user_mns is None:
        mns = min(mns, mnbt)
    return mns, mnbt


def default_block_size(settings: Mapping[str, Any], model: ModelSpec, facts: GpuFacts) -> int:
    """16, except MLA on Blackwell (FlashInfer-MLA prefers 32); a user --block-size wins."""
    user = int_setting(settings, "block_size")
    if user is not None:
        if user < 1:
            raise InvalidSettingError(f"block_size must be positive, got {user}", "block_size", "must be positive")
        return user
    if model.is_mla and model.mla.index_topk:
        return 64  # sparse MLA (DeepSeek-V3.2): FLASHMLA_SPARSE kernels take multiples of 64
    if model.is_mla and facts.compute_capability and facts.compute_capability[0] == 10:
        return 32
    return 16


def sparse_mla_dtype(model: ModelSpec, kvd: KVDtype) -> KVDtype:
    """Sparse MLA stores any fp8 cache as fp8_ds_mla (656 B per token: fp8 latent + scales + bf16 rope)."""
    if model.is_mla and model.mla.index_topk and kvd.name.startswith("fp8") and kvd.name != "fp8_ds_mla":
        return KVDtype("fp8_ds_mla", 1, f"{kvd.name} canonicalized by the sparse MLA backend")
    return kvd


def hybrid_manager(settings: Mapping[str, Any], model: ModelSpec, ver: VllmVersion, steps: Steps) -> bool:
    if setting(settings, "disable_hybrid_kv_cache_manager", False):
        return False
    if ver.chunked_disables_hma and any(layer.kind == CHUNKED for layer in model.layers):
        steps.note("chunked local attention (Llama-4) disables vLLM's hybrid KV cache manager: chunked layers "
                   "are allocated as full attention")
        return False
    return True


def align_mamba(specs: dict, block_size: int) -> tuple[dict, int]:
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


def build_specs(model: ModelSpec, settings: Mapping[str, Any], par: Parallel, block: int, kvd, steps: Steps):
    specs = layer_specs(model, tp=par.tp, dcp=par.dcp, block_size=block, dtype=kvd)
    specs.update(indexer_specs(model, block_size=block))
    if any(s.kind == MAMBA for s in specs.values()):
        if setting(settings, "enable_prefix_caching", False):
            specs = {k: replace(s, mamba_blocks=2) if s.kind == MAMBA else s for k, s in specs.items()}
        specs, aligned = align_mamba(specs, block)
        if aligned != block:
            steps.add("attention block size", "raised so one attention page >= one Mamba state page", aligned, "tokens")
            block = aligned
    return specs, block


def stage_weights(model, settings, par: Parallel, rank: int, dtype: str, weights_bytes: int | None) -> int:
    if weights_bytes is not None:
        return int(weights_bytes)
    ep = par.tp * par.dp if par.ep else 1
    return model_weights(model, tp=par.tp, pp=par.pp, pp_rank=rank if par.pp > 1 else None, ep=ep, dtype=dtype,
                         quantization=setting(settings, "quantization"))


def stage_memory(ctx: dict, rank: int, layers: frozenset) -> tuple[int, int, int]:
    """(weights, non-KV, available KV bytes) on one stage; kv_cache_memory_bytes replaces the subtraction."""
    settings = ctx["settings"]
    fixed = int_setting(settings, "kv_cache_memory_bytes")
    try:
        weights = stage_weights(ctx["model"], settings, ctx["par"], rank, ctx["dtype"], ctx["weights_bytes"])
    except KvlintError:
        if fixed is None:
            raise
        weights, ctx["weights_unknown"] = 0, True
    offload = int((float_setting(settings, "cpu_offload_gb", 0.0) or 0.0) * GIB)
    weights = max(weights - offload, 0)
    if fixed is not None:
        return weights, 0, fixed
    other = stage_non_kv(ctx, rank, layers)
    return weights, other, ctx["requested"] - weights - other


def stage_non_kv(ctx: dict, rank: int, layers: frozenset) -> int:
    """The working set beside weights and pool on one stage: the given figure, else the estimate (logged once)."""
    if ctx["non_kv_bytes"] is not None:
        return int(ctx["non_kv_bytes"])
    est = nonkv.vllm_non_kv(ctx["model"], max_num_seqs=ctx["mns"], max_num_batched_tokens=ctx["mnbt"],
                            tp=ctx["par"].tp, pp=ctx["par"].pp,
                            layers_on_rank=len({k[0] for k in layers}) or ctx["model"].num_layers,
                            cudagraphs=ctx["cudagraphs"], blackwell=ctx["blackwell"])
    if rank == 0:
        for name, value, how in est.parts:
            ctx["steps"].add(f"non-KV: {name}", how, value, "B", estimated=True)
    return est.total


def fixed_pool_footprint(ctx: dict, stages: list[Stage]) -> dict[str, Any]:
    """With --kv-cache-memory-bytes vLLM skips profiling, yet the pool is still allocated beside the weights and
    the working set (activations, CUDA graphs): past the card's total that is a CUDA OOM at allocation."""
    fixed = int_setting(ctx["settings"], "kv_cache_memory_bytes")
    if fixed is None or ctx.get("weights_unknown"):
        return {}
    worst = max(((st.weights, stage_non_kv(ctx, rank, st.layers)) for rank, st in enumerate(stages)), key=sum)
    over = worst[0] + fixed + worst[1] - ctx["facts"].total_bytes
    if over > 0:
        g = lambda n: f"{n / GIB:.2f} GiB"  # noqa: E731 - a note reads better at two decimals
        ctx["steps"].note(f"the fixed KV pool ({g(fixed)}) does not fit beside weights {g(worst[0])} and non-KV "
                          f"{g(worst[1])} on {g(ctx['facts'].total_bytes)}: over by {g(over)}; vLLM fails "
                          f"with CUDA out of memory when it allocates the pool")
    return {"kv_pool_fixed": True, "fixed_pool_weights_bytes": worst[0], "fixed_pool_non_kv_bytes": worst[1],
            "fixed_pool_overcommit_bytes": over, "fixed_pool_estimated": ctx["non_kv_bytes"] is None}


def requested_memory(facts: GpuFacts, util: float, ver: VllmVersion) -> int:
    return int(facts.total_bytes * util) if ver.requested == "float" else ceil_mul(facts.total_bytes, util)


def plan_stages(ctx: dict, specs: dict, groups: list[Group]) -> list[Stage]:
    model, par = ctx["model"], ctx["par"]
    override = int_setting(ctx["settings"], "num_gpu_blocks_override")
    stages = []
    for rank in range(par.pp):
        idx = set(layers_of_stage(model.num_layers, par.pp, rank))
        layers = frozenset(k for k in specs if k[0] in idx)
        weights, other, avail = stage_memory(ctx, rank, layers)
        bpb = bytes_per_block(groups, layers)
        if override is not None:
            avail = override * bpb
        stages.append(Stage(layers, weights, other, avail, bpb, tuple(worker_groups(groups, layers))))
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


def check_stages(stages: list[Stage], length: int, reserve: int, null_block: bool) -> tuple[bool, list[int]]:
    """The startup check on every stage; returns (fits, memory each stage may use for the check)."""
    fits, check = True, []
    for st in stages:
        mem = st.available - (st.bpb if null_block else 0)
        check.append(mem)
        if st.groups and (mem <= 0 or needed_bytes(list(st.groups), st.bpb, length, reserve) > mem):
            fits = False
    return fits, check


def longest_fit(stages: list[Stage], check: list[int], upper: int, reserve: int) -> int:
    lengths = [estimate_max_len(list(st.groups), st.bpb, mem, upper, reserve)
               for st, mem in zip(stages, check, strict=False) if st.groups]
    return min(lengths, default=upper)


def vllm_budget(model: ModelSpec, settings: Mapping[str, Any], gpu: Any, *, version: str | None = None,
                non_kv_bytes: int | None = None, gpu_memory_bytes: int | None = None,
                weights_bytes: int | None = None) -> Budget:
    ctx = prepare(model, settings, gpu, version, non_kv_bytes, gpu_memory_bytes, weights_bytes)
    stages = plan_stages(ctx, ctx["specs"], ctx["groups"])
    length, fits, estimated_len = fit_length(ctx, stages)
    limiting = min(stages, key=lambda st: st.num_blocks)
    per_request, concurrency, tokens = capacity(ctx["groups"], limiting.num_blocks, length, ctx["reserve"],
                                                ctx["ver"], ctx["par"].dcp)
    footprint = fixed_pool_footprint(ctx, stages)
    _log_results(ctx["steps"], ctx, limiting, limiting.num_blocks, per_request, concurrency, tokens, length,
                 estimated_len, fits, footprint)
    return assemble(ctx, stages, limiting, length=length, fits=fits, estimated_len=estimated_len,
                    per_request=per_request, concurrency=concurrency, tokens=tokens, footprint=footprint)


def prepare(model, settings, gpu, version, non_kv_bytes, gpu_memory_bytes, weights_bytes) -> dict[str, Any]:
    """Every input the planner needs, resolved the way the engine resolves it (engines.md 1.1)."""
    resolved = vllm_version(version)
    ver = resolved.record
    steps, facts = start_steps("vllm", resolved, gpu, gpu_memory_bytes)
    if setting(settings, "speculative_config"):
        steps.note("speculative decoding: draft-model layers and graph sizes are not modelled")
    par = parallel_of(settings)
    dtype = resolve_model_dtype(setting(settings, "dtype"), model, facts.compute_capability)
    kvd = sparse_mla_dtype(model, resolve_kv_dtype(setting(settings, "kv_cache_dtype"), model, dtype))
    length, auto = max_model_len(settings, model)
    mns, mnbt = batch_defaults(settings, facts, ver, length)
    specs, block = build_specs(model, settings, par, default_block_size(settings, model, facts), kvd, steps)
    groups = kv_groups(specs, hybrid_manager=hybrid_manager(settings, model, ver, steps))
    batches = par.pp + 1 if setting(settings, "async_scheduling", True) is not False else par.pp
    util = float_setting(settings, "gpu_memory_utilization", ver.gpu_memory_utilization)
    if not 0 < util <= 1:
        raise InvalidSettingError(f"gpu_memory_utilization must be in (0, 1], got {util}", "gpu_memory_utilization",
                                  "must be in (0, 1]")
    ctx = dict(model=model, settings=settings, steps=steps, ver=ver, facts=facts, par=par, dtype=dtype, kvd=kvd,
               length=length, auto=auto, block=block, specs=specs, groups=groups, weights_bytes=weights_bytes,
               non_kv_bytes=non_kv_bytes, mns=mns, mnbt=mnbt, requested=requested_memory(facts, util, ver),
               reserve=mnbt if ver.sliding_reservation == "mnbt" else batches * mnbt,
               cudagraphs=ver.cudagraph_estimate and not setting(settings, "enforce_eager", False),
               blackwell=bool(facts.compute_capability and facts.compute_capability[0] == 10))
    _log_inputs(steps, facts, util, ctx, kvd, block, mns, mnbt, length, groups, specs)
    return ctx


def fit_length(ctx: dict[str, Any], stages: list[Stage]) -> tuple[int, bool, int]:
    """(max_model_len after auto-fit, one request fits, longest length that fits) (engines.md 1.6)."""
    length, reserve, null_block = ctx["length"], ctx["reserve"], ctx["ver"].null_block_check
    fits, check = check_stages(stages, length, reserve, null_block)
    derived = ctx["model"].max_len_vllm
    if ctx["auto"]:
        fitted = longest_fit(stages, check, derived, reserve)
        if fitted == 0:
            ctx["steps"].note("Cannot auto-fit max_model_len: not enough GPU memory to serve even a single token")
        elif fitted < derived:
            ctx["steps"].add("max_model_len (auto-fit)", f"reduced from {derived} to the longest length that fits",
                             fitted, "tokens", estimated=True)
            length = fitted
        fits, check = check_stages(stages, length, reserve, null_block)
    return length, fits, longest_fit(stages, check, length, reserve)


def assemble(ctx: dict[str, Any], stages: list[Stage], limiting: Stage, **numbers: Any) -> Budget:
    settings, specs, groups = ctx["settings"], ctx["specs"], ctx["groups"]
    fixed = int_setting(settings, "kv_cache_memory_bytes") is not None
    override = int_setting(settings, "num_gpu_blocks_override") is not None
    source = "not-needed" if fixed or override else ("user" if ctx["non_kv_bytes"] is not None else "estimated")
    return Budget(
        engine="vllm", engine_version=ctx["ver"].version, model=ctx["model"].model_id, gpu_name=ctx["facts"].name,
        gpu_memory_bytes=ctx["facts"].total_bytes, parallel=ctx["par"],
        kv_bytes_per_token=max(sum(specs[k].bytes_per_token for k in st.layers) for st in stages),
        weights_bytes=limiting.weights, non_kv_bytes=limiting.non_kv, non_kv_source=source,
        kv_pool_bytes=max(limiting.available, 0), kv_pool_estimated=source == "estimated",
        max_model_len=numbers["length"], kv_tokens=numbers["tokens"], max_concurrency=numbers["concurrency"],
        fits_one_request=numbers["fits"], estimated_max_model_len=numbers["estimated_len"],
        requested_bytes=0 if fixed else ctx["requested"], kv_cache_dtype=ctx["kvd"].name, weights_dtype=ctx["dtype"],
        num_blocks=limiting.num_blocks, block_size=ctx["block"], max_num_seqs=ctx["mns"],
        max_num_batched_tokens=ctx["mnbt"], steps=tuple(ctx["steps"].items), notes=tuple(ctx["steps"].notes),
        extra={"kv_groups": len(groups), "blocks_per_request": numbers["per_request"],
               "bytes_per_block": limiting.bpb, "padding_layers": padding_layers(groups), **numbers["footprint"]},
    )


def _log_fixed_pool(steps: Steps, ctx, st: Stage, fp: dict[str, Any]) -> None:
    """A pool given by --kv-cache-memory-bytes: its size is the flag's; what it must share the card with is checked."""
    estimated = ctx["non_kv_bytes"] is None
    steps.add("non-KV", "activation peak + sampler + collectives + CUDA graphs (beside the fixed pool)",
              fp["fixed_pool_non_kv_bytes"], "B", estimated=estimated)
    steps.add("KV pool", f"--kv-cache-memory-bytes as given = {gib(st.available)} (profiling skipped)",
              st.available, "B")
    over = fp["fixed_pool_overcommit_bytes"]
    steps.add("over-commit" if over > 0 else "headroom",
              f"weights {gib(fp['fixed_pool_weights_bytes'])} + pool {gib(st.available)} + non-KV "
              f"{gib(fp['fixed_pool_non_kv_bytes'])} - total {gib(ctx['facts'].total_bytes)} = {gib(over)}"
              + (" (CUDA out of memory at allocation)" if over > 0 else ""), abs(over), "B", estimated=estimated)


def _log_inputs(steps: Steps, facts, util, ctx, kvd, block, mns, mnbt, length, groups, specs) -> None:
    steps.add("total GPU memory", f"{facts.name} as vLLM measures it", facts.total_bytes, "B")
    steps.add("requested", f"ceil(total x gpu_memory_utilization {util})", ctx["requested"], "B")
    steps.add("max_model_len", "flag, else derived from config.json", length, "tokens")
    steps.add("batch", f"max_num_seqs {mns}, max_num_batched_tokens {mnbt}", mnbt, "tokens")
    steps.add("kv_cache_dtype", f"{kvd.name} ({kvd.source})", kvd.name)
    steps.add("block_size", "tokens per block", block, "tokens")
    pages = sorted({s.page for s in specs.values()})
    steps.add("page per layer", f"kv heads/rank x block x (head_k + head_v) x dtype; distinct: {pages}",
              pages[0] if pages else 0, "B")
    steps.add("KV cache groups", f"{len(groups)} group(s), {padding_layers(groups)} padding layer(s)", len(groups))


def _log_results(steps: Steps, ctx, st: Stage, num_blocks, per_request, concurrency, tokens, length, est, fits,
                 footprint: dict[str, Any]):
    steps.add("weights per rank", "weights model (per rank, this stage)", st.weights, "B")
    if footprint:
        _log_fixed_pool(steps, ctx, st, footprint)
    elif int_setting(ctx["settings"], "kv_cache_memory_bytes") is not None:
        steps.add("KV pool", f"--kv-cache-memory-bytes as given = {gib(st.available)} (profiling skipped)",
                  st.available, "B")
    else:
        steps.add("non-KV", "activation peak + sampler + collectives + CUDA graphs", st.non_kv, "B",
                  estimated=ctx["non_kv_bytes"] is None)
        steps.add("KV pool", f"requested - weights - non-KV = {gib(st.available)}", st.available, "B",
                  estimated=ctx["non_kv_bytes"] is None)
    steps.add("bytes per block", "max over groups of the summed pages of its layers", st.bpb, "B")
    steps.add("num_blocks", "pool // bytes per block (incl. the null block)", num_blocks, "blocks")
    steps.add("blocks per request", f"sum over groups of cdiv(max usage at {length} tokens, page)", per_request,
              "blocks")
    steps.add("max_concurrency", "num_blocks / blocks per request", round(concurrency, 4), "x")
    steps.add("GPU KV cache size", "int(max_concurrency x max_model_len) (<=0.20: blocks // groups x block)",
              tokens, "tokens")
    steps.add("fits one request", "needed <= pool - one block (null block)", "yes" if fits else "no")
    steps.add("estimated max model len", "binary search on the one-request check", est, "tokens")
