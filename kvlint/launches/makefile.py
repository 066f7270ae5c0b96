"""Makefile, *.mk and Justfile recipes: each recipe line is a shell command, read by the script runner.

The recipe text is handed to the script runner at the file's offsets (a recipe's leading tab and its `@`/`-`/`+`
prefixes become spaces, every other line becomes blank), so every value keeps its line and column. Make's
`$(VAR)` and Just's `{{var}}` become the shell's `${VAR}` (kvlint.launches.rewrite), and the file's own
variable assignments (`MODEL ?= org/name`, `override X := y`, `A += b`, Just's `model := "org/name"`) are the
variables the recipes see, with make's own meaning of each operator.

GNU make's conditionals (`ifdef`/`ifndef`/`ifeq`/`ifneq` ... `else` ... `endif`, nested, `else ifeq ...`) are
alternatives: the file is read once per branch a recipe line sits in (its "world"), each branch with the
assignments made in the branches it agrees with, so `ifdef PROFILE ... docker run ... else ... docker run ...
endif` is two launches, each with its own variables. A value make computes when it runs (`$(shell ...)`,
`$(call ...)`, `!=`, a `define` body) is left unresolved and says so, never dropped.
"""

from __future__ import annotations

import re
from itertools import product
from typing import TYPE_CHECKING

from kvlint.deployment import Deployment
from kvlint.findings import Finding
from kvlint.launches import ReadResult
from kvlint.launches.rewrite import mapped, substitute
from kvlint.lazyre import lazy
from kvlint.record import field, record, replace

if TYPE_CHECKING:
    from kvlint.deployment import Cut

_ASSIGN = lazy(r"^((?:(?:export|override|private)[ \t]+)*)([A-Za-z_][A-Za-z0-9_]*)[ \t]*"
               r"(\?=|:::=|::=|:=|\+=|!=|=)[ \t]*(.*)$")
# make's $(VAR) and $$ (a `$` for the shell), Just's {{var}}
_VAR_REF = lazy(r"\$\$|\$\(([A-Za-z_][A-Za-z0-9_]*)\)|\{\{[ \t]*([A-Za-z_][A-Za-z0-9_]*)[ \t]*\}\}")
_DIRECTIVE = lazy(r"^ *(ifdef|ifndef|ifeq|ifneq|else|endif)(?:[ \t]+(.*?))?[ \t]*(?:#.*)?$")
_DEFINE = lazy(r"^ *(?:(?:export|override|private)[ \t]+)*define[ \t]+([A-Za-z_][A-Za-z0-9_]*)")
_ENDEF = lazy(r"^ *endef\b")
_RECIPE_PREFIX = "@-+"
_MAX_WORLDS = 32  # a Makefile with more branch combinations reads the rest in one world (every assignment, last wins)
_MAX_FORK = 3  # undecided conditions over a recipe's variables it is read under, each both ways

Key = tuple[str, str]  # ("def", NAME) for ifdef/ifndef, ("eq", ARGS) for ifeq/ifneq
Context = frozenset[tuple[Key, bool]]  # the branches a line sits in: each condition and the arm taken


@record
class _Assign:
    """One assignment: `NAME OP VALUE` at `line` (1-based), made only in the branches of `context`; `override`
    when the line says so (no later plain assignment changes it)."""

    name: str
    op: str
    value: str
    line: int
    context: Context
    override: bool = False


@record(frozen=False)
class _Layout:
    """A Makefile split for reading: its recipe lines (line index -> their context and their text as shell, at
    the same columns) and its assignments in file order."""

    lines: list[str]
    recipe: dict[int, tuple[Context, str]] = field(default_factory=dict)
    assigns: list[_Assign] = field(default_factory=list)


def read(path: str, text: str, _as_vllm_config: bool | None = None) -> ReadResult:
    """The reader protocol's entry (kvlint.launches.kinds)."""
    from kvlint.sources.comments import scan_comments

    findings: list[Finding] = []
    return ReadResult(path, read_recipes(path, text, findings), findings, comments=scan_comments(text))


