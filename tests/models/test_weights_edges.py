"""weights_bytes at the edges of what a launch may ask (issue O item 9): every refusal's words and the last value
that is still accepted, the dtype and --quantization spellings, and the mxfp4 layout's own checks."""

from __future__ import annotations

import pytest

from kvlint.models.resolve import from_registry
from kvlint.models.weights import (
    Placement,
    WeightsError,
    mxfp4_layout_bytes,
    pp_layer_range,
    rope_cache_bytes,
    weights_bytes,
)

QWEN = from_registry("Qwen/Qwen3-8B")  # 36 layers, bf16
MOE = from_registry("Qwen/Qwen3-30B-A3B")  # 48 layers, 128 experts
OSS = from_registry("openai/gpt-oss-20b")  # mxfp4 experts


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"tp": 0}, "invalid parallel sizes tp=0 pp=1 pp_rank=None ep=1"),
    ({"pp": 0}, "invalid parallel sizes tp=1 pp=0 pp_rank=None ep=1"),
    ({"ep": 0}, "invalid parallel sizes tp=1 pp=1 pp_rank=None ep=0"),
    ({"pp": 2, "pp_rank": 2}, "invalid parallel sizes tp=1 pp=2 pp_rank=2 ep=1"),
    ({"pp": 2, "pp_rank": -1}, "invalid parallel sizes tp=1 pp=2 pp_rank=-1 ep=1"),
    ({"pp": 37}, "pp=37 is larger than the model's 36 layers"),
    ({"dtype": "int3"}, "unknown dtype 'int3': use float16, bfloat16 or float32"),
    ({"quantization": "experts_int8"},
     "--quantization experts_int8 needs a checkpoint quantized that way; Qwen/Qwen3-8B declares none"),
    ({"tp": 2, "placement": Placement(expert_tp=0)}, "invalid placement"),
    ({"tp": 2, "placement": Placement(redundant_experts=-1)}, "invalid placement"),
])
def test_each_refusal_says_what_is_wrong(kwargs, message):
    with pytest.raises(WeightsError) as caught:
        weights_bytes(QWEN, **kwargs)
    assert caught.value.message.startswith(message)


def test_the_last_accepted_values():
    assert weights_bytes(QWEN, pp=36) > 0 and weights_bytes(QWEN, pp=36, pp_rank=35) > 0
    assert weights_bytes(QWEN, pp=2, pp_rank=0) != weights_bytes(QWEN, pp=2, pp_rank=1) > 0
    assert weights_bytes(QWEN, pp=2) == max(weights_bytes(QWEN, pp=2, pp_rank=r) for r in (0, 1))
    assert weights_bytes(QWEN, tp=2, placement=Placement(attn_tp=0)) == weights_bytes(QWEN, tp=2)  # 0: the TP group
    assert weights_bytes(QWEN, tp=2, placement=Placement(attn_tp=1, head_tp=1, dense_tp=1, shared_tp=1,
                                                        expert_tp=1, redundant_experts=0)) == weights_bytes(QWEN)
    assert [len(pp_layer_range(36, 36, r)) for r in range(36)] == [1] * 36
    assert [len(pp_layer_range(7, 3, r)) for r in range(3)] == [2, 3, 2]
    assert [len(pp_layer_range(8, 3, r)) for r in range(3)] == [3, 3, 2]
    assert [len(pp_layer_range(5, 1, 0))] == [5]


def test_dtype_and_quantization_spellings():
    bf16 = weights_bytes(QWEN)
    assert weights_bytes(QWEN, dtype="half") == weights_bytes(QWEN, dtype="torch.float16") == bf16
    assert weights_bytes(QWEN, dtype="float") == weights_bytes(QWEN, dtype="float32") == 2 * bf16
    online = weights_bytes(QWEN, quantization="fp8")
    assert weights_bytes(QWEN, quantization="FP8-Dynamic") == weights_bytes(QWEN, quantization="ptpc_fp8") == online
    assert weights_bytes(QWEN, quantization="") == bf16 and weights_bytes(QWEN, quantization=None) == bf16
    assert weights_bytes(QWEN, quantization="BitsAndBytes") == weights_bytes(QWEN, quantization="bitsandbytes")
    assert weights_bytes(QWEN, dtype="fp8") < bf16  # an fp8 model dtype prices every unquantized weight at 1 B
    fp32 = from_registry("openai-community/gpt2")
    assert fp32.dtype == "float32" and weights_bytes(fp32) * 2 == weights_bytes(fp32, dtype="float32")


