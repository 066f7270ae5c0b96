"""vLLM model details: dtype resolution, block sizes, parallelism, batch defaults, auto-fit and checks."""

from __future__ import annotations

from dataclasses import replace

import pytest

from kvlint.engines.vllm.planning import layers_of_stage
from kvlint.errors import KvlintError
from kvlint.memory import compute_budget
from kvlint.models.spec import LayerKV, Quantization

from .specs import DEEPSEEK_V3, LLAMA3_8B, LLAMA3_70B, dense

GIB = 2**30


def vllm(model, settings=None, memory=80 * GIB, gpu=None, **kw):
    kw.setdefault("weights_bytes", 0)
    return compute_budget("vllm", model, settings or {}, gpu, gpu_memory_bytes=memory, **kw)


class Card:
    """A minimal GPU record (kvlint.gpus.Gpu shape) for block-size and batch-default tests."""

    def __init__(self, name, cc, gib):
        self.name, self.compute_capability, self.memory_mib = name, cc, gib * 1024

    def total_bytes(self, engine):
        return self.memory_mib * 2**20


@pytest.mark.parametrize("kv, per_token", [
    ("auto", 131_072), ("bfloat16", 131_072), ("fp8_e5m2", 65_536),
    ("fp8_per_token_head", 32 * 8 * (256 + 8)), ("int4_per_token_head", 32 * 8 * (128 + 8)),
    ("nvfp4", 32 * 16 * (64 + 8)),
])
def test_kv_cache_dtypes(kv, per_token):
    assert vllm(LLAMA3_8B, {"kv_cache_dtype": kv}).kv_bytes_per_token == per_token


def test_checkpoint_kv_scheme_makes_auto_fp8():
    quantized = replace(LLAMA3_8B, quant=Quantization("modelopt", 8, kv_cache_dtype="fp8"))
    b = vllm(quantized)
    assert b.kv_cache_dtype == "fp8" and b.kv_bytes_per_token == 65_536


def test_float32_checkpoint_runs_bf16_unless_dtype_forced():
    f32 = replace(LLAMA3_8B, dtype="float32")
    assert vllm(f32).kv_bytes_per_token == 131_072
    assert vllm(f32, {"dtype": "float32"}).kv_bytes_per_token == 262_144


@pytest.mark.parametrize("kv, message", [("fp9", "Invalid kv_cache_dtype"), ("turboquant_k8v4", "does not model"),
                                         ("fp8_ds_mla", "only valid for MLA")])
def test_bad_kv_dtypes_are_clear_errors(kv, message):
    with pytest.raises(KvlintError, match=message):
        vllm(LLAMA3_8B, {"kv_cache_dtype": kv})


def test_mla_block_size_hopper_16_blackwell_32_sparse_64():
    assert vllm(DEEPSEEK_V3, gpu=Card("H100", "9.0", 80)).block_size == 16
    assert vllm(DEEPSEEK_V3, gpu=Card("B200", "10.0", 180)).block_size == 32
    sparse = replace(DEEPSEEK_V3, mla=replace(DEEPSEEK_V3.mla, index_topk=2048, index_head_dim=128))
    b = vllm(sparse, {"kv_cache_dtype": "fp8"})
    assert b.block_size == 64 and b.kv_cache_dtype == "fp8_ds_mla"
    assert b.kv_bytes_per_token == 61 * (656 + 132)  # latent + the V3.2 indexer cache


def test_user_block_size_wins():
    b = vllm(LLAMA3_8B, {"block_size": 32, "max_model_len": 8192, "kv_cache_memory_bytes": GIB})
    assert b.block_size == 32 and b.detail.bytes_per_block == 32 * 131_072  # 32 layers x 32-token pages
    assert b.detail.blocks_per_request == 8192 // 32


@pytest.mark.parametrize("card, mnbt, mns", [
    (Card("NVIDIA H100 80GB HBM3", "9.0", 80), 8192, 1024),
    (Card("NVIDIA A100-SXM4-80GB", "8.0", 80), 2048, 256),
    (Card("NVIDIA L40S", "8.9", 45), 2048, 256),
    (Card("NVIDIA B200", "10.0", 180), 16384, 1024),
])
def test_server_batch_defaults(card, mnbt, mns):
    b = vllm(LLAMA3_8B, {"max_model_len": 8192}, memory=None, gpu=card)
    assert (b.max_num_batched_tokens, b.max_num_seqs) == (mnbt, mns)


