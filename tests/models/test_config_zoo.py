"""Small configs, one per way a config.json says a fact, each derived spec, count and weights pinned (issue O item 9).

The bundled configs are trimmed real ones; they leave out many spellings kvlint reads (a key's alias, a default a
class supplies, a quantization block's variants, layer patterns of families not bundled, vision towers, configs
that must be refused). Each config below is a llama-shaped base with one change; tests/models/data/zoo.json holds
what kvlint derives from it (the same facts as tests/models/data/pinned.json, or the error a user reads) and the
relations each change must show against the base (a second KV head doubles the cache, ...) are asserted here.

Regenerate after an intended change with KVLINT_UPDATE_GOLDEN=1 and review the diff.
"""

from __future__ import annotations

import copy
import json
import os
from pathlib import Path
from typing import Any

import pytest

from kvlint.errors import KvlintError
from kvlint.models.config import spec_from_config
from kvlint.models.weights import Placement, weights_bytes
from tests.models.test_pinned_table import facts

TABLE = Path(__file__).parent / "data" / "zoo.json"

BASE: dict[str, Any] = {
    "architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 1024, "num_hidden_layers": 8,
    "num_attention_heads": 16, "num_key_value_heads": 4, "intermediate_size": 2816, "vocab_size": 32000,
    "max_position_embeddings": 8192, "torch_dtype": "bfloat16", "tie_word_embeddings": False,
}


def with_(*drop: str, **changes: Any) -> dict[str, Any]:
    cfg = {k: v for k, v in copy.deepcopy(BASE).items() if k not in drop}
    cfg.update(changes)
    return cfg


def nested(text: dict[str, Any], **top: Any) -> dict[str, Any]:
    return {"architectures": top.pop("architectures", ["X"]), "model_type": top.pop("model_type", "wrapper"),
            "text_config": text, **top}


def quant(**qc: Any) -> dict[str, Any]:
    return with_(quantization_config=qc)


CT_W4 = {"quant_method": "compressed-tensors", "config_groups": {"g0": {"weights": {
    "num_bits": 4, "group_size": 128, "symmetric": True}, "targets": ["Linear"]}}, "ignore": ["lm_head"]}
CT_W8 = {"quant_method": "compressed-tensors", "config_groups": {"g0": {"weights": {
    "num_bits": 8, "strategy": "channel"}}}, "kv_cache_scheme": {"num_bits": 8}, "ignore": ["lm_head"]}
MLA = dict(model_type="deepseek_v3", architectures=["DeepseekV3ForCausalLM"], kv_lora_rank=128, q_lora_rank=192,
           qk_rope_head_dim=32, qk_nope_head_dim=64, v_head_dim=64)
MOE = dict(num_local_experts=8, num_experts_per_tok=2, model_type="mixtral", architectures=["MixtralForCausalLM"])

