"""redhat-ai-services vllm-kserve chart: one engine split over two keys.

The chart renders a ServingRuntime from `servingRuntime.command` + `servingRuntime.args` and an
InferenceService whose `model.args` KServe appends to the runtime's; the model comes from
`model.uri` (an `oci://` model car, `pvc://`, `hf://`) mounted at /mnt/models. Read as separate
containers that was two launches, one without a model; here it is one. `servingTopology:
multiNode` spreads the engine over `multiNode.pipelineParallelSize` pods of `tensorParallelSize`
GPUs each.
"""

from __future__ import annotations

from kvlint.deployment import Deployment, ModelAlias
from kvlint.launches import facts
from kvlint.launches import gpus_in_manifest as g
from kvlint.launches.build import LaunchContext, ManifestGpu, finish
from kvlint.launches.charts.common import text
from kvlint.launches.env import Field
from kvlint.launches.images import shipped_engine
from kvlint.launches.script import launch_in_argv
from kvlint.record import replace
from kvlint.sources.yaml import YamlFile, YNode

_MOUNT = "/mnt/models"


# a map this chart's matches() accepts has one of these keys (helm._claims asks that first)
KEYS = ("servingRuntime", "servingTopology", "model")


def matches(doc: YNode) -> bool:
    """The chart's values: a `servingRuntime` with its argv, or its own `servingTopology` key (an overlay that keeps
    the chart's runtime, sample K121), beside a `model` map."""
    runtime, model = doc.get("servingRuntime"), doc.get("model")
    if model is None or not model.is_map:
        return False
    if runtime is None:  # the chart's `model.mode` (uri | s3 | pvc) with that source (sample K125: a catalogue's
        # values for it, `model: {mode: uri, uri: oci://...}`)
        mode = (text(model.get("mode")) or "").lower()
        return model.get("uri") is not None and (text(doc.get("servingTopology")) in ("singleNode", "multiNode")
                                                 or mode == "uri")
    argv = runtime.is_map and (runtime.get("args") is not None or runtime.get("command") is not None)
    return argv and any(model.get(k) is not None for k in ("uri", "args", "mode"))


def read(yf: YamlFile, doc: YNode) -> list[Deployment]:
    model = doc.get("model")
    runtime = (doc.get("servingRuntime") or YNode("map", model.span, model.start, model.start)) if model else None
    if runtime is None or model is None:
        return []
    argv = _items(runtime.get("command")) + [f for f in _items(runtime.get("args")) if not _mount_model(f)]
    argv += _items(model.get("args"))
    uri = _model_uri(model)
    if uri is not None:
        argv += [Field("--model", uri.span), Field(uri.text, uri.span)]
    image_engine = shipped_engine(text(doc.path("image", "image")))  # the runtime image when the command is implicit
    if doc.get("servingRuntime") is None:
        image_engine = image_engine or "vllm"  # the chart's own runtime: vLLM's server, its command the chart's
    found = launch_in_argv(argv, {}, image_default=image_engine if runtime.get("command") is None else None)
    if found is None:
        return []
    multi = text(doc.get("servingTopology")) == "multiNode"
    fields, gpu, notes = _topology(doc, multi)
    found = replace(found, fields=found.fields + tuple(fields))
    image = doc.get("image")
    repo, tag = text(image.get("image")) if image is not None and image.is_map else None, text(doc.path("image", "tag"))
    name = text(doc.path("inferenceService", "name")) or "vllm-kserve"
    ctx = LaunchContext(name, f"{repo}:{tag}" if repo and tag else repo,
                  origin="chart", notes=tuple(notes), node_labels=facts.node_labels(doc),
                  extra_aliases=_pvc_alias(model))
    return [finish(yf.path, found, ctx, gpu)]


def _items(node: YNode | None) -> list[Field]:
    return [Field(i.text, i.span) for i in node.items if i.is_scalar] if node is not None and node.is_seq else []


def _mount_model(f: Field) -> bool:
    """The runtime's own `--model=/mnt/models`: where KServe mounts `model.uri`, replaced by the uri."""
    return f.text.rstrip("/") in (f"--model={_MOUNT}",) or f.text.rstrip("/") == _MOUNT


def _model_uri(model: YNode) -> YNode | None:
    mode = (text(model.get("mode")) or "uri").lower()
    if mode == "s3":
        path = model.path("s3", "path")
        return path if text(path) else None
    uri = model.get("uri")
    return uri if text(uri) else None


def _pvc_alias(model: YNode) -> tuple[ModelAlias, ...]:
    """`model.pvc.downloadModel.huggingfaceModelRepo`: the Hub id the chart downloads onto the PVC."""
    repo = model.path("pvc", "downloadModel", "huggingfaceModelRepo")
    return (ModelAlias(repo.text, "download-repo", repo.span),) if text(repo) and facts.looks_like_hub_id(text(repo)) \
        and repo is not None else ()


def _topology(doc: YNode, multi: bool) -> tuple[list[Field], ManifestGpu, list[str]]:
    if not multi:
        count, span, _ = g.count_from_resources(doc.get("resources"))
        product, pspan = g.product_from_pod(doc)
        notes = [] if count is not None else ["GPUs come from the hardware profile "
                                              f"{text(doc.path('hardwareProfile', 'name')) or ''}".rstrip()]
        return [], ManifestGpu(product, pspan, count, span), notes
    pp, tp = doc.path("multiNode", "pipelineParallelSize"), doc.path("multiNode", "tensorParallelSize")
    fields = []
    for flag, node in (("--tensor-parallel-size", tp), ("--pipeline-parallel-size", pp)):
        if g.to_int(node) and node is not None:
            fields += [Field(flag, node.span), Field(node.text, node.span)]
    per, pods = g.to_int(tp) or 1, g.to_int(pp) or 1
    note = f"gpu count = {per} per pod (multiNode.tensorParallelSize) x {pods} pods (pipelineParallelSize)"
    anchor = tp if tp is not None else pp
    return fields, ManifestGpu(count=per * pods, count_span=anchor.span if anchor is not None else None,
                            notes=(note,), grouped=pods > 1), []
