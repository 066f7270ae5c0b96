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
from functools import cache

from kvlint.launches.env import Field
from kvlint.launches.images import named_engine
from kvlint.record import record
from kvlint.span import Span


@record
class EnvImage:
    """A known engine wrapper image configured by its environment (kvlint/data/env_images.json)."""

    image: str
    engine: str
    model_vars: tuple[str, ...]
    aliases: tuple[tuple[str, str], ...]  # env name -> the flag's dest, for names that are not the flag upper-cased


@cache
def _table() -> tuple[EnvImage, ...]:
    from kvlint.data import load_json

    return tuple(EnvImage(e["image"], e["engine"], tuple(e["model_vars"]), tuple(sorted(e["aliases"].items())))
                 for e in load_json("env_images.json")["images"])


def env_image(image: str | None) -> EnvImage | None:
    """The table's entry for an image reference (`runpod/worker-v1-vllm:stable-cuda12.1.0`), longest match first."""
    low = (image or "").lower()
    found = [e for e in _table() if e.image in low]
    return max(found, key=lambda e: len(e.image)) if found else None


def configured_engine(image: str | None) -> str | None:
    """The engine an environment-configured image starts: a known wrapper image, else a custom build named for
    the engine."""
    entry = env_image(image)
    return entry.engine if entry is not None else named_engine(image)

__all__ = ["MODEL_VARS", "NOTE", "EnvImage", "configured_engine", "env_image", "fields_from_env", "named_engine"]

MODEL_VARS = ("MODEL", "MODEL_NAME", "MODEL_ID", "HF_MODEL", "HF_MODEL_ID", "MODEL_PATH", "MODEL_REPO",
              "HF_MODEL_NAME", "LLM_MODEL", "SERVED_MODEL")
_PREFIXES = ("VLLM_", "SGLANG_", "ENGINE_")  # `VLLM_MAX_MODEL_LEN`: the engine's name before a flag's
_SECRET = ("TOKEN", "KEY", "SECRET", "PASSWORD")
NOTE = ("model and settings read from the container's environment: {image} is a custom build of the engine with "
        "no command here, whose entry point starts it with these variables")


def fields_from_env(engine: str, items: Iterable[tuple[str, Span | None, Field]],
                    image: str | None = None) -> list[Field] | None:
    """(name, name span, value) of the environment as the engine's argv: `--model VALUE` first, then each
    variable that spells one of the engine's flags (or that a known wrapper image maps to one:
    kvlint/data/env_images.json); None without a model variable."""
    from kvlint.launches.keys import option_for_key, spelled_as_flag

    entry = env_image(image)
    model_vars = (entry.model_vars if entry is not None else ()) + MODEL_VARS
    aliases = dict(entry.aliases) if entry is not None else {}
    model: list[Field] = []
    flags: list[Field] = []
    for name, span, value in items:
        upper = name.upper()
        if upper in model_vars:
            model = model or [Field("--model", span or value.span), value]
            continue
        if any(s in upper for s in _SECRET) or not value.text:
            continue
        key = aliases.get(upper) or next((upper[len(p) :] for p in _PREFIXES if upper.startswith(p)), upper).lower()
        # a known wrapper maps every flag's upper-cased name (`DTYPE` too); elsewhere a bare word is no evidence
        option = option_for_key(engine, key) if entry is not None or spelled_as_flag(key) else None
        if option is None:
            continue
        low = value.text.lower()
        if low in ("true", "false"):
            flags += [Field(option, span or value.span)] if low == "true" else []
        else:
            flags += [Field(option, span or value.span), value]
    return model + flags if model else None
