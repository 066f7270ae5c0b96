"""FoundLaunch + its surroundings -> the shared Deployment record.

Flag normalisation happens in kvlint.launches.argv; here unresolved values are marked (never
guessed), the image tag gives the engine version, and GPU facts from the manifest are attached.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from kvlint import limits
from kvlint.deployment import (
    CHART_KEY,
    NO_MODEL_HERE,
    SOURCED_ARGS,
    DeclaredLoad,
    Deployment,
    GpuOption,
    InvalidValue,
    ModelAlias,
    NodeLabel,
    Setting,
    UnknownFlag,
)
from kvlint.engines import get_engine
from kvlint.engines.registered import engine_names, facts
from kvlint.image_names import month_tag, release_tagged
from kvlint.launches.argv import parse
from kvlint.launches.config_link import merge_config_file
from kvlint.launches.env import SOURCED_ARRAY, Field
from kvlint.launches.facts import is_path_like, model_aliases, path_alias
from kvlint.launches.gpus_in_manifest import cpu_evidence, from_launch_hint
from kvlint.lazyre import lazy
from kvlint.record import record, replace
from kvlint.sources.templates import has_placeholder
from kvlint.span import Span

_VERSION = lazy(r"^v?(\d{1,9}\.\d{1,9}(?:\.\d{1,9})?(?:\.?(?:post|rc|dev)\d{1,9})?)(?!\d)")
_UNRESOLVED = lazy(r"\$\{|\$\(|\$[A-Za-z_]|\{\{|\{[a-z_]+\}")  # and a template placeholder: see _unresolved
_SERVED = "served_model_name"
SUPPLIED_ORIGINS = ("config-variable", "chart-values")  # Setting.origin of values the file did not hold
_OPERATOR_VARS = (("LWS_", "LeaderWorkerSet"), ("SKYPILOT_", "SkyPilot"), ("KUBERAY_", "KubeRay"), ("RAY_", "Ray"),
                  ("SLURM_", "Slurm"), ("DYN_", "Dynamo"), ("POD_", "the pod spec"), ("MASTER_ADDR", "the launcher"))

if TYPE_CHECKING:
    from kvlint.launches.script import FoundLaunch


def _unresolved(text: str) -> bool:
    """An expansion left for the deploy tooling, or a template placeholder (kvlint.sources.templates.has_placeholder):
    the placeholder is tested apart because a non-ASCII alternative makes the pattern dearer to compile."""
    return has_placeholder(text) or _UNRESOLVED.search(text) is not None


@record
class ManifestGpu:
    """GPU product and per-instance count as the manifest states them (product as written)."""

    product: str | None = None
    product_span: Span | None = None
    count: int | None = None
    count_span: Span | None = None
    notes: tuple[str, ...] = ()
    grouped: bool = False  # count already multiplied by a group size (LWS, nodes, Ray cluster)
    options: tuple[GpuOption, ...] = ()  # several candidate products (one product stays in `product`)
    visible_only: bool = False  # the count is a CUDA_VISIBLE_DEVICES list: what the process sees, not a reservation
    shared: str | None = None  # the job's count, shared with another GPU program the job runs (`torchrun at line 33`)


@record
class LaunchContext:
    """What surrounds a launch: the workload name, image, ignore annotation, notes."""

    name: str = ""
    image: str | None = None
    image_span: Span | None = None
    ignore_codes: tuple[str, ...] = ()
    origin: str = "explicit"
    notes: tuple[str, ...] = ()
    runtime_vars: tuple[tuple[str, str], ...] = ()  # (name, where it comes from) for env set at run time
    wrapper: str | None = None  # `dynamo.vllm` etc.: flags the engine does not know belong to the wrapper
    node_labels: tuple[NodeLabel, ...] = ()
    declared_load: DeclaredLoad | None = None
    alias_env: tuple[tuple[str, str, Span | None], ...] = ()  # (name, value, span) env the engine process sees
    mounts: tuple[tuple[str, str], ...] = ()  # (host path, container path)
    storage: tuple[str, Span | None] | None = None  # a storage URI mounted as the model (KServe storageUri)
    extra_aliases: tuple[ModelAlias, ...] = ()  # names an adapter knows for the model (a chart's download repo)
    disabled: Span | None = None  # the launch's own mapping says `enabled: false` (see charts.common.disabled)
    disabled_why: str = ""  # why, when it is not that key (a chart that renders only entries enabled)
    runner: str | None = None  # `uv run`, `poetry run` ...: the project runner in front of the engine
    container: str | None = None  # `docker exec NAME`: a running container the file did not start
    program: str | None = None  # the engine's program as a path (`~/vllm-gfx908/.venv/bin/vllm`)


def _builds_own_options(engine: str, fields: list[Field], image: str | None) -> str | None:
    """Why the words handed to an image that is no published engine image are its entry point's own options, not the
    engine's (sample K304: `open-audio-llm/vllm-serving` given `-m /models/main -p 8009 -n NAME -t 1 -d 1 -e -q`, a
    wrapper's CLI): no model the engine would read, the first option none of the engine's, and most options none of
    the engine's as written (an abbreviation of one is how argparse misreads a wrapper's short option). None when
    they read as the engine's."""
    from kvlint.flags.flag_table import flag_table
    from kvlint.image_names import known_image

    if not image or known_image(image):
        return None
    options = [f.text.partition("=")[0] for f in fields if f.text.startswith("-") and f.text not in ("-", "--")]
    table = flag_table(engine).by_option
    exact = [o for o in options if o in table]
    if not options or options[0] in table or 2 * len(exact) >= len(options):
        return None
    own = ", ".join(dict.fromkeys(o for o in options if o not in table))
    name = get_engine(engine).title
    if not exact and all(f.text.startswith("-") or "=" in f.text for f in fields):
        # `docker run vllm-moet-recipes:v024 --list` (turn 47's K489): switches alone, none the engine's, ask the
        # entry point something (a listing, its help); nothing is served, so no launch (the note says why)
        return (f"the words given to {image} are its entry point's own switches ({own}: none of {name}'s), with "
                "no model and no value: it is asked something and serves nothing")
    return (f"{NO_MODEL_HERE}the words given to {image} are its entry point's own options ({own}: none of "
            f"{name}'s as written), not {name}'s command line: that entry point names the model")


