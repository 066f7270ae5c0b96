"""vLLM production-stack: servingEngineSpec.modelSpec[] with camelCase vllmConfig and extraArgs."""

from __future__ import annotations

from kvlint.deployment import Deployment
from kvlint.launches import gpus_in_manifest as g
from kvlint.launches.build import Context, GpuFacts
from kvlint.launches.charts.common import argv_items, chart_deployment, key_fields, model_fields, text
from kvlint.sources.yaml import YamlFile, YNode


def matches(doc: YNode) -> bool:
    return doc.path("servingEngineSpec", "modelSpec") is not None


def read(yf: YamlFile, doc: YNode) -> list[Deployment]:
    specs = doc.path("servingEngineSpec", "modelSpec")
    return [_entry(yf, e) for e in (specs.items if specs.is_seq else ()) if e.is_map]


def _entry(yf: YamlFile, e: YNode) -> Deployment:
    cfg = e.get("vllmConfig")
    fields = model_fields("vllm", e.get("modelURL")) + key_fields("vllm", cfg, frozenset({"extraArgs"}))
    fields += argv_items(cfg.get("extraArgs") if cfg is not None else None)
    repo, tag = text(e.get("repository")), text(e.get("tag"))
    image = f"{repo}:{tag}" if repo and tag else repo
    tag_node = e.get("tag")
    ctx = Context(text(e.get("name")) or "", image, tag_node.span if tag_node is not None else None)
    return chart_deployment(yf.path, "vllm", fields, e.get("modelURL") or e, ctx, _gpu(e))


def _gpu(e: YNode) -> GpuFacts:
    """requestGPUType is a resource name: a MIG profile names a product, `nvidia.com/gpu` does not,
    so the product then comes from `affinity` (which the chart prefers) or nodeSelectorTerms."""
    count = e.get("requestGPU")
    product, pspan = None, None
    gtype = e.get("requestGPUType")
    if text(gtype) and not _vendor_only(text(gtype)):
        product, pspan = text(gtype), gtype.span
    if product is None:
        product, pspan = g.product_from_pod(e)
    terms = e.get("nodeSelectorTerms")
    if product is None and terms is not None:
        for term in terms.items if terms.is_seq else ():
            for expr in (term.get("matchExpressions").elements if term.get("matchExpressions") is not None else ()):
                key, values = text(expr.get("key")), expr.get("values")
                if key in g.PRODUCT_LABELS and values is not None and values.is_seq and values.items:
                    product, pspan = values.items[0].text, values.items[0].span
    return GpuFacts(product, pspan, g.to_int(count), count.span if count is not None else None)


def _vendor_only(name: str) -> bool:
    """`nvidia.com/gpu`, `amd.com/gpu`, `gpu`: the kind of device, not which one."""
    return name.strip().lower() in ("gpu", "nvidia.com/gpu", "amd.com/gpu") or name.strip().endswith(("/gpu", "/tpu", "/gaudi"))
