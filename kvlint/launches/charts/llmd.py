"""llm-d modelservice values: modelArtifacts.uri + decode/prefill roles with parallelism and args."""

from __future__ import annotations

from kvlint.deployment import Deployment
from kvlint.launches import gpus_in_manifest as g
from kvlint.launches.build import LaunchContext, ManifestGpu
from kvlint.launches.charts.common import argv_items, chart_deployment, model_fields, text
from kvlint.launches.env import Field
from kvlint.launches.images import around_engine
from kvlint.record import replace
from kvlint.sources.yaml import YamlFile, YNode

# a map this chart's matches() accepts has one of these keys (helm._claims asks that first)
KEYS = ("modelArtifacts",)


def matches(doc: YNode) -> bool:
    has_role = doc.get("decode") is not None or doc.get("prefill") is not None
    return doc.path("modelArtifacts", "uri") is not None and has_role


def read(yf: YamlFile, doc: YNode) -> list[Deployment]:
    uri = doc.path("modelArtifacts", "uri")
    if uri is None:  # not this chart: callers ask matches(doc) first
        return []
    out = []
    for role in ("prefill", "decode"):
        sec = doc.get(role)
        if sec is None or not sec.is_map or text(sec.get("create")) == "false":
            continue
        out.extend(_role(yf, role, sec, uri, doc))
    return out


def _role(yf: YamlFile, role: str, sec: YNode, uri: YNode, doc: YNode) -> list[Deployment]:
    tp = sec.path("parallelism", "tensor")
    fields = model_fields("vllm", uri)
    if tp is not None and g.to_int(tp):
        fields += [Field("--tensor-parallel-size", tp.span), Field(tp.text, tp.span)]
    containers = sec.get("containers")
    out = []
    for c in containers.items if containers is not None and containers.is_seq else ():
        image = c.get("image")
        if text(c.get("modelCommand")) in ("vllmServe", "imageDefault") and not around_engine(text(image)):
            ctx = LaunchContext(f"{role}/{text(c.get('name')) or ''}", text(image),
                                image.span if image is not None else None)
            per_pod = (g.to_int(tp) or 1) * (g.to_int(sec.path("parallelism", "dataLocal")) or 1)
            gpu = ManifestGpu(None, None, per_pod, tp.span if tp is not None else None)
            gpu = _accelerator(doc.path("accelerator", "type"), gpu)
            out.append(chart_deployment(yf.path, "vllm", fields + argv_items(c.get("args")), uri, ctx, gpu))
    return out


def _accelerator(node: YNode | None, gpu: ManifestGpu) -> ManifestGpu:
    """`accelerator.type`: a vendor (nvidia, amd) is only a note; a device that is not a GPU (intel-gaudi,
    google-tpu) is the launch's device, so it is not swept over the GPU catalogue."""
    product = text(node)
    if not product or node is None:
        return gpu
    from kvlint.gpus import accelerator_kind

    if accelerator_kind(product) is not None:
        return replace(gpu, product=product, product_span=node.span)
    return replace(gpu, notes=gpu.notes + (f"accelerator type {product} (vendor only)",))