def version_from_image(image: str | None) -> str | None:
    """`vllm/vllm-openai:v0.8.5` -> 0.8.5; `lmsysorg/sglang:v0.4.6.post1-cu124` -> 0.4.6.post1; a container file
    named the way `singularity pull docker://vllm/vllm-openai:v0.8.1` names it, `<repo>_<tag>.sif`
    (`/work/vllm-openai_v0.8.1.sif` -> 0.8.1, sample K162)."""
    if image and image.lower().endswith(_CONTAINER_FILES):
        image = _pulled_as(image.rsplit("/", 1)[-1])
    if not image or ":" not in image.rsplit("/", 1)[-1]:
        return None
    named = _NAMED_RELEASE.search(image.rsplit(":", 1)[1])
    if named is not None and named.group(1).lower() in engine_names():
        return named.group(2)  # `rocm/vllm:rocm7.0.0_vllm_0.11.2_20251210`: the tag says which release it holds
    repo = image.rsplit(":", 1)[0].rsplit("/", 1)[-1]
    if not any(repo == name or release_tagged(repo, facts(name).VERSION_TAGGED_IMAGES) for name in engine_names()):
        return None  # a wrapper image (dynamo, llm-d, cuda base): its tag is not the engine version
    if month_tag(image) is not None:
        return None  # `nvcr.io/nvidia/vllm:25.11-py3`: a container of a month, not vLLM 25.11 (kvlint.resolve dates it)
    tag = image.rsplit(":", 1)[1].split("@", 1)[0]
    m = _VERSION.match(tag)
    return m.group(1) if m else None


# an engine's name then its release inside a tag (AMD's `rocm/vllm:rocm7.0.0_vllm_0.11.2_20251210`, sample K352's
# NixOS module; `...:vllm-v0.9.2-cuda12`): the release the image holds, stated, whatever the date beside it says
_NAMED_RELEASE = lazy(r"(?i)(?:^|[_-])(vllm|sglang)[_-]v?(\d+\.\d+\.\d+(?:\.post\d+|rc\d+)?)(?![\d.])")
_CONTAINER_FILES = (".sif", ".sqsh", ".simg")
_PULLED = lazy(r"^([a-z0-9][a-z0-9.-]*)_(v?\d[\w.-]*)\.(?:sif|sqsh|simg)$")