ZOO_BY_TOPIC: dict[str, dict[str, Any]] = {
    "base": {
        "base": with_(),
    },
    "keys": {  # keys by other names, defaults
        "gpt-style names": with_("hidden_size", "num_hidden_layers", "num_attention_heads", "intermediate_size",
                                 "max_position_embeddings", n_embd=1024, n_layer=8, n_head=16, n_positions=1024,
                                 model_type="gpt2", architectures=["GPT2LMHeadModel"]),
        "d_model and num_layers": with_("hidden_size", "num_hidden_layers", d_model=1024, num_layers=8),
        "n_layers, num_heads": with_("num_hidden_layers", "num_attention_heads", n_layers=8, num_heads=16),
        "no intermediate: 4h": with_("intermediate_size"),
        "ffn_hidden_size": with_("intermediate_size", ffn_hidden_size=3000),
        "n_inner": with_("intermediate_size", n_inner=3001),
        "ffn_dim": with_("intermediate_size", ffn_dim=3002),
        "head_dim given": with_(head_dim=128),
        "head_dim 0 falls back": with_(head_dim=0),
        "hidden_size_per_head": with_(hidden_size_per_head=96),
        "v_head_dim": with_(v_head_dim=48),
        "no kv heads: MHA": with_("num_key_value_heads"),
        "kv heads 0: the next key, then MHA": with_(num_key_value_heads=0, num_kv_heads=0),
        "kv heads 0, then n_head_kv": with_(num_key_value_heads=0, n_head_kv=2),
        "n_head_kv": with_("num_key_value_heads", n_head_kv=2),
        "num_kv_heads": with_("num_key_value_heads", num_kv_heads=8),
        "multi_query_group_num": with_("num_key_value_heads", multi_query_group_num=2, model_type="chatglm"),
        "falcon multi_query": with_("num_key_value_heads", model_type="falcon", multi_query=True),
        "falcon new architecture": with_("num_key_value_heads", model_type="falcon", multi_query=True,
                                         new_decoder_architecture=True, num_kv_heads=8),
        "no dtype: float32": with_("torch_dtype"),
        "dtype key": with_("torch_dtype", dtype="float16"),
        "torch. prefix": with_(torch_dtype="torch.float16"),
        "tied": with_(tie_word_embeddings=True),
        "vocab 0": with_("vocab_size"),
        "class defaults (qwen3 minimal)": {"architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3",
                                           "num_hidden_layers": 4, "hidden_size": 512, "num_attention_heads": 8},
        "class defaults (gpt_oss minimal)": {"architectures": ["GptOssForCausalLM"], "model_type": "gpt_oss",
                                             "num_hidden_layers": 4, "hidden_size": 512, "num_attention_heads": 8},
        "class defaults (gemma2)": {"architectures": ["Gemma2ForCausalLM"], "model_type": "gemma2",
                                    "num_hidden_layers": 4, "hidden_size": 512, "num_attention_heads": 8},
        "class defaults (deepseek_v3)": {"architectures": ["DeepseekV3ForCausalLM"], "model_type": "deepseek_v3",
                                         "num_hidden_layers": 4, "hidden_size": 512, "num_attention_heads": 8},
        "class defaults (qwen3_next)": {"architectures": ["Qwen3NextForCausalLM"], "model_type": "qwen3_next",
                                        "num_hidden_layers": 8, "hidden_size": 512, "num_attention_heads": 8},
    },
    "lengths": {  # lengths
        "seq_length": with_("max_position_embeddings", seq_length=4096),
        "max_seq_len and model_max_length": with_(max_seq_len=16384, model_max_length=12000),
        "max_sequence_length first for sglang": with_(max_sequence_length=2048),
        "no length key": with_("max_position_embeddings"),
        "float length": with_(max_position_embeddings=8192.0),
        "rope linear x4": with_(rope_scaling={"type": "linear", "factor": 4.0}),
        "rope dynamic x2": with_(rope_scaling={"rope_type": "dynamic", "factor": 2}),
        "rope yarn x4 with original": with_(rope_scaling={"rope_type": "yarn", "factor": 4.0,
                                                          "original_max_position_embeddings": 8192}),
        "rope yarn x4": with_(rope_scaling={"rope_type": "yarn", "factor": 4.0}),
        "rope llama3 x8": with_(rope_scaling={"rope_type": "llama3", "factor": 8.0}),
        "rope parameters per layer type": with_(rope_parameters={"full_attention": {"rope_type": "linear", "factor": 2},
                                                                 "sliding_attention": {"rope_type": "default"}}),
        "rope factor missing": with_(rope_scaling={"rope_type": "linear"}),
        "longrope": with_(max_position_embeddings=131072, original_max_position_embeddings=4096,
                          rope_scaling={"type": "longrope", "long_factor": [1.0], "short_factor": [1.0]}),
        "longrope with model_max_length": with_(max_position_embeddings=131072, original_max_position_embeddings=4096,
                                                model_max_length=65536, rope_scaling={"rope_type": "longrope"}),
        "gemma3 linear rope": {**with_(), "model_type": "gemma3_text", "architectures": ["Gemma3ForCausalLM"],
                               "sliding_window": 512, "rope_scaling": {"rope_type": "linear", "factor": 8.0}},
        "gpt2 aliases n_positions for sglang": with_("max_position_embeddings", model_type="gpt2", n_positions=1024,
                                                     architectures=["GPT2LMHeadModel"]),
        "dbrx aliases max_seq_len": with_("max_position_embeddings", model_type="dbrx", max_seq_len=32768),
    },
    "layers": {  # layer patterns
        "sliding window all layers": with_(sliding_window=4096),
        "sliding_window_size": with_(sliding_window_size=2048),
        "sliding window switched off": with_(sliding_window=4096, use_sliding_window=False),
        "sliding window 0": with_(sliding_window=0),
        "qwen max_window_layers": with_(model_type="qwen2", sliding_window=4096, use_sliding_window=True,
                                        max_window_layers=5),
        "gemma2 alternates": with_(model_type="gemma2", sliding_window=4096),
        "gemma3 every sixth": with_(model_type="gemma3_text", sliding_window=1024, num_hidden_layers=12),
        "sliding_window_pattern 4": with_(sliding_window=1024, sliding_window_pattern=4),
        "layer_types": with_(sliding_window=256, layer_types=["sliding_attention", "full_attention", "local",
                                                              "sliding_window", "chunked_attention",
                                                              "full_attention", "other", "local"],
                             attention_chunk_size=2048),
        "layer_types with linear attention": with_(layer_types=["linear_attention", "mamba", "full_attention"] * 2 +
                                                   ["linear_attention"] * 2, linear_num_key_heads=4,
                                                   linear_key_head_dim=64, linear_num_value_heads=8,
                                                   linear_value_head_dim=32),
        "layer_types with linear attention, no sizes": with_(layer_types=["linear_attention"] * 8),
        "layer_types without window": with_(layer_types=["sliding_attention"] * 8),
        "layer_types wrong length": with_(sliding_window=256, layer_types=["full_attention"] * 3),
        "llama4 chunked with no_rope_layers": with_(model_type="llama4_text", attention_chunk_size=8192,
                                                    no_rope_layers=[1, 1, 1, 0, 1, 1, 1, 0]),
        "llama4 chunked by interval": with_(model_type="llama4_text", attention_chunk_size=8192,
                                            no_rope_layer_interval=3),
        "llama4 chunked default interval": with_(model_type="llama4_text", attention_chunk_size=8192,
                                                 no_rope_layers=[1, 0]),
        "kv shared layers": with_(num_kv_shared_layers=3),
        "gemma4 global head": with_(sliding_window=512, layer_types=["sliding_attention"] * 5 + ["full_attention"] * 3,
                                    global_head_dim=256, attention_k_eq_v=True, num_global_key_value_heads=1),
        "gemma4 global head, k != v": with_(sliding_window=512, layer_types=["full_attention"] * 8, global_head_dim=256,
                                            num_global_key_value_heads=1),
        "qwen3_next": with_(model_type="qwen3_next", full_attention_interval=4, linear_num_key_heads=4,
                            linear_key_head_dim=64, linear_num_value_heads=8, linear_value_head_dim=64,
                            linear_conv_kernel_dim=4, num_experts=4, num_experts_per_tok=2, moe_intermediate_size=256,
                            shared_expert_intermediate_size=512, decoder_sparse_step=1),
        "nemotron_h pattern": with_(model_type="nemotron_h", hybrid_override_pattern="M-M*ME-E", mamba_num_heads=16,
                                    mamba_head_dim=64, n_groups=2, ssm_state_size=64, conv_kernel=4,
                                    n_routed_experts=8, num_experts_per_tok=2, moe_intermediate_size=512,
                                    moe_shared_expert_intermediate_size=256, n_shared_experts=1,
                                    mamba_ssm_cache_dtype="float32"),
        "nemotron_h block list and latent": with_(model_type="nemotron_h", mamba_num_heads=16, use_conv_bias=True,
                                                  layers_block_type=["mamba", "mlp", "mamba", "attention", "mamba",
                                                                     "moe", "mlp", "moe"],
                                                  n_routed_experts=8, num_experts_per_tok=2, moe_intermediate_size=512,
                                                  moe_latent_size=256),
        "nemotron_h pattern too short": with_(model_type="nemotron_h", hybrid_override_pattern="M-M*", mamba_num_heads=8),
        "nemotron_h unknown block": with_(model_type="nemotron_h", hybrid_override_pattern="M-M*ME-X", mamba_num_heads=8),
    },
    "mla": {  # MLA
        "mla": with_(**MLA),
        "mla defaults": with_(model_type="deepseek_v2", kv_lora_rank=256),
        "mla no q lora": with_(**{**MLA, "q_lora_rank": None}),
        "kv_lora_rank on another type": with_(kv_lora_rank=128),
        "mla v3.2 indexer": with_(**MLA, index_topk=256, index_head_dim=64, index_n_heads=8),
        "mla v3.2 indexer, default heads": with_(**MLA, index_topk=256, index_head_dim=64),
        "mla indexer without topk": with_(**MLA, index_head_dim=64),
        "deepseek_v4 defaults": with_(model_type="deepseek_v4", head_dim=192),
        "deepseek_v4 without head_dim": with_(model_type="deepseek_v4", kv_lora_rank=128, qk_rope_head_dim=32),
        "deepseek_v4": with_(model_type="deepseek_v4", head_dim=192, qk_rope_head_dim=32, q_lora_rank=256,
                             o_groups=4, o_lora_rank=128),
        "kimi_vl nested mla": nested(with_(**{k: v for k, v in MLA.items() if k != "model_type"}), model_type="kimi_vl",
                                     architectures=["KimiVLForConditionalGeneration"]),
    },
    "moe": {  # MoE
        "mixtral": with_(**MOE),
        "one expert is dense": with_(**{**MOE, "num_local_experts": 1}),
        "experts_per_token spelling": with_(num_experts=8, experts_per_token=3, moe_intermediate_size=512),
        "moe_top_k and moe_num_experts": with_(moe_num_experts=16, moe_top_k=4, moe_intermediate_size=256),
        "no top k": with_(num_experts=4, moe_intermediate_size=256),
        "qwen2_moe shared": with_(model_type="qwen2_moe", num_experts=8, num_experts_per_tok=2, moe_intermediate_size=256,
                                  shared_expert_intermediate_size=1024, decoder_sparse_step=2, mlp_only_layers=[3]),
        "qwen3_moe sparse step": with_(model_type="qwen3_moe", num_experts=8, num_experts_per_tok=2,
                                       moe_intermediate_size=256, decoder_sparse_step=1),
        "deepseek first dense and freq": with_(n_routed_experts=16, num_experts_per_tok=4, moe_intermediate_size=256,
                                               n_shared_experts=2, first_k_dense_replace=2, moe_layer_freq=2,
                                               topk_method="noaux_tc"),
        "llama4 interleave": with_(model_type="llama4_text", num_local_experts=16, num_experts_per_tok=1,
                                   interleave_moe_layer_step=2, intermediate_size_mlp=4096),
        "gpt_oss": with_(model_type="gpt_oss", num_local_experts=8, num_experts_per_tok=2, sliding_window=128,
                         layer_types=["sliding_attention", "full_attention"] * 4),
        "dense width beside experts": with_(n_routed_experts=8, num_experts_per_tok=2, moe_intermediate_size=300,
                                            first_k_dense_replace=1),
    },
    "families": {  # families counted their own way
        "qwen2 biases": with_(model_type="qwen2"),
        "attention_bias": with_(attention_bias=True),
        "qwen2 attention_bias": with_(model_type="qwen2", attention_bias=True),
        "qwen3 qk norm": with_(model_type="qwen3"),
        "glm qk norm": with_(model_type="glm4_moe", use_qk_norm=True),
        "gemma2 four norms": with_(model_type="gemma2"),
        "phi biases": with_(model_type="phi"),
        "opt positions": with_(model_type="opt", architectures=["OPTForCausalLM"]),
        "opt default positions": with_("max_position_embeddings", model_type="opt"),
        "falcon layernorm": with_(model_type="falcon"),
        "mtp deepseek": with_(**MLA, num_nextn_predict_layers=1, n_routed_experts=8, num_experts_per_tok=2,
                              moe_intermediate_size=256),
        "mtp qwen3.5 shares embeddings": with_(mtp_num_hidden_layers=1),
        "mtp dedicated embeddings": with_(mtp_num_hidden_layers=2, mtp_use_dedicated_embeddings=True),
        "partial rotary": with_(partial_rotary_factor=0.5),
    },
    "quantization": {  # quantization
        "awq": quant(quant_method="awq", bits=4, group_size=128, modules_to_not_convert=["lm_head"]),
        "awq w_bit, q_group_size": quant(quant_method="awq", w_bit=4, q_group_size=64),
        "awq_marlin": quant(quant_method="awq_marlin", bits=4, group_size=-1),
        "gptq 8 bit": quant(quant_method="gptq", bits=8, group_size=32),
        "gptq group -1": quant(quant_method="gptq", bits=4, group_size=-1),
        "gptq_marlin defaults": quant(quant_method="gptq_marlin"),
        "fp8 block": quant(quant_method="fp8", weight_block_size=[128, 128]),
        "fp8 ignored_layers": quant(quant_method="fp8", ignored_layers=["model.layers.0.self_attn.q_proj", "lm_head"],
                                    kv_cache_scheme="static"),
        "fp8 attention kept": quant(quant_method="fp8", modules_to_not_convert=["self_attn"]),
        "fp8 bad block": quant(quant_method="fp8", weight_block_size=[128]),
        "fbgemm_fp8": quant(quant_method="fbgemm_fp8", modules_to_not_convert=["lm_head"]),
        "bnb 4 bit": quant(quant_method="bitsandbytes", load_in_4bit=True, bnb_4bit_blocksize=128),
        "bnb 8 bit": quant(quant_method="bitsandbytes", load_in_8bit=True),
        "mxfp4 dense": quant(quant_method="mxfp4", modules_to_not_convert=["lm_head"]),
        "mxfp4 moe": with_(**MOE, quantization_config={"quant_method": "mxfp4"}),
        "compressed-tensors w4 symmetric": quant(**CT_W4),
        "compressed-tensors w4 asymmetric": quant(**{**CT_W4, "config_groups": {"g0": {"weights": {
            "num_bits": 4, "group_size": 32, "symmetric": False}}}}),
        "compressed-tensors w8 fp8 kv": quant(**CT_W8),
        "compressed-tensors no groups": quant(quant_method="compressed-tensors"),
        "modelopt fp8 in config": quant(quant_method="modelopt", quant_algo="FP8", kv_cache_quant_algo="FP8"),
        "modelopt nvfp4 group in config_groups": quant(quant_method="modelopt", quant_algo="NVFP4",
                                                       config_groups={"g": {"weights": {"group_size": 16}}},
                                                       kv_cache_scheme={"num_bits": 8}, exclude_modules=["lm_head"]),
        "modelopt int4 kv dict nvfp4": quant(quant_method="modelopt", quant_algo="W4A8_INT4", group_size=128,
                                             kv_cache_quant_algo={"num_bits": 4}),
        "modelopt kv other": quant(quant_method="modelopt_fp4", quant_algo="FP4", group_size=16,
                                   kv_cache_quant_algo="INT8"),
        "unknown method": quant(quant_method="hqq", bits=2, group_size=64),
        "unknown method, no ints": quant(quant_method="eetq", bits="8"),
        "quant in text_config": nested(with_(quantization_config={"quant_method": "awq", "bits": 4})),
        "quant method missing": quant(bits=4),
    },
    "multimodal": {  # multimodal
        "nested text_config": nested(with_("torch_dtype"), torch_dtype="float16", tie_word_embeddings=True,
                                     vision_config={"hidden_size": 64, "num_hidden_layers": 2, "patch_size": 14,
                                                    "image_size": 224}),
        "nested text_config without model_type": nested(with_("model_type"), model_type="gemma3"),
        "qwen2.5-vl tower": with_(vision_config={"hidden_size": 128, "depth": 4, "hidden_act": "silu",
                                                 "intermediate_size": 344, "out_hidden_size": 1024, "patch_size": 14,
                                                 "temporal_patch_size": 2, "spatial_merge_size": 2}),
        "qwen3-vl deepstack": with_(vision_config={"hidden_size": 128, "depth": 4, "intermediate_size": 344,
                                                   "out_hidden_size": 1024, "num_position_embeddings": 2304,
                                                   "deepstack_visual_indexes": [1, 2, 3]}),
        "mllama tiles": with_(vision_config={"hidden_size": 128, "num_hidden_layers": 4, "num_global_layers": 2,
                                             "image_size": 56, "patch_size": 14, "max_num_tiles": 4,
                                             "supported_aspect_ratios": [[1, 1], [1, 2], [2, 1]],
                                             "vision_output_dim": 640}),
        "llama4 projector": with_(vision_config={"hidden_size": 128, "num_hidden_layers": 2, "image_size": 112,
                                                 "projector_input_dim": 512, "projector_output_dim": 1024,
                                                 "vision_output_dim": 256}),
        "kimi merge kernel": with_(vision_config={"hidden_size": 128, "num_hidden_layers": 2,
                                                  "merge_kernel_size": [2, 2], "in_chans": 1}),
        "three channels by name, one by num_channels": with_(vision_config={"hidden_size": 64, "num_hidden_layers": 1,
                                                                            "num_channels": 1, "patch_size": 16,
                                                                            "image_size": 64}),
        "embed_dim tower, no layers": with_(vision_config={"embed_dim": 128}),
        "tower with no hidden": with_(vision_config={"num_hidden_layers": 4}),
    },
    "refused": {  # refused
        "not an object": ["x"],
        "no layers": with_("num_hidden_layers"),
        "layers as text": with_(num_hidden_layers="8"),
        "layers 0": with_(num_hidden_layers=0),
        "negative vocab": with_(vocab_size=-1),
        "too many layers": with_(num_hidden_layers=10_001),
        "layers at the ceiling": with_(num_hidden_layers=10_000, hidden_size=64, num_attention_heads=4,
                                       intermediate_size=64, vocab_size=10),
        "huge value shown short": with_(max_position_embeddings=10**60),
        "string size": with_(hidden_size="1024"),
        "bool size is not checked": with_(sliding_window=True),
        "nested bad value": nested(with_(), vision_config={"hidden_size": -5}),
        "deeply nested value is not checked": with_(a={"b": {"c": {"d": {"hidden_size": -5}}}}),
        "malformed rope": with_(rope_scaling={"rope_type": "linear", "factor": "x"}),
        "heads zero": with_(num_attention_heads=0),
        "not modelled architecture": with_(architectures=["DeciLMForCausalLM"]),
    },
}
ZOO: dict[str, Any] = {name: cfg for group in ZOO_BY_TOPIC.values() for name, cfg in group.items()}


