"""The memory picture of one engine instance: what an engine would compute at startup.

Engines (kvlint.memory.vllm / sglang) produce a Budget; rules, `kvlint budget`, `verify` and `plan`
only read it. Every number carries its derivation in `steps`, so `kvlint budget` can show how each
figure was reached.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass(frozen=True)
class Step:
    """One line of the derivation: a named quantity, how it was computed, and its value."""

    name: str
    formula: str
    value: float | int | str
    unit: str = ""  # "B", "GiB", "tokens", "blocks", ""
    estimated: bool = False


@dataclass(frozen=True)
class Parallel:
    tp: int = 1
    pp: int = 1
    dp: int = 1
    dcp: int = 1
    ep: bool = False

    @property
    def gpus(self) -> int:
        return self.tp * self.pp * self.dp


@dataclass(frozen=True)
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
    extra: dict[str, Any] = field(default_factory=dict)

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
        if self.engine == "vllm":
            out["num_blocks"] = self.num_blocks
            out["block_size"] = self.block_size
        else:
            out["mem_fraction_static"] = self.mem_fraction_static
        out.update(self.extra)
        return out