def _pulled_as(base: str) -> str | None:
    """`vllm-openai_v0.8.1.sif` -> `vllm-openai:v0.8.1`: the image a pulled container file was made from, by the
    name `singularity pull` / `apptainer pull` gives it (`<repo>_<tag>.sif`); None for any other name."""
    m = _PULLED.match(base.lower())
    return f"{m.group(1)}:{m.group(2)}" if m else None


def make_deployment(path: str, engine: str, fields: list[Field], launch_span: Span | None, ctx: LaunchContext,
                    gpu: ManifestGpu) -> Deployment:
    limits.check()  # every reader builds each launch here: the file's time budget is looked at once per launch
    parsed = parse(engine, [f.token() for f in fields])
    if parsed.model is None and not ctx.wrapper and (own := _builds_own_options(engine, fields, ctx.image)):
        ctx = replace(ctx, notes=(*ctx.notes, own))  # the words are not the engine's: none is read as its flag
        parsed = replace(parsed, settings={}, unknown=[], invalid=[], errors=[])
    if gpu.product and _unresolved(gpu.product):
        why = f"GPU product {gpu.product!r} is not resolved: {_why(gpu.product, set())}"
        gpu = replace(gpu, product=None, product_span=None, notes=gpu.notes + (why,))
    missing = {e for f in fields if not f.resolved for e in f.missing}
    notes = list(ctx.notes) + list(gpu.notes) + [f"flag parse: {e}" for e in parsed.errors]
    if ctx.wrapper:
        notes += [f"{u.flag} is not a {engine} flag; left to the {ctx.wrapper} wrapper" for u in parsed.unknown]
    runtime = dict(ctx.runtime_vars)
    expanded = [(f.span, f.origin) for f in fields if f.origin and f.span is not None]
    settings = {}
    for name, s in parsed.settings.items():
        s = _mark(s, missing, _origin(ctx.origin, _expansion_origin(s.span, expanded)))
        if not s.resolved:
            notes.append(f"{name} = {s.raw!r} is not resolved: {_why(s.raw, missing, runtime)}")
        settings[name] = s
    model = _mark(parsed.model, missing, ctx.origin) if parsed.model else None
    if model is not None and not model.resolved:
        notes.append(f"model {model.raw!r} is not resolved: {_why(model.raw, missing, runtime)}")
    sourced = next((n for n, why in runtime.items() if why.startswith(SOURCED_ARRAY)
                    and any(f.text == f"${n}" for f in fields)), None) if model is None else None
    if sourced is not None:  # `"${SGLANG_ARGS[@]}"` of a file the script sources (sample K242): its words, unread
        notes.append(f"{SOURCED_ARGS} ${sourced}, {runtime[sourced]}: the model is among them")
    if model is None and ctx.wrapper:  # `mineru-sglang-server --port N`: the program serves a model of its own
        notes.append(f"no model named: the {ctx.wrapper} wrapper starts {engine} with the model it chooses")
    served = settings.get(_SERVED)
    served_name = served.value if served else None
    release = version_from_image(ctx.image)
    if served and isinstance(served.value, list):
        served_name = served.value[0] if served.value else None
    dep = Deployment(
        path=path, engine=engine, launch_span=launch_span,
        model=str(model.value) if model and model.value is not None else None,
        model_span=model.span if model else None,
        model_resolved=model.resolved if model else True,
        served_model_name=str(served_name) if served_name is not None else None,
        engine_version=release, engine_version_span=ctx.image_span if release else None,
        image=ctx.image, image_span=ctx.image_span,
        settings=settings, unknown_flags=() if ctx.wrapper else tuple(parsed.unknown),
        gpu=gpu.product, gpu_span=gpu.product_span, gpu_count=gpu.count, gpu_count_span=gpu.count_span,
        gpu_count_visible_only=gpu.visible_only,
        gpu_count_grouped=gpu.grouped,
        gpu_count_shared=gpu.shared,
        name=ctx.name, ignore_codes=ctx.ignore_codes, notes=tuple(dict.fromkeys(notes)),
        invalid_values=tuple(_keyed(v, expanded) for v in parsed.invalid if not _wrapper_reads_bools(ctx.wrapper, v)),
        env_switches=_switches(ctx.alias_env),
        gpu_options=gpu.options, node_labels=ctx.node_labels, declared_load=ctx.declared_load,
        model_aliases=_aliases(model, served, ctx), disabled=ctx.disabled, disabled_why=ctx.disabled_why,
        runner=ctx.runner, server=parsed.server,
        container=ctx.container, program=ctx.program,
    )
    if parsed.extra and (model is not None or settings):  # `--model X --port 8000 ${VLLM_ARGS}`: the arguments the
        # caller adds may set the parallelism (arguments alone, `IMAGE $SERVER_ARGS`, are no launch: is_launch)
        word = parsed.extra[-1]
        dep = parallelism_left_to(dep, f"the arguments {word.text}", word.span, roles=("tp", "pp", "dp"))
    elif model is not None and not model.flag and not model.resolved and _ARGUMENTS.fullmatch(model.raw or ""):
        # `api_server --port 5000 ${VLLM_ARGS}` with no model flag: the model is in the arguments, and so may be more
        dep = parallelism_left_to(dep, f"the arguments {model.raw}", model.span, roles=("tp", "pp", "dp"))
    for option in parsed.open_options:  # `--"$p_type" "$p_count"`: the caller names the option, which may be TP
        dep = parallelism_left_to(dep, f"the option {option.text}", option.span, roles=("tp", "pp", "dp"))
    for unknown in parsed.unknown:  # `--pp 2` on a release that may have had one `--pp` option
        dep = _abbreviated_parallelism(dep, unknown, release)
    return dep


