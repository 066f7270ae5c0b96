"""llm-d values: the modelservice chart's (modelArtifacts.uri + decode/prefill roles with parallelism and args)
and the older llm-d deployer chart's `sampleApplication` (model.modelArtifactURI + prefill/decode replicas and
extraArgs, one GPU count for both roles), whose preset ConfigMap runs `vllm serve` with the model."""

from __future__ import annotations

from kvlint.deployment import Deployment
from kvlint.launches import gpus_in_manifest as g
from kvlint.launches.build import LaunchContext, ManifestGpu
from kvlint.launches.charts.common import argv_items, chart_deployment, disabled, model_fields, text
from kvlint.launches.env import Field
from kvlint.launches.images import around_engine
from kvlint.record import replace
from kvlint.sources.yaml import YamlFile, YNode

# a map this chart's matches() accepts has one of these keys (helm._claims asks that first)
KEYS = ("modelArtifacts", "sampleApplication")


def matches(doc: YNode) -> bool:
    if _sample_application(doc) is not None:
        return True
    has_role = doc.get("decode") is not None or doc.get("prefill") is not None
    return doc.path("modelArtifacts", "uri") is not None and has_role


def read(yf: YamlFile, doc: YNode) -> list[Deployment]:
    app = _sample_application(doc)
    if app is not None:
        return _deployer(yf, app)
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


# the command the chart gives a container, by its `modelCommand` (`sglangServe`: SGLang's server, turn 38's K338)
_COMMANDS = {"vllmServe": "vllm", "imageDefault": "vllm", "sglangServe": "sglang"}
_TP_FLAG = {"vllm": "--tensor-parallel-size", "sglang": "--tp-size"}


def _role(yf: YamlFile, role: str, sec: YNode, uri: YNode, doc: YNode) -> list[Deployment]:
    tp = sec.path("parallelism", "tensor")
    containers = sec.get("containers")
    out = []
    for c in containers.items if containers is not None and containers.is_seq else ():
        image = c.get("image")
        engine = _COMMANDS.get(text(c.get("modelCommand")) or "")
        if engine is not None and not around_engine(text(image)):
            fields = model_fields(engine, uri)
            if tp is not None and g.to_int(tp):
                fields += [Field(_TP_FLAG[engine], tp.span), Field(tp.text, tp.span)]
            ctx = LaunchContext(f"{role}/{text(c.get('name')) or ''}", text(image),
                                image.span if image is not None else None)
            per_pod = (g.to_int(tp) or 1) * (g.to_int(sec.path("parallelism", "dataLocal")) or 1)
            gpu = ManifestGpu(None, None, per_pod, tp.span if tp is not None else None)
            gpu = _accelerator(doc.path("accelerator", "type"), gpu)
            # placed at the role's container (its `modelCommand:`), not the model all roles share: each role and each
            # arm of a template that writes the role twice is a launch of its own
            at = c.get("modelCommand") or uri
            out.append(chart_deployment(yf.path, engine, fields + argv_items(c.get("args")), at, ctx, gpu))
        elif text(c.get("modelCommand")) in (None, "custom") and c.is_map:
            out.extend(_own_command(yf, c))
    return out


def _own_command(yf: YamlFile, c: YNode) -> list[Deployment]:
    """A container that runs its own `command`/`args` (`modelCommand: custom`, or none given): the chart passes
    them through, so the launch is the container's as a pod spec's container would be (SGLang under llm-d)."""
    from kvlint.launches.k8s import read_k8s

    return read_k8s(yf, c)


def _sample_application(doc: YNode) -> YNode | None:
    """The deployer chart's `sampleApplication` map when it names a model and is not turned off."""
    app = doc.get("sampleApplication")
    if app is None or not app.is_map or disabled(app) is not None:
        return None
    return app if text(app.path("model", "modelArtifactURI")) else None


# the deployer chart's own defaults (charts/llm-d/values.yaml): one replica of each role, one GPU a pod
_DEPLOYER_REPLICAS = 1
_DEPLOYER_GPUS = 1


def _deployer(yf: YamlFile, app: YNode) -> list[Deployment]:
    """One vLLM launch per role the values leave running (replicas not 0; absent, the chart's default of 1).
    A simulator preset (`basic-sim-preset`) runs llm-d's inference simulator, not the engine: no launch."""
    preset = text(app.get("baseConfigMapRefName")) or ""
    if "sim" in preset.split("-"):
        return []
    uri = app.path("model", "modelArtifactURI")
    count, span, _ = g.count_from_resources(app.get("resources"))
    gpu = ManifestGpu(None, None, count or _DEPLOYER_GPUS, span,
                      notes=() if count else ("llm-d deployer chart default: 1 GPU a pod",))
    out = []
    for role in ("prefill", "decode"):
        sec = app.get(role)
        replicas = g.to_int(sec.get("replicas")) if sec is not None and sec.is_map else None
        if (replicas if replicas is not None else _DEPLOYER_REPLICAS) <= 0:
            continue
        args = argv_items(sec.get("extraArgs")) if sec is not None and sec.is_map else []
        ctx = LaunchContext(f"sampleApplication/{role}", None, None)
        out.append(chart_deployment(yf.path, "vllm", model_fields("vllm", uri) + args, uri, ctx, gpu))
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
