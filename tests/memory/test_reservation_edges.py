"""Reservations off their usual paths (issue O item 9: lines no test ran). Expected numbers are the formulas of
the docstrings they test, written out: SGLang's speculative drafts, vLLM's LoRA slots on an MLA model, SGLang's
Mamba state slots with DP attention and a TP-split state."""

from __future__ import annotations

from dataclasses import replace

from kvlint.memory.reservations import sglang_mamba_pool, sglang_speculative, vllm_lora
from kvlint.models.spec import LayerKV

from .specs import DEEPSEEK_V3, LLAMA3_8B, dense


def spec_of(settings, model=LLAMA3_8B):
    s = sglang_speculative(settings, model)
    return (s.method, s.num_tokens, s.draft_layers, s.exact)


def test_sglang_speculative_algorithms():
    # --speculative-num-draft-tokens 4: 3 speculative tokens; an EAGLE head from its own path: one layer, assumed
    drafted = {"speculative_algorithm": "eagle3", "speculative_draft_model_path": "x/d", "speculative_num_draft_tokens": 4}
    assert spec_of(drafted) == ("EAGLE3", 3, 1, False)
    # EAGLE without a draft path and no MTP layers in config.json: still one assumed layer
    assert spec_of({"speculative_algorithm": "EAGLE"}) == ("EAGLE", 0, 1, False)
    # NEXTN on a model with MTP layers: those layers, exact
    mtp = replace(DEEPSEEK_V3, num_mtp_layers=1)
    assert spec_of({"speculative_algorithm": "NEXTN", "speculative_num_draft_tokens": 2}, mtp) == ("NEXTN", 1, 1, True)
    assert spec_of({"speculative_algorithm": "STANDALONE", "speculative_num_draft_tokens": 3}) == ("STANDALONE", 2, 0,
                                                                                                 False)
    assert spec_of({"speculative_algorithm": "ngram"}) == ("NGRAM", 0, 0, False)
    assert sglang_speculative({}, LLAMA3_8B) is None