def test_throughput_mode_doubles_unset_batch_defaults():
    b = vllm(LLAMA3_8B, {"performance_mode": "throughput", "max_model_len": 8192}, gpu=Card("H100", "9.0", 80),
             memory=None)
    assert (b.max_num_batched_tokens, b.max_num_seqs) == (16384, 2048)


def test_pipeline_split_never_gives_the_remainder_to_the_last_stage():
    assert [len(layers_of_stage(10, 4, r)) for r in range(4)] == [2, 3, 3, 2]
    assert [len(layers_of_stage(80, 1, 0))] == [80]


def test_pipeline_stages_plan_on_their_own_layers_and_take_the_minimum():
    pool = 10 * GIB
    one = vllm(LLAMA3_70B, {"max_model_len": 8192, "kv_cache_memory_bytes": pool})
    two = vllm(LLAMA3_70B, {"max_model_len": 8192, "kv_cache_memory_bytes": pool, "pipeline_parallel_size": 3})
    assert one.detail.bytes_per_block == 80 * 65_536
    assert two.detail.bytes_per_block == 27 * 65_536  # stages of 26, 27, 27 layers: the largest limits
    assert two.num_blocks == pool // (27 * 65_536)


def test_dcp_keeps_a_shard_of_each_request_per_rank():
    settings = {"max_model_len": 8192, "num_gpu_blocks_override": 1024}
    plain = vllm(DEEPSEEK_V3, settings)
    dcp = vllm(DEEPSEEK_V3, {**settings, "tensor_parallel_size": 8, "decode_context_parallel_size": 2})
    assert dcp.max_concurrency == 2 * plain.max_concurrency


def test_data_parallel_numbers_are_per_engine():
    a = vllm(LLAMA3_8B, {"max_model_len": 8192, "kv_cache_memory_bytes": 20 * GIB})
    b = vllm(LLAMA3_8B, {"max_model_len": 8192, "kv_cache_memory_bytes": 20 * GIB, "data_parallel_size": 4})
    assert (a.kv_tokens, a.num_blocks) == (b.kv_tokens, b.num_blocks) and b.parallel.dp == 4


def test_auto_fit_reduces_to_what_fits_and_reports_it():
    b = vllm(LLAMA3_8B, {"max_model_len": "auto", "kv_cache_memory_bytes": GIB})
    assert b.max_model_len == (GIB - 2 * 2**20) // 131_072 // 16 * 16 and b.fits_one_request
    assert any(s.name == "max_model_len (auto-fit)" for s in b.steps)


