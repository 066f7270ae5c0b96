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
