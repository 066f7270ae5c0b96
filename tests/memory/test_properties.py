"""Invariants of the memory models over generated models and settings (hypothesis)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from kvlint.engines.sglang.memory import tokens_for_pool
from kvlint.memory import compute_budget
from kvlint.models.spec import LayerKV

from .specs import dense

GIB = 2**30


@st.composite
def models(draw, hybrid=True):
    n = draw(st.integers(1, 48))
    kvh = draw(st.sampled_from([1, 2, 4, 8, 16, 32]))
    head = draw(st.sampled_from([64, 80, 96, 128, 256]))
    window = draw(st.sampled_from([512, 1024, 4096]))
    every = draw(st.integers(0, 6)) if hybrid else 0
    layers = tuple(LayerKV("sliding", kvh, head, head, window=window) if every and i % every else
                   LayerKV("full", kvh, head, head) for i in range(n))
    return dense("generated", n, kvh, head, kinds=layers, max_len=131072)


def vllm(model, **s):
    return compute_budget("vllm", model, s, None, gpu_memory_bytes=80 * GIB, weights_bytes=0)


@settings(max_examples=60, deadline=None)
@given(models(), st.integers(1, 60_000), st.integers(1, 60_000), st.integers(1, 40) )
def test_concurrency_never_rises_with_max_model_len(model, a, b, pool_gib):
    short, long_ = sorted((a, b))
    pool = pool_gib * GIB
    x, y = vllm(model, max_model_len=short, kv_cache_memory_bytes=pool), vllm(
        model, max_model_len=long_, kv_cache_memory_bytes=pool)
    assert x.num_blocks == y.num_blocks
    assert y.max_concurrency <= x.max_concurrency


@settings(max_examples=60, deadline=None)
@given(models(hybrid=False), st.integers(1, 4000), st.integers(1, 4000), st.integers(1, 40))
def test_tokens_never_rise_with_max_model_len_uniform(model, a, b, pool_gib):
    """For a uniform model at whole-block lengths the logged count never rises beyond vLLM's own float truncation.

    int(num_blocks / cdiv(L, 16) * L) is num_blocks * 16 in exact arithmetic, but the float product can land
    just below it (1424-token case: 52,415 instead of 52,416); kvlint reproduces the engine's float on purpose.
    """
    short, long_ = sorted((16 * a, 16 * b))
    pool = pool_gib * GIB
    x, y = vllm(model, max_model_len=short, kv_cache_memory_bytes=pool), vllm(
        model, max_model_len=long_, kv_cache_memory_bytes=pool)
    assert y.kv_tokens <= x.kv_tokens + 1
    assert y.kv_tokens <= y.num_blocks * 16


@settings(max_examples=60, deadline=None)
@given(models(), st.sampled_from(["fp8", "fp8_e4m3", "fp8_e5m2"]))
def test_fp8_kv_exactly_halves_bytes_per_token(model, fp8):
    base = vllm(model, max_model_len=4096, kv_cache_memory_bytes=GIB)
    half = vllm(model, max_model_len=4096, kv_cache_memory_bytes=GIB, kv_cache_dtype=fp8)
    assert half.kv_bytes_per_token * 2 == base.kv_bytes_per_token
    sg = compute_budget("sglang", model, {}, None, gpu_memory_bytes=80 * GIB, weights_bytes=0)
    sg8 = compute_budget("sglang", model, {"kv_cache_dtype": "fp8_e4m3"}, None, gpu_memory_bytes=80 * GIB,
                         weights_bytes=0)
    assert sg8.kv_bytes_per_token * 2 == sg.kv_bytes_per_token


@settings(max_examples=60, deadline=None)
@given(models(), st.sampled_from([1, 2, 4, 8]), st.sampled_from([2, 4, 8, 16]))
def test_tp_never_raises_per_rank_kv_bytes(model, tp, factor):
    small = vllm(model, max_model_len=4096, kv_cache_memory_bytes=GIB, tensor_parallel_size=tp)
    large = vllm(model, max_model_len=4096, kv_cache_memory_bytes=GIB, tensor_parallel_size=tp * factor)
    assert large.kv_bytes_per_token <= small.kv_bytes_per_token


@settings(max_examples=40, deadline=None)
@given(models(), st.integers(1, 2000))
def test_estimated_max_model_len_fits_and_one_more_does_not(model, pool_mib):
    pool = pool_mib * 2**20
    est = vllm(model, max_model_len=131072, kv_cache_memory_bytes=pool).estimated_max_model_len
    if est == 0:
        assert not vllm(model, max_model_len=1, kv_cache_memory_bytes=pool).fits_one_request
        return
    assert vllm(model, max_model_len=est, kv_cache_memory_bytes=pool).fits_one_request
    if est < 131072:
        assert not vllm(model, max_model_len=est + 1, kv_cache_memory_bytes=pool).fits_one_request


@settings(max_examples=60, deadline=None)
@given(models(), st.integers(1, 4000))
def test_fp8_kv_doubles_blocks_and_tokens_up_to_one_floor(model, pool_mib):
    pool = pool_mib * 2**20
    bf16 = vllm(model, max_model_len=4096, kv_cache_memory_bytes=pool)
    fp8 = vllm(model, max_model_len=4096, kv_cache_memory_bytes=pool, kv_cache_dtype="fp8")
    assert fp8.num_blocks in (2 * bf16.num_blocks, 2 * bf16.num_blocks + 1)
    t16, t8 = tokens_for_pool(model, pool)[0], tokens_for_pool(model, pool, {"kv_cache_dtype": "fp8_e4m3"})[0]
    assert t8 in (2 * t16, 2 * t16 + 1)
