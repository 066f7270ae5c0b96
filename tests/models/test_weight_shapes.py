"""Parameter counts of single layers, worked out by hand from the reference modelling code's shapes (issue O
item 9: mutants in these formulas survived a 1.5 % check against published totals). Each expected count is
written as the sum of the tensors the modelling code creates."""

from __future__ import annotations

import json
from pathlib import Path

from kvlint.models.config import spec_from_config
from kvlint.models.weights import _text, count_params, layer_params

REGISTRY = Path(__file__).resolve().parents[2] / "kvlint" / "models" / "registry"


def config(name: str) -> dict:
    return json.loads((REGISTRY / f"{name}.json").read_text())["config"]


def spec(cfg: dict, name: str = "test/model"):
    return spec_from_config(cfg, name, "test")


def test_nemotron_h_mamba2_block():
    """transformers' NemotronHMamba2Mixer (Nemotron-H-56B: hidden 8192, 256 heads x 64, n_groups 8, state 256,
    conv kernel 4 with bias): in_proj hidden -> inner + conv_dim + heads, conv1d depthwise over conv_dim =
    inner + 2 x n_groups x state (kernel weights + bias), dt_bias / A_log / D per head, a gated RMSNorm over inner,
    out_proj inner -> hidden, and the block's own RMSNorm."""
    cfg = config("nvidia--Nemotron-H-56B-Base-8K")
    s = spec(cfg)
    h, heads, inner = 8192, 256, 256 * 64
    conv_dim = inner + 2 * 8 * 256
    want = h * (inner + conv_dim + heads) + conv_dim * 4 + conv_dim + 3 * heads + inner + inner * h + h
    assert layer_params(s, _text(s), cfg["hybrid_override_pattern"].index("M")).total == want


def test_nemotron_h_attention_block():
    """An attention block (*): q and o hidden x heads x head_dim, k and v hidden x kv heads x head_dim, one norm."""
    cfg = config("nvidia--Nemotron-H-56B-Base-8K")
    s = spec(cfg)
    h, hd = 8192, cfg.get("head_dim") or 8192 // cfg["num_attention_heads"]
    want = 2 * h * cfg["num_attention_heads"] * hd + 2 * h * cfg["num_key_value_heads"] * hd + h
    assert layer_params(s, _text(s), cfg["hybrid_override_pattern"].index("*")).total == want


def test_deepseek_v32_indexer_weights():
    """DeepSeek-V3.2's Indexer (inference/model.py): wq_b q_lora_rank -> n_heads x head_dim, wk hidden -> head_dim,
    k_norm LayerNorm(head_dim) with bias, weights_proj hidden -> n_heads; one per layer (61)."""
    cfg = config("deepseek-ai--DeepSeek-V3.2")
    without = {k: v for k, v in cfg.items() if k not in ("index_topk", "index_head_dim", "index_n_heads")}
    per_layer = 1536 * 64 * 128 + 7168 * 128 + 2 * 128 + 7168 * 64
    assert count_params(spec(cfg)).total - count_params(spec(without)).total == 61 * per_layer
    assert count_params(spec({**cfg, "index_head_dim": None})).total == count_params(spec(without)).total


def test_intermediate_size_zero_is_not_a_width():
    """A config writing intermediate_size 0 (no dense MLP width) falls back to the GPT-style 4 x hidden."""
    base = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 256, "num_hidden_layers": 2,
            "num_attention_heads": 4, "num_key_value_heads": 4, "vocab_size": 1000, "max_position_embeddings": 2048}
    assert spec({**base, "intermediate_size": 0}).intermediate_size == 4 * 256
    assert spec({**base, "intermediate_size": 1}).intermediate_size == 1


def test_merged_patch_projector():
    """Kimi-VL's MoonViT projector (merge_kernel_size 2 x 2): the merged width 4 x hidden -> itself -> the text
    width (biases not counted); without merging, one hidden -> text linear."""
    from kvlint.models.vision import _projector

    assert _projector({"merge_kernel_size": [2, 2]}, 1152, 2048) == 4608 * 4608 + 4608 * 2048
    assert _projector({}, 1152, 2048) == 1152 * 2048