def row(name: str) -> dict[str, Any]:
    """Each config its own id: weights_bytes memoises by the spec, whose equality leaves the raw config out."""
    try:
        spec = spec_from_config(ZOO[name], f"zoo/{name}", "test")
    except KvlintError as exc:
        return {"error": exc.message}
    out: dict[str, Any] = {}
    for section in ("spec", "params", "rope-mxfp4"):
        try:
            out.update(facts(spec, section))
        except KvlintError as exc:
            out[section] = f"error: {exc.message}"
    weights: dict[str, Any] = {}
    for name, kw in (("tp1", {}), ("tp2", {"tp": 2}), ("tp8", {"tp": 8}), ("pp3", {"pp": 3}),
                     ("pp3.2", {"pp": 3, "pp_rank": 2}), ("ep4", {"tp": 4, "ep": 4}), ("fp8", {"quantization": "fp8"}),
                     ("fp32", {"dtype": "float32"}), ("mtp", {"mtp": True}),
                     ("attn-dp", {"tp": 4, "placement": Placement(attn_tp=2, head_tp=1)})):
        try:
            weights[name] = weights_bytes(spec, **kw)
        except KvlintError as exc:
            weights[name] = f"error: {exc.message}"
    out["weights"] = weights
    out["kv per token"] = sum(layer.num_kv_heads * (layer.head_dim_k + layer.head_dim_v) for layer in spec.layers)
    return out


