"""Each engine's derived context length on synthetic configs (kvlint.models.maxlen); real configs are in test_config."""

from __future__ import annotations

from kvlint.models.maxlen import max_len_sglang, max_len_vllm


def test_max_len_rules_on_synthetic_configs():
    cfg = {"max_position_embeddings": 32768, "seq_length": 8192, "rope_scaling": {"type": "dynamic", "factor": 2.0}}
    assert max_len_vllm(cfg) == (16384, "seq_length")  # min of keys, x dynamic factor
    assert max_len_sglang(cfg) == (16384, "seq_length")  # first key in SGLang's order, x factor
    cfg = {"max_position_embeddings": 32768, "rope_scaling": {"rope_type": "yarn", "factor": 4.0}}
    assert max_len_vllm(cfg)[0] == 32768
    assert max_len_sglang(cfg)[0] == 131072  # no original_max_position_embeddings: SGLang multiplies
    assert max_len_vllm({"max_position_embeddings": 4096, "model_max_length": 131072})[0] == 131072
    assert max_len_vllm({}) == (2048, None) and max_len_sglang({}) == (2048, None)
    nested = {"max_position_embeddings": 8192, "rope_parameters": {"full_attention": {"rope_type": "linear", "factor": 2.0}}}
    assert max_len_vllm(nested)[0] == 16384
