"""vLLM production-stack: servingEngineSpec.modelSpec[] with camelCase vllmConfig and extraArgs."""

from __future__ import annotations

from kvlint.deployment import DeclaredLoad, Deployment
from kvlint.launches import facts
from kvlint.launches import gpus_in_manifest as g
from kvlint.launches.build import LaunchContext, ManifestGpu
from kvlint.launches.charts.common import argv_items, chart_deployment, disabled, key_fields, model_fields, text
from kvlint.launches.keys import fields_from_pairs
from kvlint.sources.yaml import YamlFile, YNode

# a map this chart's matches() accepts has one of these keys (helm._claims asks that first)
KEYS = ("servingEngineSpec",)


def matches(doc: YNode) -> bool:
    return doc.path("servingEngineSpec", "modelSpec") is not None


def read(yf: YamlFile, doc: YNode) -> list[Deployment]:
    specs = doc.path("servingEngineSpec", "modelSpec")
    if specs is None:  # not this chart: callers ask matches(doc) first
        return []
    # one model written as a map, not a one-item list (a repository's own copy of the chart, sample K402's
    # `modelSpec: {name: ..., modelURL: ..., vllmConfig: ...}`): the same entry
    entries = specs.items if specs.is_seq else (specs,) if specs.is_map and specs.get("modelURL") is not None else ()
    return [_entry(yf, e) for e in entries if e.is_map]


def _entry(yf: YamlFile, e: YNode) -> Deployment:
    cfg = e.get("vllmConfig")
    fields = model_fields("vllm", e.get("modelURL")) + key_fields("vllm", cfg, frozenset({"extraArgs"}))
    fields += argv_items(cfg.get("extraArgs") if cfg is not None else None)
    repo, tag = text(e.get("repository")), text(e.get("tag"))
    image = f"{repo}:{tag}" if repo and tag else repo
    tag_node = e.get("tag")
    terms = e.get("nodeSelectorTerms")
    labels = facts.node_labels(e) + facts.term_labels(terms)
    ctx = LaunchContext(text(e.get("name")) or "", image, tag_node.span if tag_node is not None else None,
                  node_labels=labels, disabled=disabled(e))
    return chart_deployment(yf.path, "vllm", fields, e.get("modelURL") or e, ctx, _gpu(e))


def _gpu(e: YNode) -> ManifestGpu:
    """requestGPUType is a resource name: a MIG profile names a product, `nvidia.com/gpu` does not,
    so the product then comes from `affinity` (which the chart prefers) or nodeSelectorTerms."""
    count = e.get("requestGPU")
    product, pspan = None, None
    gtype = e.get("requestGPUType")
    gname = text(gtype)
    if gtype is not None and gname and not _vendor_only(gname):
        product, pspan = gname, gtype.span
    if product is None:
        product, pspan = g.product_from_pod(e)
    terms = e.get("nodeSelectorTerms")
    if product is None and terms is not None:
        for term in terms.items if terms.is_seq else ():
            for expr in (term.get("matchExpressions").elements if term.get("matchExpressions") is not None else ()):
                key, values = text(expr.get("key")), expr.get("values")
                if g.is_product_label(key or "") and values is not None and values.is_seq and values.items:
                    product, pspan = values.items[0].text, values.items[0].span
    options = facts.gpu_options(e, g.to_int(count)) or facts.term_options(terms, g.to_int(count))
    ray = _ray_cluster(e, g.to_int(count))
    if ray is not None:
        return ManifestGpu(product, pspan, ray[0], count.span if count is not None else None, (ray[1],),
                           grouped=True, options=options)
    return ManifestGpu(product, pspan, g.to_int(count), count.span if count is not None else None, options=options)


def _ray_cluster(e: YNode, per_worker: int | None) -> tuple[int, str] | None:
    """`raySpec.enabled`: the chart renders a RayCluster whose head (raySpec.headNode.requestGPU) and
    `replicaCount` workers (requestGPU each) run one engine together (pipeline or tensor parallel over them).
    A `raySpec` with a head and no `enabled` key is the chart's earlier spelling (its tutorials' values: the key's
    presence made the cluster), read the same way, said in the note: a chart that wants `enabled: true` would
    start one pod instead, which only the chart's release settles, so no GPU error is built on that reading."""
    ray = e.get("raySpec")
    enabled = ray.get("enabled") if ray is not None and ray.is_map else None
    implied = enabled is None and ray is not None and ray.is_map and ray.get("headNode") is not None
    if not implied and (enabled is None or enabled.value is not True):
        return None
    head = g.to_int(ray.path("headNode", "requestGPU")) or 0 if ray is not None else 0
    replicas = g.to_int(e.get("replicaCount")) or 1
    total = head + replicas * (per_worker or 0)
    note = f"gpu count = Ray cluster head {head} + {replicas} x {per_worker or 0} (raySpec, replicaCount x requestGPU)"
    if implied:
        note += "; raySpec has no `enabled` key: read as the chart's earlier releases do (its presence starts it)"
    return (total, note) if total else None


