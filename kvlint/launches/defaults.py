"""Defaults the engine would use for the KV-relevant settings a launch leaves out (for inspect)."""

from __future__ import annotations

from kvlint.deployment import Deployment

KV_SETTINGS = {
    "vllm": ("max_model_len", "tensor_parallel_size", "pipeline_parallel_size", "data_parallel_size",
             "gpu_memory_utilization", "dtype", "kv_cache_dtype", "quantization", "max_num_seqs",
             "max_num_batched_tokens", "block_size", "kv_cache_memory_bytes"),
    "sglang": ("context_length", "tp_size", "pp_size", "dp_size", "mem_fraction_static", "dtype", "kv_cache_dtype",
               "quantization", "max_running_requests", "max_total_tokens", "page_size"),
}


def defaulted(dep: Deployment) -> dict[str, object]:
    """KV-relevant settings not given, with the engine's documented default (None = derived)."""
    from kvlint.launches.argv import spec_by_dest

    out: dict[str, object] = {}
    for name in KV_SETTINGS.get(dep.engine, ()):
        spec = spec_by_dest(dep.engine, name) if name not in dep.settings else None
        if spec is not None:
            out[name] = spec.default
    return out