def read_recipes(path: str, text: str, findings: list[Finding] | None = None) -> list[Deployment]:
    """Every launch of every branch, once each, in the order of the file; `findings` gets a KV008 at each command
    that runs an engine's entry point but gave no launch, when others did (kvlint.launches.shellfile)."""
    from kvlint.launches.shellfile import cut_finding, unread_notes

    layout = _layout(text, make=not _is_just(path))
    found: dict[tuple, Deployment] = {}
    unread: list[tuple] = []
    cuts: dict[tuple, Cut] = {}  # the launches a comment cuts short, once each however many worlds read them
    for lines, world in _worlds(layout):
        env, runtime = environment(layout.assigns, world)
        for d in _read_world(path, text, layout, lines, env, runtime, unread, cuts):
            # the same command read in two worlds is one launch unless its model differs (as the shell's `if`
            # arms are: kvlint.launches.script): the last world's reading, the `else` arm's, stands
            found[(d.launch_span, d.engine, d.model)] = d
    out = sorted(found.values(), key=lambda d: (d.launch_span.line, d.launch_span.col) if d.launch_span else (0, 0))
    if out and findings is not None:
        findings.extend(unread_notes(path, _distinct(unread + _in_defines(path, layout)), out))
    if findings is not None:
        findings.extend(cut_finding(path, c) for c in cuts.values())  # a recipe's shell cuts it as a script's does
    return [replace(d, cut=None) if d.cut is not None else d for d in out]  # said above, not again by the rule


def _in_defines(path: str, layout: _Layout) -> list[tuple]:
    """An engine entry point written in a `define` body (a canned recipe, a rule template for `$(eval ...)`, or
    help text): not read as a launch, since the body is a value until make expands it, but said at its place."""
    from kvlint.launches.named import ENTRY_MARKERS
    from kvlint.span import Span

    out: list[tuple] = []
    called = {m.group(1) for _, line in layout.recipe.values() for m in _CALL.finditer(line)}
    for a in layout.assigns:
        if a.op != "define" or a.name in called:  # a called define is read at each call (_script)
            continue
        for k, body in enumerate(a.value.split("\n"), start=a.line + 1):
            words = re.sub(r"[ \t]+", " ", body)
            marker = next((m for m in ENTRY_MARKERS if m in words), None)
            if marker is not None:
                col = body.find(marker.split(" ", 1)[0]) + 1
                out.append((Span(path, k, col, k, col + len(marker)), marker, f"define {a.name}"))
                break
    return out


def _read_world(path: str, text: str, layout: _Layout, lines: set[int], env: dict[str, str],
                runtime: dict[str, str], unread: list[tuple], cuts: dict[tuple, Cut]) -> list[Deployment]:
    """The launches of the recipe lines `lines`, read as one script with the variables of their world."""
    from kvlint.launches.build import LaunchContext, ManifestGpu, finish
    from kvlint.launches.groups import is_launch
    from kvlint.launches.script import unread_in

    base, at = _script(layout, lines)
    script, offsets = substitute(base, _VAR_REF, lambda m: _shell_ref(m, env))
    offsets = [at[o] for o in offsets]
    launches, notes, not_read, cut = unread_in(mapped(path, text, script, offsets), env, runtime)
    unread.extend(not_read)
    cuts.update(((c.words.line, c.words.col), c) for c in cut)
    for body, body_offsets in _echoed_scripts(script):  # a script the recipe writes line by line, then ships
        more, more_notes, _, _ = unread_in(mapped(path, text, body, [offsets[o] for o in body_offsets]), env, runtime)
        launches, notes = [*launches, *more], [*notes, *more_notes]
    ctx = LaunchContext(notes=tuple(notes))
    return [d for d in (finish(path, f, ctx, ManifestGpu()) for f in launches) if is_launch(d)]


