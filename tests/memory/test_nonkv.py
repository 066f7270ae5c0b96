"""The non-KV estimate: each term responds to what drives it, it is always marked, and it can be replaced."""

from __future__ import annotations

import importlib.util
import statistics

from kvlint.memory import compute_budget
from kvlint.memory.nonkv import vllm_non_kv

from .specs import LLAMA3_8B, QWEN3_8B

GIB = 2**30


def estimate(model=LLAMA3_8B, **kw):
    args = dict(max_num_seqs=1024, max_num_batched_tokens=8192, tp=1, pp=1, layers_on_rank=32, cudagraphs=True)
    args.update(kw)
    return vllm_non_kv(model, **args)


def test_terms_follow_their_drivers():
    base = estimate().total
    assert estimate(max_num_batched_tokens=2048).total < base  # smaller profile batch
    assert estimate(max_num_seqs=256).total < base  # fewer sampler rows
    assert estimate(model=QWEN3_8B).total > base  # larger vocabulary
    assert estimate(tp=2).total > base  # collectives
    assert estimate(cudagraphs=False).total < base
    names = {name for name, _, _ in estimate(tp=2).parts}
    assert names == {"activation peak", "sampler", "collectives", "CUDA graphs"}


def test_budget_marks_estimate_and_accepts_override():
    est = compute_budget("vllm", LLAMA3_8B, {}, None, gpu_memory_bytes=80 * GIB, weights_bytes=15 * GIB)
    assert est.non_kv_source == "estimated" and est.kv_pool_estimated
    assert any(s.estimated for s in est.steps if s.name.startswith("non-KV"))
    user = compute_budget("vllm", LLAMA3_8B, {}, None, gpu_memory_bytes=80 * GIB, weights_bytes=15 * GIB,
                          non_kv_bytes=GIB)
    assert user.non_kv_bytes == GIB and not user.kv_pool_estimated
    assert user.kv_pool_bytes - est.kv_pool_bytes == est.non_kv_bytes - GIB


def test_cuda_graphs_only_from_020_and_not_eager():
    def nonkv(version, **s):
        return compute_budget("vllm", LLAMA3_8B, s, None, version=version, gpu_memory_bytes=80 * GIB,
                              weights_bytes=15 * GIB).non_kv_bytes
    assert nonkv("0.19.0") < nonkv("0.20.0")
    assert nonkv("0.33.0", enforce_eager=True) == nonkv("0.19.0")


def test_pool_error_on_the_fitted_and_all_cases(shared_dir):
    """bench/pool_error.py: predicted pool from GPU + flags alone vs the logged pool. On the vLLM 0.19 H100 sweep
    the coefficients were fitted on: median <= 0.2 GiB and p90 <= 1.0 GiB; over every case: median <= 0.2 GiB
    (the held-out cases are reported by the benchmark, not pinned here)."""
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "bench" / "pool_error.py"
    spec = importlib.util.spec_from_file_location("pool_error", path)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    fitted, every = [], []
    for case in bench.load_cases(shared_dir):
        if case["engine"] == "vllm" and case.get("available_kv_gib") is not None:
            pool, _, _ = bench.predict_budget(case, shared_dir)
            if pool is not None:
                error = abs(pool / GIB - case["available_kv_gib"])
                every.append(error)
                if str(case.get("group", "")).startswith(bench.FIT_GROUP):
                    fitted.append(error)
    assert len(every) >= 30 and len(fitted) >= 20
    assert statistics.median(fitted) <= 0.2 and bench.percentile(fitted, 0.9) <= 1.0
    assert statistics.median(every) <= 0.2
