"""What a checkpoint's architecture puts after its last decoder layer: a vocabulary head, a small score, or nothing.

vLLM picks the runner from the architecture's class-name suffix (config/model.py `_SUFFIX_TO_DEFAULTS`): a
`*ForCausalLM` / `*ForConditionalGeneration` / `*LMHeadModel` generates and keeps its lm_head; a base-model class
(`MistralModel`, `Qwen3Model`, `*EmbeddingModel`) runs as a pooling model, which vLLM builds without the
ParallelLMHead (models/adapters.py) and whose checkpoint ships none (intfloat/e5-mistral-7b-instruct: 7.11B, no
`lm_head.weight`); a `*ForSequenceClassification` keeps a hidden x num_labels score instead. SGLang serves the same
classes without an lm_head (models/llama_embedding.py). The table is kvlint/data/architectures.json `output_head`.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from kvlint.data import load_json

LM_HEAD, SCORE, NONE = "lm_head", "score", "none"
DEFAULT_LABELS = 2  # transformers' PretrainedConfig id2label default


@lru_cache(maxsize=1)
def _rules() -> tuple[tuple[str, str], ...]:
    table: dict[str, Any] = load_json("architectures.json")
    return tuple((str(suffix), str(kind)) for suffix, kind in table["output_head"]["by_suffix"])


def output_head(architecture: str) -> str:
    """`lm_head`, `score` or `none` for a class name (the first suffix that matches; no match or no name: lm_head,
    as vLLM runs an unmatched architecture as a generator)."""
    if architecture:
        for suffix, kind in _rules():
            if architecture.endswith(suffix):
                return kind
    return LM_HEAD


def num_labels(config: dict[str, Any]) -> int:
    """A classifier's label count: id2label's size, else num_labels, else transformers' default of two."""
    labels = config.get("id2label")
    if isinstance(labels, dict) and labels:
        return len(labels)
    value = config.get("num_labels")
    return value if isinstance(value, int) and value > 0 else DEFAULT_LABELS
