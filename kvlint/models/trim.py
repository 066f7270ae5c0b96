"""The config.json keys kvlint reads: what a lock entry (kvlint.models.lock) keeps of a Hub config.

A config.json carries tokenizer ids, remote-code maps and chat templates kvlint never reads; a lock keeps
only the facts, so a reviewer reads twenty lines per model instead of two hundred. The key sets are the
ones scripts/refresh_registry.py trims the bundled registry with (tests/models/test_lock.py checks that a
trimmed config gives the same ModelSpec as the whole one on every real config under ../shared/models).
"""

from __future__ import annotations

from typing import Any

TOP_KEYS = {
    "architectures", "model_type", "text_config", "vision_config", "torch_dtype", "dtype",
    "quantization_config", "tie_word_embeddings", "vocab_size",
}
TEXT_KEYS = {
    "model_type", "num_hidden_layers", "n_layer", "num_layers", "n_layers", "hidden_size", "n_embd",
    "d_model", "num_attention_heads", "n_head", "num_heads", "n_head_kv", "num_kv_heads",
    "num_key_value_heads", "multi_query_group_num", "num_attention_groups", "multi_query",
    "new_decoder_architecture", "parallel_attn", "head_dim", "hidden_size_per_head", "v_head_dim",
    "kv_lora_rank", "q_lora_rank", "qk_rope_head_dim", "qk_nope_head_dim", "index_head_dim",
    "index_topk", "index_n_heads", "index_kpool", "index_topk_freq", "index_topk_pattern",
    "index_skip_topk_offset", "indexer_types", "cli_factor", "learnable_sink", "intermediate_size", "ffn_hidden_size",
    "ff_intermediate_size",
    "n_inner", "ffn_dim", "intermediate_size_mlp", "moe_intermediate_size", "shared_expert_intermediate_size",
    "n_routed_experts", "num_local_experts", "num_experts", "moe_num_experts", "num_experts_per_tok",
    "experts_per_token", "moe_top_k", "n_shared_experts", "first_k_dense_replace",
    "interleave_moe_layer_step", "decoder_sparse_step", "moe_layer_freq", "mlp_only_layers",
    "topk_method", "vocab_size", "tie_word_embeddings", "torch_dtype", "dtype",
    "max_position_embeddings", "n_positions", "max_seq_len", "seq_length", "model_max_length",
    "max_target_positions", "max_sequence_length", "max_seq_length", "seq_len",
    "original_max_position_embeddings", "rope_scaling", "rope_parameters", "rope_theta",
    "sliding_window", "sliding_window_size", "use_sliding_window", "max_window_layers",
    "sliding_window_pattern", "layer_types", "attention_chunk_size", "no_rope_layers",
    "no_rope_layer_interval", "full_attention_interval", "linear_conv_kernel_dim",
    "linear_key_head_dim", "linear_num_key_heads", "linear_num_value_heads", "linear_value_head_dim",
    "attention_bias", "use_qk_norm", "num_nextn_predict_layers", "o_groups", "o_lora_rank",
    "compress_ratios", "quantization_config", "architectures", "vision_config", "text_config",
    "global_head_dim", "num_global_key_value_heads", "attention_k_eq_v", "num_kv_shared_layers", "top_k_experts",
    "enable_moe_block", "hybrid_override_pattern", "layers_block_type", "mamba_num_heads", "mamba_head_dim",
    "n_groups", "ssm_state_size", "conv_kernel", "use_conv_bias", "mamba_ssm_cache_dtype", "moe_latent_size",
    "moe_shared_expert_intermediate_size", "mtp_num_hidden_layers", "mtp_use_dedicated_embeddings",
}


def trim(cfg: dict[str, Any]) -> dict[str, Any]:
    """The keys kvlint reads, at the top and inside text_config; everything else dropped."""
    keep = TOP_KEYS | TEXT_KEYS if "text_config" not in cfg else TOP_KEYS
    out = {k: v for k, v in cfg.items() if k in keep}
    if isinstance(cfg.get("text_config"), dict):
        out["text_config"] = {k: v for k, v in cfg["text_config"].items() if k in TEXT_KEYS}
    return out
