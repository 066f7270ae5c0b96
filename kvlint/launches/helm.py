"""Helm chart values: one small adapter per known chart, then generic walks.

Unknown charts fall back to the Kubernetes container walk (argv lists under `command`/`args`),
then to any string that itself starts an engine (`start_command: vllm serve ...`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from functools import lru_cache
from typing import Any

from kvlint import limits
from kvlint.deployment import Deployment
from kvlint.findings import Finding
from kvlint.launches import ansible
from kvlint.launches.build import LaunchContext, ManifestGpu, finish
from kvlint.launches.env import Field
from kvlint.launches.k8s import read_k8s
from kvlint.launches.rewrite import substitute
from kvlint.launches.script import engines_named, launch_in_argv, run_script
from kvlint.lazyre import lazy
from kvlint.record import record, replace
from kvlint.sources.text import Mapped
from kvlint.sources.yaml import YamlFile, YNode

# launch_strings spells these out (every scalar of a document is asked): keep the two alike
ENTRY_MARKERS = ("vllm serve", "sglang serve", "sglang.launch_server", "vllm.entrypoints")


def read_values(yf: YamlFile, doc: YNode) -> tuple[list[Deployment], list[str | Finding]]:
    """A known chart's adapter, else the container walk, else launch strings; when all find nothing
    but the values deploy an engine image, the unknown-chart walk (a launch, or a KV008 finding), unless
    the chart's own templates beside this values.yaml hold the launch (then neither the generic adapter
    nor the unknown-chart walk assembles a second one from the values)."""
    from kvlint.launches.charts import adapters
    from kvlint.launches.helm_chart import templates_hold_launch

    for adapter, node in _claims(adapters(), doc):
        if adapter.__name__.endswith(".generic") and templates_hold_launch(yf.path):
            return [], []  # an unrecognised chart's values: its own template, read with them, is the launch
        return adapter.read(yf, node), []
    found = containers_and_strings(yf, doc)
    if found and any(d.model is not None for d in found):
        return found, []
    from kvlint.launches.charts import unknown

    if templates_hold_launch(yf.path):  # as above, for the unknown-chart walk (its launch or its KV008)
        return found, []
    deps, findings = unknown.read(yf, doc)
    if found and not deps:  # argv-shaped keys without a model: the container walk's reading stands
        return found, []
    return deps, list(findings)


def containers_and_strings(yf: YamlFile, doc: YNode) -> list[Deployment]:
    """The container walk's launches, and those of command strings elsewhere in the document that it did not
    read (a CI pipeline's `command:` string read as a container's beside another step's `commands:` list)."""
    found = read_k8s(yf, doc)
    strings = launch_strings(yf, doc)
    if not found or (strings and (_recipe_defaults(doc) or _recipe_values(doc))):
        return strings  # a recipe's `command:` is a shell string its runner fills from its keys, not a container
    lines = {d.launch_span.line for d in found if d.launch_span is not None}
    lines |= {d.model_span.line for d in found if d.model_span is not None}
    extra = [d for d in strings if d.launch_span is not None and d.launch_span.line not in lines
             and (d.model_span is None or d.model_span.line not in lines) and not _read_again(d, found)]
    return sorted(found + extra, key=lambda d: (d.launch_span.line, d.launch_span.col) if d.launch_span else (0, 0))


def _read_again(string: Deployment, found: list[Deployment]) -> bool:
    """Whether a command string's launch is a container launch read again: the same engine and model as the nearest
    container launch (sample K194: a `bash -c` script whose stray quote left the string's reading at the list item
    and the container's at its command line, two places for one command)."""
    at = string.launch_span.line if string.launch_span is not None else 0
    placed = [d for d in found if d.launch_span is not None]
    nearest = min(placed, key=lambda d: abs(d.launch_span.line - at) if d.launch_span else 0, default=None)
    return nearest is not None and (nearest.engine, nearest.model) == (string.engine, string.model)


def _claims(adapters: list, doc: YNode) -> Iterator[tuple[Any, YNode]]:
    """The adapter that knows the document, else one that knows a map below it (breadth first, a few levels):
    an umbrella chart's values hold each subchart's under the subchart's name (`vllm-stack:`, `global.stack:`),
    and a known chart there is still that chart."""
    for adapter in adapters:
        if adapter.matches(doc):
            yield adapter, doc
            return
    level, seen = [doc], 0
    charts = [adapter for adapter in adapters if not adapter.__name__.endswith(".generic")]
    keys = _chart_keys(tuple(charts))
    for _ in range(_SUBCHART_DEPTH):
        below = [v for node in level for _, _, v in node.pairs() if v.is_map]
        for child in below:
            seen += 1
            limits.check()
            if seen > _SUBCHART_MAPS:
                return
            if not child.has_any(keys):  # no chart's key: no adapter's matches() can accept it
                continue
            for adapter in charts:
                if adapter.matches(child):
                    yield adapter, child
                    return
        level = below


@lru_cache(maxsize=4)
def _chart_keys(charts: tuple[Any, ...]) -> tuple[str, ...]:
    """Every key one of these charts' maps must hold (each adapter's KEYS): one test per map of a subchart walk
    instead of a matches() per adapter (a values file's ~1,600 maps were ~13,000 matches calls)."""
    return tuple(dict.fromkeys(key for chart in charts for key in chart.KEYS))


_SUBCHART_DEPTH = 3  # subchart values sit under their name, at most under a parent's name or two
_SUBCHART_MAPS = 2000


# GitHub Actions `env:` (workflow, job, step), GitLab `variables:`, Ansible's `vars:`, Cloud Build's `substitutions:`
# (`${_MODEL_PATH}` in a step's arguments)
_SCOPES = ("env", "variables", "vars", "substitutions")
_GHA_REF = lazy(r"\$\{\{\s*env\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")


def launch_strings(yf: YamlFile, doc: YNode) -> list[Deployment]:
    """Engine launches inside any string value, read as a shell script (keeps the string's lines). A mapping's
    `env:` / `variables:` of plain values is the environment of the strings beside and below it (a workflow's
    `env:` feeds every job's `run:`, a step's its own), and `${{ env.NAME }}` reads as `$NAME`; a job's
    `strategy.matrix` lists are the values of `${{ matrix.NAME }}` (kvlint.launches.script's arms: one launch
    per model the matrix gives a command)."""
    out: list[Deployment] = []
    image = None
    inputs = _input_defaults(doc)
    recipe = _recipe_values(doc)
    given = {**{_INPUT_VAR + k: v for k, v in inputs.items()}, **{_RECIPE_VAR + k: v for k, v in recipe.items()}}
    start = _Scope(given, {}, {}, None)
    stack: list[tuple[YNode, _Scope]] = [(doc, start)]
    one_command: set[int] = set()  # llama-swap's `cmd:` values: one command over several lines
    modules = "module" in yf.text  # a debugger's `module:` + `args:` (asked of maps only in a text that has one)
    services = "services" in yf.text  # a CI job's service containers, `{name: IMAGE, command: [...]}`
    escaped = "\\n" in yf.text  # a quoted string of escaped lines (a compose file in JSON) is possible
    popped = 0
    while stack:
        if not popped & 3:  # every fourth node: a check per node was ~13,000 calls of a 1,000-file run
            limits.check()
        popped += 1
        node, scope = stack.pop()
        kind = node.kind
        if kind == "scalar":
            joined = id(node) in one_command
            if escaped and _quoted_document(node) and (embedded := _yaml_launches(yf, node)):
                out.extend(embedded)  # a compose file in a JSON string: its services, not one command of its lines
            elif _may_launch(_LINE_BREAK.sub(" ", node.text) if joined else node.text):
                out.extend(_string_launches(yf, node, scope, inputs, image, joined, recipe))
                if "<<" in node.text and "{{" in node.text:
                    out.extend(ansible.heredoc_manifests(yf.path, yf.text, yf.mapped(node), scope.env, scope.rows))
                elif "<<" in node.text and node.style == "|":
                    out.extend(_block_heredocs(yf, node))
            elif "<<" in node.text and "apiVersion:" in node.text and node.style == "|" and "kind:" in node.text:
                # a step's script that applies a manifest it writes (`cat <<ISEOF | oc apply -f -` of an
                # InferenceService, sample K418's Tekton task): the manifest's kind decides, not an engine's command
                out.extend(_block_heredocs(yf, node))
            elif _python_source(node) and (python := _python_launches(yf, node)):
                out.extend(python)
            elif _yaml_source(node):
                out.extend(_yaml_launches(yf, node))
            elif _flagged_command(node.text):  # a script that runs `python3 -c "import vllm"` is no Python program
                out.extend(_string_launches(yf, node, scope, inputs, image, joined, recipe))
        elif kind == "seq":
            argv = _word_list(yf, node, image) if node.items and node.items[0].is_scalar else []
            if argv:
                out.extend(argv)
                continue
            stack.extend([(item, scope) for item in reversed(node.items)])
        else:
            pairs = list(node.pairs())
            module = _module_run(yf, node, image) if modules and node.has_any(("module",)) else None
            if module is not None:
                out.append(module)
                continue
            service = _ci_service(yf, node) if services and node.has_any(("command",)) else None
            if service is not None:
                out.extend(service)
                continue
            paired = _command_and_args(yf, node, image) if node.has_any(_ARG_KEYS) else None
            if paired is not None:
                out.extend([paired] if isinstance(paired, Deployment) else [])  # `executable: pkill`: a pattern
                continue
            inner = _inner(node, pairs, scope)
            for key, _, val in reversed(pairs):
                if key == "cmd" and (node.has_any(_SWAP_KEYS) or _flag_lines(val)):  # asked only of a `cmd`
                    one_command.add(id(val))
                elif key == "models" and val.is_map:
                    one_command.update(_swap_commands(val))
                if key == "image" and image is None and val.kind == "scalar":
                    image = val.text
                elif key == "container" and image is None and val.kind == "scalar" and engines_named(val.text):
                    image = val.text  # a recipe's or a CI job's container (`container: vllm-node-mxfp4`, K183)
                stack.append((val, inner))
    return out


@record
class _Scope:
    """What the strings below a mapping see: the environment (`env:`, `variables:`, an Ansible play's `vars:`),
    a CI job's matrix, the play's list variables, and the elements of the task's loop."""

    env: dict[str, str]
    matrix: Matrix
    lists: dict[str, ansible.Rows]
    rows: ansible.Rows | None


_SCOPE_KEYS = frozenset(_SCOPES) | {"strategy", "vars"} | frozenset(ansible.LOOP_KEYS)


def _inner(node: YNode, pairs: list[tuple[str, YNode, YNode]], scope: _Scope) -> _Scope:
    """The scope the values below a mapping see; the mapping's own when it has none of the keys that change it
    (most mappings of most files: one set test per key)."""
    if not any(key in _SCOPE_KEYS for key, _, _ in pairs):
        return scope
    scoped = [val for key, _, val in pairs if key in _SCOPES]
    env = {**scope.env, **{k: v for val in scoped for k, v in _scope(val)}} if scoped else scope.env
    strategy = next((val for key, _, val in pairs if key == "strategy" and val.is_map), None)
    matrix = {**scope.matrix, **_matrix(strategy.get("matrix"))} if strategy is not None else scope.matrix
    play_vars = node.get("vars")
    lists = {**scope.lists, **ansible.lists_of(play_vars)} if play_vars is not None else scope.lists
    rows = ansible.loop_rows(node, lists) if node.has_any(ansible.LOOP_KEYS) else scope.rows
    return _Scope(env, matrix, lists, rows)


Matrix = dict[str, list[str]]
_MATRIX_VAR = "GITHUB_MATRIX__"  # the variable a `${{ matrix.NAME }}` with listed values is read as
_MAX_COMBINATIONS = 8


def _matrix(node: YNode | None) -> Matrix:
    """A job's `strategy.matrix` lists of plain values by a shell-safe form of their names (`include` /
    `exclude` and values that are maps or expressions are left out)."""
    out: Matrix = {}
    for key, _, val in node.pairs() if node is not None and node.is_map else ():
        if key in ("include", "exclude") or not val.is_seq:
            continue
        items = [item.text for item in val.items if item.is_scalar and item.text and "${{" not in item.text]
        if items and len(items) == len(val.items):
            out[_shell_name(key)] = items
    return out


# a llama-swap model entry (`models: {name: {cmd: |, proxy: ...}}`): the proxy's swap keys beside its `cmd`
_SWAP_KEYS = ("proxy", "cmdStop", "checkEndpoint")
_LINE_BREAK = lazy(r"(?<!\\)\n(?=.)")


def _swap_commands(models: YNode) -> set[int]:
    """The `cmd:` values of a llama-swap `models:` map (`{name: {cmd: ...}}`): `proxy` and the other swap keys
    are optional there (the proxy defaults to `localhost:${PORT}`), so an entry of `cmd` alone is one too."""
    entries = [val for _, _, val in models.pairs() if val.is_map]
    return {id(cmd) for entry in entries if (cmd := entry.get("cmd")) is not None and cmd.is_scalar}


_FLAG_LINE = lazy(r"(?m)^[ \t]*--?[A-Za-z]")
_COMMENT_LINE = lazy(r"(?m)^[ \t]*#.*$")


def _flag_lines(val: YNode) -> bool:
    """A `cmd:` block whose lines go on with flags and no `\\` is one command over several lines (a line that
    starts with `--port` is no shell command of its own): two such lines say so."""
    return val.is_scalar and "\n" in val.text and len(_FLAG_LINE.findall(val.text, 0, 20_000)) >= 2


def _one_command(text: Mapped) -> Mapped:
    """A command written over several lines with no `\\` (llama-swap joins a `cmd:` block's lines into one
    command, leaving its comment lines out): each line break a space, each comment line blank, every other
    character at its place."""
    uncommented = _COMMENT_LINE.sub(lambda m: " " * len(m.group()), text.text)
    return replace(text, text=_LINE_BREAK.sub(" ", uncommented))


def _string_launches(yf: YamlFile, node: YNode, scope: _Scope, inputs: dict[str, str],
                     image: str | None, one_command: bool = False,
                     recipe: dict[str, str] | None = None) -> list[Deployment]:
    """The launches of one string, once per combination of the matrix values it uses (or per element of the
    Ansible loop around it); a launch whose model is the same in every combination is one launch (a matrix over
    Python versions), each other model its own."""
    import itertools

    used = {k: v for k, v in scope.matrix.items() if "matrix." in node.text and re.search(
        r"\bmatrix\." + re.escape(k).replace("_", "[_-]") + r"\b", node.text)}
    text = _unit_keys(ansible.as_shell(_recipe_fields(_ci_expressions(yf.mapped(node), inputs, used), recipe)))
    text = _one_command(text) if one_command else text
    combos = list(itertools.islice(itertools.product(*used.values()), _MAX_COMBINATIONS)) if used else [()]
    rows = [ansible.row_values(r) for r in scope.rows] if scope.rows and ansible.ITEM_VAR in text.text else [{}]
    seen: dict[tuple, Deployment] = {}
    for combo, row in itertools.product(combos, rows):
        values = {_MATRIX_VAR + k: v for k, v in zip(used, combo, strict=True)}
        launches, _, notes = run_script(text, {**scope.env, **values, **row})
        ctx = LaunchContext(image=image, notes=tuple(notes))
        for k, found in enumerate(launches):
            dep = finish(yf.path, found, ctx, ManifestGpu())
            model = (dep.model or "").rstrip("/").rsplit("/", 1)[-1].lower()
            if values and dep.model_resolved and dep.model:
                where = ", ".join(f"matrix.{name} = {value}" for name, value in zip(used, combo, strict=True))
                dep = replace(dep, notes=dep.notes + (f"one launch per model the job's matrix gives: {where}",))
            seen[(k, model)] = dep  # the last combination naming a model reads it
    if len(combos) * len(rows) > 1:  # a launch whose model no combination changes: one launch, without the matrix note
        counts: dict[int, int] = {}
        for k, _ in seen:
            counts[k] = counts.get(k, 0) + 1
        seen = {key: (dep if counts[key[0]] > 1 else _without_matrix_note(dep)) for key, dep in seen.items()}
    kept = list(seen.values())
    if "$@" in node.text or "${@" in node.text:
        from kvlint.launches.entrypoint import wrapper_scripts

        kept = wrapper_scripts(kept, yf.text)[0]  # a wrapper script the string writes: its model is its argument
    return sorted(kept, key=lambda d: (d.launch_span.line, d.launch_span.col) if d.launch_span else (0, 0))


def _block_heredocs(yf: YamlFile, node: YNode) -> list[Deployment]:
    """The launches in a block string's here-document bodies (kvlint.launches.shellfile.block_string_heredocs),
    which the string's own reading skips as the shell does."""
    from kvlint.launches.shellfile import block_string_heredocs

    m = yf.mapped(node)
    (first, col), (last, _) = m.at(0), m.at(max(0, len(node.text.rstrip("\n")) - 1))
    return block_string_heredocs(yf.path, yf.text, first, last, col - 1)


def _module_run(yf: YamlFile, node: YNode, image: str | None) -> Deployment | None:
    """A debugger's or a task runner's launch configuration (VS Code's `{"module": "vllm.entrypoints.openai.
    api_server", "args": [...]}`, sample K182's `.vscode/launch.json`): `python -m MODULE ARGS`, each argument at its
    place; a module that is no engine's (`pytest`) or args that are not a list of words are nothing here."""
    module, args = node.get("module"), node.get("args")
    if module is None or not module.is_scalar or not (module.text.startswith(("vllm.", "sglang.")) or module.text in (
            "vllm", "sglang")) or args is None or not args.is_seq or not all(a.is_scalar for a in args.items):
        return None
    at = module.span
    fields = [Field("python", at), Field("-m", at), Field(module.text, at),
              *(Field(a.text, a.span, "${" not in a.text) for a in args.items[:_MAX_WORDS])]
    found = launch_in_argv(fields, {})
    if found is None:
        return None
    from kvlint.launches.groups import is_launch

    dep = finish(yf.path, found, LaunchContext(image=image), ManifestGpu())
    return dep if is_launch(dep) else None


_ARG_KEYS = ("args", "arguments")


_COMMAND_KEYS = ("command", "entrypoint", "executable", "program")
_PATTERN_PROGRAMS = frozenset({"pkill", "pgrep", "killall", "pidof", "grep"})


def _model_beside(node: YNode, program: str, args: YNode) -> list[Field]:
    """The model a harness's launch entry names beside the engine's CLI and its arguments (`{executable: vllm, model:
    Qwen/Qwen-Image, args: [--omni, ...]}`, sample K549's scheduler config, whose stop pattern reads `vllm serve
    Qwen/Qwen-Image --port ...`): the CLI's server subcommand (unless the arguments start with it) and the model, each
    at its place; [] when the program is no engine CLI or the entry names no model."""
    from kvlint.engines.registered import engine_names, facts
    from kvlint.launches.structured import MODEL_NAMES

    cli = next((c for e in engine_names() if (c := facts(e).CLI_SUBCOMMAND) and c[0] == program), None)
    model = next((v for k, _, v in node.pairs()
                  if k.lower().replace("_", "").replace("-", "") in MODEL_NAMES and v.is_scalar), None)
    if cli is None or model is None or not model.text:
        return []
    first = _head(args).split(" ", 1)[0]
    return ([] if first == cli[1] else [Field(cli[1], model.span)]) + [Field(model.text, model.span)]


def _command_and_args(yf: YamlFile, node: YNode, image: str | None) -> Deployment | bool | None:
    """A workload object that splits its container's command line in two, a `command` that names the engine's entry
    point and the `args` / `arguments` it is given, each a string or a list, or wrapped as `{value: ...}` (Run:ai's
    InferenceWorkload, sample K292: `"command": {"value": "python3 -m vllm.entrypoints.openai.api_server"}`,
    `"arguments": {"value": "--served-model-name ... --tensor-parallel-size=1"}`): the two joined, each word at its
    place; a harness's process entry names the program as `executable` / `program`. None when the command names no
    engine or the object holds no such pair; True for a pattern program's entry (`pkill -f "vllm serve M"`): read,
    and no launch."""
    from kvlint.launches.groups import is_launch

    command = _unwrapped(next((v for k in _COMMAND_KEYS if (v := node.get(k)) is not None), None))
    args = next((a for a in (_unwrapped(node.get(k)) for k in _ARG_KEYS) if a is not None), None)
    if command is None or args is None:
        return None
    program = _head(command).split(" ", 1)[0].rsplit("/", 1)[-1]
    beside = _model_beside(node, program, args)
    if not _may_launch(" ".join((_head(command), *(f.text for f in beside), _head(args)))):
        return None
    if program in _PATTERN_PROGRAMS:  # `{executable: pkill, args: [-f, "vllm serve M ..."]}`: a pattern it matches
        return True  # (sample K549's harness stops each instance so): read, and no launch
    fields = _words_at(yf, command) + beside + _words_at(yf, args)
    found = launch_in_argv(fields[:_MAX_WORDS], {}) if fields else None
    if found is None:
        return None
    own = _unwrapped(node.get("image"))
    dep = finish(yf.path, found, LaunchContext(image=own.text if own is not None and own.is_scalar else image),
                 ManifestGpu())
    return dep if is_launch(dep) else None


def _head(node: YNode) -> str:
    """A command's first words, as a line (a Cloud Build step's `entrypoint: gcloud` then `args: [run, deploy, SERVICE,
    --image=...]`, turn 37's K328/K329: the pair is `gcloud run deploy`, read as kvlint.launches.cloud_run does)."""
    return node.text if node.is_scalar else " ".join(w.text for w in node.items[:6] if w.is_scalar)


def _unwrapped(node: YNode | None) -> YNode | None:
    """A value as written, or the value a form wraps it in (`{value: X}`, with the form's own keys beside it)."""
    if node is not None and node.is_map and (inner := node.get("value")) is not None:
        node = inner
    return node if node is not None and (node.is_scalar or node.is_seq) else None


def _words_at(yf: YamlFile, node: YNode) -> list[Field]:
    """A string's words split at blanks, or a list's plain items, each at its place."""
    from kvlint.launches.cloud_run import words_of

    if node.is_seq:
        return [Field(w.text, w.span, "${" not in w.text) for w in node.items[:_MAX_WORDS] if w.is_scalar]
    text = node.text
    return words_of(Field(text, node.span, "${" not in text, (), tuple(range(len(text))), yf.mapped(node)))


def _ci_service(yf: YamlFile, node: YNode) -> list[Deployment] | None:
    """A CI job's service container written `{name: IMAGE, alias: ..., command: [...]}` (GitLab's `services:`: the
    image under `name`, its arguments under `command`): a container of an engine image given arguments, each word at
    its place; None for any other mapping with a `command`."""
    from kvlint.launches.groups import is_launch
    from kvlint.launches.images import entrypoint_engine

    name, command = node.get("name"), node.get("command")
    if name is None or not name.is_scalar or node.get("image") is not None or command is None \
            or command.kind != "seq" or not all(w.is_scalar for w in command.items[:_MAX_WORDS]):
        return None
    engine = entrypoint_engine(name.text)
    if engine is None:
        return None
    fields = [Field(w.text, w.span, "${" not in w.text) for w in command.items[:_MAX_WORDS]]
    found = launch_in_argv(fields, {}, image_default=engine)
    if found is None:
        return None
    dep = finish(yf.path, found, LaunchContext(image=name.text, image_span=name.span), ManifestGpu())
    return [dep] if is_launch(dep) else None


def _word_list(yf: YamlFile, node: YNode, image: str | None) -> list[Deployment]:
    """A list of plain words that is an engine command (`[python3, -m, vllm.entrypoints.openai.api_server, --model,
    X, ...]` under any key: a harness's `command_template`, a job's `argv`): read as argv, each word at its place."""

    words = node.items[:_MAX_WORDS]
    if not all(w.is_scalar for w in words) or not any(_may_launch(w.text) or w.text in ("vllm", "sglang")
                                                      for w in words[:4]):
        return []
    fields = [Field(w.text, w.span, "${" not in w.text and "{{" not in w.text) for w in words]
    found = launch_in_argv(fields, {})
    if found is None:
        return []
    dep = finish(yf.path, found, LaunchContext(image=image), ManifestGpu())
    from kvlint.launches.groups import is_launch

    return [dep] if is_launch(dep) else []


_MAX_WORDS = 2000
_UNIT_KEY = lazy(r"(?m)^[ \t]*(?:ExecStart|ExecStartPre|command)=")


def _unit_keys(m: Mapped) -> Mapped:
    """A systemd unit or supervisor section written as a string (an Ansible `copy: content: |`): the `ExecStart=` /
    `command=` before a command is blanked (same length: every character keeps its place), so the shell reads the
    command, not an assignment."""
    if "=" not in m.text or _UNIT_KEY.search(m.text) is None:
        return m
    return m.view(m.path, _UNIT_KEY.sub(lambda k: " " * len(k.group(0)), m.text), range(len(m.text) + 1))


def _without_matrix_note(dep: Deployment) -> Deployment:
    return replace(dep, notes=tuple(n for n in dep.notes if not n.startswith("one launch per model the job's")))


_RUNS_CONTAINER = ("docker run", "podman run", "docker container run", "podman container run")


# a block scalar that is a Python program (a ConfigMap's `app.py: |`, an operator's `source: |`)
_PY_SOURCE = lazy(r"^(?:import \w|from [\w.]+ import |def \w|#!.*python)", re.M)


def _python_source(node: YNode) -> bool:
    """Whether a block scalar is a Python program that may start an engine: one naming it, or one configuring Ray
    Serve LLM (`from ray.serve.llm import LLMConfig`: it runs vLLM without naming it)."""
    text = node.text
    return ("vllm" in text or "sglang" in text or "ray.serve.llm" in text) and "\n" in text \
        and _PY_SOURCE.search(text) is not None and node.style == "|"


def _python_launches(yf: YamlFile, node: YNode) -> list[Deployment]:
    """The launches of a Python program written in a YAML string (a `ModalApp` object's `source: |` running
    `subprocess.Popen(["vllm", "serve", MODEL, ...])`), read as a .py file is, each value at its place here."""
    from kvlint.launches.pyfile import read_python

    m = yf.mapped(node)
    return read_python(yf.path, m.text, within=m)[0]


# a block scalar that is itself a manifest, compose file or values (a ConfigMap's `values.yaml: |`, an operator's
# `server-patch: |` annotation): a key that holds a container's command or image at the start of a line
_YAML_SOURCE = lazy(r"^[ \t]*(?:- )?(?:containers|command|args|image|services|entrypoint)[ \t]*:", re.M)
_EMBEDDED_DEPTH = 2  # a YAML string inside a YAML string inside the file, at most


def _yaml_source(node: YNode) -> bool:
    """A YAML document written in a string: a literal block, or a quoted one-line string of escaped lines (sample
    K507: dstack's deployment JSON, `"docker_compose_file": "services:\\n  vllm:\\n    image: ..."`)."""
    text = node.text  # the string tests first: a node's style is made when first asked
    return "\n" in text and ("vllm" in text or "sglang" in text) and _YAML_SOURCE.search(text) is not None \
        and (node.style == "|" or (node.style == '"' and text.count("\n") >= _QUOTED_LINES)) \
        and _embedded_depth[0] < _EMBEDDED_DEPTH


_QUOTED_LINES = 3  # a quoted string of fewer lines is a command or a note, not a document


def _quoted_document(node: YNode) -> bool:
    """A quoted string of escaped lines holding a YAML document (asked only of a file that has a `\\n` escape)."""
    return node.text.count("\n") >= _QUOTED_LINES and _yaml_source(node) and node.style == '"'


_embedded_depth = [0]  # how deep the read is in YAML strings now (each level is a shorter text: bounded anyway)


def _yaml_launches(yf: YamlFile, node: YNode) -> list[Deployment]:
    """The launches of a YAML document written in a YAML string, read as a YAML file is, each value moved to its
    place in this file (the string's lines are the file's, less the block's indentation)."""
    from kvlint.launches.terraform_helm import placed_back
    from kvlint.launches.yamlfile import deployments_in
    from kvlint.sources.yaml import parse_yaml

    m = _with_parameters(yf, yf.mapped(node))
    if "{{" in m.text:  # an Ansible `copy: content: |` with `{{ vllm_model }}`: each expression a value left open
        from kvlint.launches.helm_chart import parse_template

        inner = parse_template(yf.path, m.text)
    else:
        inner = parse_yaml(yf.path, m.text)
    if any(p.severity != "info" for p in inner.problems) or not inner.docs:
        return []
    _embedded_depth[0] += 1
    try:
        found, _ = deployments_in(inner)
    finally:
        _embedded_depth[0] -= 1
    return placed_back(found, m, yf.path)


def _with_parameters(yf: YamlFile, m: Mapped) -> Mapped:
    """`${{ parameters.NAME }}` of a parameter the file declares with a default, as that default, each character at
    the expression's place (a Backstage template writing a chart's values, sample K292; an Azure Pipelines
    template): what the text is when its user keeps the default."""
    if "${{" not in m.text or "parameters." not in m.text:
        return m
    defaults = _parameter_defaults(yf)
    if not defaults:
        return m

    def value(e: re.Match) -> str:
        return defaults.get(e.group(1), e.group(0))

    text, offsets = substitute(m.text, _PARAMETER_REF, value)
    return m.view(m.path, text, offsets) if text != m.text else m


_PARAMETER_REF = lazy(r"\$\{\{\s*parameters\.([A-Za-z_][\w-]*)\s*\}\}")


def _parameter_defaults(yf: YamlFile) -> dict[str, str]:
    """The file's declared parameters with a plain default: Backstage's (and JSON Schema's) `parameters` blocks of
    `properties: {NAME: {default: X}}`, and Azure Pipelines' `parameters: [{name: NAME, default: X}]`."""
    out: dict[str, str] = {}
    for doc in yf.docs:
        spec = doc.get("spec") if doc.is_map else None
        for block in (doc.get("parameters") if doc.is_map else None,
                      spec.get("parameters") if spec is not None and spec.is_map else None):
            items = block.items if block is not None and block.is_seq else [block] if block is not None else []
            for item in items:
                out.update(_declared(item) if item.is_map else {})
    return out


def _declared(item: YNode) -> dict[str, str]:
    def plain(node: YNode | None) -> str | None:
        return node.text if node is not None and node.is_scalar and node.text and "{{" not in node.text else None

    name = item.get("name")
    if name is not None and name.is_scalar and (default := plain(item.get("default"))) is not None:
        return {name.text: default}
    props = item.get("properties")
    return {key: text for key, _, spec in (props.pairs() if props is not None and props.is_map else ())
            if spec.is_map and (text := plain(spec.get("default"))) is not None}


def _may_launch(text: str) -> bool:
    """A string that names an engine entry point, or runs a container in a text that names an engine
    (`docker run -d $VLLM_IMAGE $VLLM_ARGS`: the image's entry point is the engine; its flags say so)."""
    if "vllm serve" in text or "sglang serve" in text or "sglang.launch_server" in text or "vllm.entrypoints" in text:
        return True  # ENTRY_MARKERS, spelled out: this runs on every string of every YAML file (no generator)
    if "} serve" in text and ("vllm} serve" in text or "sglang} serve" in text):
        return True  # `${vllm} serve M`: the program a variable (a llama-swap macro) named for the engine
    if '" serve' in text and ('vllm" serve' in text or 'sglang" serve' in text):
        return True  # `"$VENV/bin/vllm" serve M`: the program's path quoted
    if "docker run" not in text and "podman run" not in text and " container run" not in text \
            and "run deploy" not in text:  # `gcloud run deploy --image ...` (kvlint.launches.cloud_run)
        return False  # _RUNS_CONTAINER
    low = text.lower()
    return "vllm" in low or "sglang" in low


def _flagged_command(text: str) -> bool:
    """A string that hands a model flag to a program, in a text naming an engine: a program kvlint does not know,
    read by its flags (kvlint.launches.byflags: `./install/bin/vllm-server --model M --max-model-len 512` in a CI
    step, sample K275)."""
    if "--model" not in text:
        return False
    low = text.lower()
    return "vllm" in low or "sglang" in low


def _scope(node: YNode) -> list[tuple[str, str]]:
    """The plain values of an `env:` / `variables:` map (GitLab's `NAME: {value: X}` too); a value that is
    itself an expression (`${{ secrets.X }}`, `${{ matrix.model }}`) is left unknown. A list of `NAME=value`
    strings (dstack's `env:`, compose's list form) is the same map; a bare `- NAME` is taken from the
    environment of whoever runs it: unknown."""
    out = []
    if node.is_seq:
        items = [item.text.partition("=") for item in node.items if item.is_scalar]
        return [(k, v) for k, eq, v in items if eq and "${{" not in v and k.replace("_", "a").isalnum()]
    for key, _, val in node.pairs() if node.is_map else ():
        if not val.is_scalar and val.is_map:
            val = next((v for k, _, v in val.pairs() if k == "value"), val)
        text = _gha_fallback(val.text) if val.is_scalar and "${{" in val.text else val.text if val.is_scalar else None
        if text is not None and "${{" not in text and key.replace("_", "a").isalnum():
            out.append((key, text))
    return out


_GHA_FALLBACK = lazy(r"\$\{\{[^}]*\|\|\s*'([^']*)'\s*\}\}")


def _gha_fallback(text: str) -> str | None:
    """`${{ vars.IMAGE || 'qwen3-vllm' }}`: a GitHub expression whose last operand is a literal is that literal when
    the repository sets no such variable (the workflow language's `${VAR:-default}`); any other expression: None."""
    m = _GHA_FALLBACK.fullmatch(text.strip())
    return m.group(1) if m is not None else None


_GHA_INPUT = lazy(r"\$\{\{\s*(?:github\.event\.)?inputs\.([A-Za-z_][A-Za-z0-9_-]*)\s*\}\}")
_GHA_MATRIX = lazy(r"\$\{\{\s*matrix\.([A-Za-z_][A-Za-z0-9_-]*)\s*\}\}")
_INPUT_VAR = "GITHUB_INPUT__"  # the variable a `${{ inputs.NAME }}` with a default is read as


def _input_defaults(doc: YNode) -> dict[str, str]:
    """The declared defaults of a GitHub action's `inputs:` and of a workflow's `on.workflow_dispatch.inputs` /
    `on.workflow_call.inputs`, by a shell-safe form of the input's name: what `${{ inputs.NAME }}` is when the
    caller gives nothing (a `${VAR:-default}` of the workflow language)."""
    if not doc.is_map:
        return {}
    on = doc.get("on") or doc.get("true")  # YAML 1.1 readers turn a bare `on` into true
    maps = [doc.get("inputs")] + [on.path(trigger, "inputs") for trigger in ("workflow_dispatch", "workflow_call")
                                  if on is not None and on.is_map]
    out: dict[str, str] = {}
    for node in maps:
        for key, _, spec in node.pairs() if node is not None and node.is_map else ():
            default = spec.get("default") if spec.is_map else None
            if default is not None and default.is_scalar and default.text and "${{" not in default.text:
                out[_shell_name(key)] = default.text
    return out


_RECIPE_VAR = "RECIPE_DEFAULT__"  # the variable a recipe's `{name}` with a `defaults:` value is read as
_RECIPE_FIELD = lazy(r"(?<![{$])\{([A-Za-z_][\w-]*)\}")


def _recipe_defaults(doc: YNode) -> dict[str, str]:
    """A recipe's top-level `defaults:` map of scalars (sample K256: `defaults: {port: 19038, max_model_len: 32768,
    num_speculative_tokens: 4}` beside a `command: |` whose `{max_model_len}` its runner fills from them)."""
    node = doc.get("defaults") if doc.is_map else None
    if node is None or not node.is_map or doc.get("command") is None:
        return {}
    return {_shell_name(k): v.text for k, _, v in node.pairs() if v.is_scalar and v.text}


def _recipe_values(doc: YNode) -> dict[str, str]:
    """What a recipe's runner fills a top-level `command:` string's `{name}` fields from: the recipe's own keys
    (sample K500's sparkrun recipes: `{model}` is the recipe's `model:`, `{resolved_model_path}` its
    `cluster_config:` entry), its `defaults:` winning, then its top-level scalars, then the scalars of its
    top-level maps. Asked only of a document whose `command:` string holds a field."""
    command = doc.get("command") if doc.is_map else None
    if command is None or not command.is_scalar or not _RECIPE_FIELD.search(command.text):
        return {}
    nested = {_shell_name(k): v.text for _, _, val in doc.pairs() if val.is_map
              for k, _, v in val.pairs() if v.is_scalar and v.text}
    top = {_shell_name(k): v.text for k, _, v in doc.pairs() if v.is_scalar and v.text and k != "command"}
    return {**nested, **top, **_recipe_defaults(doc)}


def _recipe_fields(m: Mapped, recipe: dict[str, str] | None) -> Mapped:
    """`{name}` of a recipe default as the variable holding it, each character still at its place; a name the
    defaults do not give stays as written (the runner's to fill)."""
    if not recipe or "{" not in m.text:
        return m
    text, offsets = substitute(m.text, _RECIPE_FIELD, _variable_for(recipe, _RECIPE_VAR))
    return m.view(m.path, text, offsets) if text != m.text else m


def _shell_name(name: str) -> str:
    return name.replace("-", "_")


def _ci_expressions(m: Mapped, inputs: dict[str, str] | None = None, matrix: Matrix | None = None) -> Mapped:
    """`${{ env.NAME }}` (a GitHub Actions expression, filled in before the shell runs) as `${NAME}`, and
    `${{ inputs.NAME }}` of an input with a default as the variable holding it, each character still at its
    place in the file."""
    if "${{" not in m.text:
        return m
    text, offsets = substitute(m.text, _GHA_REF, lambda e: "${" + e.group(1) + "}")
    for names, scope, pattern, prefix in ((inputs, "inputs.", _GHA_INPUT, _INPUT_VAR),
                                          (matrix, "matrix.", _GHA_MATRIX, _MATRIX_VAR)):
        if names and scope in text:
            text, again = substitute(text, pattern, _variable_for(names, prefix))
            offsets = [offsets[k] for k in again]
    return m.view(m.path, text, offsets)


def _variable_for(names: Mapping[str, object], prefix: str) -> Callable[[re.Match], str]:
    """`${{ inputs.X }}` / `${{ matrix.X }}` of a known name as the shell variable that holds its value(s)."""
    def ref(e: re.Match) -> str:
        name = _shell_name(e.group(1))
        return "${" + prefix + name + "}" if name in names else e.group(0)

    return ref
