"""Python files that start an engine: `subprocess.run([...])` / `Popen` / `os.system` argument lists and
command strings, any string that is an engine command line, and Ray Serve's `LLMConfig(model_loading_config=
dict(model_id=...), engine_kwargs=dict(...))` (or the same as a dict literal).

The stdlib `ast` parse happens only for a file that names an engine (most Python files in a repository never
do, and a one-file run should not pay for the import); every argument keeps the position of its literal, an
expression kvlint cannot evaluate stays an unresolved `${expr}` with its position. The engine's flag table
decides what the arguments mean, as for a shell command: argv lists go through `launch_in_argv`, strings
through `run_script`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from functools import lru_cache, partial
from typing import TYPE_CHECKING, Any, TypeGuard

from kvlint.deployment import Deployment
from kvlint.engines.registered import engine_names
from kvlint.flags.launch import PY_OPTIONS
from kvlint.launches import ReadResult
from kvlint.launches.argv import names_wrapper
from kvlint.launches.build import LaunchContext, ManifestGpu, finish
from kvlint.launches.env import Field
from kvlint.launches.groups import is_launch, one_per_group
from kvlint.launches.keys import negatable
from kvlint.launches.named import ENTRY_MARKERS
from kvlint.launches.pyflags import dict_flags
from kvlint.launches.script import FoundLaunch, launch_in_argv, run_script
from kvlint.lazyre import lazy
from kvlint.record import replace
from kvlint.sources.text import LineIndex, Mapped
from kvlint.span import Span

if TYPE_CHECKING:
    import ast

    from kvlint.findings import Finding

# ast.parse cannot be interrupted by the per-file budget and its tree costs about 100 bytes a character:
# a launcher is a few KiB, a 2 MiB generated module took 2.5 s and 230 MiB.
PARSE_CAP = 512 * 1024
_RAY_CONFIG = "LLMConfig"
_RAY_WRAPPER = "ray.serve.llm"


def engine_words() -> tuple[str, ...]:
    """Words one of which a Python file that launches an engine holds: the registered names, Ray Serve LLM's config
    (it runs vLLM without naming it) and the `engine_kwargs` a framework's model configuration hands the engine
    (`DynamoVLLMModelConfig(..., engine_kwargs=...)`: the name in upper case)."""
    return (*engine_names(), _RAY_CONFIG, "engine_kwargs=")


def read(path: str, text: str, _as_vllm_config: bool | None = None) -> ReadResult:
    """The reader protocol's entry (kvlint.launches.kinds)."""
    from kvlint.sources.comments import scan_comments

    if not any(w in text for w in engine_words()):
        return ReadResult(path)
    if len(text) > PARSE_CAP:
        from kvlint.findings import Severity
        from kvlint.launches.read import kv001

        why = (f"a Python file over {PARSE_CAP // 1024} KiB is not parsed for launches (a launcher is a few KiB); "
               "a launch in it is not checked")
        return ReadResult(path, findings=[kv001(path, why, severity=Severity.INFO)])
    deployments, notes = read_python(path, text)
    if "[markdown]" in text or "[md]" in text:
        from kvlint.launches.jupytext import cell_launches

        deployments = [*deployments, *cell_launches(path, text)]
    # a program's rank branches (a master's and a worker's argv, differing in `--node-rank`) are one deployment
    return ReadResult(path, one_per_group(deployments), notes, comments=scan_comments(text))


def _unparsed(path: str, text: str, exc: Exception) -> list[Deployment]:
    """The launches of the command strings and lines of a Python file that does not parse, each with a note why."""
    from kvlint.launches.notes import commands
    from kvlint.launches.textfile import _ENTRY, read_lines

    if _ENTRY.search(text) is None:
        return []
    line = getattr(exc, "lineno", None)
    note = (f"the file is not valid Python ({type(exc).__name__}{f' at line {line}' if line else ''}): its command "
            "strings are read as shell, the code around them is not")
    return [replace(d, notes=(*d.notes, note)) for d in read_lines(path, text, commands(text, quoted=True))]


# a notebook's shell line or magic left in a `.py` export (`!pip install vllm`, `%cd /content`)
_IPYTHON_LINE = lazy(r"(?m)^[ \t]*[!%]")


def _ipython_export(path: str, text: str) -> tuple[list[Deployment], list[Finding]]:
    """A notebook exported as a `.py` file with its `!` shell lines and `%` magics kept (sample K265's Colab
    script): read as a notebook's cell is (kvlint.launches.notebook.split_cell), the shell lines by the shell reader
    and the rest as Python, every value at its place in the file; still no Python: its command strings."""
    import ast

    from kvlint.launches import shellfile
    from kvlint.launches.notebook import split_cell

    shell, python = split_cell(text)
    try:
        ast.parse(python, filename=path)
    except (SyntaxError, ValueError) as exc:
        return _unparsed(path, text, exc), []
    found, notes = read_python(path, python)
    lines = shellfile.read(path, shell).deployments if any(w in shell for w in engine_words()) else []
    return found + lines, notes


def read_python(path: str, text: str, within: Mapped | None = None,
                bound: dict[str, str] | None = None) -> tuple[list[Deployment], list[Finding]]:
    """The file's launches, and a KV008 note for each engine start that is a program's, run with its own
    arguments (kvlint.launches.entrypoint). `within`: where `text`'s characters are when it was cut out of a
    file (a notebook's cell). `bound`: values of names a caller gives (`self.model` of a class a launcher makes:
    kvlint.launches.pyclasses); such a read follows no class of its own."""
    import ast

    from kvlint.launches.entrypoint import python_program
    from kvlint.limits import check

    try:
        tree = ast.parse(text, filename=path)
    except (SyntaxError, ValueError) as exc:
        if within is None and bound is None and _IPYTHON_LINE.search(text):
            return _ipython_export(path, text)
        # not Python kvlint can parse (a typo, a template, Python 2): its command strings are still read, as a
        # program of a language kvlint has no parser for is (kvlint.launches.notes.read_code); else the never-silent
        # note says the file was passed over
        return (_unparsed(path, text, exc), []) if within is None else ([], [])
    src = _Source(path, text, LineIndex(text), _scopes(tree, bound), within, tree)
    seen: set[int] = set()
    out: list[Deployment] = []
    sdk_notes: list[Finding] = []
    grown, maybe = _appended(tree) if "+=" in text or ".extend(" in text or ".append(" in text else ({}, {})
    seen.update(id(e) for extra in grown.values() for e in extra)
    seen.update(id(e) for arms in maybe.values() for _, extra in arms for e in extra)
    images = _commanded_images(tree) if "image=" in text else {}
    argued = "--model" in text  # an engine's argument string with its model, which a dict may hold beside its engine
    unused: set[int] | None = None  # the command lists no code reads (_unused_lists), found on first need
    for node in ast.walk(tree):
        check()
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            seen.add(id(node.value))  # a docstring or a bare string is prose, not a command
        elif isinstance(node, ast.Call) and (engine := _in_process_server(node, text)) is not None:
            out.extend(_served_engine_args(src, node, tree, engine))
        elif isinstance(node, ast.Assign) and (cli := _cli_argv(node, text, tree)) is not None:
            out.extend(_parsed_argv(src, node.targets[0], *cli))
            seen.update(id(n) for n in (*ast.walk(node.value), *ast.walk(cli[1])))
            seen.update(id(n) for n in _lists_named(tree, node.value))
        elif isinstance(node, ast.Call) and (helped := _launch_helper(node, text)) is not None:
            out.extend(_helper_launch(src, node, *helped))
            seen.update(id(n) for a in (*node.args, *(k.value for k in node.keywords)) for n in ast.walk(a))
        elif isinstance(node, ast.Call) and (defaulted := _defaults_server(node, text)) is not None:
            out.extend(_defaulted_server(src, node, tree, defaulted))
        elif isinstance(node, ast.Call) and (parsed := _in_process_argv(node, text)) is not None:
            out.extend(_parsed_argv(src, _module_run(tree) or _state_start(tree) or node.func, *parsed))
            seen.update({id(parsed[1]), *(id(e) for e in parsed[1].elts)})
        elif isinstance(node, ast.Call) and _sdk_run(node):
            found, said = _sdk_container(src, node)
            out.extend(found)
            sdk_notes.extend(said)
            if found or said:  # its command list is the container's, not a launch of its own
                seen.update(id(n) for n in ast.walk(node))
        elif isinstance(node, ast.Call) and (model := _engine_kwargs_model(node)) is not None:
            out.extend(_engine_kwargs_config(src, tree, node, model))
            seen.update(id(n) for k in node.keywords for n in ast.walk(k.value))
        elif isinstance(node, ast.Call) and _name(node.func) == _RAY_CONFIG:
            out.extend(_ray(src, {k.arg: _bound_dict(tree, k.value) for k in node.keywords if k.arg}, node))
        elif isinstance(node, ast.Call) and _told(node.func):  # `print(f"run: vllm serve {m}")`: told, not run
            seen.update(id(n) for a in (*node.args, *(k.value for k in node.keywords)) for n in ast.walk(a))
        elif isinstance(node, ast.Dict) and _ray_dict(node) is not None:
            out.extend(_ray(src, _ray_dict(node) or {}, None))
        elif isinstance(node, ast.Dict) and (held := _container_dict(src, node)) is not None:
            out.extend(held)  # `{"image": "vllm/vllm-openai:latest", "args": "--model " + model_id}`: a container
            seen.update(id(n) for n in ast.walk(node))
        elif argued and isinstance(node, ast.Dict) and (named := _named_engine_args(src, node)) is not None:
            out.extend(named)  # `{"framework": "vllm", "framework_args": "--model M --tensor-parallel-size 4"}`
            seen.update(id(n) for n in ast.walk(node))
        elif isinstance(node, ast.Dict) and _stand_in_container(node):  # a simulator's container: its `args` are
            seen.update(id(n) for n in ast.walk(node))  # the engine's flags, but no engine runs (sample K153)
        elif isinstance(node, (ast.List, ast.Tuple)) and _starts_with_word(node, src) and id(node) not in seen:
            if unused is None:
                unused = _unused_lists(tree)
            if id(node) in unused or (node.elts and all(id(e) in seen for e in node.elts)):
                continue  # never run, or words another list gained (`cmd += [IMAGE, "python3", "-m", ...]`: K528)
            elts = node.elts + grown.get(id(node), [])
            if (found_cli := _engine_found_cli(elts, src)) is not None:  # the program word: the engine's CLI
                elts = [ast.copy_location(ast.Constant(found_cli), elts[0]), *elts[1:]]
            found = _called(src, tree, node, elts) or _classes(src, tree, node, elts, maybe.get(id(node))) \
                or _argv(src, elts, _gpu_of(src, tree, node), maybe.get(id(node))) \
                or _called(src, tree, node, elts, partial(_flag_list, src, node, image=images.get(id(node)))) \
                or _flag_list(src, node, elts, images.get(id(node)))
            if found:
                seen.update(id(e) for e in elts)
            out.extend(found)
        elif isinstance(node, (ast.List, ast.Tuple)) and id(node) not in seen and _fragments(node):
            found = _script(src, _joined(src, node.elts))  # `" ".join(["docker run -d", "--gpus all", ...])`
            if found:
                seen.update(id(n) for e in node.elts for n in ast.walk(e))
            out.extend(found)
        elif isinstance(node, (ast.JoinedStr, ast.BinOp)) and id(node) not in seen:
            parts = _string_parts(node)
            if parts is not None and any(_command_string(p) for p in parts):
                seen.update(id(n) for n in ast.walk(node))
                out.extend(_script(src, _composed(src, node, parts), node))
            elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod) and _command_string(node.left):
                seen.add(id(node.left))
                out.extend(_script(src, _formatted(src, node.left, _percent_args(node.right), _PERCENT)))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format" \
                and _command_string(node.func.value) and id(node.func.value) not in seen:
            seen.add(id(node.func.value))
            args = {str(k): a for k, a in enumerate(node.args)} | {k.arg: k.value for k in node.keywords if k.arg}
            out.extend(_script(src, _formatted(src, node.func.value, args, _BRACES)))
        elif isinstance(node, ast.Constant) and within is None and bound is None and id(node) not in seen \
                and _program(node.value):
            out.extend(read_python(path, node.value, within=src.mapped(node))[0])
        elif isinstance(node, ast.Constant) and _command_string(node) and id(node) not in seen:
            out.extend(_script(src, src.mapped(node)))
    if bound is None and within is None:
        from kvlint.launches.pybuilder import built_starts, platform_servers
        from kvlint.launches.pyclasses import class_starts

        out.extend(class_starts(path, tree, src))
        out.extend(built_starts(src, tree))
        out.extend(platform_servers(src, tree))
        out.extend(_docstring_runbook(path, text, tree) if "```" in text else [])
    out = _placed_at_splice(src, tree, out) if "*" in text else out
    out = _one_of_arms(src, tree, out) if len(out) > 1 else out
    out.sort(key=lambda d: (d.launch_span.line, d.launch_span.col) if d.launch_span else (0, 0))
    # a bare "vllm serve" with nothing after it (a string a program completes) is no launch: the never-silent
    # note says where it is
    kept, notes = python_program(path, [d for d in out if is_launch(d)], tree)
    if not kept and not notes and not sdk_notes and bound is None and within is None:
        notes = _built_elsewhere(src, tree)
    return kept, notes + sdk_notes


_ENGINE_WORD = lazy(r"(?:^|_)(vllm|sglang)(?:_|$)", re.IGNORECASE)


