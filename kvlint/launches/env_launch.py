"""A custom engine image configured by its environment: a container (or chart values) whose image is a build
named for the engine (`ghcr.io/org/foo-vllm-docker:latest`, not the engine's own image), with no command of its
own, a variable named like a model (`MODEL`, `MODEL_NAME`, `MODEL_ID`, `HF_MODEL`, `MODEL_PATH`) and a GPU
request. Its entry point (a script in the image) starts the engine with those variables, so the launch is:
the model from that variable, and as settings the variables that spell the engine's flags (`MAX_MODEL_LEN`,
`TENSOR_PARALLEL_SIZE`: the flag table decides, through kvlint.launches.keys.option_for_key). The entry point
script itself, when the repository holds it, is read as what it is (a script whose values all come from the
environment).
"""

from __future__ import annotations

from collections.abc import Iterable

from kvlint.launches.env import Field
from kvlint.launches.images import named_engine
from kvlint.span import Span

__all__ = ["MODEL_VARS", "NOTE", "fields_from_env", "named_engine"]

MODEL_VARS = ("MODEL", "MODEL_NAME", "MODEL_ID", "HF_MODEL", "HF_MODEL_ID", "MODEL_PATH", "MODEL_REPO",
              "HF_MODEL_NAME", "LLM_MODEL", "SERVED_MODEL")
_PREFIXES = ("VLLM_", "SGLANG_", "ENGINE_")  # `VLLM_MAX_MODEL_LEN`: the engine's name before a flag's
_SECRET = ("TOKEN", "KEY", "SECRET", "PASSWORD")
NOTE = ("model and settings read from the container's environment: {image} is a custom build of the engine with "
        "no command here, whose entry point starts it with these variables")


def fields_from_env(engine: str, items: Iterable[tuple[str, Span | None, Field]]) -> list[Field] | None:
    """(name, name span, value) of the environment as the engine's argv: `--model VALUE` first, then each
    variable that spells one of the engine's flags; None without a model variable."""
    from kvlint.launches.keys import option_for_key, spelled_as_flag

    model: list[Field] = []
    flags: list[Field] = []
    for name, span, value in items:
        upper = name.upper()
        if upper in MODEL_VARS:
            model = model or [Field("--model", span or value.span), value]
            continue
        if any(s in upper for s in _SECRET) or not value.text:
            continue
        key = next((upper[len(p) :] for p in _PREFIXES if upper.startswith(p)), upper).lower()
        option = option_for_key(engine, key) if spelled_as_flag(key) else None
        if option is None:
            continue
        low = value.text.lower()
        if low in ("true", "false"):
            flags += [Field(option, span or value.span)] if low == "true" else []
        else:
            flags += [Field(option, span or value.span), value]
    return model + flags if model else None
