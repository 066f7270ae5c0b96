"""The harness's own reading of a config.json into what a vLLM start-up hands its KV planner.

A real start-up builds one spec per attention layer inside the model's torch modules (GPU code the
harness cannot run). This module restates, per family, what those modules pass (layer kind, window,
heads): it is written from the engines' model files (cited per rule), independently of kvlint's
kvlint.models, so a mistake there shows up as a mismatch. Transformers' config classes normalise a
few keys before vLLM reads them (Qwen's use_sliding_window, Gemma's layer_types, Llama-4's
no_rope_layers); those normalisations are restated too.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

REGISTRY = Path(__file__).resolve().parents[2] / "kvlint" / "models" / "registry"
LENGTH_KEYS = ("max_position_embeddings", "n_positions", "max_seq_len", "seq_length", "model_max_length",
               "max_target_positions", "max_sequence_length", "max_seq_length", "seq_len")
KV_HEAD_KEYS = ("n_head_kv", "num_kv_heads", "num_key_value_heads", "multi_query_group_num", "num_attention_groups")
MLA_TYPES = ("deepseek_v2", "deepseek_v3", "deepseek_v32", "kimi_k2", "glm4_moe_lite")
QWEN_WINDOW_OFF = ("qwen2", "qwen2_moe", "qwen3", "qwen3_moe", "qwen2_5_vl_text", "qwen2_5_vl", "qwen3_next")


def bundled() -> list[tuple[str, dict[str, Any]]]:
    """(model id, config.json) of every bundled config, transformers class defaults filled in."""
    defaults = json.loads((REGISTRY / "defaults.json").read_text())
    out = []
    for path in sorted(REGISTRY.glob("*--*.json")):
        entry = json.loads(path.read_text())
        config = _with_defaults(entry["config"], defaults)
        if isinstance(config.get("text_config"), dict):
            config = {**config, "text_config": _with_defaults(config["text_config"], defaults)}
        out.append((entry["id"], config))
    return out


def raw(model_id: str) -> dict[str, Any]:
    """The bundled config.json as kvlint ships it, without defaults.json: what the wheel's get_config is given
    (transformers' config classes fill their own defaults)."""
    entry = json.loads((REGISTRY / (model_id.replace("/", "--") + ".json")).read_text())
    return dict(entry["config"])


def hf_quant_config(model_id: str) -> dict[str, Any] | None:
    """ModelOpt's hf_quant_config.json as the registry bundles it (trimmed to the quantization section), or None."""
    entry = json.loads((REGISTRY / (model_id.replace("/", "--") + ".json")).read_text())
    side = entry.get("hf_quant_config")
    return side if isinstance(side, dict) else None


def _with_defaults(config: dict[str, Any], defaults: dict[str, Any]) -> dict[str, Any]:
    extra = defaults.get(str(config.get("model_type")), {})
    return {**extra, **config} if isinstance(extra, dict) else config


TEXT_TYPES = {"kimi_vl": "deepseek_v2"}  # configuration classes that build their text config as another type


def text_config(config: dict[str, Any]) -> dict[str, Any]:
    text = config.get("text_config")
    if not isinstance(text, dict):
        return config
    if "model_type" not in text and config.get("model_type") in TEXT_TYPES:
        return {**text, "model_type": TEXT_TYPES[config["model_type"]]}
    return text


def derived_len(config: dict[str, Any], version: tuple[int, ...] = (0, 33)) -> int:
    """vLLM's derived max_model_len: the smallest length key, times non-YaRN rope factors (engines.md 1.1); from
    0.12 an unset length of a LongRoPE model is its original_max_position_embeddings (config/model.py)."""
    text = text_config(config)
    rope_kind = (text.get("rope_scaling") or {}).get("rope_type") or (text.get("rope_scaling") or {}).get("type")
    if version >= (0, 12) and rope_kind == "longrope" and text.get("original_max_position_embeddings"):
        return int(text["original_max_position_embeddings"])
    found = [text[k] for k in LENGTH_KEYS if isinstance(text.get(k), (int, float))]
    length = min(found) if found else 2048
    if text.get("model_max_length"):
        length = text["model_max_length"]
    rope = text.get("rope_scaling") or text.get("rope_parameters")
    if isinstance(rope, dict) and "gemma3" not in str(text.get("model_type")):
        kind = rope.get("rope_type", rope.get("type"))
        if kind not in ("su", "longrope", "llama3", "yarn", "deepseek_yarn", "deepseek_llama_scaling", None, "default") or kind is None and "factor" in rope:
            length *= rope.get("factor") or 1.0
    return int(length)


def is_mla(text: dict[str, Any]) -> bool:
    return str(text.get("model_type")) in MLA_TYPES and text.get("kv_lora_rank") is not None


def head_size(text: dict[str, Any]) -> int:
    if is_mla(text):
        return int(text["kv_lora_rank"]) + int(text.get("qk_rope_head_dim") or 0)
    if text.get("head_dim"):
        return int(text["head_dim"])
    heads = text.get("num_attention_heads") or text.get("n_head")
    return int(text.get("hidden_size") or text.get("n_embd")) // int(heads)


def attention_heads(text: dict[str, Any]) -> int:
    return int(text.get("num_attention_heads") or text.get("n_head"))


def total_kv_heads(text: dict[str, Any]) -> int:
    if text.get("model_type") in ("falcon", "RefinedWeb", "RefinedWebModel"):
        new_arch = text.get("new_decoder_architecture", False)
        if not new_arch and text.get("multi_query", True):
            return 1
        if new_arch:
            return int(text.get("num_kv_heads") or 1)
    for key in KV_HEAD_KEYS:
        if text.get(key) is not None:
            return int(text[key])
    return int(text.get("num_attention_heads") or text.get("n_head"))


def window(text: dict[str, Any]) -> int | None:
    w = text.get("sliding_window")
    if str(text.get("model_type")) in QWEN_WINDOW_OFF and not text.get("use_sliding_window", False):
        return None  # transformers' Qwen configs drop the window when use_sliding_window is false
    return int(w) if isinstance(w, int) and w > 0 else None


def layer_kinds(config: dict[str, Any]) -> list[str]:
    """One kind per decoder layer, as the family's vLLM model file decides it."""
    text = text_config(config)
    n = int(text.get("num_hidden_layers") or text.get("n_layer"))
    mtype, w = str(text.get("model_type")), window(text)
    if is_mla(text):
        return ["mla"] * n
    if mtype == "qwen3_next":  # qwen3_next.py: layer_types from full_attention_interval
        step = int(text.get("full_attention_interval") or 4)
        return ["full" if (i + 1) % step == 0 else "mamba" for i in range(n)]
    if text.get("attention_chunk_size"):  # llama4.py: RoPE layers chunked, NoPE (no_rope_layers 0) full
        rope = text.get("no_rope_layers") or [int((i + 1) % int(text.get("no_rope_layer_interval") or 4) != 0)
                                              for i in range(n)]
        return ["chunked" if r else "full" for r in rope]
    if mtype == "gpt_oss":  # gpt_oss.py: even layers slide
        return ["sliding" if i % 2 == 0 else "full" for i in range(n)]
    if mtype == "gemma2":  # transformers Gemma2Config.layer_types
        return ["sliding" if (i + 1) % 2 else "full" for i in range(n)]
    if mtype.startswith("gemma4"):  # gemma4.py: config.layer_types, read per layer
        return ["full" if t == "full_attention" else "sliding" for t in text["layer_types"]]
    if mtype.startswith("gemma3"):
        every = int(text.get("sliding_window_pattern") or 6)
        return ["sliding" if (i + 1) % every else "full" for i in range(n)]
    return ["sliding" if w else "full"] * n  # Attention falls back to cache_config.sliding_window


def layers(config: dict[str, Any], tp: int) -> list[dict[str, Any]]:
    """Per-layer facts on one TP rank: kind, heads per rank, head sizes, window."""
    text = text_config(config)
    kv, head, w = total_kv_heads(text), head_size(text), window(text)
    out = []
    kinds = layer_kinds(config)
    shared_from = len(kinds) - int(text.get("num_kv_shared_layers") or 0)
    for i, kind in enumerate(kinds):
        if i >= shared_from:  # gemma4.py: kv_sharing_target_layer_name, no KV spec of its own
            continue
        if kind == "full" and text.get("global_head_dim"):  # gemma4.py Gemma4DecoderLayer: global dims, k_eq_v heads
            heads = text.get("num_global_key_value_heads") if text.get("attention_k_eq_v") else kv
            g = int(text["global_head_dim"])
            out.append({"index": i, "kind": "full", "heads": max(1, int(heads or kv) // tp), "head": g, "head_v": g,
                        "window": None})
        elif kind == "mla":
            out.append({"index": i, "kind": "mla", "heads": 1, "head": head})
        elif kind == "mamba":
            out.append({"index": i, "kind": "mamba"})
        else:
            chunk = text.get("attention_chunk_size")
            out.append({"index": i, "kind": kind, "heads": max(1, kv // tp), "head": head, "head_v": head,
                        "window": chunk if kind == "chunked" else (w if kind == "sliding" else None)})
    return out


def pp_split(num_layers: int, pp: int) -> list[range]:
    """vllm/distributed/utils.py get_pp_indices: the remainder goes to stages -2, -3, ... ."""
    per, rem = divmod(num_layers, pp)
    sizes = [per] * pp
    for i in range(rem):
        sizes[-2 - i if pp > 1 else 0] += 1
    starts = [sum(sizes[:r]) for r in range(pp)]
    return [range(s, s + n) for s, n in zip(starts, sizes, strict=True)]