def _abbreviated_parallelism(dep: Deployment, unknown: UnknownFlag, pinned: str | None) -> Deployment:
    """An ambiguous abbreviation of a parallelism option, on a release that may have had that option alone: where
    the server starts, the abbreviation set it, so the launch is sized with the value written (where it is
    ambiguous the server exits: KV004 says so). Never the default of 1 that would size another deployment."""
    role = _abbreviated_role(dep.engine, unknown, pinned)
    name = get_engine(dep.engine).setting(role) if role else ""
    if not name or name in dep.settings:
        return dep
    value: Any = int(unknown.value) if unknown.value.isdigit() else unknown.value
    added = Setting(name=name, value=value, flag=unknown.flag, raw=unknown.value, span=unknown.span,
                    resolved=isinstance(value, int))
    note = (f"{unknown.flag} {unknown.value} read as {name}: the one option of its kind it abbreviates on releases "
            "that may have had it alone (where it is ambiguous the server exits)")
    return replace(dep, settings={**dep.settings, name: added}, notes=dep.notes + (note,))


def _abbreviated_role(engine: str, unknown: UnknownFlag, pinned: str | None) -> str | None:
    """The parallelism role (tp, pp, dp) an ambiguous abbreviation may set on the release that runs it: one of the
    options it abbreviates plays that role, and that release may have had it alone (sample K250: `--pp 2` on SGLang
    0.4.10.post2, older than every release read, where `--pp-size` was the only `--pp` option); None otherwise."""
    from kvlint.flags.flag_table import earlier, flag_table, match, releases_read

    read = releases_read(engine)
    since = unknown.since
    before = (since is not None and (pinned is None or earlier(pinned, since))) or \
        (pinned is not None and bool(read) and earlier(pinned, read[0]))
    if unknown.reason != "ambiguous" or not before or not unknown.suggestion:
        return None
    table, eng = flag_table(engine), get_engine(engine)
    dests = {spec.dest for hit in unknown.suggestion.split(", ") if (spec := match(table, hit)[0]) is not None}
    roles = [role for role in ("tp", "pp", "dp") if eng.setting(role) in dests]
    return roles[0] if len(roles) == 1 else None


# a word that is one expansion of a variable named for a list of arguments (`${VLLM_ARGS}`, `$EXTRA_OPTS`, `"$@"`)
_LIST_NAME = r"(?:ARGS|ARGUMENTS|OPTS|OPTIONS|FLAGS|PARAMS)"
_ARGUMENTS = lazy(rf"[\"']?\$(?:\{{[^}}]*{_LIST_NAME}\}}|[A-Za-z_]\w*{_LIST_NAME}|\{{?[@*]\}}?)[\"']?", re.IGNORECASE)

