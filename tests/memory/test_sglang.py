"""SGLang's pool: mem_fraction_static bands, cell sizes, page rounding, caps, SWA pool, logged K/V sizes."""

from __future__ import annotations

import pytest

from kvlint.engines.sglang.memory import prefill_graph_sizes, tokens_for_pool
from kvlint.errors import InvalidSettingError, KvlintError
from kvlint.memory import compute_budget
from kvlint.models.spec import LayerKV

from .specs import DEEPSEEK_V3, LLAMA3_8B, LLAMA3_70B, dense

GIB = 2**30
H100 = 81559 * 2**20


def sglang(model, settings=None, version=None, memory=H100, weights=15 * GIB, **kw):
    return compute_budget("sglang", model, settings or {}, None, version=version, gpu_memory_bytes=memory,
                          weights_bytes=int(weights), **kw)


def test_prefill_graph_sizes_for_8192():
    assert prefill_graph_sizes(8192) == 58


def test_h200_same_reserve_gives_0903():
    assert sglang(LLAMA3_8B, memory=143771 * 2**20).mem_fraction_static == 0.903


def test_user_mem_fraction_wins_and_changes_the_pool():
    low, high = sglang(LLAMA3_8B, {"mem_fraction_static": 0.7}), sglang(LLAMA3_8B, {"mem_fraction_static": 0.9})
    assert low.mem_fraction_static == 0.7 and low.kv_tokens < high.kv_tokens
    # the pool moves by exactly (0.9 - 0.7) of the pre-load memory
    assert high.kv_pool_bytes - low.kv_pool_bytes == pytest.approx(0.2 * (H100 - GIB), abs=2)


def test_a_fraction_above_one_is_refused_unless_the_pool_is_capped():
    """SGLang takes any float: above 1 its pool is more than the card holds and the allocation fails once the weights
    are loaded (a fuzzed `memFractionStatic: 1e+308` overflowed kvlint's arithmetic); `--max-total-tokens` caps the
    pool, so there a fraction above 1 is the cap's to settle, and a value no arithmetic holds is still refused."""
    with pytest.raises(InvalidSettingError, match=r"must be in \(0, 1\]") as refused:
        sglang(LLAMA3_8B, {"mem_fraction_static": 1.2})
    assert refused.value.after_load and refused.value.setting == "mem_fraction_static"
    for bad in (0.0, -0.5, 1e308):
        with pytest.raises(InvalidSettingError):
            sglang(LLAMA3_8B, {"mem_fraction_static": bad, "max_total_tokens": 100_000})
    assert sglang(LLAMA3_8B, {"mem_fraction_static": 1.2, "max_total_tokens": 100_000}).kv_tokens == 100_000


def test_mla_cell_not_divided_by_tp_and_mha_is():
    assert tokens_for_pool(DEEPSEEK_V3, GIB, {"tp_size": 8})[1] == 70_272
    assert tokens_for_pool(LLAMA3_70B, GIB, {"tp_size": 8})[1] == 40_960
    assert tokens_for_pool(LLAMA3_70B, GIB, {"tp_size": 16})[1] == 40_960  # max(1, 8 // 16) heads


def test_dcp_divides_kv_tensor_parallel_groups():
    """n = max(1, kvh // (attn_tp // dcp)): tp 8, dcp 2 keeps 2 heads per rank."""
    assert tokens_for_pool(LLAMA3_70B, GIB, {"tp_size": 8, "dcp_size": 2})[1] == 81_920


def test_page_rounding_and_max_total_tokens_cap():
    tokens, _ = tokens_for_pool(LLAMA3_8B, 10 * GIB + 12345, {"page_size": 64})
    assert tokens % 64 == 0 and tokens == (10 * GIB + 12345) // 131072 // 64 * 64
    capped = sglang(LLAMA3_8B, {"max_total_tokens": 100_000, "page_size": 64})
    assert capped.kv_tokens == 100_000 // 64 * 64


def test_dsa_fp8_cell_is_656_per_layer_plus_the_indexer_key():
    """fp8 FlashMLA latent 656 B (512 + 16 scale bytes + 64 bf16 rope) and the 132-byte indexer key, per layer."""
    from dataclasses import replace
    dsa = replace(DEEPSEEK_V3, mla=replace(DEEPSEEK_V3.mla, index_topk=2048, index_head_dim=128))
    assert tokens_for_pool(dsa, GIB, {"kv_cache_dtype": "fp8_e4m3"})[1] == (656 + 132) * 61


