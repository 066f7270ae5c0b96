"""Model facts: config.json -> ModelSpec, parameter counts and weight bytes, offline resolution.

Imports are lazy so `import kvlint.models` costs nothing until a function is used.
"""

from __future__ import annotations

from typing import Any

__all__ = ["ParamCount", "count_params", "resolve_model", "rope_cache_bytes", "spec_from_config", "weights_bytes"]

_HOMES = {
    "spec_from_config": "kvlint.models.config",
    "count_params": "kvlint.models.weights",
    "weights_bytes": "kvlint.models.weights",
    "rope_cache_bytes": "kvlint.models.weights",
    "ParamCount": "kvlint.models.weights",
    "resolve_model": "kvlint.models.resolve",
}


def __getattr__(name: str) -> Any:
    if name in _HOMES:
        import importlib

        return getattr(importlib.import_module(_HOMES[name]), name)
    raise AttributeError(f"module 'kvlint.models' has no attribute {name!r}")
