"""Weights per rank under expert parallelism and SGLang's attention DP (issue O item 7).

Qwen3-Coder-480B-A35B FP8 (62 layers, hidden 6144, 96 q / 8 kv heads of 128, 160 experts of 2560, vocab 151936,
untied head) on eight GPUs, per rank by hand:
  attention 62 x (2 x 6144 x 12288 + 2 x 6144 x 1024) = 10,141,827,072 fp8 weights (+ 128x128 block scales),
  experts 62 x 160 x 3 x 6144 x 2560 = 468,084,326,400 fp8 weights, one eighth on each rank,
  embedding and lm_head 151,936 x 6,144 = 933,494,784 bf16 weights each.
vLLM DP 8 + EP (TP 1): attention, embedding and head whole, experts / 8: 72,526,572,544 B (67.55 GiB).
vLLM TP 8 + EP: everything / 8 (the experts / (tp x dp) = / 8 as with TP alone).
SGLang --tp 8 --dp 8 --enable-dp-attention: attention and embedding over attn_tp = 1, the lm_head over the TP
group (8) unless --enable-dp-lm-head, experts over ep x moe_tp = 8 whatever --ep-size says.
"""

from __future__ import annotations

import pytest

from kvlint.engines.sglang.memory import sglang_placement
from kvlint.errors import InvalidSettingError
from kvlint.memory import compute_budget
from kvlint.models.resolve import from_registry
from kvlint.models.weights import Placement, weights_bytes

CODER = "Qwen/Qwen3-Coder-480B-A35B-Instruct-FP8"
H20 = 97871 * 2**20  # nvidia-smi MiB of an H20 96GB
HEAD_BYTES = 151_936 * 6_144 * 2
ROPE = 67_108_864  # vLLM's cos/sin cache the budget adds to the weights model


def coder():
    return from_registry(CODER)


def _weights(engine: str, settings: dict) -> int:
    return compute_budget(engine, coder(), settings, None, gpu_memory_bytes=H20).weights_bytes


def test_vllm_dp8_with_expert_parallel_divides_only_the_experts():
    assert _weights("vllm", {"data_parallel_size": 8, "enable_expert_parallel": True}) == 72_526_572_544 + ROPE
    # without --enable-expert-parallel every DP rank holds the whole model (449 GiB): no pool at all
    assert _weights("vllm", {"data_parallel_size": 8}) == 482_267_460_608
    # TP 8 + EP: experts over tp x dp = 8, attention over 8: the same bytes as TP 8 alone
    assert _weights("vllm", {"tensor_parallel_size": 8, "enable_expert_parallel": True}) == 60_383_075_584 + ROPE


def test_vllm_dp8_ep_budget_leaves_a_pool_on_h20():
    budget = compute_budget("vllm", coder(), {"data_parallel_size": 8, "enable_expert_parallel": True,
                                              "max_model_len": 32768}, None, gpu_memory_bytes=102_134_448_128)
    assert budget.num_blocks == 3_841 and budget.weights_bytes == 72_593_681_408


