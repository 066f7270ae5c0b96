"""The typed engine results: Budget.detail / fixed_pool / request_bytes, and the JSON keys they keep."""

from __future__ import annotations

from kvlint.budget import FixedPool, SglangDetail, VllmDetail
from kvlint.memory import compute_budget
from kvlint.models.resolve import resolve_model

GIB = 2**30
VLLM_TAIL = ["num_blocks", "block_size", "kv_groups", "blocks_per_request", "bytes_per_block", "padding_layers"]
FIXED_TAIL = ["kv_pool_fixed", "fixed_pool_weights_bytes", "fixed_pool_non_kv_bytes", "fixed_pool_overcommit_bytes",
              "fixed_pool_estimated"]
SGLANG_TAIL = ["mem_fraction_static", "page_size", "k_size_gb", "v_size_gb", "cuda_graph_max_bs", "reserve_bytes"]


def test_vllm_detail_is_typed_and_keeps_the_json_keys_in_order():
    spec = resolve_model("Qwen/Qwen3-8B")
    b = compute_budget("vllm", spec, {"max_model_len": 32768}, None)
    assert isinstance(b.detail, VllmDetail) and b.fixed_pool is None
    assert b.request_bytes == b.detail.blocks_per_request * b.detail.bytes_per_block == 2048 * 36 * 16 * 8 * 256 * 2
    assert list(b.to_json())[-len(VLLM_TAIL):] == VLLM_TAIL
    fixed = compute_budget("vllm", spec, {"kv_cache_memory_bytes": 20 * GIB}, None, weights_bytes=15 * GIB,
                           non_kv_bytes=2 * GIB)
    assert fixed.fixed_pool == FixedPool(15 * GIB, 2 * GIB, 37 * GIB - fixed.gpu_memory_bytes, False)
    assert list(fixed.to_json())[-len(VLLM_TAIL + FIXED_TAIL):] == VLLM_TAIL + FIXED_TAIL


def test_sglang_detail_and_attention_tp():
    spec = resolve_model("deepseek-ai/DeepSeek-V3")
    b = compute_budget("sglang", spec, {"tp_size": 8, "dp_size": 4, "enable_dp_attention": True}, None,
                       weights_bytes=70 * GIB)
    assert isinstance(b.detail, SglangDetail) and b.fixed_pool is None and b.request_bytes is None
    assert (b.parallel.attn_dp, b.parallel.attention_tp, b.parallel.dp) == (4, 2, 1)
    assert list(b.to_json())[-len(SGLANG_TAIL):] == SGLANG_TAIL
