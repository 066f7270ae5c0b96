"""Facts from the engines' code that moved between releases: LongRoPE's default length (vLLM 0.12,
config/model.py), Gemma-4's full-attention layer shape (gemma4.py), and page-size unification (0.16's
unify_kv_cache_spec_page_size; 0.11's get_kv_cache_groups raises NotImplementedError)."""

from __future__ import annotations

import pytest

from kvlint.errors import InvalidSettingError
from kvlint.memory import compute_budget
from kvlint.models.resolve import resolve_model

GIB = 2**30


@pytest.mark.parametrize("version, length", [("0.11.0", 131072), ("0.12.0", 4096), ("0.33.0", 4096)])
def test_longrope_default_length_per_release(version, length):
    model = resolve_model("microsoft/Phi-3-mini-128k-instruct")
    b = compute_budget("vllm", model, {"kv_cache_memory_bytes": 40 * GIB}, None, version=version,
                       gpu_memory_bytes=80 * GIB, weights_bytes=0)
    assert b.max_model_len == length


def test_gemma4_full_layers_use_the_global_head_dim_and_kv_heads():
    model = resolve_model("google/gemma-4-26B-A4B")
    full = [layer for layer in model.layers if layer.kind == "full"]
    sliding = [layer for layer in model.layers if layer.kind == "sliding"]
    assert (len(full), len(sliding)) == (5, 25)
    assert {(x.num_kv_heads, x.head_dim_k, x.head_dim_v) for x in full} == {(2, 512, 512)}  # k_eq_v: 2 heads
    assert {(x.num_kv_heads, x.head_dim_k, x.window) for x in sliding} == {(8, 256, 1024)}
    assert model.moe is not None and model.moe.experts_per_token == 8  # top_k_experts


def test_vllm_0_11_refuses_layers_of_different_page_sizes_and_0_20_unifies_them():
    model = resolve_model("google/gemma-4-26B-A4B")
    settings = {"max_model_len": 8192, "kv_cache_memory_bytes": 10 * GIB}
    with pytest.raises(InvalidSettingError, match="different page sizes"):
        compute_budget("vllm", model, settings, None, version="0.11.0", gpu_memory_bytes=80 * GIB, weights_bytes=0)
    b = compute_budget("vllm", model, settings, None, version="0.20.0", gpu_memory_bytes=80 * GIB, weights_bytes=0)
    # sliding page 8 x 16 x 512 x 2 B = 131,072 B; full 2 x 16 x 1024 x 2 B = 65,536 B scaled to one 131,072 page
    assert b.fits_one_request and b.detail.bytes_per_block % 131072 == 0


def test_gemma4_default_batch_fits_its_largest_multimodal_item_from_022() -> None:
    """vLLM 0.22+ (arg_utils _get_min_mm_batched_tokens) raises the default max_num_batched_tokens of a multimodal
    prefix-LM model to its largest item: Gemma-4's video, 32 frames x (70 + 2 + 6) = 2,496 tokens. Each sliding
    group then reserves cdiv(1023 + 2496, 16) + 1 = 221 blocks, not 193: gemma-4-26B-A4B on an L40S at 32,768
    tokens with the logged 12.75 GiB pool gives vLLM 0.25.1's 321,600 tokens (9.81x); 0.21 keeps 2,048."""
    from kvlint.gpus import lookup_gpu

    model = resolve_model("google/gemma-4-26B-A4B")
    pool = int(12.7533 * 2**30)
    new = compute_budget("vllm", model, {"max_model_len": 32768, "kv_cache_memory_bytes": pool}, lookup_gpu("L40S"),
                         version="0.25.1")
    old = compute_budget("vllm", model, {"max_model_len": 32768, "kv_cache_memory_bytes": pool}, lookup_gpu("L40S"),
                         version="0.21.0")
    assert (new.num_blocks, new.kv_tokens, f"{new.max_concurrency:.2f}") == (20895, 321600, "9.81")
    assert old.kv_tokens == 344236
    given = compute_budget("vllm", model, {"max_model_len": 32768, "kv_cache_memory_bytes": pool,
                                           "max_num_batched_tokens": 2048}, lookup_gpu("L40S"), version="0.25.1")
    assert given.kv_tokens == old.kv_tokens  # a batch the user sets is kept