def test_vllm_lora_slots_on_an_mla_model():
    """MLA: only o_proj takes an adapter among the attention projections (A split by TP: heads x v_head_dim / tp,
    B whole: hidden); the MLP's gate_up (A whole, B 2 x inter / tp) and down (A inter / tp, B whole); 61 layers,
    4 slots of rank 8, bf16, TP 8."""
    lora = vllm_lora({"enable_lora": True, "max_loras": 4, "max_lora_rank": 8}, DEEPSEEK_V3, 8, 2)
    h, inter = 7168, 18432
    per_layer = (h + 0) + (128 * 128 // 8 + h) + (h + 2 * inter // 8) + (inter // 8 + h)
    assert lora.bytes_per_rank == 4 * 8 * per_layer * 61 * 2


def _hybrid(state_bytes):
    layers = tuple(LayerKV("mamba", 0, 0, 0, state_bytes=state_bytes) if i % 4 else LayerKV("full", 8, 128, 128)
                   for i in range(8))
    return dense("test/hybrid", 8, 8, 128, kinds=layers)


def test_mamba_slots_fixed_by_the_user_are_split_over_dp_attention():
    """--max-mamba-cache-size is the whole instance's: each attention DP rank gets its share; 1 padding slot more.
    The state from the layer model (no linear-attention keys) is divided by the rank's TP."""
    model = _hybrid(1_000_000)
    pool = sglang_mamba_pool(model, {"max_mamba_cache_size": 100}, 2, 4, 10**12, 2, 6)
    per_request = 1_000_000 // 2 * 6
    assert (pool.per_request, pool.slots, pool.pool_bytes) == (per_request, 25, 26 * per_request)


def test_mamba_slots_from_max_running_requests_with_the_radix_cache_off():
    model = _hybrid(1_000_000)
    pool = sglang_mamba_pool(model, {"disable_radix_cache": True, "max_running_requests": 10}, 1, 4, 10**12, 2, 6)
    assert pool.slots == 2  # 10 // 4 attention DP ranks
    one = sglang_mamba_pool(model, {"disable_radix_cache": True, "max_running_requests": 3}, 1, 4, 10**12, 2, 6)
    assert one.slots == 1  # at least one
    assert sglang_mamba_pool(LLAMA3_8B, {}, 1, 1, 10**12, 2, 32) is None


def test_no_rope_table_without_attention():
    """A model of Mamba layers only has no rotary embedding to cache."""
    from kvlint.engines.vllm.memory import vllm_rope_table

    mamba = dense("test/mamba", 4, 0, 0, kinds=tuple(LayerKV("mamba", 0, 0, 0, state_bytes=1000) for _ in range(4)))
    assert vllm_rope_table(mamba, "bfloat16") == 0
    assert vllm_rope_table(LLAMA3_8B, "bfloat16") > 0


def test_vllm_speculative_method_from_the_draft_models_name():
    """vLLM's SpeculativeConfig: no method, a draft model named like an EAGLE head -> eagle (one layer, assumed);
    another draft model -> draft_model (its KV not counted here); no model -> ngram (no KV)."""
    from kvlint.memory.reservations import vllm_speculative

    def of(config):
        s = vllm_speculative({"speculative_config": {**config, "num_speculative_tokens": 3}}, LLAMA3_8B)
        return s.method, s.draft_layers

    assert of({"model": "yuhuili/EAGLE-LLaMA3-Instruct-8B"}) == ("eagle", 1)
    assert of({"model": "meta-llama/Llama-3.2-1B"}) == ("draft_model", 0)
    assert of({}) == ("ngram", 0)


def test_an_unresolved_or_empty_setting_reads_as_the_default():
    from kvlint.deployment import Setting
    from kvlint.memory.common import setting

    assert setting({"max_num_seqs": Setting("max_num_seqs", "$(SEQS)", resolved=False)}, "max_num_seqs", 256) == 256
    assert setting({"max_num_seqs": Setting("max_num_seqs", None)}, "max_num_seqs", 256) == 256
    assert setting({"max_num_seqs": Setting("max_num_seqs", 8)}, "max_num_seqs", 256) == 8


def test_no_multimodal_reservation_for_a_text_model():
    from kvlint.memory.reservations import sglang_mm_reservation

    assert sglang_mm_reservation(LLAMA3_8B) == 0
    assert sglang_mm_reservation(replace(LLAMA3_8B, is_multimodal=True)) == 100 * 2**20  # SGLANG_VLM_CACHE_SIZE_MB


def test_lora_slots_on_a_hybrid_count_its_attention_layers():
    """A hybrid's Mamba mixers take no adapter here: 2 attention layers of 8 carry the slots."""
    model = _hybrid(1_000_000)
    one = vllm_lora({"enable_lora": True}, dense("one", 1, 8, 128), 1, 2).bytes_per_rank
    assert vllm_lora({"enable_lora": True}, model, 1, 2).bytes_per_rank == 2 * one


def test_mtp_draft_layers_each_hold_kv():
    """vLLM's MTP drafter: each of num_nextn_predict_layers layers keeps a KV layer like the target's (MLA, bf16:
    576 x 2 B a token): 61 + 2 layers."""
    from kvlint.memory import compute_budget

    mtp = replace(DEEPSEEK_V3, num_mtp_layers=2)
    settings = {"max_model_len": 8192, "kv_cache_memory_bytes": 10 * 2**30,
                "speculative_config": {"method": "mtp", "num_speculative_tokens": 2}}
    b = compute_budget("vllm", mtp, settings, None, gpu_memory_bytes=80 * 2**30, weights_bytes=0)
    assert b.kv_bytes_per_token == (61 + 2) * 576 * 2


def test_two_window_kinds_are_not_one_uniform_type():
    from kvlint.engines.vllm.planning import _uniform_type
    from kvlint.engines.vllm.specs import KVSpec

    sliding, chunked = KVSpec("sliding", 16, 8, 256, window=128), KVSpec("chunked", 16, 8, 256, window=128)
    assert not _uniform_type([sliding, chunked])
    assert _uniform_type([sliding, sliding]) and _uniform_type([KVSpec("full", 16, 8, 256), KVSpec("mla", 16, 1, 576)])


def test_activation_widths_of_a_model_with_leading_dense_layers():
    """DeepSeek-V3 (first_k_dense_replace 3): MoE layers at the shared expert's width and the dense layers at the
    dense intermediate size, both candidates for the activation peak."""
    import json
    from pathlib import Path

    from kvlint.memory.nonkv import _ffn_widths
    from kvlint.models.config import spec_from_config

    registry = Path(__file__).resolve().parents[2] / "kvlint" / "models" / "registry"
    cfg = json.loads((registry / "deepseek-ai--DeepSeek-V3.json").read_text())["config"]
    widths = dict(_ffn_widths(spec_from_config(cfg, "deepseek-ai/DeepSeek-V3", "test")))
    assert widths == {"MoE": 2048, "MLP": 18432}  # n_shared_experts 1 x moe_intermediate_size 2048; intermediate_size


def test_attention_blocks_grow_in_steps_of_16_to_cover_a_mamba_state():
    """engines.md 1.1: attention blocks grow to a multiple of the kernels' block (16 without MLA) until one page
    covers a Mamba state. One token of one attention layer: 8 heads x (128 + 128) x 2 B = 4,096 B; a 1,000,000 B
    state needs 16 x cdiv(1,000,000, 16 x 4,096) = 256 tokens, also from --block-size 8."""
    from kvlint.memory import compute_budget

    for user in ({}, {"block_size": 8}):
        settings = {"max_model_len": 4096, "kv_cache_memory_bytes": 2**30, **user}
        b = compute_budget("vllm", _hybrid(1_000_000), settings, None, gpu_memory_bytes=80 * 2**30, weights_bytes=0)
        assert b.block_size == 256
