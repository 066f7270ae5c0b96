"""Reservations beside the KV pool: speculative drafts, LoRA slots, multimodal caches, SGLang's Mamba state pool.

Each term must show up in the derivation (Budget.steps) with where it came from, and move the numbers the way
the engine does: draft KV layers share the target's pages (exact), the rest is an estimate or an engine default.
"""

from __future__ import annotations

import json

import pytest

from kvlint.errors import InvalidSettingError
from kvlint.memory import compute_budget
from kvlint.models.resolve import resolve_model

GIB = 2**30


def vllm(model: str, settings: dict, **kw):
    return compute_budget("vllm", resolve_model(model), settings, None, gpu_memory_bytes=80 * GIB,
                          weights_bytes=kw.pop("weights_bytes", 0), **kw)


def step(b, name: str):
    return next(s for s in b.steps if s.name == name)


def test_vllm_mtp_draft_layers_are_exact_extra_pages():
    """DeepSeek-V3 ships one MTP layer (num_nextn_predict_layers 1): its MLA cache joins the pool as a 62nd layer."""
    base = {"tensor_parallel_size": 8, "max_model_len": 32768, "kv_cache_memory_bytes": 20 * GIB}
    plain = vllm("deepseek-ai/DeepSeek-V3", base)
    mtp = vllm("deepseek-ai/DeepSeek-V3", {**base, "speculative_config": json.dumps(
        {"method": "deepseek_mtp", "num_speculative_tokens": 1})})
    assert mtp.detail.bytes_per_block == plain.detail.bytes_per_block * 62 // 61
    s = step(mtp, "speculative draft layers")
    assert s.value == 1 and not s.estimated and "MTP layers 1" in s.formula


def test_vllm_eagle_head_is_an_assumed_layer_and_ngram_has_none():
    base = {"max_model_len": 8192, "kv_cache_memory_bytes": 10 * GIB}
    plain = vllm("meta-llama/Llama-3.1-8B-Instruct", base)
    eagle = vllm("meta-llama/Llama-3.1-8B-Instruct", {**base, "speculative_config": {
        "method": "eagle", "model": "yuhuili/EAGLE-LLaMA3.1-Instruct-8B", "num_speculative_tokens": 3}})
    assert eagle.detail.bytes_per_block == plain.detail.bytes_per_block * 33 // 32
    assert step(eagle, "speculative draft layers").estimated and any("EAGLE head" in n for n in eagle.notes)
    ngram = vllm("meta-llama/Llama-3.1-8B-Instruct", {**base, "speculative_config": {
        "method": "ngram", "num_speculative_tokens": 4}})
    assert ngram.detail.bytes_per_block == plain.detail.bytes_per_block



def _llama_config(tmp_path) -> str:
    from pathlib import Path

    import kvlint.models

    bundled = Path(kvlint.models.__file__).parent / "registry" / "meta-llama--Llama-3.1-8B-Instruct.json"
    folder = tmp_path / "llama"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps(json.loads(bundled.read_text())["config"]))
    return str(folder)


def test_vllm_mtp_on_a_model_whose_own_config_states_none_is_refused(tmp_path):
    """The model's own config.json (a local folder) lists every key: no MTP key means no MTP layers."""
    base = {"max_model_len": 8192, "kv_cache_memory_bytes": 10 * GIB}
    with pytest.raises(InvalidSettingError, match="MTP layers"):
        vllm(_llama_config(tmp_path), {**base, "speculative_config": {"method": "mtp", "num_speculative_tokens": 1}})


def test_mtp_absent_from_a_bundled_copy_is_unknown_not_zero():
    """A bundled (trimmed) copy may have dropped the MTP key (Qwen3.6-27B's did: sample D's wrong KV007): the
    draft is sized as one assumed layer and nothing is refused, by either engine."""
    base = {"max_model_len": 8192, "kv_cache_memory_bytes": 10 * GIB}
    plain = vllm("meta-llama/Llama-3.1-8B-Instruct", base)
    mtp = vllm("meta-llama/Llama-3.1-8B-Instruct", {**base, "speculative_config": {
        "method": "mtp", "num_speculative_tokens": 1}})
    s = step(mtp, "speculative draft layers")
    assert s.value == 1 and s.estimated and "not stated" in s.formula
    assert mtp.detail.bytes_per_block == plain.detail.bytes_per_block * 33 // 32
    sg = compute_budget("sglang", resolve_model("meta-llama/Llama-3.1-8B-Instruct"), {
        "context_length": 8192, "speculative_algorithm": "NEXTN", "speculative_num_draft_tokens": 4},
        None, gpu_memory_bytes=80 * GIB, weights_bytes=0)
    assert any("not stated" in st.formula for st in sg.steps)


