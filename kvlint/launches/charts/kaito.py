"""KAITO Workspace: a preset name (the model), VM SKU x node count, and vLLM keys in a ConfigMap's
inference_config.yaml (`vllm:` map with kebab flag names) named by `inference.config`."""

from __future__ import annotations

from kvlint.deployment import Deployment
from kvlint.launches import gpus_in_manifest as g
from kvlint.launches.build import LaunchContext, ManifestGpu
from kvlint.launches.charts.common import chart_deployment, key_fields, model_fields, text
from kvlint.launches.charts.ray import embedded
from kvlint.launches.env import Field
from kvlint.sources.yaml import YamlFile, YNode


def read_workspace(yf: YamlFile, doc: YNode) -> list[Deployment]:
    preset = doc.path("inference", "preset", "name")
    if preset is None:
        return []
    fields = model_fields("vllm", preset)
    config = _config_map(yf, text(doc.path("inference", "config")))
    notes = ["model is a KAITO preset name; KAITO's preset catalogue maps it to a Hugging Face repo"]
    if config is not None:
        fields += key_fields("vllm", config.get("vllm"))
    elif doc.path("inference", "config") is not None:
        notes.append(f"config map {text(doc.path('inference', 'config'))!r} is not in this file")
    gpu = _gpu(doc)
    fields += _implied_parallelism(doc, fields, notes)
    ctx = LaunchContext(text(doc.path("metadata", "name")) or "", notes=tuple(notes))
    return [chart_deployment(yf.path, "vllm", fields, preset, ctx, gpu)]


def _implied_parallelism(doc: YNode, fields: list[Field], notes: list[str]) -> list[Field]:
    """KAITO sizes the engine to the nodes it provisions: TP across a VM's GPUs, PP across VMs,
    unless the config map sets them; without this, every multi-GPU workspace would look like TP 1."""
    sku, nodes_node = doc.path("resource", "instanceType"), doc.path("resource", "count")
    sku_name = text(sku)
    per_vm = _gpus_per_instance(sku_name) if sku_name else None
    if sku is None or per_vm is None:
        return []
    given = {f.text for f in fields}
    nodes = g.to_int(nodes_node) or 1
    out: list[Field] = []
    if per_vm > 1 and not given & {"--tensor-parallel-size", "-tp"}:
        out += [Field("--tensor-parallel-size", sku.span), Field(str(per_vm), sku.span)]
        notes.append(f"tensor_parallel_size {per_vm}: KAITO's default, the GPUs of one {sku_name}")
    if nodes_node is not None and nodes > 1 and not given & {"--pipeline-parallel-size", "-pp"}:
        out += [Field("--pipeline-parallel-size", nodes_node.span), Field(str(nodes), nodes_node.span)]
        notes.append(f"pipeline_parallel_size {nodes}: KAITO's default, one stage per node (resource.count)")
    return out


def _config_map(yf: YamlFile, name: str | None) -> YNode | None:
    for d in yf.docs:
        if d.is_map and text(d.get("kind")) == "ConfigMap" and text(d.path("metadata", "name")) == name:
            data = d.path("data", "inference_config.yaml")
            if data is not None and data.is_scalar and data.style == "|":
                inner = embedded(yf, data)
                return inner.docs[0] if inner.docs and inner.docs[0].is_map else None
    return None


def _gpu(doc: YNode) -> ManifestGpu:
    sku = doc.path("resource", "instanceType")
    nodes_node = doc.path("resource", "count")
    nodes = g.to_int(nodes_node) or 1
    name = text(sku)
    if sku is None or name is None:
        return ManifestGpu()
    per_vm = _gpus_per_instance(name)
    if per_vm is None:
        return ManifestGpu(name, sku.span, None, None, (f"GPUs per {name} unknown",))
    note = (f"gpu count = {per_vm} per {name} x resource.count {nodes}",)
    return ManifestGpu(name, sku.span, per_vm * nodes, (nodes_node or sku).span, note, grouped=nodes > 1)


def _gpus_per_instance(name: str) -> int | None:
    try:
        from kvlint.gpus import lookup_instance_type
    except ImportError:
        return None
    found = lookup_instance_type(name)
    return found[1] if found else None
