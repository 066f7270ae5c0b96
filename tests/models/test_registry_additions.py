"""Models added to the registry on 2026-12-03 (bundled configs, derivation rules, aliases), each pinned from
the config or the card its SOURCES.tsv row or rule cites, so a wrong copy or a rule that stops matching fails.

Expected KV bytes per token are worked by hand from the cited config: 2 (K and V) x KV heads x head_dim x
2 bytes (bf16) for every layer that keeps a KV cell; Gated DeltaNet layers keep a fixed state instead.
"""

from __future__ import annotations

import pytest

from kvlint.errors import NotModelledError
from kvlint.memory import compute_budget
from kvlint.models.resolve import from_registry, resolve_model
from kvlint.models.weights import count_params

from .test_registry import sources_rows

H100_BYTES = 81559 * 2**20


def kv_cell(spec) -> int:
    """bf16 KV bytes per token summed over the decoder layers (0 for a layer that keeps no KV cell)."""
    return sum(layer.num_kv_heads * (layer.head_dim_k + layer.head_dim_v) * 2 for layer in spec.layers)


BUNDLED = [
    # model id, layers, layers with a KV cell, kv heads, head_dim, bf16 bytes per token, vLLM max length
    ("Qwen/Qwen3-4B-Instruct-2507", 36, 36, 8, 128, 147_456, 262_144),  # 2 x 36 x 8 x 128 x 2
    # 100 text layers (80 self-attention + 20 cross-attention), 8 KV heads, 8192 / 64 heads = 128
    ("meta-llama/Llama-3.2-90B-Vision-Instruct", 100, 100, 8, 128, 409_600, 131_072),
    # minimal text_config: LlamaConfig defaults 32 layers, 32 heads (MHA), 4096 / 32 = 128; 4096 positions
    ("llava-hf/llava-1.5-7b-hf", 32, 32, 32, 128, 524_288, 4_096),
    # 8 of 32 layers are full attention (full_attention_interval 4): 2 x 8 x 4 x 256 x 2
    ("Qwen/Qwen3.5-9B", 32, 8, 4, 256, 32_768, 262_144),
    ("LGAI-EXAONE/EXAONE-3.5-7.8B-Instruct", 32, 32, 8, 128, 131_072, 32_768),  # num_layers 32; 4096 / 32 heads
    ("internlm/internlm2-7b", 32, 32, 8, 128, 131_072, 32_768),
    ("HuggingFaceTB/SmolLM-1.7B", 24, 24, 32, 64, 196_608, 2_048),  # MHA, 2048 / 32 heads
    ("OrionStarAI/Orion-14B-Base", 40, 40, 40, 128, 819_200, 4_096),  # MHA, 5120 / 40 heads
    ("openbmb/MiniCPM-2B-sft-bf16", 40, 40, 36, 64, 368_640, 4_096),  # MHA, 2304 / 36 heads
    ("HuggingFaceTB/SmolLM2-135M-Instruct", 30, 30, 3, 64, 23_040, 8_192),  # 576 / 9 heads
    ("HuggingFaceTB/SmolLM2-360M-Instruct", 32, 32, 5, 64, 40_960, 8_192),  # 960 / 15 heads
]


@pytest.mark.parametrize("model_id,layers,kv_layers,kv_heads,head_dim,cell,max_len", BUNDLED,
                         ids=[row[0] for row in BUNDLED])
def test_bundled_addition_sizes_from_its_config(model_id, layers, kv_layers, kv_heads, head_dim, cell, max_len):
    assert len(sources_rows()[model_id]["commit"]) == 40, "a config found in a repository cites its commit"
    spec = from_registry(model_id)
    assert spec is not None and spec.source == f"bundled:{model_id}"
    assert (spec.num_layers, spec.num_kv_heads, spec.head_dim) == (layers, kv_heads, head_dim)
    assert sum(1 for layer in spec.layers if layer.num_kv_heads) == kv_layers
    assert kv_cell(spec) == cell == 2 * kv_layers * kv_heads * head_dim * 2
    assert spec.max_len_vllm == max_len


def test_llava_minimal_text_config_takes_llama_class_defaults():
    """llava-1.5-7b-hf's text_config names only length, vocab and norm: transformers' LlamaConfig supplies the
    shapes (hidden 4096, intermediate 11008), as vLLM sees them, so the decoder counts as Llama-2-7B's."""
    spec = from_registry("llava-hf/llava-1.5-7b-hf")
    llama2 = from_registry("meta-llama/Llama-2-7b-hf")
    assert spec.is_multimodal and spec.architecture == "LlavaForConditionalGeneration"
    assert (spec.hidden_size, spec.intermediate_size) == (llama2.hidden_size, llama2.intermediate_size) == (4096, 11008)
    assert count_params(spec).total - spec.vision_params - 64 * 4096 * 2 == count_params(llama2).total


