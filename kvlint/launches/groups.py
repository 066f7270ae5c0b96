"""One deployment, one launch: an image's entry point is not a launch, and the rank branches of one multi-node
script and vLLM's `--headless` data-parallel workers are the same engine deployment as their leader.

A multi-node script writes the same command twice (`if [ "$RANK" -eq 0 ]; then ... else ... fi`), differing
only in the flags that say which node a process is (`--node-rank`, `--dist-init-addr`, `--headless`,
`--data-parallel-start-rank`, ...). Two launches of one script with the same engine whose arguments are
equal once those flags are set aside are one deployment: the leader (the first launch that is not
`--headless`) stands for the group, and its `--nnodes` / `--data-parallel-size` already describe the whole
group, so its GPUs are the group's (kvlint.launches.build multiplies the per-node count by `--nnodes`).
"""

from __future__ import annotations

import re

from kvlint.deployment import NO_MODEL_HERE, Deployment
from kvlint.launches.script import FoundLaunch
from kvlint.record import replace

_PASSED_THROUGH = re.compile(r'^"?\$(\{?[@*]\}?|\{[A-Za-z_][A-Za-z0-9_]*\[[@*]\]\})"?$')

# flags that name a process's place in a multi-node group (both engines' spellings); value-less ones apart
ROLE_FLAGS = frozenset({"--node-rank", "--node_rank", "--dist-init-addr", "--dist_init_addr", "--headless",
                        "--data-parallel-start-rank", "--data_parallel_start_rank", "--data-parallel-rank",
                        "--data-parallel-address", "--data_parallel_address", "--master-addr", "--master-port"})
_NO_VALUE = frozenset({"--headless"})
# the address a process serves on differs per node too (`--host 10.0.0.1` on one, `.2` on the next; only the
# leader serves HTTP, so its `--host` / `--port` may be missing on the workers); alone it does not make two
# commands one group: a group folds only when one of its members has a role flag
_NODE_ADDRESS = frozenset({"--host", "--port"})
# what only the node that serves HTTP reads (its parsers of a response, its chat template, its key): written on the
# leader's branch alone (sample K408: `--tool-call-parser glm47 --reasoning-parser glm45 --enable-auto-tool-choice`
# on rank 0, not on the `--headless` ranks), set aside like the address; True: the option takes a value
_FRONT_END = {"--tool-call-parser": True, "--reasoning-parser": True, "--enable-auto-tool-choice": False,
              "--chat-template": True, "--api-key": True, "--uvicorn-log-level": True, "--disable-log-requests": False,
              "--enable-log-requests": False, "--allowed-origins": True, "--root-path": True,
              "--response-role": True, "--ssl-keyfile": True, "--ssl-certfile": True}


def one_per_deployment(launches: list[FoundLaunch]) -> list[FoundLaunch]:
    """The launches with each group of rank branches / headless workers folded into its leader, and one command
    written once but run from two places (`"${CMD[@]}"` in a detached and a foreground arm) counted once."""
    if len(launches) < 2:
        return launches
    launches = _written_once(launches)
    keys = [(found.engine, _shape(found)) for found in launches]
    groups: dict[tuple[str, tuple[str, ...]], list[int]] = {}
    for k, key in enumerate(keys):
        groups.setdefault(key, []).append(k)
    # each group's leader, decided once per group (a script repeating one command a thousand times is one group:
    # asked per launch, the question was a million checks)
    leaders = {key: next((m for m in members if not _headless(launches[m])), members[0])
               for key, members in groups.items()
               if len(members) > 1 and any(_has_role(launches[m]) for m in members)}  # else the same command twice
    out: list[FoundLaunch] = []
    for k, found in enumerate(launches):
        leader = leaders.get(keys[k])
        if leader is None:
            out.append(found)
        elif k == leader:
            out.append(_leader(found, [launches[m] for m in groups[keys[k]] if m != k]))
    return _frontends_folded(out)


def _frontends_folded(launches: list[FoundLaunch]) -> list[FoundLaunch]:
    """A frontend-only node (`--data-parallel-size-local 0`: the API server, no engine of its own; sample K295's Rust
    frontend) beside `--headless` engines of the same engine and model: one deployment, counted at the engines'
    command, which holds the KV pool."""
    fronts = [k for k, f in enumerate(launches) if _frontend_only(f)]
    if not fronts:
        return launches
    drop: set[int] = set()
    for k in fronts:
        model = _model_word(launches[k])
        engines = next((m for m, f in enumerate(launches) if m != k and f.engine == launches[k].engine
                        and _headless(f) and _model_word(f) == model), None)
        if engines is not None:
            drop.add(k)
            launches[engines] = _leader(launches[engines], [launches[k]])
    return [f for k, f in enumerate(launches) if k not in drop]


def _model_word(found: FoundLaunch) -> str | None:
    """The model a launch names as written (`--model M` or the positional), by the engine's own parsing rules."""
    from kvlint.launches.argv import parse

    model = parse(found.engine, [f.token() for f in found.fields]).model
    return str(model.value) if model is not None and model.value is not None else None