def test_checkpoint_dtype_skips_empty_and_non_string_values():
    from kvlint.models.text_config import checkpoint_dtype

    assert checkpoint_dtype({"torch_dtype": 16, "dtype": ""}, {"dtype": "torch.bfloat16"}) == "bfloat16"
    assert checkpoint_dtype({}, {}) == "float32"  # transformers' default when a config names none


def test_a_model_reference_that_is_not_text_is_an_unknown_model():
    import pytest

    from kvlint.errors import UnknownModelError
    from kvlint.models.resolve import resolve_model

    for ref in (None, 7, "", "   "):
        with pytest.raises(UnknownModelError, match="empty model reference"):
            resolve_model(ref)  # type: ignore[arg-type]


def test_mla_attention_projections():
    """DeepSeek-V3's MLA (modeling_deepseek.py): q_a_proj hidden -> q_lora, q_b_proj q_lora -> heads x (nope + rope),
    kv_a_proj_with_mqa hidden -> kv_lora + rope, kv_b_proj kv_lora -> heads x (nope + v), o_proj heads x v -> hidden;
    q_a_layernorm and kv_a_layernorm. Split by TP: the up-projections and o; replicated: the down-projections."""
    from kvlint.models.weights import _mla_attention

    s = spec(config("deepseek-ai--DeepSeek-V3"))
    h, heads, q_lora, kv_lora = 7168, 128, 1536, 512
    split = q_lora * heads * (128 + 64) + kv_lora * heads * (128 + 128) + heads * 128 * h
    assert _mla_attention(s, _text(s)) == (split, 0, h * q_lora + h * (kv_lora + 64), q_lora + kv_lora)


def test_qwen3_next_gated_delta_net():
    """transformers' Qwen3NextGatedDeltaNet: in_proj_qkvz hidden -> 2 x key_dim + 2 x value_dim, in_proj_ba hidden ->
    2 x value heads, conv1d over 2 x key_dim + value_dim (kernel 4, no bias), dt_bias and A_log per value head, a
    gated RMSNorm over one value head, out_proj value_dim -> hidden. Qwen3-Next-80B: hidden 2048, 16 key heads x 128,
    32 value heads x 128."""
    from kvlint.models.weights import _gated_delta_net

    s = spec(config("Qwen--Qwen3-Next-80B-A3B-Thinking"))
    h, key_dim, value_dim = 2048, 16 * 128, 32 * 128
    split = h * (2 * key_dim + 2 * value_dim) + h * 2 * 32 + value_dim * h + (2 * key_dim + value_dim) * 4
    assert _gated_delta_net(s, _text(s)) == (split, 0, 0, 2 * 32 + 128)


def test_mxfp4_layout_takes_the_largest_pipeline_stage():
    """gpt-oss-20b: 24 MoE layers; vLLM's PP 5 split gives stages of 5, 5, 5, 5 and 4 layers, and the extra
    bytes of the backend's layout are per MoE layer: the largest stage holds 5 of them (one-layer stages on PP 24)."""
    from kvlint.models.resolve import resolve_model
    from kvlint.models.weights import mxfp4_layout_bytes

    model = resolve_model("openai/gpt-oss-20b")
    one = mxfp4_layout_bytes(model, "triton", pp=24, pp_rank=0)
    assert one > 0
    assert mxfp4_layout_bytes(model, "triton", pp=5) == 5 * one
    assert mxfp4_layout_bytes(model, "triton", pp=5, pp_rank=4) == 4 * one
    assert mxfp4_layout_bytes(model, "triton") == 24 * one


