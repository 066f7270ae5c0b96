"""neuralmagic nm-vllm chart: `modelName`, `apiServer.extraArgs`, image, resources, node placement.

The chart's template writes `python3 -m vllm.entrypoints.openai.api_server --model {{ .Values.modelName }}`
plus the extra arguments; the image tag is nm-vllm's own release, not a vLLM version.
"""

from __future__ import annotations

from kvlint.deployment import Deployment
from kvlint.launches import facts
from kvlint.launches import gpus_in_manifest as g
from kvlint.launches.build import LaunchContext, ManifestGpu
from kvlint.launches.charts.common import argv_items, chart_deployment, model_fields, text
from kvlint.sources.yaml import YamlFile, YNode

# a map this chart's matches() accepts has one of these keys (helm._claims asks that first)
KEYS = ("modelName",)


def matches(doc: YNode) -> bool:
    model = doc.get("modelName")
    if model is None or not model.is_scalar:
        return False
    repo = text(doc.path("image", "repository")) or ""
    return "nm-vllm" in repo or doc.get("apiServer") is not None


def read(yf: YamlFile, doc: YNode) -> list[Deployment]:
    model = doc.get("modelName")
    fields = model_fields("vllm", model) + argv_items(doc.path("apiServer", "extraArgs"))
    repo, tag = text(doc.path("image", "repository")), text(doc.path("image", "tag"))
    tag_node = doc.path("image", "tag")
    count, span, _ = g.count_from_resources(doc.get("resources"))
    product, pspan = g.product_from_pod(doc)
    gpu = ManifestGpu(product, pspan, count, span, options=facts.gpu_options(doc, count))
    ctx = LaunchContext(text(doc.get("fullnameOverride")) or "nm-vllm", f"{repo}:{tag}" if repo and tag else repo,
                  tag_node.span if tag_node is not None else None, node_labels=facts.node_labels(doc))
    return [chart_deployment(yf.path, "vllm", fields, model, ctx, gpu)]