def _aliases(model: Setting | None, served: Setting | None, ctx: LaunchContext) -> tuple[ModelAlias, ...]:
    """Hub ids for a model given as a path (none for a Hub id or an unresolved reference)."""
    if model is None or model.value is None:
        return ()
    if ctx.extra_aliases:
        return ctx.extra_aliases + _aliases(model, served, replace(ctx, extra_aliases=()))
    if not model.resolved:  # only the literal tail of an unresolved path can name the model
        raw = str(model.raw or model.value)
        own = path_alias(raw) if is_path_like(raw) or _VAR_PREFIX.match(raw) else None
        return (ModelAlias(own, "path", model.span),) if own else ()
    names = served.value if served is not None and isinstance(served.value, list) else [served.value] if served else []
    served_names = [(str(n), served.span if served else None) for n in names if served is not None and served.resolved]
    return model_aliases(str(model.value), served_names, ctx.alias_env, ctx.mounts, ctx.storage, model.span)


_VAR_PREFIX = re.compile(r"^\$\{?[A-Za-z_][A-Za-z0-9_]*\}?/")  # `$ROOT/...`, `${ROOT}/...`: a path under a variable


_NOT_NAME = lazy(r"[^A-Za-z0-9_]")


def _why_var(expr: str, runtime: dict[str, str]) -> str:
    name = _NOT_NAME.sub("", expr.split(":", 1)[0].split("-", 1)[0])
    if name in runtime:
        return f"{expr} is set at run time ({runtime[name]})"
    for prefix, who in _OPERATOR_VARS:
        if name.startswith(prefix):
            return f"{expr} is set at run time by {who}"
    return f"{expr} not defined in this file"


def _origin(context: str, expansion: str) -> str:
    """A value supplied from outside the file (configuration, chart values) says so, even inside a
    chart adapter; otherwise the reader's own origin, then how the shell expanded it."""
    if expansion in SUPPLIED_ORIGINS or expansion == CHART_KEY:
        return expansion
    return context if context != "explicit" else expansion


def _keyed(bad: InvalidValue, expanded: list[tuple[Span, str]]) -> InvalidValue:
    """A refused value, marked when a chart's key gave it (KV007 judges it as the chart's template's to write)."""
    return replace(bad, origin=CHART_KEY) if expanded and _expansion_origin(bad.span, expanded) == CHART_KEY else bad


def _expansion_origin(span: Span | None, expanded: list[tuple[Span, str]]) -> str:
    """"default-expansion" / "variable" when the value's text came from a shell variable."""
    for fspan, origin in expanded:
        if span is not None and fspan.path == span.path and (fspan.line, fspan.col) <= (span.line, span.col) \
                and (span.end_line, span.end_col) <= (fspan.end_line, fspan.end_col):
            return origin
    return "explicit"


def _mark(s: Setting, missing: set[str], origin: str) -> Setting:
    raw = s.raw if s.raw else (s.value if isinstance(s.value, str) else "")
    unresolved = any(e in raw for e in missing) or _unresolved(raw)
    changes: dict[str, Any] = {}
    if unresolved:
        changes.update(resolved=False, value=raw)
    if origin != "explicit" and s.origin == "explicit":
        changes["origin"] = origin
    return replace(s, **changes) if changes else s


def _why(raw: str, missing: set[str], runtime: dict[str, str] | None = None) -> str:
    found = sorted(e for e in missing if e in raw)
    if found:
        return "; ".join(_why_var(e, runtime or {}) for e in found)
    if "{{" in raw or has_placeholder(raw):
        return "template expression filled in at deploy time"
    if re.search(r"\{[a-z_]+\}", raw):
        return "format placeholder filled in by whatever renders this file"
    return "expression evaluated at run time"


