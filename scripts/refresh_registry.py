"""Rebuild kvlint/models/registry/ from one or more folders of <org>/<name>/config.json files.

Usage: python scripts/refresh_registry.py ../shared/models [/tmp/extra-models ...]

Each model becomes one trimmed JSON file (registry/<org>--<name>.json) holding only the keys kvlint
reads, so the package ships facts, not tokenizer ids or remote-code maps. Every folder may carry a
SOURCES.tsv saying where each config was found; the rows of the bundled models are merged into
registry/SOURCES.tsv so the registry names the sources it can be rebuilt from. A model id found in
two folders is an error (one fact, one source). aliases.json and defaults.json are hand-kept and
left alone. tests/models/test_registry.py checks that the trimmed config gives the same ModelSpec
as the full one.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

REGISTRY = Path(__file__).resolve().parent.parent / "kvlint" / "models" / "registry"

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
    "index_topk", "index_n_heads", "intermediate_size", "ffn_hidden_size", "ff_intermediate_size",
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
    "moe_shared_expert_intermediate_size",
}


def trim(cfg: dict) -> dict:
    keep = TOP_KEYS | TEXT_KEYS if "text_config" not in cfg else TOP_KEYS
    out = {k: v for k, v in cfg.items() if k in keep}
    if isinstance(cfg.get("text_config"), dict):
        out["text_config"] = {k: v for k, v in cfg["text_config"].items() if k in TEXT_KEYS}
    return out


PROVENANCE_KEYS = ("repo_where_found", "path_in_that_repo", "commit", "confidence")


def source_rows(root: Path) -> tuple[list[str], dict[str, list[str]]]:
    """SOURCES.tsv beside the configs: its header and hub_id -> raw row (all columns, as written)."""
    table = root / "SOURCES.tsv"
    if not table.is_file():
        return [], {}
    lines = [line for line in table.read_text().splitlines() if line.strip()]
    header = lines[0].split("\t")
    return header, {line.split("\t")[0]: line.split("\t") for line in lines[1:]}


def provenance(root: Path) -> dict[str, dict[str, str]]:
    """Where each config was found (SOURCES.tsv beside the configs), kept with the facts."""
    header, rows = source_rows(root)
    out = {}
    for hub_id, cells in rows.items():
        row = dict(zip(header, cells, strict=False))
        out[hub_id] = {k: row[k] for k in PROVENANCE_KEYS if row.get(k)}
    return out


def collect(roots: list[Path]) -> dict[str, Path]:
    """model id -> its folder over all roots; the same id twice is refused."""
    found: dict[str, Path] = {}
    for root in roots:
        for config in sorted(root.glob("*/*/config.json")):
            model_id = f"{config.parent.parent.name}/{config.parent.name}"
            if model_id in found:
                raise SystemExit(f"{model_id} is in both {found[model_id]} and {config.parent}")
            found[model_id] = config.parent
    return found


def sources_table(roots: list[Path], model_ids: set[str]) -> str:
    """registry/SOURCES.tsv: the rows of every bundled model, in the columns of the first table."""
    header: list[str] = []
    rows: dict[str, list[str]] = {}
    for root in roots:
        head, table = source_rows(root)
        header = header or head
        if head and head != header:
            raise SystemExit(f"{root}/SOURCES.tsv columns differ from the first table's")
        rows.update({k: v for k, v in table.items() if k in model_ids})
    lines = ["\t".join(header)] + ["\t".join(rows[k]) for k in sorted(rows, key=str.lower)]
    return "\n".join(lines) + "\n"


def entry(model_dir: Path, model_id: str, found: dict[str, str] | None = None) -> dict:
    data = {"id": model_id, "config": trim(json.loads((model_dir / "config.json").read_text()))}
    if found:
        data["provenance"] = found
    side = model_dir / "hf_quant_config.json"
    if side.is_file():
        data["hf_quant_config"] = json.loads(side.read_text())
    return data


def render(data: dict) -> str:
    return json.dumps(data, indent=1) + "\n"


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    roots = [Path(arg) for arg in argv]
    models = collect(roots)
    found: dict[str, dict[str, str]] = {}
    for root in roots:
        found.update(provenance(root))
    for old in REGISTRY.glob("*--*.json"):
        old.unlink()
    for model_id, folder in models.items():
        target = REGISTRY / f"{model_id.replace('/', '--')}.json"
        target.write_text(render(entry(folder, model_id, found.get(model_id))))
    (REGISTRY / "SOURCES.tsv").write_text(sources_table(roots, set(models)))
    print(f"wrote {len(models)} models from {len(roots)} folders to {REGISTRY}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
