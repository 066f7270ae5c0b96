"""KServe LLMInferenceService: spec.model.uri + role templates (decode, prefill) whose main
container carries VLLM_ADDITIONAL_ARGS; the controller writes the `vllm serve` command itself."""

from __future__ import annotations

from kvlint.deployment import Deployment, ModelAlias
from kvlint.launches import gpus_in_manifest as g
from kvlint.launches.build import LaunchContext, ManifestGpu
from kvlint.launches.charts.common import chart_deployment, model_fields, text
from kvlint.launches.env import Field
from kvlint.launches.k8s import container_env, env_flag_launch, gpu_facts, ignore_codes
from kvlint.record import replace
from kvlint.sources.yaml import YamlFile, YNode


def read_llmisvc(yf: YamlFile, doc: YNode) -> list[Deployment]:
    spec = doc.get("spec")
    if spec is None or not spec.is_map:
        return []
    uri = spec.path("model", "uri")
    name = text(doc.path("metadata", "name")) or ""
    named = spec.path("model", "name")  # `name: deepseek-ai/DeepSeek-R1-0528` beside `uri: pvc://...`
    aliases = (ModelAlias(named.text, "model-name", named.span),) if named is not None and text(named) else ()
    out: list[Deployment] = []
    if spec.get("template") is None and spec.get("prefill") is None and uri is not None and text(uri):
        # no template of its own: the controller's default configuration serves the model with vLLM (sample K359's
        # course page: `model: {uri, name}` and `servingRuntime: vllm-cuda-runtime`, nothing else)
        ctx = LaunchContext(name, ignore_codes=ignore_codes(doc), extra_aliases=aliases,
                            notes=("LLMInferenceService with no template: the controller's default vLLM configuration "
                                   "serves the model",))
        fields = model_fields("vllm", uri) + _parallelism(spec.get("parallelism"))
        return [chart_deployment(yf.path, "vllm", fields, uri, ctx, ManifestGpu())]
    for role, holder in (("decode", spec), ("prefill", spec.get("prefill"))):
        if holder is None or not holder.is_map or holder.get("template") is None:
            continue
        found = _role(yf, f"{name}/{role}", holder, uri, ignore_codes(doc), aliases)
        key = next((k for key, k, _ in spec.pairs() if key == role), None) if holder is not spec else None
        # the prefill pool is a launch of its own: placed at its own section, its model still the spec's
        out.extend(replace(d, launch_span=key.span) if key is not None else d for d in found)
    return out


def _role(yf: YamlFile, name: str, holder: YNode, uri: YNode | None, ignore: tuple[str, ...],
          aliases: tuple[ModelAlias, ...] = ()) -> list[Deployment]:
    # the API's `template` is a pod spec; a pod template's spelling (`template: {spec: {containers: ...}}`, sample
    # K359's course pages) is read the same
    containers = holder.path("template", "containers") or holder.path("template", "spec", "containers")
    items = containers.items if containers is not None and containers.is_seq else ()
    main = next((c for c in items if text(c.get("name")) == "main"), None)
    if main is None or _replaced(main):
        return []
    env = container_env(main, [])
    fields = model_fields("vllm", uri) + _parallelism(holder.get("parallelism"))
    launches = env_flag_launch(yf, main, env, [], "vllm")
    extra = list(launches[0].fields) if launches else []
    extra += _args(main)
    gpu = gpu_facts(main, [])
    if holder.get("worker") is not None and gpu.count:
        data = g.to_int(holder.path("parallelism", "data")) or 1
        local = g.to_int(holder.path("parallelism", "dataLocal")) or 1
        if data > local:
            note = f"gpu count = per pod x {data // local} pods (parallelism data/dataLocal)"
            gpu = replace(gpu, count=gpu.count * (data // local), notes=gpu.notes + (note,), grouped=True)
    ctx = LaunchContext(name, ignore_codes=ignore, extra_aliases=aliases)
    return [chart_deployment(yf.path, "vllm", fields + extra, uri, ctx, gpu)]


def _args(main: YNode) -> list[Field]:
    """The main container's `args:`, which the controller's preset hands its `vllm serve` (`... "$@"`): the engine's
    flags, each at its item (sample K414: `--data-parallel-size=8` and `--max-model-len=262144` of a DP8 x EP8 pod,
    read as TP 1 on one GPU before, a false "7 GPUs stay idle")."""
    args = main.get("args")
    if args is None or not args.is_seq:
        return []
    return [Field(item.text, item.span) for item in args.items if item.is_scalar and item.text]


def _replaced(main: YNode) -> bool:
    """Whether the template's main container runs something else in the engine's place: a stand-in image (llm-d's
    inference simulator, turn 37's K330: `image: ghcr.io/llm-d/llm-d-inference-sim`, `command:
    ["/app/llm-d-inference-sim"]`), which answers the API and loads no model, so the service starts no engine. An
    image of the engine's own, or a template that only adds settings (`env`, `resources`), is the controller's
    vLLM."""
    from kvlint.launches.images import stand_in

    return stand_in(text(main.get("image")))


# spec.parallelism keys -> the flags the controller writes (KServe's LLMInferenceService API: `tensor`,
# `pipeline`, `data` ranks in all, `dataLocal` of them per pod, `expert: true` for expert parallelism)
_PARALLELISM = (("tensor", "--tensor-parallel-size"), ("pipeline", "--pipeline-parallel-size"),
                ("data", "--data-parallel-size"), ("dataLocal", "--data-parallel-size-local"))
_PARALLELISM_SWITCHES = (("expert", "--enable-expert-parallel"),)


def _parallelism(node: YNode | None) -> list[Field]:
    """spec.parallelism as the engine's flags, each at the value it comes from."""
    out: list[Field] = []
    if node is None or not node.is_map:
        return out
    for key, flag in _PARALLELISM:
        val = node.get(key)
        if val is not None and g.to_int(val):
            out += [Field(flag, val.span), Field(val.text, val.span)]
    for key, flag in _PARALLELISM_SWITCHES:
        val = node.get(key)
        if val is not None and val.text.strip().lower() == "true":
            out.append(Field(flag, val.span))
    return out

