"""The memory picture of one engine instance: what an engine would compute at startup.

Engines' memory models (kvlint/engines/<name>/memory.py) produce a Budget; rules, `kvlint budget`, `verify` and `plan`
only read it. Every number carries its derivation in `steps`, so `kvlint budget` can show how each
figure was reached.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from kvlint.record import asdict, record

if TYPE_CHECKING:  # the record only; budget.py sits below calibration in the import graph
    from kvlint.calibration.entry import Calibration


@record
class Step:
    """One line of the derivation: a named quantity, how it was computed, and its value."""

    name: str
    formula: str
    value: float | int | str
    unit: str = ""  # "B", "GiB", "tokens", "blocks", ""
    estimated: bool = False


@record
class Parallel:
    tp: int = 1
    pp: int = 1
    dp: int = 1
    dcp: int = 1
    ep: bool = False
    attn_dp: int = 1  # SGLang DP attention: attention replicas inside one TP group (vLLM: 1)

    @property
    def gpus(self) -> int:
        return self.tp * self.pp * self.dp

    @property
    def attention_tp(self) -> int:
        """Ranks one attention replica spans (SGLang: tp_size // attn_dp_size); they share one copy of an MLA latent."""
        return self.tp // self.attn_dp if self.attn_dp > 1 else self.tp


@record
class FixedPool:
    """vLLM with --kv-cache-memory-bytes: the pool is demanded outright, beside the worst stage's weights and
    working set. `overcommit_bytes` > 0 is a CUDA out-of-memory at allocation (KV107)."""

    weights_bytes: int
    non_kv_bytes: int
    overcommit_bytes: int  # weights + pool + non-KV - total GPU memory (negative: headroom)
    estimated: bool  # the non-KV term is kvlint's estimate

    def to_json(self) -> dict[str, Any]:
        return {"kv_pool_fixed": True, "fixed_pool_weights_bytes": self.weights_bytes,
                "fixed_pool_non_kv_bytes": self.non_kv_bytes, "fixed_pool_overcommit_bytes": self.overcommit_bytes,
                "fixed_pool_estimated": self.estimated}


class EngineDetail(Protocol):
    """An engine's own figures beside the Budget's common ones, made by its memory model: what the Budget and
    the reports ask of them (VllmDetail and SglangDetail below; a new engine's record may live in its folder)."""

    @property
    def fixed_pool(self) -> FixedPool | None: ...  # a pool of fixed bytes (vLLM's --kv-cache-memory-bytes)

    @property
    def request_bytes(self) -> int | None: ...  # bytes the engine's one-request check counts

    @property
    def reserve_bytes(self) -> int | None: ...  # memory set aside outside the engine's share (SGLang's)

    @property
    def block_view(self) -> bool: ...  # the Budget shows blocks (vLLM), not a memory fraction (SGLang)

    def to_json(self) -> dict[str, Any]: ...


@record
class VllmDetail:
    """vLLM's planner figures beside the Budget's common ones (engines.md 1.4-1.7)."""

    kv_groups: int
    blocks_per_request: int  # sum over groups of the blocks one max-length request holds
    bytes_per_block: int  # max over groups of the summed pages of the limiting stage
    padding_layers: int  # vLLM's "Add %d padding layers" warning
    fixed_pool: FixedPool | None = None  # only with --kv-cache-memory-bytes and known weights
    # The length vLLM's refusal prints ("the estimated maximum model length is N"): the first pipeline stage that
    # fails, in rank order; with PP 3 or 4 it can exceed Budget.estimated_max_model_len, what fits every stage.
    engine_estimated_len: int | None = None

    @property
    def request_bytes(self) -> int:
        """Bytes vLLM's one-request check counts: blocks per request x bytes per block."""
        return self.blocks_per_request * self.bytes_per_block

    @property
    def reserve_bytes(self) -> int | None:
        return None  # what gpu_memory_utilization leaves is the headroom, no reserve of its own

    @property
    def block_view(self) -> bool:
        return True

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kv_groups": self.kv_groups, "blocks_per_request": self.blocks_per_request,
                               "bytes_per_block": self.bytes_per_block, "padding_layers": self.padding_layers}
        if self.engine_estimated_len is not None:
            out["engine_estimated_max_model_len"] = self.engine_estimated_len
        return out | (self.fixed_pool.to_json() if self.fixed_pool else {})


@record
class SglangDetail:
    """SGLang's pool figures beside the Budget's common ones (engines.md 3.3)."""

    page_size: int
    k_size_gb: float  # what "KV Cache is allocated ... K size" logs (MLA: the one KV buffer)
    v_size_gb: float
    cuda_graph_max_bs: int
    reserve_bytes: int  # pre-load x (1 - mem_fraction_static): activations and CUDA graphs

    @property
    def fixed_pool(self) -> FixedPool | None:
        return None

    @property
    def request_bytes(self) -> int | None:
        return None  # a token pool: no block check

    @property
    def block_view(self) -> bool:
        return False

    def to_json(self) -> dict[str, Any]:
        return {"page_size": self.page_size, "k_size_gb": self.k_size_gb, "v_size_gb": self.v_size_gb,
                "cuda_graph_max_bs": self.cuda_graph_max_bs, "reserve_bytes": self.reserve_bytes}


