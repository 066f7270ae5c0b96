"""spec_from_config against the real configs in ../shared/models and the seed chapters' shapes."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kvlint.errors import KvlintError
from kvlint.models.config import spec_from_config
from kvlint.models.spec import CHUNKED, FULL, MAMBA, MLA, SLIDING


def load(shared: Path, model_id: str):
    folder = shared / "models" / model_id
    side = folder / "hf_quant_config.json"
    hf_quant = json.loads(side.read_text()) if side.is_file() else None
    return spec_from_config(json.loads((folder / "config.json").read_text()), model_id, str(folder), hf_quant_config=hf_quant)


def all_config_dirs(shared: Path) -> list[Path]:
    return sorted(p.parent for p in (shared / "models").glob("*/*/config.json"))


def test_every_shared_config_builds_a_consistent_spec(shared_dir):
    dirs = all_config_dirs(shared_dir)
    assert len(dirs) >= 95
    for folder in dirs:
        model_id = f"{folder.parent.name}/{folder.name}"
        spec = load(shared_dir, model_id)
        assert len(spec.layers) == spec.num_layers > 0, model_id
        assert spec.max_len_vllm >= 2048 and spec.max_len_sglang >= 2048, model_id
        assert spec.dtype in ("bfloat16", "float16", "float32"), model_id
        for layer in spec.layers:
            if layer.kind in (FULL, SLIDING, CHUNKED):
                assert layer.num_kv_heads == spec.num_kv_heads and layer.head_dim_k > 0, model_id
            if layer.kind in (SLIDING, CHUNKED):
                assert layer.window and layer.window < spec.max_len_vllm, model_id


# Cell-size inputs the seed chapter (kv-cache-size-formula) derives from these configs.
SEED_SHAPES = [
    ("meta-llama/Meta-Llama-3-8B", 32, 8, 128),
    ("meta-llama/Meta-Llama-3-70B", 80, 8, 128),
    ("Qwen/Qwen2.5-72B-Instruct", 80, 8, 128),
    ("Qwen/Qwen3-32B", 64, 8, 128),
    ("Qwen/Qwen3-8B", 36, 8, 128),
    ("Qwen/Qwen3-14B", 40, 8, 128),
]


@pytest.mark.parametrize(("model_id", "layers", "kv_heads", "head_dim"), SEED_SHAPES)
def test_seed_cell_inputs(shared_dir, model_id, layers, kv_heads, head_dim):
    spec = load(shared_dir, model_id)
    assert (spec.num_layers, spec.num_kv_heads, spec.head_dim, spec.v_head_dim) == (layers, kv_heads, head_dim, head_dim)
    assert all(layer.kind == FULL for layer in spec.layers)
    cell = sum(layer.num_kv_heads * (layer.head_dim_k + layer.head_dim_v) * 2 for layer in spec.layers)
    assert cell == layers * kv_heads * 2 * head_dim * 2


def test_seed_llama3_8b_is_128_kib_per_token_and_qwen3_32b_256(shared_dir):
    for model_id, kib in (("meta-llama/Meta-Llama-3-8B", 128), ("Qwen/Qwen3-32B", 256), ("Qwen/Qwen3-8B", 144)):
        spec = load(shared_dir, model_id)
        cell = sum(l.num_kv_heads * (l.head_dim_k + l.head_dim_v) * 2 for l in spec.layers)
        assert cell == kib * 1024, model_id


def test_qwen3_32b_head_dim_is_explicit_not_hidden_over_heads(shared_dir):
    spec = load(shared_dir, "Qwen/Qwen3-32B")
    assert spec.hidden_size // spec.num_attention_heads == 80
    assert spec.head_dim == 128


def test_deepseek_v3_is_61_mla_layers_of_576(shared_dir):
    spec = load(shared_dir, "deepseek-ai/DeepSeek-V3")
    assert spec.is_mla and spec.num_layers == 61
    assert {(l.kind, l.num_kv_heads, l.head_dim_k, l.head_dim_v) for l in spec.layers} == {(MLA, 1, 576, 0)}
    assert spec.mla.kv_lora_rank == 512 and spec.mla.qk_rope_head_dim == 64
    assert sum(l.head_dim_k * 2 for l in spec.layers) == 70_272  # seed: 68.6 KiB per token
    assert spec.num_mtp_layers == 1
    assert spec.moe.num_experts == 256 and spec.moe.num_shared_experts == 1 and spec.moe.first_dense_layers == 3
    assert spec.moe.moe_layer_ids == tuple(range(3, 61))


def test_gemma3_27b_has_10_global_and_52_local_layers(shared_dir):
    spec = load(shared_dir, "google/gemma-3-27b-it")
    kinds = Counter((l.kind, l.window) for l in spec.layers)
    assert kinds == {(FULL, None): 10, (SLIDING, 1024): 52}
    assert [i for i, l in enumerate(spec.layers) if l.kind == FULL] == list(range(5, 62, 6))
    assert spec.is_multimodal and spec.vision_params > 0 and spec.text_config_key == "text_config"


def test_gemma3_minimal_config_takes_class_defaults(shared_dir):
    spec = load(shared_dir, "google/gemma-3-4b-it")
    assert (spec.num_attention_heads, spec.num_kv_heads, spec.head_dim) == (8, 4, 256)
    assert spec.vocab_size == 262208 and spec.tie_word_embeddings
    # rope scaling is skipped for gemma3 in vLLM: the class default 131072 stays.
    assert spec.max_len_vllm == 131072


def test_gemma2_alternates_sliding_then_full(shared_dir):
    spec = load(shared_dir, "google/gemma-2-9b-it")
    assert [l.kind for l in spec.layers[:4]] == [SLIDING, FULL, SLIDING, FULL]
    assert spec.layers[0].window == 4096


@pytest.mark.parametrize("model_id", ["openai/gpt-oss-20b", "openai/gpt-oss-120b"])
def test_gpt_oss_alternates_window_128_and_full(shared_dir, model_id):
    spec = load(shared_dir, model_id)
    assert [(l.kind, l.window) for l in spec.layers[:2]] == [(SLIDING, 128), (FULL, None)]
    assert Counter(l.kind for l in spec.layers) == {SLIDING: spec.num_layers // 2, FULL: spec.num_layers // 2}
    assert spec.quant.method == "mxfp4" and spec.moe.experts_per_token == 4


def test_llama4_chunked_local_with_every_fourth_layer_full(shared_dir):
    spec = load(shared_dir, "meta-llama/Llama-4-Scout-17B-16E-Instruct")
    assert [l.kind for l in spec.layers[:4]] == [CHUNKED, CHUNKED, CHUNKED, FULL]
    assert spec.layers[0].window == 8192
    assert Counter(l.kind for l in spec.layers) == {CHUNKED: 36, FULL: 12}
    assert spec.moe.num_experts == 16 and spec.moe.num_shared_experts == 1


def test_qwen3_next_has_linear_state_layers_and_full_every_fourth(shared_dir):
    spec = load(shared_dir, "Qwen/Qwen3-Next-80B-A3B-Thinking")
    assert [l.kind for l in spec.layers[:4]] == [MAMBA, MAMBA, MAMBA, FULL]
    state = spec.layers[0].state_bytes
    # conv (2*16*128 + 32*128) x 3 + recurrent 32 x 128 x 128, bf16
    assert state == ((2 * 2048 + 4096) * 3 + 32 * 128 * 128) * 2


def test_mistral_window_on_all_layers_and_qwen_flag_off(shared_dir):
    mistral = load(shared_dir, "mistralai/Mistral-7B-v0.1")
    assert {(l.kind, l.window) for l in mistral.layers} == {(SLIDING, 4096)}
    qwq = load(shared_dir, "Qwen/QwQ-32B")  # sliding_window 32768 but use_sliding_window false
    assert qwq.sliding_window is None and {l.kind for l in qwq.layers} == {FULL}


def test_falcon_multi_query_means_one_kv_head(shared_dir):
    for model_id in ("tiiuae/falcon-7b", "tiiuae/falcon-7b-instruct"):
        spec = load(shared_dir, model_id)
        assert spec.num_kv_heads == 1 and spec.num_attention_heads == 71 and spec.head_dim == 64


def test_kv_head_key_order_follows_vllm():
    base = {"architectures": ["X"], "model_type": "x", "num_hidden_layers": 2, "hidden_size": 64, "num_attention_heads": 8}
    assert spec_from_config(base, "x/x", "t").num_kv_heads == 8
    assert spec_from_config({**base, "num_key_value_heads": 4, "n_head_kv": 2}, "x/x", "t").num_kv_heads == 2
    assert spec_from_config({**base, "num_key_value_heads": 4, "multi_query_group_num": 1}, "x/x", "t").num_kv_heads == 4
    assert spec_from_config({**base, "multi_query_group_num": 2}, "x/x", "t").num_kv_heads == 2
    assert spec_from_config({**base, "head_dim": 0}, "x/x", "t").head_dim == 8  # 0 means absent


def test_max_len_llama31_is_131072_in_both_engines(shared_dir):
    spec = load(shared_dir, "meta-llama/Llama-3.1-8B-Instruct")
    assert spec.max_len_vllm == spec.max_len_sglang == 131072  # llama3 rope does not multiply
    assert spec.max_len_key == "max_position_embeddings"


def test_max_len_linear_rope_multiplies_in_both_engines(shared_dir):
    spec = load(shared_dir, "deepseek-ai/deepseek-coder-6.7b-instruct")  # linear factor 4, 16384 positions
    assert spec.max_len_vllm == spec.max_len_sglang == 65536


def test_max_len_yarn_does_not_multiply_in_vllm(shared_dir):
    spec = load(shared_dir, "deepseek-ai/DeepSeek-V3")  # yarn factor 40 with original 4096
    assert spec.max_len_vllm == 163840
    assert spec.max_len_sglang == 163840  # rope_scaling names original_max_position_embeddings


def test_max_len_qwen25_with_the_readme_yarn_block(shared_dir):
    """Qwen2.5's README enables 128K by adding yarn factor 4 over 32768: neither engine multiplies."""
    cfg = json.loads((shared_dir / "models" / "Qwen/Qwen2.5-7B-Instruct" / "config.json").read_text())
    cfg["rope_scaling"] = {"factor": 4.0, "original_max_position_embeddings": 32768, "type": "yarn"}
    spec = spec_from_config(cfg, "Qwen/Qwen2.5-7B-Instruct", "t")
    assert spec.max_len_vllm == spec.max_len_sglang == 32768


