"""Values of a chart kvlint has no adapter for, when its image is an engine image: never silent.

The walk looks for the keys charts use for the model (`modelName`, `model`, `model.name`,
`modelId`, ...) and for argument lists (`args`, `extraArgs`, `vllmArgs`, ...), at the top level and
one map below it (`vllm:`, `engine:`, `server:`), plus top-level keys that are exactly engine
flags. With a model that is the launch (noted as assembled); without one kvlint says what it saw:
a KV008 info finding on the image, "engine image found, chart layout unknown".
"""

from __future__ import annotations

import itertools
import os
import re
from collections.abc import Callable, Iterator

from kvlint.deployment import CHART_KEY, Deployment
from kvlint.engines.registered import engine_names
from kvlint.findings import Finding, Severity
from kvlint.launches import facts, structured
from kvlint.launches import gpus_in_manifest as g
from kvlint.launches.build import LaunchContext, ManifestGpu
from kvlint.launches.byflags import SERVER_DESTS
from kvlint.launches.charts.common import (
    argv_items,
    chart_deployment,
    disabled,
    key_fields,
    model_fields,
    model_flag,
    shell_words,
    text,
)
from kvlint.launches.env import Field
from kvlint.launches.images import around_engine, named_engine, shipped_engine
from kvlint.launches.keys import fields_from_pairs
from kvlint.lazyre import lazy
from kvlint.record import replace
from kvlint.sources.yaml import YamlFile, YNode
from kvlint.span import Span

KV008 = ("KV008", "unknown-launch-layout")
MODEL_KEYS = (("modelName",), ("model", "name"), ("model", "id"), ("model", "modelId"), ("model", "repo"),
              ("model", "path"), ("modelId",), ("model_id",), ("modelPath",), ("model_path",), ("modelURL",),
              ("hfModel",), ("huggingfaceModel",), ("LLM_MODEL_ID",), ("MODEL_ID",), ("model",), ("servedModel",),
              ("modelReference",), ("model", "hfId"), ("model", "hfModel"), ("model", "huggingface"), ("model", "hf"))
ARG_KEYS = ("args", "extraArgs", "extra_args", "extraCmdArgs", "vllmArgs", "engineArgs", "serverArgs",
            "extraArguments")
_NOT_FLAGS = frozenset({"port", "host", "model", "image", "name", "resources", "args", "extraArgs"})
_MAX_NODES = 5000  # bounded walk for the image key


def engine_image(doc: YNode,
                 names: Callable[[str | None], str | None] = shipped_engine) -> tuple[str, str, Span] | None:
    """(engine, image as written, span) of the first `image` key naming an engine image (by `names`)."""
    return next(engine_images(doc, names), None)


def engine_images(doc: YNode,
                  names: Callable[[str | None], str | None] = shipped_engine) -> Iterator[tuple[str, str, Span]]:
    """(engine, image as written, span) of each `image` key naming an engine image (by `names`), the walk's order."""
    stack, seen = [doc], 0
    while stack and seen < _MAX_NODES:
        node = stack.pop()
        seen += 1
        for key, _, val in node.pairs() if node.is_map else ():
            # `image:`, `imageName:`, a key ending in it (`defaultServingImage:`), or a map of the chart's own naming
            # that holds an image's repository (sample K131: `images: {vllmRuntime: {repository: ..., tag: "0.3"}}`)
            if key == "image" or (key[:1] in "iIcC" and key.lower().replace("_", "") in _IMAGE_KEYS) \
                    or key.lower().endswith("image") or (val.is_map and val.get("repository") is not None):
                found = _image(val, node if key != "image" else None)
                if found is not None and names(found[0]) and not around_engine(found[0]):  # `routerImage:` no engine
                    yield names(found[0]) or "vllm", found[0], found[1]
            if not val.is_scalar:
                stack.append(val)
        if node.is_seq:
            stack.extend(i for i in reversed(node.items) if not i.is_scalar)


# a values file's image under another key (`imageName: docker.io/vllm/vllm-openai` beside `imageVersion: latest`)
_IMAGE_KEYS = frozenset({"imagename", "imagerepository", "imagerepo", "containerimage", "imageuri"})
_TAG_KEYS = ("imageVersion", "imageTag", "image_tag", "image_version", "tag")


def _tag_beside(holder: YNode) -> str | None:
    return next((t for k in _TAG_KEYS if (t := text(holder.get(k)))), None)


def _image(val: YNode, holder: YNode | None = None) -> tuple[str, Span] | None:
    """The image a key names; `holder`: the map holding an `imageName:`, whose `imageVersion:` is its tag."""
    if val.is_scalar and val.text:
        last = val.text.rsplit("/", 1)[-1]
        tag = _tag_beside(holder) if holder is not None and ":" not in last and "@" not in last else None
        return (f"{val.text}:{tag}" if tag else val.text), val.span
    if not val.is_map:
        return None
    for key in ("repository", "name", "image"):
        repo = val.get(key)
        if text(repo) and repo is not None:
            tag = text(val.get("tag"))
            registry = text(val.get("registry"))
            full = f"{registry}/{repo.text}" if registry and not repo.text.startswith(registry) else repo.text
            return (f"{full}:{tag}" if tag and ":" not in repo.text.rsplit("/", 1)[-1] else full), repo.span
    # an image map of the chart's own spelling (`image: {version: "vllm/vllm-openai:v0.6.4", pullPolicy: ...}`): the
    # value that is a whole engine image reference
    return next(((v.text, v.span) for _, _, v in val.pairs() if v.is_scalar and "/" in v.text and
                 shipped_engine(v.text)), None)


def read(yf: YamlFile, doc: YNode) -> tuple[list[Deployment], list[Finding]]:
    """The launch a values file of an unknown chart makes: its engine image and the mapping that holds a model
    key and engine-flag keys at any depth (kvlint.launches.structured); without an image, only such a mapping
    that names its engine (`vllm:`, `engine: sglang`) or holds two flag-spelled keys."""
    found = engine_image(doc)
    block = structured.find(doc, found[0] if found else None)
    if found is None and block is None and (named := chart_engine(yf.path)) is not None:
        block = structured.find(doc, named)
        if block is None and _values_gpus(doc, doc.get("resources"))[0]:
            # `model: {id: org/m}` beside a GPU request in the values of a chart named for the engine (sample K250:
            # `k8s/apps/vllm/values.yaml`, its flags in the template): the chart runs the engine on that model
            block = structured.model_block(doc, named)
    if found is None and block is None and _values_gpus(doc, doc.get("resources"))[0] \
            and (by_keys := structured.keyed_engine(doc)) is not None:
        # values that ask for GPUs (`gpu: {type: q6000, count: 2}`) beside a map of a model and keys only one
        # engine's flags are spelled like (`gpu_memory_utilization`, `max_num_seqs`; sample K268's per-model values
        # of a chart whose template is not in the tree): a deployment of that engine, as a chart named for it is
        block = structured.find(doc, by_keys)
    elif found is None and block is None and "gpu" in yf.text.lower() \
            and (by_keys := structured.keyed_engine(doc)) is not None \
            and (own := structured.find(doc, by_keys)) is not None and (_asks_gpus(own.holder) or _serves(own)):
        # ... or the map itself asks for GPUs (`models: [{qwen: {model: M, gpus: [0], tensor-parallel-size: 1,
        # gpu-memory-utilization: 0.9}}]`, sample K365's launcher tool's catalogue of models it starts), or sets the
        # server's own front end (K452's generator config: `model_name`, `tensor_parallel_size`, `tool_call_parser`)
        block = own
    if found is None and block is None and (custom := engine_image(doc, named_engine)) is not None \
            and (own := structured.find(doc, custom[0])) is not None and own.score >= 2:
        # a project's build whose name holds the engine's (`ghcr.io/anemll/dspark-vllm-gx10`, sample K541) beside a
        # model and keys spelled as that engine's flags (`serving: {maxModelLen: ..., kvCacheDtype: ...}`): the
        # chart runs that engine with them, as with its published image
        found, block = custom, own
    holders = [doc] + [v for k, _, v in doc.pairs() if v.is_map and k != "image"]
    if block is None and (recipe := _role_launches(yf, doc, found)):
        return recipe, []  # the engine's settings in role maps with no model of their own (`sglang_config: {...}`)
    if found is None:
        by_env = _env_configured(yf, doc, holders) if block is None else None
        if block is not None:  # the block, and any sibling block with its own model (a prefill and a decode role)
            blocks = (structured.find_all(doc, None) or [block]) + structured.cousins(doc, block)
            return [from_block(yf, doc, b) for b in blocks], []
        deps = by_env or _engine_named_values(yf, doc) or _flags_list(yf, doc)
        return deps, ([] if deps else _enabled_subchart(yf.path, doc) or _engine_chosen(yf, doc)
                      or _named_chart_gpus(yf, doc))
    # other sections are looked for only where the first image sits in a section naming its own model
    sections = _image_sections(doc) if block is None and _model_section(_maps_to(doc, found[2])) is not None else []
    if len(sections) > 1:  # `vllm: {phi: {image: ..., model: A}, large: {image: ..., model: B}}`: one launch each
        return [d for each in sections for d in _image_launch(yf, doc, each, None)[0]], []
    return _image_launch(yf, doc, found, block)


