"""AIBrix model deployment templates (the batch metadata service's catalogue).

Each template names an engine (`spec.engine.type`, image, `serve_args`), a model (`model_source.uri`),
an accelerator (type, count), structured parallelism (`tp`, `pp`, `dp`), snake_case `engine_args`
and a quantization block (`weight: fp8 | awq | bf16 ...`, `kv_cache: fp8_e4m3`). They come as a list
in a ConfigMap's `templates.yaml`, as a bare list file, or one `kind: ModelDeploymentTemplate`.
"""

from __future__ import annotations

from kvlint.deployment import Deployment
from kvlint.engines import get_engine
from kvlint.engines.registered import engine_names
from kvlint.launches import gpus_in_manifest as g
from kvlint.launches.build import LaunchContext, ManifestGpu
from kvlint.launches.charts.common import argv_items, chart_deployment, key_fields, model_fields, text
from kvlint.launches.env import Field
from kvlint.launches.images import shipped_engine
from kvlint.sources.yaml import YamlFile, YNode

_DTYPES = {"bf16": "bfloat16", "bfloat16": "bfloat16", "fp16": "float16", "float16": "float16", "half": "float16",
           "fp32": "float32", "float32": "float32"}


def is_template(item: YNode) -> bool:
    return item.is_map and item.path("spec", "engine") is not None and item.path("spec", "model_source") is not None


def read_list(yf: YamlFile, seq: YNode) -> list[Deployment]:
    return [d for item in seq.items if is_template(item) for d in _template(yf, item)]


def read_configmap(yf: YamlFile, doc: YNode) -> list[Deployment]:
    """A ConfigMap whose data holds a YAML list of templates (a literal block, spans kept exact)."""
    from kvlint.launches.charts.ray import embedded

    data = doc.get("data")
    out: list[Deployment] = []
    for _, _, val in data.pairs() if data is not None and data.is_map else ():
        if val.is_scalar and val.style == "|" and "engine" in val.text and "model_source" in val.text:
            for inner in embedded(yf, val).docs:
                out.extend(read_list(yf, inner) if inner.is_seq else [])
    return out


def read_object(yf: YamlFile, doc: YNode) -> list[Deployment]:
    name = doc.path("metadata", "name")
    wrapped = YNode("map", doc.span, doc.start, doc.end, items=tuple((k, v) for k, v in doc.items
                                                                      if k.is_scalar and k.text == "spec"))
    return _template(yf, wrapped, text(name) or "")


def _template(yf: YamlFile, item: YNode, name: str = "") -> list[Deployment]:
    spec = item.get("spec")
    engine_node = spec.path("engine", "type") if spec is not None else None
    image = spec.path("engine", "image") if spec is not None else None
    declared = (text(engine_node) or "").lower()
    engine = declared if declared in engine_names() else shipped_engine(text(image)) if not declared else None
    if spec is None or engine is None:
        return []  # a `mock` engine (CI templates) starts no vLLM or SGLang
    uri = spec.path("model_source", "uri")
    fields = model_fields(engine, uri) + argv_items(spec.path("engine", "serve_args"))
    fields += _parallelism(engine, spec.get("parallelism")) + _quantization(spec.get("quantization"))
    fields += key_fields(engine, spec.get("engine_args"))
    version = text(item.get("version"))
    label = name or "/".join(p for p in (text(item.get("name")), version) if p)
    return [chart_deployment(yf.path, engine, fields, uri or item, LaunchContext(label, text(image),
                             image.span if image is not None else None), _accelerator(spec.get("accelerator")))]


def _parallelism(engine: str, node: YNode | None) -> list[Field]:
    out: list[Field] = []
    for key in ("tp", "pp", "dp"):  # AIBrix's parallelism keys are the engine records' roles
        flag = get_engine(engine).flag(key)
        val = node.get(key) if node is not None and node.is_map else None
        if g.to_int(val) and val is not None:
            out += [Field(flag, val.span), Field(val.text, val.span)]
    return out


def _quantization(node: YNode | None) -> list[Field]:
    """`weight: fp8` is a quantization method, `weight: bf16` the unquantized dtype; `kv_cache` the KV dtype."""
    if node is None or not node.is_map:
        return []
    out: list[Field] = []
    weight, kv = node.get("weight"), node.get("kv_cache")
    if weight is not None and weight.is_scalar and weight.text:
        dtype = _DTYPES.get(weight.text.lower())
        out += [Field("--dtype", weight.span), Field(dtype, weight.span)] if dtype else \
            [Field("--quantization", weight.span), Field(weight.text, weight.span)]
    if kv is not None and kv.is_scalar and kv.text:
        out += [Field("--kv-cache-dtype", kv.span), Field(kv.text, kv.span)]
    return out


def _accelerator(node: YNode | None) -> ManifestGpu:
    if node is None or not node.is_map:
        return ManifestGpu()
    gtype, count = node.get("type"), node.get("count")
    name = text(gtype)
    if not name or name.lower() == "cpu":
        return ManifestGpu(notes=("accelerator: cpu",) if name else ())
    vram = text(node.get("vram_gb"))
    notes = (f"vram_gb {vram} per GPU as the template states it",) if vram else ()
    return ManifestGpu(name, gtype.span if gtype is not None else None, g.to_int(count),
                    count.span if count is not None else None, notes)