def _echoed_scripts(script: str) -> list[tuple[str, list[int]]]:
    """The files a recipe writes with `echo '...' >> FILE` that name an engine (sample K356: `echo 'docker run -d
    --gpus all \\\\' >> startup_script.sh` ... then `gcloud compute instances create --metadata-from-file
    startup-script=startup_script.sh`): each file's text as `/bin/sh` writes it, with the offset in `script` each
    character comes from. Such a file runs elsewhere (a VM's start-up, an image), so its commands are launches."""
    if ">" not in script or ("echo" not in script and "printf" not in script):
        return []
    from kvlint.engines.registered import engine_names
    from kvlint.launches.echo_writes import echo_writes

    return [(body, offs) for body, offs in echo_writes(script).values()
            if any(name in body for name in engine_names())]


def _script(layout: _Layout, lines: set[int]) -> tuple[str, list[int]]:
    """The recipe lines `lines` as one script (every other line blank) and each character's offset in the file;
    a `$(call NAME,args)` of a `define` is replaced by its body with `$(1)`, `$(2)`... as the arguments, so a
    canned recipe (`define serve ... docker run ... $(1) endef`) is read once per call, each value where it is
    written: the body's words in the define, the model and flags in the call."""
    starts = _line_starts(layout.lines)
    defines = {a.name: a for a in layout.assigns if a.op == "define"}
    parts: list[str] = []
    at: list[int] = []
    for k, line in enumerate(layout.lines):
        if k in lines:
            piece, where = _with_calls(layout.recipe[k][1], starts[k], defines, starts)
        else:
            piece, where = " " * len(line), list(range(starts[k], starts[k] + len(line)))
        parts.append(piece + "\n")
        at.extend(where)
        at.append(starts[k] + len(line))
    text = "".join(parts)[:-1]
    return text, at[: len(text)] + [starts[-1] + len(layout.lines[-1])]


def _line_starts(lines: list[str]) -> list[int]:
    out, pos = [], 0
    for line in lines:
        out.append(pos)
        pos += len(line) + 1
    return out


_CALL = lazy(r"\$\(call[ \t]+([A-Za-z_][A-Za-z0-9_]*)")
_ARG_REF = lazy(r"\$[({]([0-9])[)}]")
_MAX_CALLS = 8  # per recipe line


def _with_calls(line: str, base: int, defines: dict[str, _Assign], starts: list[int]) -> tuple[str, list[int]]:
    """`line` (at file offset `base`) with each `$(call NAME,...)` of a define expanded, and per-character
    offsets; a call of anything else is left for the shell reader to call unresolved."""
    out: list[str] = []
    at: list[int] = []
    last = 0
    for m in list(_CALL.finditer(line))[:_MAX_CALLS]:
        define = defines.get(m.group(1))
        if define is None or m.start() < last:
            continue
        end = _closing(line, m.start() + 1)
        args = _call_args(line, m.end(), end)
        out.append(line[last : m.start()])
        at.extend(range(base + last, base + m.start()))
        body, where = _body(define, [(line[a:b], base + a) for a, b in args], starts)
        out.append(body)
        at.extend(where)
        last = min(end + 1, len(line))
    out.append(line[last:])
    at.extend(range(base + last, base + len(line)))
    return "".join(out), at


def _call_args(line: str, start: int, end: int) -> list[tuple[int, int]]:
    """The (start, end) of each argument of a call whose name ends at `start` and whose `)` is at `end`: split on
    the commas outside any `$(...)`, as make does."""
    if start >= end or line[start] != ",":
        return []
    out: list[tuple[int, int]] = []
    level, first = 0, start + 1
    for k in range(start + 1, end):
        c = line[k]
        level += 1 if c in "({" else -1 if c in ")}" else 0
        if c == "," and level == 0:
            out.append((first, k))
            first = k + 1
    out.append((first, end))
    return out


