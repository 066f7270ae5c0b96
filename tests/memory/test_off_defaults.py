"""Budgets off the defaults and at the engines' thresholds (issue O item 9: mutants survived where every test
ran default batch sizes, chunked prefill on and TP 1). Every expected number is worked out in the test from
the engine's own rule, cited beside it (engines.md section, or the engine source it paraphrases); none is
kvlint's output copied back. Weights and non-KV memory are given explicitly where a pool is compared, so
other changes to those estimates do not move these numbers."""

from __future__ import annotations

import pytest

from kvlint.engines.sglang.memory import prefill_graph_sizes
from kvlint.errors import KvlintError
from kvlint.memory import compute_budget
from kvlint.memory.common import Steps

from .specs import LLAMA3_8B, LLAMA3_70B

GIB, MIB = 2**30, 2**20


class Card:
    """A minimal GPU record (kvlint.gpus.Gpu shape)."""

    def __init__(self, name, cc, mib):
        self.name, self.compute_capability, self.memory_mib = name, cc, mib

    def total_bytes(self, engine):
        return self.memory_mib * MIB


H100 = Card("NVIDIA H100 80GB HBM3", "9.0", 81559)


def vllm(settings, gpu=H100, version=None, model=LLAMA3_8B, **kw):
    kw.setdefault("weights_bytes", 0)
    return compute_budget("vllm", model, settings, gpu, version=version, **kw)


def batch(b):
    return b.max_num_seqs, b.max_num_batched_tokens


# ---------------------------------------------------------------- vLLM V1 batch defaults (engines.md 1.1 table)
# H100 (>= 70 GiB, not A100) server column: max_num_batched_tokens 8192, max_num_seqs 1024; then, for values the
# user left unset: chunked prefill off -> mnbt = max(max_model_len, mnbt); mnbt = min(max_num_seqs * max_model_len,
# mnbt); max_num_seqs = min(max_num_seqs, mnbt).

@pytest.mark.parametrize("settings, want", [
    # small --max-num-seqs: mnbt = min(8 x 8192, 8192) = 8192, the user's 8 sequences kept
    ({"max_num_seqs": 8, "max_model_len": 8192}, (8, 8192)),
    # mnbt = min(2 x 2048, 8192) = 4096: two short requests cap the batch
    ({"max_num_seqs": 2, "max_model_len": 2048}, (2, 4096)),
    # chunked prefill off: mnbt = max(32768, 8192) = 32768 (then min(1024 x 32768, 32768))
    ({"enable_chunked_prefill": False, "max_model_len": 32768}, (1024, 32768)),
    # chunked prefill off below the GPU default: max(4096, 8192) = 8192
    ({"enable_chunked_prefill": False, "max_model_len": 4096}, (1024, 8192)),
    # the user's 512 batched tokens: max_num_seqs = min(1024, 512) = 512
    ({"max_num_batched_tokens": 512, "max_model_len": 8192}, (512, 512)),
    # both the user's: nothing derived, even when mns > mnbt
    ({"max_num_batched_tokens": 512, "max_num_seqs": 600, "max_model_len": 8192}, (600, 512)),
    # max_model_len 4: mnbt = min(1024 x 4, 8192) = 4096, max_num_seqs = min(1024, 4096) = 1024
    ({"max_model_len": 4}, (1024, 4096)),
])
def test_vllm_batch_defaults_off_the_defaults(settings, want):
    assert batch(vllm(settings)) == want


@pytest.mark.parametrize("mib, want", [
    (70 * 1024, (1024, 8192)),  # device_memory >= 70 GiB: the H100 tier, at the boundary itself
    (70 * 1024 - 1, (256, 2048)),  # one MiB below: the A100 / L40S tier
    (160 * 1024, (1024, 16384)),  # >= 160 GiB tier (0.30+)
    (160 * 1024 - 1, (1024, 8192)),
])
def test_vllm_batch_tiers_at_their_boundaries(mib, want):
    assert batch(vllm({"max_model_len": 8192}, gpu=Card("NVIDIA X", "9.0", mib))) == want


