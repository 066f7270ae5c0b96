"""Exactness against real start-ups (shared/logs/cases.json): given the logged pool, the logged tokens.

The log rounds the pool to 0.01 GiB, so each case asserts that some num_blocks a pool of
logged +- 0.005 GiB can produce gives both the logged token count and the logged concurrency.
"""

from __future__ import annotations

import pytest

from kvlint.engines.sglang.memory import tokens_for_pool
from kvlint.memory import compute_budget

from .cases import GIB, exactness_cases, load_cases, load_model, matches, version_of, vllm_outcomes, vllm_settings


def _vllm_cases(shared_dir):
    return [(c, m) for c, m in exactness_cases(shared_dir) if m is not None]


def test_enough_cases_are_checked(shared_dir):
    assert len(_vllm_cases(shared_dir)) >= 25


def test_every_vllm_case_reproduces_logged_tokens_and_concurrency(shared_dir):
    failures = []
    for case, model in _vllm_cases(shared_dir):
        settings, version = vllm_settings(case), version_of(case)
        versions = [version] if version else ["0.19.0", "0.33.0"]  # unversioned: either token formula
        if not any(matches(case, vllm_outcomes(model, settings, v, case["available_kv_gib"])) for v in versions):
            failures.append(case["id"])
    assert failures == []


def test_qwen3_next_block_size_is_derived_544(shared_dir):
    case = next(c for c, m in _vllm_cases(shared_dir) if "qwen3-next" in c["id"])
    model = load_model(shared_dir, case)
    settings = {k: v for k, v in vllm_settings(case).items() if k != "block_size"}
    b = compute_budget("vllm", model, {**settings, "kv_cache_memory_bytes": int(44.59 * GIB)}, None,
                       version="0.10.2", gpu_memory_bytes=80 * GIB)
    assert b.block_size == 544 and b.kv_tokens == 973_760


def _sglang_cases(shared_dir):
    for case in load_cases(shared_dir):
        if case["engine"] == "sglang" and case.get("max_total_num_tokens") and case.get("k_size_gb"):
            yield case


def test_sglang_logged_kv_sizes_follow_from_max_total_num_tokens(shared_dir):
    """K size = layers x (tokens + page) x heads x head_dim x dtype; the 5-layer MI355X checkpoint is Qwen3-30B-A3B cut to 5."""
    from dataclasses import replace

    checked = 0
    for case in _sglang_cases(shared_dir):
        model = load_model(shared_dir, case)
        if model is None and "5-layers" in case["model"]:
            base = load_model(shared_dir, {"hf_model_id": "Qwen/Qwen3-30B-A3B", "model": ""})
            model = replace(base, num_layers=5, layers=base.layers[:5])
        if model is None:
            continue
        tokens = case["max_total_num_tokens"]
        cell = tokens_for_pool(model, GIB)[1]
        k = (tokens + 1) * cell / 2 / GIB
        assert round(k, 2) == case["k_size_gb"] and round(k, 2) == case["v_size_gb"]
        # and that token count is what SGLang derives from a pool of the logged K+V size
        pool = tokens * cell + cell - 1
        assert tokens_for_pool(model, pool)[0] == tokens
        checked += 1
    assert checked >= 2


@pytest.mark.parametrize("version", ["0.19.0", "0.33.0"])
def test_case_settings_are_canonical(shared_dir, version):
    case, model = _vllm_cases(shared_dir)[0]
    b = compute_budget("vllm", model, {**vllm_settings(case), "kv_cache_memory_bytes": GIB}, None, version=version,
                       gpu_memory_bytes=80 * GIB)
    assert b.kv_pool_bytes == GIB and not b.kv_pool_estimated