def test_logged_k_v_sizes_include_one_padding_page():
    b = sglang(LLAMA3_8B)
    per_layer = (b.kv_tokens + 1) * 8 * 128 * 2
    assert b.detail.k_size_gb == pytest.approx(32 * per_layer / GIB)
    assert b.detail.v_size_gb == b.detail.k_size_gb


def test_max_running_requests_formula():
    b = sglang(LLAMA3_8B)
    assert b.max_num_seqs == min(max(2048, min(4096, int(b.kv_tokens / 8192 * 512))), b.kv_tokens // 2)
    assert sglang(LLAMA3_8B, {"max_running_requests": 64}).max_num_seqs == 64


def test_hybrid_swa_only_for_listed_architectures():
    layers = tuple(LayerKV("sliding" if i % 2 == 0 else "full", 8, 64, 64, window=128) for i in range(24))
    gpt_oss = dense("openai/gpt-oss-20b", 24, 8, 64, kinds=layers, arch="GptOssForCausalLM")
    gemma = dense("google/gemma-3", 24, 8, 64, kinds=layers, arch="Gemma3ForCausalLM")
    swa_tokens, swa_cell = tokens_for_pool(gpt_oss, 10 * GIB)
    full_tokens, full_cell = tokens_for_pool(gemma, 10 * GIB)
    assert full_cell == 24 * 8 * 128 * 2
    assert swa_cell == pytest.approx(12 * 8 * 128 * 2 * 1.8, abs=1)
    assert swa_tokens > full_tokens


def test_context_length_and_fit():
    b = sglang(LLAMA3_8B, {"context_length": 4096})
    assert b.max_model_len == 4096 and b.fits_one_request
    assert b.max_concurrency == pytest.approx(b.kv_tokens / 4096)


def test_bad_kv_dtype_is_one_clear_error():
    with pytest.raises(KvlintError, match="kv-cache-dtype"):
        sglang(LLAMA3_8B, {"kv_cache_dtype": "fp8"})


def test_dp_attention_divides_attention_tp_and_adds_graph_reserve():
    plain = sglang(LLAMA3_70B, {"tp_size": 8, "dp_size": 8})
    dp_attn = sglang(LLAMA3_70B, {"tp_size": 8, "dp_size": 8, "enable_dp_attention": True})
    assert plain.kv_bytes_per_token == 80 * 2 * 128 * 2  # 1 kv head per rank
    assert dp_attn.kv_bytes_per_token == 80 * 8 * 2 * 128 * 2  # attention TP 1: all 8 heads
    assert dp_attn.parallel.dp == 1 and dp_attn.mem_fraction_static < plain.mem_fraction_static


def test_pipeline_ranks_take_the_smaller_pool():
    one = sglang(LLAMA3_70B, {"mem_fraction_static": 0.8}, weights=10 * GIB)
    two = sglang(LLAMA3_70B, {"mem_fraction_static": 0.8, "pp_size": 2}, weights=10 * GIB)
    assert two.kv_bytes_per_token == 40 * 8 * 2 * 128 * 2
    assert two.kv_tokens > one.kv_tokens


def _bundled(model_id):
    from kvlint.models.resolve import from_registry

    spec = from_registry(model_id)
    assert spec is not None
    return spec


def _swa_step(budget):
    return next(int(s.value) for s in budget.steps if s.name == "SWA pool")


def test_swa_pool_follows_the_max_total_tokens_cap():
    """KVCacheConfigurator.config_from_budget re-derives the split from the capped count
    (HybridSWAPoolConfigurator._solve_pool_sizes, SGLang 0.5.23): the wheel gives full 100,000 / SWA 80,000 for
    gpt-oss-20b, TP 2, H200, --max-total-tokens 100000 (bench/conformance/check_sglang_pool.py)."""
    b = sglang(_bundled("openai/gpt-oss-20b"), {"tp_size": 2, "max_total_tokens": 100_000}, memory=143771 * 2**20,
               weights=0, non_kv_bytes=0)
    assert (b.kv_tokens, _swa_step(b)) == (100_000, 80_000)


def test_swa_pool_follows_the_smallest_pp_stage():
    """PP ranks all-reduce the full pool to the smallest stage's (_apply_token_constraints) and re-derive SWA from
    it: the wheel gives full 124,334,192 / SWA 99,467,344 for gpt-oss-120b, TP 8, PP 4, page 16, fp8 KV, H200."""
    b = sglang(_bundled("openai/gpt-oss-120b"), {"tp_size": 8, "pp_size": 4, "page_size": 16,
                                                  "kv_cache_dtype": "fp8_e4m3"},
               memory=143771 * 2**20, weights=0, non_kv_bytes=0)
    assert (b.kv_tokens, _swa_step(b)) == (124_334_192, 99_467_344)


def test_mamba_pool_caps_max_running_requests():
    """resolve_max_num_reqs caps the requests at max_mamba_cache_size // 3 with the radix cache on
    (_calculate_mamba_ratio, SGLang 0.5.23): the wheel gives 549 for Qwen3-Next-80B, TP 2, H200, page 32,
    --max-total-tokens 100000 (bench/conformance/check_sglang_pool.py); 2,048 before the cap."""
    b = sglang(_bundled("Qwen/Qwen3-Next-80B-A3B-Thinking"), {"tp_size": 2, "page_size": 32,
                                                               "max_total_tokens": 100_000},
               memory=143771 * 2**20, weights=0, non_kv_bytes=0)
    assert (b.kv_tokens, b.max_num_seqs) == (100_000, 549)
    off = sglang(_bundled("Qwen/Qwen3-Next-80B-A3B-Thinking"), {"tp_size": 2, "page_size": 32,
                                                                 "max_total_tokens": 100_000,
                                                                 "disable_radix_cache": True},
                 memory=143771 * 2**20, weights=0, non_kv_bytes=0)
    assert off.max_num_seqs == 3 * 549 + 1  # one slot per request with the radix cache off: all 1,648 slots


def test_pp_stages_take_the_remainder_last():
    """SGLang's get_pp_indices (distributed/utils.py, 0.5.23) gives the extra layers to the last stages: 30 layers on
    PP 4 are [0,7) [7,14) [14,22) [22,30), so gemma-4-26B-A4B's last stage holds full layers 23 and 29 with six
    sliding ones. The wheel sizes that stage: 4,356,672 tokens at TP 8, page 64, 45 GB, mem fraction 0.843
    (bench/conformance/check_sglang_pool.py); vLLM's split (remainder to stages -2, -3) gave 4,792,320."""
    from kvlint.engines.sglang.memory import layers_of_stage

    assert [layers_of_stage(30, 4, r) for r in range(4)] == [range(0, 7), range(7, 14), range(14, 22), range(22, 30)]
    b = sglang(_bundled("google/gemma-4-26B-A4B"), {"tp_size": 8, "pp_size": 4, "page_size": 64,
                                                     "mem_fraction_static": 0.843},
               memory=46068 * 2**20, weights=0, non_kv_bytes=0)
    assert (b.kv_tokens, b.kv_bytes_per_token) == (4_356_672, 9012)


def test_dsa_indexer_keys_are_part_of_the_cell():
    """SGLang counts DeepSeek-V3.2's indexer keys in the cell max_total_num_tokens divides by
    (DefaultPoolConfigurator._compute_dsa_indexer_cell_size, 0.5.23): 128 fp8 bytes + a 4-byte scale on each of the
    61 layers, 8,052 B over the bf16 latent's 70,272. The wheel gives cell 78,324 and 1,694,733 tokens at TP 4 on an
    H200 (bench/conformance/check_sglang_pool.py); without the indexer, 1,888,922."""
    b = sglang(_bundled("deepseek-ai/DeepSeek-V3.2"), {"tp_size": 4}, memory=143771 * 2**20, weights=0,
               non_kv_bytes=0)
    assert (b.kv_bytes_per_token, b.kv_tokens) == (78_324, 1_694_733)


def test_dsa_indexer_follows_the_pipeline_stage():
    """On PP 2 the larger stage (31 of 61 layers) holds 31 indexer keys next to the fp8 FlashMLA latent (656 B a
    layer): the wheel gives cell 24,428 and 6,649,664 tokens for DeepSeek-V3.2-NVFP4, TP 4, PP 2, page 16, fp8 KV,
    183,359 MiB (7,987,712 without the indexer)."""
    b = sglang(_bundled("nvidia/DeepSeek-V3.2-NVFP4"), {"tp_size": 4, "pp_size": 2, "page_size": 16,
                                                         "kv_cache_dtype": "fp8_e4m3"},
               memory=183359 * 2**20, weights=0, non_kv_bytes=0)
    assert (b.kv_bytes_per_token, b.kv_tokens) == (24_428, 6_649_664)


def test_dsa_indexer_skips_shared_top_k_layers_pools_and_replicates_under_dcp():
    """Layers reusing the previous top-k keep no key; index_kpool pools tokens into one key (rounded up); the keys
    are replicated under decode context parallelism (x dcp)."""
    from kvlint.engines.sglang.memory import dsa_indexer_bytes
    from kvlint.models.config import spec_from_config

    base = {"architectures": ["DeepseekV32ForCausalLM"], "model_type": "deepseek_v32", "num_hidden_layers": 8,
            "hidden_size": 1024, "num_attention_heads": 8, "kv_lora_rank": 512, "qk_rope_head_dim": 64,
            "index_head_dim": 128, "index_topk": 256, "vocab_size": 1000, "torch_dtype": "bfloat16"}

    def indexer(extra, dcp=1):
        spec = spec_from_config({**base, **extra}, "t/dsa", "test")
        return dsa_indexer_bytes(spec, range(8), dcp)

    assert indexer({}) == 8 * 132
    assert indexer({"index_topk_freq": 2}) == 5 * 132  # fresh top-k on layers 0, 1, 3, 5, 7
    assert indexer({"index_topk_freq": 2, "index_skip_topk_offset": 3}) == 5 * 132  # 0, 1, 2, 4, 6
    assert indexer({"index_topk_pattern": "FSFSFFFF"}) == 6 * 132
    assert indexer({"indexer_types": ["full", "shared"] * 4}) == 4 * 132
    assert indexer({"index_kpool": 4}) == 8 * 33
    assert indexer({}, dcp=2) == 2 * 8 * 132
    assert indexer({"index_topk": None}) == 0


@pytest.mark.parametrize(("model_id", "gpu", "kv", "cell"), [
    # SGLang's server args set --kv-cache-dtype auto for sparse-attention models before the checkpoint is read
    # (_dsa_kv_cache_dtype_default, 0.5.23): fp8_e4m3 on SM100+ ((656 + 132) x 61 at TP 8), else bfloat16, even
    # where the checkpoint names an FP8 KV scheme (DeepSeek-V3.2-NVFP4's hf_quant_config)
    ("deepseek-ai/DeepSeek-V3.2", "B200", "fp8_e4m3", 48_068),
    ("deepseek-ai/DeepSeek-V3.2", "H100", "bfloat16", 78_324),
    ("nvidia/DeepSeek-V3.2-NVFP4", "H100", "bfloat16", 78_324),
    ("nvidia/DeepSeek-V3.2-NVFP4", "B200", "fp8_e4m3", 48_068),
    ("deepseek-ai/DeepSeek-V3", "B200", "bfloat16", 70_272),  # not sparse: the model dtype
    ("nvidia/DeepSeek-V3.1-NVFP4", "H100", "fp8_e4m3", 35_136),  # not sparse: the checkpoint's FP8 KV scheme
])
def test_dsa_kv_cache_dtype_auto_follows_the_card(model_id, gpu, kv, cell):
    from kvlint.gpus import lookup_gpu

    b = compute_budget("sglang", _bundled(model_id), {"tp_size": 8}, lookup_gpu(gpu), version="0.5.23")
    assert (b.kv_cache_dtype, b.kv_bytes_per_token) == (kv, cell)


def test_dsa_kv_cache_dtype_auto_keeps_bf16_with_learnable_sinks():
    from dataclasses import replace

    from kvlint.engines.sglang.memory import dsa_auto_kv

    spec = _bundled("deepseek-ai/DeepSeek-V3.2")
    assert dsa_auto_kv(spec, (10, 0)) == "fp8_e4m3" and dsa_auto_kv(spec, None) == "bfloat16"
    assert dsa_auto_kv(replace(spec, raw={**spec.raw, "learnable_sink": True}), (10, 0)) == "bfloat16"


def test_dsa_kv_cache_dtype_before_0_5_12_is_fp8_on_blackwell_whatever_the_flag():
    """SGLang 0.5.4's server_args set fp8_e4m3 for a DeepSeek NSA model on SM100+ even over --kv-cache-dtype, and left
    auto to the checkpoint elsewhere (so the NVFP4 V3.2's FP8 KV scheme on Hopper)."""
    from kvlint.gpus import lookup_gpu

    def kv(model_id, gpu, flag):
        b = compute_budget("sglang", _bundled(model_id), {"tp_size": 8, "kv_cache_dtype": flag}, lookup_gpu(gpu),
                           version="0.5.4")
        return b.kv_cache_dtype, b.kv_bytes_per_token

    assert kv("deepseek-ai/DeepSeek-V3.2", "B200", "bf16") == ("fp8_e4m3", 48_068)
    assert kv("nvidia/DeepSeek-V3.2-NVFP4", "H100", "auto") == ("fp8_e4m3", 48_068)
    assert kv("deepseek-ai/DeepSeek-V3.2", "H100", "auto") == ("bfloat16", 78_324)
