"""RayService: the Serve config is a YAML string (serveConfigV2); Ray Serve LLM `llm_configs`
carry model_source and snake_case engine_kwargs, custom apps pass MODEL_ID-style env vars. RayLLM (Aviary, Ray
Serve LLM's predecessor) keeps one model a file: `engine_config: {type: VLLMEngine, model_id, engine_kwargs}` and a
`scaling_config` whose workers are the engine's tensor-parallel ranks (sample K316)."""

from __future__ import annotations

from kvlint.deployment import Deployment
from kvlint.launches import gpus_in_manifest as g
from kvlint.launches.build import LaunchContext, ManifestGpu
from kvlint.launches.charts.common import chart_deployment, key_fields, model_fields, text
from kvlint.launches.env import Field
from kvlint.launches.facts import ray_serve_load
from kvlint.sources.yaml import YamlFile, YNode, parse_yaml

_ENV_MODEL = ("MODEL_ID", "MODEL_NAME", "MODEL")
_ENV_FLAGS = {"TENSOR_PARALLELISM": "--tensor-parallel-size", "TENSOR_PARALLEL_SIZE": "--tensor-parallel-size",
              "MAX_MODEL_LEN": "--max-model-len", "GPU_MEMORY_UTILIZATION": "--gpu-memory-utilization"}


def read_rayservice(yf: YamlFile, doc: YNode) -> list[Deployment]:
    cfg = doc.path("spec", "serveConfigV2")
    if cfg is None or not (cfg.is_map or cfg.is_scalar and cfg.style == "|"):
        return []
    # a YAML string (a literal block), or the mapping itself (Terraform's `yamlencode({...})`: tf_manifest)
    docs = [cfg] if cfg.is_map else embedded(yf, cfg).docs
    gpu = _worker_gpu(doc)
    out: list[Deployment] = []
    for app_doc in docs:
        apps = app_doc.get("applications") if app_doc.is_map else None
        for app in apps.items if apps is not None and apps.is_seq else ():
            out.extend(_app(yf, app, gpu))
    return out


def embedded(yf: YamlFile, node: YNode) -> YamlFile:
    """Parse a literal block scalar as YAML in place: other lines blanked so spans stay exact. A block holding
    `{{ }}` (an Argo CD ApplicationSet's template) is composed as a chart template is, each expression kept as
    unresolved text (kvlint.launches.helm_chart.parse_template)."""
    lines = yf.text.split("\n")
    first, last = node.span.line, node.span.end_line
    keep = "\n".join(lines[first : last if node.span.end_col > 1 else last - 1])
    if "{{" in keep:
        from kvlint.launches.helm_chart import parse_template

        return parse_template(yf.path, "\n" * first + keep)
    return parse_yaml(yf.path, "\n" * first + keep)


# a map this chart's matches() accepts has one of these keys (helm._claims asks that first)
KEYS = ("applications", "model_loading_config", "engine_config")


def matches(doc: YNode) -> bool:
    """A Serve config file (`applications:` with `llm_configs`) or one LLMConfig file on its own."""
    apps = doc.get("applications")
    if apps is not None and apps.is_seq:
        return any(a.is_map and (a.get("import_path") is not None or a.path("args", "llm_configs") is not None)
                   for a in apps.items)
    return doc.get("model_loading_config") is not None and any(
        doc.get(k) is not None for k in ("engine_kwargs", "accelerator_type", "deployment_config")) \
        or _rayllm_engine(doc) is not None


def _rayllm_engine(doc: YNode) -> YNode | None:
    """A RayLLM model file's `engine_config` when it runs vLLM (`type: VLLMEngine`) on a named model."""
    eng = doc.get("engine_config")
    if eng is None or not eng.is_map or not (text(eng.get("type")) or "").endswith("VLLMEngine"):
        return None
    return eng if eng.get("hf_model_id") is not None or eng.get("model_id") is not None else None


def read(yf: YamlFile, doc: YNode) -> list[Deployment]:
    """`serve run config.yaml` files: the same applications as a RayService's serveConfigV2."""
    if doc.get("model_loading_config") is not None:
        return [_llm_config(yf, doc, ManifestGpu())]
    if (eng := _rayllm_engine(doc)) is not None:
        return [_rayllm(yf, doc, eng)]
    apps = doc.get("applications")
    return [d for app in apps.items if app.is_map for d in _app(yf, app, ManifestGpu())] if apps is not None else []


def _app(yf: YamlFile, app: YNode, gpu: ManifestGpu) -> list[Deployment]:
    out = [_llm_config(yf, c, gpu) for c in _llm_configs(app.get("args"))]
    env = app.path("runtime_env", "env_vars")
    model = next((env.get(k) for k in _ENV_MODEL if env is not None and env.get(k) is not None), None)
    if not out and model is not None and env is not None:
        fields = model_fields("vllm", model)
        for key, knode, val in env.pairs():
            if key in _ENV_FLAGS and val.is_scalar:
                fields += [Field(_ENV_FLAGS[key], knode.span), Field(val.text, val.span)]
        out.append(chart_deployment(yf.path, "vllm", fields, model, LaunchContext(text(app.get("name")) or ""), gpu))
    return out or _engine_args_app(yf, app)


def _engine_args_app(yf: YamlFile, app: YNode) -> list[Deployment]:
    """An application of the repository's own deployment class that builds vLLM's engine from the settings its
    config hands it (`deployments: [{name: VLLMDeployment, user_config: {engine_args: {model: ...,
    tensor_parallel_size: 1}}}]`, or the builder's `args: {engine_args: ...}`: Ray's own vLLM example, turn 37's
    K324): the map under `engine_args` is the engine's settings (kvlint.launches.structured), one launch."""
    from kvlint.launches import structured
    from kvlint.launches.charts.unknown import from_block

    block = structured.find(app)
    return [from_block(yf, app, block)] if block is not None and block.named else []