def test_vllm_batch_tier_excludes_a100_and_gb10_by_name_and_capability():
    assert batch(vllm({"max_model_len": 8192}, gpu=Card("NVIDIA A100-SXM4-80GB", "8.0", 81920))) == (256, 2048)
    assert batch(vllm({"max_model_len": 8192}, gpu=Card("NVIDIA GB10", "12.1", 122_000))) == (256, 2048)
    # 0.27 has no >= 160 GiB tier: a B200 is in the 8192 / 1024 one
    assert batch(vllm({"max_model_len": 8192}, gpu=Card("NVIDIA B200", "10.0", 183_359), version="0.27.0")) \
        == (1024, 8192)


def test_vllm_throughput_mode_doubles_only_unset_values():
    # 8192 x 2 batched tokens, the user's 64 sequences kept: mnbt = min(64 x 8192, 16384)
    assert batch(vllm({"performance_mode": "throughput", "max_num_seqs": 64, "max_model_len": 8192})) == (64, 16384)


# ------------------------------------------------------------------- vLLM V0 (0.7): the 32K chunked-prefill rule
# vllm 0.7 arg_utils.py: chunked prefill on by default only when max_model_len > 32768 (then 2048 batched tokens);
# otherwise SchedulerConfig takes max(max_model_len, 2048). max_num_seqs 256.

@pytest.mark.parametrize("settings, want", [
    ({"max_model_len": 32768}, (256, 32768)),  # at the threshold: not chunked, the whole prompt
    ({"max_model_len": 32769}, (256, 2048)),  # above it: chunked, 2048
    ({"max_model_len": 1000}, (256, 2048)),  # max(1000, 2048)
    ({"max_model_len": 40000, "enable_chunked_prefill": False}, (256, 40000)),
    ({"max_model_len": 8192, "enable_chunked_prefill": True}, (256, 2048)),
    ({"max_model_len": 8192, "max_num_seqs": 16, "max_num_batched_tokens": 4096}, (16, 4096)),
])
def test_vllm_v0_batch_defaults(settings, want):
    assert batch(vllm(settings, version="0.7.2")) == want


# ------------------------------------------------------------- SGLang mem_fraction_static off the default bands
# engines.md 3.1: activation = max(cps, 2048); reserved = 512 + 1.5 x activation + tp*pp/8 x 1024 + 2 x decode
# max_bs + 8 x len(prefill graph sizes up to cps); floor 10240 above 60 GiB; fraction = round((mib - reserved) / mib, 3).
# RTX 4090: 24564 MiB, band < 35 GiB: cps 4096, decode max_bs 48 (tp < 4), 160 (tp >= 4).
RTX4090_MIB = 24564


def sglang_fraction(settings, mib=RTX4090_MIB, model=LLAMA3_8B):
    b = compute_budget("sglang", model, settings, None, gpu_memory_bytes=mib * MIB, weights_bytes=GIB)
    return b.mem_fraction_static


def test_prefill_graph_sizes_below_and_above_1024():
    # 4..32 step 4 (8), 48..256 step 16 (14), 288..512 step 32 (8), 576..1024 step 64 (8)
    assert prefill_graph_sizes(1024) == 8 + 14 + 8 + 8 == 38
    assert prefill_graph_sizes(4096) == 38 + 12  # + 1280..4096 step 256
    assert prefill_graph_sizes(4) == 1 and prefill_graph_sizes(3) == 0