@pytest.mark.parametrize(
    ("model_id", "method", "bits", "group", "kv"),
    [
        ("LDCC/Qwen2.5-72B-Instruct-ko-AWQ", "awq", 4, 128, None),
        ("Qwen/Qwen2.5-7B-Instruct-GPTQ-Int4", "gptq", 4, 128, None),
        ("Qwen/Qwen3-32B-FP8", "fp8", 8, None, None),
        ("RedHatAI/Llama-4-Scout-17B-16E-Instruct-FP8-dynamic", "compressed-tensors", 8, None, None),
        ("nvidia/Llama-3.1-70B-Instruct-FP8", "modelopt", 8, None, "fp8"),
        ("openai/gpt-oss-20b", "mxfp4", 4, 32, None),
        ("meta-llama/Llama-3.1-8B", None, None, None, None),
    ],
)
def test_quantization_as_declared(shared_dir, model_id, method, bits, group, kv):
    quant = load(shared_dir, model_id).quant
    if method is None:
        assert quant is None
        return
    assert (quant.method, quant.bits, quant.group_size, quant.kv_cache_dtype) == (method, bits, group, kv)


def test_compressed_tensors_kv_scheme_and_bitsandbytes():
    base = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "num_hidden_layers": 2, "hidden_size": 64, "num_attention_heads": 4}
    ct = {"quant_method": "compressed-tensors", "kv_cache_scheme": {"num_bits": 8, "type": "float"},
          "config_groups": {"g": {"weights": {"num_bits": 4, "group_size": 128, "type": "int"}}}}
    quant = spec_from_config({**base, "quantization_config": ct}, "x/y", "t").quant
    assert (quant.bits, quant.group_size, quant.kv_cache_dtype) == (4, 128, "fp8")
    bnb = spec_from_config({**base, "quantization_config": {"quant_method": "bitsandbytes", "load_in_4bit": True}}, "x/y", "t").quant
    assert (bnb.method, bnb.bits) == ("bitsandbytes", 4)


