"""Kubernetes workloads: every container-like map (command/args) in any document, whatever the kind.

Deployments, StatefulSets, Jobs, LeaderWorkerSets, KServe runtimes, Dynamo graphs and other CRDs
all nest a container somewhere; walking for `command`/`args` finds them without a list of kinds.
The enclosing maps give env, resources, node selectors and the group size (LWS `size`,
Dynamo `multinode.nodeCount`), which multiplies the per-pod GPU count.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from kvlint.deployment import Deployment, ModelAlias
from kvlint.launches import facts
from kvlint.launches import gpus_in_manifest as g
from kvlint.launches.build import LaunchContext, ManifestGpu, finish
from kvlint.launches.env import (
    Field,
    Positional,
    Supplied,
    expand_k8s,
    expand_k8s_traced,
    expand_words,
    with_supplied,
)
from kvlint.launches.groups import frontends_dropped
from kvlint.launches.images import entrypoint_engine, stand_in
from kvlint.launches.infer import engine_from_flags, inferred_note, named_image_wrapper, no_server_launch
from kvlint.launches.named import engine_script
from kvlint.launches.script import FoundLaunch, engines_named, launch_in_argv, run_script
from kvlint.lazyre import lazy
from kvlint.record import replace
from kvlint.sources.shell import tokenize
from kvlint.sources.text import Mapped
from kvlint.sources.yaml import YamlFile, YNode
from kvlint.span import Span

CHART_VALUES = "chart-values"  # Setting.origin of a value read from the chart's values.yaml
_SHELLS = ("sh", "bash", "zsh", "ash", "dash")
_SKIP_KEYS = {"initContainers", "ephemeralContainers", "livenessProbe", "readinessProbe", "startupProbe", "lifecycle"}


def read_k8s(yf: YamlFile, doc: YNode) -> list[Deployment]:
    """Every container's launches; the workers of a LeaderWorkerSet whose leader launches are that launch
    (one engine over the group, `--node-rank` / `--headless` ranks), not launches of their own."""
    found: list[tuple[list[Deployment], YNode | None, bool]] = []
    ignore = ignore_codes(doc)
    for container, ancestors in iter_containers(doc):
        template = lws_template(ancestors)
        worker = _worker_template(template) if template is not None else None
        is_worker = worker is not None and any(a is worker for a in ancestors)
        found.append((_container(yf, container, ancestors, doc, ignore), template, is_worker))
    leaders = {id(t) for deps, t, w in found if t is not None and deps and not w}
    out: list[Deployment] = []
    for deps, template, is_worker in found:
        if template is not None and is_worker and id(template) in leaders:
            continue
        if template is not None and not is_worker and any(t is template and w and d for d, t, w in found):
            deps = [replace(d, notes=d.notes + (_GROUP_NOTE,)) for d in deps]
        out.extend(deps)
    return frontends_dropped(out) if len(out) > 1 else out


_GROUP_NOTE = ("the LeaderWorkerSet's worker pods start the same engine (their ranks of this launch): "
               "one launch over the group, its GPUs summed over the pods")


# the leader's and the workers' pod templates of a leader-worker group: LeaderWorkerSet's own keys, and the patches a
# RoleBasedGroup role lays over them (`leaderWorkerSet: {patchLeaderTemplate, patchWorkerTemplate}`, sample K455)
_LEADER_KEYS = ("leaderTemplate", "patchLeaderTemplate")
_WORKER_KEYS = ("workerTemplate", "patchWorkerTemplate")


def lws_template(anc: list[YNode]) -> YNode | None:
    """The LeaderWorkerSet template around a container: `leaderWorkerTemplate` (LWS itself), a RoleBasedGroup role's
    `leaderWorkerSet` patches, or another operator's map holding the leader's and workers' templates and `size`
    (llmaz's `workloadTemplate`)."""
    for holder in reversed(anc):
        if holder.has_any(_WORKER_KEYS) or holder.has_any(_LEADER_KEYS):
            return holder
        for key in ("leaderWorkerTemplate", "workloadTemplate"):
            inner = holder.get(key)
            if inner is not None and inner.is_map and (inner.has_any(_WORKER_KEYS) or inner.has_any(_LEADER_KEYS)
                                                        or inner.get("size") is not None):
                return inner
    return None


def _worker_template(template: YNode) -> YNode | None:
    return template.get(_WORKER_KEYS[0]) or template.get(_WORKER_KEYS[1])


def ignore_codes(doc: YNode) -> tuple[str, ...]:
    node = doc.path("metadata", "annotations", "kvlint.io/ignore")
    text = _text(node) or ""
    return tuple(c.strip().upper() for c in text.replace(";", ",").split(",") if c.strip())


def _sidecars(init: YNode) -> list[YNode]:
    """The init containers that run for the pod's life: Kubernetes' native sidecars (`restartPolicy: Always`, 1.28+),
    such as the engine an evaluation Job's client talks to (sample K406). Every other init container runs to its end
    before the pod starts: a download or a setup step, never a server."""
    return [item for item in init.items if item.kind == "map" and _text(item.get("restartPolicy")) == "Always"
            and _names_engine(item)]


def _names_engine(container: YNode) -> bool:
    """Whether a container runs an engine by its image (one whose entry point or name is the engine's) or by an
    entry point in its command (`vllm serve`, `sglang.launch_server`); a sidecar that proxies the engine
    (`--vllm-port=8200`) or syncs its adapters runs none: not read further."""
    from kvlint.launches.images import build_named_engine
    from kvlint.launches.named import ENTRY_MARKERS

    image = _text(container.get("image"))
    if image and (entrypoint_engine(image) or build_named_engine(image)):
        return True
    words = []
    for key in ("command", "args"):
        node = container.get(key)
        words += [i.text for i in node.items if i.is_scalar] if node is not None and node.is_seq else \
            [node.text] if node is not None and node.is_scalar else []
    text = " ".join(words)
    return any(marker in text for marker in ENTRY_MARKERS)


def iter_containers(root: YNode) -> Iterator[tuple[YNode, list[YNode]]]:
    """Maps with a `command` or `args` list/string, with their ancestor maps (nearest last); and a custom engine
    image's container configured only by `env:` (kvlint.launches.env_launch)."""
    stack: list[tuple[YNode, list[YNode]]] = [(root, [])]
    while stack:
        node, anc = stack.pop()
        kind = node.kind
        if kind == "map":
            # a map with none of the keys the four tests read is none of them (most maps of a manifest)
            if node.has_any(_CONTAINER_KEYS) and not node.has_any(_PROCESS_KEYS) \
                    and (_argv_like(node.get("command")) or _argv_like(node.get("args"))
                                                  or _cmd_of_image(node)
                                                  or _env_configured_image(node) or _format_engine(node)
                                                  or _engine_build_on_gpus(node) or _engine_image_only(node)):
                yield node, anc
                continue
            for key, _, val in reversed(list(node.pairs())):
                if key not in _SKIP_KEYS:
                    if val.kind != "scalar":
                        stack.append((val, anc + [node]))
                elif key == "initContainers" and val.kind == "seq":
                    stack.extend((item, anc + [node]) for item in reversed(_sidecars(val)))
        elif kind == "seq":
            for item in reversed(node.items):
                if item.kind != "scalar":
                    stack.append((item, anc))


# a process spec's program (`{executable: vllm, model: M, args: [...]}`, a harness's launch entry, sample K549): no
# container, whose `args` go to an image's entry point; kvlint.launches.helm reads the program with its arguments
_PROCESS_KEYS = ("executable", "program")
# what _argv_like, _env_configured_image, _format_engine and _engine_build_on_gpus ask
_CONTAINER_KEYS = ("command", "args", "env", "storageUri", "storage", "resources", "cmd", "commands")


def _cmd_of_image(node: YNode) -> bool:
    """A platform's container spec that spells Docker's `Cmd` (a Nosana job's `{image, cmd: [...], gpu: true}`, sample
    K259): the words go to the image's entry point, as a Kubernetes container's `args:` do."""
    return node.get("command") is None and node.get("args") is None and node.get("image") is not None \
        and (_argv_like(node.get("cmd")) or _flag_list(node.get("commands")))


def _flag_list(node: YNode | None) -> bool:
    """A `commands:` list whose first word is a flag (InferX's function spec `{image, commands: ["--model", M,
    ...]}`, sample K350): the image's arguments, as Docker's `Cmd`. A list of command lines (a CI step's `commands:`)
    starts with a program, and is not."""
    first = node.elements[0] if node is not None and node.is_seq and node.elements else None
    return first is not None and first.is_scalar and first.text.startswith("-")


FORMAT_NOTE = ("KServe predictor for {engine} (its model format or its runtime's name) with no arguments: the "
               "engine's flags are in the ServingRuntime {runtime} (not in this file), so the engine's defaults are "
               "assumed")
_FORMAT_NOTE_HEAD = FORMAT_NOTE.split("{", 1)[0]  # how a launch read by its model format alone starts its notes


def _format_engine(node: YNode) -> str | None:
    """A KServe predictor `model:` with `modelFormat: {name: vLLM}`, or a `runtime:` named for an engine (`runtime:
    vllm`, `vllm-cuda-runtime`: OpenShift AI's form, sample K316), and a `storageUri` or a storage spec's path: the
    runtime (another file) starts that engine on the stored model, so this is a launch, not silence (its flags are
    the runtime's)."""
    if _stored(node) is None and _left_empty(node) is None:
        return None
    from kvlint.engines import ENGINE_NAMES

    fmt = node.path("modelFormat", "name")
    name = fmt.text.strip().lower() if fmt is not None and fmt.is_scalar else ""
    if name in ENGINE_NAMES:
        return name
    runtime = node.get("runtime")
    words = _NAME_WORDS.split(runtime.text.lower()) if runtime is not None and runtime.is_scalar else []
    return next((w for w in words if w in ENGINE_NAMES), None)


_NAME_WORDS = lazy(r"[-_.]")


_DISPLAY_KEYS = ("openshift.io/display-name",)


def _display_name(doc: YNode) -> tuple[ModelAlias, ...]:
    """An OpenShift AI display name that is a Hub id (`RedHatAI/Qwen2.5-7B-Instruct-FP8-dynamic`): a label for
    people, so weak evidence (kvlint.models.resolve.WEAK_ALIASES), read only when nothing stronger names the
    model of a path or store URI."""
    for key in _DISPLAY_KEYS:
        node = doc.path("metadata", "annotations", key)
        if node is not None and node.is_scalar and facts.looks_like_hub_id(node.text):
            return (ModelAlias(node.text, "display-name", node.span),)
    return ()


def _env_configured_image(node: YNode) -> bool:
    """A container with an `env:` list and an image named for an engine, or variables named for one (`VLLM_MODEL`
    and another `VLLM_` one: kvlint.launches.env_launch.prefixed_engine) (cheap tests first)."""
    env, image = node.get("env"), node.get("image")
    if env is None or image is None or not image.is_scalar:
        return False
    if env.is_map:
        return _env_map(node) is not None and _spelled_engine_on_gpus(node, [k for k, _, _ in env.pairs()]) is not None
    if not env.is_seq:
        return False
    from kvlint.launches.env_launch import configured_engine, prefixed_engine

    names = [_text(i.get("name")) or "" for i in env.items if i.is_map]
    return configured_engine(image.text) is not None or prefixed_engine(names) is not None or \
        _tag_engine_on_gpus(node) is not None or _spelled_engine_on_gpus(node, names) is not None


def _spelled_engine_on_gpus(node: YNode, names: list[str]) -> str | None:
    """The engine whose flags a GPU container's variables spell with no prefix, beside a model variable
    (`MODEL`, `MAX_MODEL_LEN`, `GPU_MEMORY_UTILIZATION`: vLLM's; sample K277's Snowpark spec, its image a template
    placeholder): kvlint.launches.env_launch.spelled_engine."""
    from kvlint.launches.env_launch import spelled_engine

    engine = spelled_engine(names)
    return engine if engine is not None and gpu_facts(node, [], ()).count else None


def _tag_engine_on_gpus(node: YNode) -> str | None:
    """The engine a container's image tag names (`org/amd:rocm7-vllm-001`), when the container requests GPUs."""
    from kvlint.launches.images import tag_named_engine

    image = node.get("image")
    if image is None or not image.is_scalar or not _requests_gpus(node):
        return None
    return tag_named_engine(image.text)


def _named_build_given_model(image: str | None, names: list[str]) -> str | None:
    """The engine a repository's build is named for (`registry:5000/vllm:latest`), when the container's environment
    names its model (`MODEL_ID` from a ConfigMap, sample K267): its entry point serves that model, GPUs requested
    or not (a CPU build, or a node whose devices the plugin does not list)."""
    from kvlint.launches.env_launch import MODEL_VARS
    from kvlint.launches.images import build_named_engine

    if image is None or not any(n.upper() in MODEL_VARS for n in names):
        return None
    return build_named_engine(image)


def _requests_gpus(node: YNode) -> bool:
    """Whether a container's resources name a GPU (`nvidia.com/gpu`, `amd.com/gpu`, `google.com/tpu` is not one)."""
    resources = node.get("resources")
    return resources is not None and any("gpu" in k for k in _leaf_keys(resources))


def _engine_build_on_gpus(node: YNode) -> bool:
    """A container of an image named for an engine (a repository's own build, `org/vllm-gptoss:2026`) given
    GPUs and no command: the image's own command starts the engine (cheap tests first)."""
    image = node.get("image")
    if image is None or not image.is_scalar or not _requests_gpus(node):
        return False
    from kvlint.launches.images import named_engine

    return named_engine(image.text) is not None


def _engine_image_only(node: YNode) -> bool:
    """A container of the engine's own image (its entry point the engine's CLI) with no command and no arguments:
    the image starts the server on its default model (kvlint.launches.k8s._engine_default)."""
    image = node.get("image")
    if image is None or not image.is_scalar or node.get("command") is not None or node.get("args") is not None:
        return False
    return entrypoint_engine(image.text) is not None


def _leaf_keys(node: YNode) -> list[str]:
    return [k for k, _, v in node.pairs() for k in ([k] + (_leaf_keys(v) if v.is_map else []))] if node.is_map else []


def _argv_like(node: YNode | None) -> bool:
    if node is None:
        return False
    return node.is_seq or (node.is_scalar and bool(node.text.strip()) and node.tag.endswith(":str"))


def container_env(container: YNode, ancestors: list[YNode]) -> dict[str, str]:
    """Container `env` plus `envs`/`env` lists on enclosing maps (Dynamo services); a value may
    use earlier variables as `$(VAR)`, as the kubelet expands them in order."""
    env: dict[str, str] = {}
    for name, value, _ in _env_items(container, ancestors):
        if value is not None:
            text = expand_k8s(value.text, env)[0]
            env[name] = Supplied(text, CHART_VALUES) if value.span.path != container.span.path else text
    return env


def runtime_vars(container: YNode, ancestors: list[YNode]) -> tuple[tuple[str, str], ...]:
    """Env vars whose value the cluster supplies (secrets, downward API): known to exist, not known."""
    return tuple((name, source) for name, value, source in _env_items(container, ancestors) if value is None and source)


def _env_map(container: YNode) -> YNode | None:
    """A named container's `env:` written as a map (Snowpark Container Services' `containers: [{name: llm, image:
    ..., env: {MODEL: ..., MAX_MODEL_LEN: ...}}]`, sample K277), on GPUs: its variables, as a list's would be."""
    env = container.get("env")
    if env is None or not env.is_map or container.get("name") is None or not gpu_facts(container, [], ()).count:
        return None
    return env


def _env_items(container: YNode, ancestors: list[YNode]) -> Iterator[tuple[str, YNode | None, str]]:
    own = _env_map(container)
    for key, _, val in own.pairs() if own is not None else ():
        if val.is_scalar:
            yield key, val, ""
    for holder in ancestors + [container]:
        for key in ("envs", "env"):
            node = holder.get(key)
            for item in node.items if node is not None and node.is_seq else ():
                name, value, ref = _text(item.get("name")), item.get("value"), item.get("valueFrom")
                if not name:
                    continue
                if value is not None and value.is_scalar:
                    yield name, value, ""
                elif ref is not None and ref.is_map and ref.items:
                    yield name, None, f"valueFrom {ref.items[0][0].text}"


def _container(yf: YamlFile, c: YNode, anc: list[YNode], doc: YNode, ignore: tuple[str, ...]) -> list[Deployment]:
    env = container_env(c, anc)
    size, _, why = group_size(anc)
    if why.startswith("LeaderWorkerSet") and size:
        env.setdefault("LWS_GROUP_SIZE", str(size))  # the LWS controller sets it to leaderWorkerTemplate.size
    image, image_text = container_image(c)
    fields, script, positional = _argv(yf, c, env)
    # the words go to the image's entry point: `args:`, or a `command:` that starts with a flag, which no program is
    # (a platform's container spec that spells compose's `command`: sample K246's Tinfoil config; in a Kubernetes
    # object `command` replaces the entry point, so there it stays a command)
    handed = c.get("command") is None or (c.get("args") is None and image is not None and bool(fields)
                                          and fields[0].text.startswith("--") and doc.get("apiVersion") is None)
    # a KubeRay pod runs `ray start` whatever its image (sample K130: a RayService's head and workers on
    # vllm/vllm-openai): the image's entry point is not what runs, so only an engine command in it is a launch
    default = None if _ray_node(doc) else entrypoint_engine(image_text)
    if default is None and handed and image_text and fields and not _ray_node(doc):
        from kvlint.launches.images import build_named_engine  # given arguments

        default = build_named_engine(image_text)
    notes: list[str] = []
    if script is None and _kserve_hf(c, anc, image_text, fields):
        launches, notes = _hf_server(c, anc, fields, env)
    elif script is not None:
        launches, _, notes = run_script(yf.mapped(script), env, positional=positional)
    else:
        bare = no_server_launch(fields, Field(image_text, image.span), env) \
            if image is not None and image_text and handed and _whole(doc) else None
        # the file's engine names read a program of the container's own by its flags (a command is written: args
        # alone go to the image's entry point, which the args-only branch below reads)
        # a Kubernetes container's `command` replaces the image's entry point: its words run as written, never as the
        # engine image's arguments (sample K508: `lmcache/vllm-openai` with `command: [/opt/venv/bin/lmcache_server,
        # 0.0.0.0, "8000"]`, read as vLLM serving the model `/opt/venv/bin/lmcache_server`)
        replaced = not handed and doc.get("apiVersion") is not None
        found = bare or launch_in_argv(fields, env, image_default=None if replaced else default,
                                       around=yf.text if c.get("command") is not None else "")
        if found is not None and default is not None and image_text and entrypoint_engine(image_text) is None:
            found = named_image_wrapper(found, image_text, fields[0].span if fields else None)
        launches = [found] if found else []
    if not launches and script is None and handed and _container_like(c, anc) and not stand_in(image_text):
        # args-only (Kustomize patches, KServe predictors): the flags' engine, else the engine the predictor's model
        # format names (sample K121: `modelFormat: {name: vLLM}` with one `--tensor-parallel-size=2`)
        guessed = engine_from_flags(fields) or (_format_engine(c) if fields else None)
        if guessed and _runtime_doc(yf, _text(c.get("runtime"))) is not None:
            guessed = None  # its runtime is in the file: KServe appends these arguments to the runtime's container,
            # whose launch reads them (_served_by), one pod
        if guessed:
            stored = _storage_model(c)  # the launch is at its model when the predictor names one
            argv = fields + stored if stored and _at_mount(fields) else stored + fields
            launches = [FoundLaunch(guessed, tuple(argv), None if stored else _place(c, anc), env)]
            notes = [inferred_note(guessed, "command")]
            if c.get("runtime") is not None and not _storage_model(c):
                notes.append(f"the model is the one the ServingRuntime {_text(c.get('runtime'))} names (not in this "
                             "file)")
    if not launches and script is None and not fields and (by_format := _format_engine(c)) \
            and _runtime_doc(yf, _text(c.get("runtime"))) is None \
            and not _overridden(anc):  # else the runtime's container (or the predictor's own) is the launch
        launches = [FoundLaunch(by_format, tuple(_storage_model(c)), None, env)]
        notes = [FORMAT_NOTE.format(engine=by_format, runtime=_text(c.get("runtime")) or "the cluster's default")]
    launches = env_flag_launch(yf, c, env, launches, default)
    # a runtime's container is a launch per InferenceService of the file that runs on it (sample K416: two Gaudi
    # services, one model each, on one ServingRuntime)
    servings: list[tuple[YNode, YNode] | None] = list(_served_by(yf, _runtime_object(doc, anc))) if launches else []
    if launches and not servings and (merged := _predictor_model(c, anc)) is not None:
        servings = [merged]  # a predictor's `kserve-container` beside its `model:`: one container, the model's store
    return [d for served in (servings or [None]) for d in
            _served_launches(yf, c, anc, doc, ignore, launches, notes, served, (fields, script, image, image_text),
                             env)]


def _served_launches(yf: YamlFile, c: YNode, anc: list[YNode], doc: YNode, ignore: tuple[str, ...],
                     launches: list[FoundLaunch], notes: list[str], served: tuple[YNode, YNode] | None,
                     read: tuple[list[Field], YNode | None, YNode | None, str | None],
                     env: dict[str, str]) -> list[Deployment]:
    """A container's launches finished: with the arguments, store and resources of the InferenceService `served`
    that runs on it when it is a ServingRuntime's, else as written."""
    fields, script, image, image_text = read
    doc_name = _text(doc.path("metadata", "name")) or ""
    if served is not None:
        # the service's own arguments follow the runtime's (KServe appends them to its container); the runtime's
        # `--model=/mnt/models` is the service's store: the model is its storageUri, at its place, as for a
        # predictor's own container (K145)
        own, _, _ = _argv(yf, served[1], container_env(served[1], [served[0]]))
        stored = _storage_model(served[1])
        launches = [replace(f, fields=(*f.fields, *own, *(stored if _at_mount(list(f.fields)) else ())))
                    for f in launches]
    gpu = gpu_facts(c, anc, yf.docs)
    if gpu.count is None and served is not None:
        gpu = gpu_facts(served[1], [served[0]], yf.docs)
    scripted = engine_script([f.text for f in fields]) if fields else None
    if not launches and script is None and (not fields or _entry_script_only(fields) or scripted) \
            and (gpu.count or _named_build_given_model(image_text, [n for n, _, _ in _env_items(c, anc)])) \
            and not (not fields and _runs_to_completion(doc, anc) and entrypoint_engine(image_text) is None):
        launches, notes = _env_configured(yf, c, anc, image_text, env, scripted) or \
            (_baked(c, image, image_text, env) if not fields and not _ray_node(doc) else None) or (launches, notes)
    if all(not f.fields for f in launches) and script is None and not fields and not _runs_own(c) \
            and image is not None and not _ray_node(doc) \
            and _whole(doc) and (stock := _engine_default(image, image_text, env)) is not None:
        launches, notes = [stock[0]], [stock[1]]
    name = "/".join(p for p in (doc_name, _text(c.get("name")) or "") if p)
    if c.get("envFrom") is not None:
        notes = list(notes) + ["envFrom loads variables this file does not show; "
                               "${VAR:-default} defaults assume they are unset"]
    ctx = LaunchContext(name, image_text, image.span if image is not None else None, ignore, notes=tuple(notes),
                  runtime_vars=runtime_vars(c, anc), node_labels=facts.node_labels(facts.pod_holder(anc)),
                  declared_load=facts.declared_load(doc, anc + [c], yf.docs),
                  alias_env=tuple(facts.env_items(c, anc)),
                  storage=_storage_uri(c, anc) or (_storage_uri(served[1], []) if served else None),
                  extra_aliases=_display_name(doc), disabled=_switched_off(c, anc))
    deps = [finish(yf.path, f, ctx, gpu) for f in launches]
    # arguments handed to the image's entry point with no model among them (turn 47's K493: `image: vllm-neuron:latest`
    # with `args:` of vLLM flags, the model in the environment): the launch is where the image is named, never a
    # launch with no place, whose findings had no line
    deps = [replace(d, launch_span=ctx.image_span) if d.launch_span is None and d.model_span is None else d
            for d in deps]
    if served is None and any((d.model or "").startswith(_MOUNT) for d in deps):
        deps = [_template_runtime(d, _runtime_object(doc, anc)) for d in deps]
    return [_runtime_sizes(d, c) if d.notes and d.notes[0].startswith(_FORMAT_NOTE_HEAD) else d for d in deps]


def _runtime_sizes(dep: Deployment, c: YNode) -> Deployment:
    """The parallel sizes of a predictor that gives no arguments and whose runtime is not in the file: that runtime's
    command sets them or leaves the defaults, which this file does not show, so the tensor-parallel size is open (at
    the `runtime:` key, else the model format's), never 1 (sample K420: `-tp 1` asserted against 4 requested GPUs, a
    KV204 warning); the GPUs requested bound it (kvlint.resolve's candidates), so the launch is still sized."""
    from kvlint.deployment import Setting
    from kvlint.engines import get_engine

    place = c.get("runtime") or c.get("modelFormat")
    if place is None:
        return dep
    spec = get_engine(dep.engine)
    said = f"(set by the ServingRuntime {_text(c.get('runtime'))})" if c.get("runtime") is not None \
        else "(set by the runtime)"
    open_sizes = {name: Setting(name, said, spec.flag(role), said, place.span, place.span, resolved=False,
                                origin="open")
                  for role in ("tp",) if (name := spec.setting(role)) not in dep.settings}
    return replace(dep, settings={**dep.settings, **open_sizes})


def served_here(yf: YamlFile, doc: YNode) -> bool:
    """Whether `doc` is an InferenceService whose predictor runs on a ServingRuntime of the same file: the runtime's
    container is the launch, with this service's model (_served_by), so the service's own keys are no second one
    (sample K420: its empty `model.name` read as a model key by the generic reader)."""
    if not doc.is_map or _text(doc.get("kind")) != "InferenceService":
        return False
    model = doc.path("spec", "predictor", "model")
    return model is not None and model.is_map and _runtime_doc(yf, _text(model.get("runtime"))) is not None


_MAIN_CONTAINER = "kserve-container"  # the name KServe merges a predictor's container under with its model's


def _predictor_model(c: YNode, anc: list[YNode]) -> tuple[YNode, YNode] | None:
    """(predictor, model map) when `c` is a predictor's `containers:` item named kserve-container beside a `model:`
    map (sample K426: `model: {modelFormat: vLLM, storageUri: pvc://...}` and `containers: [{name: kserve-container,
    args: [--model, /mnt/models, --tensor-parallel-size, "4"]}]`): KServe merges the two into one container, so the
    container's launch takes the model's store, and the model map gives no launch of its own."""
    if _text(c.get("name")) != _MAIN_CONTAINER:
        return None
    holder = next((a for a in reversed(anc) if a.is_map and a.get("containers") is not None), None)
    model = holder.get("model") if holder is not None else None
    return (holder, model) if holder is not None and model is not None and model.is_map else None


def _overridden(anc: list[YNode]) -> bool:
    """Whether a predictor's `model:` map (its ancestors `anc`) has a kserve-container beside it (_predictor_model)."""
    holder = anc[-1] if anc else None
    items = holder.get("containers") if holder is not None and holder.is_map else None
    return items is not None and items.is_seq and any(
        i.is_map and _text(i.get("name")) == _MAIN_CONTAINER and i.has_any(("args", "command", "image"))
        for i in items.items)  # one that only adds variables (`env:`) leaves the model's launch as it is


def _template_runtime(dep: Deployment, runtime: YNode | None) -> Deployment:
    """A ServingRuntime no InferenceService of the file runs on, whose model is KServe's store (`/mnt/models`): a
    template, as a Helm template is (samples K397, K421: the runtime in one file, the services in others). It starts
    an engine only for each service that selects it, with that service's model, so it is audited as an example:
    its findings are infos, and it is no deployment of its own. A runtime that names its own model stays one."""
    kind = runtime.get("kind") if runtime is not None and runtime.is_map else None
    if kind is None or _text(kind) not in _RUNTIME_KINDS or dep.disabled is not None \
            or not (dep.model or "").rstrip("/").startswith(_MOUNT):
        return dep
    why = (f"a {_text(kind)} (line {{line}}) is a template: it starts the engine only for an InferenceService that "
           f"selects it, none of which is in this file, with the model that service stores at {_MOUNT}")
    return replace(dep, disabled=kind.span, disabled_why=why)


def _switched_off(c: YNode, anc: list[YNode]) -> Span | None:
    """The `enabled: false` of the container's own map or of the nearest map around it that says `enabled` (a
    values catalogue's `models: {llama-3-1-8b: {enabled: false, args: [...], resources: ...}}`, sample K97): the
    chart renders nothing for it, so it is audited as an example, not a deployment (charts.common.disabled)."""
    from kvlint.launches.charts.common import disabled

    for holder in [c, *reversed(anc)]:
        if holder.is_map and holder.get("enabled") is not None:
            return disabled(holder)
    return None


_HANDED_KEYS = ("name", "image", "modelFormat", "runtime", "resources", "storage", "storageUri", "ports",
                "volumeMounts")


_SELECTED = ("Deployment", "StatefulSet", "DaemonSet", "ReplicaSet")


# what a platform's container spec runs in its image, in place of the entry point (Kubernetes' `command`; SkyPilot's
# and SkyShift's `run:` script, CI's `script:`, a task's `cmd`/`commands`)
_OWN_COMMAND = ("command", "run", "script", "cmd", "commands", "entrypoint")


def _runs_own(c: YNode) -> bool:
    """Whether the container map names what runs in its image (sample K352's SkyShift Job: `image:
    vllm/vllm-openai:latest` beside `run: vllm serve M ...`): then the image's entry point does not run on its
    default model; the command, read where it is written, is the launch."""
    return any(c.get(key) is not None for key in _OWN_COMMAND)


def _engine_default(image: YNode, image_text: str | None, env: dict[str, str]) -> tuple[FoundLaunch, str] | None:
    """A container of the engine's own image (its entry point the engine's CLI) given no command and no arguments:
    the server starts on the model its parser defaults to on that release, placed at the image; a model variable
    of the container's environment is read by no engine code (sample K70, as compose's KV011 says)."""
    from kvlint.engines.registered import facts as engine_facts
    from kvlint.launches.env_launch import MODEL_VARS, base_name
    from kvlint.launches.images import default_model

    served = default_model(image_text)
    if served is None:
        return _older_default(image, image_text)
    engine, default = served
    title = engine_facts(engine).TITLE
    note = f"{image_text} runs {title}'s CLI with no model argument: it serves its default {default}"
    named = next((k for k in env if base_name(k.upper())[0] in MODEL_VARS), None)
    note += f"; {named}={env[named]} in env: is read by no {title} code" if named else ""
    return FoundLaunch(engine, (Field("--model", image.span), Field(default, image.span)), image.span, env), note


def _older_default(image: YNode, image_text: str | None) -> tuple[FoundLaunch, str] | None:
    """The engine's own image of a release older than kvlint's tables, given no command and no arguments: a launch
    on that release's default model, left open (the tables do not hold it)."""
    from kvlint.launches.images import older_default_launch

    older = older_default_launch(image_text, image.span)
    return (FoundLaunch(older[0], older[1], image.span, {}), older[2]) if older is not None else None


def _whole(doc: YNode) -> bool:
    """Whether an object is written whole, not as a patch a base completes (a Kustomize patch of a Deployment names
    no `selector:`; its base may hold the `command:` the patch leaves out): only a whole object's container runs
    exactly what it says. A document with no `kind` is no object (a chart's values, sample K131's `deviceConfigs:
    {cpu: {image: vllm-cpu-rhel9}}`): its maps are settings a template places, not containers run as written."""
    kind = _text(doc.get("kind"))
    return kind is not None and (kind not in _SELECTED or doc.path("spec", "selector") is not None)


def _container_like(c: YNode, anc: list[YNode]) -> bool:
    """Whether a map with `args:` can be a container handed them: it names itself, an image, its resources or its
    storage (a Kustomize patch's `- name: vllm`, a predictor's `image:`), or sits in a pod spec or a predictor. A
    catalogue's per-GPU entries (`{gpuCount: 2, args: [--tensor-parallel-size, 2]}` in a JSON of models) are
    settings a program picks, and the engine is not inferred from their flags."""
    return c.has_any(_HANDED_KEYS) or any(
        a.has_any(("containers", "initContainers", "predictor", "template")) for a in anc)


_REPO_KEYS = ("image_repo", "image_repository", "imageRepo", "imageRepository", "image_name", "imageName")
_TAG_KEYS = ("image_tag", "imageTag", "tag")


def container_image(c: YNode) -> tuple[YNode | None, str | None]:
    """The node and text of a container's image: `image: repo:tag` (Kubernetes, compose), a recipe's `container:`
    naming an engine build beside its command, or an image repository key and a tag key beside the command (a
    benchmark harness's or a deploy tool's own schema: `image_repo: vllm/vllm-openai` + `image_tag: x`; the
    repository node is the image's place). A chart's `image: {repository, tag}` stays its chart adapter's
    (kvlint.launches.charts), which knows whether its templates hold the launch."""
    image = c.get("image")
    if image is not None:
        return image, _text(image)
    built = c.get("container")  # a recipe's container build beside its command (`container: vllm-node-mxfp4`, K183)
    if built is not None and built.is_scalar and (text := _text(built)) and engines_named(text):
        return built, text
    for key in _REPO_KEYS:
        repo = c.get(key)
        if repo is not None and repo.is_scalar and (text := _text(repo)):
            tag = next((t for k in _TAG_KEYS if (t := _text(c.get(k)))), None)
            return repo, f"{text}:{tag}" if tag and ":" not in text.rsplit("/", 1)[-1] else text
    return None, None


def _env_configured(yf: YamlFile, c: YNode, anc: list[YNode], image: str | None,
                    env: dict[str, str], scripted: str | None = None) -> tuple[list[FoundLaunch], list[str]] | None:
    """A custom engine image with no command, configured by `env:` (kvlint.launches.env_launch); or any image
    whose command runs a script named for starting the engine (`bash launch_sglang.sh`, sample K105), which reads
    its model and flags from the same variables."""
    from kvlint.launches import env_launch

    items = [(n, None, _field(v, env, yf.path)) for n, v, _ in _env_items(c, anc) if v is not None]
    engine = scripted or env_launch.configured_engine(image) or env_launch.prefixed_engine(n for n, _, _ in items) \
        or _tag_engine_on_gpus(c) or _named_build_given_model(image, [n for n, _, _ in items]) \
        or _spelled_engine_on_gpus(c, [n for n, _, _ in items])
    if engine is None:
        return None
    spans = {n: named.span for item in _env_list(c, anc) if (named := item.get("name")) is not None
             and (n := _text(named))}
    own = _env_map(c)
    spans.update({k: kn.span for k, kn, _ in own.pairs()} if own is not None else {})
    fields = env_launch.fields_from_env(engine, [(n, spans.get(n), v) for n, _, v in items], image)
    if fields is None:
        return None
    if scripted:  # the script's own defaults decide what the environment leaves out, the parallelism too
        said = f"the command runs a script named for starting {engine}: its model and flags read from the environment"
        return [FoundLaunch(engine, tuple(fields), None, env, left_to="the script the container runs")], [said]
    # a custom build's entry point may size the parallelism from the GPUs it is given (only a known wrapper's
    # variables are mapped flag for flag): an open input, never the default of 1
    left = None if env_launch.env_image(image) is not None else f"the entry point of {image}"
    return [FoundLaunch(engine, tuple(fields), None, env, left_to=left)], [env_launch.NOTE.format(image=image)]


_TO_COMPLETION = frozenset({"Job", "CronJob", "ScaledJob"})


def _runs_to_completion(doc: YNode, anc: list[YNode]) -> bool:
    """A workload that runs to its end (a Job, a CronJob, KEDA's ScaledJob, a pod that is never restarted): a
    project's build run there with no command does its own work and exits (sample K507: a ScaledJob of
    `vllm-whisper-batch:latest` given `MODEL_NAME`, whose entry point transcribes a queue with vLLM in process), no
    server the rules could size."""
    if (_text(doc.get("kind")) or "") in _TO_COMPLETION:
        return True
    return any(_text(h.get("restartPolicy")) in ("Never", "OnFailure") for h in anc)


def _entry_script_only(fields: list[Field]) -> bool:
    """`command: ["/entrypoint.sh"]`: the image's own start script, given nothing: it starts the engine from the
    container's environment as the image's entry point would."""
    return len(fields) == 1 and fields[0].resolved and fields[0].text.endswith((".sh", ".bash"))


def _ray_node(doc: YNode) -> bool:
    """A KubeRay object's pods (`RayService`, `RayCluster`, `RayJob`): the operator runs Ray in them, whatever the
    image is named; an engine starts only in the Serve application they import (its launch is in that code)."""
    kind = _text(doc.get("kind")) or ""
    return kind.startswith("Ray") and "ray.io" in (_text(doc.get("apiVersion")) or "")


def _baked(c: YNode, image: YNode | None, text: str | None,
           env: dict[str, str]) -> tuple[list[FoundLaunch], list[str]] | None:
    """A repository's own build named for the engine (`org/vllm-gptoss:20260812`), run on GPUs with no command
    and no model variable: its own command starts the engine with the model built into it, which this file does
    not name (the model is left open, at the image)."""
    from kvlint.engines.registered import facts
    from kvlint.launches.env_launch import stand_in_env
    from kvlint.launches.images import named_engine

    engine = named_engine(text)
    if engine is None or c.get("command") is not None or image is None or stand_in_env(env):
        return None
    model = f"<the model {text} serves>"
    fields = (Field(facts(engine).MODEL_FLAG, image.span), Field(model, image.span, False, (model,)))
    note = f"{text} is a build of {engine} run with no command: its own command starts it with a model not named here"
    return [FoundLaunch(engine, fields, None, env)], [note]


def _env_list(c: YNode, anc: list[YNode]) -> Iterator[YNode]:
    for holder in anc + [c]:
        for key in ("envs", "env"):
            node = holder.get(key)
            yield from (i for i in (node.items if node is not None and node.is_seq else ()) if i.is_map)


def _argv(yf: YamlFile, c: YNode, env: dict[str, str]) -> tuple[list[Field], YNode | None, Positional | None]:
    """command + args as fields, or the script node when they run `sh -c SCRIPT`, with the words
    after the script ($0, then "$@": the LeaderWorkerSet `sh -c '... "$@"' --` + `args:` pattern)."""
    items: list[YNode] = []
    keys = ("command", "args") if c.get("command") is not None or c.get("args") is not None \
        else ("commands",) if c.get("cmd") is None and _flag_list(c.get("commands")) else ("cmd",)
    keys = ("command", "arguments") if keys[0] == "command" and c.get("args") is None else keys
    if c.get("args") is None and c.get("arguments") is None and _argv_like(c.get("entrypoint")):
        keys = ("entrypoint", *keys)  # compose's spelling (a Tinfoil container, sample K356): the entry point, then
        # the command as its arguments, as `docker run --entrypoint` runs them
    if (pair := _string_pair(yf, c, keys, env)) is not None:
        return pair
    for key in keys:
        node = c.get(key)
        if node is None:
            continue
        if node.is_scalar:
            if node.text.strip():
                items.append(node)
        else:
            items.extend(i for i in node.elements if i.is_scalar)
    fields = [_field(i, env, yf.path) for i in items]
    if len(fields) >= 2 and fields[0].text.rsplit("/", 1)[-1] in _SHELLS:
        for k in range(1, len(fields) - 1):
            t = fields[k].text
            if t.startswith("-") and not t.startswith("--") and "c" in t:
                k += 1 if fields[k + 1].text == "--" and k + 2 < len(fields) else 0  # `bash -lc -- SCRIPT`
                return fields, items[k + 1], tuple(fields[k + 2 :])
    if len(items) == 1 and items[0].text.lstrip().startswith("-") and " " in items[0].text.strip():
        return _split_words(yf, items[0], env), None, None  # `command: "--model X --tp 2"`: the image's arguments
    if len(items) == 1 and items[0].is_scalar and " " in items[0].text.strip() and c.get("command") is items[0]:
        return fields, items[0], None  # a CRD's command written as one shell string
    return fields, None, None


def _string_pair(yf: YamlFile, c: YNode, keys: tuple[str, ...], env: dict[str, str],
                 ) -> tuple[list[Field], YNode | None, Positional | None] | None:
    """A workload object's command line split in two strings (Run:ai's `command: python3 -m vllm.entrypoints.
    openai.api_server` and `arguments: --model X ...`, sample K292; Kubernetes itself takes lists): each string's
    words at their places; a shell's `-c` in the command makes the other string its script. None for any other
    shape."""
    nodes = [c.get(k) for k in keys]
    if len(nodes) != 2 or any(n is None or not n.is_scalar or not n.text.strip() for n in nodes):
        return None
    command, args = nodes
    assert command is not None and args is not None
    words = _split_words(yf, command, env)
    if len(words) >= 2 and words[0].text.rsplit("/", 1)[-1] in _SHELLS and words[-1].text.startswith("-") \
            and "c" in words[-1].text and not words[-1].text.startswith("--"):
        return words + [_field(args, env, yf.path)], args, ()
    return words + _split_words(yf, args, env), None, None


def _split_words(yf: YamlFile, node: YNode, env: dict[str, str]) -> list[Field]:
    """A string of flags given as one value (Ansible's docker_container `command: "--model X --tp 2"`, which the
    module splits as a shell would): its words, each at its place."""
    from kvlint.launches.env import expand_words
    from kvlint.sources.shell import tokenize

    m = yf.mapped(node)
    if "{%" in m.text:  # a playbook's template (`--model {{ m }} {% if e %}--enforce-eager{% endif %}`)
        m = _without_jinja_tags(m)
    commands, _ = tokenize(m)
    return [f for cmd in commands for f in expand_words(cmd.words, m, env)]


_JINJA_TAG = lazy(r"\{%-?[ \t]*(\w+)[^%\n]{0,200}?-?%\}")
_JINJA_MAX = 65536  # a command string longer than this is data: read as written


def _without_jinja_tags(m: Mapped) -> Mapped:
    """A Jinja-templated string of flags as the shell would read it rendered, each character at its place: what an
    `{% if %}` adds left out (a flag the template adds only under a condition is not assumed: sbnb's `{% if
    enforce_eager | bool %}--enforce-eager{% endif %}`, turn 37's K326), other tags blanked; `{{ NAME }}` stays
    the placeholder it is everywhere. One pass over the tags (nested ifs counted), so a hostile string costs its
    length."""
    text = m.text
    if len(text) > _JINJA_MAX:
        return m
    cut: list[tuple[int, int]] = []
    depth, start = 0, 0
    for tag in _JINJA_TAG.finditer(text):
        word = tag.group(1)
        if word == "if":
            start = tag.start() if depth == 0 else start
            depth += 1
        elif word == "endif" and depth:
            depth -= 1
            if depth == 0:
                cut.append((start, tag.end()))
        elif depth == 0:
            cut.append((tag.start(), tag.end()))
    if depth:
        cut.append((start, len(text)))  # an `{% if %}` never closed: what follows it is conditional
    if not cut:
        return m
    chars = list(text)
    for a, b in cut:
        chars[a:b] = [c if c == "\n" else " " for c in chars[a:b]]
    blanked = "".join(chars)
    return m.view(m.path, blanked, list(range(len(blanked) + 1)))


def _kserve_hf(c: YNode, anc: list[YNode], image: str | None, fields: list[Field]) -> bool:
    """A cheap test first (the image, a KServe flag spelling) so most containers never load the module."""
    if not (image and "huggingfaceserver" in image) and not any(f.text.startswith(("--model_id", "--backend",
                                                                                        "--model_name")) or
                                                                 "huggingfaceserver" in f.text for f in fields):
        return False
    from kvlint.launches.charts import kserve_hf

    return kserve_hf.is_server(c, anc, image, fields)


def _hf_server(c: YNode, anc: list[YNode], fields: list[Field],
               env: dict[str, str]) -> tuple[list[FoundLaunch], list[str]]:
    from kvlint.launches.charts import kserve_hf

    storage = next((h.get("storageUri") for h in [c] + list(reversed(anc)) if h.is_map and h.get("storageUri")), None)
    found = kserve_hf.launch_fields(fields, storage)
    if found is None:
        return [], []
    argv, note = found
    return [FoundLaunch("vllm", tuple(argv), fields[0].span if fields else None, env)], [note]


def _storage_uri(c: YNode, anc: list[YNode]) -> tuple[str, Span | None] | None:
    """KServe's storageUri (or storage spec path) beside the container, mounted at /mnt/models: another name for
    the model."""
    for holder in [c] + list(reversed(anc)):
        stored = _stored(holder) if holder.is_map else None
        if stored is not None:
            return stored.text, stored.span
    return None


def _stored(holder: YNode) -> YNode | None:
    """What KServe's storage initializer puts at /mnt/models for a predictor: its `storageUri`, else the `path` of
    its storage spec (`storage: {key: <data connection>, path: ibm-granite/granite-3.2-8b-instruct/}`, OpenShift
    AI's form, sample K157), a path inside the bucket the key names."""
    for node in (holder.get("storageUri"), holder.path("storage", "path")):
        if node is not None and node.is_scalar and node.text:
            return node
    return None


def _left_empty(holder: YNode) -> YNode | None:
    """A `storageUri: ''` (or null) a predictor writes for another file to fill (a kustomize base whose overlays
    set the model, sample K234): the predictor is a launch whose model is open, at that key."""
    node = holder.get("storageUri")
    return node if node is not None and node.is_scalar and not node.text.strip() else None


def _runtime_doc(yf: YamlFile, name: str | None) -> YNode | None:
    """The ServingRuntime of that name written in the same file (a runtime and the InferenceService that uses it,
    one deployment: samples K95, K145, K155, K157)."""
    for d in _objects(yf) if name else ():
        if d.is_map and _text(d.get("kind")) in _RUNTIME_KINDS and _text(d.path("metadata", "name")) == name:
            return d
    return None


_RUNTIME_KINDS = ("ServingRuntime", "ClusterServingRuntime")
_WRAPPED = {"Template": "objects", "List": "items"}  # kinds whose list holds the objects they create


def _objects(yf: YamlFile) -> list[YNode]:
    """The file's objects: its documents, and those an OpenShift Template's `objects:` or a `kind: List`'s `items:`
    holds (sample K234's Template: a ServingRuntime and the InferenceService that runs on it, one deployment)."""
    out: list[YNode] = []
    for d in yf.docs:
        out.append(d)
        held = d.get(_WRAPPED.get(_text(d.get("kind")) or "", "")) if d.is_map else None
        if held is not None and held.is_seq:
            out.extend(i for i in held.items if i.is_map)
    return out


def _runtime_object(doc: YNode, anc: list[YNode]) -> YNode:
    """The ServingRuntime a container is in: the nearest ancestor of that kind (an object of a Template's list),
    else its document."""
    return next((a for a in reversed(anc) if a.is_map and _text(a.get("kind")) in _RUNTIME_KINDS), doc)


def _served_by(yf: YamlFile, doc: YNode) -> list[tuple[YNode, YNode]]:
    """The predictors (and their model maps) of the InferenceServices in the same file that run on this
    ServingRuntime `doc`: what each stores is the model the runtime's `/mnt/models` holds, and its resources are its
    pod's."""
    if _text(doc.get("kind")) not in _RUNTIME_KINDS:
        return []
    out = []
    for d in _objects(yf):
        predictor = d.path("spec", "predictor") if d.is_map and _text(d.get("kind")) == "InferenceService" else None
        model = predictor.get("model") if predictor is not None and predictor.is_map else None
        if predictor is not None and model is not None and model.is_map \
                and _runtime_doc(yf, _text(model.get("runtime"))) is doc:
            out.append((predictor, model))
    return out


def _place(c: YNode, anc: list[YNode]) -> Span:
    """Where a container given only arguments is written: its key in the parent map (a KServe predictor's
    `model:`), else the container itself (a list item), so its findings have a line even with no model."""
    parent = anc[-1] if anc else None
    key = next((k for k, v in parent.items if v is c), None) if parent is not None and parent.is_map else None
    return key.span if key is not None else c.span


_MOUNT = "/mnt/models"  # where KServe's storage initializer puts what storageUri names


def _at_mount(fields: list[Field]) -> bool:
    """Whether the predictor's own arguments give the model as the storage mount (`--model=/mnt/models`): the model
    is then the storageUri's (K145), which is read after them, at its own place."""
    for k, f in enumerate(fields):
        name, eq, value = f.text.partition("=")
        if name in ("--model", "--model-path") and (value if eq else fields[k + 1].text if k + 1 < len(fields)
                                                    else "").rstrip("/") == _MOUNT:  # `/mnt/models/` too (K422)
            return True
    return False


def _storage_model(c: YNode) -> list[Field]:
    """The model a predictor's store gives: the storageUri itself, or the mount a storage spec's path fills (the
    path, a folder in a bucket, is then the mount's other name: _storage_uri)."""
    uri = c.get("storageUri")
    if uri is None or not uri.is_scalar:
        path = c.path("storage", "path")
        return [Field("--model", path.span), Field(_MOUNT, path.span)] if path is not None and path.is_scalar \
            and path.text else []
    if not uri.text.strip():  # left for an overlay to set: the model is open
        return [Field("--model", uri.span), Field("storageUri ''", uri.span, False, ("storageUri",))]
    unresolved = "${" in uri.text
    return [Field("--model", uri.span), Field(uri.text, uri.span, not unresolved, (uri.text,) if unresolved else ())]


def _field(node: YNode, env: dict[str, str], home: str) -> Field:
    """One argv item; an item that is a chart's values.yaml node (a resolved Helm reference) says so."""
    text, missing, origin = expand_k8s_traced(node.text, env)
    if node.span.path != home:
        origin = CHART_VALUES
    return Field(text, node.span, not missing, missing, origin=origin)


def env_flag_launch(yf: YamlFile, c: YNode, env: dict[str, str], launches: list[FoundLaunch],
                    default: str | None) -> list[FoundLaunch]:
    """Flags carried in env vars (VLLM_ADDITIONAL_ARGS) start the image's engine when the container
    has no command of its own (KServe runtimes read them); a script that wants them references them."""
    if launches:
        return launches
    node = c.get("env")
    extra: list[Field] = []
    for item in node.items if node is not None and node.is_seq else ():
        name, value = _text(item.get("name")), item.get("value")
        flags = value is not None and value.is_scalar and value.text.lstrip().startswith("-")
        if name and "ARGS" in name.upper() and value is not None and flags:
            m = yf.mapped(value)
            cmds, _ = tokenize(m)
            # a script's here-document fills `${MAX_MODEL_LEN}` from its assignments (sample K419), configured
            # variables as everywhere
            given = with_supplied(env) if "$" in value.text else env
            extra.extend(f for cmd in cmds for f in expand_words(cmd.words, m, given))
    return [FoundLaunch(default, tuple(extra), None, env)] if extra and default else []


def gpu_facts(c: YNode, anc: list[YNode], docs: Sequence[YNode] = ()) -> ManifestGpu:
    """Product and per-instance count from the container and the pod around it; several candidate
    products (affinity `In [A, B]`, a ComputeClass in `docs`) become options with that count."""
    count, span, resource = g.count_from_resources(c.get("resources"))
    for holder in reversed(anc):
        if count is None:
            count, span, resource = g.count_from_resources(holder.get("resources"))
    product, pspan = g.product_from_resource(resource), span if g.product_from_resource(resource) else None
    for holder in reversed(anc):
        if product is None and holder.is_map:
            product, pspan = g.product_from_pod(holder)
    if product is None and g.device_from_resource(resource):
        product, pspan = resource, span
    group, gspan, why = group_size(anc)
    notes: tuple[str, ...] = ()
    ray = _ray_cluster_gpus(anc)
    if ray is not None and ray[0] is None:  # the workers' number is left to the deploy tooling: never assumed
        return ManifestGpu(product, pspan, None, span, (ray[1],), grouped=True)
    if ray is not None and ray[0] is not None and count is not None and ray[0] > count:
        options = facts.gpu_options(facts.pod_holder(anc), ray[0], docs)
        return ManifestGpu(product, pspan, ray[0], span, (ray[1],), grouped=True, options=options)
    if group is None:  # a group whose size the file does not fix: the group's GPUs are unknown, not one pod's
        note = f"gpu count unresolved: {count if count is not None else '?'} per pod x {why}"
        return ManifestGpu(product, pspan, None, span or gspan, (note,), grouped=True)
    if count is not None and group > 1:
        notes = (f"gpu count = {count} per pod x {why} {group}",)
        count *= group
    options = facts.gpu_options(facts.pod_holder(anc), count, docs)
    return ManifestGpu(product, pspan, count, span, notes, grouped=group > 1, options=options)


def _ray_cluster_gpus(anc: list[YNode]) -> tuple[int | None, str] | None:
    """An engine started in a Ray head spans the whole cluster: head + workers x replicas; a worker group whose
    replicas the file does not fix (`{{ .Values.workers }}`, `${N}`) leaves the cluster's GPUs unresolved."""
    for holder in reversed(anc):
        head, workers = holder.get("headGroupSpec"), holder.get("workerGroupSpecs")
        if head is None or workers is None or not workers.is_seq:
            continue
        total, parts = _pod_gpus(head.path("template", "spec")), []
        parts.append(f"head {total}")
        unresolved = False
        for grp in workers.items:
            node = grp.get("replicas") if grp.is_map else None
            reps = g.to_int(node) if node is not None else g.to_int(grp.get("minReplicas")) or 1
            per = _pod_gpus(grp.path("template", "spec"))
            if reps is None:
                unresolved = True
                parts.append(f"{node.text if node is not None else '?'} (unresolved) x {per}")
                continue
            total += per * reps
            parts.append(f"{reps} x {per}")
        return (None if unresolved else total), "gpu count = Ray cluster " + " + ".join(parts)
    return None


def _pod_gpus(pod: YNode | None) -> int:
    containers = pod.get("containers") if pod is not None else None
    items = containers.items if containers is not None and containers.is_seq else ()
    return sum((g.count_from_resources(c.get("resources"))[0] or 0) for c in items)


def group_size(anc: list[YNode]) -> tuple[int | None, Span | None, str]:
    """Pods that form one engine instance: LWS size, Dynamo multinode.nodeCount; None when the file writes
    the size as something it does not resolve (`{{ .Values.size }}`, `${GROUP}`): never assumed 1."""
    template = lws_template(anc)
    lws = template.get("size") if template is not None else None
    if lws is not None and lws.is_scalar and not lws.tag.endswith(":null"):
        size = g.to_int(lws)
        if size:
            return size, lws.span, "LeaderWorkerSet size"
        return None, lws.span, f"LeaderWorkerSet size {lws.text} (unresolved)"
    for holder in reversed(anc):
        nodes = holder.path("multinode", "nodeCount")
        count = g.to_int(nodes)
        if nodes is not None and count:
            return count, nodes.span, "multinode.nodeCount"
    return 1, None, ""


def _text(node: YNode | None) -> str | None:
    return node.text if node is not None and node.is_scalar and not node.tag.endswith(":null") else None