_CALLERS = frozenset({"$@", "${@}", "$*", "${*}"})  # the script's own arguments, as a word of a command


def _written_once(launches: list[FoundLaunch]) -> list[FoundLaunch]:
    """The first of each set of launches that are the same words at the same places with the same devices: one
    command (an array, a function called with the same arguments) run from several places of the script is one
    deployment. Different values at those places (a loop's, a call's arguments) or other devices keep both; a run
    that states no devices beside one that does (a dry-run helper handed the array before the script exports
    CUDA_VISIBLE_DEVICES, sample K58) is the same deployment, kept with its devices."""
    kept: dict[tuple[object, ...], dict[str | None, int]] = {}  # words at their places -> devices -> index in out
    out: list[FoundLaunch | None] = []
    for found in launches:
        if any(f.span is None for f in found.fields):
            out.append(found)
            continue
        # plain tuples of the places (a record's hash is Python code, asked once per word otherwise)
        # the caller's own arguments (`"$@"`) are the same words wherever each run writes them (sample K250: `exec
        # "${args[@]}" "$@"` in one arm, `on-demand-server ... -- "${args[@]}" "$@"` in the other)
        key = (found.engine, found.image.text if found.image else None,
               tuple((f.text,) if f.text in _CALLERS else (f.text, f.span.line, f.span.col)
                     for f in found.fields if f.span is not None))
        devices = kept.setdefault(key, {})
        if found.gpus in devices or (found.gpus is None and devices):
            continue
        if found.gpus is not None and None in devices:  # the earlier run stated no devices: this one is it
            out[devices.pop(None)] = None
        devices[found.gpus] = len(out)
        out.append(found)
    return [found for found in out if found is not None]


def is_launch(dep: Deployment) -> bool:
    """False for an engine started with no arguments at all, or with only the arguments its caller passes
    through (`"$@"`, `"${ARGS[@]}"`): that is an image's entry point or a wrapper script, whose launch is where
    it is called with a model (the never-silent note says so)."""
    if dep.model is None:  # a bare `vllm serve`; with flags (or --config) it is a launch whose model is missing
        # (or with the words of an array a file the script sources sets, the model among them: sample K242; or with
        # the options of a build's own entry point, which names the model: kvlint.launches.build, sample K304)
        return bool(dep.settings or dep.unknown_flags or dep.invalid_values) or \
            any(n.startswith(NO_MODEL_HERE) for n in dep.notes)
    # a config file named beside the caller's words (`vllm serve --config cfg.yaml "$@"`, sample K304): the
    # file holds the model, and the launch is this one, the caller adding to it
    return not (not dep.model_resolved and _PASSED_THROUGH.match(dep.model)) or "config" in dep.settings


def _shape(found: FoundLaunch) -> tuple[str, ...]:
    """The launch's words without the role flags and their values: equal for the branches of one group."""
    words: list[str] = []
    skip = False
    for f in found.fields:
        if skip:
            skip = False
            continue
        name, eq, value = f.text.partition("=")
        if name in ROLE_FLAGS or name in _NODE_ADDRESS:
            skip = not eq and name not in _NO_VALUE
            continue
        if name in _FRONT_END:
            skip = not eq and _FRONT_END[name]
            continue
        if name == "--model":  # `serve M` and `--model M` name one model (a frontend handed it either way)
            if eq:
                words.append(value)
            continue
        words.append(_BRACED.sub(r"$\1", f.text) if "${" in f.text else f.text)
    return tuple(words)


# one variable written two ways (`$MODEL_DIR/$MODEL_NAME` on the head's branch, `$MODEL_DIR/${MODEL_NAME}` on the
# others', sample K68): the same word once unresolved
_BRACED = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


def _has_role(found: FoundLaunch) -> bool:
    return any(f.text.partition("=")[0] in ROLE_FLAGS for f in found.fields)


def _headless(found: FoundLaunch) -> bool:
    return any(f.text == "--headless" for f in found.fields)


def _frontend_only(found: FoundLaunch) -> bool:
    """A node that runs no engine of its own, only the API server (`--data-parallel-size-local 0`)."""
    words = [f.text for f in found.fields]
    return any((w in ("--data-parallel-size-local", "-dpl") and k + 1 < len(words) and words[k + 1] == "0")
               or w == "--data-parallel-size-local=0" for k, w in enumerate(words))


def _leader(found: FoundLaunch, others: list[FoundLaunch]) -> FoundLaunch:
    lines = sorted({o.entry_span.line for o in others if o.entry_span is not None})
    where = f" (line{'s' if len(lines) > 1 else ''} {', '.join(map(str, lines))})" if lines else ""
    note = (f"{len(others) + 1} launches of one deployment: the other rank branch(es) or --headless worker(s)"
            f"{where} differ only in which node they are, and are counted with this one")
    return replace(found, notes=found.notes + (note,))