def test_bitsandbytes_8bit_is_read_as_8_bits():
    """quantization_config {"quant_method": "bitsandbytes", "load_in_8bit": true}: LLM.int8 keeps one byte per
    weight, twice 4-bit's half byte: the checkpoint's weights are well over 1.5 x the 4-bit ones."""
    from kvlint.models.weights import weights_bytes

    cfg = config("meta-llama--Meta-Llama-3-8B") if (REGISTRY / "meta-llama--Meta-Llama-3-8B.json").is_file() else None
    base = cfg or {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 4096,
                   "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8,
                   "intermediate_size": 14336, "vocab_size": 128256, "max_position_embeddings": 8192,
                   "torch_dtype": "bfloat16"}
    eight = spec({**base, "quantization_config": {"quant_method": "bitsandbytes", "load_in_8bit": True}})
    four = spec({**base, "quantization_config": {"quant_method": "bitsandbytes", "load_in_4bit": True}})
    assert (eight.quant.bits, four.quant.bits) == (8, 4)
    assert weights_bytes(eight) > 1.5 * weights_bytes(four)


def test_weights_in_an_fp8_dtype_take_one_byte_per_parameter():
    from kvlint.models.weights import weights_bytes

    s = spec(config("deepseek-ai--DeepSeek-R1-Distill-Llama-8B"))
    assert weights_bytes(s, dtype="fp8") * 2 == weights_bytes(s, dtype="bfloat16")


def test_four_norm_layers():
    """Gemma-2 / Gemma-3 decoder layers carry four RMSNorms (input, post-attention, pre- and post-feedforward)."""
    from dataclasses import replace

    from kvlint.models.weights import FOUR_NORM_TYPES, _layer_norms

    s = spec(config("deepseek-ai--DeepSeek-R1-Distill-Llama-8B"))
    for model_type in FOUR_NORM_TYPES:
        assert _layer_norms(replace(s, model_type=model_type)) == 4 * s.hidden_size
    assert _layer_norms(s) == 2 * s.hidden_size  # Llama: input and post-attention norms


def test_pipeline_stages_partition_the_weights():
    """vLLM's PP: each stage holds its own layers, the first the embedding, the last the head and the final norm;
    for a model with an untied head nothing is on two stages, so the stages sum to the unsplit weights."""
    from kvlint.models.weights import weights_bytes

    s = spec(config("deepseek-ai--DeepSeek-R1-Distill-Llama-8B"))
    assert not s.tie_word_embeddings
    for pp in (2, 3, 4):
        assert abs(sum(weights_bytes(s, pp=pp, pp_rank=r) for r in range(pp)) - weights_bytes(s)) <= pp
    last = weights_bytes(s, pp=32, pp_rank=31) - weights_bytes(s, pp=32, pp_rank=30)
    assert last == (s.vocab_size * s.hidden_size + s.hidden_size) * 2  # lm_head + final norm, bf16


def test_cached_repo_folder_found_whatever_its_case(tmp_path):
    from kvlint.models.resolve import _cached_repo_dir

    (tmp_path / "models--other--Model").mkdir()
    (tmp_path / "models--qwen--qwen3-8b").mkdir()
    assert _cached_repo_dir(tmp_path, "Qwen/Qwen3-8B") == tmp_path / "models--qwen--qwen3-8b"
    assert _cached_repo_dir(tmp_path, "Qwen/Qwen3-14B") is None


def test_expert_size_and_longrope_legacy_length_for_other_models():
    from kvlint.models.maxlen import max_len_vllm_before_longrope_default
    from kvlint.models.moe import _expert_size

    assert _expert_size({}) == 0 and _expert_size({"intermediate_size": 14336}) == 14336
    assert _expert_size({"moe_intermediate_size": 2048, "intermediate_size": 14336}) == 2048
    llama = config("deepseek-ai--DeepSeek-R1-Distill-Llama-8B")
    assert max_len_vllm_before_longrope_default(llama) is None  # only LongRoPE models had another length


def test_indexer_heads_default_to_64():
    """DeepSeek-V3.2's Indexer: n_heads defaults to 64 when index_n_heads is not written (V3.2 writes 64)."""
    cfg = config("deepseek-ai--DeepSeek-V3.2")
    unwritten = {k: v for k, v in cfg.items() if k != "index_n_heads"}
    assert count_params(spec(unwritten)).total == count_params(spec(cfg)).total


def test_llama4_dense_layer_width():
    from kvlint.models.moe import _dense_size

    assert _dense_size({"model_type": "llama4_text", "intermediate_size_mlp": 16384}) == 16384
    assert _dense_size({"model_type": "llama4_text"}) is None


