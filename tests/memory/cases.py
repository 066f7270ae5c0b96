"""Reading shared/logs/cases.json into canonical settings and model specs (test and bench helper)."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

from kvlint.errors import KvlintError
from kvlint.memory import compute_budget
from kvlint.models.config import spec_from_config
from kvlint.models.spec import ModelSpec

GIB = 2**30
# Quantized checkpoints whose config.json is not in shared/models: same attention shapes as the base model.
SAME_SHAPES = {
    "RedHatAI/Llama-3.3-70B-Instruct-fp8-dynamic": "meta-llama/Llama-3.3-70B-Instruct",
    "RedHatAI/Llama-3.3-70B-Instruct-FP8-dynamic": "meta-llama/Llama-3.3-70B-Instruct",
    "RedHatAI/Qwen2.5-7B-Instruct-fp8-dynamic": "Qwen/Qwen2.5-7B-Instruct",
    "RedHatAI/Mistral-Small-3.1-24B-Instruct-2503-quantized.w8a8": "mistralai/Mistral-Small-3.1-24B-Instruct-2503",
    "mistralai/Mistral-Small-3.2-24B-Instruct-2506": "mistralai/Mistral-Small-3.1-24B-Instruct-2503",
    "Qwen/Qwen2-7B-Instruct": "Qwen/Qwen2.5-7B-Instruct",
    "moonshotai/Kimi-Dev-72B": "Qwen/Qwen2.5-72B-Instruct",
    "Qwen/Qwen3-Next-80B-A3B-Instruct": "Qwen/Qwen3-Next-80B-A3B-Thinking",
}


def load_cases(shared: Path) -> list[dict[str, Any]]:
    return json.loads((shared / "logs" / "cases.json").read_text())


def model_id(case: dict[str, Any]) -> str:
    return (case.get("hf_model_id") or case["model"]).split(" ")[0]


def load_model(shared: Path, case: dict[str, Any]) -> ModelSpec | None:
    ident = model_id(case)
    for candidate in (ident, SAME_SHAPES.get(ident)):
        path = shared / "models" / str(candidate) / "config.json"
        if candidate and path.is_file():
            return spec_from_config(json.loads(path.read_text()), ident, str(path))
    return _bundled(ident)


def _bundled(ident: str | None) -> ModelSpec | None:
    """A model ../shared/models lacks, as `kvlint check` resolves it offline (the package's bundled registry)."""
    from kvlint.errors import KvlintError
    from kvlint.models.resolve import resolve_model

    if not ident:
        return None
    try:
        return resolve_model(ident)
    except KvlintError:
        return None


def _word(value: Any) -> Any:
    return str(value).split(" ")[0] if isinstance(value, str) else value


def version_of(case: dict[str, Any]) -> str | None:
    m = re.search(r"\d+\.\d+(\.\d+)?", str(case.get("engine_version") or ""))
    return m.group(0) if m else None


def vllm_settings(case: dict[str, Any]) -> dict[str, Any]:
    s = {"max_model_len": case.get("max_model_len"), "tensor_parallel_size": case.get("tp") or 1,
         "pipeline_parallel_size": case.get("pp") or 1, "max_num_seqs": case.get("max_num_seqs"),
         "max_num_batched_tokens": case.get("max_num_batched_tokens"), "block_size": case.get("block_size"),
         "dtype": _word(case.get("dtype")), "kv_cache_dtype": _word(case.get("kv_cache_dtype")),
         "gpu_memory_utilization": case.get("gpu_memory_utilization"), "enforce_eager": case.get("enforce_eager")}
    if s["kv_cache_dtype"] not in (None, "auto", "fp8", "fp8_e4m3", "fp8_e5m2", "bfloat16", "float16"):
        s["kv_cache_dtype"] = None
    return {k: v for k, v in s.items() if v is not None}


def block_range(model: ModelSpec, settings: dict[str, Any], version: str | None, logged_gib: float):
    """(bytes per block, num_blocks values a pool of logged_gib +- 0.005 GiB can give)."""
    probe = compute_budget("vllm", model, {**settings, "kv_cache_memory_bytes": int(logged_gib * GIB)}, None,
                           version=version, gpu_memory_bytes=80 * GIB)
    bpb = probe.detail.bytes_per_block
    lo, hi = math.ceil((logged_gib - 0.005) * GIB), math.floor((logged_gib + 0.005) * GIB)
    return bpb, range(lo // bpb, hi // bpb + 1)


def vllm_outcomes(model: ModelSpec, settings: dict[str, Any], version: str | None, logged_gib: float):
    """[(num_blocks, kv_tokens, max_concurrency)] for every num_blocks the logged pool allows."""
    _, blocks = block_range(model, settings, version, logged_gib)
    out = []
    for nb in blocks:
        b = compute_budget("vllm", model, {**settings, "num_gpu_blocks_override": nb}, None, version=version,
                           gpu_memory_bytes=80 * GIB)
        out.append((nb, b.kv_tokens, b.max_concurrency))
    return out


def matches(case: dict[str, Any], outcomes) -> bool:
    tokens, conc = case.get("kv_tokens"), case.get("max_concurrency")
    for _, t, c in outcomes:
        if (tokens is None or t == tokens) and (conc is None or f"{c:.2f}" == f"{conc:.2f}"):
            return True
    return False


def exactness_cases(shared: Path):
    """vLLM cases with a logged pool and a logged token count or concurrency, and a config we can read."""
    for case in load_cases(shared):
        if case["engine"] != "vllm" or case.get("available_kv_gib") is None or case["available_kv_gib"] <= 0:
            continue
        if case.get("kv_tokens") is None and case.get("max_concurrency") is None:
            continue
        try:
            model = load_model(shared, case)
        except KvlintError:
            model = None
        yield case, model
