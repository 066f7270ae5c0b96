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
