"""--kv-cache-memory-bytes: the pool is the flag's value, and it must still fit beside weights and non-KV."""

from __future__ import annotations

import pytest

from kvlint.errors import InvalidSettingError
from kvlint.lint import LintOptions, lint
from kvlint.memory import compute_budget

from .specs import LLAMA3_8B

GIB = 2**30


def fixed(pool, weights, non_kv=2 * GIB, memory=80 * GIB, **settings):
    return compute_budget("vllm", LLAMA3_8B, {"max_model_len": 8192, "kv_cache_memory_bytes": pool, **settings}, None,
                          gpu_memory_bytes=memory, weights_bytes=weights, non_kv_bytes=non_kv)


def step(b, name):
    return next(s for s in b.steps if s.name == name)


def test_overcommit_is_weights_plus_pool_plus_non_kv_minus_total():
    b = fixed(40 * GIB, 50 * GIB, non_kv=3 * GIB)
    assert b.kv_pool_bytes == 40 * GIB  # the pool is still exactly the flag's value
    assert b.fixed_pool.overcommit_bytes == (50 + 40 + 3 - 80) * GIB
    assert (b.fixed_pool.weights_bytes, b.fixed_pool.non_kv_bytes) == (50 * GIB, 3 * GIB)
    assert any("over by 13.00 GiB" in n and "CUDA out of memory" in n for n in b.notes)
    over = step(b, "over-commit")
    assert over.value == 13 * GIB and "= 13.00000 GiB" in over.formula


def test_pool_step_says_the_pool_is_the_flag_value_not_a_subtraction():
    b = fixed(40 * GIB, 20 * GIB)
    pool = step(b, "KV pool")
    assert pool.value == 40 * GIB and "--kv-cache-memory-bytes as given" in pool.formula
    assert "requested - weights" not in pool.formula and not pool.estimated
    assert step(b, "headroom").value == (80 - 20 - 40 - 2) * GIB
    assert b.fixed_pool.overcommit_bytes < 0 and not any("over by" in n for n in b.notes)


def test_exact_fit_is_not_an_overcommit():
    b = fixed(30 * GIB, 48 * GIB, non_kv=2 * GIB)
    assert b.fixed_pool.overcommit_bytes == 0 and not any("over by" in n for n in b.notes)


def test_without_the_flag_nothing_changes():
    b = compute_budget("vllm", LLAMA3_8B, {"max_model_len": 8192}, None, gpu_memory_bytes=80 * GIB,
                       weights_bytes=20 * GIB, non_kv_bytes=2 * GIB)
    assert b.fixed_pool is None
    assert "requested - weights - non-KV" in step(b, "KV pool").formula


def test_engine_range_errors_name_their_setting():
    with pytest.raises(InvalidSettingError) as exc:
        fixed(GIB, 0, gpu_memory_utilization=1.5)
    assert (exc.value.setting, exc.value.reason) == ("gpu_memory_utilization", "must be in (0, 1]")


def test_kv107_fires_with_the_numbers_and_a_pool_that_fits():
    result = lint(["-"], LintOptions(gpu="L4", stdin_text="vllm serve Qwen/Qwen3-8B --kv-cache-memory 20G "
                                                         "--max-model-len 8192\n"))
    [f] = [f for f in result.findings if f.code == "KV107"]
    assert (f.span.col, f.span.end_col) == (44, 47)
    assert f.message.startswith("--kv-cache-memory 20G fixes the KV pool at 20.00 GiB per rank")
    over = f.data["weights_bytes"] + f.data["pool_bytes"] + f.data["non_kv_bytes"] - result_total(result)
    assert f.data["overcommit_bytes"] == over > 0 and f.estimated
    assert f.fix == "--kv-cache-memory 5G"
    quiet = lint(["-"], LintOptions(gpu="L4", stdin_text="vllm serve Qwen/Qwen3-8B --kv-cache-memory 5G "
                                                        "--max-model-len 8192\n"))
    assert not [f for f in quiet.findings if f.code == "KV107"]


def result_total(result) -> int:
    from kvlint.gpus import lookup_gpu

    return lookup_gpu("L4").total_bytes("vllm")
