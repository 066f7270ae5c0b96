"""engines.md section 7: vLLM's own unit-test vectors, through kvlint's planner and through compute_budget."""

from __future__ import annotations

import pytest

from kvlint.engines.vllm.planning import estimate_max_len, kv_groups
from kvlint.engines.vllm.specs import KVDtype, layer_specs
from kvlint.memory import compute_budget
from kvlint.models.spec import LayerKV

from .specs import full, sliding, unit_model

P = 16 * 2 * (64 + 64) * 4  # new_kv_cache_spec(): bs 16, 2 kv heads, head 64, float32 = 16,384 B
GIB = 2**30


def budget(layers, settings, version=None, max_len=16384):
    model = unit_model(tuple(layers), max_len=max_len)
    return compute_budget("vllm", model, {"dtype": "float32", **settings}, None, version=version,
                          gpu_memory_bytes=80 * GIB, weights_bytes=0)


def test_page_of_the_test_spec():
    b = budget([full()], {"max_model_len": 16, "kv_cache_memory_bytes": P * 32})
    assert b.detail.bytes_per_block == P


@pytest.mark.parametrize("upper, expected", [(16385, 16384), (16383, 16383)])
def test_estimate_max_model_len(upper, expected):
    """32 layers, 32 kv heads, head 128, fp16: 16,384 tokens need exactly 8 GiB."""
    model = unit_model(tuple(LayerKV("full", 32, 128, 128) for _ in range(32)), dtype="float16", max_len=32768)
    specs = layer_specs(model, tp=1, dcp=1, block_size=16, dtype=KVDtype("float16", 2, "flag"))
    groups = kv_groups(specs, hybrid_manager=True)
    bpb = sum(s.page for s in specs.values())
    assert bpb == 32 * 262_144
    assert estimate_max_len(groups, bpb, 8 * GIB, upper, 0) == expected


def test_estimate_through_budget_without_null_block():
    model = unit_model(tuple(LayerKV("full", 32, 128, 128) for _ in range(32)), dtype="float16", max_len=32768)
    b = compute_budget("vllm", model, {"max_model_len": 16385, "kv_cache_memory_bytes": 8 * GIB}, None,
                       version="0.27.0", gpu_memory_bytes=80 * GIB, weights_bytes=0)
    assert not b.fits_one_request and b.estimated_max_model_len == 16384


@pytest.mark.parametrize("layers, blocks, version, expected", [
    ([full()] * 32, 1536, "0.21.0", 1.5),
    ([sliding(1024)] * 32, 129 * 3, "0.21.0", 3.0),
    ([full()] * 32 + [sliding(1024)] * 32, (1024 + 129) * 3, "0.21.0", 3.0),
    ([sliding(1024)] * 32, 387, "0.33.0", 387 / 193),  # 0.33 reserves 2 x mnbt in-flight tokens
])
def test_max_concurrency(layers, blocks, version, expected):
    b = budget(layers, {"max_model_len": 16384, "max_num_batched_tokens": 1024, "num_gpu_blocks_override": blocks},
               version)
    assert b.max_concurrency == pytest.approx(expected)


def test_kv_cache_capacity_hybrid():
    b = budget([full()] * 32 + [sliding(1024)] * 32,
               {"max_model_len": 16384, "max_num_batched_tokens": 1024, "num_gpu_blocks_override": (1024 + 129) * 3},
               "0.21.0")
    assert (b.kv_tokens, b.max_concurrency) == (3 * 16384, 3)


@pytest.mark.parametrize("layers, avail, settings, expected", [
    ([full(), full()], 2 * P * 32, {}, 32),
    ([sliding(), sliding()], 2 * P * 32, {}, 32),
    ([full(), sliding()], 2 * P * 32, {"disable_hybrid_kv_cache_manager": True}, 32),
    ([full(), sliding()], 2 * P * 32, {}, 64),
    ([full(), full(), sliding(), sliding(), sliding(), sliding()], 2 * P * 32, {}, 32),
    ([full()] * 3 + [sliding()] * 7, 3 * P * 32, {}, 32),
    ([full()] * 6 + [sliding()] * 5, 6 * P * 32, {}, 32),
    ([full(head=128), full()], 3 * P * 32, {}, 32),
    ([full(), sliding(head=32)], P * 32, {}, 32),
    ([full(), sliding(head=96)], P * 3 // 2 * 32, {}, 32),  # 0.33 pads the full page instead of raising
    ([full(), full()], 2 * P * 32, {"num_gpu_blocks_override": 16}, 16),
])
def test_num_blocks_one_worker(layers, avail, settings, expected):
    b = budget(layers, {"max_model_len": 16, "kv_cache_memory_bytes": avail, **settings})
    assert b.num_blocks == expected


def test_grouping_splits_sliding_layers_like_vllm():
    b = budget([full()] * 3 + [sliding()] * 7, {"max_model_len": 16, "kv_cache_memory_bytes": 3 * P * 32})
    assert b.detail.kv_groups == 4 and b.detail.padding_layers == 2


@pytest.mark.parametrize("avail, expected", [(2 * P * 1024, 1024), (2 * P * 32, 496)])
def test_auto_fit_max_model_len(avail, expected):
    b = budget([full(), full()], {"max_model_len": -1, "kv_cache_memory_bytes": avail}, max_len=1024)
    assert b.max_model_len == expected


def test_attention_free_model_gets_one_block():
    b = budget([LayerKV("none")] * 4, {"max_model_len": 16, "kv_cache_memory_bytes": P})
    assert b.num_blocks == 1 and b.detail.kv_groups == 0


def test_fp8_ds_mla_page():
    model = unit_model((LayerKV("mla", 1, 256, 0),))
    specs = layer_specs(model, tp=1, dcp=1, block_size=16, dtype=KVDtype("fp8_ds_mla", 1, "flag"))
    assert specs[(0, 0)].page == 10_496
