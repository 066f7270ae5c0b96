"""RayService: the Serve config is a YAML string (serveConfigV2); Ray Serve LLM `llm_configs`
carry model_source and snake_case engine_kwargs, custom apps pass MODEL_ID-style env vars."""

from __future__ import annotations

from kvlint.deployment import Deployment
from kvlint.launches import gpus_in_manifest as g
from kvlint.launches.build import Context, GpuFacts
from kvlint.launches.charts.common import chart_deployment, key_fields, model_fields, text
from kvlint.launches.env import Field
from kvlint.sources.yaml import YamlFile, YNode, parse_yaml

_ENV_MODEL = ("MODEL_ID", "MODEL_NAME", "MODEL")
_ENV_FLAGS = {"TENSOR_PARALLELISM": "--tensor-parallel-size", "TENSOR_PARALLEL_SIZE": "--tensor-parallel-size", "MAX_MODEL_LEN": "--max-model-len", "GPU_MEMORY_UTILIZATION": "--gpu-memory-utilization"}


def read_rayservice(yf: YamlFile, doc: YNode) -> list[Deployment]:
    cfg = doc.path("spec", "serveConfigV2")
    if cfg is None or not cfg.is_scalar or cfg.style != "|":
        return []
    inner = embedded(yf, cfg)
    gpu = _worker_gpu(doc)
    out: list[Deployment] = []
    for app_doc in inner.docs:
        apps = app_doc.get("applications") if app_doc.is_map else None
        for app in apps.items if apps is not None and apps.is_seq else ():
            out.extend(_app(yf, app, gpu))
    return out


def embedded(yf: YamlFile, node: YNode) -> YamlFile:
    """Parse a literal block scalar as YAML in place: other lines blanked so spans stay exact."""
    lines = yf.text.split("\n")
    first, last = node.span.line, node.span.end_line
    keep = "\n".join(lines[first : last if node.span.end_col > 1 else last - 1])
    return parse_yaml(yf.path, "\n" * first + keep)


def _app(yf: YamlFile, app: YNode, gpu: GpuFacts) -> list[Deployment]:
    configs = app.path("args", "llm_configs")
    out = []
    for c in configs.items if configs is not None and configs.is_seq else ():
        if c.is_map:
            src = c.path("model_loading_config", "model_source") or c.path("model_loading_config", "model_id")
            fields = model_fields("vllm", src) + key_fields("vllm", c.get("engine_kwargs"))
            name = text(c.path("model_loading_config", "model_id")) or ""
            acc = c.get("accelerator_type")
            g2 = GpuFacts(text(acc) or gpu.product, acc.span if acc is not None else gpu.product_span, gpu.count, gpu.count_span, gpu.notes)
            out.append(chart_deployment(yf.path, "vllm", fields, src or c, Context(name), g2))
    env = app.path("runtime_env", "env_vars")
    model = next((env.get(k) for k in _ENV_MODEL if env is not None and env.get(k) is not None), None)
    if not out and model is not None:
        fields = model_fields("vllm", model)
        for key, knode, val in env.pairs():
            if key in _ENV_FLAGS and val.is_scalar:
                fields += [Field(_ENV_FLAGS[key], knode.span), Field(val.text, val.span)]
        out.append(chart_deployment(yf.path, "vllm", fields, model, Context(text(app.get("name")) or ""), gpu))
    return out


def _worker_gpu(doc: YNode) -> GpuFacts:
    """GPUs of one Ray worker pod (the engine's TP/PP workers are placed on these)."""
    groups = doc.path("spec", "rayClusterConfig", "workerGroupSpecs")
    for grp in groups.items if groups is not None and groups.is_seq else ():
        pod = grp.path("template", "spec")
        containers = pod.get("containers") if pod is not None else None
        for c in containers.items if containers is not None and containers.is_seq else ():
            count, span, _ = g.count_from_resources(c.get("resources"))
            if count:
                product, pspan = g.product_from_pod(pod)
                pool = (f"a Ray worker pod has {count} GPU(s), a pool shared by the Serve replicas: "
                        "GPUs per engine instance are its TP x PP, placed by Ray",)
                return GpuFacts(product, pspan, None, None, pool)
    return GpuFacts()