def _built_elsewhere(src: _Source, tree: ast.Module) -> list[Finding]:
    """A KV008 where the program runs a command a function named for the engine builds (turn 38's K337: a Modal
    app's `subprocess.Popen(launch_argv())`, `launch_argv()` returning `sglang_command(model_path=..., tp=...)` from
    a module of the repository's): the launch is in that function, which this file does not hold; said at the call,
    not passed over in silence. The command is followed through one function of the file."""
    import ast

    from kvlint.findings import Finding, Severity
    from kvlint.launches.named import KV008
    from kvlint.launches.pycalls import PROCESS_STARTS

    defs = {f.name: f for f in ast.walk(tree) if isinstance(f, ast.FunctionDef)}
    returns = {name: r.value for name, f in defs.items()
               for r in ast.walk(f) if isinstance(r, ast.Return) and isinstance(r.value, ast.Call)}
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and _name(node.func) in PROCESS_STARTS and node.args
                and isinstance(node.args[0], ast.Call)):
            continue
        built = node.args[0]
        inner = returns.get(_name(built.func))
        named = next((c for c in (built, inner) if c is not None and _ENGINE_WORD.search(_name(c.func))), None)
        if named is None:
            continue
        own = defs.get(_name(named.func))
        where = f"defined at line {own.lineno} in a way kvlint does not follow" if own is not None else \
            "which this file does not define"
        message = (f"the command run here is built by {_name(named.func)}(...), {where}: the engine's launch is in "
                   "that function; nothing here is checked")
        fix = "check the module that defines it, or add `# kvlint: disable-file` when it starts no engine"
        return [Finding(*KV008, Severity.INFO, message, src.span(node.func), fix=fix, path=src.path)]
    return []


def _docstring_runbook(path: str, text: str, tree: ast.Module) -> list[Deployment]:
    """The launches of the fenced code blocks in a module's docstring (```` ```sh ```` ... ```` ``` ````: an example's
    "Spin up the vLLM server" steps, sample K266's `trl vllm-serve --model M` in a training script's usage notes),
    read as a Markdown runbook's are, each value at its place in the file; the docstring's prose stays prose."""
    import ast

    first = tree.body[0] if tree.body else None
    if not (isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str)
            and "```" in first.value.value):
        return []
    from kvlint.launches import markdown

    index = LineIndex(text)
    start = index.offset(first.lineno, first.col_offset + 1)
    end = index.offset(first.end_lineno or first.lineno, (first.end_col_offset or 0) + 1)
    return markdown.read(path, markdown.blank_ranges(text[:end], [(0, start)])).deployments


def _placed_at_splice(src: _Source, tree: ast.Module, out: list[Deployment]) -> list[Deployment]:
    """A launch read from a list of the engine's flags bound to a name (`args = ['--model-path', M, ...]`) that a
    command list splices in (`Popen([sys.executable, '-m', 'sglang.launch_server', *args])`, sample K263's boot
    program) is placed at that command, where the engine is started; its values keep their places in the list."""
    import ast

    lists: dict[tuple[int, int], str] = {}  # where a list bound to a name starts -> the name
    spliced: dict[str, ast.expr] = {}  # name -> the engine word of the command list that splices it
    for node in ast.walk(tree):
        bound = assigned(node) if isinstance(node, (ast.Assign, ast.AnnAssign)) else None
        if bound is not None and isinstance(bound[1], (ast.List, ast.Tuple)):
            lists[(bound[1].lineno, bound[1].col_offset + 1)] = bound[0]
        elif isinstance(node, (ast.List, ast.Tuple)) and _runs_module(node.elts):
            for e in node.elts:
                if isinstance(e, ast.Starred) and isinstance(e.value, ast.Name):
                    spliced.setdefault(e.value.id, next(x for x in node.elts[1:] if _constant(x) != "-m"))
    if not spliced or src.within is not None:
        return out
    placed = []
    for dep in out:
        at = (dep.launch_span.line, dep.launch_span.col) if dep.launch_span is not None else None
        name = lists.get(at) if at is not None else None
        placed.append(replace(dep, launch_span=src.span(spliced[name])) if name in spliced else dep)
    return placed


def _docker_sdk(call: ast.Call) -> bool:
    import ast

    func = call.func
    return isinstance(func, ast.Attribute) and func.attr in ("run", "create") \
        and isinstance(func.value, ast.Attribute) and func.value.attr == "containers"


def _sdk_run(call: ast.Call) -> bool:
    """`client.containers.run(...)` / `.create(...)`: the Docker SDK for Python starting a container; or any
    platform SDK's call given a container's `image=` and its `command=` (Lightning's `Deployment.start(machine=...,
    image="vllm/vllm-openai:latest", command="--model M ...")`, sample K179): the container that image runs."""
    import ast

    if _docker_sdk(call):
        return True
    kw = {k.arg: k.value for k in call.keywords if k.arg}
    # a command given as a list goes with the image keyword another way (kvlint.launches.pyfile._commanded_images)
    return "image" in kw and "command" in kw and not isinstance(kw["command"], (ast.List, ast.Tuple))


_MODEL_FLAGS = ("--model", "--model-path")  # the engines' model options, as a command writes them


def _sdk_words(src: _Source, command: ast.expr) -> list[Field]:
    """The command the SDK hands the container: a list's items, or a string's words (an f-string's holes as
    `${...}`), each string word at the string's place."""
    import ast

    if isinstance(command, (ast.List, ast.Tuple)):
        return [src.field(e) for e in command.elts]
    if isinstance(command, ast.JoinedStr):
        text = "".join(v.value if isinstance(v, ast.Constant) and isinstance(v.value, str) else
                       src.field(v.value).text if isinstance(v, ast.FormattedValue) else "" for v in command.values)
    else:
        text = src.field(command).text
    return [Field(w, src.span(command), "${" not in w) for w in text.split()]


def _sdk_container(src: _Source, call: ast.Call) -> tuple[list[Deployment], list[Finding]]:
    """A container the Docker SDK starts (`containers.run(image, command)`): `docker run IMAGE COMMAND` when the
    image is an engine's; with an image this file does not name (a config's value) and a model flag in the command,
    a KV008 note at the call (sample K88's docker_manager.py: silent before)."""
    from kvlint.findings import Finding, Severity
    from kvlint.launches.images import entrypoint_engine
    from kvlint.launches.named import KV008

    kw = {k.arg: k.value for k in call.keywords if k.arg}
    image = kw.get("image", call.args[0] if call.args else None)
    command = kw.get("command", call.args[1] if len(call.args) > 1 else None)
    if image is None:
        return [], []
    words = _sdk_words(src, command) if command is not None else []
    pic = src.field(image)
    if pic.resolved and entrypoint_engine(pic.text) is not None:
        at = src.span(call.func)
        found = launch_in_argv([Field("docker", at), Field("run", at), pic, *words], {})
        return ([finish(src.path, found, LaunchContext(), ManifestGpu())] if found else []), []
    if pic.resolved or not any(w.text.split("=", 1)[0] in _MODEL_FLAGS for w in words):
        return [], []
    shown = " ".join(w.text for w in words[:4])
    through = "the Docker SDK" if _docker_sdk(call) else "an SDK call"
    message = (f"a container is started here through {through} with engine arguments ({shown} ...), from an "
               f"image this file does not name ({pic.text}); nothing here is checked")
    return [], [Finding(*KV008, Severity.INFO, message, src.span(call.func),
                        fix="name the image, or run the launch in a file kvlint reads", path=src.path)]


Maybe = dict[int, list[tuple["ast.If", list["ast.expr"]]]]  # list id -> (the `if`, what its body adds)


def _appended(tree: ast.Module) -> tuple[dict[int, list[ast.expr]], Maybe]:
    """What a list assigned to a name gains in the statements after it, in the same block (`cmd = ["vllm",
    "serve", M]` then `cmd += ["--tensor-parallel-size", str(N)]`, `cmd.extend([...])`, `cmd.append(x)`), by the
    list node's id: the argv the program runs. Additions inside an `if` are not known to run: apart, with their
    `if` (the file's other branch, kvlint.launches.pyfile._with_arms); an `if` whose `else` adds too is left
    out. A flag chosen at run time (`"--a" if X else "--b"`) is a word no one can read: left out too."""
    import ast

    grown: dict[int, list[ast.expr]] = {}
    maybe: Maybe = {}
    for block in ast.walk(tree):
        for attr in ("body", "orelse", "finalbody"):
            stmts = getattr(block, attr, None)
            if not isinstance(stmts, list):
                continue
            lists: dict[str, ast.List] = {}
            twins: dict[str, ast.List] = {}  # the first arm's list of a name both arms of an `if` bind
            for stmt in stmts:
                name, added = _list_growth(stmt)
                if _bound(stmt, lists):
                    twins.pop((assigned(stmt) or ("",))[0], None)  # rebound: no arm's list any more
                    continue
                if name in lists and added is not None:
                    for grows in (lists[name], *([twins[name]] if name in twins else [])):
                        grown.setdefault(id(grows), []).extend(
                            e for e in added if not (isinstance(e, ast.IfExp) and _switches(e)))
                elif isinstance(stmt, ast.If) and not stmt.orelse and (flag := _unless_given(stmt.test)):
                    for sub in stmt.body:  # `if not contains_argument("--model", args): cmd.extend(["--model", m])`
                        name, added = _list_growth(sub)
                        if name in lists and added and isinstance(added[0], ast.Constant) and added[0].value == flag:
                            grown.setdefault(id(lists[name]), []).extend(added)
                elif isinstance(stmt, ast.If) and lists:
                    for name, added in _if_growth(stmt, lists):
                        maybe.setdefault(id(lists[name]), []).append((stmt, added))
                if isinstance(stmt, ast.If) and stmt.orelse:
                    arms = _arm_lists(stmt)
                    lists.update({name: other for name, (_, other) in arms.items()})
                    twins.update({name: first for name, (first, _) in arms.items()})
    return grown, maybe


def _bound(stmt: ast.stmt, lists: dict[str, ast.List]) -> bool:
    """Note an assignment in `lists` (a list bound to the name, or the name no longer one); False for any other
    statement."""
    import ast

    target = assigned(stmt)
    if target is None:
        return False
    if isinstance(target[1], ast.List):
        lists[target[0]] = target[1]
    else:
        lists.pop(target[0], None)
    return True


def _arm_lists(stmt: ast.If) -> dict[str, tuple[ast.List, ast.List]]:
    """The lists both arms of an `if` / `else` bind to one name (`if uv: cmd = ["uv", "run", "vllm", "serve"]
    else: cmd = ["vllm", "serve"]`, then `cmd.extend([model, ...])`; sample K268), (first arm's, `else` arm's): what
    the statements after grow, both arms' lists gain, whichever arm ran (sample K548: `[cli, "serve", model]` or
    `[python, "-m", "vllm.entrypoints.openai.api_server", "--model", model]`, then the flags both get: one server
    started either way, kvlint.launches.pyfile._one_of_arms)."""
    def last_lists(body: list[ast.stmt]) -> dict[str, ast.List]:
        out: dict[str, ast.List] = {}
        for sub in body:
            _bound(sub, out)
        return out

    first, other = last_lists(stmt.body), last_lists(stmt.orelse)
    return {name: (first[name], node) for name, node in other.items() if name in first}


def _one_of_arms(src: _Source, tree: ast.Module, out: list[Deployment]) -> list[Deployment]:
    """One command written in both arms of an `if` / `else` that bind one name (`if vllm_bin: parts = [vllm_bin,
    "serve", M, ...] else: parts = [sys.executable, "-m", "vllm.entrypoints.openai.api_server", "--model", M, ...]`,
    sample K518's notebook): the same server started either way, one launch (the first arm's). Arms that give other
    models or settings stay launches of their own."""
    import ast

    dropped: set[int] = set()
    for stmt in ast.walk(tree):
        if not isinstance(stmt, ast.If) or not stmt.orelse:
            continue
        first = {name: node for name, node in map(_bound_list, stmt.body) if name}
        for name, node in map(_bound_list, stmt.orelse):
            if not name or name not in first:
                continue
            kept, other = _within(src, out, first[name]), _within(src, out, node)
            if len(kept) == len(other) == 1 and _same_command(kept[0], other[0]):
                dropped.add(id(other[0]))
    return [d for d in out if id(d) not in dropped]


def _bound_list(stmt: ast.stmt) -> tuple[str, ast.expr | None]:
    """(name, list) of a statement binding a list to a name (`parts = [...]`); ("", None) for any other."""
    found = assigned(stmt)
    return found if found is not None and type(found[1]).__name__ == "List" else ("", None)


def _within(src: _Source, out: list[Deployment], node: ast.expr | None) -> list[Deployment]:
    """The launches read from a node's lines."""
    if node is None:
        return []
    at = src.span(node)
    return [d for d in out if d.launch_span is not None and at.line <= d.launch_span.line <= at.end_line]


def _if_growth(stmt: ast.If, lists: dict[str, ast.List]) -> list[tuple[str, list[ast.expr]]]:
    """(name, elements) each known list gains in the `if`'s own body, when its `else` adds nothing to it."""
    import ast

    def adds(body: list[ast.stmt]) -> dict[str, list[ast.expr]]:
        out: dict[str, list[ast.expr]] = {}
        for sub in body:
            name, added = _list_growth(sub)
            if name in lists and added:
                out.setdefault(name, []).extend(e for e in added if not (isinstance(e, ast.IfExp) and _switches(e)))
        return out

    other = adds(stmt.orelse)
    return [(name, added) for name, added in adds(stmt.body).items() if name not in other and added]


def _unless_given(test: ast.expr) -> str | None:
    """The flag of an `if` that adds it only when the caller's arguments lack it (`if not contains_argument("--model",
    vllm_args)`, `if "--port" not in args`): the program's default for that flag, so the addition is read (sample
    K98's instructlab backend: every flag of its command is added this way). Any other condition: None."""
    import ast

    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = test.operand
    elif isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.NotIn):
        inner = test
    else:
        return None
    flags = [n.value for n in ast.walk(inner) if isinstance(n, ast.Constant) and isinstance(n.value, str)
             and n.value.startswith("--")]
    return flags[0] if len(flags) == 1 else None


