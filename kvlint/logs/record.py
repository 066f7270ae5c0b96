"""What one engine startup log says about memory, in the field names of shared/logs/cases.json.

Keeping the names of the case file means a parsed log and a recorded case compare field by field,
and `kvlint verify` can print the logged column without a translation table. Units follow the
engines: vLLM prints GiB; SGLang prints "GB" that are really 2**30 bytes (kept as `_gb`).
"""

from __future__ import annotations

from typing import Any

from kvlint.record import field, fields, materialise, record
from kvlint.sizes import GIB


@record
class LogRecord:
    engine: str | None = None  # "vllm" | "sglang"
    engine_version: str | None = None
    model: str | None = None
    args: dict[str, Any] = field(default_factory=dict)  # the logged engine arguments, as printed
    outcome: str | None = None  # "started" | "failed"
    failure_kind: str | None = None
    failure_message: str | None = None
    gpu_hint: str | None = None  # a GPU product named by the log itself (fused-MoE config name, ...)
    # vLLM
    model_loading_gib: float | None = None
    available_kv_gib: float | None = None
    kv_tokens: int | None = None
    num_gpu_blocks: int | None = None
    num_cpu_blocks: int | None = None
    block_size: int | None = None
    max_concurrency: float | None = None
    max_concurrency_len: int | None = None
    max_model_len: int | None = None
    max_num_batched_tokens: int | None = None
    total_gpu_memory_gib: float | None = None
    free_memory_gib: float | None = None
    gpu_memory_utilization: float | None = None
    requested_memory_gib: float | None = None
    non_kv_memory_gib: float | None = None
    torch_peak_increase_gib: float | None = None
    non_torch_increase_gib: float | None = None
    consumed_memory_gib: float | None = None
    cuda_graph_gib: float | None = None
    estimated_max_model_len: int | None = None
    kv_needed_gib: float | None = None
    kv_tokens_in_error: int | None = None
    flashinfer_sampler: bool | None = None  # 0.8-0.11: "Using FlashInfer for top-p & top-k sampling" (True) or the
    # PyTorch-native fallback warning (False): which path the profile's dummy sampler ran (memory.vllm.sampler_path)
    # SGLang
    max_total_num_tokens: int | None = None
    profiled_max_total_num_tokens: int | None = None
    k_size_gb: float | None = None
    v_size_gb: float | None = None
    kv_size_gb: float | None = None
    kv_cache_dtype: str | None = None
    mem_fraction_static: float | None = None
    context_len: int | None = None
    chunked_prefill_size: int | None = None
    max_prefill_tokens: int | None = None
    max_running_requests: int | None = None
    available_gpu_mem_gb: float | None = None
    weights_mem_usage_gb: float | None = None
    avail_mem_gb_load_begin: float | None = None
    avail_mem_gb_after_weights: float | None = None
    avail_mem_gb_after_kv_pool: float | None = None
    full_layer_tokens: int | None = None
    swa_layer_tokens: int | None = None
    # per-rank values of the fields that differ between workers: {"TP1": {"available_kv_gib": 12.0}}
    ranks: dict[str, dict[str, Any]] = field(default_factory=dict)

    def found(self) -> dict[str, Any]:
        """The fields the log actually showed (no Nones), for reports and JSON output."""
        out = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if value is not None and value != {}:
                out[f.name] = value
        return out

    def to_json(self) -> dict[str, Any]:
        """found() with every value JSON-safe (logged args can hold sets, tuples, or reprs)."""
        return {k: _jsonable(v) for k, v in self.found().items()}

    @property
    def available_kv_bytes(self) -> int | None:
        """The logged pool in bytes. The log rounds to 0.01 GiB, so this is exact only to ~5 MiB."""
        if self.available_kv_gib is None:
            return None
        return int(round(self.available_kv_gib * GIB))


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted((_jsonable(v) for v in value), key=repr)
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return repr(value)


materialise(LogRecord)  # its field names are read here, before any instance exists
FIELD_NAMES = frozenset(f.name for f in fields(LogRecord))
