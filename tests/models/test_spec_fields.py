"""ModelSpec.field_name: the config.json key a fact came from, for a finding's related span (the first spelling the
config has, or None)."""

from __future__ import annotations

from kvlint.models.config import spec_from_config

CFG = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 1024, "num_hidden_layers": 2,
       "num_attention_heads": 8, "num_key_value_heads": 2, "intermediate_size": 2048, "vocab_size": 100,
       "max_position_embeddings": 4096}


def test_each_fact_names_the_key_the_config_has():
    spec = spec_from_config(CFG, "o/m", "x")
    assert [spec.field_name(f) for f in ("num_kv_heads", "num_layers", "max_len", "head_dim", "kv_lora_rank",
                                         "vocab_size", "num_attention_heads", "nothing")] == [
        "num_key_value_heads", "num_hidden_layers", "max_position_embeddings", None, None, "vocab_size",
        "num_attention_heads", None]
    other = spec_from_config({**{k: v for k, v in CFG.items() if k not in ("num_key_value_heads", "num_hidden_layers")},
                              "n_head_kv": 2, "n_layer": 2, "head_dim": 128, "seq_length": 2048}, "o/m", "x")
    assert [other.field_name(f) for f in ("num_kv_heads", "num_layers", "head_dim", "max_len")] == [
        "n_head_kv", "n_layer", "head_dim", "seq_length"]
    none = spec_from_config({k: v for k, v in CFG.items() if k != "max_position_embeddings"}, "o/m", "x")
    assert none.max_len_key is None and none.field_name("max_len") is None