def _list_growth(stmt: ast.stmt) -> tuple[str | None, list[ast.expr] | None]:
    """(name, the elements added) for `NAME += [...]`, `NAME.extend([...])`, `NAME.append(x)`."""
    import ast

    if isinstance(stmt, ast.AugAssign) and isinstance(stmt.op, ast.Add) and isinstance(stmt.target, ast.Name):
        return stmt.target.id, list(stmt.value.elts) if isinstance(stmt.value, (ast.List, ast.Tuple)) else None
    call = stmt.value if isinstance(stmt, ast.Expr) else None
    if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and isinstance(call.func.value, ast.Name) \
            and len(call.args) == 1 and not call.keywords:
        arg = call.args[0]
        if call.func.attr == "append":
            return call.func.value.id, [arg]
        if call.func.attr == "extend" and isinstance(arg, (ast.List, ast.Tuple)):
            return call.func.value.id, list(arg.elts)
    return None, None


def _switches(node: ast.IfExp) -> bool:
    """`"--enforce-eager" if FAST else "--no-enforce-eager"`: both branches a flag word."""
    import ast

    return all(isinstance(b, ast.Constant) and isinstance(b.value, str) and b.value.startswith("-")
               for b in (node.body, node.orelse))


def _program(value: object) -> TypeGuard[str]:
    """Whether a string constant is a Python program a file carries as text (an agent a deploy tool writes to the
    instance it starts, `AGENT_PY = '''import subprocess ...'''`, sample K97): lines that parse as a module that
    imports or defines something. Such a program's argv lists are read as the file's own are (one level deep: a
    program in a program's string is not looked into)."""
    import ast

    if not isinstance(value, str) or value.count("\n") < 2 or not any(w in value.lower() for w in engine_words()):
        return False
    try:
        tree = ast.parse(value)
    except (SyntaxError, ValueError):
        return False
    return any(isinstance(s, (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.ClassDef)) for s in tree.body)


def _command_string(node: ast.AST) -> bool:
    """A string constant that names an engine entry point, or a program that starts one under its own name
    (`os.system(f"uv run vf-vllm --model {M} ...")`, sample K435: verifiers' vLLM server)."""
    import ast

    value = node.value if isinstance(node, ast.Constant) else None
    return isinstance(value, str) and (any(m in value for m in ENTRY_MARKERS) or
                                       (" " in value and names_wrapper(value)))  # a command string is several words


def _string_parts(node: ast.expr) -> list[ast.expr] | None:
    """The pieces of an f-string or a `+` chain of strings, in order (string constants and the expressions
    between them); None when `node` is neither (a number's `+`)."""
    import ast

    if isinstance(node, ast.JoinedStr):
        return [v.value if isinstance(v, ast.FormattedValue) else v for v in node.values]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _string_parts(node.left), _string_parts(node.right)
        if left is None and right is None:
            return None
        return (left if left is not None else [node.left]) + (right if right is not None else [node.right])
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node]
    return None


def _fragments(node: ast.List | ast.Tuple) -> bool:
    """A list of shell fragments a program joins into one command line (`["docker run -d", "--gpus all",
    "vllm/vllm-openai:v0.6.4", "--model", args.model]`, then `" ".join(...)` run with `shell=True`): its first item
    is several words, and its items name an engine."""

    first = node.elts[0] if len(node.elts) > 1 else None
    if not _spaced(first):
        return False
    words = [_literal_text(e) for e in node.elts]
    return any(name in w.lower() for w in words for name in ("vllm", "sglang"))


def _spaced(node: ast.expr | None) -> bool:
    """A string, or an f-string whose literal text, holds a blank inside it (several words)."""
    return " " in _literal_text(node).strip()


def _literal_text(node: ast.expr | None) -> str:
    """The literal characters of a string or f-string item ("" for anything else)."""
    import ast

    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value for v in node.values if isinstance(v, ast.Constant) and isinstance(v.value, str))
    return ""


def _joined(src: _Source, elts: list[ast.expr]) -> Mapped:
    """The items joined by spaces, as `" ".join` makes them (by newlines when they are a script's continued lines):
    each string item's characters at their places, each other item as its known value or an unresolved `${name}` at
    the item."""
    text: list[str] = []
    offsets: list[int] = []
    # items that end in a shell continuation are a script's lines (`"vllm serve {m} \\"`, `"    --port 8000 \\"`),
    # which the program joins by newlines
    sep = "\n" if any(_literal_text(e).rstrip(" ").endswith("\\") for e in elts) else " "
    for k, elt in enumerate(elts):
        if k:
            text.append(sep)
            offsets.append(offsets[-1] + 1)
        parts = _string_parts(elt)
        if parts is not None:
            piece = _composed(src, elt, parts)
            text.append(piece.text)
            offsets.extend(list(piece.offsets or [])[: len(piece.text)])
            continue
        f = src.field(elt)
        word = f.text if f.resolved else "${" + _shell_name(f.text[2:-1]) + "}"
        text.append(word)
        offsets.extend([src.offset(elt)] * len(word))
    offsets.append(offsets[-1] + 1 if offsets else 0)
    return src.text_mapped("".join(text), offsets)


def _composed(src: _Source, node: ast.expr, parts: list[ast.expr]) -> Mapped:
    """An f-string or string concatenation as one shell text: each literal piece at its place in the file, each
    expression as its known value (a module constant, a parameter default) or as an unresolved `${name}`, its
    characters at the expression. Python before 3.12 places an f-string's literal pieces at the f-string's
    start: they are found in its source text in order."""
    import ast

    start = src.offset(node)
    seg = src.segment(node) if isinstance(node, ast.JoinedStr) else ""
    cursor = 0
    text: list[str] = []
    offsets: list[int] = []
    for part in parts:
        if isinstance(part, ast.Constant) and isinstance(part.value, str):
            value = part.value
            if text and text[-1].endswith("}") and text[-1].startswith("${") and _glued_program(value):
                text.append(" ")  # `f"{env_prefix}docker run ..."`: the expression's words go before the program
                offsets.append(offsets[-1])
            if isinstance(node, ast.JoinedStr) and getattr(part, "col_offset", -1) == node.col_offset:
                k = seg.find(value, cursor) if value else -1
                aligned = _align(value, seg, cursor) if k < 0 and value else None
                if k >= 0:
                    offsets.extend(range(start + k, start + k + len(value)))
                    cursor = k + len(value)
                elif aligned is not None:
                    offsets.extend(start + i for i in aligned)
                    cursor = aligned[-1] + 1
                else:
                    offsets.extend([start] * len(value))
            else:  # a piece with its own place (a `+` operand; any f-string piece from Python 3.12)
                k = src.segment(part).find(value) if value else -1
                base = src.offset(part) + max(k, 0)
                offsets.extend(range(base, base + len(value)) if k >= 0 else [base] * len(value))
            text.append(value)
            continue
        flags = dict_flags(src, part) if isinstance(part, ast.Call) else None
        if flags is not None:  # `" ".join(f"--{k} {v}" for k, v in params.items())`: each key and value at its place
            text.append(flags[0])
            offsets.extend(flags[1])
            continue
        f = src.field(part)
        word = f.text if f.resolved else "${" + _shell_name(f.text[2:-1]) + "}"
        at = src.offset(part)
        if isinstance(node, ast.JoinedStr):
            close = seg.find("}", max(cursor, at - start + len(src.segment(part))))
            cursor = close + 1 if close >= 0 else cursor
        text.append(word)
        offsets.extend([at] * len(word))
    offsets.append(offsets[-1] + 1 if offsets else start)
    return src.text_mapped("".join(text), offsets)


def _glued_program(piece: str) -> bool:
    """Whether a literal piece right after an expression starts with a launcher's name and a blank (`f"{nccl_prefix}
    docker run ..."`, sample K465's builder): the expression is `NAME=value ` assignments or nothing, never part of the
    program's name (kvlint.launches.wrappers.launcher_word, as `$SUDO docker run` in a script)."""
    from kvlint.launches.wrappers import launcher_word

    word, blank, _ = piece.partition(" ")
    return bool(blank) and launcher_word(word)


_BRACES = lazy(r"\{\{|\}\}|\{([^{}!:]*)(?:![rsa])?(?::[^{}]*)?\}")
_PERCENT = lazy(r"%%|%(?:\(([^)]*)\))?[-#0 +]*\d*(?:\.\d+)?[sdirfgxXeEc]")


def _percent_args(node: ast.expr) -> dict[str, ast.expr]:
    """The values of `"..." % (a, b)` / `% x` / `% {"k": v}` by place ("0", "1") or key."""
    import ast

    if isinstance(node, ast.Tuple):
        return {str(k): e for k, e in enumerate(node.elts)}
    if isinstance(node, ast.Dict):
        return {str(k.value): v for k, v in zip(node.keys, node.values, strict=True) if isinstance(k, ast.Constant)}
    return {"0": node}


def _formatted(src: _Source, template: ast.expr, args: dict[str, ast.expr], pattern: re.Pattern[str]) -> Mapped:
    """`"vllm serve {} --tp {tp}".format(M, tp=2)` / `"vllm serve %s" % M` as one shell text: the template's
    characters at their places, each field as its argument's known value (or an unresolved `${name}`) at the
    argument's place."""
    value = str(getattr(template, "value", ""))
    base = src.mapped(template)
    known = base.offsets is not None and len(base.offsets) > len(value)
    where = [base.offsets[i] for i in range(len(value))] if base.offsets is not None and known \
        else [src.offset(template)] * len(value)
    text: list[str] = []
    offsets: list[int] = []
    last, auto = 0, 0
    for m in pattern.finditer(value):
        text.append(value[last : m.start()])
        offsets.extend(where[last : m.start()])
        last = m.end()
        if m.group() in ("{{", "}}", "%%"):
            text.append(m.group()[0])
            offsets.append(where[m.start()])
            continue
        key = m.group(1) or ""
        if not key or key.isdigit() and pattern is _PERCENT:
            key, auto = str(auto), auto + 1
        expr = args.get(key.split(".", 1)[0].split("[", 1)[0])
        if expr is None:
            word, at = m.group(), where[m.start()]
        else:
            f = src.field(expr)
            word, at = (f.text if f.resolved else "${" + _shell_name(f.text[2:-1]) + "}"), src.offset(expr)
        text.append(word)
        offsets.extend([at] * len(word))
    text.append(value[last:])
    offsets.extend(where[last:])
    offsets.append(offsets[-1] + 1 if offsets else src.offset(template))
    return src.text_mapped("".join(text), offsets)


def _align(value: str, seg: str, start: int) -> list[int] | None:
    """Where each character of a string's value is in its source text from `start`, matched in order, when
    the source only adds a few characters between them (a backslash-newline the string drops, an escape's
    backslash); None when a character is not found close by."""
    out: list[int] = []
    j = start
    for ch in value:
        k = seg.find(ch, j, j + _ALIGN_GAP)
        if k < 0:
            return None
        out.append(k)
        j = k + 1
    return out or None


_ALIGN_GAP = 8  # source characters a value character may sit past the previous one's


def _path_tail(node: ast.expr) -> tuple[ast.expr, str] | None:
    """(the folder's expression, the last part) of a path joined at run time whose last part is written:
    `venv / "bin" / "vllm"` (pathlib), `os.path.join(bindir, "vllm")`, either inside `str(...)` (sample K220's
    `[str(python.parent / "vllm"), "serve", MODEL, ...]`); None for any other expression."""
    import ast

    if isinstance(node, ast.Call) and _name(node.func) == "str" and len(node.args) == 1:
        node = node.args[0]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
        last, folder = node.right, node.left
    elif isinstance(node, ast.Call) and _name(node.func) == "join" and len(node.args) >= 2:
        last, folder = node.args[-1], node.args[0]
    else:
        return None
    # the last part may be a relative path of its own (`ROOT / ".venv-vllm/bin/vllm"`, sample K290): its last name
    if isinstance(last, ast.Constant) and isinstance(last.value, str) and re.fullmatch(r"[\w.-]+(?:/[\w.-]+)*",
                                                                                         last.value):
        return folder, last.value.rsplit("/", 1)[-1]
    return None


def _shell_name(expr: str) -> str:
    """An expression as a name the shell can expand (`args.model` -> `args_model`): left unresolved, named."""
    name = "".join(c if c.isalnum() or c == "_" else "_" for c in expr).strip("_")
    return name if name and not name[0].isdigit() else "expr"


def _scopes(tree: ast.Module, bound: dict[str, str] | None = None) -> dict[int, dict[str, str]]:
    """The names each node sees (by node id; 0 is the module): module constants (and `bound`), then the enclosing
    function's parameter defaults and its own constant assignments (an inner function's win)."""
    import ast

    constants = _constants(tree.body)
    module = {**constants, **_argparse_defaults(tree, constants), **(bound or {})}
    scopes: dict[int, dict[str, str]] = {0: module}
    _rebound(tree, module, scopes)
    chooses = _fallbacks(tree)
    for fn in ast.walk(tree):
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            seen = {**module, **_loop_firsts(fn), **_defaults(fn, module), **_constants(fn.body, module, chooses)}
            for node in ast.walk(fn):
                scopes[id(node)] = seen
    return scopes


