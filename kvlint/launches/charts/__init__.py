"""Chart adapters: each knows one chart's values layout (`matches(doc)`, `read(yaml_file, doc)`).

Loaded on first use (`adapters()`): a plain Kubernetes manifest, the common pre-commit case, never needs them.
"""

from __future__ import annotations

import importlib
from functools import cache

# order matters: the generic adapter only after every chart that knows its own keys
ADAPTER_NAMES = ("production_stack", "kubeai", "llmd", "ai_on_eks", "runpod", "ray", "nm_vllm", "vllm_kserve",
                 "generic")


@cache
def adapters() -> list:
    return [importlib.import_module(f"{__name__}.{name}") for name in ADAPTER_NAMES]