def test_qwen3_5_family_ships_one_mtp_layer_sharing_its_embeddings():
    """Data fix with provenance: every bundled Qwen3.5 / Qwen3.6 config states text_config.mtp_num_hidden_layers
    1 and mtp_use_dedicated_embeddings false, as the aiconfigurator-core 0.12.0 wheel's copies of their
    config.json do (the trim had dropped both keys)."""
    for model in ("Qwen/Qwen3.6-27B", "Qwen/Qwen3.6-35B-A3B", "Qwen/Qwen3.5-27B", "Qwen/Qwen3.5-397B-A17B"):
        spec = resolve_model(model)
        assert spec.num_mtp_layers == 1 and spec.mtp_shares_embeddings and not spec.mtp_unknown, model
    mtp = vllm("Qwen/Qwen3.6-27B", {"max_model_len": 32768, "kv_cache_memory_bytes": 10 * GIB,
                                    "speculative_config": {"method": "mtp", "num_speculative_tokens": 3}})
    s = step(mtp, "speculative draft layers")
    assert s.value == 1 and not s.estimated


def test_vllm_lora_slots_are_an_estimated_non_kv_term():
    base = {"max_model_len": 8192}
    plain = vllm("meta-llama/Llama-3.1-8B-Instruct", base, weights_bytes=15 * GIB)
    lora = vllm("meta-llama/Llama-3.1-8B-Instruct", {**base, "enable_lora": True, "max_loras": 4,
                                                     "max_lora_rank": 64}, weights_bytes=15 * GIB)
    term = step(lora, "non-KV: LoRA adapters")
    # 4 slots x rank 64 x 32 layers x (qkv 4096+6144, o 4096+4096, gate_up 4096+28672, down 14336+4096) x 2 B
    assert term.value == 4 * 64 * 32 * (10240 + 8192 + 32768 + 18432) * 2 and term.estimated
    assert plain.kv_pool_bytes - lora.kv_pool_bytes == term.value


def test_vllm_encoder_cache_for_multimodal_models():
    b = vllm("Qwen/Qwen2.5-VL-7B-Instruct", {"max_model_len": 8192, "max_num_batched_tokens": 8192},
             weights_bytes=16 * GIB)
    term = step(b, "non-KV: encoder cache")
    assert term.value == 8192 * 3584 * 2 and term.estimated
    assert not any(s.name == "non-KV: encoder cache" for s in vllm("Qwen/Qwen3-8B", {}, weights_bytes=16 * GIB).steps)


def sglang(model: str, settings: dict, weights: int):
    return compute_budget("sglang", resolve_model(model), settings, None, gpu_memory_bytes=81559 * 2**20,
                          weights_bytes=weights, version="0.5.23")


def test_sglang_nextn_adds_the_draft_layers_to_the_cell():
    plain = sglang("deepseek-ai/DeepSeek-V3", {"tp_size": 8}, 80 * GIB)
    nextn = sglang("deepseek-ai/DeepSeek-V3", {"tp_size": 8, "speculative_algorithm": "NEXTN",
                                               "speculative_num_draft_tokens": 4}, 80 * GIB)
    assert nextn.kv_bytes_per_token == plain.kv_bytes_per_token + plain.kv_bytes_per_token // 61
    assert step(nextn, "speculative draft KV").value == plain.kv_bytes_per_token // 61


def test_sglang_mamba_state_pool_comes_out_of_the_rest():
    """Qwen3-Next at TP 4: per layer conv (8192/4 x 3 x 2 B) + recurrent (8 x 128 x 128 x 4 B); 36 layers; the
    pool takes 0.9/1.9 of the rest as whole slots (+1 padding slot) before the KV pool is sized."""
    b = sglang("Qwen/Qwen3-Next-80B-A3B-Thinking", {"tp_size": 4}, 40 * GIB)
    per_req = (2048 * 3 * 2 + 8 * 128 * 128 * 4) * 36
    pool = step(b, "Mamba state pool")
    assert pool.value % per_req == 0 and f"{per_req:,} B/request" in pool.formula
    rest_before = b.kv_pool_bytes + pool.value
    assert pool.value == (int((rest_before * 0.9 / 1.9 - per_req) // per_req) + 1) * per_req


def test_sglang_vlm_cache_reservation():
    b = sglang("Qwen/Qwen2.5-VL-7B-Instruct", {}, 16 * GIB)
    assert step(b, "multimodal cache").value == 100 * 2**20