def _llm_configs(node: YNode | None, depth: int = 0) -> list[YNode]:
    """Every LLMConfig an application's `args` hold, wherever its builder takes them: `llm_configs: [...]`
    (build_openai_app), `prefill_config` / `decode_config` (the P/D builders), `llm_config`, or a custom
    builder's own key. An LLMConfig is a map with a `model_loading_config`; the search stops at one (its
    engine_kwargs are settings, not configs) and goes four levels deep."""
    if node is None or depth > 4:
        return []
    if node.is_map:
        if node.get("model_loading_config") is not None:
            return [node]
        return [c for _, _, val in node.pairs() for c in _llm_configs(val, depth + 1)]
    if node.is_seq:
        return [c for item in node.items for c in _llm_configs(item, depth + 1)]
    return []


def _llm_config(yf: YamlFile, c: YNode, gpu: ManifestGpu) -> Deployment:
    """One Ray Serve LLM `LLMConfig`: model_source (an id, or `bucket_uri` of a mirror), snake_case
    engine_kwargs, accelerator_type, and the replica's request limits as declared load."""
    loading = c.get("model_loading_config")
    src = loading.get("model_source") if loading is not None and loading.is_map else None
    if src is not None and src.is_map:
        src = src.get("bucket_uri")
    src = src if src is not None else loading.get("model_id") if loading is not None and loading.is_map else None
    fields = model_fields("vllm", src) + key_fields("vllm", c.get("engine_kwargs"))
    name = text(loading.get("model_id")) if loading is not None and loading.is_map else None
    acc = c.get("accelerator_type")
    g2 = ManifestGpu(text(acc) or gpu.product, acc.span if acc is not None else gpu.product_span, gpu.count,
                  gpu.count_span, gpu.notes)
    ctx = LaunchContext(name or "", declared_load=ray_serve_load(c.get("deployment_config")))
    return chart_deployment(yf.path, "vllm", fields, src or c, ctx, g2)


def _rayllm(yf: YamlFile, doc: YNode, eng: YNode) -> Deployment:
    """One RayLLM model: the weights `hf_model_id` names (else `model_id`, which is also the served name), the
    engine_kwargs, `max_total_tokens` as the context length, and `scaling_config.num_workers` workers, each one
    tensor-parallel rank with num_gpus_per_worker GPUs of the `accelerator_type_<gpu>` its resources ask for."""
    src = eng.get("hf_model_id") or eng.get("model_id")
    kwargs = eng.get("engine_kwargs")
    fields = model_fields("vllm", src) + key_fields("vllm", kwargs)
    total = eng.get("max_total_tokens")
    if total is not None and total.is_scalar and not (kwargs is not None and kwargs.is_map
                                                      and kwargs.get("max_model_len") is not None):
        fields += [Field("--max-model-len", total.span), Field(total.text, total.span)]
    scaling = doc.get("scaling_config")
    workers = scaling.get("num_workers") if scaling is not None and scaling.is_map else None
    if workers is not None and workers.is_scalar:
        fields += [Field("--tensor-parallel-size", workers.span), Field(workers.text, workers.span)]
    ctx = LaunchContext(text(eng.get("model_id")) or "", declared_load=ray_serve_load(doc.get("deployment_config")))
    return chart_deployment(yf.path, "vllm", fields, src, ctx, _rayllm_gpu(scaling))


def _rayllm_gpu(scaling: YNode | None) -> ManifestGpu:
    """GPUs of a RayLLM deployment: workers x num_gpus_per_worker, of the product an `accelerator_type_<gpu>`
    resource names (`accelerator_type_a10: 0.01`, Ray's custom resource for the node's GPU)."""
    if scaling is None or not scaling.is_map:
        return ManifestGpu()
    workers, per = scaling.get("num_workers"), scaling.get("num_gpus_per_worker")
    count = (g.to_int(workers) or 0) * (g.to_int(per) or 0)
    resources = scaling.get("resources_per_worker")
    product = next(((k[len("accelerator_type_"):].upper(), kn.span) for k, kn, _ in resources.pairs()
                    if k.startswith("accelerator_type_")), None) if resources is not None else None
    return ManifestGpu(product[0] if product else None, product[1] if product else None, count or None,
                       workers.span if count and workers is not None else None)


def _worker_gpu(doc: YNode) -> ManifestGpu:
    """GPUs of one Ray worker pod (the engine's TP/PP workers are placed on these)."""
    groups = doc.path("spec", "rayClusterConfig", "workerGroupSpecs")
    for grp in groups.items if groups is not None and groups.is_seq else ():
        pod = grp.path("template", "spec")
        containers = pod.get("containers") if pod is not None else None
        for c in containers.items if containers is not None and containers.is_seq else ():
            count, span, resource = g.count_from_resources(c.get("resources"))
            if count:
                product, pspan = g.product_from_pod(pod)
                if product is None and g.device_from_resource(resource):  # aws.amazon.com/neuroncore
                    product, pspan = resource, span
                pool = (f"a Ray worker pod has {count} GPU(s), a pool shared by the Serve replicas: "
                        "GPUs per engine instance are its TP x PP, placed by Ray",)
                return ManifestGpu(product, pspan, None, None, pool)
    return ManifestGpu()