def _rebound(tree: ast.Module, module: dict[str, str], scopes: dict[int, dict[str, str]]) -> None:
    """A module that binds one name to several values on its top level (notebooks exported together, sample K265:
    `BASE_MODEL_ID = "org/m"` in one part, `"org/m-AWQ"` in the next): the code between two bindings sees the one
    before it, as the program runs top to bottom, not the module's last. Nothing is done when no name is rebound."""
    import ast

    values: dict[str, set[str]] = {}
    for stmt in tree.body:
        target = assigned(stmt)
        value = _plain(target[1]) if target is not None else None
        if target is not None and value is not None:
            values.setdefault(target[0], set()).add(value)
    rebound = {name for name, seen in values.items() if len(seen) > 1}
    if not rebound:
        return
    running = {name: value for name, value in module.items() if name not in rebound}
    for stmt in tree.body:
        if not isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            here = dict(running)
            for node in ast.walk(stmt):
                scopes[id(node)] = here
        target = assigned(stmt)
        if target is not None and target[0] in rebound and (value := _plain(target[1])) is not None:
            running[target[0]] = value


def _loop_firsts(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> dict[str, str]:
    """`for arg in ("--help=all", "--help"):` in a function: the loop variable's first value, the one an argv naming
    it is run with first (a probe that tries two spellings is read as its first try)."""
    import ast

    out: dict[str, str] = {}
    for node in ast.walk(fn):
        if isinstance(node, ast.For) and isinstance(node.target, ast.Name) \
                and isinstance(node.iter, (ast.Tuple, ast.List)) and node.iter.elts:
            first = _plain(node.iter.elts[0])
            if first is not None:
                out.setdefault(node.target.id, first)
    return out


def _argparse_defaults(tree: ast.Module, constants: dict[str, str] | None = None) -> dict[str, str]:
    """`args.model` -> "org/m" for `parser.add_argument("--model", default="org/m")` and `args = parser.parse_args()`:
    a program's own option with a literal default (or a module constant: `default=DEFAULT_MODEL_NAME`) is what its
    argv sees when it is run without it."""
    import ast

    holders: set[str] = set()
    defaults: dict[str, str] = {}
    parsers = _parsing_functions(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and _name(node.value.func) in parsers:
            holders.update(t.id for t in node.targets if isinstance(t, ast.Name))
            # `args, _ = parser.parse_known_args()`: the first of the pair is the parsed options
            holders.update(t.elts[0].id for t in node.targets if isinstance(t, ast.Tuple) and t.elts
                           and isinstance(t.elts[0], ast.Name) and _name(node.value.func) == "parse_known_args")
        elif isinstance(node, ast.arg) and node.annotation is not None and _name(node.annotation) == "Namespace":
            holders.add(node.arg)  # `def main(args: argparse.Namespace)`: the parsed options, handed in
        elif isinstance(node, ast.Call) and _name(node.func) == "add_argument":
            options = [a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
            keys = {k.arg: k.value for k in node.keywords if k.arg}
            longs = [o for o in options if o.startswith("--")] or options
            dest = _plain(keys["dest"]) if "dest" in keys else longs[0].lstrip("-").replace("-", "_") if longs else None
            default = _plain(keys["default"], constants) if "default" in keys else None
            if dest and default is not None:
                defaults[dest] = default
    holders |= _handed_options(tree, parsers, holders) if defaults else set()
    return {f"{h}.{dest}": value for h in holders for dest, value in defaults.items()}


def _handed_options(tree: ast.Module, parsers: set[str], holders: set[str]) -> set[str]:
    """The parameters of the file's functions that are handed the parsed options at a call (sample K510:
    `build_args(parse_cli_args())`, whose `cli_args.model` is `--model`'s default): a call's argument that is a
    parsing call or a name holding the options makes the parameter at its place one more such name."""
    import ast

    params = {fn.name: [a.arg for a in fn.args.posonlyargs + fn.args.args] for fn in ast.walk(tree)
              if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef))}
    found: set[str] = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or (callee := _name(node.func)) not in params:
            continue
        for k, arg in enumerate(node.args[:len(params[callee])]):
            if (isinstance(arg, ast.Call) and _name(arg.func) in parsers) or \
                    (isinstance(arg, ast.Name) and arg.id in holders):
                found.add(params[callee][k])
    return found


def _parsing_functions(tree: ast.Module) -> set[str]:
    """The calls whose value is a program's parsed options: argparse's own, and a function of the file's that
    returns one (`def arg_parser(): ... return parser.parse_args()`, then `args = arg_parser()`)."""
    import ast

    found = {"parse_args", "parse_known_args"}
    for fn in ast.walk(tree):
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) and any(
                isinstance(n, ast.Return) and isinstance(n.value, ast.Call) and _name(n.value.func) in found
                for n in ast.walk(fn)):
            found.add(fn.name)
    return found


def _defaults(fn: ast.FunctionDef | ast.AsyncFunctionDef, names: dict[str, str] | None = None) -> dict[str, str]:
    """`def serve(model="org/m", tp: int = 4)`: each parameter's literal default, or the value of the module's name
    it gives (`def serve(model=DEFAULT_MODEL)`: Python evaluates it once, from the module, when the function is
    defined)."""
    args = fn.args.posonlyargs + fn.args.args
    pairs = list(zip(args[len(args) - len(fn.args.defaults):], fn.args.defaults, strict=True))
    pairs += [(a, d) for a, d in zip(fn.args.kwonlyargs, fn.args.kw_defaults, strict=True) if d is not None]
    return {a.arg: v for a, d in pairs if (v := _plain(d, names)) is not None}


def _constants(body: list[ast.stmt], names: dict[str, str] | None = None,
               chooses: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] | None = None) -> dict[str, str]:
    """`NAME = "literal"` and `NAME = os.environ.get("X", "default")` / `os.getenv(...)` (the default) in a
    module's or function's body: the values an argv naming NAME sees when nothing else is known. In a function,
    `names` are the module's, and a call of one of the module's choosing functions (`resolve(args.model, "ENV",
    DEFAULT_MODEL)`, kvlint.launches.pyfile._fallbacks) is the first of its choices that is known."""
    import ast

    out: dict[str, str] = {}
    for stmt in body:
        if isinstance(stmt, (ast.Try, ast.With)):  # blocks that run on the normal path: their assignments hold
            out.update(_constants(stmt.body, names, chooses))
        target = assigned(stmt)
        if target is not None:
            name, node = target
            value = _plain(node) if not isinstance(node, ast.IfExp) else _plain(node, {**(names or {}), **out})
            if value is None and isinstance(node, ast.Call) and _name(node.func) in ("get", "getenv"):
                value = _plain(node.args[1]) if len(node.args) == 2 else None
            if value is None and chooses and isinstance(node, ast.Call) and _name(node.func) in chooses:
                value = _chosen(node, chooses[_name(node.func)], {**(names or {}), **out})
            if value is not None:
                out[name] = value
    return out


def _fallbacks(tree: ast.Module) -> dict[str, tuple[tuple[str, ...], tuple[str, ...]]]:
    """The module's functions that return one of their own parameters, chosen at run time (`def resolve(arg, env,
    default): if arg is not None: return arg ... return default`, `def pick(a, b): return a or b`): name -> (its
    parameters in order, the ones it returns in the order the returns are written). Run with no options and no
    environment, such a function returns the first of them that is set: a program's option left unset (`args.model`,
    default None) is not."""
    import ast

    out: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {}
    for fn in tree.body:
        if not isinstance(fn, ast.FunctionDef):
            continue
        params = tuple(a.arg for a in fn.args.posonlyargs + fn.args.args + fn.args.kwonlyargs)
        chosen: list[str] = []
        for node in ast.walk(fn):
            value = node.value if isinstance(node, ast.Return) else None
            parts = value.values if isinstance(value, ast.BoolOp) else [value.body, value.orelse] \
                if isinstance(value, ast.IfExp) else [value]
            chosen += [p.id for p in parts if isinstance(p, ast.Name) and p.id in params and p.id not in chosen]
        if len(chosen) >= 2:
            out[fn.name] = (params, tuple(chosen))
    return out


def _chosen(call: ast.Call, fn: tuple[tuple[str, ...], tuple[str, ...]], names: dict[str, str]) -> str | None:
    """The value a choosing function returns for `call`: its first chosen parameter whose argument is known."""
    params, chosen = fn
    given = {k.arg: k.value for k in call.keywords if k.arg}
    given.update({p: a for p, a in zip(params, call.args, strict=False)})
    return next((v for p in chosen if p in given and (v := _plain(given[p], names)) is not None), None)


def assigned(stmt: ast.stmt) -> tuple[str, ast.expr] | None:
    """(name, value) of `NAME = value` and of the annotated `NAME: T = value` (`MODEL: Final[str] = "org/m"`, as
    typed modules write their constants); None for any other statement."""
    import ast

    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
        return stmt.targets[0].id, stmt.value
    if isinstance(stmt, ast.AnnAssign) and stmt.value is not None and isinstance(stmt.target, ast.Name):
        return stmt.target.id, stmt.value
    return None


# calls that give back the text they are handed (a path's text is the path): a value read through them is that value
_SAME_TEXT = frozenset({"str", "int", "float", "Path", "PosixPath", "PurePath", "PurePosixPath", "fspath"})


def _plain(node: ast.expr, names: dict[str, str] | None = None) -> str | None:
    """A literal's text (`str(2)` and `int("2")` of one too), or a known name's value, else None."""
    import ast

    while isinstance(node, ast.Call) and _name(node.func) in _SAME_TEXT and len(node.args) == 1 and not node.keywords:
        node = node.args[0]  # `str(Path(os.environ.get("M", "/models/m")))` (sample K263): the text it wraps
    if isinstance(node, ast.BoolOp) and isinstance(node.op, ast.Or):
        # `shutil.which("vllm") or "vllm"`, `os.environ.get("M") or "org/m"`: the first known operand, as `or` picks
        return next((v for v in (_plain(o, names) for o in node.values) if v is not None), None)
    if isinstance(node, ast.IfExp):
        return _same_program(_plain(node.body, names), _plain(node.orelse, names))
    if isinstance(node, ast.Call) and _env_default(node):
        node = node.args[1]  # os.environ.get("X", "default") inside int(...) / str(...) / `or`: the default
    if isinstance(node, ast.Call) and _name(node.func) in ("which", "find_executable") and len(node.args) == 1:
        node = node.args[0]  # shutil.which(NAME): the program NAME, wherever PATH has it
    if _is_interpreter(node):
        return "python"
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):  # `"--model " + model_id`: both parts known
        left, right = _plain(node.left, names), _plain(node.right, names)
        return left + right if left is not None and right is not None and not _numeric(node) else None
    if isinstance(node, ast.JoinedStr):  # f"--model-path={MODEL_PATH}": known when each of its values is
        parts = _f_parts(node, names)
        return None if parts is None or any(known is None for _, known in parts) else "".join(str(k) for _, k in parts)
    if isinstance(node, ast.Name) and names is not None:
        return names.get(node.id)
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and names is not None:
        return names.get(f"{node.value.id}.{node.attr}")  # a program's own option (`args.model`)
    value = node.value if isinstance(node, ast.Constant) else None
    return str(value) if isinstance(value, (str, int, float)) and not isinstance(value, bool) else None


def _numeric(node: ast.BinOp) -> bool:
    """`2 + 2` is arithmetic, not text: a sum with a number on either side is not joined as strings."""
    import ast

    return any(isinstance(n, ast.Constant) and isinstance(n.value, (int, float)) for n in (node.left, node.right))


def _f_parts(node: ast.JoinedStr, names: dict[str, str] | None) -> list[tuple[ast.expr | None, str | None]] | None:
    """An f-string's pieces: (None, text) for its literal text, (expression, its value or None) for each `{...}`;
    None for a value with a format spec or a conversion other than `!s` (its text is the program's to make)."""
    import ast

    out: list[tuple[ast.expr | None, str | None]] = []
    for value in node.values:
        if isinstance(value, ast.Constant):
            out.append((None, str(value.value)))
        elif isinstance(value, ast.FormattedValue) and value.format_spec is None and value.conversion in (-1, 115):
            out.append((value.value, _plain(value.value, names)))
        else:
            return None
    return out


def _same_program(a: str | None, b: str | None) -> str | None:
    """`VENV_BIN if os.path.exists(VENV_BIN) else shutil.which("vllm") or "vllm"`: a program found in one of two
    places is the same program (the bare name). Two different values stay unknown: the branch is the run's."""
    if a is None or b is None:
        return None
    if a == b:
        return a
    bare = [v for v in (a, b) if "/" not in v and " " not in v]
    return bare[0] if len(bare) == 1 and a.rsplit("/", 1)[-1] == b.rsplit("/", 1)[-1] else None


def _env_default(node: ast.Call) -> bool:
    """`os.environ.get("X", "d")`, `os.getenv("X", "d")` or a program's own helper named for the environment
    (`get_env_or_default("MODEL_ID", "org/m", int)`, `env("TP", "2")`): a variable's name, then its default."""
    import ast

    name = _name(node.func).lower()
    if name in ("get", "getenv"):
        return len(node.args) == 2
    return "env" in name and len(node.args) >= 2 and isinstance(node.args[0], ast.Constant) \
        and isinstance(node.args[0].value, str)