def test_moe_layouts(shared_dir):
    mixtral = load(shared_dir, "mistralai/Mixtral-8x7B-v0.1").moe
    assert (mixtral.num_experts, mixtral.experts_per_token, mixtral.moe_intermediate_size) == (8, 2, 14336)
    qwen15 = load(shared_dir, "Qwen/Qwen1.5-MoE-A2.7B").moe
    assert (qwen15.num_shared_experts, qwen15.shared_intermediate_size) == (1, 5632)
    maverick = load(shared_dir, "meta-llama/Llama-4-Maverick-17B-128E-Instruct").moe
    assert maverick.moe_layer_ids == tuple(range(1, 48, 2)) and maverick.dense_intermediate_size == 16384
    coder = load(shared_dir, "Qwen/Qwen3-Coder-30B-A3B-Instruct").moe
    assert coder.num_shared_experts == 0  # Qwen3-MoE code has no shared expert whatever the config says


def test_multimodal_text_config_nesting(shared_dir):
    for model_id, layers in (("mistralai/Mistral-Small-3.1-24B-Instruct-2503", 40), ("moonshotai/Kimi-VL-A3B-Instruct", 27),
                             ("Qwen/Qwen2.5-VL-7B-Instruct", 28)):
        spec = load(shared_dir, model_id)
        assert spec.is_multimodal and spec.num_layers == layers and spec.vision_params > 1e8, model_id
    assert load(shared_dir, "moonshotai/Kimi-VL-A3B-Instruct").is_mla


