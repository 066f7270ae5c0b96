"""Every number of the two seed chapters (shared/seeds), reproduced from hand-built specs.

Weights come from the published parameter counts the chapters use (8.03B, 32.8B, 70.6B, 671B), so these
tests check the memory models, not the weights helper.
"""

from __future__ import annotations

import math

import pytest

from kvlint.engines.sglang.memory import tokens_for_pool
from kvlint.memory import compute_budget

from .specs import DEEPSEEK_V3, DEEPSEEK_V3_AS_GQA, LLAMA3_8B, LLAMA3_70B, QWEN3_8B, QWEN3_14B, QWEN3_32B, QWEN25_72B

GIB = 2**30
H100 = 81559 * 2**20  # the seed's total: 81,559 MiB = 79.65 GiB
SIX = 6 * GIB  # the seed's non-KV allowance


def vllm(model, settings=None, weights=0, **kw):
    kw.setdefault("non_kv_bytes", SIX)
    return compute_budget("vllm", model, {"max_model_len": 8192, **(settings or {})}, None,
                          gpu_memory_bytes=H100, weights_bytes=int(weights), **kw)


@pytest.mark.parametrize("model, settings, cell", [
    (LLAMA3_8B, {}, 131_072),
    (LLAMA3_70B, {}, 327_680),
    (QWEN25_72B, {}, 327_680),
    (QWEN3_32B, {}, 262_144),
    (DEEPSEEK_V3, {}, 70_272),
    (DEEPSEEK_V3, {"tensor_parallel_size": 8}, 70_272),
    (QWEN3_8B, {}, 147_456),
    (QWEN3_8B, {"kv_cache_dtype": "fp8"}, 73_728),
    (QWEN3_14B, {}, 163_840),
    (LLAMA3_70B, {"tensor_parallel_size": 8}, 40_960),
])
def test_cell_sizes_vllm_and_sglang(model, settings, cell):
    assert vllm(model, settings).kv_bytes_per_token == cell
    sg = {"tp_size": settings.get("tensor_parallel_size", 1)}
    if settings.get("kv_cache_dtype"):
        sg["kv_cache_dtype"] = "fp8_e4m3"
    assert tokens_for_pool(model, 10 * GIB, sg)[1] == cell


def test_gqa_formula_on_mla_is_the_71x_mistake():
    wrong = vllm(DEEPSEEK_V3_AS_GQA).kv_bytes_per_token
    right = vllm(DEEPSEEK_V3).kv_bytes_per_token
    assert round(wrong / 2**20, 2) == 4.77
    assert round(wrong / right) == 71


def test_h100_walkthrough_llama3_8b():
    b = vllm(LLAMA3_8B, weights=14.96 * GIB)
    assert round(b.requested_bytes / GIB, 5) == 73.27566
    assert round(b.kv_pool_bytes / GIB, 5) == 52.31566
    assert b.num_blocks == 26_785
    assert b.kv_tokens == 428_560
    assert f"{b.max_concurrency:.2f}" == "52.31"
    assert b.kv_pool_estimated is False and b.non_kv_source == "user"


def test_sglang_same_pool_gives_428569_tokens():
    pool = vllm(LLAMA3_8B, weights=14.96 * GIB).kv_pool_bytes
    tokens, cell = tokens_for_pool(LLAMA3_8B, pool)
    assert (tokens, cell) == (428_569, 131_072)


@pytest.mark.parametrize("version, expected", [("0.5.4", 0.835), ("0.5.23", 0.83)])
def test_mem_fraction_static_h100_defaults(version, expected):
    b = compute_budget("sglang", LLAMA3_8B, {}, None, version=version, gpu_memory_bytes=H100,
                       weights_bytes=int(14.96 * GIB))
    assert b.mem_fraction_static == expected


def test_qwen3_32b_three_8k_requests_bf16():
    assert math.floor(vllm(QWEN3_32B, weights=32.8e9 * 2).max_concurrency) == 3


def test_qwen3_32b_fp8_weights_18_all_fp8_or_17_with_bf16_embeddings():
    """The seed halves every weight (18); vLLM's online fp8 keeps embedding and lm_head bf16 (17)."""
    assert math.floor(vllm(QWEN3_32B, weights=32.8e9).max_concurrency) == 18
    embeddings = 2 * QWEN3_32B.vocab_size * QWEN3_32B.hidden_size  # untied: embed + lm_head, one extra byte each
    assert math.floor(vllm(QWEN3_32B, weights=32.8e9 + embeddings).max_concurrency) == 17


def test_llama3_70b_bf16_does_not_fit_one_h100():
    b = vllm(LLAMA3_70B, weights=70.6e9 * 2)
    assert not b.fits_one_request and b.kv_pool_bytes == 0 and b.kv_tokens == 0


def test_llama3_70b_fp8_cannot_hold_one_8k_request():
    all_fp8 = vllm(LLAMA3_70B, weights=70.55e9)
    assert round(all_fp8.kv_pool_bytes / GIB, 2) == 1.57
    assert not all_fp8.fits_one_request and all_fp8.max_concurrency < 1
    bf16_embeddings = vllm(LLAMA3_70B, weights=70.55e9 + 2 * 128256 * 8192)
    assert bf16_embeddings.kv_pool_bytes < all_fp8.kv_pool_bytes and not bf16_embeddings.fits_one_request


def test_llama3_70b_tp8_node():
    b = vllm(LLAMA3_70B, {"tensor_parallel_size": 8}, weights=70.6e9 * 2 / 8)
    assert round(b.kv_tokens / 1e6, 2) == 1.33
    assert math.floor(b.max_concurrency) == 162


def test_deepseek_v3_across_16_gpus():
    b = vllm(DEEPSEEK_V3, {"tensor_parallel_size": 16}, weights=671e9 / 16)
    assert round(b.kv_bytes_per_token / 1024, 1) == 68.6
    assert math.floor(b.max_concurrency) == 52
