"""The mismatch classes an audit against the engines' own sizing code found (issue H), one test per example.

Every expected number is what the engine's code computes for that setting (vLLM 0.33.0 / 0.27.0 / 0.20.0 /
0.11.0 planners, SGLang 0.5.23), reproduced by bench/conformance; the test pins kvlint to it.
"""

from __future__ import annotations

import pytest

from kvlint.errors import InvalidSettingError
from kvlint.memory import compute_budget
from kvlint.models.resolve import resolve_model

GIB = 2**30


def vllm(model: str, settings: dict, version: str):
    return compute_budget("vllm", resolve_model(model), settings, None, version=version, gpu_memory_bytes=80 * GIB,
                          weights_bytes=0)


def test_llama4_keeps_the_hybrid_manager_in_033():
    b = vllm("RedHatAI/Llama-4-Scout-17B-16E-Instruct-FP8-dynamic",
             {"tensor_parallel_size": 8, "max_model_len": 131072, "kv_cache_memory_bytes": 40 * GIB}, "0.33.0")
    assert (b.num_blocks, b.kv_tokens, f"{b.max_concurrency:.2f}") == (436_906, 4_473_917, "34.13")


@pytest.mark.parametrize("version, fragment", [
    ("0.33.0", "requires `--tensor-parallel-size` (2) to be greater than the model's total number of KV heads (8)"),
    ("0.27.0", "requires `--tensor-parallel-size` (2) to be greater than the model's total number of KV heads (8)"),
    ("0.20.0", "requires `--tensor-parallel-size` (2) to be greater than the model's total number of KV heads (8)"),
    ("0.11.0", "softmax lse"),
])
def test_dcp_settings_vllm_refuses(version, fragment):
    with pytest.raises(InvalidSettingError) as err:
        vllm("meta-llama/Llama-3.1-8B-Instruct", {"tensor_parallel_size": 2, "decode_context_parallel_size": 2,
                                                  "kv_cache_memory_bytes": 10 * GIB}, version)
    assert fragment in str(err.value) and err.value.setting == "decode_context_parallel_size"


def test_dcp_limits_and_sliding_window():
    with pytest.raises(InvalidSettingError, match=r"exceeds the maximum supported value \(2\)"):
        vllm("Qwen/Qwen2.5-3B", {"tensor_parallel_size": 4, "decode_context_parallel_size": 4,
                                 "kv_cache_memory_bytes": 10 * GIB}, "0.33.0")
    with pytest.raises(InvalidSettingError, match="DCP not support sliding window"):
        vllm("google/gemma-3-4b-it", {"tensor_parallel_size": 8, "decode_context_parallel_size": 2,
                                      "kv_cache_memory_bytes": 10 * GIB}, "0.33.0")
    mla = vllm("deepseek-ai/DeepSeek-V2-Lite", {"tensor_parallel_size": 2, "decode_context_parallel_size": 2,
                                                "kv_cache_memory_bytes": 10 * GIB}, "0.33.0")
    assert mla.parallel.dcp == 2  # MLA has no DCP constraint


def test_override_bounds_the_check_only_from_027():
    """<= 0.21 auto-fits and checks against the profiled pool; the override only sets num_blocks. The engine's
    own 0.20 planner auto-fits this setting to 5,440 tokens (340 blocks of 48 x 64 KiB pages fit 1,070,299,623 B);
    0.27 plans against override x bytes per block."""
    settings = {"max_model_len": -1, "kv_cache_memory_bytes": 1_070_299_623, "num_gpu_blocks_override": 2383,
                "max_num_batched_tokens": 16384}
    old = vllm("Qwen/Qwen2.5-14B", settings, "0.20.0")
    assert (old.max_model_len, old.num_blocks, old.fits_one_request) == (5440, 2383, True)
    new = vllm("Qwen/Qwen2.5-14B", settings, "0.27.0")
    assert (new.max_model_len, new.num_blocks) == (2383 * 16, 2383)


def test_011_checks_the_sum_of_raw_layer_needs():
    """0.11's check and length estimate add every layer's own need (sliding layers: window + mnbt + 1 block),
    with no group padding: vLLM estimates 6,976 here."""
    b = vllm("google/gemma-2-9b-it", {"tensor_parallel_size": 4, "block_size": 32, "kv_cache_dtype": "fp8_e4m3",
                                      "max_model_len": 131072, "kv_cache_memory_bytes": 301_696_625}, "0.11.0")
    assert (b.fits_one_request, b.estimated_max_model_len) == (False, 6976)


def test_unify_hybrid_specs_with_the_manager_off():
    """vLLM's test_unify_hybrid_kv_cache_specs cases 1 and 4: beside full attention a sliding layer (padded to
    32 KiB) becomes full attention with its padded page; sliding + chunked with no full layer cannot be unified."""
    from kvlint.engines.vllm.planning import kv_groups
    from kvlint.engines.vllm.specs import KVSpec

    full = KVSpec("full", 16, 2, 128 * 4)  # block 16, 2 kv heads, (64 + 64) x fp32: 16,384 B pages
    sliding = KVSpec("sliding", 16, 2, 128 * 4, window=1024, page_padded=32 * 1024)
    [group] = kv_groups({(0, 0): full, (1, 0): sliding}, hybrid_manager=False)
    assert [s.kind for s in group.specs] == ["full", "full"] and group.specs[1].page == 32 * 1024
    assert group.specs[1].window is None and group.bytes_per_block() == 16_384 + 32 * 1024
    chunked = KVSpec("chunked", 16, 2, 128 * 4, window=512)
    with pytest.raises(InvalidSettingError, match="Failed to promote local KV cache specs"):
        kv_groups({(0, 0): KVSpec("sliding", 16, 2, 128 * 4, window=1024), (1, 0): chunked}, hybrid_manager=False)