class _Source:
    """The parsed text and where its characters are: the file itself, or (`within`) a text cut out of a file, such
    as a notebook cell, whose every character is mapped to its place in the file."""

    def __init__(self, path: str, text: str, index: LineIndex, scopes: dict[int, dict[str, str]],
                 within: Mapped | None = None, tree: ast.Module | None = None):
        self.path, self.text, self.index, self.scopes, self.within = path, text, index, scopes, within
        self.tree = tree  # the parsed module, for names bound to a dict (kvlint.launches.pyflags)
        self._bytes: dict[int, bytes] = {}  # line -> its UTF-8 bytes, encoded once (ast's columns are bytes)
        self._owners: dict[int, tuple] | None = None

    def owners(self, tree: ast.Module) -> dict[int, tuple]:
        """Each node's enclosing functions and classes (kvlint.launches.pycalls.owners), computed once when asked."""
        if self._owners is None:
            from kvlint.launches import pycalls

            self._owners = pycalls.owners(tree)
        return self._owners

    def offset(self, node: ast.expr | ast.keyword) -> int:
        return self.index.offset(node.lineno, node.col_offset + 1)

    def span(self, node: ast.expr | ast.keyword) -> Span:
        end_line = getattr(node, "end_lineno", None) or node.lineno
        end_col = getattr(node, "end_col_offset", None) or node.col_offset
        if self.within is not None:
            return self.placed(self.offset(node), self.index.offset(end_line, end_col + 1))
        return Span(self.path, node.lineno, node.col_offset + 1, end_line, end_col + 1)

    def placed(self, start: int, end: int) -> Span:
        """The span of text offsets [start, end) in the file."""
        if self.within is None:
            (line, col), (end_line, end_col) = self.index.locate(start), self.index.locate(max(start, end - 1))
            return Span(self.path, line, col, end_line, end_col + (end > start))
        line, col = self.within.at(start)
        end_line, end_col = self.within.at(max(start, end - 1))
        return Span(self.path, line, col, end_line, end_col + (end > start))

    def text_mapped(self, text: str, offsets: Sequence[int]) -> Mapped:
        """`text` whose character i is at offset offsets[i] of the parsed text."""
        if self.within is not None:
            return Mapped(self.path, text, offsets=offsets, within=self.within)
        return Mapped(self.path, text, index=self.index, offsets=offsets)

    def segment(self, node: ast.expr) -> str:
        """The node's source text, sliced through the file's line index: ast.get_source_segment splits the whole
        file on every call (a 200,000-item argument list took minutes). Columns are UTF-8 byte offsets."""
        end_line, end_col = getattr(node, "end_lineno", None), getattr(node, "end_col_offset", None)
        if end_line is None or end_col is None:
            return ""
        first = self._line(node.lineno)
        if end_line == node.lineno:
            return first[node.col_offset:end_col].decode("utf-8", "replace")
        middle = b"".join(self._line(n) for n in range(node.lineno + 1, end_line))
        return (first[node.col_offset:] + middle + self._line(end_line)[:end_col]).decode("utf-8", "replace")

    def _line(self, line: int) -> bytes:
        """Line `line` (1-based) with its line break, as UTF-8 bytes."""
        found = self._bytes.get(line)
        if found is None:
            starts = self.index.starts
            start = starts[line - 1] if 0 < line <= len(starts) else len(self.text)
            end = starts[line] if line < len(starts) else len(self.text)
            found = self._bytes[line] = self.text[start:end].encode("utf-8")
        return found

    def value_span(self, node: ast.expr) -> Span:
        """A string literal's value without its quotes (and prefix); other expressions whole."""
        span = self.span(node)
        seg = self.segment(node)
        value = getattr(node, "value", None)
        if isinstance(value, str) and value and (span.line == span.end_line or self.within is not None):
            k = seg.find(value)
            if k >= 0 and self.within is not None:
                return self.placed(self.offset(node) + k, self.offset(node) + k + len(value))
            if k >= 0:
                return Span(self.path, span.line, span.col + k, span.line, span.col + k + len(value))
        return span

    def mapped(self, node: ast.expr) -> Mapped:
        """A string constant as shell input: each character at its place in the file when the literal holds
        the value verbatim (no escapes) or nearly (a backslash-newline the string drops), else every character
        at the literal's start."""
        value = str(getattr(node, "value", ""))
        seg = self.segment(node)
        k = seg.find(value)
        if k >= 0 and value:
            start = self.offset(node) + k
            return self.text_mapped(value, range(start, start + len(value) + 1))
        aligned = _align(value, seg, 0) if value else None
        if aligned is not None:
            base = self.offset(node)
            return self.text_mapped(value, [base + i for i in aligned] + [base + aligned[-1] + 1])
        if self.within is not None:
            return self.text_mapped(value, [self.offset(node)] * (len(value) + 1))
        pos = ((node.lineno, node.col_offset + 1),) * (len(value) + 1)
        return Mapped(self.path, value, pos)

    def field(self, node: ast.expr) -> Field:
        """One argv word: a literal's text, or `${expr}` left unresolved at the expression's place."""
        import ast

        if isinstance(node, ast.Constant) and not isinstance(node.value, bool) and node.value is not None:
            return Field(str(node.value), self.value_span(node))
        names = self.scopes.get(id(node), self.scopes[0])
        plain = _plain(node, names)
        if plain is not None:
            return Field(plain, self.span(node), origin="" if _plain(node) is not None else "variable")
        tail = _path_tail(node)
        if tail is not None:  # `str(venv / "bin" / "vllm")`: a program at a run-time folder, named by its last part
            folder = "${" + _shell_name(self.segment(tail[0]) or "folder") + "}"
            return Field(f"{folder}/{tail[1]}", self.span(node), False, (folder,))
        parts = _f_parts(node, names) if isinstance(node, ast.JoinedStr) else None
        if parts is not None:  # f"--model-path={cfg.model}": the flag known, the value left at its expression
            texts = [k if k is not None else "${" + (self.segment(e) or "expr") + "}" if e is not None else ""
                     for e, k in parts]
            missing = tuple(t for (_, k), t in zip(parts, texts, strict=True) if k is None)
            return Field("".join(texts), self.span(node), False, missing)
        expr = self.segment(node) or "expr"
        return Field("${" + expr + "}", self.span(node), False, ("${" + expr + "}",))


# what shows text to a person (the console, a log): a command given to one is a suggestion, not a start
_TELLS = frozenset({"print", "pprint", "echo", "secho", "info", "debug", "warning", "warn", "error", "exception",
                    "critical", "log"})


def _told(func: ast.expr) -> bool:
    """A call that prints or logs its arguments (`print`, `click.echo`, `logger.info`, `console.print`), or makes an
    error's message (`RuntimeError(f"vllm serve exited early ...")`, turn 37's K326 harness; `sys.exit("...")`,
    `pytest.fail`); a `.write` is not one (a script written to a file is run later)."""
    name = _name(func)
    return name in _TELLS or name.endswith(_MESSAGE_TYPES)


_MESSAGE_TYPES = ("Error", "Exception", "Warning", "exit", "fail", "abort")


def _name(func: ast.expr) -> str:
    import ast

    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""


def _runs_module(elts: list[ast.expr]) -> bool:
    """`[<any expression>, "-m", "vllm.entrypoints.openai.api_server", ...]`: whatever computes the first word (a
    venv's interpreter, `str((BASE / "venv/bin/python").resolve())`), it is a Python that runs the engine's module."""
    import ast

    k = 1
    while k < len(elts) and k <= _PY_OPTIONS_READ and _constant(elts[k]) in PY_OPTIONS:
        k += 1  # the interpreter's own options before `-m` (`-u`: unbuffered output, for the program's log)
    words = [e.value for e in elts[k : k + 2] if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    return len(words) == 2 and words[0] == "-m" and words[1].startswith(("vllm.", "sglang."))


_PY_OPTIONS_READ = 3


def _constant(node: ast.expr) -> object:
    import ast

    return node.value if isinstance(node, ast.Constant) else None


def _unused_lists(tree: ast.Module) -> set[int]:
    """The lists a function assigns to a local name it never reads (`cmd = [sys.executable, "-m", "vllm...", ...]`
    left behind when the author switched to a `cmd_str` run with `shell=True`, sample K516): no program runs them.
    Module-level names are left alone: another module may import them."""
    import ast

    out: set[int] = set()
    for fn in ast.walk(tree):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        nodes = list(ast.walk(fn))
        kept = {n.id for n in nodes if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Store)} | \
            {name for n in nodes if isinstance(n, (ast.Global, ast.Nonlocal)) for name in n.names}  # read, or shared
        for stmt in nodes:
            if isinstance(stmt, ast.Assign) and isinstance(stmt.value, (ast.List, ast.Tuple)) \
                    and all(isinstance(t, ast.Name) and t.id not in kept for t in stmt.targets):
                out.add(id(stmt.value))
    return out


def _starts_with_word(node: ast.List | ast.Tuple, src: _Source) -> bool:
    """A list whose first element is one word: a literal, `sys.executable`, or a name holding one (`binp =
    shutil.which("vllm") or "vllm"` before `[binp, "serve", ...]`)."""
    import ast

    first = node.elts[0] if node.elts else None
    if first is not None and (_is_interpreter(first) or _runs_module(node.elts)):
        return True
    if _engine_named_cli(node.elts) or _engine_found_cli(node.elts, src) is not None:
        return True
    if first is not None and _path_tail(first) is not None:  # `str(venv / "bin" / "vllm")`: one word at run time
        return True
    if isinstance(first, ast.Name):
        value = src.scopes.get(id(first), src.scopes[0]).get(first.id)
        return value is not None and " " not in value.strip()
    return isinstance(first, ast.Constant) and isinstance(first.value, str) and " " not in first.value.strip()


def _engine_named_cli(elts: list[ast.expr]) -> bool:
    """`[toolkit_configs.VLLM_ENV_PATH, "serve", model, ...]`, `[str(VLLM_EXE), "serve", ...]`, `[cfg["vllmBin"],
    "serve", ...]`: a program set at run time whose name names an engine,
    given that engine CLI's `serve` (sample K164: the path of a virtual environment's `vllm`; sample K180: a call of
    `_vllm_cli()`, which finds it on the PATH): the engine's CLI, its words read by the flag table
    (kvlint.launches.pyfile._flag_list)."""
    import ast

    from kvlint.engines.registered import engine_names

    if len(elts) < 3 or not (isinstance(elts[1], ast.Constant) and elts[1].value == "serve"):
        return False
    first = elts[0]
    if isinstance(first, ast.Call) and len(first.args) == 1 and _name(first.func) in ("str", "fspath", "os.fspath"):
        first = first.args[0]  # `str(VLLM_EXE)`, a path imported from a module of the repository (sample K245)
    first = first.func if isinstance(first, ast.Call) and not first.args else first  # `_vllm_cli()` (sample K180)
    if isinstance(first, ast.Subscript) and isinstance(first.slice, ast.Constant) and \
            isinstance(first.slice.value, str):
        name = first.slice.value  # `cfg["vllmBin"]`: a configuration's entry named for the engine (sample K297)
    else:
        name = first.id if isinstance(first, ast.Name) else first.attr if isinstance(first, ast.Attribute) else ""
    return any(e in name.lower() for e in engine_names())


def _engine_found_cli(elts: list[ast.expr], src: _Source) -> str | None:
    """`executable = resolve_vllm_binary(...)` before `[executable, "serve", "--config", path]` (sample K274): a name
    the program binds to what a function named for the engine finds, given the engine CLI's `serve`: that engine."""
    import ast

    from kvlint.engines.registered import engine_names

    if len(elts) < 3 or not isinstance(elts[0], ast.Name) or not (isinstance(elts[1], ast.Constant)
                                                                   and elts[1].value == "serve"):
        return None
    name = elts[0].id
    for node in ast.walk(src.tree) if src.tree is not None else ():
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) \
                and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
            return next((e for e in engine_names() if e in _name(node.value.func).lower()), None)
    return None


def _is_interpreter(node: ast.expr) -> bool:
    """`sys.executable`: the running Python, the usual first word of `[sys.executable, "-m", "sglang.launch_server",
    ...]` in a program that starts the engine beside itself; or a name that says it holds one (`python`,
    `venv_python`, `PYTHON_BIN`), whatever path it is given."""
    import ast

    if isinstance(node, ast.Call) and _name(node.func) == "str" and len(node.args) == 1 and not node.keywords:
        node = node.args[0]  # `str(python)`, a path object's text
    if isinstance(node, ast.Name):  # `python = ROOT / ".venv/bin/python"` (sample K264): a name saying it is one
        return _INTERPRETER_NAME.fullmatch(node.id) is not None
    return (isinstance(node, ast.Attribute) and node.attr == "executable" and isinstance(node.value, ast.Name)
            and node.value.id == "sys")


_INTERPRETER_NAME = lazy(r"(?i)(?:\w+_)?python(?:3|_?(?:bin|exe|path|executable|interpreter))?")


def _gpu_of(src: _Source, tree: ast.Module, node: ast.AST) -> ManifestGpu:
    """The GPU a decorator of the function running `node` requests (kvlint.launches.pycalls), for a file that
    writes one."""
    if "gpu=" not in src.text:
        return ManifestGpu()
    from kvlint.launches import pycalls

    return pycalls.decorator_gpu(src.path, src.owners(tree).get(id(node), ()), src.scopes[0])


def _classes(src: _Source, tree: ast.Module, node: ast.List | ast.Tuple, elts: list[ast.expr],
             arms: list[tuple[ast.If, list[ast.expr]]] | None = None) -> list[Deployment]:
    """The argv of a method read with the class attributes its `self.NAME`s see, once per class of the file that
    deploys it, each with its decorator's GPU (kvlint.launches.pyclassattrs); [] when the argv is in no class, or
    in the one class that runs it and reads none of its attributes."""
    import ast

    from kvlint.launches import pycalls
    from kvlint.launches.pyclassattrs import family, reads

    chain = src.owners(tree).get(id(node), ())
    cls = next((d for d in chain if isinstance(d, ast.ClassDef)), None)
    if cls is None or "self." not in src.text:
        return []
    given = src.scopes[0]  # a caller's values (kvlint.launches.pyclasses) win over the class's own
    classes = [(k, {n: v for n, v in attrs.items() if n not in given}) for k, attrs in family(tree, cls)]
    if len(classes) == 1 and classes[0][0] is cls and not reads(elts, classes[0][1]):
        return []  # the class runs its command as written
    out: list[Deployment] = []
    for klass, attrs in classes:
        own = pycalls.decorator_gpu(src.path, (klass,), src.scopes[0])
        added = [(test, pycalls.substituted(extra, attrs)) for test, extra in arms or []]
        found = _argv(src, pycalls.substituted(elts, attrs), own if own.product or own.count else
                      _gpu_of(src, tree, node), added)
        note = f"the command of class {cls.name}, as class {klass.name} (line {klass.lineno}) deploys it"
        out.extend(replace(d, notes=(*d.notes, note)) if klass is not cls else d for d in found)
    return out


