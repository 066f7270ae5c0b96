"""llmaz: a Playground claims OpenModel objects (by name) and names the backend; the model's
flavor gives the GPU type and count. Both usually sit in one file."""

from __future__ import annotations

from kvlint.deployment import Deployment
from kvlint.engines.registered import engine_names
from kvlint.launches import gpus_in_manifest as g
from kvlint.launches.build import LaunchContext, ManifestGpu
from kvlint.launches.charts.common import chart_deployment, model_fields, text
from kvlint.sources.yaml import YamlFile, YNode


def read_playground(yf: YamlFile, doc: YNode) -> list[Deployment]:
    spec = doc.get("spec")
    if spec is None or not spec.is_map:
        return []
    engine = (text(spec.path("backendRuntimeConfig", "backendName")) or "vllm").lower()
    if engine not in engine_names():  # llmaz also names backends kvlint has no engine for
        return []
    main, notes = _claimed(spec)
    model = _open_model(yf, main)
    if model is None:
        return []
    source = model.path("spec", "source", "modelHub", "modelID")
    ctx = LaunchContext(text(doc.path("metadata", "name")) or "", notes=tuple(notes))
    return [chart_deployment(yf.path, engine, model_fields(engine, source), source, ctx, _flavor(model))]


def _claimed(spec: YNode) -> tuple[str | None, list[str]]:
    single = text(spec.path("modelClaim", "modelName"))
    if single:
        return single, []
    models = spec.path("modelClaims", "models")
    main, notes = None, []
    for m in models.items if models is not None and models.is_seq else ():
        role = text(m.get("role")) or "main"
        if role == "main":
            main = text(m.get("name"))
        else:
            notes.append(f"{role} model {text(m.get('name'))} also loaded (weights, no KV pool of its own here)")
    return main, notes


def _open_model(yf: YamlFile, name: str | None) -> YNode | None:
    for d in yf.docs:
        if d.is_map and text(d.get("kind")) == "OpenModel" and text(d.path("metadata", "name")) == name:
            return d
    return None


def _flavor(model: YNode) -> ManifestGpu:
    flavors = model.path("spec", "inferenceConfig", "flavors")
    first = flavors.items[0] if flavors is not None and flavors.is_seq and flavors.items else None
    if first is None:
        return ManifestGpu()
    name = first.get("name")
    count, span, _ = g.count_from_resources(first)
    return ManifestGpu(text(name), name.span if name is not None else None, count, span,
                    ("GPU type from the llmaz flavor name",))


def read_backend_runtime(yf: YamlFile, doc: YNode) -> list[Deployment]:
    """A BackendRuntime: the engine command plus named argument sets (recommendedConfigs)."""
    from kvlint.launches.build import finish
    from kvlint.launches.env import Field
    from kvlint.launches.script import launch_in_argv

    spec = doc.get("spec")
    command = spec.get("command") if spec is not None and spec.is_map else None
    configs = spec.get("recommendedConfigs") if spec is not None and spec.is_map else None
    if command is None or not command.is_seq or configs is None or not configs.is_seq:
        return []
    out = []
    for cfg in configs.items:
        args = cfg.get("args") if cfg.is_map else None
        items = list(command.items) + (list(args.items) if args is not None and args.is_seq else [])
        found = launch_in_argv([Field(i.text, i.span) for i in items if i.is_scalar], {})
        if found is not None:
            name = f"{text(doc.path('metadata', 'name')) or ''}/{text(cfg.get('name')) or ''}"
            count, span, _ = g.count_from_resources(cfg.get("resources"))
            ctx = LaunchContext(name, notes=("llmaz recommended config: one of the backend's argument sets",))
            out.append(finish(yf.path, found, ctx, ManifestGpu(count=count, count_span=span)))
    return out