def _body(define: _Assign, args: list[tuple[str, int]], starts: list[int]) -> tuple[str, list[int]]:
    """A define's body as recipe lines, `$(N)` replaced by argument N (empty when not given), with offsets: the
    body's own characters in the define, an argument's in the call."""
    out: list[str] = []
    at: list[int] = []
    continued = False
    for i, raw in enumerate(define.value.split("\n")):
        k = define.line + i  # the 0-based index of this body line (the `define` is at 1-based `define.line`)
        base = starts[k] if k < len(starts) else starts[-1]
        line = raw if continued else _recipe_line(raw)  # `@`/`-` prefixes only where a command starts
        continued = raw.endswith("\\")
        last = 0
        for m in _ARG_REF.finditer(line):
            out.append(line[last : m.start()])
            at.extend(range(base + last, base + m.start()))
            n = int(m.group(1))
            value, where = args[n - 1] if 0 < n <= len(args) else ("", base + m.start())
            out.append(value)
            at.extend(range(where, where + len(value)))
            last = m.end()
        out.append(line[last:] + "\n")
        at.extend(range(base + last, base + len(line) + 1))
    text = "".join(out)[:-1]
    return text, at[: len(text)]


def _distinct(unread: list[tuple]) -> list[tuple]:
    out: list[tuple] = []
    for item in unread:
        if item not in out:
            out.append(item)
    return out


def _shell_ref(m: re.Match[str], env: dict[str, str] | None = None) -> str:
    """make's `$$` as `$`, a reference as the shell's `${NAME}`; a variable whose value holds quotes is pasted
    as make pastes it, so the shell parses its quotes (`--speculative-config '{"a": 1}'` is one word, which
    `${NAME}` would split at every space)."""
    if m.group(0) == "$$":
        return "$"
    name = m.group(1) or m.group(2)
    value = env.get(name) if env is not None else None
    if value is not None and ("'" in value or '"' in value or "${" in value or _in_single_quotes(m.string, m.start())):
        # make pastes it before the shell reads the line: inside '...' the shell would not expand it, and a
        # variable make only knows when it runs (`${DEVICES}` in it) is the shell's to leave unresolved
        return value
    return "${" + name + "}"


def _in_single_quotes(line: str, at: int) -> bool:
    """Whether offset `at` of a recipe line is inside the shell's single quotes (`--gpus '"device=$(IDS)"'`)."""
    quote = ""
    start = line.rfind("\n", 0, at) + 1
    for c in line[start:at]:
        if quote:
            quote = "" if c == quote else quote
        elif c in "'\"":
            quote = c
    return quote == "'"


def _is_just(path: str) -> bool:
    """A Justfile (its recipes are space-indented and it has no make directives: an `else` there is shell)."""
    name = path.replace("\\", "/").rsplit("/", 1)[-1].lower()
    return name in ("justfile", ".justfile") or name.endswith(".just")


def _layout(text: str, make: bool = True) -> _Layout:
    """The file's recipe lines and assignments, each with the conditional branches it sits in. A directive line
    (`ifdef`, `else`, `endif`) neither ends a recipe nor is part of one; a `define` body is a variable, not a
    recipe; a line of only a comment is ignored among recipe lines, as make does. `make` False (a Justfile):
    no directives."""
    layout = _Layout(text.split("\n"))
    stack: list[list[tuple[Key, bool]]] = []
    in_recipe = continued = False
    define: list[str] | None = None  # the lines of an open `define NAME`
    define_at, depth = 0, 0
    lines = layout.lines
    k = 0
    while k < len(lines):
        line = lines[k]
        body = line.rstrip()
        ctx: Context = frozenset(item for frame in stack for item in frame)
        if define is not None:
            depth += 1 if _DEFINE.match(body) else -1 if _ENDEF.match(body) else 0
            if depth == 0:
                layout.assigns.append(_Assign(_DEFINE.match(lines[define_at]).group(1), "define",  # type: ignore[union-attr]
                                              "\n".join(define), define_at + 1, ctx))
                define = None
            else:
                define.append(body)
            k += 1
            continue
        if continued:
            if not _dead(ctx):
                layout.recipe[k] = (ctx, line)
            continued = body.endswith("\\")
            k += 1
            continue
        directive = _DIRECTIVE.match(body) if make and not line.startswith("\t") else None
        if not body.strip() or directive is not None:
            if directive is not None:
                _branch(stack, directive.group(1), directive.group(2) or "")
            k += 1
            continue
        indented = line[:1] in ("\t", " ")
        if indented and in_recipe:
            if not _dead(ctx):
                layout.recipe[k] = (ctx, _recipe_line(line))
            continued = body.endswith("\\")
            k += 1
            continue
        if body.lstrip().startswith("#"):
            k += 1
            continue
        if make and _DEFINE.match(body):
            define, define_at, depth, in_recipe = [], k, 1, False
            k += 1
            continue
        in_recipe = _starts_recipe(body, make)
        if in_recipe and not make:
            layout.assigns.extend(_just_defaults(body, k + 1, ctx))
        k = _assignment(layout, k, ctx) if not in_recipe else k + 1
    return layout


