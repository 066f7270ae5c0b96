"""vLLM `--config` YAML files: top-level keys are flags (`max-model-len: 16384`, `model: ...`)."""

from __future__ import annotations

import os

from kvlint.deployment import Deployment
from kvlint.launches.argv import exact_option
from kvlint.launches.build import LaunchContext, ManifestGpu, make_deployment
from kvlint.launches.keys import fields_from_pairs
from kvlint.record import replace
from kvlint.sources.yaml import YNode

_K8S_KEYS = {"apiVersion", "kind", "services", "run", "resources", "spec", "metadata"}


def looks_like_vllm_config(doc: YNode) -> bool:
    """Every top-level key is a vLLM argument (`max-model-len`, `max_model_len`), at least two of them.

    Never "most keys": an application's own settings file (`max_model_len` beside `temperature`,
    `top_p`, `cors_allow_origins`) is read by that application, not by `vllm serve --config`, and
    reading it as one turned each of its own keys into an engine error. A file a launch names with
    `--config`, or one the configuration names, is read as a config file whatever its keys."""
    if not doc.is_map or any(k in _K8S_KEYS for k, _, _ in doc.pairs()):
        return False
    keys = {k for k, _, _ in doc.pairs()}  # distinct: a block repeating `model:` (client examples) is one key
    return len(keys) >= 2 and all(exact_option("vllm", "--" + k.replace("_", "-")) is not None for k in keys)


def read_vllm_config(path: str, doc: YNode) -> list[Deployment]:
    fields = fields_from_pairs(doc.pairs(), lambda k: "--" + k, engine="vllm")
    span = doc.items[0][0].span if doc.items else None
    ctx = LaunchContext(name="vllm --config file", origin="config-file")
    dep = make_deployment(path, "vllm", fields, span, ctx, ManifestGpu())
    return [replace(dep, config_file=os.path.realpath(path)) if path != "-" else dep]