def test_rope_tables_by_dtype():
    auto = rope_cache_bytes(QWEN)
    assert rope_cache_bytes(QWEN, "float32") == 2 * auto == 2 * rope_cache_bytes(QWEN, "float16")
    assert rope_cache_bytes(QWEN, "torch.bfloat16") == auto and rope_cache_bytes(QWEN, "weird") == auto
    assert auto == QWEN.max_len_vllm * QWEN.head_dim * 2
    opt = from_registry("openai-community/gpt2")  # float32 checkpoint: --dtype auto downcasts the table too
    assert rope_cache_bytes(opt) == rope_cache_bytes(opt, "bfloat16")


def test_expert_parallel_largest_rank_and_redundant_experts():
    whole = weights_bytes(MOE)
    assert weights_bytes(MOE, ep=128) < weights_bytes(MOE, ep=127) < weights_bytes(MOE, ep=2) < whole
    assert weights_bytes(MOE, ep=1) == whole
    assert weights_bytes(MOE, placement=Placement(redundant_experts=4)) == whole  # EPLB's copies need EP > 1
    assert weights_bytes(QWEN, tp=2, ep=2, placement=Placement(redundant_experts=4)) == weights_bytes(QWEN, tp=2)
    plain = weights_bytes(MOE, tp=4, ep=4)
    assert weights_bytes(MOE, tp=4, ep=4, placement=Placement(redundant_experts=0)) == plain
    assert weights_bytes(MOE, tp=4, ep=4, placement=Placement(redundant_experts=4)) > plain
    assert weights_bytes(MOE, tp=4, ep=4, placement=Placement(redundant_experts=3)) == \
        weights_bytes(MOE, tp=4, ep=4, placement=Placement(redundant_experts=4))  # ceil(131 / 4) == ceil(132 / 4)


def test_mxfp4_layout_checks():
    assert mxfp4_layout_bytes(QWEN, "marlin") == 0 and mxfp4_layout_bytes(OSS, "checkpoint") == 0
    assert mxfp4_layout_bytes(OSS, "marlin") > 0
    for kwargs in ({"tp": 0}, {"pp": 0}, {"ep": 0}, {"pp": 2, "pp_rank": 2}, {"pp": 2, "pp_rank": -1}, {"pp": 25}):
        with pytest.raises(WeightsError, match="invalid parallel sizes"):
            mxfp4_layout_bytes(OSS, "marlin", **kwargs)
    assert mxfp4_layout_bytes(OSS, "marlin", pp=24, pp_rank=23) > 0
    with pytest.raises(WeightsError, match="unknown mxfp4 backend 'cutlass': one of checkpoint, marlin, triton, "
                                           "flashinfer"):
        mxfp4_layout_bytes(OSS, "cutlass")
    assert mxfp4_layout_bytes(OSS, "triton", ep=3) != mxfp4_layout_bytes(OSS, "triton", ep=4)


def test_a_checkpoint_only_method_on_an_unquantized_checkpoint_is_the_engines_refusal():
    """`--quantization awq` on a bf16 checkpoint: the engine finds no AWQ config and stops, whatever the card (a
    setting refusal, KV007), not a weights-model failure the catalogue sweep would read as memory."""
    from kvlint.errors import InvalidSettingError

    with pytest.raises(InvalidSettingError) as caught:
        weights_bytes(QWEN, quantization="awq")
    assert caught.value.setting == "quantization" and "Qwen/Qwen3-8B declares none" in caught.value.reason