def _image_sections(doc: YNode) -> list[tuple[str, str, Span]]:
    """The engine images of the values that sit in sections of their own, each naming its model (sample K503:
    `vllm: {phi: {image: {repository: vllm/vllm-openai}, model: M1}, large: {image: ..., model: M2}}`): a chart
    that runs one engine per section; [] when fewer than two sections do (one image, or images sharing a model)."""
    found = sorted(itertools.islice(engine_images(doc), _MAX_SECTIONS), key=lambda f: (f[2].line, f[2].col))
    owners = [_model_section(_maps_to(doc, f[2])) for f in found]
    if len(found) < 2 or any(o is None for o in owners) or len({id(o) for o in owners}) != len(owners):
        return []
    return found


_MAX_SECTIONS = 64


def _image_launch(yf: YamlFile, doc: YNode, found: tuple[str, str, Span],
                  block: structured.Block | None) -> tuple[list[Deployment], list[Finding]]:
    """The launch the values make of one engine image: its roles' argument lists, a catalogue's items, else the
    model of the image's own section or of the values, with the engine-flag keys and argument lists."""
    holders = [doc] + [v for k, _, v in doc.pairs() if v.is_map and k != "image"]
    engine, image, span = found
    roles = _flags_list(yf, doc, (image, span))
    if len(roles) > 1:  # the roles' argument lists (`prefillExtraArgs:` / `decodeExtraArgs:`): one launch each
        return roles, []
    listed = structured.find_all(doc, engine) if block is not None else []
    if len(listed) > 1:  # a catalogue of models, one deployment each: each item's own image, else the shared one
        return [from_block(yf, doc, b, _own_image(doc, b, (image, span))) for b in listed], []
    chain = _maps_to(doc, span) if block is None else []
    section = _model_section(chain)
    if section is not None:  # the image's own section names its model (`contentSafety: {modelPath: ..., runtime:
        holders = [section] + [v for k, _, v in section.pairs() if v.is_map and k != "image"]  # {image: ...}}`)
    model_path, model = (block.model_path, block.model) if block is not None else _model(holders)
    lists = [h.get(k) for h in holders for k in ARG_KEYS]
    args = next((argv_items(n, yf) for n in lists if n is not None and n.is_seq), [])
    if model is None and _positional_model(engine, args):  # `model: {args: [org/name, --flags ...]}`
        return [_from_args(yf, doc, engine, args, (image, span))], []
    if model is None and not any(f.text.split("=", 1)[0] in ("--model", "--model-path") for f in args):
        by_env = _env_configured(yf, doc, holders)
        if by_env or roles or not _values_gpus(doc, doc.get("resources"))[0]:
            # the one argument list of any name the image is handed (`serve_args: [/models, --flags ...]`), an engine
            # config file the values embed, else said
            inline = [] if by_env or roles else _embedded_config(yf, doc, engine, (image, span))
            return (by_env or roles or inline, []) if by_env or roles or inline \
                else ([], [_kv008(yf.path, engine, image, span)])
        # the engine's image on GPUs with no model here: the chart's default or the install names it (rule 8)
        name = "<the chart's model>"
        model_path, model = ("image",), None
        args = [Field(model_flag(engine), span), Field(name, span, False, (name,)), *args]
    fields = _model_fields(engine, model, model_path) + _flag_fields(engine, doc, block) + args
    own = section if section is not None and section.get("resources") is not None else doc  # the section's GPUs
    count, cspan = _values_gpus(own, own.get("resources"))
    product, pspan = g.product_from_pod(block.holder) if block is not None else (None, None)
    if product is None:  # the block's own node selection (a catalogue entry's) before the values' shared one
        product, pspan = g.product_from_pod(doc)
    where = ".".join(model_path) if model_path else "the argument list"
    note = f"chart not recognised: launch assembled from {where}, the {engine} image and engine-flag keys"
    if model is not None and not text(model):
        note += f"; {where} is empty here: the install names the model"
    off = _switched_off(doc, block) or next((o for m in chain if (o := disabled(m)) is not None), None)
    ctx = LaunchContext(image=image, image_span=span, notes=(note,), node_labels=facts.node_labels(doc),
                        disabled=off)
    gpu = _per_pod(doc, ManifestGpu(product, pspan, count, cspan, options=facts.gpu_options(doc, count)))
    at = span if model is not None and not text(model) else model or doc  # an empty model: the image launches
    return [_deployment(yf.path, engine, fields, at, ctx, gpu, tp_open=not _keys_tp(engine, block))], []


def _maps_to(doc: YNode, at: Span) -> list[YNode]:
    """The maps from the document down to the one holding the value at `at` (bounded as the image walk is)."""
    chain: list[YNode] = []
    node: YNode | None = doc
    for _ in range(_MAX_DEPTH):
        if node is None or not node.is_map:
            break
        chain.append(node)
        node = next((v for _, _, v in node.pairs() if not v.is_scalar and v.span.holds(at)), None)
        while node is not None and node.is_seq:
            node = next((i for i in node.items if not i.is_scalar and i.span.holds(at)), None)
    return chain


_MAX_DEPTH = 32


def _model_section(chain: list[YNode]) -> YNode | None:
    """The nearest map above an engine image nested in the values (not the document itself) that names a model:
    the section the image belongs to (sample K282: `nemoGuardrails.contentSafety: {modelPath: ..., runtime:
    {image: vllm-cuda-rhel9}}`), whose model is the launch's, never a client's elsewhere (`secrets.LLM_MODEL`)."""
    for node in reversed(chain[1:]):
        if _model([node])[1] is not None:
            return node
    return None


def _role_launches(yf: YamlFile, doc: YNode, found: tuple[str, str, Span] | None) -> list[Deployment]:
    """One launch per role map of the engine's settings (kvlint.launches.structured.roles) in a recipe that names
    the engine's image as its `container:` (NVIDIA srt-slurm's `model: {path: dsfp8, container:
    lmsysorg/sglang:v0.5.8-cu130}`, sample K157), on the document's first model key, else a placeholder: the
    recipe's tool assembles each command. A `container:` beside settings and no role maps (a benchmark's
    bookkeeping, sample K88) is no launch."""
    shown = found or _container_image(doc) or _recipe_container(doc)
    if shown is None:
        return []
    engine, image = shown[0], (shown[1], shown[2])
    roles = structured.roles(doc, engine)
    if not roles:
        return []
    named = structured.first_model(doc)
    model = _model_fields(engine, named[1], named[0]) if named is not None else \
        [Field(model_flag(engine), image[1]), Field("<the recipe's model>", image[1], False, ("<the recipe's model>",))]
    product, pspan = g.product_from_pod(doc)
    out = []
    for role in roles:
        where = role.key.text
        note = (f"read from the {engine} settings under `{where}:` ({len(role.pairs)} engine-flag keys) and the model "
                f"at {'.'.join(named[0]) if named is not None else 'no key (a placeholder)'}: one launch per role")
        ctx = LaunchContext(image=image[0], image_span=image[1], notes=(note,), node_labels=facts.node_labels(doc))
        flags = [f for key, knode, val, option in role.pairs
                 for f in fields_from_pairs([(key, knode, val)], _fixed(option), rendered=True, engine=engine,
                                            unknown_reader=True)]
        out.append(_deployment(yf.path, engine, model + flags, role.key.span, ctx,
                               ManifestGpu(product, pspan, None, None)))
    return out