@pytest.mark.parametrize(("settings", "weights"), [
    ({"tp_size": 8}, 60_383_075_584),
    ({"tp_size": 8, "ep_size": 8}, 60_383_075_584),  # ep x moe_tp = tp: experts move between ranks, bytes do not
    ({"tp_size": 8, "dp_size": 8, "enable_dp_attention": True}, 72_526_572_544 - HEAD_BYTES * 7 // 8),
    ({"tp_size": 8, "dp_size": 8, "enable_dp_attention": True, "moe_a2a_backend": "deepep"},
     72_526_572_544 - HEAD_BYTES * 7 // 8),
    ({"tp_size": 8, "dp_size": 8, "enable_dp_attention": True, "enable_dp_lm_head": True}, 72_526_572_544),
    ({"tp_size": 8, "attn_dp_size": 2}, 60_383_075_584 + 1_501_411_584),  # attention + embedding over 4
])
def test_sglang_attention_dp_replicates_attention_and_embedding(settings, weights):
    assert _weights("sglang", settings) == weights


def test_sglang_dp_attention_weights_leave_no_pool_at_the_default_fraction():
    """Before, attention was split over all eight ranks (56.24 GiB) and the pool was 5.38 GiB; attention DP's
    graph reserve (32.46 GiB at the default fraction) with the whole attention on each rank (66.02 GiB) leaves
    nothing, as the engine would: such launches pass --mem-fraction-static."""
    budget = compute_budget("sglang", coder(), {"tp_size": 8, "dp_size": 8, "enable_dp_attention": True}, None,
                            gpu_memory_bytes=H20)
    assert budget.weights_bytes == 70_892_956_672 and budget.kv_tokens == 0
    tuned = compute_budget("sglang", coder(), {"tp_size": 8, "dp_size": 8, "enable_dp_attention": True,
                                               "mem_fraction_static": 0.9}, None, gpu_memory_bytes=H20)
    assert tuned.kv_tokens > 0


def test_sglang_placement_from_flags():
    assert sglang_placement({}, 8, 1) == (1, None)
    assert sglang_placement({"ep_size": 4}, 8, 1) == (4, Placement(attn_tp=8, head_tp=8, expert_tp=2))
    assert sglang_placement({"moe_a2a_backend": "deepep"}, 8, 8) == (
        8, Placement(attn_tp=1, head_tp=8, shared_tp=1, expert_tp=1))
    assert sglang_placement({"moe_dense_tp_size": 1}, 4, 4)[1] == Placement(attn_tp=1, head_tp=4, dense_tp=1,
                                                                           expert_tp=4)
    assert sglang_placement({"moe_a2a_backend": "deepep", "ep_num_redundant_experts": 32}, 8, 8)[1] == Placement(
        attn_tp=1, head_tp=8, shared_tp=1, expert_tp=1, redundant_experts=32)
    assert sglang_placement({"ep_num_redundant_experts": 32}, 8, 1) == (1, None)  # no EP, nothing redundant
    with pytest.raises(InvalidSettingError, match=r"ep_size \* moe_dp_size must be equal to tp_size"):
        sglang_placement({"ep_size": 3}, 8, 1)


def test_the_largest_ep_rank_holds_ceil_experts_over_ep():
    """vLLM's determine_expert_map gives the first E % ep ranks one expert more: 128 experts over 3 ranks is
    43 on rank 0, not 42.67. Qwen3-30B-A3B: 48 layers x 3 x 2048 x 768 bf16 weights an expert."""
    spec = from_registry("Qwen/Qwen3-30B-A3B")
    per_expert = 48 * 3 * 2048 * 768 * 2
    assert weights_bytes(spec, ep=3) - weights_bytes(spec, ep=4) == (43 - 32) * per_expert == 4_982_833_152


def test_shared_experts_replicated_under_deepep():
    """Qwen1.5-MoE-A2.7B has a shared expert (5632 wide) in each of 24 layers: DeepEP keeps it whole on every
    rank (models/qwen2_moe.py parallel_group="replicated"), TP splits it."""
    spec = from_registry("Qwen/Qwen1.5-MoE-A2.7B")
    split = weights_bytes(spec, tp=4, ep=4, placement=Placement(expert_tp=1))
    whole = weights_bytes(spec, tp=4, ep=4, placement=Placement(shared_tp=1, expert_tp=1))
    assert whole - split == 24 * 3 * 2048 * 5632 * 2 * 3 // 4


@pytest.mark.parametrize(("eplb", "experts_on_rank"), [
    ({}, 32),  # 128 / 4
    ({"enable_eplb": True, "eplb_config": '{"num_redundant_experts": 32}'}, 40),  # (128 + 32) / 4
    ({"enable_eplb": True, "eplb_config": {"num_redundant_experts": 2}}, 33),  # ceil(130 / 4)
    ({"eplb_config": '{"num_redundant_experts": 32}'}, 32),  # without --enable-eplb nothing is replicated
])
def test_vllm_eplb_redundant_experts_are_loaded_on_each_rank(eplb, experts_on_rank):
    """vLLM's EPLB adds num_redundant_experts physical experts (fused_moe/layer.py determine_expert_counts),
    spread over the EP ranks like the others. Qwen3-30B-A3B, DP 4 + EP: 48 layers x 3 x 2048 x 768 bf16 an
    expert."""
    spec = from_registry("Qwen/Qwen3-30B-A3B")
    base = {"data_parallel_size": 4, "enable_expert_parallel": True}
    plain = compute_budget("vllm", spec, base, None, gpu_memory_bytes=H20).weights_bytes
    loaded = compute_budget("vllm", spec, {**base, **eplb}, None, gpu_memory_bytes=H20).weights_bytes
    assert loaded - plain == (experts_on_rank - 32) * 48 * 3 * 2048 * 768 * 2


def test_sglang_redundant_experts_add_to_each_ep_rank():
    """SGLang's EPLB: E + R physical experts over the EP ranks. Qwen3-Coder-480B, --tp 8 with DeepEP and 32
    redundant experts: (160 + 32) / 8 = 24 experts a rank instead of 20, 62 layers x 3 x 6144 x 2560 fp8."""
    base = {"tp_size": 8, "moe_a2a_backend": "deepep"}
    plain = _weights("sglang", base)
    more = _weights("sglang", {**base, "ep_num_redundant_experts": 32})
    per_expert = 62 * 3 * 6144 * 2560
    assert abs((more - plain) - 4 * per_expert) < per_expert // 1000  # + their fp8 block scales
