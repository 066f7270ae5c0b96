"""Values of an unknown chart that still say it plainly: a model key plus camelCase flag keys at
the top level (`model.id`, `tensorParallelSize`, `maxModelLen`), image, resources, nodeSelector."""

from __future__ import annotations

from kvlint.deployment import Deployment, ModelAlias
from kvlint.launches import gpus_in_manifest as g
from kvlint.launches.build import LaunchContext, ManifestGpu
from kvlint.launches.charts.common import chart_deployment, key_fields, model_fields, text
from kvlint.launches.images import shipped_engine
from kvlint.launches.keys import option_for_key, spelled_as_flag
from kvlint.sources.yaml import YamlFile, YNode

MODEL_KEYS = (("model", "id"), ("model", "name"), ("modelId",), ("modelURL",), ("model",))
NAME_KEYS = (("modelName",), ("servedModelName",), ("model", "name"), ("model", "id"), ("modelId",))


def _model(doc: YNode) -> YNode | None:
    for keys in MODEL_KEYS:
        node = doc.path(*keys)
        if node is not None and node.is_scalar and text(node):
            return node
    return None


def _flag_keys(doc: YNode) -> set[str]:
    """Top-level scalar keys in a chart's camelCase that either engine's flag table knows (`maxModelLen`,
    `memFractionStatic`): no list of keys per chart. Snake case at the top of a file with no engine image is
    an application's own settings, read by its code (tests/fixtures/launches/vllm-config/serving_config.yaml)."""
    return {k for k, _, v in doc.pairs() if v.is_scalar and spelled_as_flag(k) and any(c.isupper() for c in k)
            and (option_for_key("vllm", k) or option_for_key("sglang", k))}


def _names(doc: YNode, model: YNode | None) -> tuple[ModelAlias, ...]:
    """Keys that name the model beside a model path (`modelName: Qwen/Qwen3-8B` beside `modelURL: /data/q`):
    evidence the resolve stage weighs when the path itself names nothing, or names another model."""
    out = []
    for keys in NAME_KEYS:
        node = doc.path(*keys)
        if node is not None and node is not model and node.is_scalar and text(node):
            out.append(ModelAlias(node.text, "key:" + ".".join(keys), node.span))
    return tuple(out)


def matches(doc: YNode) -> bool:
    """Top-level model and flag keys, no engine image: with one, the unknown-chart walk reads the same keys
    and more (argument lists, settings at any depth), so this adapter leaves the file to it."""
    if _model(doc) is None or not _flag_keys(doc):
        return False
    from kvlint.launches.charts.unknown import engine_image

    return engine_image(doc) is None


def read(yf: YamlFile, doc: YNode) -> list[Deployment]:
    repo, tag = text(doc.path("image", "repository")), text(doc.path("image", "tag"))
    image = f"{repo}:{tag}" if repo and tag else repo
    engine = shipped_engine(image) or "vllm"  # production-stack-like values default to vLLM
    scalars = _flag_keys(doc)
    flat = YNode("map", doc.span, doc.start, doc.end,
                 items=tuple((kn, v) for kn, v in doc.items if kn.is_scalar and kn.text in scalars))
    fields = model_fields(engine, _model(doc)) + key_fields(engine, flat)
    count, span, _ = g.count_from_resources(doc.get("resources"))
    product, pspan = g.product_from_pod(doc)
    ctx = LaunchContext(image=image, notes=("chart not recognised: read from top-level model and flag-shaped keys",),
                        extra_aliases=_names(doc, _model(doc)))
    return [chart_deployment(yf.path, engine, fields, _model(doc), ctx, ManifestGpu(product, pspan, count, span))]