def _recipe_container(doc: YNode) -> tuple[str, str, Span] | None:
    """(engine, container, span) of a recipe that runs a container of its own build (`model: {path: ..., container:
    .../pytorch+25+12+py3.sqsh}`, sample K513's srt-slurm recipes for vLLM) and keeps the engine's settings under a
    key spelled for that engine's configuration (`backend: {vllm_config: {aggregated: {...}}}`): the key names the
    engine where the image does not; a `vllm:` map of a training config (an in-process engine) is no such key."""
    container = next((node for _, _, val in doc.pairs() if val.is_map and (node := val.get("container")) is not None
                      and node.is_scalar and node.text), None)
    if container is None:
        return None
    queue, k = [doc], 0
    while k < len(queue) and k < _MAX_NODES:
        node = queue[k]
        k += 1
        for key, _, val in node.pairs():
            if val.is_map:
                engine = key[:-len("_config")] if key.endswith("_config") else None
                if engine in engine_names():
                    return engine, container.text, container.span
                queue.append(val)
    return None


def _container_image(doc: YNode) -> tuple[str, str, Span] | None:
    """(engine, image, span) of a top-level map's `container:` naming one of the engine's published images."""
    for _, _, val in doc.pairs():
        node = val.get("container") if val.is_map else None
        if node is not None and node.is_scalar and (engine := shipped_engine(node.text)) is not None \
                and not around_engine(node.text):
            return engine, node.text, node.span
    return None


def _keys_tp(engine: str, block: structured.Block | None) -> bool:
    """Whether the values hold a key for TP, set or left empty (castai's `tensorParallelSize:`: the engine's default
    unless the install sets it)."""
    from kvlint.engines import get_engine

    tp = get_engine(engine).setting("tp")
    table = get_engine(engine).flag_table()
    return block is not None and any((spec := table.by_option.get(option)) is not None and spec.dest == tp
                                     for *_, option in block.pairs)


def _deployment(path: str, engine: str, fields: list[Field], launch: YNode | Span | None, ctx: LaunchContext,
                gpu: ManifestGpu, tp_open: bool = False) -> Deployment:
    """A launch of a chart or operator kvlint has no adapter for: with several GPUs and no TP written in the values,
    the template may derive TP from the GPU count (`--tensor-parallel-size={{ .Values.gpu.count }}` is common), so it
    is an open input bounded by that count, not the engine's default of 1; one GPU is TP 1. `tp_open`: the values
    state neither GPUs nor a TP key (sample K118: a model and an image only), so the template sets both."""
    from kvlint.launches.build import parallelism_left_to

    dep = chart_deployment(path, engine, fields, launch, ctx, gpu)
    if dep.gpu_count == 1 or (dep.gpu_count is None and not tp_open):
        return dep
    # no GPU count in the values either (sample K118: `servedModel: meta-llama/Llama-3.1-405B-Instruct-FP8`, no
    # resources): the template sets both, so TP is as open as the GPUs it requests
    return parallelism_left_to(dep, "the chart's template", dep.gpu_count_span or dep.launch_span, roles=("tp",))


def read_object(yf: YamlFile, doc: YNode) -> list[Deployment]:
    """A Kubernetes object of a kind kvlint has no reader for, whose settings are keys at some depth: the
    engine from its image, else its kind or API group (`kind: VllmServer`), else the settings' own path."""
    found = engine_image(doc)
    named = " ".join(text(doc.get(k)) or "" for k in ("kind", "apiVersion")).lower()
    engine = found[0] if found else next((w for w in engine_names() if w in named), None)
    block = structured.find(doc, engine)
    if block is None:
        return _engine_args_object(yf, doc, found[1:] if found else None) or \
            _engine_named_object(yf, doc, found[1:] if found else None, found[0] if found else None) or \
            _engine_block_models(yf, doc, found[1:] if found else None)
    return [from_block(yf, doc, block, found[1:] if found else None)]


_ENGINE_KEYS = ("engine", "backend", "runtime", "framework", "backendName", "inferenceEngine", "servingEngine")
_ENTRY_KEYS = ("uri", "name", "id", "path", "repo")


def _engine_named_object(yf: YamlFile, doc: YNode, image: tuple[str, Span] | None,
                         imaged: str | None = None) -> list[Deployment]:
    """An operator's resource that names its engine as a value (`spec.engine.name: vllm`, `spec.backend: sglang`), or
    runs the engine's image (`spec.image: vllm/vllm-openai:latest`, sample K217's `LLMService`: `imaged`), and a model
    (a model key, or the `uri` of a `models:` entry) and no engine settings: the operator starts that engine on that
    model, every other setting its own (sample K64's prem-operator `AIDeployment`)."""
    spec = doc.get("spec")
    if spec is None or not spec.is_map:
        return []
    named_engine = _engine_value_of(spec)
    engine = named_engine or imaged
    model = (structured.first_model(spec) or _models_entry(spec)) if engine else None
    if engine is None or model is None:
        return []
    path, node = model
    count, cspan = _object_gpus(spec)
    named = f"names {engine} as its engine" if named_engine else f"runs {engine}'s image {image[0] if image else ''}"
    note = (f"the object {named} and {'.'.join(path)} as its model: its operator starts the engine, with settings of "
            "its own this file does not show")
    ctx = LaunchContext(image=image[0] if image else None, image_span=image[1] if image else None, notes=(note,),
                        node_labels=facts.node_labels(doc))
    fields = _model_fields(engine, node, path)
    # the operator's own settings decide the parallelism too: open, bounded by the GPUs asked for when any are
    roles = _role_maps(spec)
    if roles:  # a disaggregated deployment (`scaling: {prefill: {...}, decode: {...}}`): two engines, two pools
        return [_deployment(yf.path, engine, fields, node, replace(ctx, name=role, notes=(*ctx.notes, f"its {role} "
                            "role (prefill and decode engines keep pools of their own)")),
                            ManifestGpu(None, None, *_object_gpus(held)), tp_open=True) for role, held in roles]
    return [_deployment(yf.path, engine, fields, node, ctx, ManifestGpu(None, None, count, cspan), tp_open=True)]


def _role_maps(spec: YNode) -> list[tuple[str, YNode]]:
    """The prefill and decode maps of an operator's disaggregated deployment (`scaling: {prefill: {replicas: 2, gpu:
    {count: 4}}, decode: {...}}`, sample K322), in the spec or one map below it; [] unless both are there."""
    for holder in [spec] + [v for _, _, v in spec.pairs() if v.is_map]:
        found = [(role, node) for role in _ROLE_PREFIXES if (node := holder.get(role)) is not None and node.is_map]
        if len(found) == 2:
            return found
    return []


def _engine_block_models(yf: YamlFile, doc: YNode, image: tuple[str, Span] | None) -> list[Deployment]:
    """An operator's resource whose spec holds a block named for an engine (`spec.vllm: {enabled: true, models:
    [org/a, org/b]}`, sample K225's LMDeployment) that lists the models it serves: the operator starts the engine on
    each (one launch per model, every other setting its own); a block switched off (`enabled: false`) starts none."""
    spec = doc.get("spec")
    if spec is None or not spec.is_map:
        return []
    for key, _, block in spec.pairs():
        engine = key.lower()
        if engine not in engine_names() or not block.is_map or text(block.get("enabled")) in ("false", "False"):
            continue
        models = block.get("models")
        items = [m for m in models.items if m.is_scalar and text(m)] if models is not None and models.is_seq else []
        count, cspan, _ = g.count_from_resources(block) if block.get("resources") is not None else \
            g.count_from_resources(spec)
        note = (f"the object's `{key}` block lists the models its operator serves with {engine}: a launch each, "
                "with settings of the operator's own this file does not show")
        ctx = LaunchContext(image=image[0] if image else None, image_span=image[1] if image else None, notes=(note,),
                            node_labels=facts.node_labels(doc))
        return [_deployment(yf.path, engine, _model_fields(engine, m, ("spec", key, "models", str(k))), m, ctx,
                            ManifestGpu(None, None, count, cspan)) for k, m in enumerate(items)]
    return []