PINNED = json.loads(TABLE.read_text()) if TABLE.exists() else {}


def test_the_table_has_every_config_and_is_updated_when_asked():
    if os.environ.get("KVLINT_UPDATE_GOLDEN"):
        TABLE.write_text(json.dumps({name: row(name) for name in ZOO}, indent=1, sort_keys=True) + "\n")
    assert set(json.loads(TABLE.read_text())) == set(ZOO)


def _check(name: str) -> None:
    got = json.loads(json.dumps(row(name)))
    want = PINNED[name]
    differences = [f"{key}: pinned {want.get(key)} now {got.get(key)}" for key in sorted(set(got) | set(want))
                   if want.get(key) != got.get(key)]
    assert not differences, "\n".join(differences)


# One test per topic, one case per config: a change runs each topic's cheapest cases first, so the configs of the
# topic a line belongs to are among those a mutant meets.
@pytest.mark.parametrize("name", sorted(ZOO_BY_TOPIC["base"]) + sorted(ZOO_BY_TOPIC["keys"]))
def test_keys_by_other_names_and_defaults(name):
    _check(name)


@pytest.mark.parametrize("name", sorted(ZOO_BY_TOPIC["lengths"]))
def test_lengths(name):
    _check(name)


@pytest.mark.parametrize("name", sorted(ZOO_BY_TOPIC["layers"]))
def test_layer_patterns(name):
    _check(name)


