"""Helpers shared by rule modules: numbers and flags written the way each engine writes them.

Messages must read like the engine's own log or error, so the same setting is spelled
`--max-model-len` for vLLM and `--context-length` for SGLang; this table is the one place that knows.
"""

from __future__ import annotations

import os
import re
from typing import Any

from kvlint.findings import Related
from kvlint.span import Span

GIB = 2**30

# role -> (vLLM canonical name, SGLang canonical name)
ROLES = {
    "max_len": ("max_model_len", "context_length"),
    "tp": ("tensor_parallel_size", "tp_size"),
    "pp": ("pipeline_parallel_size", "pp_size"),
    "dp": ("data_parallel_size", "dp_size"),
    "dcp": ("decode_context_parallel_size", "dcp_size"),
    "max_seqs": ("max_num_seqs", "max_running_requests"),
    "kv_dtype": ("kv_cache_dtype", "kv_cache_dtype"),
    "mem": ("gpu_memory_utilization", "mem_fraction_static"),
    "quant": ("quantization", "quantization"),
}
FLAGS = {
    "vllm": {"max_len": "--max-model-len", "tp": "-tp", "pp": "-pp", "dp": "-dp", "dcp": "-dcp",
             "max_seqs": "--max-num-seqs", "kv_dtype": "--kv-cache-dtype", "mem": "--gpu-memory-utilization",
             "quant": "--quantization"},
    "sglang": {"max_len": "--context-length", "tp": "--tp-size", "pp": "--pp-size", "dp": "--dp-size",
               "dcp": "--dcp-size", "max_seqs": "--max-running-requests", "kv_dtype": "--kv-cache-dtype",
               "mem": "--mem-fraction-static", "quant": "--quantization"},
}
FP8_KV = {"vllm": "fp8", "sglang": "fp8_e4m3"}
ENGINE_NAMES = {"vllm": "vLLM", "sglang": "SGLang"}


def setting_name(engine: str, role: str) -> str:
    return ROLES[role][0 if engine == "vllm" else 1]


def flag(engine: str, role: str) -> str:
    return FLAGS.get(engine, FLAGS["vllm"])[role]


def value(dep: Any, role: str, default: Any = None) -> Any:
    return dep.get(setting_name(dep.engine, role), default)


def span(dep: Any, role: str) -> Span | None:
    return dep.span_of(setting_name(dep.engine, role))


def primary(dep: Any, *roles: str) -> Span | None:
    """The first explicit setting among roles; else the launch (a default decided it)."""
    for role in roles:
        s = span(dep, role)
        if s is not None:
            return s
    return dep.launch_span or dep.model_span


def related(dep: Any, role: str, text: str) -> Related | None:
    s = span(dep, role)
    return Related(s, text) if s is not None else None


def tp_of(dep: Any) -> int:
    v = value(dep, "tp", 1)
    return v if isinstance(v, int) and v > 0 else 1


def gib(n: float, digits: int = 2) -> str:
    return f"{n / GIB:.{digits}f} GiB"


def gpu_label(ctx: Any) -> str:
    """The catalogue id (H100-SXM-80GB) when known: short, and what --gpu accepts."""
    gpu_id = getattr(ctx.gpu, "id", None)
    return gpu_id or (ctx.budget.gpu_name if ctx.budget is not None else "the GPU")


def tokens(n: float) -> str:
    return f"{int(n):,}"


def est(estimated: bool) -> str:
    return " est." if estimated else ""


BASIS = {"estimated": " est.", "calibrated": " calibrated", "user": " given"}


def basis(b: Any) -> str:
    """How the budget's one inexact term was obtained, after the figure it affects.

    " est." (kvlint's estimate), " calibrated" (measured by `kvlint verify --calibrate`), " given"
    (non-kv-gib); nothing when the pool did not depend on it.
    """
    return BASIS.get(b.non_kv_source, est(b.kv_pool_estimated))


def config_field(model: Any, fact: str) -> tuple[Related | None, str]:
    """A related span at the config.json key when the config is a local file; else words for the message."""
    key = model.field_name(fact) if model is not None else None
    if not key:
        return None, ""
    path = _local_config_path(getattr(model, "source", ""))
    if path:
        loc = _find_key(path, key)
        if loc:
            return Related(loc, f"{key} in the model's config.json"), ""
    return None, f" ({key} {model.raw.get(key)} in {model.model_id} config.json)"


LOCAL_SOURCES = ("override", "local", "path", "file")  # a config the user owns (not the cache or the registry)


def _local_config_path(source: str) -> str | None:
    kind, sep, rest = source.partition(":")
    if sep and re.fullmatch(r"[a-z-]+", kind):
        if kind not in LOCAL_SOURCES:
            return None
        source = rest
    if not source:
        return None
    path = os.path.join(source, "config.json") if os.path.isdir(source) else source
    return path if os.path.isfile(path) else None


def _find_key(path: str, key: str) -> Span | None:
    try:
        with open(path, encoding="utf-8") as fh:
            for number, line in enumerate(fh, start=1):
                col = line.find(f'"{key}"')
                if col >= 0:
                    return Span(path, number, col + 1, number, col + len(key) + 3)
    except OSError:
        return None
    return None