@pytest.mark.parametrize("settings, reserved", [
    ({}, 512 + 1.5 * 4096 + 128 + 2 * 48 + 8 * 50),  # the band's defaults: 7280 MiB
    # --chunked-prefill-size 1024: activation max(1024, 2048) = 2048, prefill graphs up to 1024 (38 sizes)
    ({"chunked_prefill_size": 1024}, 512 + 1.5 * 2048 + 128 + 2 * 48 + 8 * 38),
    ({"chunked_prefill_size": 3000}, 512 + 1.5 * 3000 + 128 + 2 * 48 + 8 * prefill_graph_sizes(3000)),
    # chunked prefill off (-1): activation max(max_prefill_tokens 16384, 2048); prefill graph max_bs = cps = -1: none
    ({"chunked_prefill_size": -1}, 512 + 1.5 * 16384 + 128 + 2 * 48),
    ({"chunked_prefill_size": -1, "max_prefill_tokens": 1000}, 512 + 1.5 * 2048 + 128 + 2 * 48),
    # TP 4: tp*pp/8 x 1024 = 512 and decode max_bs 160
    ({"tp_size": 4}, 512 + 1.5 * 4096 + 512 + 2 * 160 + 8 * 50),
    ({"tp_size": 2, "pp_size": 2}, 512 + 1.5 * 4096 + 512 + 8 * 0 + 2 * 48),  # PP > 1: no prefill graphs
    # --max-running-requests 16 below the band's 48 decode graphs
    ({"max_running_requests": 16}, 512 + 1.5 * 4096 + 128 + 2 * 16 + 8 * 50),
    ({"disable_cuda_graph": True}, 512 + 1.5 * 4096 + 128),
    ({"max_total_tokens": 1024}, 512 + 1.5 * 4096 + 128 + 2 * 48 + 8 * 38),  # prefill graphs capped at 1024
])
def test_sglang_fraction_off_the_defaults(settings, reserved):
    assert sglang_fraction(settings) == round((RTX4090_MIB - reserved) / RTX4090_MIB, 3)


def test_sglang_fraction_pinned_for_the_4090():
    """The two numbers a user sees for Llama-3-8B on a 4090: 0.704 by default, 0.833 with --chunked-prefill-size
    1024 (7280 and 4112 MiB reserved, from the formula above)."""
    assert sglang_fraction({}) == 0.704
    assert sglang_fraction({"chunked_prefill_size": 1024}) == 0.833


def test_sglang_floor_applies_only_above_60_gib():
    # 61441 MiB: the formula's 7280 MiB (cps 8192 band: 512 + 12288 + 128 + 512 + 464 = 13904) vs the floor
    at = 61440
    assert sglang_fraction({}, mib=at) == round((at - (512 + 1.5 * 8192 + 128 + 2 * 256 + 8 * 58)) / at, 3)
    above = 61441
    assert sglang_fraction({"chunked_prefill_size": 1024}, mib=above) == round((above - 10240) / above, 3)
    assert sglang_fraction({"chunked_prefill_size": 1024}, mib=at) == \
        round((at - (512 + 1.5 * 2048 + 128 + 2 * 256 + 8 * 38)) / at, 3)


def test_sglang_band_edges():
    # < 20480 MiB: cps 2048, decode max_bs 8; 20480 itself is in the next band (cps 4096, 48)
    assert sglang_fraction({}, mib=20479) == round((20479 - (512 + 1.5 * 2048 + 128 + 16 + 8 * 42)) / 20479, 3)
    assert sglang_fraction({}, mib=20480) == round((20480 - (512 + 1.5 * 4096 + 128 + 96 + 8 * 50)) / 20480, 3)


# ------------------------------------------------------------------------------------------------- small pieces

def test_an_empty_note_is_not_kept():
    steps = Steps()
    steps.note("")
    steps.note("a")
    steps.note("a")
    assert steps.notes == ["a"]
    assert "" not in vllm({"max_model_len": 8192}).notes


def test_tp_divides_kv_heads_and_caps_at_one_head():
    # Llama-3-70B: 80 layers x 8 KV heads x 128 x 2 (K, V) x 2 bytes = 327,680 B per token at TP 1
    for tp, heads in ((1, 8), (2, 4), (8, 1), (16, 1)):
        b = vllm({"tensor_parallel_size": tp, "max_model_len": 8192}, model=LLAMA3_70B)
        assert b.kv_bytes_per_token == 80 * heads * 128 * 2 * 2


