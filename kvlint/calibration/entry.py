"""The Calibration record, and the one normalisation its fields are compared under.

Entries are written by hand as often as by `verify --calibrate`, so model ids, GPU names and engine
versions are compared by meaning (case, separators, catalogue aliases, "v" prefixes), in one place.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from kvlint.errors import KvlintError
from kvlint.record import record

KEYS = ("model", "gpu", "tp", "engine", "engine_version", "non_kv_gib", "source_log")


@record
class Calibration:
    model: str
    gpu: str
    tp: int
    engine: str
    engine_version: str
    non_kv_gib: float
    source_log: str = ""

    def same_target(self, other: Calibration) -> bool:
        return target(self) == target(other)


def norm(text: Any) -> str:
    return re.sub(r"[\s_-]+", " ", str(text or "")).strip().lower()


def norm_version(text: Any) -> str:
    """'v0.33.0', '0.33' and '0.33.0+cu128' are one release: compare the leading numbers, trailing zeros off."""
    raw = str(text or "").strip().lower().removeprefix("v")
    m = re.match(r"\d+(?:\.\d+)*", raw)
    if not m:
        return raw
    parts = [int(p) for p in m.group(0).split(".")]
    while len(parts) > 1 and parts[-1] == 0:
        parts.pop()
    return ".".join(map(str, parts))


def norm_gpu(name: Any) -> str:
    """The catalogue id when the name resolves ("H100" and "H100-SXM-80GB" are one key), else the text."""
    try:
        from kvlint.gpus import lookup_gpu

        return norm(lookup_gpu(str(name)).id)
    except (ImportError, KvlintError):
        return norm(name)


def deployment_key(model: Any, gpu: Any, tp: int | None, engine: Any) -> tuple:
    """What must agree before versions are compared: model, GPU, TP, engine."""
    return (norm(model), norm_gpu(gpu), int(tp or 1), norm(engine))


def target(c: Calibration) -> tuple:
    return (norm(c.model), norm_gpu(c.gpu), int(c.tp), norm(c.engine), norm_version(c.engine_version))


def version_key(text: str) -> tuple[int, ...]:
    return tuple(int(p) for p in re.findall(r"\d+", text)[:4])


def entries(config: Mapping[str, Any] | None) -> list[Calibration]:
    """The well-formed calibration entries of a loaded configuration mapping (others are skipped)."""
    raw = (config or {}).get("calibration") or []
    out = []
    for item in raw if isinstance(raw, list) else []:
        try:
            out.append(Calibration(
                model=str(item["model"]), gpu=str(item["gpu"]), tp=int(item.get("tp", 1)),
                engine=str(item["engine"]), engine_version=str(item.get("engine_version", "")),
                non_kv_gib=float(item["non_kv_gib"]), source_log=str(item.get("source_log", ""))))
        except (KeyError, TypeError, ValueError, AttributeError):
            continue
    return out