def _called(src: _Source, tree: ast.Module, node: ast.List | ast.Tuple, elts: list[ast.expr],
            read: Callable[[list[ast.expr]], list[Deployment]] | None = None) -> list[Deployment]:
    """One launch per call of the function that builds this argv from its parameters, each with the caller's
    values and the caller's GPU (kvlint.launches.pycalls); [] when the argv reads no parameter or no call is in
    the file (the argv is then read once, with the parameters' defaults). `read` reads the bound argv (by default
    as a command line; a list of the engine's flags without its command is read as one, `_flag_list`)."""
    import ast

    from kvlint.launches import pycalls

    fn = next((d for d in src.owners(tree).get(id(node), ()) if not isinstance(d, ast.ClassDef)), None)
    if fn is None or isinstance(fn, ast.ClassDef):
        return []
    params = set(pycalls.parameters(fn))
    if not params or not pycalls.uses(elts, params):
        return []
    name = pycalls.list_name(fn, node)
    out: list[Deployment] = []
    found = pycalls.bindings(tree, fn, src.owners(tree), lambda e: src.field(e).resolved)
    # a call that hands on its own function's parameters gives no value: it is no reading of its own, and when every
    # call is one, the argv is read where it is
    found = [(bound, call) for bound, call in found if not _passed_through(src, tree, bound, call)]
    if not found:
        return []
    for bound, call in found:
        extra = pycalls.parameter_growth(fn, name, bound) if name else []
        gpu = _gpu_of(src, tree, call)
        argv, where = pycalls.substituted(elts, bound) + extra, gpu if gpu.product or gpu.count else \
            _gpu_of(src, tree, node)
        out.extend(_argv(src, argv, where) if read is None else read(argv))
    groups: list[list[Deployment]] = []  # the same values from several calls (a start and a restart)
    for dep in out:
        group = next((g for g in groups if _same_command(g[0], dep)), None)
        if group is None:
            groups.append([dep])
        else:
            group.append(dep)
    return [_one_of(sorted(group, key=_unknowns)) for group in groups]


def _passed_through(src: _Source, tree: ast.Module, bound: dict[str, ast.expr], call: ast.Call) -> bool:
    """Whether a call gives the builder nothing but its own function's parameters, each left unknown
    (`self.build_serve_cmd(model=model, vllm_bin=vllm_bin)` inside `format_serve_cmd(self, model, vllm_bin="vllm")`,
    sample K274: a display helper): the builder's own defaults say as much, and its list is where the command is."""
    import ast

    from kvlint.launches import pycalls

    outer = next((d for d in src.owners(tree).get(id(call), ()) if not isinstance(d, ast.ClassDef)), None)
    names = set(pycalls.parameters(outer)) if isinstance(outer, (ast.FunctionDef, ast.AsyncFunctionDef)) else set()
    return bool(bound) and bool(names) and all(isinstance(v, ast.Name) and v.id in names for v in bound.values())


def _same_command(a: Deployment, b: Deployment) -> bool:
    """Whether two calls start the same command: the same engine, model and flags, and every value both resolve
    equal. A value one caller leaves unknown (`state.vllm_port`) and the other resolves (`args.vllm_port`, default
    8001) is no evidence of two servers (sample K86: one builder called from a server path and a CLI path)."""
    if (a.engine, a.model, a.settings.keys()) != (b.engine, b.model, b.settings.keys()):
        return False
    return all(s.value == b.settings[n].value for n, s in a.settings.items() if s.resolved and b.settings[n].resolved)


def _unknowns(dep: Deployment) -> int:
    """How many of a launch's values are unknown: the most resolved of the same command's calls stands for them."""
    return sum(not s.resolved for s in dep.settings.values())


def _one_of(group: list[Deployment]) -> Deployment:
    """Calls that start the same command: one launch. When they differ only in the GPU their callers ask for
    (a Modal function per card, `gpu="T4"` ... `gpu="H100"`), the launch runs on one of those cards: a launch with
    the cards as its options, each tried (kvlint.resolve's candidate sweep)."""
    from kvlint.deployment import GpuOption

    first = group[0]
    cards: dict[tuple[str | None, int | None], Deployment] = {(d.gpu, d.gpu_count): d for d in group}
    if len(cards) < 2 or any(d.gpu is None for d in cards.values()):
        return first
    options = tuple(GpuOption(d.gpu or "", d.gpu_count, d.gpu_span, "callers") for d in cards.values())
    note = f"one command its callers start on {len(options)} different GPUs: the launch runs on one of them"
    return replace(first, gpu=None, gpu_span=None, gpu_options=options, notes=first.notes + (note,))


def _argv(src: _Source, elts: list[ast.expr], gpu: ManifestGpu | None = None,
          arms: list[tuple[ast.If, list[ast.expr]]] | None = None) -> list[Deployment]:
    """An argument list anywhere (`subprocess.run([...])`, `cmd = ["vllm", "serve", model, ...]`, `execvp`):
    a launch when its words start an engine; `arms`: what `if`s of the program add to it (_with_arms)."""
    fields = _words(src, elts)
    # an engine word anywhere in the list's head: `docker run` options come before the image (sample K74's
    # `["docker", "run", "-d", "--name", N, "--gpus", "all", "-p", ..., "vllm/vllm-openai:latest", ...]`)
    found = launch_in_argv(fields, {}) if any(w in f.text for f in fields[:_HEAD] for w in engine_words()) else None
    if found is None:
        return []
    found = _listed(found)
    if arms and len(fields) == len(elts):
        found = _with_arms(src, found, fields, arms)
    return [finish(src.path, found, LaunchContext(), gpu or ManifestGpu())]


def _words(src: _Source, elts: list[ast.expr]) -> list[Field]:
    import ast

    fields = []
    for e in elts:
        if isinstance(e, ast.Starred):
            break  # `*args`: what follows is not known word by word
        fields.append(src.field(e))
    return fields


_MAX_ARMS = 8  # `if`s read per argv


def _with_arms(src: _Source, found: FoundLaunch, fields: list[Field],
               arms: list[tuple[ast.If, list[ast.expr]]]) -> FoundLaunch:
    """The launch with, as the file's other branch, the flags the program's `if`s add when kvlint does not decide
    their conditions (`if args.max_model_len is not None: cmd += ["--max-model-len", str(args.max_model_len)]`): the
    launch is sized both without and with them and a verdict that differs is an info (kvlint.resolve), never an
    error that assumes the flags absent. Only settings: a flag an `if` adds is no unknown flag or refused value here."""
    added = [w for _, extra in arms[:_MAX_ARMS] for w in _words(src, extra)]
    more = launch_in_argv(fields + added, {})
    if more is None:
        return found
    # the condition as written (its source text: an unparse of a hostile expression recurses without bound)
    tests = [f"`if {' '.join(src.segment(test.test).split())[:60]}` at line {test.lineno}" for test, _ in arms[:2]]
    why = "the program adds flags under " + " and ".join(tests) + (" ..." if len(arms) > 2 else "")
    return replace(found, otherwise=(_listed(more).fields, why))


_HEAD = 64  # words of a list looked at for the engine: the options in front of it (a container's run) included


def _listed(found: FoundLaunch) -> FoundLaunch:
    """A launch read from a list of words in code: an item holding several arguments (`"--reasoning-parser x"`) is
    read split, as meant, but is no KV013 here: the program may join the list into a shell command (`" ".join(cmd)`
    run with `shell=True`), which splits it."""
    return replace(found, joined=()) if found.joined else found


MAX_PROGRAM_WORDS = 2  # `sys.argv = ["api_server.py", "--model", ...]`: the program's own name before the flags


_ARGS_KEYS = ("args", "command", "cmd", "arguments")


def _container_dict(src: _Source, node: ast.Dict) -> list[Deployment] | None:
    """A container written as a dict in a program (sample K211's notebook: a cloud API's `"docker_configuration":
    {"image": "vllm/vllm-openai:latest", "args": "--model " + model_id}`): an engine image given its arguments, as a
    string of words or a list, read as `docker run IMAGE ARGS`, each word at its place; None for any other dict."""
    import ast

    from kvlint.launches.images import build_named_engine, entrypoint_engine

    pairs = {k.value: v for k, v in zip(node.keys, node.values, strict=True)
             if isinstance(k, ast.Constant) and isinstance(k.value, str)}
    image = pairs.get("image")
    args = next((pairs[k] for k in _ARGS_KEYS if k in pairs), None)
    if not isinstance(image, ast.Constant) or not isinstance(image.value, str) or args is None:
        return None
    engine = entrypoint_engine(image.value) or build_named_engine(image.value)
    if engine is None:
        return None
    from kvlint.launches.cloud_run import words_of

    words = _words(src, args.elts) if isinstance(args, (ast.List, ast.Tuple)) else \
        [replace(w, resolved=w.resolved or "${" not in w.text) for w in words_of(src.field(args))]
    found = launch_in_argv(words, {}, image_default=engine) if words else None
    if found is None:
        return None
    ctx = LaunchContext(image=image.value, image_span=src.value_span(image))
    return [finish(src.path, found, ctx, ManifestGpu())]


def _stand_in_container(node: ast.Dict) -> bool:
    """A container dict whose `"image"` is, as written, a stand-in for an engine (`FixturesImages.LLMD_INFERENCE_SIM`,
    `"ghcr.io/llm-d/llm-d-inference-sim:v0.5.0"`): kvlint.launches.images.stand_in."""
    import ast

    from kvlint.launches.images import stand_in

    for key, value in zip(node.keys, node.values, strict=True):
        if isinstance(key, ast.Constant) and key.value == "image":
            return stand_in(value.value if isinstance(value, ast.Constant) and isinstance(value.value, str)
                            else ast.unparse(value))
    return False


def _commanded_images(tree: ast.Module) -> dict[int, ast.expr]:
    """The `image=` of each call that hands a container its command as a list (`run_container(image=f"vendor/vllm:
    {v}", command=["--model", "/model", ...])`, a helper over the Docker SDK: sample K163), by the list's id: the
    image the engine's arguments go to, whose release decides how they are read."""
    import ast

    out: dict[int, ast.expr] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and node.keywords:
            kw = {k.arg: k.value for k in node.keywords if k.arg}
            if "image" in kw and isinstance(kw.get("command"), (ast.List, ast.Tuple)):
                out[id(kw["command"])] = kw["image"]
    return out


def _image_text(src: _Source, image: ast.expr) -> Field:
    """An image as written, an f-string's (or `+` chain's) holes as `${name}` (`liquidai/liquid-labs-vllm:
    ${vllm_version}`, as kvlint.launches.pyfile._composed writes them), at its place: the name reads as it does in
    a compose file."""
    parts = _string_parts(image)
    if parts is None or len(parts) < 2:
        return src.field(image)
    return Field(_composed(src, image, parts).text, src.span(image), False)


def _flag_list(src: _Source, node: ast.List | ast.Tuple, elts: list[ast.expr] | None = None,
               image: ast.expr | None = None) -> list[Deployment]:
    """A list of the engine's own arguments without the command (`default_args = ["--model", "org/m",
    "--max-model-len", "2048"]` handed to the engine's `make_arg_parser(...).parse_args`, `sys.argv = [...]` before
    its `main()`), in a file that names the engine: a launch when it holds a model (`--model X`, or a word after
    `serve`) and at least one more of the engine's flags; the flag table decides which engine's they are."""
    import ast

    fields: list[Field] = []
    for e in node.elts if elts is None else elts:
        if isinstance(e, ast.Starred):
            break
        fields.append(src.field(e))
    start = next((k for k, f in enumerate(fields[: MAX_PROGRAM_WORDS + 1]) if f.text.startswith("--")
                  or f.text == "serve"), None)
    if start is None or (fields[start].text != "serve" and any(_other_program(f.text) for f in fields[:start])):
        return []
    words = fields[start + 1 :] if fields[start].text == "serve" else fields[start:]
    engine = _engine_of_flags(src.text, words, positional=fields[start].text == "serve")
    if engine is None or ("bench" in src.text and _benchmark_arguments(src, node)):
        return []
    if fields[start].text == "serve":  # `[ENGINE] serve MODEL ...`: read as the engine's own command line
        found = launch_in_argv([Field(engine, fields[start].span), *fields[start:]], {})
        found = _listed(found) if found is not None else None
    else:
        found = FoundLaunch(engine, tuple(words), src.span(node))
    pic = _image_text(src, image) if image is not None else None
    ctx = LaunchContext(image=pic.text, image_span=pic.span) if pic is not None else LaunchContext()
    return [finish(src.path, found, ctx, ManifestGpu())] if found is not None else []


def _benchmark_arguments(src: _Source, node: ast.List | ast.Tuple) -> bool:
    """Whether the flags are what a function returns that every call of it appends to a command of the engine's
    benchmark (`[python, vllm_path, "bench", "throughput"] + get_model_args(model, tp)`, sample K457's offline
    throughput runs): the benchmark's arguments, no server's. A call appended to any other command keeps the launch."""
    import ast

    if src.tree is None:
        return False
    fn = next((d for d in src.owners(src.tree).get(id(node), ())
               if isinstance(d, (ast.FunctionDef, ast.AsyncFunctionDef))), None)
    if fn is None:
        return False
    sums = [n for n in ast.walk(src.tree) if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Add)
            and any(_calls(side, fn.name) for side in (n.left, n.right))]
    return bool(sums) and all(any(_bench_words(side) for side in (n.left, n.right)) for n in sums)


def _calls(node: ast.expr, name: str) -> bool:
    import ast

    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == name


