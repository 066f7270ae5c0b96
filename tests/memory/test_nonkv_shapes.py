"""Shapes of the non-KV estimate's tensors off the usual configs (issue O item 9): a V head narrower than the K
head, capture sizes at their thresholds.

The attention output is num_heads x v_head_dim (the attention kernel writes V's width; o_proj's input), split by TP
as a column-parallel output; a config with no separate V width has V as wide as K (head_dim)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from kvlint.memory.nonkv import capture_sizes, coefficients, forward_points

from .specs import dense


def _attention(points):
    return {t.full for _, tensors in points for t in tensors if t.name == "attention output"}


@pytest.mark.parametrize("tp", [1, 2])
def test_attention_output_is_v_heads_wide(tp):
    model = replace(dense("k256-v128", 4, 4, 256, heads=16, hidden=2048, inter=8192), v_head_dim=128)
    points = forward_points(model, tp)
    assert _attention(points) == {16 * 128}
    widths = {t.width for _, ts in points for t in ts if t.name == "attention output"}
    assert widths == {16 * 128 // tp}


def test_attention_output_without_a_v_width_is_k_wide():
    model = replace(dense("no-v", 4, 4, 256, heads=16, hidden=2048, inter=8192), v_head_dim=0)
    assert _attention(forward_points(model, 1)) == {16 * 256}


def test_forward_point_counts_follow_the_coefficients():
    c = coefficients()["vllm"]
    model = dense("plain", 4, 4, 128, heads=32, hidden=4096, inter=14336)
    [(point, tensors)] = forward_points(model, 1)
    names = [t.name for t in tensors]
    assert point == "MLP"
    assert names.count("residual") == c["forward_residual_tensors"]
    assert names.count("attention output") == c["forward_attention_output_tensors"]
    assert names.count("gate_up output") == c["forward_gate_up_tensors"]
    assert names.count("activation output") == c["forward_activation_tensors"]
    points = dict(forward_points(model, 2))
    assert [t.name for t in points["all-reduce"]].count("partial/reduced sum") == c["forward_allreduce_tensors"]


@pytest.mark.parametrize("mns, mnbt, blackwell, spec, want_len, want_max", [
    (1, 8192, False, 0, 2, 2),  # cap = min(1 x 2, 512) = 2: sizes 1, 2
    (2, 8192, False, 0, 3, 4),  # cap 4: 1, 2, 4
    (4, 8192, False, 0, 4, 8),  # cap 8: 1, 2, 4, 8
    (124, 8192, False, 0, 3 + 31 + 1, 248),  # cap 248: 1, 2, 4, 8..248 step 8, and max_num_seqs 124 itself
    (128, 8192, False, 0, 3 + 31 + 1, 256),  # cap 256: ... 248, 256
    (256, 8192, False, 0, 3 + 31 + 17, 512),  # cap 512: 256..512 step 16
    (256, 8192, True, 0, 3 + 31 + 17, 512),  # Blackwell: cap min(512, 1024) = 512
    (1024, 8192, True, 0, 3 + 31 + 49, 1024),  # Blackwell: 1024
    (1024, 8192, False, 0, 3 + 31 + 17, 512),
    (64, 8192, False, 1, 3 + 31 + 1, 256),  # speculative: 64 x (1 + 1) x 2 = 256
    (256, 300, False, 0, 3 + 31 + 4, 300),  # capped by the batch: 256, 272, 288 and 300 itself
    (3, 8192, False, 0, 4, 4),  # cap 6: 1, 2, 4 and max_num_seqs 3 itself; no 8 (cap < 8)
])
def test_capture_sizes_at_their_thresholds(mns, mnbt, blackwell, spec, want_len, want_max):
    sizes = capture_sizes(mns, mnbt, spec_tokens=spec, blackwell=blackwell)
    assert (len(sizes), max(sizes)) == (want_len, want_max)
    assert sizes == sorted(set(sizes))


def test_max_cpu_loras_is_noted_as_the_cpu_cache_only():
    """--max-cpu-loras sizes the CPU-side adapter cache; the GPU holds --max-loras slots (vLLM's LoRA manager)."""
    from kvlint.memory import compute_budget

    model = dense("lora-base", 4, 4, 128, heads=32, hidden=4096, inter=14336)
    lora = {"enable_lora": True, "max_loras": 2}
    note = "--max-cpu-loras sizes the CPU-side adapter cache; GPU memory holds --max-loras slots"
    with_cpu = compute_budget("vllm", model, {**lora, "max_cpu_loras": 8}, None, gpu_memory_bytes=80 * 2**30,
                              weights_bytes=0)
    without = compute_budget("vllm", model, lora, None, gpu_memory_bytes=80 * 2**30, weights_bytes=0)
    assert note in with_cpu.notes and note not in without.notes
    assert with_cpu.non_kv_bytes == without.non_kv_bytes  # the CPU cache costs no GPU memory


def test_a_moe_layer_keeps_the_routed_output_beside_its_shared_experts():
    """The MoE point holds the routed experts' output (hidden wide, full on every rank) beside the shared experts'
    gate_up / activation tensors; a model without shared experts has only that at the MoE point."""
    from kvlint.models.resolve import from_registry

    model = from_registry("Qwen/Qwen3-30B-A3B")  # no shared experts, every layer MoE
    points = dict(forward_points(model, 1))
    assert set(points) == {"MoE"}
    routed = [t for t in points["MoE"] if t.name == "routed output"]
    assert [(t.width, t.full) for t in routed] == [(model.hidden_size, model.hidden_size)]
    assert not any(t.name in ("gate_up output", "activation output") for t in points["MoE"])