def _assignment(layout: _Layout, k: int, ctx: Context) -> int:
    """Record the assignment at line `k` (its value continued over `\\` lines, joined by a space as make joins
    them), if it is one; the index of the next line."""
    lines = layout.lines
    m = _ASSIGN.match(lines[k].rstrip())
    start = k
    value = m.group(4) if m is not None else ""
    while lines[k].rstrip().endswith("\\") and k + 1 < len(lines):
        k += 1
        value = value.rstrip()[:-1].rstrip() + " " + lines[k].strip()
    if m is not None and not _dead(ctx):
        value = _unquoted(value.split(" #", 1)[0].strip() if "#" in value else value.strip())
        layout.assigns.append(_Assign(m.group(2), m.group(3), value, start + 1, ctx, "override" in m.group(1)))
    return k + 1


_JUST_PARAM = lazy(r"""[ \t]\$?([A-Za-z_][A-Za-z0-9_-]*)=("[^"]*"|'[^']*'|[^\s:'"]+)""")


def _just_defaults(header: str, line: int, ctx: Context) -> list[_Assign]:
    """A Just recipe's parameter defaults (`serve model="org/name" tp='2':`) as the values its body sees when
    run with no arguments. Recipes are not scoped here: `?=`, so a file variable of that name set before keeps
    its value (Just would shadow it inside this recipe only; the other recipes see the variable)."""
    head = header.split("#", 1)[0]
    return [_Assign(m.group(1), "?=", _unquoted(m.group(2)), line, ctx) for m in _JUST_PARAM.finditer(head)]


def _unquoted(value: str) -> str:
    """A value wholly in one pair of quotes without that quote inside (`MODEL = "org/name"`, Just's `model :=
    'org/name'`) without them, as the shell reading it would take it; any other value as written, its quotes
    live for the shell when make pastes it into a recipe (`SPEC := --x '{"a": 1}'` must keep both quotes)."""
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'" and value[0] not in value[1:-1]:
        return value[1:-1]
    return value


def _branch(stack: list[list[tuple[Key, bool]]], word: str, rest: str) -> None:
    """Open, turn or close a conditional: `else` turns the arm taken so far to its other side, `else ifeq ...`
    also adds its own condition to the same frame (closed by the one `endif`)."""
    if word == "endif":
        if stack:
            stack.pop()
        return
    if word == "else":
        if not stack:
            return
        frame = stack[-1]
        if frame:
            key, arm = frame[-1]
            frame[-1] = (key, not arm)
        nested = _DIRECTIVE.match(rest)
        if nested is not None and nested.group(1) in ("ifdef", "ifndef", "ifeq", "ifneq"):
            frame.append(_condition(nested.group(1), nested.group(2) or ""))
        return
    stack.append([_condition(word, rest)])


