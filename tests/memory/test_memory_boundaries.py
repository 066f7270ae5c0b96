"""Boundaries of the memory models that the settings grid does not isolate (issue O item 9, helper MU3): each
expected number is derived by hand from the formula named in the test, not copied from kvlint's output."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from kvlint.deployment import Setting
from kvlint.engines.vllm.planning import longest_length
from kvlint.errors import KvlintError
from kvlint.gpus import lookup_gpu
from kvlint.memory import compute_budget
from kvlint.memory.common import MIB, gpu_facts, setting
from kvlint.memory.nonkv import ActivationPeak, LiveTensor
from kvlint.models.resolve import from_registry


@pytest.mark.parametrize("upper,check_mem,want", [
    (1, 10, 1),    # the bound itself is 1 and length 1 fits: 1, not "nothing fits"
    (0, 10, 0),    # an empty range
    (7, 1, 1),     # needed(1) == check_mem fits (<=)
    (7, 0, 0),     # needed(1) > check_mem: nothing fits
    (7, 7, 7),     # the upper bound fits exactly
    (100, 37, 37),
], ids=["upper-1", "upper-0", "first-equal", "first-over", "upper-equal", "inside"])
def test_longest_length_at_its_bounds(upper, check_mem, want):
    """needed(n) = n bytes: the largest n in [1, upper] with n <= check_mem, or 0."""
    assert longest_length(lambda n: n, check_mem, upper) == want


def test_sglang_chunked_prefill_size_0_sizes_the_activation_like_chunking_off():
    """SGLang 0.5.x's reserve: 512 + 1.5 x activation + tp*pp/8 x 1024 (+ graphs, off here); the activation is
    max(chunked_prefill_size, 2048) only for a positive size, else max(max_prefill_tokens, 2048). On an L40S
    (under 60 GB: no 10,240 MB floor) at TP 1: 512 + 1.5 x 8192 + 128 = 12,928 MB for size 0 with
    --max-prefill-tokens 8192 (the same as -1), and 512 + 1.5 x 4096 + 128 = 6,784 for size 4096."""
    model = from_registry("meta-llama/Meta-Llama-3-8B")

    def reserved(**settings):
        b = compute_budget("sglang", model, {"disable_cuda_graph": True, "max_prefill_tokens": 8192, **settings},
                           lookup_gpu("L40S"), version="0.5.23")
        return next(s.value for s in b.steps if s.name == "reserved (MB)")

    assert reserved(chunked_prefill_size=0) == 12928
    assert reserved(chunked_prefill_size=-1) == 12928
    assert reserved(chunked_prefill_size=4096) == 6784
    assert reserved(chunked_prefill_size=1000) == 512 + 1.5 * 2048 + 128  # below 2,048: the 2,048 floor


def test_vllm_bytes_per_token_is_the_largest_pipeline_stage():
    """Llama-3-8B: 32 layers, 8 KV heads of 128, bf16: 8 x 128 x 2 (K and V) x 2 B = 4,096 B per layer per
    token. PP 3 splits 32 as 10 + 1 + 1 (the remainder to stages -2 and -3): 11, 11, 10 layers. vLLM sizes
    each stage by its own layers; the figure a user reads is the largest stage's, 11 x 4,096 = 45,056 (the
    smallest would be 40,960). PP 2: 16 + 16, 65,536."""
    model = from_registry("meta-llama/Meta-Llama-3-8B")
    h100 = lookup_gpu("H100")
    b3 = compute_budget("vllm", model, {"pipeline_parallel_size": 3}, h100, version="0.33.0")
    assert b3.kv_bytes_per_token == 11 * 4096
    b2 = compute_budget("vllm", model, {"pipeline_parallel_size": 2}, h100, version="0.33.0")
    assert b2.kv_bytes_per_token == 16 * 4096


def test_a_card_without_a_catalogue_total_is_its_mib():
    """A GPU record with only memory_mib (no total_bytes of its own): total = MiB x 1,048,576."""
    card = SimpleNamespace(name="Card 24G", memory_mib=24576, compute_capability="8.9")
    facts = gpu_facts("vllm", card, None)
    assert facts.total_bytes == 24576 * MIB == 25_769_803_776
    with pytest.raises(KvlintError, match="GPU memory must be positive"):
        gpu_facts("vllm", SimpleNamespace(name="No memory", memory_mib=None), None)


def test_a_setting_that_holds_none_reads_as_the_default():
    resolved_none = Setting("max_model_len", None)
    unresolved = Setting("max_model_len", "${LEN}", resolved=False)
    assert setting({"max_model_len": resolved_none}, "max_model_len", 4096) == 4096
    assert setting({"max_model_len": unresolved}, "max_model_len", 4096) == 4096
    assert setting({"max_model_len": Setting("max_model_len", 8192)}, "max_model_len", 4096) == 8192
    assert setting({"max_model_len": None}, "max_model_len", 4096) == 4096


def test_the_activation_formula_counts_a_repeated_tensor():
    """Two residuals alive at once are written `2 x residual 4096`, once; a TP-split tensor as full/tp."""
    peak = ActivationPeak("MLP", (LiveTensor("residual", 4096, 4096), LiveTensor("residual", 4096, 4096),
                                  LiveTensor("gate_up", 7168, 28672)), 2048, 2)
    assert peak.formula(4) == "2048 tokens x 2 B x (2 x residual 4096 + gate_up 28672/4) at the MLP point of a layer"
    assert peak.bytes == 2048 * 2 * (4096 + 4096 + 7168)


def test_the_weights_formula_names_the_rope_table():
    """vLLM's RoPE cos/sin cache: max_position x rotary_dim at the model dtype; Llama-3-8B: 8,192 x 128 x 2 B =
    2,097,152 B = 0.00195 GiB, named in the weights line (it is counted inside "Model loading took")."""
    model = from_registry("meta-llama/Meta-Llama-3-8B")
    b = compute_budget("vllm", model, {}, lookup_gpu("H100"), version="0.33.0")
    [weights] = [s for s in b.steps if s.name == "weights per rank"]
    assert weights.formula == "weights model (per rank, this stage) + RoPE cos/sin table 0.00195 GiB"


def test_no_gpu_given_assumes_the_catalogue_h100_and_says_so():
    model = from_registry("meta-llama/Meta-Llama-3-8B")
    b = compute_budget("vllm", model, {"max_model_len": 8192}, None, version="0.33.0")
    h100 = compute_budget("vllm", model, {"max_model_len": 8192}, lookup_gpu("H100"), version="0.33.0")
    assert b.kv_tokens == h100.kv_tokens and b.gpu_name == h100.gpu_name
    assert any(n.startswith("no GPU given: assuming ") for n in b.notes)
    assert not any(n.startswith("no GPU given") for n in h100.notes)


def test_a_compute_capability_given_as_a_pair_or_text():
    for cc in ((8, 9), [8, 9], "8.9", 8.9):
        card = SimpleNamespace(name="Card", memory_mib=24576, compute_capability=cc)
        assert gpu_facts("vllm", card, None).compute_capability == (8, 9), cc
    assert gpu_facts("vllm", SimpleNamespace(name="C", memory_mib=1, compute_capability="9"), None) \
        .compute_capability == (9, 0)


def test_vllm_kv_cache_dtypes_it_accepts_and_refuses():
    """vLLM's CacheDType: auto, float16 / bfloat16, the fp8 family ...; `half`, `float32`, `float` are model dtypes
    it refuses as a cache dtype."""
    model = from_registry("meta-llama/Meta-Llama-3-8B")
    for ok in ("auto", "bfloat16", "float16", "fp8", "fp8_e5m2"):
        compute_budget("vllm", model, {"kv_cache_dtype": ok, "max_model_len": 4096}, lookup_gpu("H100"), version="0.33.0")
    for bad in ("half", "float32", "float"):
        with pytest.raises(KvlintError, match="Invalid kv_cache_dtype"):
            compute_budget("vllm", model, {"kv_cache_dtype": bad}, lookup_gpu("H100"), version="0.33.0")


def test_vllm_lora_without_max_loras_is_one_slot():
    """--max-loras defaults to 1: LoRA on without it sizes like --max-loras 1, and 2 slots reserve more."""
    model = from_registry("meta-llama/Meta-Llama-3-8B")
    base = {"enable_lora": True, "max_lora_rank": 64, "max_model_len": 8192}

    def pool(**extra):
        return compute_budget("vllm", model, {**base, **extra}, lookup_gpu("H100"), version="0.33.0").kv_pool_bytes

    assert pool() == pool(max_loras=1) > pool(max_loras=2)


def test_sglang_reserve_floor_on_a_card_above_60_gb():
    """SGLang 0.5.x on a card above 60 GB reserves at least 10,240 MB: with --chunked-prefill-size 1024 and graphs
    off the formula gives 512 + 1.5 x 2048 + 128 = 3,712 MB, so the floor, 10,240, is what is reserved."""
    model = from_registry("meta-llama/Meta-Llama-3-8B")
    b = compute_budget("sglang", model, {"chunked_prefill_size": 1024, "disable_cuda_graph": True}, lookup_gpu("H100"),
                       version="0.5.23")
    assert next(s.value for s in b.steps if s.name == "reserved (MB)") == 10240


@pytest.mark.parametrize("max_bs,count", [(4, 1), (32, 8), (33, 8), (48, 9), (256, 22), (287, 22), (288, 23),
                                          (319, 23), (320, 24), (512, 30), (8192, 58)])
def test_sglang_prefill_graph_sizes_at_each_step(max_bs, count):
    """Sizes 4..32 by 4 (8), 48..256 by 16 (14), 288..512 by 32 (8), 576..1024 by 64 (8), 1280..4096 by 256 (12),
    4608.. by 512: counted up to max_bs (58 for 8192)."""
    from kvlint.engines.sglang.memory import prefill_graph_sizes

    assert prefill_graph_sizes(max_bs) == count


def test_sglang_cuda_context_grows_with_any_second_gpu():
    """1 GiB of CUDA context, plus 0.5 GiB of NCCL when the launch spans more than one GPU (TP or PP)."""
    from kvlint.memory.nonkv import sglang_context

    assert sglang_context(1, 1) == 2**30
    assert sglang_context(1, 2) == sglang_context(2, 1) == sglang_context(2, 2) == 2**30 + 2**29


def test_sglang_tokens_for_a_given_pool_have_no_draft():
    """Llama-3-8B in bf16: 32 layers x 8 KV heads x 128 x 2 (K, V) x 2 B = 131,072 B a token; a pool of 1,000
    tokens' bytes holds 1,000 tokens (page 1), with no speculative draft unless one is given."""
    from kvlint.engines.sglang.memory import tokens_for_pool

    model = from_registry("meta-llama/Meta-Llama-3-8B")
    assert tokens_for_pool(model, 1000 * 131072) == (1000, 131072)


def test_longest_length_asks_once_more_when_the_upper_length_fits():
    """needed() grows with the length, so a fitting upper bound is the answer without a search; below it the
    search still finds the largest length that fits."""
    asked: list[int] = []

    def needed(n: int) -> int:
        asked.append(n)
        return 3 * -(-n // 16)

    assert longest_length(needed, 3 * 8, 128) == 128 and asked == [1, 128]
    asked.clear()
    assert longest_length(needed, 3 * 4, 128) == 64 and len(asked) > 2