_ROLE_SETTINGS = frozenset({"node_rank", "dist_init_addr", "data_parallel_start_rank", "data_parallel_rank",
                            "data_parallel_address", "headless", "master_addr", "master_port", "host", "port",
                            "disaggregation_ib_device"})  # each node names its own RDMA devices


def one_per_group(deps: list[Deployment]) -> list[Deployment]:
    """The launches of one file read from separate places (an Ansible task per node, a YAML string per rank) with
    each group folded into its leader, as `one_per_deployment` does inside one script: the same engine, model and
    settings once the role settings are set aside, one of them naming its node (`--node-rank`, `--headless`)."""
    if len(deps) < 2 or not any(_role(d) for d in deps):
        return deps
    groups: dict[tuple, list[int]] = {}
    for k, dep in enumerate(deps):
        groups.setdefault(_dep_shape(dep), []).append(k)
    drop: set[int] = set()
    notes: dict[int, str] = {}
    for members in groups.values():
        if len(members) < 2 or not any(_role(deps[m]) for m in members):
            continue
        leader = next((m for m in members if deps[m].get("node_rank") in (0, None) and not deps[m].get("headless")),
                      members[0])
        others = [m for m in members if m != leader]
        drop.update(others)
        lines = sorted({s.line for m in others if (s := deps[m].launch_span) is not None})
        notes[leader] = (f"{len(members)} launches of one deployment: the other node(s) (line"
                         f"{'s' if len(lines) > 1 else ''} {', '.join(map(str, lines))}) differ only in which node "
                         "they are, and are counted with this one")
    return [replace(d, notes=d.notes + (notes[k],)) if k in notes else d for k, d in enumerate(deps) if k not in drop]


def _role(dep: Deployment) -> bool:
    """Whether the launch names its node of a multi-node group: a rank, `--headless`, or a rendezvous address on more
    than one node. `--dist-init-addr 127.0.0.1:29500` with no `--nnodes` is one node (turn 37's K333: two TP4
    replicas of one compose anchor, two deployments, were folded into one)."""
    if any(name in dep.settings for name in ("node_rank", "headless", "data_parallel_start_rank")):
        return True
    nodes = dep.settings.get("nnodes")
    return "dist_init_addr" in dep.settings and nodes is not None and (not nodes.resolved or nodes.value != 1)


def _dep_shape(dep: Deployment) -> tuple:
    """What the nodes of one deployment share: engine, model, file, the layout of its ranks (TP, PP, DP, nodes) and
    its role in a P/D pair (prefill and decode are two deployments); the other flags a node's command adds under its
    own conditions (a worker's parsers, `--disable-cuda-graph`) and a value left open on one of them do not make it
    another deployment."""
    layout = tuple(sorted((n, repr(s.value)) for n, s in dep.settings.items() if n in _LAYOUT and s.resolved))
    # a P/D role its name says when no flag does (sample K132: llm-d's `vllm-worker-prefill` / `vllm-worker-decode`,
    # one command for both, the roles told apart by the routing sidecar)
    named = tuple(r for r in ("prefill", "decode") if r in re.split(r"[^a-z]+", (dep.name or "").lower()))
    return dep.engine, dep.model, dep.path, layout, named


_LAYOUT = frozenset({"tensor_parallel_size", "tp_size", "pipeline_parallel_size", "pp_size", "nnodes",
                     "data_parallel_size", "dp_size", "disaggregation_mode", "kv_transfer_config", "kv_role"})



def frontends_dropped(deployments: list[Deployment]) -> list[Deployment]:
    """The deployments of one manifest with each frontend-only process (`--data-parallel-size-local 0`: vLLM's API
    server with no engine core) dropped when a `--headless` engine of the same engine and model is beside it: one
    pod's two containers (sample K410's trace capture, the engine and its front end), one deployment, counted at the
    engine, which holds the KV pool."""
    def setting(d: Deployment, name: str) -> object:
        held = d.settings.get(name)
        return held.value if held is not None else None

    engines = [k for k, d in enumerate(deployments) if setting(d, "headless") is True]
    if not engines:
        return deployments
    out = list(deployments)
    drop: set[int] = set()
    for k, d in enumerate(deployments):
        if setting(d, "data_parallel_size_local") != 0 or setting(d, "headless") is True:
            continue
        beside = next((e for e in engines if out[e].engine == d.engine and out[e].model == d.model), None)
        if beside is not None:
            drop.add(k)
            where = f" (line {d.launch_span.line})" if d.launch_span is not None else ""
            out[beside] = replace(out[beside], notes=(*out[beside].notes, _FRONT_NOTE.format(where=where)))
    return [d for k, d in enumerate(out) if k not in drop]


_FRONT_NOTE = ("its API front end{where} runs no engine of its own (--data-parallel-size-local 0): one deployment with "
               "this --headless engine, counted here")