def _engine_value_of(spec: YNode) -> str | None:
    """The engine a spec's engine key names: `engine: vllm`, or `engine: {name: vllm}` / `{type: vllm}` (sample
    K322's AI Runway `ModelDeployment`), one level down too."""
    for holder in [spec] + [v for _, _, v in spec.pairs() if v.is_map]:
        for key in _ENGINE_KEYS:
            val = holder.get(key)
            words = [text(val.get("name")), text(val.get("type"))] if val is not None and val.is_map else [text(val)]
            word = next((w.strip().lower() for w in words if w and w.strip().lower() in engine_names()), None)
            if word:
                return word
    return None


def _object_gpus(spec: YNode) -> tuple[int | None, Span | None]:
    """GPUs an operator's resource asks for: a Kubernetes `resources` map (limits, requests), else a count the
    operator reads itself (`resources: {gpu: {count: 1}}`, `gpu: {count: 2}`)."""
    count, cspan, _ = g.count_from_resources(spec.get("resources")) if spec.get("resources") is not None else \
        g.count_from_resources(spec)
    if count is not None:
        return count, cspan
    for node in (spec.path("resources", "gpu", "count"), spec.path("gpu", "count"), spec.path("resources", "gpus")):
        n = g.to_int(node) if node is not None and node.is_scalar else None
        if n is not None and node is not None:
            return n, node.span
    return None, None


def _models_entry(spec: YNode) -> tuple[tuple[str, ...], YNode] | None:
    """The first entry of a `models:` list that names its model by `uri`, `name`, `id`, `path` or `repo`."""
    models = spec.get("models")
    first = models.items[0] if models is not None and models.is_seq and models.items else None
    for key in _ENTRY_KEYS if first is not None and first.is_map else ():
        val = first.get(key) if first is not None else None
        if val is not None and val.is_scalar and text(val):
            return ("models", "0", key), val
    return None


def _engine_args_object(yf: YamlFile, doc: YNode, image: tuple[str, Span] | None) -> list[Deployment]:
    """An operator's resource whose engine arguments are a list under a key named for the engine (`vllmArgs:`,
    `sglang_args:`), its model a model key elsewhere in the object (`spec.model.name`): the operator starts that
    engine with the model and those arguments (sample J's nebari `LLMModel`, read after its measurement)."""
    found = _engine_args(doc)
    model = structured.first_model(doc)
    if found is None or model is None:
        return []
    engine, key, args = found
    path, node = model
    fields = _model_fields(engine, node, path) + argv_items(args, yf)
    count, cspan, _ = g.count_from_resources(doc.get("spec") or doc)
    note = f"read from the object's model key {'.'.join(path)} and its {engine} arguments under {key}"
    ctx = LaunchContext(image=image[0] if image else None, image_span=image[1] if image else None, notes=(note,),
                        node_labels=facts.node_labels(doc))
    return [_deployment(yf.path, engine, fields, node, ctx, ManifestGpu(None, None, count, cspan))]


def _engine_args(doc: YNode) -> tuple[str, str, YNode] | None:
    """(engine, key, list) for the first list of flags under a key that names an engine and arguments."""
    stack, seen = [doc], 0
    while stack and seen < _MAX_NODES:
        node = stack.pop()
        seen += 1
        for key, _, val in node.pairs() if node.is_map else ():
            low = key.lower()
            engine = next((e for e in engine_names() if e in low), None)
            if engine and "arg" in low and val.is_seq and any(i.is_scalar and i.text.startswith("--")
                                                               for i in val.items):
                return engine, key, val
            if val.is_map:
                stack.append(val)
    return None


def _flags_list(yf: YamlFile, doc: YNode, image: tuple[str, Span] | None = None) -> list[Deployment]:
    """A list of flags under an arguments key of any name (`recipe_container_command_args: [--model, /models,
    --tensor-parallel-size, 2, ...]`, a platform's recipe) with a model flag and flags only one engine takes
    (kvlint.launches.infer): the arguments the platform hands that engine's image, with the document's GPUs;
    `image`: the engine image the values name, when they do. When the map that holds the list is an item of a
    list (`deployments: [{engine: {image: ..., arguments: [...]}}, ...]`, sample K273's benchmark matrix), every
    item that holds such a list is its own launch, each with the image it names."""
    if "--model" not in yf.text and image is None:  # a model flag, or a positional model beside an engine image:
        return []  # one scan of the text decides most files
    for node, key, val, item in _argument_values(doc, into_lists=True):
        if (found := _listed_launches(yf, doc, node, key, val, image)):
            return found if item is None else _items_launches(yf, doc, item, image)
    return []


def _argument_values(root: YNode, into_lists: bool) -> Iterator[tuple[YNode, str, YNode, YNode | None]]:
    """(map, key, value, the list item it is in) for each value below `root` that is no map: maps are walked, and the
    maps a list holds when `into_lists` (bounded as the image walk is)."""
    stack: list[tuple[YNode, YNode | None]] = [(root, None)]
    seen = 0
    while stack and seen < _MAX_NODES:
        node, item = stack.pop()
        seen += 1
        for key, _, val in node.pairs() if node.is_map else ():
            if val.is_map:
                stack.append((val, item))
            elif into_lists and val.is_seq and any(i.is_map for i in val.items):
                stack.extend((i, i) for i in reversed(val.items) if i.is_map)
            else:
                yield node, key, val, item


def _listed_launches(yf: YamlFile, doc: YNode, node: YNode, key: str, val: YNode,
                     image: tuple[str, Span] | None) -> list[Deployment]:
    """The launches an arguments value under `key` of `node` makes (one per role, kvlint.launches.charts.unknown
    _roles), or none: it must be flags, hold a model flag and be one engine's by its flags."""
    from kvlint.launches.byflags import model_flag_in
    from kvlint.launches.infer import engine_from_flags

    if not _ARGS_KEY.search(key):
        return []
    args = _flag_words(yf, val) if _flags_shaped(val) else []
    args = args or (_model_first_words(yf, val) if image is not None else [])
    if not args:
        return []
    engine = engine_from_flags(args) if model_flag_in(args) else None
    if engine is None and image is not None and not args[0].text.startswith("-"):
        # `serve_args: [/models, --served-model-name, ...]` beside an image named for the engine (sample K280's
        # cluster config): `vllm serve MODEL ...`, the engine the image names (its flags may be a fork's own)
        engine = structured.image_engine(image[0])
    if engine is None:
        return []
    count, cspan = _values_gpus(doc, doc.get("resources"))
    note = (f"launch assembled from the flags listed under {key}, for the image {image[0]}" if image
            else f"engine {engine} inferred from the flags listed under {key}: no image kvlint knows is named")
    gpu = ManifestGpu(None, None, count, cspan)
    where = image or (None, None)
    return [_deployment(yf.path, engine, args + more, at or val, LaunchContext(role, where[0], where[1], notes=(note,)),
                        gpu) for role, more, at in _roles(yf, node, key)]


def _items_launches(yf: YamlFile, doc: YNode, first: YNode, image: tuple[str, Span] | None) -> list[Deployment]:
    """Every launch of the list `first` is an item of: each item's arguments lists (at any depth in the item),
    with the engine image the item names, else the document's."""
    items = next((v.items for v in _lists_holding(doc, first)), [first])
    out: list[Deployment] = []
    for item in items:
        own = engine_image(item, lambda name: name) if item.is_map else None
        out += _flags_list_in(yf, doc, item, (own[1], own[2]) if own is not None else image)
    return out


def _lists_holding(doc: YNode, item: YNode) -> list[YNode]:
    """The list among the document's values whose items include `item` (bounded walk)."""
    stack, seen = [doc], 0
    while stack and seen < _MAX_NODES:
        node = stack.pop()
        seen += 1
        for val in (v for _, _, v in node.pairs()) if node.is_map else node.items if node.is_seq else ():
            if val.is_seq and any(i is item for i in val.items):
                return [val]
            if val.is_map or val.is_seq:
                stack.append(val)
    return []


def _flags_list_in(yf: YamlFile, doc: YNode, holder: YNode, image: tuple[str, Span] | None) -> list[Deployment]:
    """The first arguments list's launches within one map (maps only below it)."""
    for node, key, val, _ in _argument_values(holder, into_lists=False):
        if (found := _listed_launches(yf, doc, node, key, val, image)):
            return found
    return []