@record
class Calibrated:
    """The calibration entry that supplied the non-KV term, and whether its engine version matched exactly."""

    entry: Calibration
    exact_version: bool

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self.entry), "exact_version": self.exact_version}


@record
class Budget:
    engine: str  # "vllm" | "sglang"
    engine_version: str
    model: str
    gpu_name: str
    gpu_memory_bytes: int  # total the engine sees (vLLM: cudaMemGetInfo; SGLang: nvidia-smi MiB)
    parallel: Parallel
    kv_bytes_per_token: int  # one token, one rank, all its layers
    weights_bytes: int  # per rank
    non_kv_bytes: int  # per rank: activations + CUDA graphs + non-torch
    non_kv_source: str  # "estimated" | "calibrated" | "user" | "not-needed" (pool given)
    kv_pool_bytes: int  # per rank
    kv_pool_estimated: bool
    max_model_len: int
    kv_tokens: int  # what the engine logs (vLLM "GPU KV cache size", SGLang max_total_num_tokens)
    max_concurrency: float  # full-length requests the pool holds, as vLLM logs it
    fits_one_request: bool
    estimated_max_model_len: int | None
    requested_bytes: int = 0  # vLLM: ceil(total * util); SGLang: total * mem_fraction_static
    kv_cache_dtype: str = "auto"
    weights_dtype: str = ""
    num_blocks: int | None = None  # vLLM
    block_size: int | None = None  # vLLM
    mem_fraction_static: float | None = None  # SGLang
    max_num_seqs: int | None = None  # vLLM max_num_seqs / SGLang max_running_requests
    max_num_batched_tokens: int | None = None
    steps: tuple[Step, ...] = ()
    notes: tuple[str, ...] = ()
    detail: EngineDetail | None = None
    calibration: Calibrated | None = None
    pool_cap: int | None = None  # SGLang --max-total-tokens below the context: the pool the launch asks for
    pool_band_bytes: int = 0  # how much larger the real pool has been than this estimate, on the logs of the
    # release's era (kvlint/data/nonkv.json `uncertainty`); 0 when the non-KV term is not estimated
    pool_band_era: str = ""  # that era, with its number of logs, for messages

    @property
    def holds_what_it_asks(self) -> bool:
        """The pool holds one full-length request, or reaches the cap the launch set below its context (a capped
        pool is the size the user chose, not a context the pool must hold)."""
        if self.kv_pool_bytes <= 0 or self.kv_tokens <= 0:
            return False
        return self.fits_one_request or (self.pool_cap is not None and self.kv_tokens >= self.pool_cap)

    @property
    def fixed_pool(self) -> FixedPool | None:
        return self.detail.fixed_pool if self.detail is not None else None

    @property
    def request_bytes(self) -> int | None:
        """vLLM's bytes for one max-length request (its check's figure); None without a planner detail."""
        return self.detail.request_bytes if self.detail is not None else None

    def to_json(self) -> dict[str, Any]:
        """The documented JSON shape of `kvlint budget --format json` (stable keys)."""
        out: dict[str, Any] = {
            "engine": self.engine,
            "engine_version": self.engine_version,
            "model": self.model,
            "gpu": {"name": self.gpu_name, "memory_bytes": self.gpu_memory_bytes},
            "parallel": {"tp": self.parallel.tp, "pp": self.parallel.pp, "dp": self.parallel.dp,
                         "dcp": self.parallel.dcp},
            "kv_bytes_per_token": self.kv_bytes_per_token,
            "kv_cache_dtype": self.kv_cache_dtype,
            "weights_bytes": self.weights_bytes,
            "non_kv_bytes": self.non_kv_bytes,
            "non_kv_source": self.non_kv_source,
            "requested_bytes": self.requested_bytes,
            "kv_pool_bytes": self.kv_pool_bytes,
            "kv_pool_estimated": self.kv_pool_estimated,
            "max_model_len": self.max_model_len,
            "kv_tokens": self.kv_tokens,
            "max_concurrency": self.max_concurrency,
            "fits_one_request": self.fits_one_request,
            "estimated_max_model_len": self.estimated_max_model_len,
            "max_num_seqs": self.max_num_seqs,
            "max_num_batched_tokens": self.max_num_batched_tokens,
            "steps": [asdict(s) for s in self.steps],
            "notes": list(self.notes),
        }
        if self.detail is None or self.detail.block_view:  # vLLM's block view; SGLang's is a memory fraction
            out["num_blocks"] = self.num_blocks
            out["block_size"] = self.block_size
        else:
            out["mem_fraction_static"] = self.mem_fraction_static
        if self.detail is not None:
            out.update(self.detail.to_json())
        if self.calibration is not None:
            out["calibration"] = self.calibration.to_json()
        return out