# ------------------------------------------------------ EAGLE3 on gpt-oss-20b keeps vLLM's hybrid manager on
def test_eagle3_on_gpt_oss_keeps_the_hybrid_manager():
    """vLLM turns the hybrid KV cache manager off for EAGLE only with chunked local attention (Llama-4); gpt-oss's
    sliding layers keep their own group (engines.md 1.1). 0.33, H100 defaults (mnbt 8192, async: 2 x 8192 tokens
    in flight), a 10 GiB pool, max_model_len 131072, bf16: one layer's page is 16 x 8 heads x (64 + 64) x 2 B =
    32,768 B. 12 full + 1 EAGLE draft layer (full) and 12 sliding (window 128): groups of 13 (one padding layer),
    num_blocks = 10 GiB // (13 x 32,768) = 25,206; a request holds cdiv(131072, 16) = 8,192 full blocks and
    cdiv(128 - 1 + 2 x 8192, 16) + 1 = 1,033 sliding ones; tokens = int(25,206 / 9,225 x 131,072) = 358,135.
    With the manager off every layer is full attention: 10 GiB // (25 x 32,768) = 13,107 blocks, 209,712 tokens."""
    from kvlint.models.resolve import resolve_model

    model = resolve_model("openai/gpt-oss-20b")
    eagle = {"method": "eagle3", "model": "x/gpt-oss-20b-eagle3", "num_speculative_tokens": 3}
    settings = {"max_model_len": 131072, "kv_cache_memory_bytes": 10 * GIB, "speculative_config": eagle}
    b = vllm(settings, model=model, version="0.33.0")
    page = 16 * 8 * (64 + 64) * 2
    blocks = 10 * GIB // (13 * page)
    per_request = 131072 // 16 + (-(-(128 - 1 + 2 * 8192) // 16) + 1)
    assert (b.num_blocks, b.detail.kv_groups, b.detail.blocks_per_request) == (blocks, 2, per_request) \
        == (25206, 2, 9225)
    assert b.kv_tokens == int(blocks / per_request * 131072) == 358_135
    off = vllm({**settings, "disable_hybrid_kv_cache_manager": True}, model=model, version="0.33.0")
    assert (off.num_blocks, off.kv_tokens) == (10 * GIB // (25 * page), 13107 * 16) == (13107, 209_712)


# ------------------------------------------------------------------------------------------ planner pieces
def test_uniform_type_group_takes_its_worst_member():
    """engines.md 1.2, last row: a UniformType group's request needs the most blocks any member needs. At 8,192
    tokens a full layer holds cdiv(8192, 16) = 512 blocks; a 128-token window with 2,048 reserved tokens
    cdiv(127 + 2048, 16) + 1 = 137."""
    from kvlint.engines.vllm.planning import Group
    from kvlint.engines.vllm.specs import KVSpec

    full = KVSpec("full", 16, 8, 256)
    window = KVSpec("sliding", 16, 8, 256, window=128)
    assert window.blocks_per_request(8192, 2048) == 137
    assert Group(((0, 0), (1, 0)), (window, full)).blocks_per_request(8192, 2048) == 512


def test_one_group_has_no_padding_layers():
    assert vllm({"max_model_len": 8192}).detail.padding_layers == 0


@pytest.mark.parametrize("mns, spec, want", [
    # engines.md 1.1: cap = min(max_num_seqs x (1 + speculative tokens) x 2, 512), then min(cap, mnbt); sizes
    # 1, 2, 4 (<= cap), 8..248 step 8, 256..cap step 16, plus mnbt and max_num_seqs when <= cap
    (4, 0, [1, 2, 4, 8]),  # cap 8
    (4, 1, [1, 2, 4, 8, 16]),  # cap 16
    (3, 2, [1, 2, 3, 4, 8, 16]),  # cap 18: 3 sequences is itself a size
    (1024, 0, [1, 2, 4, *range(8, 249, 8), *range(256, 513, 16)]),  # cap 512
])
def test_cuda_graph_capture_sizes(mns, spec, want):
    from kvlint.memory.nonkv import capture_sizes

    assert capture_sizes(mns, 8192, spec_tokens=spec) == want
    assert capture_sizes(1024, 8192, blackwell=True)[-1] == 1024  # 1024 on SM10x
    assert capture_sizes(1024, 300)[-1] == 300  # min(cap, mnbt), and mnbt itself is captured


def test_promoted_sliding_layers_take_the_full_layers_block_size():
    """promote_hybrid's rule (HMA off): a sliding layer becomes full attention with the full layers' block size."""
    from kvlint.engines.vllm.planning import promote_hybrid
    from kvlint.engines.vllm.specs import KVSpec

    out = promote_hybrid({(0, 0): KVSpec("full", 32, 8, 256), (1, 0): KVSpec("sliding", 16, 8, 256, window=128)})
    assert (out[(1, 0)].kind, out[(1, 0)].block_size) == ("full", 32)


@pytest.mark.parametrize("cc, want", [(None, "bfloat16"), ((8, 0), "bfloat16"), ((8, 9), "bfloat16"),
                                      ((7, 5), "float16"), ((9, 0), "bfloat16")])
def test_float32_checkpoint_downcast_by_compute_capability(cc, want):
    """--dtype auto on a float32 checkpoint: bfloat16 where the GPU supports it (SM 8.0 and up), else float16."""
    from dataclasses import replace

    from kvlint.memory.common import resolve_model_dtype

    assert resolve_model_dtype("auto", replace(LLAMA3_8B, dtype="float32"), cc) == want


def test_eagle_with_chunked_local_attention_turns_the_hybrid_manager_off():
    """From 0.16 chunked local layers keep their own group, except with EAGLE (engines.md 1.1: "or always with
    EAGLE"): then every layer is full attention, one group."""
    from kvlint.models.spec import LayerKV

    from .specs import dense

    layers = tuple(LayerKV("full" if i % 4 == 3 else "chunked", 8, 128, 128, window=8192) for i in range(48))
    scout = dense("meta-llama/Llama-4-Scout", 48, 8, 128, kinds=layers, arch="Llama4ForConditionalGeneration")
    settings = {"max_model_len": 8192, "kv_cache_memory_bytes": 10 * GIB}
    eagle = {"method": "eagle", "model": "x/scout-eagle", "num_speculative_tokens": 2}
    assert vllm(settings, model=scout, version="0.33.0").detail.kv_groups > 1
    b = vllm({**settings, "speculative_config": eagle}, model=scout, version="0.33.0")
    assert b.detail.kv_groups == 1
    assert "EAGLE with chunked local attention disables vLLM's hybrid KV cache manager" in b.notes


def test_a_card_without_a_size_takes_the_given_memory_as_its_mib():
    """A GPU record with no memory_mib and an explicit total: SGLang's bands read total // MiB (24,564 MiB: the
    4090 band above, 0.704), not the unknown-GPU fallback (0.95)."""
    class Named:
        name, compute_capability, memory_mib = "some card", (8, 9), None

    b = compute_budget("sglang", LLAMA3_8B, {}, Named(), gpu_memory_bytes=RTX4090_MIB * MIB, weights_bytes=GIB)
    assert b.mem_fraction_static == 0.704


def test_sglang_context_equal_to_the_pool_fits():
    """SGLang admits a request up to max_total_num_tokens (max_req_input_len = max_total_num_tokens - 1, plus the
    token it generates): a context exactly the pool's size fits, one more does not."""
    def at(context):
        return compute_budget("sglang", LLAMA3_8B, {"context_length": context, "max_total_tokens": 4096}, None,
                              gpu_memory_bytes=81559 * MIB, weights_bytes=16 * GIB)

    assert at(4096).kv_tokens == 4096 and at(4096).fits_one_request
    assert not at(4097).fits_one_request


@pytest.mark.parametrize("version, spare", [("0.27.0", 0), ("0.33.0", 16 * 131072)])
def test_one_request_check_at_its_exact_boundary(version, spare):
    """vLLM's check: one max_model_len request's blocks <= the pool's; 0.33 keeps one block back for the null block
    (engines.md 1.4). Llama-3-8B at 8,192 tokens: 512 blocks x 16 x 131,072 B = 1 GiB; a pool of exactly that
    (plus one 2 MiB block on 0.33) fits, one byte less does not."""
    def fits(pool):
        return vllm({"max_model_len": 8192, "kv_cache_memory_bytes": pool}, version=version).fits_one_request

    assert fits(GIB + spare) and not fits(GIB + spare - 1)


def test_no_mamba_or_vlm_lines_in_a_dense_models_derivation():
    b = vllm({"max_model_len": 8192})
    assert not any("Mamba" in s.name for s in b.steps)
    sg = compute_budget("sglang", LLAMA3_8B, {}, None, gpu_memory_bytes=81559 * MIB, weights_bytes=16 * GIB)
    assert not any("VLM" in s.name for s in sg.steps) and sg.mem_fraction_static == 0.83  # engines.md 3.1's worked H100


# ------------------------------------------------------------- MLA block sizes the platform forced before 0.20
@pytest.mark.parametrize("version, cc, user, want", [
    # 0.11 (platforms/cuda.py): FlashMLA 64 on Hopper, CUTLASS MLA 128 on Blackwell, over --block-size
    ("0.11.0", "9.0", None, 64), ("0.11.0", "9.0", 32, 64), ("0.11.0", "10.0", None, 128), ("0.11.0", "8.0", 32, 32),
    # 0.12-0.14: a --block-size that is not the backend's multiple is replaced; CUTLASS MLA (128) on every Blackwell,
    # DeepSeek's qk_nope 128 too (platforms/cuda.py check_and_update_config in those wheels)
    ("0.12.0", "9.0", 128, 128), ("0.13.0", "9.0", None, 64), ("0.13.0", "9.0", 96, 64), ("0.13.0", "10.0", None, 128),
    ("0.14.0", "10.0", 32, 128), ("0.14.0", "10.0", 256, 256), ("0.14.0", "8.0", None, 16),
    # 0.15: FlashInfer MLA first on Blackwell when qk_nope is 128
    ("0.15.0", "10.0", None, 64),
    # 0.18: platforms/cuda.py forces no MLA block any more: a --block-size stands (backend selection decides)
    ("0.18.0", "9.0", 32, 32), ("0.18.0", "10.0", 48, 48),
    # 0.16-0.19: a multiple the backend takes: Hopper multiples of 64; Blackwell with qk_nope 128 (FlashInfer MLA)
    # 32 or a multiple of 64
    ("0.17.0", "9.0", None, 64), ("0.17.0", "9.0", 128, 128), ("0.17.0", "9.0", 96, 64),
    ("0.17.0", "10.0", None, 64), ("0.17.0", "10.0", 32, 32), ("0.17.0", "10.0", 192, 192), ("0.17.0", "10.0", 48, 64),
    ("0.17.0", "8.0", None, 16),
])
def test_forced_mla_block_sizes(version, cc, user, want):
    from .specs import DEEPSEEK_V3

    settings = {"max_model_len": 8192, "kv_cache_memory_bytes": 10 * GIB}
    if user:
        settings["block_size"] = user
    b = vllm(settings, gpu=Card("GPU", cc, 81559), version=version, model=DEEPSEEK_V3)
    assert b.block_size == want


def test_forced_mla_block_on_blackwell_without_qk_nope_128_is_cutlass_128():
    from dataclasses import replace

    from .specs import DEEPSEEK_V3

    other = replace(DEEPSEEK_V3, mla=replace(DEEPSEEK_V3.mla, qk_nope_head_dim=64))
    settings = {"max_model_len": 8192, "kv_cache_memory_bytes": 10 * GIB}
    card = Card("B200", "10.0", 183_359)
    assert vllm(settings, gpu=card, version="0.17.0", model=other).block_size == 128
    assert vllm({**settings, "block_size": 256}, gpu=card, version="0.17.0", model=other).block_size == 256
    assert vllm({**settings, "block_size": 64}, gpu=card, version="0.17.0", model=other).block_size == 128


# ------------------------------------------------------------------- SGLang before 0.5.3: a fixed reserve by band
# 0.4.9 server_args: 35..90 GiB cards reserve (9.5 + tp x pp / 2) GiB, + 2 GiB with a speculative algorithm, + 4 GiB
# with DP attention; fraction = round((mib - reserved) / mib, 3). H100: 81,559 MiB.
@pytest.mark.parametrize("settings, reserved", [
    ({}, (9.5 + 0.5) * 1024),
    ({"tp_size": 4}, (9.5 + 2) * 1024),
    ({"speculative_algorithm": "EAGLE", "speculative_draft_model_path": "x/draft", "speculative_num_draft_tokens": 4},
     (9.5 + 0.5) * 1024 + 2048),
    ({"tp_size": 2, "dp_size": 2, "enable_dp_attention": True}, (9.5 + 1) * 1024 + 4096),
])
def test_sglang_049_fixed_reserve(settings, reserved):
    b = compute_budget("sglang", LLAMA3_8B, settings, None, version="0.4.9", gpu_memory_bytes=81559 * MIB,
                       weights_bytes=GIB)
    assert b.mem_fraction_static == round((81559 - reserved) / 81559, 3)


@pytest.mark.parametrize("max_bs, graphs", [
    (300, 2 * 300 + 300 * 2 * 3),  # at 300: no extra term (engines.md 3.1: "+1.5 x ... if max_bs > 300")
    (301, 2 * 301 + 301 * 2 * 3 + 301 * 2 * 1.5),
])
def test_sglang_dp_attention_graph_reserve_above_300(max_bs, graphs):
    """TP 2 with DP attention 2 on a 4090 (no floor): 512 + 1.5 x 4096 + 2/8 x 1024 + decode graphs + 8 x 50
    prefill graph sizes."""
    settings = {"tp_size": 2, "attn_dp_size": 2, "cuda_graph_max_bs": max_bs}
    reserved = 512 + 1.5 * 4096 + 256 + graphs + 8 * 50
    assert sglang_fraction(settings) == round((RTX4090_MIB - reserved) / RTX4090_MIB, 3)


def test_capture_sizes_default_to_no_speculative_tokens():
    from kvlint.memory.nonkv import capture_sizes

    assert capture_sizes(4, 8192) == [1, 2, 4, 8]


@pytest.mark.parametrize("version, rounding", [("0.11.0", "floor"), ("0.13.0", "floor"), ("0.14.0", "ceil"),
                                               ("0.33.0", "ceil")])
def test_requested_memory_rounding_by_release(version, rounding):
    """Through 0.13 gpu_worker.init_device keeps total x util as a float (int() of it here); 0.14 moved it to
    v1/worker/utils.request_memory, which takes math.ceil."""
    import math

    total = 85_029_615_043
    card = Card("NVIDIA H100 80GB HBM3", "9.0", 81559)
    card.total_bytes = lambda engine: total
    b = vllm({"max_model_len": 8192, "gpu_memory_utilization": 0.9}, gpu=card, version=version)
    assert b.requested_bytes == (int(total * 0.9) if rounding == "floor" else math.ceil(total * 0.9))


def test_requested_memory_float_before_0_12_and_ceil_after():
    """vLLM 0.11 requests total x util as a float truncated to bytes; later releases ceil (engines.md 1.3)."""
    import math

    total = 85_029_615_043
    card = Card("NVIDIA H100 80GB HBM3", "9.0", 81559)
    card.total_bytes = lambda engine: total
    old = vllm({"max_model_len": 8192, "gpu_memory_utilization": 0.9}, gpu=card, version="0.11.0")
    new = vllm({"max_model_len": 8192, "gpu_memory_utilization": 0.9}, gpu=card, version="0.33.0")
    assert old.requested_bytes == int(total * 0.9) and new.requested_bytes == math.ceil(total * 0.9)
    assert new.requested_bytes - old.requested_bytes == 1


def test_zero_gpu_memory_is_refused_and_zero_speculative_tokens_too():
    from kvlint.errors import KvlintError

    with pytest.raises(KvlintError, match="GPU memory must be positive"):
        compute_budget("vllm", LLAMA3_8B, {}, None, gpu_memory_bytes=0, weights_bytes=0)
    with pytest.raises(KvlintError, match="num_speculative_tokens >= 1"):
        vllm({"speculative_config": {"method": "eagle", "model": "x/e", "num_speculative_tokens": 0}})


@pytest.mark.parametrize("version, refused", [("0.11.0", "softmax lse"), ("0.12.0", None), ("0.13.0", None),
                                              ("0.14.0", None)])
def test_gqa_dcp_needs_an_mla_model_only_in_011(version, refused):
    """DCP on a GQA model: 0.11's non-MLA backends return no softmax LSE, so the model runner's assertion trips;
    from 0.12 FlashAttention and FlashInfer return it (can_return_lse_for_decode) and config/model.py
    verify_with_parallel_config's head rules decide. Llama-3-8B (8 KV heads) at TP 16, DCP 2 passes those rules."""
    settings = {"max_model_len": 8192, "kv_cache_memory_bytes": 10 * GIB, "tensor_parallel_size": 16,
                "decode_context_parallel_size": 2}
    if refused:
        with pytest.raises(KvlintError, match=refused):
            vllm(settings, version=version)
    else:
        assert vllm(settings, version=version).parallel.dcp == 2
