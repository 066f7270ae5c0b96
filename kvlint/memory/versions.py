"""Per-release behaviour of each engine's memory model (engines.md section 8).

The arithmetic changes between releases (default utilization, how the token count is logged, whether
the null block is reserved in checks...), so the constants live in kvlint/data/engine_versions.json and
a user pins a release with `version=`. A release kvlint has not read maps to the closest documented one
at or below it (behaviour persists until the next documented change), with a note saying so.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from kvlint.data import load_json
from kvlint.errors import KvlintError
from kvlint.lazyre import lazy
from kvlint.record import record


@record
class VllmVersion:
    version: str
    gpu_memory_utilization: float
    requested: str  # "float" (through 0.13: total*util, gpu_worker.py init_device) | "ceil" (0.14+ request_memory)
    cudagraph_estimate: bool  # CUDA-graph memory estimate subtracted from the pool
    tokens_formula: str  # "blocks" (<=0.20: num_blocks // groups * block) | "concurrency" (0.21+)
    null_block_check: bool  # checks and auto-fit use avail - one block (0.33)
    large_gpu_tier: bool  # >= 160 GiB batch-default tier (0.30+)
    sliding_reservation: str  # "mnbt" (sw-1+mnbt) | "in_flight" (sw-1+extra+in-flight tokens)
    chunked_disables_hma: bool  # Llama-4 chunked local attention turns the hybrid manager off: only while
    # VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE defaulted to 0 (envs.py: 0 through 0.13, 1 from 0.14)
    override_clamps_check: bool  # num_gpu_blocks_override also bounds the check and auto-fit (0.27+; before,
    # only num_blocks took the override and the check used the profiled pool)
    check_basis: str  # one request's need in the start-up check and auto-fit (v1/core/kv_cache_utils.py): "layers"
    # (through 0.13: sum of per-layer needs on each worker's raw specs), "model_first_group" (0.14, 0.15: the whole
    # model's groups, group size x page x the FIRST group's blocks, against the smallest worker's memory),
    # "first_group" (0.17, 0.18: the same per worker), "groups" (0.19+: per worker, the blocks of every group)
    mla_block_rule: str  # MLA block size: "forced_exact" (0.11: FlashMLA 64 on SM90, CUTLASS 128 on SM100, over
    # --block-size), "forced_multiple_cutlass" (0.12-0.14 platforms/cuda.py: a --block-size that is not the backend's
    # multiple is replaced; CUTLASS MLA, 128, on every Blackwell), "forced_multiple" (0.15-0.17 read: the same,
    # with FlashInfer MLA, 32 or a multiple of 64, on Blackwell when qk_nope_head_dim is 128), "backend" (0.18+: no
    # forcing left in platforms/cuda.py; the first backend that takes the KV dtype; --block-size wins)
    hybrid_prefix_caching: bool  # prefix caching defaults on for generative hybrid (Mamba) models (0.33; opt-in
    # before: "Hybrid models support prefix caching but keep it opt-in" in 0.27's arg_utils)
    allreduce_fusion: bool  # 0.17+: -O2/-O3 turn on the all-reduce + RMSNorm fusion pass when TP > 1 on SM 9.0 /
    # SM 10.x with FlashInfer, DP == PP == 1 (config/vllm.py enable_allreduce_rms_fusion); the pass is built when
    # the profile run compiles the model, creating its IPC workspace and the TP device group's NCCL communicator
    # (flashinfer create_shared_buffer: cudaMalloc + all_gather_object + barrier), so both land in the profiled
    # non-torch memory. Off in 0.16 (fuse_allreduce_rms False at every level).
    sampler: str  # what the profile run's dummy sampler (top-k = vocab-1, top-p 0.9 over max_num_seqs rows) runs:
    # "v0" (V0 Sampler: torch sort, driver rank only), "flashinfer" (0.8-0.11: FlashInfer's sampler whenever it is
    # installed, as in the engine's container image; the PyPI wheel lists it as an extra), "torch_sort" (0.12-0.16:
    # FlashInfer opt-in, so apply_top_k_top_p sorts the fp32 logits), "triton" (0.17+: apply_top_k_top_p_triton)
    v0_profile: bool  # V0 engine (< 0.8): max_num_seqs 256, max_num_batched_tokens 2048 with chunked prefill (on by
    # default only above 32K tokens) else max(max_model_len, 2048); no CUDA-graph or collective terms
    mxfp4_hopper: str  # mxfp4 MoE backend on SM 9.0: "marlin" (0.10.1 needs torch >= 2.8 for triton_kernels, ships
    # 2.7.1) or "triton" (0.10.2+)
    mamba_checkpoint_blocks: int  # prefill checkpoint blocks a Mamba state holds in align mode (0.33: 1)
    dcp_check: str  # GQA/MQA with DCP: "lse" (0.11: only MLA backends return the softmax lse), "assert"
    # (0.12-0.2x: config/model.py verify_with_parallel_config asserts; FlashAttention and FlashInfer return the
    # lse), "value_error" (0.27+: the same rules as ValueError)
    longrope_original_default: bool = True  # an unset max_model_len of a LongRoPE model is the config's
    # original_max_position_embeddings (0.12+, config/model.py); 0.11 and before take max_position_embeddings
    unifies_page_sizes: bool = True  # hybrid layers of different page sizes are unified by scaling block sizes
    # (unify_kv_cache_spec_page_size, read in 0.16+); 0.11's get_kv_cache_groups raises NotImplementedError
    batch_tier: str = "memory"  # default batch of `vllm serve` (arg_utils): "memory" (0.9.2+: a card of >= 70 GiB that
    # is not an A100 gets 8192 batched tokens and 1024 sequences, others 2048 and 256) or "h100_name" (0.8.0-0.9.1
    # _set_default_args_v1: 8192 tokens only when the device name holds "h100" or "h200", else 2048, and
    # max_num_seqs 1024 on every card, so the dummy sampler runs 1024 rows on a 4090 too)
    mm_item_batch_floor: bool = False  # 0.22+: with the default batch, a multimodal prefix-LM model whose processor
    # states per-item token ceilings (Gemma-4: get_mm_max_tokens_per_item) raises max_num_batched_tokens to its
    # largest item so one item fits a batch (arg_utils _get_min_mm_batched_tokens; absent in 0.21.0)
    # --kv-cache-dtype auto follows a ModelOpt checkpoint's kv_cache_quant_algo (arg_utils.py calls
    # resolve_kv_cache_dtype_string, vllm#30785, 2025-12-16; read in the 0.14, 0.15, 0.20 and 0.33 wheels); 0.13 and
    # before keep the model dtype (0.11's ModelOptFp8Config stores the algo and never reads it into the cache dtype)
    checkpoint_kv_dtype: bool = True
    # Nemotron-H's Mamba-2 SSM state dtype under --mamba-ssm-cache-dtype auto: "model" (no NemotronHForCausalLMConfig
    # hook in models/config.py: read in the 0.11 and 0.12 wheels), else the config's mamba_ssm_cache_dtype and, when it
    # names none, "float16" (the hook's getattr default in the 0.13-0.15, 0.17, 0.18 and 0.19 wheels) or "float32"
    # (DEFAULT_MAMBA_SSM_CACHE_DTYPE, 0.20+)
    nemotron_h_ssm_dtype: str = "float32"
    group_size_ratio: float = 1.5  # KV cache groups take the largest bucket's layer count when it is below this x
    # the smallest's, else the smallest's (kv_cache_utils._get_kv_cache_groups_uniform_page_size): 1.0, always the
    # smallest (0.10.1 and 0.11.0 wheels), 1.25 (0.12-0.17 wheels), 1.5 (0.18, 0.19, 0.20 wheels)
    released: str = ""  # build date of vllm/_version.py in the release wheel, where read


@record
class SglangVersion:
    version: str
    bands: tuple[tuple[int | None, int, int, int], ...]  # (MiB upper bound, cps, max_bs tp<4, tp>=4)
    unknown_band: tuple[int, int, int]
    prefill_graph_reserve: bool  # 0.5.23: breakable prefill graphs reserve 8 MB per captured size
    fallback_mem_fraction: float
    # --kv-cache-dtype on a sparse-attention (DSA) model: "card" (0.5.12+, read in the 0.5.12 and 0.5.23 wheels: auto
    # is fp8_e4m3 on SM100+, else bfloat16, over the checkpoint's KV scheme) or "blackwell_fp8" (0.5.4 server_args:
    # fp8_e4m3 on SM100+ whatever the flag says, elsewhere the flag or the checkpoint; 0.5.3 and 0.4.9 not read)
    dsa_kv_default: str = "card"
    fixed_reserve: tuple[tuple[int | None, float, float], ...] = ()  # before 0.5.3: (MiB upper bound, GB, GB per
    # TP x PP rank) reserved by memory band, whatever --chunked-prefill-size; empty: the activation formula (0.5.3+)
    released: str = ""  # build date of the release wheel, where read


@record
class Resolved:
    """A version record plus the note explaining any mapping (empty when exact)."""

    record: Any
    note: str = ""


@lru_cache(maxsize=1)
def _table() -> dict[str, Any]:
    return load_json("engine_versions.json")


_VERSION = lazy(r"v?(\d{1,9}(?:\.\d{1,9}){0,5})(?!\d)")  # asked per budget: compiled once


def _key(version: str) -> tuple[int, ...]:
    """'v0.10.1.1+cu128' -> (0, 10, 1, 1); raises KvlintError on text without a number."""
    m = _VERSION.match(version.strip())  # a 5,000-digit "version" is not one
    if not m:
        raise KvlintError(f"engine version {version!r} is not a version number (expected e.g. 0.33.0)")
    return tuple(int(p) for p in m.group(1).split("."))


def documented(engine: str) -> list[str]:
    return sorted(_table()[engine]["versions"], key=_key)


def _pick(engine: str, version: str | None) -> tuple[str, str]:
    table = _table()[engine]
    if version is None:
        return table["default"], ""
    known = documented(engine)
    want = _padded(_key(version))
    below = [v for v in known if _padded(_key(v)) <= want]
    chosen = below[-1] if below else known[0]
    if _padded(_key(chosen)) == want:
        return chosen, ""
    return chosen, f"{engine} {version} is not in kvlint's release table; modelled as {chosen}"


def _padded(key: tuple[int, ...]) -> tuple[int, ...]:
    return (key + (0, 0, 0))[:3] + key[3:]


@lru_cache(maxsize=256)
def vllm_version(version: str | None = None) -> Resolved:
    """The record for a release (memoised: every budget asks, and the records are frozen)."""
    name, note = _pick("vllm", version)
    data = _table()["vllm"]["versions"][name]
    return Resolved(VllmVersion(version=name, **data), note)


@lru_cache(maxsize=256)
def sglang_version(version: str | None = None) -> Resolved:
    """The record for a release (memoised like vllm_version)."""
    name, note = _pick("sglang", version)
    data = dict(_table()["sglang"]["versions"][name])
    data["bands"] = tuple(tuple(b) for b in data["bands"])
    data["unknown_band"] = tuple(data["unknown_band"])
    data["fixed_reserve"] = tuple(tuple(b) for b in data.get("fixed_reserve", ()))
    return Resolved(SglangVersion(version=name, **data), note)


def vllm_release_on(date: str) -> str | None:
    """The newest documented vLLM release whose wheel was built on or before `date` (YYYY-MM-DD): the release a log
    that names no version most likely ran, when only its date is known; None before the first dated release."""
    return release_on("vllm", date)


def release_on(engine: str, date: str) -> str | None:
    """The newest documented release of `engine` built on or before `date` (YYYY-MM-DD); None before the first."""
    before = [name for released, name in _dated(engine) if released <= date]
    return before[-1] if before else None


def releases_around(engine: str, date: str) -> tuple[str, ...]:
    """The documented releases a build of `date` (a nightly or date-tagged image) could behave as: the newest
    release on or before the date and the next one after it (a development build sits between them); before the
    first dated release, the first (the nearest modelled)."""
    dated = _dated(engine)
    if not dated:
        return ()
    before = [name for released, name in dated if released <= date]
    after = [name for released, name in dated if released > date]
    return tuple(before[-1:] + after[:1]) if before else (after[0],)


def _dated(engine: str) -> list[tuple[str, str]]:
    return sorted((str(rec["released"]), name) for name, rec in _table()[engine]["versions"].items()
                  if rec.get("released"))