def test_deepseek_v4_flash_resolves_but_is_refused_like_v4_pro():
    """Bundled so the launch is named, not unknown; its packed compressed KV layout is not modelled."""
    spec = from_registry("deepseek-ai/DeepSeek-V4-Flash")
    assert spec is not None and spec.num_layers == 43 and spec.quant.method == "fp8"
    for engine in ("vllm", "sglang"):
        with pytest.raises(NotModelledError, match="DeepseekV4ForCausalLM is not modelled"):
            compute_budget(engine, spec, {}, None, gpu_memory_bytes=H100_BYTES)


RESOLVED = [
    # model id, the bundled config it is sized from, vLLM max length, quantization method
    ("Qwen/Qwen3-235B-A22B-Instruct-2507", "derived:Qwen/Qwen3-235B-A22B", 262_144, None),  # rule states 262,144
    ("Qwen/Qwen3-235B-A22B-Instruct-2507-FP8", "derived:Qwen/Qwen3-235B-A22B", 262_144, "fp8"),  # + Qwen -FP8 block
    ("Qwen/Qwen3-30B-A3B-Instruct-2507", "derived:Qwen/Qwen3-30B-A3B", 262_144, None),
    ("qwen/qwen3-30b-a3b-instruct-2507", "derived:Qwen/Qwen3-30B-A3B", 262_144, None),
    ("Qwen/Qwen3-30B-A3B-Instruct-2507-FP8", "derived:Qwen/Qwen3-30B-A3B", 262_144, "fp8"),
    ("meta-llama/Meta-Llama-Guard-2-8B", "derived:meta-llama/Meta-Llama-3-8B", 8_192, None),
    ("meta-llama/Llama-Guard-3-8B", "derived:meta-llama/Llama-3.1-8B", 131_072, None),
    ("lmsys/vicuna-7b-v1.5", "derived:meta-llama/Llama-2-7b-hf", 4_096, None),
    ("lmsys/vicuna-13b-v1.5", "derived:meta-llama/Llama-2-13b-hf", 4_096, None),
    ("Skywork/Skywork-OR1-7B-Preview", "derived:deepseek-ai/DeepSeek-R1-Distill-Qwen-7B", 131_072, None),
    ("deepseek-ai/DeepSeek-R1-Zero", "bundled:deepseek-ai/DeepSeek-R1 (by alias", 163_840, "fp8"),
    ("meta-llama/Llama-3.1-405B-Instruct-FP8", "bundled:meta-llama/Meta-Llama-3.1-405B-Instruct-FP8 (by alias",
     131_072, "fbgemm_fp8"),
    ("NousResearch/Llama-3.2-1B", "bundled:meta-llama/Llama-3.2-1B-Instruct (by alias", 131_072, None),
]


@pytest.mark.parametrize("model_id,source,max_len,method", RESOLVED, ids=[row[0] for row in RESOLVED])
def test_added_rule_or_alias_resolves_offline_to_its_base(model_id, source, max_len, method):
    spec = resolve_model(model_id, online=False)
    assert spec.source.startswith(source)
    assert spec.length_unknown is None and spec.max_len_vllm == max_len
    assert (spec.quant.method if spec.quant else None) == method


def test_vicuna_16k_is_not_sized_as_its_4k_base():
    """The -16k releases use linear RoPE scaling to another length: the v1.5 rule must not match them."""
    from kvlint.models.derive import derive_fine_tune

    assert derive_fine_tune("lmsys/vicuna-7b-v1.5-16k") is None


def test_only_a_wrapper_with_class_defaults_may_omit_its_text_layer_count():
    """The schema lets llava's text_config name no layer count (LlavaConfig builds it from LlamaConfig()); any
    other nested text_config must still name one."""
    jsonschema = pytest.importorskip("jsonschema")
    from .test_registry import SCHEMA

    check = jsonschema.Draft202012Validator(SCHEMA)
    text = {"model_type": "llama", "vocab_size": 32064, "max_position_embeddings": 4096}
    assert check.is_valid({"id": "a/b", "config": {"architectures": ["LlavaForConditionalGeneration"],
                                                   "model_type": "llava", "text_config": text}})
    assert not check.is_valid({"id": "a/b", "config": {"architectures": ["Qwen2VLForConditionalGeneration"],
                                                       "model_type": "qwen2_vl", "text_config": text}})
