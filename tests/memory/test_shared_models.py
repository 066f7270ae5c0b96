"""Cell sizes for every model in shared/models: both engines agree with the textbook formula from config.json.

The expected value is computed here from the raw config (layers x kv heads x (d_k + d_v) x 2, or the MLA
latent), so a disagreement points at either the spec reader or the engine models.
"""

from __future__ import annotations

import json

from kvlint.engines.sglang.memory import tokens_for_pool
from kvlint.memory import compute_budget
from kvlint.models.config import spec_from_config

GIB = 2**30
CLASS_HEAD_DIM = {"gemma3_text": 256}  # transformers' Gemma3TextConfig default when config.json omits head_dim


def expected_cell(cfg: dict) -> int | None:
    text = cfg.get("text_config") or cfg
    layers = text.get("num_hidden_layers")
    if not layers or text.get("layer_types") and "linear_attention" in text["layer_types"]:
        return None
    if text.get("kv_lora_rank") and text.get("qk_rope_head_dim"):
        return layers * (text["kv_lora_rank"] + text["qk_rope_head_dim"]) * 2
    heads = text.get("num_attention_heads") or text.get("n_head")
    kvh = text.get("num_key_value_heads") or text.get("n_head_kv") or heads
    if text.get("multi_query") and not text.get("new_decoder_architecture"):
        kvh = 1  # Falcon-7B multi-query attention
    if not heads:
        return None
    head = text.get("head_dim") or CLASS_HEAD_DIM.get(text.get("model_type")) or text["hidden_size"] // heads
    return layers * kvh * 2 * head * 2


def configs(shared_dir):
    for path in sorted((shared_dir / "models").glob("*/*/config.json")):
        cfg = json.loads(path.read_text())
        yield path.parent.relative_to(shared_dir / "models").as_posix(), cfg


def test_cell_size_of_every_shared_model(shared_dir):
    checked, mismatches = 0, []
    for model_id, cfg in configs(shared_dir):
        want = expected_cell(cfg)
        if want is None:
            continue
        spec = spec_from_config(cfg, model_id, "test")
        if spec.quant and spec.quant.kv_cache_dtype or any(layer.kind in ("mamba", "none") for layer in spec.layers):
            continue
        if spec.architecture.startswith("DeepseekV4"):
            continue  # compressed V4 latents: not the V2/V3 formula
        got = compute_budget("vllm", spec, {"kv_cache_memory_bytes": GIB, "max_model_len": 4096}, None,
                             gpu_memory_bytes=80 * GIB, weights_bytes=0).kv_bytes_per_token
        if got != want:
            mismatches.append((model_id, want, got))
        checked += 1
    assert mismatches == [] and checked >= 60


def test_sglang_matches_vllm_outside_hybrid_swa(shared_dir):
    for model_id, cfg in configs(shared_dir):
        spec = spec_from_config(cfg, model_id, "test")
        if any(layer.kind in ("mamba", "none") for layer in spec.layers) or spec.architecture.startswith(
                ("GptOss", "Llama4", "DeepseekV4")) or spec.quant and spec.quant.kv_cache_dtype:
            continue
        vllm = compute_budget("vllm", spec, {"kv_cache_memory_bytes": GIB, "max_model_len": 4096}, None,
                              gpu_memory_bytes=80 * GIB, weights_bytes=0).kv_bytes_per_token
        assert tokens_for_pool(spec, GIB)[1] == vllm, model_id