def test_config_size_ceilings_are_inclusive():
    """config.py's ceilings refuse sizes above them (a hidden size of 1,000,000 is read, 1,000,001 is not)."""
    import pytest

    from kvlint.errors import KvlintError

    base = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "num_hidden_layers": 1,
            "num_attention_heads": 1, "num_key_value_heads": 1, "intermediate_size": 8, "vocab_size": 8,
            "max_position_embeddings": 64}
    assert spec({**base, "hidden_size": 1_000_000}).hidden_size == 1_000_000
    with pytest.raises(KvlintError):
        spec({**base, "hidden_size": 1_000_001})


def test_short_text_keeps_a_text_of_exactly_the_width():
    from kvlint.models.resolve import short_text

    assert short_text("x" * 80) == "x" * 80
    assert short_text("x" * 81) == "x" * 77 + "..."


def test_llama_config_without_tie_word_embeddings_has_its_own_head():
    """transformers' LlamaConfig defaults tie_word_embeddings to False: a config that does not write it keeps a
    separate lm_head (vocab x hidden more parameters than a tied one)."""
    base = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 256, "num_hidden_layers": 2,
            "num_attention_heads": 4, "num_key_value_heads": 4, "intermediate_size": 512, "vocab_size": 1000,
            "max_position_embeddings": 2048}
    assert spec(base).tie_word_embeddings is False
    assert count_params(spec(base)).total - count_params(spec({**base, "tie_word_embeddings": True})).total \
        == 1000 * 256


def test_llama4_vision_adapter_and_projector():
    """Llama-4: the vision adapter MLP (projector_input_dim -> projector_output_dim, twice) and the projector from
    vision_output_dim to the text width."""
    from kvlint.models.vision import _projector

    vision = {"projector_input_dim": 4096, "projector_output_dim": 4096, "vision_output_dim": 4096}
    assert _projector(vision, 1408, 5120) == 2 * 4096 * 4096 + 4096 * 5120
    assert _projector({**vision, "projector_input_dim": 1024}, 1408, 5120) == 2 * 1024 * 4096 + 4096 * 5120


def test_two_experts_are_a_mixture_one_is_dense():
    from kvlint.models.moe import moe_of

    assert moe_of({"num_local_experts": 2, "num_experts_per_tok": 1, "intermediate_size": 64}, 4) is not None
    assert moe_of({"num_local_experts": 1, "intermediate_size": 64}, 4) is None


def test_awq_without_bits_is_4_bit_and_modelopt_fp8_has_no_group():
    """vLLM's AWQ config: w_bit / bits default 4; ModelOpt groups only its 4-bit formats."""
    def quant(qc):
        return spec({**config("deepseek-ai--DeepSeek-R1-Distill-Llama-8B"), "quantization_config": qc}).quant

    assert quant({"quant_method": "awq", "group_size": 128}).bits == 4
    fp8 = quant({"quant_method": "modelopt", "quant_algo": "FP8", "group_size": 128})
    assert (fp8.bits, fp8.group_size) == (8, None)
    nvfp4 = quant({"quant_method": "modelopt", "quant_algo": "NVFP4", "group_size": 16})
    assert (nvfp4.bits, nvfp4.group_size) == (4, 16)


def test_active_parameters_count_a_tied_embedding_once():
    """Active = everything but the input embedding (a lookup), except that a tied table is also the head."""
    base = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 256, "num_hidden_layers": 2,
            "num_attention_heads": 4, "num_key_value_heads": 4, "intermediate_size": 512, "vocab_size": 1000,
            "max_position_embeddings": 2048}
    untied, tied = count_params(spec(base)), count_params(spec({**base, "tie_word_embeddings": True}))
    assert untied.active == untied.total - 1000 * 256
    assert tied.active == tied.total


