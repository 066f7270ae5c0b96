"""The context length each engine derives from config.json when --max-model-len / --context-length is unset.

vLLM and SGLang read different keys in a different order and apply RoPE scaling factors under
different rules (engines.md 1.1 and 3.2), so the same config can yield two lengths; both are kept.
"""

from __future__ import annotations

from typing import Any

# vLLM derive_max_model_len_and_key: the min over these keys (model_max_length overrides).
VLLM_LEN_KEYS = (
    "max_position_embeddings",
    "n_positions",
    "max_seq_len",
    "seq_length",
    "model_max_length",
    "max_target_positions",
    "max_sequence_length",
    "max_seq_length",
    "seq_len",
)
# SGLang get_context_length: the FIRST present key in this order wins.
SGLANG_LEN_KEYS = ("max_sequence_length", "seq_length", "max_seq_len", "model_max_length", "max_position_embeddings")
# RoPE types whose factor vLLM does not multiply into the derived length.
VLLM_NO_FACTOR_ROPE = frozenset({"su", "longrope", "llama3", "yarn", "deepseek_yarn", "deepseek_llama_scaling"})
DEFAULT_MAX_LEN = 2048  # both engines when no length key exists


def rope_sets(text: dict[str, Any]) -> list[dict[str, Any]]:
    """RoPE parameter sets: rope_scaling, or rope_parameters (flat or one set per layer type)."""
    rope = text.get("rope_scaling") or text.get("rope_parameters")
    if not isinstance(rope, dict):
        return []
    if all(isinstance(v, dict) for v in rope.values()) and rope:
        return list(rope.values())
    return [rope]


def _rope_type(rope: dict[str, Any]) -> str:
    return str(rope.get("rope_type") or rope.get("type") or "default")


def max_len_vllm(text: dict[str, Any]) -> tuple[int, str | None]:
    """vLLM 0.33 derived max_model_len and the key it came from (engines.md 1.1 steps 1, 4, 5, 7)."""
    present = [(int(text[k]), k) for k in VLLM_LEN_KEYS if isinstance(text.get(k), (int, float)) and text[k]]
    if not present:
        return DEFAULT_MAX_LEN, None
    derived, key = min(present)
    if text.get("model_max_length"):
        derived, key = int(text["model_max_length"]), "model_max_length"
    factor = 1.0
    if "gemma3" not in str(text.get("model_type")):
        for rope in rope_sets(text):
            if _rope_type(rope) not in VLLM_NO_FACTOR_ROPE:
                factor = float(rope.get("factor") or 1.0)
    if longrope_original(text) is not None:
        return int(text["original_max_position_embeddings"]), "original_max_position_embeddings"
    return int(derived * factor), key


def longrope_original(text: dict[str, Any]) -> int | None:
    """LongRoPE models (Phi-3/3.5 128k) start at original_max_position_embeddings from vLLM 0.12 on."""
    if any(_rope_type(r) == "longrope" for r in rope_sets(text)) and text.get("original_max_position_embeddings"):
        return int(text["original_max_position_embeddings"])
    return None


def max_len_vllm_before_longrope_default(text: dict[str, Any]) -> int | None:
    """What vLLM <= 0.11 derives for a LongRoPE model (the full max_position_embeddings); None for other models."""
    if longrope_original(text) is None:
        return None
    present = [int(text[k]) for k in VLLM_LEN_KEYS if isinstance(text.get(k), (int, float)) and text[k]]
    length = int(text["model_max_length"]) if text.get("model_max_length") else min(present, default=DEFAULT_MAX_LEN)
    return length


# Config classes whose transformers (v5) form nests `rope_scaling` per attention layer type, even when config.json
# writes one flat set (Gemma-3: {"factor": 8, "rope_type": "linear"} becomes {"full_attention": {...},
# "sliding_attention": {...}}). SGLang's get_context_length calls .get("factor", 1) on that nested dict: factor 1.
NESTED_ROPE_MODEL_TYPES = frozenset({"gemma3", "gemma3_text"})


# transformers config classes whose attribute_map answers a length key SGLang reads from another key
# (transformers 5.19: GPT2Config.attribute_map {"max_position_embeddings": "n_positions"}, ...). SGLang reads the
# config object, so getattr(config, "max_position_embeddings") is n_positions for these model types.
LENGTH_ATTRIBUTE_ALIASES: dict[str, dict[str, str]] = {
    **{t: {"max_position_embeddings": "n_positions"}
       for t in ("gpt2", "gpt-sw3", "codegen", "ctrl", "gpt_bigcode", "gptj", "imagegpt", "openai-gpt")},
    "dbrx": {"max_position_embeddings": "max_seq_len"},
    "kimi_linear": {"max_position_embeddings": "model_max_length"},
    "rwkv": {"max_position_embeddings": "context_length"},
}


def _with_attribute_aliases(text: dict[str, Any]) -> dict[str, Any]:
    aliases = LENGTH_ATTRIBUTE_ALIASES.get(str(text.get("model_type")), {})
    present = {key: text[source] for key, source in aliases.items() if text.get(source) is not None}
    return {**text, **present} if present else text


def max_len_sglang(text: dict[str, Any]) -> tuple[int, str | None]:
    """SGLang 0.5.23 context length (utils/hf_transformers/common.py get_context_length): first key in its order,
    times rope_scaling's factor unless the set names original_max_position_embeddings or is llama3. A nested
    per-layer-type set (as the config object holds it) has no top-level factor, so it counts 1."""
    text = _with_attribute_aliases(text)
    key = next((k for k in SGLANG_LEN_KEYS if isinstance(text.get(k), (int, float)) and text[k]), None)
    if key is None:
        return DEFAULT_MAX_LEN, None
    rope = text.get("rope_scaling") or text.get("rope_parameters")
    factor = 1.0
    nested = isinstance(rope, dict) and (all(isinstance(v, dict) for v in rope.values())
                                         or str(text.get("model_type")) in NESTED_ROPE_MODEL_TYPES)
    if isinstance(rope, dict) and "original_max_position_embeddings" not in rope and not nested \
            and rope.get("rope_type") != "llama3":
        factor = float(rope.get("factor") or 1)
    return int(text[key] * factor), key