def _flags_shaped(val: YNode) -> bool:
    """A cheap look first (most values of a values file are neither): a list, or a string starting with `--`."""
    return val.is_seq or (val.is_scalar and val.text.startswith("--"))


def _model_first_words(yf: YamlFile, val: YNode) -> list[Field]:
    """A list of a model given positionally, then flags (`[/models, --served-model-name, x, ...]`): `vllm serve`'s
    words after the subcommand; none for any other list."""
    from kvlint.launches.infer import model_first

    if not (val.is_seq and len(val.items) >= 3 and all(i.is_scalar for i in val.items)):
        return []
    words = argv_items(val, yf)
    return words if model_first(words) else []


def _flag_words(yf: YamlFile, val: YNode) -> list[Field]:
    """The words of an arguments value that is flags only: a list of them, or one string of them (a values key a
    template splices into the command, `workerCommonArgs: --model-path /m --tp-size 8 ...`)."""
    if val.is_seq and val.items and all(i.is_scalar for i in val.items) and val.items[0].text.startswith("--"):
        return argv_items(val, yf)
    if val.is_scalar and val.text.lstrip().startswith("--"):
        return shell_words(yf, val) or []
    return []


def _roles(yf: YamlFile, holder: YNode, common: str) -> list[tuple[str, list[Field], YNode | None]]:
    """The launches the model-bearing arguments under `common` make with their sibling argument values: one per
    disaggregation role (`prefillExtraArgs` / `decodeExtraArgs`: two engines with their own pools, counting rule 3),
    placed at the role's value, else one with the other siblings' flags added (`extraArgs` beside `args`)."""
    roles: list[tuple[str, list[Field], YNode | None]] = []
    extra: list[Field] = []
    for key, _, val in holder.pairs():
        if key == common or not _flags_shaped(val) or not _ARGS_KEY.search(key) or not (words := _flag_words(yf, val)):
            continue
        if key.lower().startswith(_ROLE_PREFIXES):
            roles.append((key, words, val))
        else:
            extra += words
    return [(key, extra + words, val) for key, words, val in roles] or [("", extra, None)]


_ROLE_PREFIXES = ("prefill", "decode")


_ARGS_KEY = lazy(r"(?i)(?:^|[_-])(?:command[_-]?)?arg(?:ument)?s$|[a-z](?:Command)?Args$")


def read_list(yf: YamlFile, doc: YNode) -> list[Deployment]:
    """A document that is a list of model entries, each its own model, engine settings and the engine named by
    its image or keys (`- {modelURL: X, repository: vllm/vllm-openai, vllmConfig: {maxModelLen: N}}`): a
    catalogue a chart or a program turns into one deployment per entry."""
    return [from_block(yf, doc, b, _own_image(doc, b, None)) for b in structured.find_all(doc, None)]


def _from_args(yf: YamlFile, doc: YNode, engine: str, args: list[Field], image: tuple[str, Span]) -> Deployment:
    """The launch an argument list whose first word is the model makes, with the values' GPUs."""
    note = "chart not recognised: launch assembled from its argument list, whose first word is the model"
    ctx = LaunchContext(image=image[0], image_span=image[1], notes=(note,), node_labels=facts.node_labels(doc))
    count, cspan, _ = g.count_from_resources(doc.get("resources"))
    product, pspan = g.product_from_pod(doc)
    return _deployment(yf.path, engine, args, args[0].span, ctx, ManifestGpu(product, pspan, count, cspan))


def _positional_model(engine: str, args: list[Field]) -> bool:
    """An argument list whose first word is a model given positionally (`[Qwen/Qwen2.5-1.5B-Instruct, --port, 8000]`)
    to an image whose entry point takes one (`vllm serve MODEL`), followed by that engine's flags."""
    from kvlint.flags.syntax import syntax_of

    if len(args) < 2 or syntax_of(engine).positional_model != "always":
        return False
    first = args[0].text
    return not first.startswith("-") and ("/" in first) and " " not in first and args[1].text.startswith("-")


def _own_image(doc: YNode, block: structured.Block, shared: tuple[str, Span] | None) -> tuple[str, Span] | None:
    """The image an item of a list names itself (`image:` in the item), else the document's image when it is
    written outside the list (a default for every item), else none (another item's image is not this one's)."""
    own = engine_image(block.holder, lambda name: name)
    if own is not None:
        return own[1], own[2]
    if block.holder.get("repository") is not None:  # the item is the image's map (`repository:`, `tag:`)
        return _image(block.holder)
    listed = doc.path(*block.path) if block.path else doc
    return None if shared is None or (listed is not None and listed.span.holds(shared[1])) else shared


def chart_engine(path: str) -> str | None:
    """The engine a values file's own chart folder is named for (`helm/vllm/values.yaml`, `charts/sglang-server/`):
    the chart deploys that engine, so its settings map is read as the engine's (a model key and flag keys still
    required) though no image is written in the values (the chart's template holds it)."""
    folder = os.path.dirname(os.path.abspath(path)) if path not in ("", "-") else ""
    if not folder or not (os.path.basename(path).startswith("values") or os.path.isfile(f"{folder}/Chart.yaml")):
        return None  # a chart's values file (`values.yaml`, `values-prod.yaml`, or beside the chart's Chart.yaml)
    words = re.split(r"[-_.]", os.path.basename(folder).lower())
    return next((e for e in engine_names() if e in words), None)


def from_block(yf: YamlFile, doc: YNode, block: structured.Block, image: tuple[str, Span] | None = None) -> Deployment:
    """Settings with no engine image: the mapping names its engine, or its keys are plainly an engine's."""
    model_path = block.model_path
    fields = (_model_fields(block.engine, block.model, model_path) + _flag_fields(block.engine, doc, block)
              + _block_args(yf, block.holder))
    resources = block.holder.get("resources") or doc.get("resources")
    count, cspan, _ = g.count_from_resources(resources)
    if count is None:  # the chart's own switch (`gpu: {type: q6000, count: 2}`), which its template requests
        count, cspan = _values_gpus(doc, resources)
    product, pspan = g.product_from_pod(block.holder)
    if product is None:
        product, pspan = g.product_from_pod(doc)
    note = (f"read from the settings under {'.'.join(block.path) or 'the top level'}: model key "
            f"{'.'.join(model_path)} and {len(block.pairs)} engine-flag keys")
    ctx = LaunchContext(image=image[0] if image else None, image_span=image[1] if image else None, notes=(note,),
                        node_labels=facts.node_labels(doc), disabled=_switched_off(doc, block))
    return _deployment(yf.path, block.engine, fields, block.model, ctx,
                       _per_pod(doc, ManifestGpu(product, pspan, count, cspan)))


def _per_pod(doc: YNode, gpu: ManifestGpu) -> ManifestGpu:
    """A GPU request of values whose chart runs a leader and workers (`rankLabels: {leader: ..., worker: ...}`,
    `hostPath: {leader: ..., worker: ...}`: sample K541's two-node chart): each pod's request, and how many pods
    the group has is the chart's templates' to say, so the request is not the launch's count (no GPU-count verdict
    on a group of one)."""
    where = _leader_and_workers(doc) if gpu.count else None
    if where is None:
        return gpu
    note = (f"{gpu.count} GPU(s) is each pod's request: the values name a leader and workers ({where}), and the "
            "chart's templates decide how many pods the group has")
    return replace(gpu, count=None, count_span=None, notes=(*gpu.notes, note))


def _leader_and_workers(doc: YNode) -> str | None:
    """The path of the first map (four levels down at most) whose keys name a leader and its workers."""
    stack: list[tuple[YNode, tuple[str, ...]]] = [(doc, ())]
    seen = 0
    while stack and seen < _MAX_NODES:
        node, path = stack.pop()
        seen += 1
        keys = {k.lower(): v for k, _, v in node.pairs()}
        if "leader" in keys and ("worker" in keys or "workers" in keys):
            return ".".join(path) or "the top level"
        if len(path) < 4:
            stack.extend((v, (*path, k)) for k, _, v in reversed(list(node.pairs())) if v.is_map)
    return None


