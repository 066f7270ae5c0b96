"""The decoder's own config.json section, with the defaults a minimal config leaves to transformers.

Multimodal wrappers nest the decoder in text_config and keep dtype or quantization at the top, and
trimmed configs omit keys their class defaults supply; every other module reads the merged mapping.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from kvlint.data import REGISTRY_DIR, load_json


@lru_cache(maxsize=1)
def _class_defaults() -> dict[str, dict[str, Any]]:
    """transformers class defaults for keys a minimal config.json omits (registry/defaults.json)."""
    return {k: v for k, v in load_json("defaults.json", REGISTRY_DIR).items() if not k.startswith("_")}


def text_config(cfg: dict[str, Any]) -> tuple[dict[str, Any], bool]:
    """The decoder's config with class defaults filled in; multimodal configs nest it in text_config."""
    nested = isinstance(cfg.get("text_config"), dict)
    text = dict(cfg["text_config"]) if nested else dict(cfg)
    model_type = text.get("model_type") or _text_type_of(cfg)
    for key, value in _class_defaults().get(str(model_type), {}).items():
        text.setdefault(key, value)
    if nested:
        # The wrapper builds its text_config from the text class's defaults (llava-1.5-7b-hf names no shape),
        # scoped to the nested section so a bare top-level config stays an error, not a default-sized model.
        for key, value in _class_defaults().get(f"{cfg.get('model_type')}.text_config", {}).items():
            text.setdefault(key, value)
        text.setdefault("model_type", model_type)
        for key in ("torch_dtype", "dtype", "quantization_config", "tie_word_embeddings"):
            if key in cfg and key not in text:
                text[key] = cfg[key]
    return text, nested


def _text_type_of(cfg: dict[str, Any]) -> str:
    """Multimodal wrappers whose text_config carries no model_type (Kimi-VL's is DeepSeek-V3 code)."""
    top = str(cfg.get("model_type") or "")
    return {"kimi_vl": "deepseek_v3", "gemma3": "gemma3_text", "llama4": "llama4_text"}.get(top, top)


def checkpoint_dtype(text: dict[str, Any], cfg: dict[str, Any]) -> str:
    """Checkpoint dtype; newer transformers write `dtype`, older `torch_dtype`; none means float32."""
    for source in (text, cfg):
        for key in ("torch_dtype", "dtype"):
            value = source.get(key)
            if isinstance(value, str) and value:
                return value.replace("torch.", "")
    return "float32"
