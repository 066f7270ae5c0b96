"""The measured non-KV term: solve each engine's pool formula for the one unknown a startup log hides.

Only `kvlint verify` and the log comparison need this; it is the one calibration module that reads a
parsed LogRecord.
"""

from __future__ import annotations

import math

from kvlint.errors import KvlintError
from kvlint.logs.record import GIB, LogRecord
from kvlint.record import record


@record
class Measurement:
    """The measured non-KV bytes per rank and how they were obtained (for `verify` to print).

    non_kv_bytes compares with Budget.non_kv_bytes; calibration_bytes is what compute_budget takes as
    `non_kv_bytes=` (the same for vLLM; SGLang's pre-pool allocations only).
    """

    non_kv_bytes: int
    formula: str
    calibration_bytes: int | None = None

    @property
    def calibration(self) -> int:
        return self.non_kv_bytes if self.calibration_bytes is None else self.calibration_bytes


def measure_non_kv(record: LogRecord, *, total_bytes: int | None = None, utilization: float | None = None,
                   requested_bytes: int | None = None) -> Measurement:
    """Non-KV bytes per rank from a log (raises KvlintError naming what the log lacks).

    vLLM's requested memory comes from the log when printed, else ceil(total x util) from the log's
    total and utilization, else `requested_bytes` (what compute_budget derived for this GPU and version).
    """
    from kvlint.engines import get_engine

    if not get_engine(record.engine or "vllm").log.block_rows:  # SGLang: the pool from its fraction of pre-load
        return _measure_sglang(record, total_bytes)
    return _measure_vllm(record, total_bytes, utilization, requested_bytes)


def _measure_vllm(record: LogRecord, total_bytes: int | None, utilization: float | None,
                  requested_bytes: int | None = None) -> Measurement:
    if record.model_loading_gib is None or record.available_kv_gib is None:
        raise KvlintError("the log does not show both 'Model loading took' and 'Available KV cache memory'; "
                          "cannot measure non-KV memory")
    if record.requested_memory_gib is not None:
        requested = record.requested_memory_gib * GIB
        how = f"requested {record.requested_memory_gib} GiB (logged)"
    else:
        util = record.gpu_memory_utilization or utilization
        total = record.total_gpu_memory_gib * GIB if record.total_gpu_memory_gib else total_bytes
        if (util is None or total is None) and requested_bytes:
            requested, how = requested_bytes, f"requested {requested_bytes / GIB:.2f} GiB (predicted)"
            return _vllm_result(record, requested, how)
        if util is None or total is None:
            raise KvlintError("the log shows neither the requested memory nor the GPU total and utilization; "
                              "pass --gpu (and the command line) so the requested memory can be computed")
        requested = math.ceil(total * util)
        how = f"requested ceil({total / GIB:.2f} GiB x {util})"
    return _vllm_result(record, requested, how)


def _vllm_result(record: LogRecord, requested: float, how: str) -> Measurement:
    assert record.model_loading_gib is not None and record.available_kv_gib is not None  # checked by the caller
    non_kv = requested - record.model_loading_gib * GIB - record.available_kv_gib * GIB
    formula = (f"{how} - model loading {record.model_loading_gib} GiB - "
               f"available KV {record.available_kv_gib} GiB")
    return Measurement(int(round(non_kv)), formula)


def _measure_sglang(record: LogRecord, total_bytes: int | None) -> Measurement:
    """SGLang sizes the pool as mfs x pre-load free - weights - other pre-pool allocations; solve for "other".

    pre-load free memory is the "Load weight begin. avail mem" line when logged, else the GPU total (an
    upper bound: it ignores the CUDA context). The calibration value is "other" (what compute_budget takes
    as non_kv_bytes for SGLang); the comparable non-KV adds what was used before the weights loaded.
    """
    mfs = record.mem_fraction_static
    kv_gb = _sglang_pool_gb(record)
    if mfs is None or kv_gb is None or record.weights_mem_usage_gb is None:
        raise KvlintError("the log does not show mem_fraction_static, 'Load weight end' and the KV pool size; "
                          "cannot measure non-KV memory")
    if record.avail_mem_gb_load_begin is not None:
        pre_load, where = record.avail_mem_gb_load_begin * GIB, f"pre-load free {record.avail_mem_gb_load_begin} GB"
    elif total_bytes is not None:
        pre_load, where = float(total_bytes), f"GPU total {total_bytes / GIB:.2f} GiB"
    else:
        raise KvlintError("SGLang logs do not print the GPU total; pass --gpu or --gpu-memory")
    other = pre_load * mfs - record.weights_mem_usage_gb * GIB - kv_gb * GIB
    before = (total_bytes - pre_load) if total_bytes is not None else 0
    formula = (f"{where} x mem_fraction_static {mfs} - weights {record.weights_mem_usage_gb} GB - "
               f"KV pool {kv_gb:.2f} GB (+ {before / GIB:.2f} GiB used before loading)")
    return Measurement(int(round(other + before)), formula, calibration_bytes=int(round(other)))


def _sglang_pool_gb(record: LogRecord) -> float | None:
    if record.k_size_gb is not None and record.v_size_gb is not None:
        return record.k_size_gb + record.v_size_gb
    return record.kv_size_gb
