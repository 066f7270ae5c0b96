"""Settings an engine would reject become one KvlintError line, never an arithmetic exception."""

from __future__ import annotations

import pytest

from kvlint.errors import KvlintError
from kvlint.memory import compute_budget

from .specs import LLAMA3_8B

H100 = 81559 * 2**20


@pytest.mark.parametrize("engine,settings,needle", [
    ("sglang", {"page_size": 0}, "page_size must be >= 1"),
    ("sglang", {"page_size": -16}, "page_size must be >= 1"),
    ("sglang", {"tp_size": 0}, "must be >= 1"),
    ("vllm", {"block_size": 0}, "block_size must be positive"),
    ("vllm", {"tensor_parallel_size": 0}, "must be >= 1"),
    ("vllm", {"max_model_len": -5}, "max_model_len must be positive"),
    ("vllm", {"gpu_memory_utilization": 1.5}, "gpu_memory_utilization"),
])
def test_rejected_settings_raise_one_line(engine, settings, needle):
    with pytest.raises(KvlintError, match=needle) as info:
        compute_budget(engine, LLAMA3_8B, settings, None, gpu_memory_bytes=H100)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("kwargs", [{"non_kv_bytes": -1}, {"weights_bytes": -(2**30)}])
def test_negative_memory_terms_are_refused(kwargs):
    with pytest.raises(KvlintError, match="cannot be negative"):
        compute_budget("vllm", LLAMA3_8B, {}, None, gpu_memory_bytes=H100, **kwargs)


def test_sglang_page_size_rounds_tokens_down():
    one = compute_budget("sglang", LLAMA3_8B, {"page_size": 1}, None, gpu_memory_bytes=H100, non_kv_bytes=0)
    big = compute_budget("sglang", LLAMA3_8B, {"page_size": 64}, None, gpu_memory_bytes=H100, non_kv_bytes=0)
    assert big.kv_tokens % 64 == 0
    assert one.kv_tokens - 64 < big.kv_tokens <= one.kv_tokens