def _switched_off(doc: YNode, block: structured.Block | None) -> Span | None:
    """The `enabled: false` of the settings' own map or of a map on the way to it (`vllm: {enabled: false, model:
    ...}`, a subchart switched off): the chart renders no engine from these values as written."""
    node: YNode | None = doc
    for key in block.path if block is not None else ():
        off = disabled(node)
        if off is not None or node is None:
            return off
        node = node.get(key) if node.is_map else None
    return disabled(block.holder) if block is not None else None


def _block_args(yf: YamlFile, holder: YNode) -> list[Field]:
    """An argument list beside the block's keys or in one of its settings maps (`vllmConfig.extraArgs:
    ["--gpu-memory-utilization", "0.8"]`): appended to the command as the chart does."""
    maps = [holder] + [v for k, _, v in holder.pairs() if v.is_map and k not in ("image", "resources")]
    lists = [structured.arg_list(m) for m in maps]
    found = next((n for n in lists if n is not None), None)
    return (shell_words(yf, found) or []) if found is not None and found.is_scalar else argv_items(found, yf)


def _model_fields(engine: str, model: YNode | None, path: tuple[str, ...]) -> list[Field]:
    """The model as written; a model key left empty (the install sets it, `--set model.name=...`) is a
    placeholder naming that key: the launch is there, its model is not in this file."""
    if model is not None and not text(model) and model.is_scalar:
        name = f"<{'_'.join(path)}>"  # a placeholder (`<model_name>`): the install names the model
        return [Field(model_flag(engine), model.span), Field(name, model.span, False, (name,))]
    return model_fields(engine, model)


def _flag_fields(engine: str, doc: YNode, block: structured.Block | None) -> list[Field]:
    """The block's flag keys, each spelled as the option the engine's table names; top-level scalars that
    are exactly engine flags too, when the block sits deeper."""
    out: list[Field] = []
    if doc.is_map and (block is None or block.holder is not doc):
        flat = YNode("map", doc.span, doc.start, doc.end, items=tuple(
            (k, v) for k, v in doc.items if k.is_scalar and k.text not in _NOT_FLAGS and v.is_scalar))
        out += key_fields(engine, flat)
    for key, knode, val, option in block.pairs if block is not None else ():
        keyed = CHART_KEY if not key.startswith("-") else ""  # `--max-model-len: 4096` is the flag as written
        out += fields_from_pairs([(key, knode, val)], _fixed(option), rendered=True, engine=engine, origin=keyed,
                                 unknown_reader=True)
    return out


def _fixed(option: str) -> Callable[[str], str | None]:
    return lambda _key: option


def _model(holders: list[YNode]) -> tuple[tuple[str, ...], YNode | None]:
    """The model key of the values that holds one: a known spelling first, then any key spelled as a model's
    (`modelHFName`, `hf_model_id`)."""
    for holder in holders:
        prefix = () if holder is holders[0] else (_key_of(holders[0], holder),)
        candidates = [(keys, holder.path(*keys)) for keys in MODEL_KEYS]
        candidates += [((k,), v) for k, _, v in holder.pairs() if _MODEL_SPELLING.match(k.lower().replace("_", ""))]
        for keys, node in candidates:
            if node is not None and node.is_scalar and text(node):
                return prefix + keys, node
    return _empty_model(holders)


def _empty_model(holders: list[YNode]) -> tuple[tuple[str, ...], YNode | None]:
    """A model key the values leave empty (`modelHFName: ""`, `modelId: null`): a chart's default, the install
    names the model (`--set modelId=...`); the launch is there with its model unknown (counting rule 8)."""
    for holder in holders:
        prefix = () if holder is holders[0] else (_key_of(holders[0], holder),)
        for key, _, node in holder.pairs():
            if node.is_scalar and not text(node) and _MODEL_SPELLING.match(key.lower().replace("_", "")):
                return prefix + (key,), node
        for keys in MODEL_KEYS:  # `model: {id: ""}`: a nested model key left empty, at its own line
            nested = holder.path(*keys) if len(keys) > 1 else None
            if nested is not None and nested.is_scalar and not text(nested):
                return prefix + keys, nested
    return (), None


# a top-level block named for an engine (`vllm:`, `sglang-server:`) in values that request a GPU
# a values key for the engine's subchart (`vllm:`, `vllm-stack:`, `vllmService:`), not for a tool beside it
_ENGINE_KEY = lazy(r"^(?:vllm|sglang)(?![\w-]*(?:router|client|proxy|gateway|exporter|monitor|ui$))(?:[-_]?[\w-]*)?$",
                   re.IGNORECASE)
_GPU_REQUEST = lazy(r"\b(?:nvidia\.com|amd\.com)/gpu\b"
                    r"|^[ \t]*(?:gpus?|gpu[-_]?count|num[-_]?gpus)[ \t]*:[ \t]*[\"']?[1-9]",
                    re.IGNORECASE | re.MULTILINE)


def _engine_named_values(yf: YamlFile, doc: YNode) -> list[Deployment]:
    """Chart values whose engine block (`vllm:`) names no image and no model, next to a GPU request: the chart
    starts that engine with its default model (or the one the install sets), so the launch is counted at the
    block, its model a placeholder, and any engine-flag keys or argument list in the block are still read."""
    key, block = next(((k, v) for k, _, v in doc.pairs() if v.is_map and _ENGINE_KEY.match(k)), ("", None))
    if block is None or disabled(block) is not None:
        return []  # an umbrella chart's `vllm: {enabled: false}` renders nothing
    gpus = bool(_GPU_REQUEST.search(yf.text) or _gpu_block(doc))
    if not (gpus or _switched_on_with_model(doc, block)):
        return []
    engine = "sglang" if key.lower().startswith("sglang") else "vllm"
    model_path, model = _model([doc, block, *_global(doc)])
    for sub, _, child in block.pairs() if model is None or not text(model) else ():
        if child.is_map and (found := _model([child]))[1] is not None and text(found[1]):
            model_path, model = (key, sub) + found[0], found[1]  # `vllm: {config: {model: org/name}}`
            break
    knode = next(k for k, v in doc.items if v is block)
    if model is None:
        name = f"<{key}.model>"  # the chart's default model: not in this file
        fields = [Field(model_flag(engine), knode.span), Field(name, knode.span, False, (name,))]
    else:
        fields = _model_fields(engine, model, model_path)
    lists = [block.get(k) for k in ARG_KEYS]
    fields += key_fields(engine, block) + next((argv_items(n, yf) for n in lists if n is not None and n.is_seq), [])
    count, cspan = _values_gpus(doc, block.get("resources") or doc.get("resources"))
    product, pspan = g.product_from_pod(doc)
    why = "an engine block beside a GPU request" if gpus else "an engine subchart switched on with its model named"
    whose = f"the model from {'.'.join(model_path)}" if model is not None else \
        "the model is not in this file: the chart's default or the install names it"
    note = f"chart not recognised: launch counted at `{key}:` ({why}); {whose}"
    ctx = LaunchContext(notes=(note,), node_labels=facts.node_labels(doc))
    return [_deployment(yf.path, engine, fields, knode, ctx, ManifestGpu(product, pspan, count, cspan))]


def _global(doc: YNode) -> list[YNode]:
    """The values' `global:` map, which Helm hands every subchart (`global: {LLM_MODEL: ...}`), if there is one."""
    glob = doc.get("global")
    return [glob] if glob is not None and glob.is_map else []


def _switched_on_with_model(doc: YNode, block: YNode) -> bool:
    """An umbrella chart's engine subchart switched on with its model named (`vllm: {enabled: true, LLM_MODEL_ID:
    org/m}`, sample K95's OPEA values, silent before), in its own map or in the `global:` values every subchart
    reads (turn 37's K333: `global: {LLM_MODEL: ...}` beside `vllmService: {enabled: true}`): the subchart starts
    the engine on that model whatever the values say of GPUs (a CPU or Gaudi default the subchart keeps)."""
    on = block.get("enabled")
    model = _model([block, *_global(doc)])[1]
    return on is not None and on.is_scalar and on.value is True and model is not None and bool(text(model))