@pytest.mark.parametrize("name", sorted(ZOO_BY_TOPIC["mla"]))
def test_latent_attention(name):
    _check(name)


@pytest.mark.parametrize("name", sorted(ZOO_BY_TOPIC["moe"]))
def test_experts(name):
    _check(name)


@pytest.mark.parametrize("name", sorted(ZOO_BY_TOPIC["families"]))
def test_families_counted_their_own_way(name):
    _check(name)


@pytest.mark.parametrize("name", sorted(ZOO_BY_TOPIC["quantization"]))
def test_quantization_blocks(name):
    _check(name)


@pytest.mark.parametrize("name", sorted(ZOO_BY_TOPIC["multimodal"]))
def test_vision_towers(name):
    _check(name)


@pytest.mark.parametrize("name", sorted(ZOO_BY_TOPIC["refused"]))
def test_refused_configs(name):
    _check(name)


def _get(name: str) -> dict[str, Any]:
    return PINNED[name]


def test_the_changes_show_against_the_base():
    """Read, not only recorded: each change moves what it should against the base."""
    base = _get("base")
    assert base["params"]["total"] == 2 * 32000 * 1024 + 8 * (1024 * 1024 * 2 + 2 * 1024 * 256 + 3 * 1024 * 2816
                                                              + 2 * 1024) + 1024
    assert base["kv per token"] == 8 * 4 * 128 and base["weights"]["tp1"] == 2 * base["params"]["total"]
    assert _get("no kv heads: MHA")["kv per token"] == 4 * base["kv per token"]
    assert _get("head_dim given")["kv per token"] == 2 * base["kv per token"]
    assert _get("no dtype: float32")["spec"][11] == "float32" and _get("dtype key")["spec"][11] == "float16"
    assert _get("tied")["params"]["lm_head"] == 0 < base["params"]["lm_head"]
    assert _get("rope linear x4")["lengths"][0] == 4 * 8192 and _get("rope yarn x4")["lengths"][0] == 8192
    assert _get("longrope")["lengths"][0] == 4096 and _get("longrope")["lengths"][4] == 131072
    assert _get("no length key")["lengths"][:3] == [2048, None, 2048]
    assert _get("awq")["quant"][:3] == ["awq", 4, 128] and _get("awq")["weights"]["tp1"] < 0.6 * base["weights"]["tp1"]
    assert _get("bnb 8 bit")["quant"][:3] == ["bitsandbytes", 8, 64]
    assert _get("layers at the ceiling")["spec"][2] == 10_000
    for name in ("not an object", "no layers", "layers as text", "too many layers", "negative vocab", "string size",
                 "nested bad value", "malformed rope", "heads zero"):
        assert "error" in _get(name), name
    assert "10,000" in _get("too many layers")["error"] and "..." in _get("huge value shown short")["error"]


def test_state_layers_without_their_sizes_are_refused_not_a_crash(tmp_path):
    """Granite-4.0-style layer_types ("mamba", "attention") with Mamba sizes under keys kvlint does not read: the
    layers were read as Mamba with no state, and counting their weights raised KeyError ("kvlint: internal error",
    exit 2). Such a config is refused with the reason, like any config kvlint cannot size."""
    from kvlint.models.config import ModelConfigError

    cfg = with_(architectures=["GraniteMoeHybridForCausalLM"], model_type="granitemoehybrid",
                layer_types=["mamba", "attention"] * 4, mamba_n_heads=32, mamba_d_state=128)
    with pytest.raises(ModelConfigError, match="Mamba or linear-attention layers .* not sized"):
        spec_from_config(cfg, "ibm/granite-like", "test")
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "config.json").write_text(json.dumps(cfg))
    (tmp_path / "serve.sh").write_text("vllm serve ./m --max-model-len 4096\n")
    from kvlint.cli import main

    assert main(["check", "--gpu", "H100", "--exit-zero", str(tmp_path / "serve.sh")]) == 0
