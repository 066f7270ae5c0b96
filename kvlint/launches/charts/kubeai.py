"""KubeAI: `Model` objects and the models chart's `catalog` (url, engine, args, resourceProfile)."""

from __future__ import annotations

from kvlint.deployment import DeclaredLoad, Deployment
from kvlint.launches.build import LaunchContext, ManifestGpu
from kvlint.launches.charts.common import argv_items, chart_deployment, disabled, model_fields, text
from kvlint.sources import numbers
from kvlint.sources.yaml import YamlFile, YNode
from kvlint.span import Span

ENGINES = {"VLLM": "vllm", "SGLANG": "sglang"}


# a map this chart's matches() accepts has one of these keys (helm._claims asks that first)
KEYS = ("catalog",)


def matches(doc: YNode) -> bool:
    cat = doc.get("catalog")
    return cat is not None and cat.is_map and any(v.is_map and v.get("url") is not None for _, _, v in cat.pairs())


def read(yf: YamlFile, doc: YNode) -> list[Deployment]:
    catalog = doc.get("catalog")
    if catalog is None:  # not this chart: callers ask matches(doc) first
        return []
    out = []
    for name, _, entry in catalog.pairs():
        if entry.is_map:
            dep = model_entry(yf, name, entry, *_left_off(doc, entry))
            if dep is not None:
                out.append(dep)
    return out


def model_entry(yf: YamlFile, name: str, spec: YNode, off: Span | None = None, why: str = "") -> Deployment | None:
    engine = ENGINES.get((text(spec.get("engine")) or "").upper())
    if engine is None:
        return None
    fields = model_fields(engine, spec.get("url")) + argv_items(spec.get("args"))
    ctx = LaunchContext(name, declared_load=target_requests(spec), disabled=off or disabled(spec), disabled_why=why)
    gpu = profile_gpu(spec.get("resourceProfile"))
    return chart_deployment(yf.path, engine, fields, spec.get("url") or spec, ctx, gpu)


def _left_off(doc: YNode, entry: YNode) -> tuple[Span | None, str]:
    """Where the models chart is told not to render a catalogue entry: its own `enabled: false`, or, when the entry
    says nothing, `all.enabled` not true (the chart renders an entry only when `.enabled` or `all.enabled` is: an
    entry without the key is off, sample K89's 405B on A100s); the entry's name when `all` is not written."""
    own = entry.get("enabled")
    if own is not None:
        return disabled(entry), ""
    every = doc.path("all", "enabled")
    if every is not None and not (every.is_scalar and every.value is False):
        return None, ""  # all.enabled true, or left to a template
    if every is not None:
        return every.span, ("the models chart renders an entry without `enabled` only with all.enabled "
                            "(false at line {line})")
    return entry.span, ("the models chart renders only entries with `enabled: true`, and the entry at line {line} "
                        "has none")


def target_requests(spec: YNode) -> DeclaredLoad | None:
    """KubeAI scales a model on `targetRequests`: the active requests it aims at per replica."""
    node = spec.get("targetRequests")
    value = node.value if node is not None and node.is_scalar and isinstance(node.value, int) else None
    return DeclaredLoad(value, "targetRequests", node.span) if value and value > 0 and node is not None else None


def profile_gpu(node: YNode | None) -> ManifestGpu:
    """`nvidia-gpu-h100:8` -> product `nvidia-gpu-h100`, 8 GPUs (the profile name, as written)."""
    value = text(node)
    if node is None or not value:
        return ManifestGpu()
    name, _, count = value.partition(":")
    if name.startswith("cpu"):  # a CPU launch: resolve says "not a GPU" instead of sizing it on the catalogue
        return ManifestGpu(name, node.span, notes=(f"resource profile {value}: CPU only",))
    n = numbers.count(count)
    return ManifestGpu(name, node.span, n, node.span if n else None)


def read_model_object(yf: YamlFile, doc: YNode) -> list[Deployment]:
    spec = doc.get("spec")
    name = text(doc.path("metadata", "name")) or ""
    dep = model_entry(yf, name, spec) if spec is not None and spec.is_map else None
    return [dep] if dep else []