def test_deepseek_mtp_module():
    """DeepSeek-V3's next-n module (num_nextn_predict_layers 1): a copy of the last decoder layer, enorm and hnorm,
    eh_proj 2 x hidden -> hidden, the shared head's norm, and the embedding and head the checkpoint stores again."""
    cfg = config("deepseek-ai--DeepSeek-V3")
    s = spec(cfg)
    h, vocab = 7168, cfg["vocab_size"]
    last = layer_params(s, _text(s), s.num_layers - 1).total
    assert s.num_mtp_layers == 1
    assert count_params(s).mtp == last + 2 * h * h + 3 * h + 2 * vocab * h


def test_lock_dir_of_a_folder_with_a_configuration(tmp_path, monkeypatch):
    from kvlint.models.lockpath import lock_dir

    (tmp_path / "proj").mkdir()
    (tmp_path / "proj" / ".kvlint.yaml").write_text("gpu: H100\n")
    assert lock_dir(str(tmp_path / "proj")) == str(tmp_path / "proj")
    monkeypatch.chdir(tmp_path / "proj")
    assert lock_dir("") == str(tmp_path / "proj")


def test_mixtral_experts_and_router():
    """transformers' MixtralSparseMoeBlock: gate Linear(hidden, num_experts, no bias) and per expert w1, w3
    (hidden -> ffn) and w2 (ffn -> hidden)."""
    from kvlint.models.weights import _ffn

    cfg = {"architectures": ["MixtralForCausalLM"], "model_type": "mixtral", "hidden_size": 64, "num_hidden_layers": 2,
           "num_attention_heads": 4, "num_key_value_heads": 2, "intermediate_size": 128, "vocab_size": 100,
           "num_local_experts": 4, "num_experts_per_tok": 2, "max_position_embeddings": 1024}
    s = spec(cfg)
    dense, experts, shared, router, active = _ffn(s, _text(s), 0)
    assert (dense, experts, shared, router, active) == (0, 4 * 3 * 64 * 128, 0, 64 * 4, 2 * 3 * 64 * 128)


def test_quantization_and_shape_defaults():
    """AWQ / GPTQ group 128 when unwritten; Qwen3-Next's conv kernel 4 when unwritten; Nemotron-H's conv without a
    bias when use_conv_bias is false; positions up to 2^32 read, past it refused."""
    import pytest

    from kvlint.errors import KvlintError
    from kvlint.models.weights import _gated_delta_net

    llama = config("deepseek-ai--DeepSeek-R1-Distill-Llama-8B")
    assert spec({**llama, "quantization_config": {"quant_method": "awq", "bits": 4}}).quant.group_size == 128
    nxt = config("Qwen--Qwen3-Next-80B-A3B-Thinking")
    a = spec({k: v for k, v in nxt.items() if k != "linear_conv_kernel_dim"})
    b = spec(nxt)
    assert _gated_delta_net(a, _text(a)) == _gated_delta_net(b, _text(b))
    nem = config("nvidia--Nemotron-H-56B-Base-8K")
    with_bias, without = spec(nem), spec({**nem, "use_conv_bias": False})
    i = nem["hybrid_override_pattern"].index("M")
    conv_dim = 256 * 64 + 2 * 8 * 256
    assert layer_params(with_bias, _text(with_bias), i).total - layer_params(without, _text(without), i).total \
        == conv_dim
    assert spec({**llama, "max_position_embeddings": 1 << 32}).max_len_vllm == 1 << 32
    with pytest.raises(KvlintError):
        spec({**llama, "max_position_embeddings": (1 << 32) + 1})


def test_opt_learned_position_table():
    """OPT's learned positions: (max_position_embeddings + 2) x hidden at the model dtype, on the first stage."""
    from kvlint.models.weights import weights_bytes

    opt = {"architectures": ["OPTForCausalLM"], "model_type": "opt", "hidden_size": 256, "num_hidden_layers": 2,
           "num_attention_heads": 4, "ffn_dim": 1024, "vocab_size": 1000, "max_position_embeddings": 2048,
           "word_embed_proj_dim": 256, "torch_dtype": "float16"}
    assert weights_bytes(spec(opt)) - weights_bytes(spec({**opt, "max_position_embeddings": 1024})) == 1024 * 256 * 2
