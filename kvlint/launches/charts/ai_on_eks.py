"""AWS ai-on-eks inference-charts: top-level `model`, camelCase `modelParameters`, instanceType."""

from __future__ import annotations

from kvlint.deployment import Deployment
from kvlint.engines.registered import engine_names
from kvlint.launches import gpus_in_manifest as g
from kvlint.launches.build import LaunchContext, ManifestGpu
from kvlint.launches.charts.common import chart_deployment, key_fields, model_fields, text
from kvlint.sources.yaml import YamlFile, YNode

# a map this chart's matches() accepts has one of these keys (helm._claims asks that first)
KEYS = ("modelParameters",)


def matches(doc: YNode) -> bool:
    return doc.get("modelParameters") is not None and doc.get("inference") is not None


def read(yf: YamlFile, doc: YNode) -> list[Deployment]:
    framework = (text(doc.path("inference", "framework")) or "vllm").lower()
    engine = next((name for name in engine_names() if name in framework), None)
    if engine is None:
        return []
    fields = model_fields(engine, doc.get("model")) + key_fields(engine, doc.get("modelParameters"))
    server = doc.path("inference", "modelServer")
    repo = text(server.path("image", "repository")) if server else None
    tag = text(server.path("image", "tag")) if server else None
    ctx = LaunchContext(text(doc.path("inference", "serviceName")) or "", f"{repo}:{tag}" if repo and tag else None)
    return [chart_deployment(yf.path, engine, fields, doc.get("model") or doc, ctx, _gpu(doc, framework))]


def _gpu(doc: YNode, framework: str) -> ManifestGpu:
    dep = doc.path("inference", "modelServer", "deployment")
    count, span, _ = g.count_from_resources(dep.path("resources", "gpu") if dep else None)
    itype = dep.get("instanceType") if dep else None
    notes: tuple[str, ...] = ()
    pp = doc.path("modelParameters", "pipelineParallelSize")
    size = g.to_int(pp)
    if count and "lws" in framework and size and size > 1:
        notes = (f"gpu count = {count} per pod x LWS size (pipelineParallelSize) {size}",)
        count *= size
    return ManifestGpu(text(itype), itype.span if itype is not None else None, count, span, notes, grouped=bool(notes))