def _bench_words(node: ast.expr) -> bool:
    """A literal command list with `bench` among its words (vLLM's `vllm bench throughput|latency|serve` client)."""
    import ast

    return isinstance(node, (ast.List, ast.Tuple)) and any(isinstance(e, ast.Constant) and e.value == "bench"
                                                           for e in node.elts)


_ENGINE_PROGRAM = lazy(r"vllm|sglang|python|trl|api_server|launch_server", re.IGNORECASE)


def _other_program(word: str) -> bool:
    """A path to a program that is not the engine's (`<VLLM_CPP_BUILD>/examples/server`, turn 38's K336: a benchmark
    manifest's own server beside its vLLM and SGLang commands): the flags after it are that program's. A bare
    `argv[0]` (`"prog"`) says nothing."""
    return "/" in word and _ENGINE_PROGRAM.search(word.rstrip("/").rsplit("/", 1)[-1]) is None


def _engine_of_flags(text: str, words: list[Field], positional: bool) -> str | None:
    """The one engine the file names whose flag table knows a model flag (or a positional model after `serve`)
    and at least one more flag of these words."""
    from kvlint.engines.registered import engine_names
    from kvlint.launches.argv import exact_option

    flags = [f.text.split("=", 1)[0] for f in words if f.text.startswith("-")]
    has_model = positional and bool(words) and not words[0].text.startswith("-")
    from kvlint.launches.infer import foreign

    fits = []
    for engine in (e for e in engine_names() if e in text):
        known = [f for f in flags if exact_option(engine, f) is not None]
        model = has_model or any(f in _MODEL_FLAGS for f in known)
        if model and len([f for f in known if f not in _MODEL_FLAGS]) >= 1 and not foreign(engine, set(flags)):
            fits.append((len(known), engine))  # many flags no release has: another program (a proxy, a client)
    fits.sort(reverse=True)
    return fits[0][1] if fits and (len(fits) == 1 or fits[0][0] > fits[1][0]) else None


def _script(src: _Source, m: Mapped, at: ast.AST | None = None) -> list[Deployment]:
    """The launches of a command string; `at`: the string's node, whose decorated function or class (a Modal app's
    `@app.cls(image=sglang_image, gpu="h200:4")`) gives the GPU and the image the command runs on."""
    launches, _, notes = run_script(m, {})
    if not launches:
        return []
    ctx = LaunchContext(notes=tuple(notes))
    gpu = ManifestGpu()
    if at is not None and src.tree is not None:
        from kvlint.launches import pycalls

        chain = src.owners(src.tree).get(id(at), ())
        gpu = _gpu_of(src, src.tree, at)
        image = pycalls.decorator_image(src.path, chain, src.tree) if "image=" in src.text else None
        if image is not None:
            ctx = replace(ctx, image=image[0], image_span=image[1])
    return [finish(src.path, f, ctx, gpu) for f in launches]


def _named_engine_args(src: _Source, node: ast.Dict) -> list[Deployment] | None:
    """A dict that names an engine by value (`"framework": "vllm"`, `"engine": "sglang"`) beside that engine's own
    argument string, model included (`"framework_args": "--model M --tensor-parallel-size 4 ..."`, sample K471's judge
    presets handed to a Slurm launcher library): the engine's server started with those arguments, read at the
    string, as the same map in a YAML file is (kvlint.launches.structured)."""
    import ast

    from kvlint.engines.registered import engine_names, facts

    engine, args = None, None
    for key, value in zip(node.keys, node.values, strict=True):
        if not (isinstance(key, ast.Constant) and isinstance(key.value, str) and isinstance(value, ast.Constant)
                and isinstance(value.value, str)):
            continue
        name = key.value.lower().replace("-", "_")
        if name in _ENGINE_NAMING_KEYS and value.value.lower() in engine_names():
            engine = value.value.lower()
        elif name.endswith("args") and value.value.lstrip().startswith("--"):
            args = value
    if engine is None or args is None or facts(engine).MODEL_FLAG not in str(args.value):
        return None
    from kvlint.launches.argv import exact_option

    flags = [w.split("=", 1)[0] for w in str(args.value).split() if w.startswith("--")]
    if not all(exact_option(engine, f) is not None for f in flags):
        return None  # a benchmark's or a client's options beside its backend (`--num-prompts`): not the server's
    words = f"python -m {facts(engine).ENTRY_MODULES[0]} "
    given = src.mapped(args)
    start = given.offsets[0] if given.offsets else src.offset(args)
    placed = list(given.offsets) if given.offsets and len(given.offsets) > len(given.text) \
        else [start] * (len(given.text) + 1)
    return _script(src, src.text_mapped(words + given.text, [start] * len(words) + placed), node)


_ENGINE_NAMING_KEYS = frozenset({"framework", "engine", "backend", "runtime", "inference_engine", "serving_engine"})


def _ray_dict(node: ast.Dict) -> dict[str, ast.expr] | None:
    """A dict literal with Ray Serve LLM's keys (`model_loading_config` and `engine_kwargs`), as keywords."""
    keys = {key: value for key, _, value in _mapping(node)}
    return keys if "model_loading_config" in keys else None


def _bound_dict(tree: ast.Module, node: ast.expr) -> ast.expr:
    """A keyword's value, or, for a name (`model_loading_config=model_loading_config`), the dict literal the program
    binds to it with the keys its `name["key"] = value` statements add: one dict the LLMConfig is given."""
    import ast

    if not isinstance(node, ast.Name):
        return node
    bound: ast.Dict | None = None
    extra: list[tuple[ast.expr, ast.expr]] = []
    for stmt in ast.walk(tree):
        if not isinstance(stmt, ast.Assign) or len(stmt.targets) != 1:
            continue
        target = stmt.targets[0]
        if isinstance(target, ast.Name) and target.id == node.id and isinstance(stmt.value, ast.Dict):
            bound = stmt.value
        elif isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name) \
                and target.value.id == node.id and isinstance(target.slice, ast.Constant):
            extra.append((target.slice, stmt.value))
    if bound is None:
        return node
    return ast.Dict(keys=[*bound.keys, *(k for k, _ in extra)], values=[*bound.values, *(v for _, v in extra)])


def _mapping(node: ast.expr | None) -> list[tuple[str, ast.expr, ast.expr]]:
    """(key, key node, value node) of `dict(a=1)` or `{"a": 1}`; empty for anything else."""
    import ast

    if isinstance(node, ast.Call) and _name(node.func) == "dict":
        return [(k.arg, k, k.value) for k in node.keywords if k.arg]  # type: ignore[misc]
    if isinstance(node, ast.Dict):
        return [(k.value, k, v) for k, v in zip(node.keys, node.values, strict=True)
                if isinstance(k, ast.Constant) and isinstance(k.value, str)]
    return []


def _ray(src: _Source, kwargs: dict[str, Any], call: ast.Call | None) -> list[Deployment]:
    """Ray Serve LLM: the model is `model_source` (else `model_id`, which is also the served name); each
    `engine_kwargs` key is a vLLM argument; `accelerator_type` is the GPU product."""
    import ast

    loading = {k: v for k, _, v in _mapping(kwargs.get("model_loading_config"))}
    if "model_source" in loading and not src.field(loading["model_source"]).text.strip():
        del loading["model_source"]  # `MODEL_SOURCE` defaulting to "" (added only when set): the id is the model
    source = loading.get("model_source") or loading.get("model_id")
    if source is None:
        return []
    fields = [Field("--model", src.span(source)), src.field(source)]
    if "model_source" in loading and "model_id" in loading:
        fields += [Field("--served-model-name", src.span(loading["model_id"])), src.field(loading["model_id"])]
    fields += _keyword_flags(src, _mapping(kwargs.get("engine_kwargs")))
    where = call if call is not None else source
    found = FoundLaunch("vllm", tuple(fields), src.span(where.func if isinstance(where, ast.Call) else where),
                        wrapper=_RAY_WRAPPER)
    accel = kwargs.get("accelerator_type")
    gpu = ManifestGpu()
    if isinstance(accel, ast.Constant) and isinstance(accel.value, str):
        gpu = ManifestGpu(accel.value, src.value_span(accel))
    elif accel is not None and src.field(accel).resolved:  # a name the program sets (an environment default)
        gpu = ManifestGpu(src.field(accel).text, src.span(accel))
    return [finish(src.path, found, LaunchContext(), gpu)]


# the keywords a serving framework's model configuration names its model by, beside `engine_kwargs`
_MODEL_KEYWORDS = ("model_identifier", "model_id", "model", "model_path", "model_name_or_path", "model_source")


def _engine_kwargs_model(call: ast.Call) -> ast.expr | None:
    """The model a serving framework's model configuration names (`DynamoVLLMModelConfig(model_identifier=M,
    engine_kwargs={...})`, `RayServeModelConfig(...)`: sample K227's NeMo Curator): a call, other than Ray Serve's own
    LLMConfig (read by _ray), of a configuration class (`...Config`) with `engine_kwargs=` and a model keyword; None
    for any other call (a function handing `engine_kwargs` on, `run_benchmark(model_id=..., engine_kwargs=...)`)."""
    keys = {k.arg: k.value for k in call.keywords if k.arg}
    name = _name(call.func)
    if "engine_kwargs" not in keys or name == _RAY_CONFIG or not re.fullmatch(r"[A-Z]\w*Config\w*", name):
        return None
    return next((keys[k] for k in _MODEL_KEYWORDS if k in keys), None)


def _engine_kwargs_config(src: _Source, tree: ast.Module, call: ast.Call, model: ast.expr) -> list[Deployment]:
    """The launch a framework's model configuration starts: the engine its class names (SGLang's when the name says
    so, else vLLM's, whose keyword arguments `engine_kwargs` are, as Ray Serve LLM's), its model, each `engine_kwargs`
    key a flag of that engine at its key and value."""
    engine = "sglang" if "sglang" in _name(call.func).lower() else "vllm"
    kwargs = next(k.value for k in call.keywords if k.arg == "engine_kwargs")
    fields = [Field("--model-path" if engine == "sglang" else "--model", src.span(model)), src.field(model)]
    fields += _keyword_flags(src, _mapping(_bound_dict(tree, kwargs)), engine)
    found = FoundLaunch(engine, tuple(fields), src.span(call.func), wrapper=_name(call.func))
    return [finish(src.path, found, LaunchContext(), _gpu_of(src, tree, call))]


def _not_given(src: _Source, value: ast.expr) -> bool:
    """A keyword argument that gives nothing: `None`, or a value the program reads as empty (`args.quantization or
    None` whose default is ""): the argument class keeps its default, where a command line's `--flag ""` would be
    a value the engine rejects (sample K85: a wrong KV007 error on SGLang's ServerArgs)."""
    import ast

    if isinstance(value, ast.Constant):
        return value.value is None
    field = src.field(value)
    return field.resolved and field.text.strip() in ("", "None")


def _keyword_flags(src: _Source, pairs: Sequence[tuple[str, ast.expr | ast.keyword, ast.expr]],
                   engine: str = "vllm") -> list[Field]:
    """An engine's arguments given as keywords (`engine_kwargs`, `AsyncEngineArgs(...)`, SGLang's `ServerArgs(...)`)
    as the flags they stand for, each at its key and value."""
    import ast

    fields: list[Field] = []
    for key, key_node, value in pairs:
        flag = Field("--" + key.replace("_", "-"), src.span(key_node))
        if _not_given(src, value):
            continue  # `quantization=None`, `args.quant or None` with an empty default: the engine's own default
        if isinstance(value, ast.Constant) and isinstance(value.value, bool):
            negative = "--no-" + flag.text[2:]  # False: an on/off flag's `--no-` form, else the default (nothing)
            fields += [flag] if value.value else [Field(negative, flag.span)] if negatable(negative, engine) else []
        elif isinstance(value, (ast.Dict, ast.List)) and _literal(value) is not None:
            fields += [flag, Field(json.dumps(_literal(value)), src.span(value))]
        elif _switch(flag.text, engine) and src.field(value).resolved:  # `'trust_remote_code': trust_remote_code`,
            on = src.field(value).text.strip().lower() in ("true", "1", "yes", "on")  # a bool read as "true"
            negative = "--no-" + flag.text[2:]
            fields += [flag] if on else [Field(negative, flag.span)] if negatable(negative, engine) else []
        elif _switch(flag.text, engine):  # `enable_prefix_caching=cfg["..."]`: on or off at run time; never a value
            continue  # after a switch (read so, the next word would be a stray argument: sample K154)
        else:
            fields += [flag, src.field(value)]
    return fields


def _in_process_server(call: ast.Call, text: str) -> str | None:
    """The engine whose server the program starts in process with these arguments: the call builds the engine's
    argument class and the file names the engine's server function and module (each engine's IN_PROCESS_SERVER), or
    the call makes the engine's own server object (_server_object)."""
    engine = _server_classes().get(_name(call.func))
    if engine is None:
        return _server_object(call, text)
    _, server, module = _server_apis()[engine]
    called = re.search(rf"\b{re.escape(server)}\s*\(", text) is not None  # imported and never called: no server
    return engine if (called or _app_served(engine, text)) and module in text else None


def _server_object(call: ast.Call, text: str) -> str | None:
    """The engine whose own class starts its server in a process of its own when made (each engine's SERVER_OBJECT:
    SGLang's `sgl.Runtime(model_path=M, ...)`, sample K541), the file naming its package."""
    name = _name(call.func)
    return next((e for e, (cls, package) in _per_engine("SERVER_OBJECT").items() if name == cls and package in text),
                None)


