"""Hand-built ModelSpecs with the config.json shapes the seed chapters quote (no files, no models helper)."""

from __future__ import annotations

from kvlint.models.spec import LayerKV, MLADims, ModelSpec


def dense(model_id: str, layers: int, kv_heads: int, head_dim: int, *, hidden: int = 4096, heads: int = 32,
          vocab: int = 128256, max_len: int = 8192, dtype: str = "bfloat16", inter: int = 14336,
          kinds: tuple[LayerKV, ...] | None = None, arch: str = "LlamaForCausalLM") -> ModelSpec:
    layer_list = kinds or tuple(LayerKV("full", kv_heads, head_dim, head_dim) for _ in range(layers))
    return ModelSpec(model_id, "test", arch, "llama", layers, layer_list, hidden, heads, kv_heads, head_dim,
                     head_dim, inter, vocab, False, dtype, max_len, max_len, "max_position_embeddings")


LLAMA3_8B = dense("meta-llama/Meta-Llama-3-8B", 32, 8, 128)
LLAMA3_70B = dense("meta-llama/Meta-Llama-3-70B", 80, 8, 128, hidden=8192, heads=64, inter=28672)
QWEN25_72B = dense("Qwen/Qwen2.5-72B-Instruct", 80, 8, 128, hidden=8192, heads=64, vocab=152064, inter=29568)
QWEN3_32B = dense("Qwen/Qwen3-32B", 64, 8, 128, hidden=5120, heads=64, vocab=151936, max_len=40960, inter=25600)
QWEN3_8B = dense("Qwen/Qwen3-8B", 36, 8, 128, hidden=4096, heads=32, vocab=151936, max_len=40960, inter=12288)
QWEN3_14B = dense("Qwen/Qwen3-14B", 40, 8, 128, hidden=5120, heads=40, vocab=151936, max_len=40960, inter=17408)

DEEPSEEK_V3 = ModelSpec(
    "deepseek-ai/DeepSeek-V3", "test", "DeepseekV3ForCausalLM", "deepseek_v3", 61,
    tuple(LayerKV("mla", 1, 576, 0) for _ in range(61)), 7168, 128, 128, 192, 128, 18432, 129280, False,
    "bfloat16", 163840, 163840, "max_position_embeddings",
    mla=MLADims(kv_lora_rank=512, qk_rope_head_dim=64, qk_nope_head_dim=128, v_head_dim=128, q_lora_rank=1536))

# DeepSeek-V3's logical attention shapes pushed through the GQA formula: the seed's 71x mistake.
DEEPSEEK_V3_AS_GQA = dense("deepseek-v3-as-gqa", 61, 128, 192, kinds=tuple(LayerKV("full", 128, 192, 128)
                                                                          for _ in range(61)))


def unit_model(layers: tuple[LayerKV, ...], *, dtype: str = "float32", max_len: int = 16384) -> ModelSpec:
    """The tiny specs of vLLM's own unit tests (engines.md 7): any layer mix, float32 by default."""
    return dense("vllm-test", len(layers), 2, 64, max_len=max_len, dtype=dtype, kinds=layers)


def full(heads: int = 2, head: int = 64) -> LayerKV:
    return LayerKV("full", heads, head, head)


def sliding(window: int = 1, heads: int = 2, head: int = 64) -> LayerKV:
    return LayerKV("sliding", heads, head, head, window=window)