def _values_gpus(doc: YNode, resources: YNode | None) -> tuple[int | None, Span | None]:
    """The GPUs a pod of these values requests: its `resources` (or the one block's that requests GPUs:
    `servingModel: {resources: ...}`), else the chart's own switch (`gpu: {type: amd.com/gpu, count: 8}`), which its
    template turns into the request."""
    count, cspan, _ = g.count_from_resources(resources if resources is not None else _block_resources(doc))
    switch = _gpu_switch(doc) if count is None else None
    value = switch[1] if switch is not None else None
    return (g.to_int(value), value.span) if value is not None and g.to_int(value) else (count, cspan)


_GPU_KEYS = ("gpus", "gpu", "num_gpus", "gpu_count", "n_gpus", "gpu_ids", "device_ids")


def _serves(block: structured.Block) -> bool:
    """Whether a settings map sets two or more of the engine's HTTP front-end options (`api_key`, `tool_call_parser`,
    `enable_auto_tool_choice`): a server's settings, which an offline run's or a client's never hold; one is enough in
    a map named for the server (K475's harness TOML: `[server]` with `model`, `served_model_name`, `max_model_len`).
    A model map that also sets its replicas or their autoscaling is a serving deployment's too."""
    front = len({opt for *_, opt in block.pairs if opt.lstrip("-").replace("-", "_") in SERVER_DESTS})
    if front >= 2 or (front == 1 and bool(block.path) and _SERVER_MAP.fullmatch(block.path[-1]) is not None):
        return True
    return any(k.lower().replace("_", "").replace("-", "") in _REPLICA_KEYS for k, _, _ in block.holder.pairs())


# a serving deployment's own keys beside the model: replicas and their autoscaling, the route it answers on (Ray
# Serve's `autoscaling_config`, `max_ongoing_requests`, `route_prefix`; turn 47's K480 harness): an offline run has none
_REPLICA_KEYS = frozenset({"autoscaling", "autoscalingconfig", "minreplicas", "maxreplicas", "numreplicas",
                           "maxongoingrequests", "routeprefix"})


_SERVER_MAP = lazy(r"(?i)(?:(?:vllm|sglang|engine|model|inference)[_-]?)?serv(?:er|e|ing)")


def _asks_gpus(holder: YNode) -> bool:
    """Whether a settings map names the GPUs it runs on: a list of devices (`gpus: [0]`) or a count above zero."""
    for key in _GPU_KEYS:
        node = holder.get(key)
        if node is not None and ((node.is_seq and bool(node.items)) or (g.to_int(node) or 0) > 0):
            return True
    return False


def _block_resources(doc: YNode) -> YNode | None:
    """The `resources` of the one top-level block that requests GPUs (none when several do: whose is the engine's is
    not known)."""
    asking = [r for _, _, v in doc.pairs() if v.is_map and (r := v.get("resources")) is not None
              and g.count_from_resources(r)[0]] if doc.is_map else []
    return asking[0] if len(asking) == 1 else None


def _gpu_block(doc: YNode) -> bool:
    """A chart's own GPU switch (`gpu: {enabled: true, count: 1}`): the values ask for GPUs."""
    switch = _gpu_switch(doc)
    if switch is None:
        return False
    node, count = switch
    return (count is not None and (g.to_int(count) or 0) > 0) or (count is None and node.get("enabled") is not None)


def _gpu_switch(doc: YNode) -> tuple[YNode, YNode | None] | None:
    """(the chart's `gpu:` / `gpus:` map, its count node) when the values have one not switched off."""
    node = (doc.get("gpu") or doc.get("gpus")) if doc.is_map else None
    if node is None or not node.is_map or disabled(node) is not None:
        return None
    return node, node.get("count") or node.get("number") or node.get("limit")


# a key spelled as a model's, in any case and with or without underscores: `modelHFName`, `hf_model_id`, `llmModel`
# ... and KServe's `storageUri` (`runtime: {storageUri: oci://.../modelcar-catalog:granite-3.0-8b-instruct}` beside the
# engine's image: the chart mounts what it names as the served model)
_MODEL_SPELLING = lazy(r"^(?:(?:hf|huggingface|llm|served)?model(?:hf)?(?:name|id|path|repo|repoid|url|uri)?"
                       r"|storageur[il])$")


def _key_of(parent: YNode, child: YNode) -> str:
    return next((k for k, _, v in parent.pairs() if v is child), "")


_ENV_KEYS = ("env", "envs", "extraEnv", "envVars", "environment_variables", "environmentVariables")


def _env_configured(yf: YamlFile, doc: YNode, holders: list[YNode]) -> list[Deployment]:
    """Values of a custom engine image configured by its environment (`image: org/foo-vllm`, `env: {MODEL: ...,
    MAX_MODEL_LEN: ...}` or a name/value list) with a GPU request: the launch kvlint.launches.env_launch reads."""
    from kvlint.launches import env_launch

    found = engine_image(doc, env_launch.configured_engine)
    node = next((n for h in holders for k in _ENV_KEYS if (n := h.get(k)) is not None and not n.is_scalar), None)
    by_variables = found is None and node is not None
    if by_variables and node is not None:  # the variables themselves name the engine (`VLLM_ARGS: --flags`)
        image_node = next((n for h in holders if (n := h.get("image")) is not None and n.is_scalar), None)
        named = _engine_of_variables(node)
        found = (named, image_node.text if image_node is not None else "",
                 image_node.span if image_node is not None else None) if named else None  # type: ignore[assignment]
    if found is None or node is None:
        return []
    engine, image, span = found
    items: list[tuple[str, Span | None, Field]] = []
    for key, knode, val in node.pairs() if node.is_map else ():
        if val.is_scalar and text(val):
            items.append((key, knode.span, _env_value(val)))
    for item in node.items if node.is_seq else ():
        name, val = item.get("name"), item.get("value")
        if name is not None and val is not None and val.is_scalar and text(name) and text(val):
            items.append((name.text, name.span, _env_value(val)))
    fields = env_launch.fields_from_env(engine, items, image)
    resources = next((r for h in holders if (r := h.get("resources")) is not None), None)
    count, cspan, _ = g.count_from_resources(resources)
    product, pspan = g.product_from_pod(doc)
    if not count and (gpu_instance := _gpu_instance(doc)) is not None:  # Azure ML / SageMaker `instance_type`
        product, pspan, count, cspan = gpu_instance
    own = by_variables and found is not None or _engine_of_variables(node) == engine
    if fields is None or not (count or own):
        return []  # an image's environment alone is a launch only on GPUs; the engine's own variables are one anyway
        # (`VLLM_MODEL` and `VLLM_ARGS: --flags` beside `image: vastai/vllm` in a Vast.ai template, sample K105)
    ctx = LaunchContext(image=image, image_span=span, notes=(env_launch.NOTE.format(image=image),),
                        node_labels=facts.node_labels(doc))
    gpu = ManifestGpu(product, pspan, count, cspan, options=facts.gpu_options(doc, count))
    return [_deployment(yf.path, engine, fields, node, ctx, gpu)]


def _engine_of_variables(node: YNode) -> str | None:
    """The engine an environment names by its own variables: `VLLM_ARGS` / `SGLANG_ARGS` holding flags, or two
    variables spelling the engine's flags with its prefix (`VLLM_MAX_MODEL_LEN`, `VLLM_TENSOR_PARALLEL_SIZE`)."""
    from kvlint.launches.keys import option_for_key

    pairs = [(k, v.text) for k, _, v in node.pairs() if v.is_scalar] if node.is_map else \
        [(text(i.get("name")) or "", text(i.get("value")) or "") for i in node.items if i.is_map]
    for engine in ("vllm", "sglang"):
        own = [(k[len(engine) + 1:], v) for k, v in pairs if k.upper().startswith(engine.upper() + "_")]
        if any(k.upper().endswith("ARGS") and v.lstrip().startswith("--") for k, v in own):
            return engine
        if sum(1 for k, _ in own if option_for_key(engine, k.lower())) >= 2:
            return engine
    return None


def _gpu_instance(doc: YNode) -> tuple[str, Span | None, int, Span | None] | None:
    """A platform's GPU instance type (`instance_type: Standard_NC24ads_A100_v4`): its card and count."""
    from kvlint.gpus import lookup_instance_type

    node = doc.get("instance_type") or doc.get("instanceType")
    found = lookup_instance_type(node.text) if node is not None and node.is_scalar and node.text else None
    return (node.text, node.span, found[1], node.span) if node is not None and found is not None else None