def _entry_span(found: FoundLaunch) -> Span | None:
    """`sglang serve`: the argv keeps `serve` (it allows the positional model), the launch span covers it."""
    first = found.fields[0] if found.fields else None
    keeps_serve = get_engine(found.engine).syntax.positional_model == "after-serve"
    if keeps_serve and first is not None and first.text == "serve" and found.entry_span and first.span:
        from kvlint.flags.token_spans import join_spans

        return join_spans(found.entry_span, first.span)
    return found.entry_span


def _otherwise(path: str, found: FoundLaunch, ctx: LaunchContext, gpu: ManifestGpu, dep: Deployment) -> Deployment:
    """The launch with the settings of the file's other branch (FoundLaunch.otherwise), when they differ."""
    assert found.otherwise is not None
    fields, why = found.otherwise
    other = make_deployment(path, found.engine, list(fields), _entry_span(found), ctx, gpu).settings
    if {k: s.value for k, s in other.items()} == {k: s.value for k, s in dep.settings.items()}:
        return dep
    return replace(dep, otherwise=other, otherwise_why=why)


def _devices_set_at_run_time(found: FoundLaunch, gpu: ManifestGpu) -> ManifestGpu:
    """`CUDA_VISIBLE_DEVICES=$GPU vllm serve ... &` in a loop over the job's GPUs (sample K143): the launch sees
    devices chosen at run time, so the job's request is shared with its other runs, not this launch's alone."""
    if not (found.gpus or "").startswith("cuda:") or "$" not in (found.gpus or "") or gpu.count is None:
        return gpu
    assert found.gpus is not None
    copies = f"other copies of this server on CUDA_VISIBLE_DEVICES={found.gpus[5:]} (chosen at run time)"
    return replace(gpu, shared=gpu.shared or copies)


def finish(path: str, found: FoundLaunch, ctx: LaunchContext, gpu: ManifestGpu) -> Deployment:
    """Deployment from a launch; launch-level hints (CUDA_VISIBLE_DEVICES, GRES) fill gaps."""
    if found.image is not None:
        ctx = replace(ctx, image=found.image.text, image_span=found.image.span)
    if found.gpus and (found.gpus_span is not None or gpu.count is None):  # a device list on the launch line wins
        product, count = from_launch_hint(found.gpus)
        if count is not None or product is not None:
            gpu = replace(gpu, product=product or gpu.product,
                          product_span=found.gpus_span if product else gpu.product_span,
                          count=count if count is not None else gpu.count,
                          count_span=found.gpus_span if count is not None else gpu.count_span,
                          visible_only=count is not None and found.gpus.startswith("cuda:"),
                          shared=None if count is not None else gpu.shared)
    gpu = _devices_set_at_run_time(found, gpu)
    own_env = found.container_env if found.container_env is not None else tuple(found.env.items())
    alias_env = ctx.alias_env or tuple((k, v, None) for k, v in own_env)
    ctx = replace(ctx, name=found.name or ctx.name, notes=ctx.notes + found.notes,
                  runtime_vars=ctx.runtime_vars + found.runtime_vars, wrapper=found.wrapper, alias_env=alias_env,
                  mounts=ctx.mounts + found.mounts, runner=found.runner or ctx.runner, program=found.program,
                  container=found.container or ctx.container)

    dep = merge_config_file(make_deployment(path, found.engine, list(found.fields), _entry_span(found), ctx, gpu))
    if dep.gpu is None:

        why = cpu_evidence(dep, dict(own_env), [(f.text, f.span) for f in found.fields])
        if why is not None:  # the device kvlint does not size: "cpu" makes the launch's status say so
            dep = replace(dep, gpu=why[2], gpu_span=why[1] or dep.launch_span, notes=dep.notes + (why[0],))
    if found.joined:
        dep = replace(dep, one_word_args=found.joined)
    if found.before_image:
        dep = replace(dep, runner_rejects=found.before_image)
    if found.otherwise is not None:
        dep = _otherwise(path, found, ctx, gpu, dep)
    if found.overridable:
        dep = replace(dep, caller_overridable=found.overridable)
    if found.arm:
        dep = replace(dep, one_of_arms=True)
    if found.compose_cut is not None:
        dep = replace(dep, compose_cut=found.compose_cut)
    if found.cut is not None:
        dep = replace(dep, cut=found.cut)
    if found.no_subcommand is not None:
        from kvlint.engines.registered import facts

        program, sub = facts(found.engine).CLI_SUBCOMMAND or (found.no_subcommand.text, "serve")
        dep = replace(dep, no_subcommand=(found.no_subcommand.span, program, sub))
    if found.no_main is not None:
        from kvlint.engines.registered import facts

        program, sub = facts(found.engine).CLI_SUBCOMMAND or (found.no_main.text, "serve")
        dep = replace(dep, no_main=(found.no_main.span, found.no_main.text, f"{program} {sub}"))
    if found.no_server is not None:
        first = found.fields[0].text if found.fields else ""
        dep = replace(dep, no_server_image=(found.no_server.span, found.no_server.text, first))
    if found.left_to is not None:
        dep = parallelism_left_to(dep, found.left_to, found.entry_span)
    if found.cluster is not None and not gpu.grouped:  # a group kvlint summed (an LWS whose leader starts Ray) is
        dep = nodes_left_to(dep, found.cluster, found.entry_span)  # the cluster: its node count is known
    nnodes = dep.get("nnodes")
    if isinstance(nnodes, int) and nnodes > 1 and dep.gpu_count and not gpu.grouped:
        note = f"gpu count = per-node GPUs x --nnodes {nnodes}"
        dep = replace(dep, gpu_count=dep.gpu_count * nnodes, gpu_count_grouped=True, notes=dep.notes + (note,))
    return dep