def test_not_fitting_reports_the_longest_length_that_fits():
    b = vllm(LLAMA3_8B, {"max_model_len": 8192, "kv_cache_memory_bytes": GIB // 2})
    assert not b.fits_one_request and b.estimated_max_model_len == (GIB // 2 - 2 * 2**20) // 131_072 // 16 * 16


def test_estimated_length_never_exceeds_the_configured_max_model_len():
    """vLLM's binary search runs over [1, max_model_len] (engines.md 1.6): a roomy pool with a
    short --max-model-len reports that length, not the model's derived context."""
    model = replace(LLAMA3_8B, max_len_vllm=131072, max_len_sglang=131072)
    b = vllm(model, {"max_model_len": 4096, "kv_cache_memory_bytes": 40 * GIB})
    assert b.fits_one_request and b.kv_tokens > 131072
    assert b.estimated_max_model_len == 4096


def test_requested_memory_and_subtraction():
    b = vllm(LLAMA3_8B, {"gpu_memory_utilization": 0.5}, memory=80 * GIB, weights_bytes=15 * GIB,
             non_kv_bytes=2 * GIB)
    assert b.requested_bytes == 40 * GIB and b.kv_pool_bytes == 23 * GIB


def test_cpu_offload_frees_weight_memory():
    base = vllm(LLAMA3_8B, weights_bytes=15 * GIB, non_kv_bytes=GIB)
    off = vllm(LLAMA3_8B, {"cpu_offload_gb": 4}, weights_bytes=15 * GIB, non_kv_bytes=GIB)
    assert off.kv_pool_bytes - base.kv_pool_bytes == 4 * GIB


def test_hma_off_for_llama4_chunked_layers_only_through_013():
    """VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE defaults to 0 through 0.13 (chunked layers become full) and
    to 1 from 0.14 on (envs.py in the 0.13 and 0.14 wheels; chunked layers keep their own groups)."""
    layers = tuple(LayerKV("full" if i % 4 == 3 else "chunked", 8, 128, 128, window=8192) for i in range(48))
    scout = dense("meta-llama/Llama-4-Scout", 48, 8, 128, kinds=layers, arch="Llama4ForConditionalGeneration")
    settings = {"max_model_len": 8192, "kv_cache_memory_bytes": 10 * GIB}
    groups = {v: compute_budget("vllm", scout, settings, None, version=v, gpu_memory_bytes=80 * GIB,
                                weights_bytes=0).detail.kv_groups
              for v in ("0.11.0", "0.13.0", "0.14.0", "0.19.0", "0.20.0", "0.33.0")}
    assert groups == {"0.11.0": 1, "0.13.0": 1, "0.14.0": 4, "0.19.0": 4, "0.20.0": 4, "0.33.0": 4}


@pytest.mark.parametrize("settings", [{"tensor_parallel_size": 0}, {"gpu_memory_utilization": 1.5},
                                      {"max_model_len": 0}, {"tensor_parallel_size": "two"}])
def test_bad_settings_raise_kvlint_errors(settings):
    with pytest.raises(KvlintError):
        vllm(LLAMA3_8B, settings)


# ---------------------------------------------- the one-request check by release (v1/core/kv_cache_utils.py)
@pytest.mark.parametrize("version, fits", [("0.13.0", True), ("0.14.0", False), ("0.15.0", False),
                                           ("0.17.0", True), ("0.19.0", True)])
def test_pp_check_on_014_and_015_takes_the_whole_model_against_one_worker(version, fits):
    """0.14 and 0.15 get_kv_cache_configs check the whole model's groups against min(available_memory), so with PP 2
    each worker must hold every layer's blocks for one request; 0.13 checks each worker's own layers (raw specs),
    0.17+ each worker's projected groups. Llama-3-8B at 8,192 tokens: 1 GiB over 32 layers, 0.5 GiB per stage."""
    settings = {"max_model_len": 8192, "pipeline_parallel_size": 2, "kv_cache_memory_bytes": 3 * GIB // 4}
    b = vllm(LLAMA3_8B, settings, version=version)
    assert b.fits_one_request is fits
    if not fits:
        assert b.estimated_max_model_len == 6144  # 0.75 GiB / 128 KiB per token over 32 layers


def _scout_like():
    layers = tuple(LayerKV("full" if i % 4 == 3 else "chunked", 8, 128, 128, window=8192) for i in range(48))
    return dense("meta-llama/Llama-4-Scout", 48, 8, 128, kinds=layers, arch="Llama4ForConditionalGeneration",
                 max_len=1_048_576)


@pytest.mark.parametrize("version, fits", [("0.13.0", False), ("0.14.0", True), ("0.15.0", True), ("0.17.0", True),
                                           ("0.18.0", True), ("0.19.0", False), ("0.33.0", False)])
def test_014_to_018_size_a_request_by_the_first_group_alone(version, fits):
    """0.14-0.18 _max_memory_usage_bytes_from_groups counts group size x page x the blocks of kv_cache_groups[0]'s
    spec only; 0.19 sums every group. Llama-4's first layers are chunked, so its first group needs chunk + batch
    tokens and a 1M-token request passes the check on a 10 GiB pool that holds ~80K tokens; 0.13 (hybrid manager off:
    every layer full) and 0.19+ refuse it."""
    b = vllm(_scout_like(), {"max_model_len": 1_048_576, "kv_cache_memory_bytes": 10 * GIB}, version=version)
    assert b.fits_one_request is fits


@pytest.mark.parametrize("full, sliding, version, groups", [
    (11, 13, "0.11.0", 3), (11, 13, "0.13.0", 2),  # 13 < 1.25 x 11: groups of 13 from 0.12 (0.11: the smallest, 11)
    (10, 14, "0.17.0", 3), (10, 14, "0.18.0", 2),  # 14 < 1.5 x 10 but not 1.25 x: groups of 14 only from 0.18
])
def test_group_size_ratio_by_release(full, sliding, version, groups):
    """_get_kv_cache_groups_uniform_page_size: the largest bucket's size when below ratio x the smallest's, else the
    smallest's: always the smallest in 0.10.1/0.11.0, ratio 1.25 in 0.12-0.17, 1.5 from 0.18."""
    kinds = tuple(LayerKV("full", 8, 128, 128) for _ in range(full)) + tuple(
        LayerKV("sliding", 8, 128, 128, window=4096) for _ in range(sliding))
    model = dense("x/hybrid", full + sliding, 8, 128, kinds=kinds)
    b = vllm(model, {"max_model_len": 8192, "kv_cache_memory_bytes": 10 * GIB}, version=version)
    assert b.detail.kv_groups == groups