def _vendor_only(name: str) -> bool:
    """`nvidia.com/gpu`, `amd.com/gpu`, `gpu`: the kind of device, not which one."""
    low = name.strip().lower()
    return low in ("gpu", "nvidia.com/gpu", "amd.com/gpu") or low.endswith(("/gpu", "/tpu", "/gaudi"))


# ---------------------------------------------------------------- the operator's VLLMRuntime CRD

_RUNTIME_RENAMES = {"enableLoRA": "--enable-lora", "enableTool": "--enable-auto-tool-choice"}
_RUNTIME_SKIP = frozenset({"modelURL", "extraArgs", "env", "port", "v1", "hfTokenSecret", "hfTokenName",
                           "chatTemplate"})


def read_vllmruntime(yf: YamlFile, doc: YNode) -> list[Deployment]:
    """`kind: VLLMRuntime`: the operator writes `vllm serve MODEL` from spec.model and spec.vllmConfig
    (camelCase keys, two renamed, booleans as --x / --no-x); a P/D runtime has one per topology role."""
    spec = doc.get("spec")
    if spec is None or not spec.is_map:
        return []
    name = text(doc.path("metadata", "name")) or ""
    topology = spec.get("topology")
    roles = [(r, topology.get(r)) for r in ("prefill", "decode")] if topology is not None and topology.is_map else []
    found: list[tuple[str, YNode]] = [(r, n) for r, n in roles if n is not None and n.is_map] or [("", spec)]
    return [_runtime(yf, f"{name}/{role}" if role else name, holder, spec) for role, holder in found]


def _runtime(yf: YamlFile, name: str, holder: YNode, spec: YNode) -> Deployment:
    model, cfg = holder.get("model"), holder.get("vllmConfig")
    url = model.get("modelURL") if model is not None and model.is_map else None
    fields = model_fields("vllm", url)
    for section in (model, cfg):
        if section is None or not section.is_map:
            continue
        renamed = [(k, kn, v) for k, kn, v in section.pairs() if k in _RUNTIME_RENAMES]
        fields += fields_from_pairs(renamed, _RUNTIME_RENAMES.get, rendered=True, engine="vllm")
        plain = YNode("map", section.span, section.start, section.end,
                      items=tuple((kn, v) for kn, v in section.items if kn.is_scalar and kn.text not in _RUNTIME_SKIP
                                  and kn.text not in _RUNTIME_RENAMES))
        fields += key_fields("vllm", plain)
    fields += argv_items(cfg.get("extraArgs") if cfg is not None and cfg.is_map else None)
    dep = holder.get("deploymentConfig")
    registry = text(dep.path("image", "registry")) if dep else None
    image = text(dep.path("image", "name")) if dep else None
    image_node = dep.path("image", "name") if dep else None
    full = f"{registry}/{image}" if registry and image and "/" in image and "." not in image.split("/")[0] else image
    gpu = dep.path("resources", "gpu") if dep else None
    gtype_node = dep.path("resources", "gpuType") if dep else None
    gtype = text(gtype_node)
    product = gtype if gtype and not _vendor_only(gtype) else None
    gfacts = ManifestGpu(product, gtype_node.span if product and gtype_node is not None else None, g.to_int(gpu),
                      gpu.span if gpu is not None else None)
    ctx = LaunchContext(name, full, image_node.span if image_node is not None else None,
                  declared_load=_running_threshold(spec))
    return chart_deployment(yf.path, "vllm", fields, url or holder, ctx, gfacts)


def _running_threshold(spec: YNode) -> DeclaredLoad | None:
    """autoscalingConfig.triggers.requestsRunningThreshold: the per-pod running requests KEDA aims at."""
    auto = spec.get("autoscalingConfig")
    node = auto.path("triggers", "requestsRunningThreshold") if auto is not None and auto.is_map else None
    enabled = auto.get("enabled") if auto is not None and auto.is_map else None
    if node is None or g.to_int(node) is None or enabled is None or enabled.value is not True:
        return None
    return DeclaredLoad(g.to_int(node) or 0, "requestsRunningThreshold", node.span)