def parallelism_left_to(dep: Deployment, program: str, where: Span | None,
                        roles: tuple[str, ...] = ("tp", "pp")) -> Deployment:
    """A launch read by its flags through a program with options of its own: the parallelism the file does not
    state may be the program's to set (a cluster launcher spreads TP x PP over the nodes it starts), so it is an
    open input, not the engine's default of 1. A verdict that depends on it is not given (an open TP bounded by
    the GPUs requested is tried at each size: kvlint.resolve)."""
    engine = get_engine(dep.engine)
    open_roles = {engine.setting(role): f"(left to {program})" for role in roles
                  if engine.setting(role) not in dep.settings}
    if not open_roles:
        return dep
    added = {name: Setting(name=name, value=raw, raw=raw, span=where, resolved=False, origin="variable")
             for name, raw in open_roles.items()}
    note = f"{', '.join(added)} not stated: {program} may set them; not resolved"
    return replace(dep, settings={**dep.settings, **added}, notes=dep.notes + (note,))


def nodes_left_to(dep: Deployment, cluster: str, where: Span | None) -> Deployment:
    """A launch on a Ray cluster (`ray start --head ... & vllm serve ...`): its ranks are placed on every node that
    joins, so the instance's GPUs are this node's times a node count the file does not state: an open group size
    (a range, never 1: KV204 asks whether any node count gives the ranks)."""
    name = get_engine(dep.engine).setting("nodes")
    if not name or name in dep.settings:
        return dep
    raw = f"(the nodes of {cluster})"
    added = Setting(name=name, value=raw, raw=raw, span=where, resolved=False, origin="open")  # no flag written
    note = f"{name} not stated: {cluster} places the ranks on every node that joins it; not resolved"
    return replace(dep, settings={**dep.settings, name: added}, notes=dep.notes + (note,))


# wrappers whose own parser takes a value after a switch (`trl vllm-serve --enforce_eager false`: Hugging Face's
# dataclass parser reads `true`/`false` there) before it hands vLLM the settings
_BOOL_VALUE_WRAPPERS = frozenset({"trl vllm-serve", "trl.scripts.vllm_serve"})


def _wrapper_reads_bools(wrapper: str | None, value: InvalidValue) -> bool:
    return wrapper in _BOOL_VALUE_WRAPPERS and value.reason.startswith(f"{value.flag} takes no value")


def _switches(env: tuple[tuple[str, str, Span | None], ...]) -> tuple[str, ...]:
    """The engine variables the process sees switched on (`VLLM_ALLOW_LONG_MAX_MODEL_LEN=1`): rules ask for the ones
    that change a verdict (kvlint.engines.base.Engine.long_context_switch)."""
    on = ("1", "true", "yes", "on")
    return tuple(sorted({name for name, value, _ in env if name.startswith(("VLLM_", "SGLANG_"))
                         and str(value).strip().strip("'\"").lower() in on}))
