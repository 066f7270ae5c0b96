"""RunPod worker-vllm hub.json: every engine flag is an UPPER_SNAKE env var with a default; the
worker turns MAX_MODEL_LEN into --max-model-len. Preset defaults give the model."""

from __future__ import annotations

from kvlint.deployment import Deployment
from kvlint.launches.argv import exact_option
from kvlint.launches.build import LaunchContext, ManifestGpu
from kvlint.launches.charts.common import chart_deployment, known_flag, model_fields, text
from kvlint.launches.env import Field
from kvlint.sources.yaml import YamlFile, YNode

# a map this chart's matches() accepts has one of these keys (helm._claims asks that first)
KEYS = ("config",)


def matches(doc: YNode) -> bool:
    env = doc.path("config", "env")
    if env is None or not env.is_seq:
        return False
    return any(i.is_map and i.get("key") is not None and i.get("input") is not None for i in env.items)


def read(yf: YamlFile, doc: YNode) -> list[Deployment]:
    cfg = doc.get("config")
    env = cfg.get("env") if cfg is not None else None
    if cfg is None or env is None:  # not this chart: callers ask matches(doc) first
        return []
    preset = cfg.path("presets", 0, "defaults", "MODEL_NAME")
    fields = model_fields("vllm", preset)
    for item in env.items:
        key, default = text(item.get("key")), item.path("input", "default")
        flag = known_flag("vllm", key.lower()) if key else None
        if (flag and flag != "--model" and default is not None and default.is_scalar
                and default.text not in ("", "auto")):
            fields.extend(_pair(flag, item.get("key"), default))
    ids, count = cfg.get("gpuIds"), cfg.get("gpuCount")
    choices = text(ids)
    first = choices.split(",")[0].strip() if choices else None
    notes = (f"RunPod GPU choices: {choices}",) if choices and "," in choices else ()
    per_worker = count.value if count is not None and isinstance(count.value, int) else None
    gpu = ManifestGpu(first, ids.span if ids is not None else None,
                   per_worker, count.span if count is not None else None, notes)
    ctx = LaunchContext(text(doc.get("title")) or "", origin="env",
                        notes=("settings are the worker's env-var defaults",))
    return [chart_deployment(yf.path, "vllm", fields, preset, ctx, gpu)]


def _pair(flag: str, knode: YNode, default: YNode) -> list[Field]:
    if isinstance(default.value, bool):
        # The worker passes env booleans as engine kwargs: False on a store_true flag is simply unset.
        if default.value:
            return [Field(flag, knode.span)]
        negative = "--no-" + flag[2:]
        return [Field(negative, knode.span)] if exact_option("vllm", negative) is not None else []
    return [Field(flag, knode.span), Field(default.text, default.span)]