def _app_served(engine: str, text: str) -> bool:
    """Whether the program builds the engine's API app itself and serves it (`app = build_app(engine)` then
    `uvicorn.run(app, ...)`, sample K465's Neuron workshop server), as the engine's server function would, or runs
    the server's start-up steps on a host framework's app (IN_PROCESS_STATE: turn 47's K487, a BentoML service)."""
    app, runner = _per_engine("IN_PROCESS_APP").get(engine, ("", ""))
    if app and runner in text and re.search(rf"\b{re.escape(app)}\s*\(", text) is not None:
        return True
    steps = _per_engine("IN_PROCESS_STATE").get(engine, ())
    return bool(steps) and all(re.search(rf"\b{re.escape(step)}\s*\(", text) is not None for step in steps)


def _in_process_argv(call: ast.Call, text: str) -> tuple[tuple[str, ...], ast.List | ast.Tuple] | None:
    """(the engine's command words, the list) when the call hands a literal argument list to the engine's own
    parser and the file starts the engine's server with what it parses (each engine's IN_PROCESS_ARGV and
    IN_PROCESS_SERVER: sample K128's `make_arg_parser(...).parse_args([MODEL, "--max-model-len", "32768", ...])`
    then `run_server(args)`, a program that runs `vllm serve` without its CLI)."""
    import ast

    if not call.args or not isinstance(call.args[0], (ast.List, ast.Tuple)):
        return None
    name = _name(call.func)
    if name == "extend" and "run_module" in text and _is_sys_argv(call.func):
        # `sys.argv.extend(["--model", args.model, ...])` then `runpy.run_module("vllm.entrypoints.openai.api_server",
        # run_name="__main__")`: the engine's module runs as a program on those arguments (turn 37's K331); a list
        # that gives no model only adds defaults to the caller's command line (a wrapper: the launch is its caller)
        module = _RUN_MODULE.search(text)
        given = any(isinstance(e, ast.Constant) and isinstance(e.value, str) and e.value.replace("_", "-") in
                    _MODEL_FLAGS for e in call.args[0].elts)
        return (("python3", "-m", module.group(1)), call.args[0]) \
            if module is not None and given and _module_starts_engine(module.group(1)) else None
    for engine, (marker, receiver, words) in _per_engine("IN_PROCESS_ARGV").items():
        _, server, module = _per_engine("IN_PROCESS_SERVER").get(engine, ((), "", ""))
        if name == receiver and marker in text and server and module in text and \
                (server in text or _app_served(engine, text)):
            return words, call.args[0]
    return None


def _module_run(tree: ast.Module) -> ast.expr | None:
    """The `runpy.run_module("<engine module>", ...)` call of the file, where the engine starts (the launch's place)."""
    import ast

    return next((n.func for n in ast.walk(tree) if isinstance(n, ast.Call) and _name(n.func) == "run_module"
                 and n.args and isinstance(n.args[0], ast.Constant) and isinstance(n.args[0].value, str)
                 and _module_starts_engine(n.args[0].value)), None)


def _state_start(tree: ast.Module) -> ast.expr | None:
    """The first of the server's start-up steps a host framework runs (IN_PROCESS_STATE: `build_async_engine_client(
    args)` in a BentoML service), where the engine starts: the launch's place, not the parse before it."""
    import ast

    steps = {step for pair in _per_engine("IN_PROCESS_STATE").values() for step in pair}
    calls = [n.func for n in ast.walk(tree) if isinstance(n, ast.Call) and _name(n.func) in steps]
    return min(calls, key=lambda f: (f.lineno, f.col_offset), default=None)


def _is_sys_argv(func: ast.expr) -> bool:
    import ast

    owner = func.value if isinstance(func, ast.Attribute) else None
    return isinstance(owner, ast.Attribute) and owner.attr == "argv" and isinstance(owner.value, ast.Name) \
        and owner.value.id == "sys"


def _defaults_server(call: ast.Call, text: str) -> str | None:
    """The engine whose own parser the call gives defaults (`parser.set_defaults(**engine_default_args)`) in a file
    that builds that parser and starts the engine's server with what it parses (each engine's IN_PROCESS_ARGV and
    IN_PROCESS_SERVER: sample K201's KAITO preset, an image's entry point serving its baked-in weights)."""
    if _name(call.func) != "set_defaults":
        return None
    for engine, (marker, _, _) in _per_engine("IN_PROCESS_ARGV").items():
        _, server, module = _per_engine("IN_PROCESS_SERVER").get(engine, ((), "", ""))
        if marker in text and server and re.search(rf"\b{re.escape(server)}\s*\(", text) and module in text:
            return engine
    return None


def _defaulted_server(src: _Source, call: ast.Call, tree: ast.Module, engine: str) -> list[Deployment]:
    """The launch of the engine's server run with the defaults this call gives its parser (keywords, or `**NAME` of
    a dict the program binds): the engine's command with those flags, placed where the server starts; a call whose
    defaults name no model (the server's own port) is none."""
    import ast

    from kvlint.engines.registered import facts

    pairs: list[tuple[str, ast.expr | ast.keyword, ast.expr]] = []
    for k in call.keywords:
        if k.arg:
            pairs.append((k.arg, k, k.value))
        else:
            pairs += _mapping(_bound_dict(tree, k.value))
    model_key = facts(engine).MODEL_FLAG.lstrip("-").replace("-", "_")
    model = next((v for k, _, v in pairs if k == model_key), None)
    if model is None:
        return []
    fields = [Field(facts(engine).MODEL_FLAG, src.span(model)), src.field(model)]
    fields += _keyword_flags(src, [p for p in pairs if p[0] != model_key], engine)
    server = _server_apis()[engine][1]
    served = next((n for n in ast.walk(tree) if isinstance(n, ast.Call) and _name(n.func) == server), call)
    found = FoundLaunch(engine, tuple(fields), src.span(served.func),
                        notes=("the engine's own parser given these defaults, its server run in process: an image's "
                               "entry point, whose caller may pass other arguments",))
    return [finish(src.path, found, LaunchContext(), ManifestGpu())]


def _launch_helper(call: ast.Call, text: str) -> tuple[str, str] | None:
    """(engine, the keyword of its extra arguments) for a call of a helper of the engine's own package that starts its
    server in a subprocess, imported from there (sample K134: `popen_launch_server(cls.model, base_url, other_args=
    [...])` of `sglang.test.test_utils`, each engine's LAUNCH_HELPER); None for any other call."""
    name = _name(call.func)
    for engine, (function, module, extra) in _per_engine("LAUNCH_HELPER").items():
        if name == function and module in text and call.args:
            return engine, extra
    return None


def _helper_launch(src: _Source, call: ast.Call, engine: str, extra: str) -> list[Deployment]:
    """The engine's server module run with the helper's model (its first argument) and its extra arguments."""
    import ast

    from kvlint.engines.registered import facts

    engine_facts = facts(engine)
    at = src.span(call.func)
    head = [Field(w, at) for w in ("python", "-m", engine_facts.ENTRY_MODULES[0], engine_facts.MODEL_FLAG)]
    listed = next((k.value for k in call.keywords if k.arg == extra), None)
    more = _words(src, listed.elts) if isinstance(listed, (ast.List, ast.Tuple)) else []
    return _argv_launch(src, [*head, src.field(call.args[0]), *more])


def _cli_argv(node: ast.Assign, text: str, tree: ast.Module) -> tuple[tuple[str, ...], ast.List] | None:
    """(the CLI's program, its argument words as a list) when the program sets `sys.argv` to a list and runs the
    engine's CLI in process (sample K132: `sys.argv = [sys.argv[0]] + ["serve", model_path] + args` then vLLM's
    `vllm.entrypoints.cli.main.main()`, each engine's CLI_MAIN): the words after the program's own name. Or runs
    an engine's entry module as `python -m` would (`runpy.run_module("trl.scripts.vllm_serve", run_name="__main__")`,
    sample K217): `python -m MODULE` and the words. A name set to a list before (`argv = [...]; sys.argv = argv`,
    turn 47's K489) is that list."""
    import ast

    target = node.targets[0] if len(node.targets) == 1 else None
    if not (isinstance(target, ast.Attribute) and target.attr == "argv" and _name(target.value) == "sys"
            and isinstance(target.value, ast.Name)):
        return None
    module = _RUN_MODULE.search(text) if "run_module" in text else None
    if module is not None and _module_starts_engine(module.group(1)):
        words = _argv_words(_listed_value(tree, node.value))
        return ("python", "-m", module.group(1)), ast.copy_location(ast.List(elts=words, ctx=ast.Load()), node.value)
    engine = next((e for e, module in _per_engine("CLI_MAIN").items() if module in text), None)
    if engine is None:
        return None
    words = _argv_words(_listed_value(tree, node.value))
    if not words or not (isinstance(words[0], ast.Constant) and words[0].value == "serve"):
        return None
    listed = ast.List(elts=words, ctx=ast.Load())
    program = (_per_engine("CLI_SUBCOMMAND").get(engine) or (engine,))[0]
    return (program,), ast.copy_location(listed, node.value)


_RUN_MODULE = lazy(r"""\brunpy\.run_module\(\s*["']([\w.]+)["']""")


def _module_starts_engine(module: str) -> bool:
    """Whether `python -m MODULE` starts an engine (its own entry modules, and the wrappers that take its flags:
    `trl.scripts.vllm_serve`)."""
    from kvlint.launches.argv import detect
    from kvlint.span import Token

    return detect([Token("python"), Token("-m"), Token(module)]) is not None


def _lists_named(tree: ast.Module, value: ast.expr) -> list[ast.List]:
    """The list literals a name is set to in the file (`argv = [...]`), for a `sys.argv = argv`."""
    import ast

    if not isinstance(value, ast.Name):
        return []
    return [n.value for n in ast.walk(tree) if isinstance(n, ast.Assign) and isinstance(n.value, ast.List)
            and any(isinstance(t, ast.Name) and t.id == value.id for t in n.targets)]


def _listed_value(tree: ast.Module, value: ast.expr) -> ast.expr:
    """The value itself, or for a name set to one list literal in the file, that list (one only: with several, which
    one runs is the program's choice, not read)."""
    lists = _lists_named(tree, value)
    return lists[0] if len(lists) == 1 else value


def _argv_words(value: ast.expr) -> list[ast.expr]:
    """The words of a `sys.argv` value past the program's own name (`sys.argv[0]`): the elements of its list
    literals, `[a] + [b, c] + rest` joined."""
    import ast

    parts: list[ast.expr] = []
    while isinstance(value, ast.BinOp) and isinstance(value.op, ast.Add):
        parts.insert(0, value.right)
        value = value.left
    parts.insert(0, value)
    return [e for p in parts if isinstance(p, ast.List) for e in p.elts][1:]


@lru_cache(maxsize=8)
def _per_engine(fact: str) -> dict[str, Any]:
    """Each engine's value of one of its facts (an in-process API, a helper, a CLI module), for engines that have
    one: asked once per fact, not per call."""
    from kvlint.engines.registered import engine_names, facts

    return {e: value for e in engine_names() if (value := getattr(facts(e), fact, None))}


def _parsed_argv(src: _Source, at: ast.expr, words: tuple[str, ...], listed: ast.List | ast.Tuple
                 ) -> list[Deployment]:
    """The launch the engine's command with the list's words starts, placed at the call (or assignment) `at`."""
    return _argv_launch(src, [*(Field(w, src.span(at)) for w in words), *_words(src, listed.elts)])


def _argv_launch(src: _Source, fields: list[Field]) -> list[Deployment]:
    """The launch an engine command assembled from a program's words starts (none when it starts no engine)."""
    found = launch_in_argv(fields, {})
    return [finish(src.path, found, LaunchContext(), ManifestGpu())] if found is not None else []


@lru_cache(maxsize=1)
def _server_classes() -> dict[str, str]:
    """Each engine's argument class names, to the engine (one lookup a call)."""
    return {cls: engine for engine, (classes, _, _) in _server_apis().items() for cls in classes}


def _server_apis() -> dict[str, tuple[tuple[str, ...], str, str]]:
    return _per_engine("IN_PROCESS_SERVER")


def _served_engine_args(src: _Source, call: ast.Call, tree: ast.Module, engine: str) -> list[Deployment]:
    """`AsyncEngineArgs(model=..., tensor_parallel_size=...)` handed to vLLM's own API server in the program
    (`from vllm.entrypoints.openai.api_server import run_server`), or `ServerArgs(model_path=...)` to SGLang's
    `launch_server`, or the keywords of SGLang's `sgl.Runtime(...)`, which runs that server itself (placed at the
    call): the server the engine's command with those flags starts. Engine arguments for in-process use
    (`AsyncLLMEngine.from_engine_args`, `sgl.Engine`) start no server: not a launch."""
    import ast

    from kvlint.engines.registered import facts

    model_flag = facts(engine).MODEL_FLAG
    model_key = model_flag.lstrip("-").replace("-", "_")
    names = (_server_apis()[engine][1], _per_engine("IN_PROCESS_APP").get(engine, ("",))[0])
    pairs = [(k.arg, k, k.value) for k in call.keywords if k.arg]
    model = next((v for k, _, v in pairs if k == model_key), None)
    if model is None:
        return []
    fields = [Field(model_flag, src.span(model)), src.field(model)]
    fields += _keyword_flags(src, [(k, kn, v) for k, kn, v in pairs if k != model_key], engine)
    served = call if _server_object(call, src.text) else \
        next((n for n in ast.walk(tree) if isinstance(n, ast.Call) and _name(n.func) in names), call)
    found = FoundLaunch(engine, tuple(fields), src.span(served.func))  # placed where the server starts
    return [finish(src.path, found, LaunchContext(), ManifestGpu())]


def _switch(option: str, engine: str = "vllm") -> bool:
    """Whether the engine's flag takes no value (a store_true or on/off flag): a keyword argument's truth is its
    presence."""
    from kvlint.flags.flag_table import flag_table

    spec = flag_table(engine).by_option.get(option)
    return spec is not None and spec.kind in ("store_true", "bool_optional")


def _literal(node: ast.expr) -> Any:
    import ast

    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None