def _condition(word: str, rest: str) -> tuple[Key, bool]:
    """A condition as a key both of its spellings share (`ifdef X` / `ifndef X`, `ifeq (a,b)` / `ifneq "a" "b"`),
    and the arm a line below it is in."""
    if word in ("ifdef", "ifndef"):
        return ("def", rest.strip()), word == "ifdef"
    args = rest.strip()
    if args.startswith("(") and args.endswith(")"):
        args = args[1:-1]
    else:  # `ifeq "a" "b"` / `ifeq 'a' 'b'`
        args = ",".join(w.strip("\"'") for w in re.findall(r"\"[^\"]*\"|'[^']*'", args)) or args
    return ("eq", ",".join(a.strip() for a in args.split(",", 1))), word == "ifeq"


def _dead(ctx: Context) -> bool:
    """A line under a condition and its opposite (`ifdef X` inside `ifndef X`) is never read."""
    keys = [key for key, _ in ctx]
    return len(keys) != len(set(keys))


def _worlds(layout: _Layout) -> list[tuple[set[int], Context]]:
    """(recipe lines, the branches they are read under) for each context a recipe line sits in, once per way of
    taking the conditions it does not decide that guard an assignment of a variable it uses (up to _MAX_FORK of
    them). Past _MAX_WORLDS, the remaining lines are read together under no condition, every assignment seen."""
    by_context: dict[Context, set[int]] = {}
    for k, (ctx, _) in layout.recipe.items():
        by_context.setdefault(ctx, set()).add(k)
    out: list[tuple[set[int], Context]] = []
    left: set[int] = set()
    for ctx, lines in by_context.items():
        forks = _undecided(layout, ctx, lines)
        worlds = [ctx | frozenset(zip(forks, arms, strict=True)) for arms in product((True, False), repeat=len(forks))]
        if len(out) + len(worlds) > _MAX_WORLDS:
            left |= lines
            continue
        out.extend((lines, w) for w in worlds)
    if left:
        out.append((left, _EVERY))
    return out


_EVERY: Context = frozenset({(("*", "*"), True)})  # the world that sees every assignment


def _undecided(layout: _Layout, ctx: Context, lines: set[int]) -> list[Key]:
    """The conditions `ctx` does not decide that guard an assignment of a variable these recipe lines use
    (directly or through another variable's value); none when there are more than _MAX_FORK."""
    used = {m.group(1) or m.group(2) for k in lines for m in _VAR_REF.finditer(layout.recipe[k][1])
            if m.group(0) != "$$"}
    values: dict[str, list[_Assign]] = {}
    for a in layout.assigns:
        values.setdefault(a.name, []).append(a)
    todo = list(used)
    while todo:
        for a in values.get(todo.pop(), []):
            for m in _MAKE_REF.finditer(a.value):
                if m.group(1) not in used:
                    used.add(m.group(1))
                    todo.append(m.group(1))
    decided = {key for key, _ in ctx}
    keys: list[Key] = []
    for a in layout.assigns:
        if a.name in used:
            keys.extend(key for key, _ in sorted(a.context) if key not in decided and key not in keys)
    return keys if len(keys) <= _MAX_FORK else []


_MAKE_REF = lazy(r"\$[({]([A-Za-z_][A-Za-z0-9_]*)[)}]")


def environment(assigns: list[_Assign], world: Context | None) -> tuple[dict[str, str], dict[str, str]]:
    """(the variables a recipe read under `world` sees, the names whose value make computes when it runs -> why).
    An assignment counts when every branch it sits in is one `world` takes (None, or _EVERY: every assignment).
    `:=` expands its value where it stands; `=`, `?=`, `+=` when used, with the file's final values."""
    raw: dict[str, str] = {}
    runtime: dict[str, str] = {}
    overridden: set[str] = set()
    every = world is None or world == _EVERY
    for a in assigns:
        if (not every and not a.context <= world) or (a.name in overridden and not a.override):  # type: ignore[operator]
            continue
        if a.override:
            overridden.add(a.name)
        if a.op == "?=" and (a.name in raw or a.name in runtime):
            continue
        if a.op in ("!=", "define"):
            runtime[a.name] = _runtime_why(a)
            raw.pop(a.name, None)
            continue
        value = a.value
        if a.op in (":=", "::=", ":::="):
            value, why = _expand(value, raw, runtime, a)
            if why is not None:
                runtime[a.name] = why
                raw.pop(a.name, None)
                continue
        if a.op == "+=" and a.name in runtime:
            continue
        raw[a.name] = f"{raw[a.name]} {value}".strip() if a.op == "+=" and a.name in raw else value
        runtime.pop(a.name, None)
    env: dict[str, str] = {}
    for name, value in raw.items():
        expanded, why = _expand(value, raw, runtime, None)
        if why is not None:
            runtime[name] = why
        else:
            env[name] = expanded
    return env, runtime