def test_mla_fp8_on_hopper_uses_flashmla_blocks_of_64():
    """FLASH_ATTN_MLA (first on SM90) takes no fp8 cache, so vLLM 0.33 picks FLASHMLA, whose kernels need 64-token
    blocks: 19,099 blocks for DeepSeek-V3 TP 8, fp8, 163,840 tokens, 40 GiB. 0.11 forces 64 on SM90 for any dtype."""
    from kvlint.gpus import lookup_gpu

    spec, h100 = resolve_model("deepseek-ai/DeepSeek-V3"), lookup_gpu("H100")
    settings = {"tensor_parallel_size": 8, "kv_cache_dtype": "fp8", "max_model_len": 163840,
                "kv_cache_memory_bytes": 40 * GIB}
    b = compute_budget("vllm", spec, settings, h100, version="0.33.0", weights_bytes=0)
    assert (b.block_size, b.num_blocks) == (64, 19_099)
    bf16 = compute_budget("vllm", spec, {**settings, "kv_cache_dtype": "auto"}, h100, version="0.33.0",
                          weights_bytes=0)
    assert bf16.block_size == 16
    old = compute_budget("vllm", spec, {**settings, "kv_cache_dtype": "auto", "block_size": 16}, h100,
                         version="0.11.0", weights_bytes=0)
    assert old.block_size == 64


def test_mamba_hybrid_default_flags_in_033():
    """Generative hybrids get prefix caching by default in 0.33, so mamba_cache_mode is align and each of
    Qwen3-Next's three Mamba groups holds 2 + 0 speculative + 1 checkpoint blocks per request."""
    from kvlint.gpus import lookup_gpu

    spec, h100 = resolve_model("Qwen/Qwen3-Next-80B-A3B-Thinking"), lookup_gpu("H100")
    settings = {"tensor_parallel_size": 4, "max_model_len": 4096, "kv_cache_memory_bytes": 40 * GIB}
    b = compute_budget("vllm", spec, settings, h100, version="0.33.0", weights_bytes=0)
    assert (b.kv_tokens, f"{b.max_concurrency:.1f}") == (2_105_344, "514.0")
    off = compute_budget("vllm", spec, {**settings, "enable_prefix_caching": False}, h100, version="0.33.0",
                         weights_bytes=0)
    assert off.detail.blocks_per_request == b.detail.blocks_per_request - 6


def sglang(model: str, settings: dict, gpu: str | None = None, **kw):
    from kvlint.gpus import lookup_gpu

    return compute_budget("sglang", resolve_model(model), settings, lookup_gpu(gpu) if gpu else None,
                          version="0.5.23", **kw)


def test_sglang_context_length_of_gemma3_reads_factor_1():
    """transformers nests Gemma-3's rope_scaling per layer type; SGLang's .get("factor", 1) on it is 1."""
    assert resolve_model("google/gemma-3-27b-it").max_len_sglang == 131_072


def test_sglang_vlm_factor_reads_num_hidden_layers():
    """Qwen2.5-VL's vision_config has depth 32 but no num_hidden_layers: SGLang uses 24 x 1280^2, factor
    0.95 x 0.94375; on an H100 with --chunked-prefill-size 4096 that is 0.874 x 0.8965625 = 0.78360."""
    b = sglang("Qwen/Qwen2.5-VL-7B-Instruct", {"chunked_prefill_size": 4096}, "H100", weights_bytes=15 * GIB)
    assert round(b.mem_fraction_static, 5) == 0.78360
    unknown = sglang("Qwen/Qwen2.5-VL-7B-Instruct", {}, None, weights_bytes=15 * GIB, gpu_memory_bytes=80 * GIB)
    assert unknown.mem_fraction_static < 0.95  # the factor applies to the 0.95 fallback too


def test_sglang_llama2_prefill_graph_cap_and_mxfp8_scales():
    """A "llama-2" model path caps breakable prefill graphs at 4096 tokens (50 sizes, not 58): 0.834 on a
    81,920 MiB card with --max-running-requests 128. mxfp8 adds one scale byte per 32 K/V elements."""
    b = compute_budget("sglang", resolve_model("meta-llama/Llama-2-13b-hf"), {"max_running_requests": 128}, None,
                       version="0.5.23", gpu_memory_bytes=81920 * 2**20, weights_bytes=26 * GIB)
    assert b.mem_fraction_static == 0.834
    spec = resolve_model("Qwen/Qwen3-8B")
    fp8 = compute_budget("sglang", spec, {"kv_cache_dtype": "fp8_e4m3"}, None, version="0.5.23",
                         gpu_memory_bytes=80 * GIB, weights_bytes=16 * GIB)
    mx = compute_budget("sglang", spec, {"kv_cache_dtype": "mxfp8"}, None, version="0.5.23",
                        gpu_memory_bytes=80 * GIB, weights_bytes=16 * GIB)
    assert mx.kv_bytes_per_token - fp8.kv_bytes_per_token == 8 * 256 * 36 // 32


def test_sglang_multimodal_models_reserve_no_prefill_graphs():
    """cuda_graph_hook.py turns breakable prefill graphs off for multimodal models outside its allowlist, so
    their 8 MB per captured size is not reserved: Gemma-3-4B (a VLM) at TP 2 on 95,830 MiB gets 0.780554."""
    b = compute_budget("sglang", resolve_model("google/gemma-3-4b-it"), {"tp_size": 2}, None, version="0.5.23",
                       gpu_memory_bytes=95830 * 2**20, weights_bytes=0)
    assert round(b.mem_fraction_static, 6) == 0.780554