@pytest.mark.parametrize(
    "bad",
    [
        [],
        {"model_type": "llama"},
        {"num_hidden_layers": 2, "hidden_size": 64},
        {"num_hidden_layers": 2, "hidden_size": 64, "num_attention_heads": 4, "max_position_embeddings": 4096,
         "rope_scaling": {"type": "linear", "factor": "x"}},
        {"model_type": "llava", "text_config": {"num_hidden_layers": "two", "hidden_size": 64, "num_attention_heads": 4}},
    ],
)
def test_bad_config_raises_one_line_kvlint_error(bad):
    with pytest.raises(KvlintError) as info:
        spec_from_config(bad, "x/bad", "t")
    assert "\n" not in str(info.value) and "x/bad" in str(info.value)


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 10**6) | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=6,
)
KEYS = st.sampled_from(
    ["num_hidden_layers", "hidden_size", "num_attention_heads", "num_key_value_heads", "head_dim", "rope_scaling",
     "sliding_window", "layer_types", "kv_lora_rank", "model_type", "quantization_config", "text_config",
     "num_experts", "num_experts_per_tok", "max_position_embeddings", "attention_chunk_size", "torch_dtype"]
)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(KEYS, JSON_VALUES, max_size=10))
def test_arbitrary_configs_never_raise_anything_but_kvlint_errors(cfg):
    base = {"num_hidden_layers": 2, "hidden_size": 64, "num_attention_heads": 4}
    try:
        spec_from_config({**base, **cfg}, "fuzz/model", "t")
    except KvlintError as exc:
        assert "\n" not in str(exc)


LLAMA = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32,
         "num_key_value_heads": 8, "num_hidden_layers": 32, "head_dim": 128, "max_position_embeddings": 8192,
         "vocab_size": 128256, "intermediate_size": 14336, "torch_dtype": "bfloat16"}


@pytest.mark.parametrize(("key", "value"), [
    ("num_hidden_layers", 10**6), ("num_hidden_layers", 10**12), ("num_key_value_heads", 10**9),
    ("head_dim", 10**9), ("vocab_size", -1), ("max_position_embeddings", -8192), ("hidden_size", 10**30),
    ("max_position_embeddings", float("inf")), ("num_local_experts", 10**12), ("vocab_size", "many"),
])
def test_an_implausible_size_is_a_clear_error_before_any_work(key, value):
    """config-num-layers.sh: num_hidden_layers 1e6 took 33 s / 840 MiB, 1e7 a MemoryError for the whole run;
    a negative vocabulary or context length gave confident verdicts."""
    with pytest.raises(KvlintError, match=f"{key} = .* is not a plausible value"):
        spec_from_config({**LLAMA, key: value}, "org/x", "test")
    nested = {"architectures": ["X"], "text_config": {**LLAMA, key: value}}
    with pytest.raises(KvlintError, match="not a plausible value"):
        spec_from_config(nested, "org/x", "test")


def test_a_5001_digit_integer_is_a_clean_error(tmp_path):
    from kvlint.models.resolve import clear_cache, resolve_model

    (tmp_path / "config.json").write_text(json.dumps(LLAMA).replace('"num_hidden_layers": 32',
                                                                     '"num_hidden_layers": ' + "9" * 5001))
    clear_cache()
    with pytest.raises(KvlintError, match="cannot read"):
        resolve_model(str(tmp_path))
    clear_cache()


def test_the_run_goes_on_past_an_implausible_config(tmp_path, capsys):
    from kvlint.cli import main

    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "config.json").write_text(json.dumps({**LLAMA, "num_hidden_layers": 10**7}))
    (tmp_path / ".kvlint.yaml").write_text("models:\n  org/x: m\n")
    (tmp_path / "s.sh").write_text("vllm serve org/x --max-model-len 4096\n")
    (tmp_path / "t.sh").write_text("vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 999999\n")
    code = main(["check", "--gpu", "H100", str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 1 and "internal error" not in out
    assert "num_hidden_layers = 10000000 is not a plausible value" in out and "t.sh:1:" in out


def test_sglang_context_length_reads_gpt2_n_positions_through_the_attribute_map():
    """GPT2Config maps max_position_embeddings to n_positions (transformers 5.19 attribute_map), and SGLang 0.5.23's
    get_context_length reads the config object: 1,024 for gpt2, not the 2,048 default
    (bench/conformance/check_sglang_pool.py)."""
    from kvlint.models.maxlen import max_len_sglang

    assert max_len_sglang({"model_type": "gpt2", "n_positions": 1024}) == (1024, "max_position_embeddings")
    assert max_len_sglang({"model_type": "llama", "n_positions": 1024}) == (2048, None)