def _env_value(val: YNode) -> Field:
    unresolved = "{{" in val.text or "${" in val.text
    return Field(val.text, val.span, not unresolved, (val.text,) if unresolved else ())


def _enabled_subchart(path: str, doc: YNode) -> list[Finding]:
    """An umbrella chart's values that switch on a subchart named for the engine and set nothing else in it
    (`vllm: {enabled: true}`): the launch is the subchart's, its settings in that chart's own values (read as a
    file of their own where the walk finds them). One info says so, so the umbrella is not passed over."""
    for key, knode, val in doc.pairs():
        if _ENGINE_KEY.match(key) and val.is_map and val.get("enabled") is not None and disabled(val) is None \
                and all(k in ("enabled", "fullnameOverride", "nameOverride") for k, _, _ in val.pairs()):
            engine = "sglang" if key.lower().startswith("sglang") else "vllm"
            message = (f"subchart `{key}` is switched on here, with its {engine} settings left to the subchart's own "
                       "values: kvlint reads those where they are (its values.yaml), not from this file")
            fix = "check the subchart's values, or set the model and engine flags under this key"
            return [Finding(KV008[0], KV008[1], Severity.INFO, message, knode.span, fix=fix, path=path)]
    return []


def _named_chart_gpus(yf: YamlFile, doc: YNode) -> list[Finding]:
    """A KV008 for the values of a chart named for the engine that ask for GPUs and name no model (turn 37's K332:
    KubeBlocks' `vllm-cluster` values, `version: vllm-baichuan2-13b` and `gpu: 1`): the chart's templates or an
    object they name decide what the engine serves, which this file does not show; said at the GPU request, not
    passed over in silence. Not a launch: nothing here says which model, or that these values start it."""
    engine = chart_engine(yf.path)
    count, span = _values_gpus(doc, doc.get("resources")) if engine is not None else (None, None)
    scalar = next((n for n in (doc.get("gpu"), doc.get("gpus")) if n is not None and n.is_scalar), None)
    if not count and scalar is not None and g.to_int(scalar):  # the chart's own count (`gpu: 1`)
        count, span = g.to_int(scalar), scalar.span
    if engine is None or not count or span is None:
        return []
    message = (f"values of a chart named for {engine} ask for {count} GPU(s) but name no model: the chart's templates "
               "(or an object they name) decide what it serves, which kvlint does not read here; nothing is checked")
    fix = "set the model and engine flags in these values, or add `# kvlint: disable-file` when the chart starts no " \
          "engine"
    return [Finding(KV008[0], KV008[1], Severity.INFO, message, span, fix=fix, path=yf.path)]


def _engine_chosen(yf: YamlFile, doc: YNode) -> list[Finding]:
    """A KV008 for a map that names a model and lists the engines a tool runs it on (`llm_server_type: [vllm,
    sglang]` beside `model: M` in a benchmark harness's config, sample K276): a tool starts each engine from it, as
    kvlint does not read; said, not passed over in silence."""
    if "vllm" not in yf.text and "sglang" not in yf.text:
        return []
    stack, seen = [doc], 0
    while stack and seen < _MAX_NODES:
        node = stack.pop()
        seen += 1
        if node.is_seq:
            stack.extend(i for i in node.items if not i.is_scalar)
        if not node.is_map:
            continue
        # a list of engines, each run; or one (`framework: vllm` beside `model: {id: M}`, sample K366's harness
        # config) when a map below holds that engine's flags (its role's `serve_args`): one `engine: vllm` beside a
        # model and nothing else may be any tool's setting
        # or a block whose type is an engine's server (`type: vllm-server` beside `model_id_or_path: M`, sample
        # K368's data-generation harness): the tool starts that server
        chosen = next(((k, v) for k, _, v in node.pairs() if (_CHOOSER.search(k) and (
            (v.is_seq and _engine_words(v)) or (v.is_scalar and _engine_words(v) and _flags_below(node, v.text))))
            or (k in ("type", "kind") and v.is_scalar and _ENGINE_SERVER.match(v.text))), None)
        if chosen is not None and structured.model_key(node) is not None:
            key, val = chosen
            engines = _engine_words(val) or [_ENGINE_SERVER.match(val.text).group(1).lower()]  # type: ignore[union-attr]
            message = (f"`{key}` chooses the engine ({', '.join(engines)}) for the model beside it: a "
                       "tool starts it from this configuration, which kvlint does not read; nothing here is checked")
            fix = "write the launch as the command the tool runs (`vllm serve MODEL --flags`), or add `# kvlint: " \
                  "disable-file` when this file does not start the engine"
            return [Finding(KV008[0], KV008[1], Severity.INFO, message, val.span, fix=fix, path=yf.path)]
        stack.extend(v for _, _, v in node.pairs() if not v.is_scalar)
    return []


def _flags_below(node: YNode, engine: str, depth: int = 3) -> bool:
    """Whether a map below `node` (a few levels down) holds a key spelled as one of `engine`'s flags."""
    from kvlint.launches.keys import option_for_key, spelled_as_flag

    level = [v for _, _, v in node.pairs() if v.is_map]
    for _ in range(depth):
        if any(spelled_as_flag(k) and option_for_key(engine.lower(), k) for m in level for k, _, v in m.pairs()
               if v.is_scalar):
            return True
        level = [v for m in level for _, _, v in m.pairs() if v.is_map]
    return False


_ENGINE_SERVER = lazy(r"(?i)^(vllm|sglang)[-_ ]?(?:server|serve|serving)$")
_CHOOSER = lazy(r"(?i)(?:^|[_-])(?:server|engine|backend|runtime|framework)(?:[_-]?(?:type|name|kind))?s?$")


def _engine_words(val: YNode) -> list[str]:
    """The engines a value names alone (`vllm`, `[vllm, sglang]`)."""
    words = [val.text] if val.is_scalar else [i.text for i in val.items if i.is_scalar] if val.is_seq else []
    found = [w.strip().lower() for w in words]
    return found if found and all(w in engine_names() for w in found) else []


def _embedded_config(yf: YamlFile, doc: YNode, engine: str, image: tuple[str, Span]) -> list[Deployment]:
    """The engine's `--config` file a values file embeds as a string (`app-configuration: {vllm.yaml: |- model: org/m
    ...}`, sample K319's recipe), which the chart's template mounts and hands the engine: a YAML map holding `model`
    and the engine's flags as keys, read in place (each value at its line)."""
    from kvlint.launches.charts.ray import embedded

    for key, config in _config_strings(doc):
        parsed = embedded(yf, config).docs
        cfg = parsed[0] if parsed else None
        model = cfg.get("model") if cfg is not None and cfg.is_map else None
        if cfg is None or model is None or not model.is_scalar or not model.text:
            continue
        fields = model_fields(engine, model) + key_fields(engine, cfg, frozenset({"model"}))
        note = f"chart not recognised: launch assembled from the {engine} config file `{key}` the values embed"
        ctx = LaunchContext(image=image[0], image_span=image[1], notes=(note,), node_labels=facts.node_labels(doc))
        count, cspan = _values_gpus(doc, doc.get("resources"))
        return [_deployment(yf.path, engine, fields, model, ctx, ManifestGpu(None, None, count, cspan))]
    return []


def _config_strings(doc: YNode, depth: int = 0) -> Iterator[tuple[str, YNode]]:
    """Literal block strings under a key named for a YAML file (`vllm.yaml`, `config.yml`), two maps deep at most."""
    for key, _, val in doc.pairs():
        if val.is_scalar and val.style == "|" and key.endswith((".yaml", ".yml")):
            yield key, val
        elif val.is_map and depth < 2:
            yield from _config_strings(val, depth + 1)


def _kv008(path: str, engine: str, image: str, span: Span) -> Finding:
    message = (f"engine image found, chart layout unknown: {image} ({engine}) is deployed by this values file, but "
               "kvlint found no model key (modelName, model, model.name, modelId, ...) or argument list it can read; "
               "this launch is not checked")
    fix = ("name the model under a key kvlint reads (`modelName:`, `model:`), list the engine flags under `args:`, "
           "or add `# kvlint: disable-file` when this file does not start the engine")
    return Finding(KV008[0], KV008[1], Severity.INFO, message, span, fix=fix, path=path)