def _runtime_why(a: _Assign) -> str:
    if a.op == "!=":
        return f"make's `!=` at line {a.line} runs a shell command when make runs"
    return f"a `define` at line {a.line}, a multi-line value make expands when it runs"


def _expand(value: str, raw: dict[str, str], runtime: dict[str, str], a: _Assign | None,
            depth: int = 0) -> tuple[str, str | None]:
    """`value` with make's references replaced: a variable by its value, one the file does not set by the shell's
    `${NAME}` (the command line or the environment may give it), and so is a variable whose value make computes
    when it runs (its why stays under its own name, so one unknown word does not hide the command around it);
    (text, None), or (value, why) when a function make evaluates when it runs (`$(shell ...)`, `$(call ...)`) is
    in the value itself."""
    if "$" not in value:
        return value, None
    out: list[str] = []
    k = 0
    while k < len(value):
        c = value[k]
        if c != "$" or k + 1 >= len(value):
            out.append(c)
            k += 1
            continue
        nxt = value[k + 1]
        if nxt == "$":
            out.append("$")
            k += 2
            continue
        if nxt not in "({":
            out.append(c)
            k += 1
            continue
        end = _closing(value, k + 1)
        inner = value[k + 2 : end]
        name_m = re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", inner)
        if name_m is None:
            where = f" at line {a.line}" if a is not None else ""
            return value, f"make's $({inner.split(' ', 1)[0]} ...){where}, evaluated when make runs"
        if inner in runtime:  # `DOCKER_RUN = docker run $(DEVICES) img`: only DEVICES is unknown (said by its name)
            out.append("${" + inner + "}")
            k = end + 1
            continue
        if inner in raw and depth < 8:
            sub, why = _expand(raw[inner], raw, runtime, a, depth + 1)
            if why is not None:
                return value, why
            out.append(sub)
        else:
            out.append("${" + inner + "}")
        k = end + 1
    return "".join(out), None


def _closing(text: str, opened: int) -> int:
    """The index of the bracket that closes the one at `opened` (the end of the text when none does)."""
    pairs = {"(": ")", "{": "}"}
    want, level = pairs[text[opened]], 0
    for k in range(opened, len(text)):
        if text[k] == text[opened]:
            level += 1
        elif text[k] == want:
            level -= 1
            if level == 0:
                return k
    return len(text)


# an assignment's operator before any `:`; Just has no plain `=` assignment (`serve model="x":` is a recipe)
_ASSIGNS_JUST = r"^[^:=]*(::?=|\?=|\+=|!=)"
_ASSIGNS_MAKE = r"^[^:=]*(::?=|\?=|\+=|!=|=)"


def _starts_recipe(body: str, make: bool = True) -> bool:
    """A rule line (`target: deps`, Just's `name arg:`), not an assignment (`A := b`, `A ::= b`, and `A = b:c`:
    make takes a line whose first `=` comes before its first `:` as an assignment, an image tag after it too)."""
    if not body or body[0] in " \t#" or re.match(_ASSIGNS_MAKE if make else _ASSIGNS_JUST, body):
        return False
    head = body.split("#", 1)[0]
    return ":" in head and not head.lstrip().startswith(("export ", "set ", "alias "))


def _recipe_line(line: str) -> str:
    stripped = line.lstrip(" \t")
    lead = len(line) - len(stripped)
    k = 0
    while k < len(stripped) and stripped[k] in _RECIPE_PREFIX:
        k += 1
    return " " * (lead + k) + stripped[k:]
