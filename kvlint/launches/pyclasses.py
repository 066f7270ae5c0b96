"""A server class of the repository's, started where a launcher makes it (samples K37, K55).

`from domainslm.vllm import VLLMSetup` and `VLLMSetup(model="org/m", data_parallel_size=8)` in a launcher, where a
method of VLLMSetup builds the engine's command from `self.model`, `self.port` and runs it: the launcher starts a
server, though no engine word is in its call. The launch is the call: the class's command read with the call's
arguments (and the class's own defaults: pydantic / dataclass fields, `__init__` parameters) for `self.NAME`,
placed at the call, each value the call gives pointed at where the call gives it. The class's own file keeps its
launch as written (`${self.model}`: the command a reader counts there).

Only names imported from a module of the same tree whose path or name says an engine (`pkg.vllm`,
`SGLangServer`) are followed, and a few calls per file: a launcher names its server class, and a walk over a
large repository must not read every module every file imports.
"""

from __future__ import annotations

import ast
import os
from typing import TYPE_CHECKING

from kvlint.deployment import Deployment, Setting
from kvlint.launches.pyfile import engine_words
from kvlint.record import replace
from kvlint.span import Span

if TYPE_CHECKING:
    from kvlint.launches.pyfile import _Source

MAX_CALLS = 8  # class calls followed per file
MODULE_CAP = 256 * 1024  # a module holding a server class is a few KiB
_UP = 6  # folders above the launcher searched for an absolute import's package


def class_starts(path: str, tree: ast.Module, src: _Source) -> list[Deployment]:
    """The launches of the repository's server classes that `tree` (the file at `path`) makes."""
    imported = _imported(tree)
    if not imported or path in ("", "-"):
        return []
    out: list[Deployment] = []
    calls = 0
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in imported:
            calls += 1
            if calls > MAX_CALLS:
                break
            out.extend(_started(path, node, imported[node.func.id], src))
    return out


def _imported(tree: ast.Module) -> dict[str, tuple[str, int, str]]:
    """Local name -> (module, relative level, name in the module) of each `from M import N` naming an engine."""
    out: dict[str, tuple[str, int, str]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            for alias in node.names:
                said = f"{node.module or ''}.{alias.name}".lower()
                if any(w in said for w in ("vllm", "sglang")):
                    out[alias.asname or alias.name] = (node.module or "", node.level, alias.name)
    return out


def module_file(path: str, module: str, level: int) -> str | None:
    """The file of the tree a launcher at `path` imports `module` from: relative to its folder for `from .m`, else
    the first folder above it (or its `src/`) that holds the package; within the launcher's project only."""
    parts = [p for p in module.split(".") if p]
    here = os.path.dirname(path)
    if level:
        bases = [os.path.join(here, *([os.pardir] * (level - 1)))]
    else:
        bases = [os.path.join(here, *([os.pardir] * k)) for k in range(_UP)]
        bases = [b for base in bases for b in (base, os.path.join(base, "src"))]
    for base in bases:
        for candidate in (os.path.join(base, *parts) + ".py", os.path.join(base, *parts, "__init__.py")):
            if parts and os.path.isfile(candidate) and _in_project(candidate, path):
                return os.path.normpath(candidate)
    return None


def _in_project(module: str, launcher: str) -> bool:
    """Whether a module lies in the launcher's project (its configuration's or git root): a package beside the
    checkout, or one installed on the machine, is not the repository's and is not read. A launcher in no project
    (a folder of files without git or configuration) has only the search's bound of folders above it."""
    from kvlint.models.lockpath import project_root

    root = project_root(launcher)
    if not os.path.realpath(launcher).startswith(root):
        return True  # no project around the launcher (no git root, no configuration): the bounded search only
    return os.path.realpath(module).startswith(root)


def _started(path: str, call: ast.Call, imported: tuple[str, int, str], src: _Source) -> list[Deployment]:
    from kvlint.launches.pyfile import read_python
    from kvlint.sources.text import read_small

    module, level, name = imported
    file = module_file(path, module, level)
    if file is None or os.path.abspath(file) == os.path.abspath(path):
        return []
    text = read_small(file, MODULE_CAP)
    if not text or not any(w in text for w in engine_words()):
        return []
    try:
        cls = next((c for c in ast.parse(text).body if isinstance(c, ast.ClassDef) and c.name == name), None)
    except (SyntaxError, ValueError):
        return []
    if cls is None:
        return []
    names = src.scopes.get(id(call)) or src.scopes.get(0, {})
    bound, given = _values(cls, call, names)
    deps, _ = read_python(file, text, bound=bound)
    end = getattr(cls, "end_lineno", cls.lineno) or cls.lineno
    inside = [d for d in deps if d.launch_span is not None and cls.lineno <= d.launch_span.line <= end]
    return [_at_call(d, call, given, _attribute_places(cls), src, name) for d in inside]


def _values(cls: ast.ClassDef, call: ast.Call, names: dict[str, str]) -> tuple[dict[str, str], dict[str, ast.expr]]:
    """`self.NAME` -> value for the class's defaults and the call's arguments, and NAME -> the call's argument."""
    from kvlint.launches.pyfile import _plain

    fields: list[str] = []
    defaults: dict[str, str] = {}
    for stmt in cls.body:  # pydantic / dataclass fields, in order
        target: ast.expr
        written: ast.expr | None
        if isinstance(stmt, ast.AnnAssign):
            target, written = stmt.target, stmt.value
        elif isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
            target, written = stmt.targets[0], stmt.value
        else:
            continue
        if isinstance(target, ast.Name):
            fields.append(target.id)
            value = _plain(written) if written is not None else None
            if value is not None:
                defaults[target.id] = value
    init = next((f for f in cls.body if isinstance(f, ast.FunctionDef) and f.name == "__init__"), None)
    kept = _init_names(init) if init is not None else {}
    order = [a.arg for a in (init.args.posonlyargs + init.args.args)[1:]] if init is not None else fields
    if init is not None:
        params = init.args.posonlyargs + init.args.args
        for a, d in zip(params[len(params) - len(init.args.defaults):], init.args.defaults, strict=True):
            if (v := _plain(d)) is not None:
                defaults.update({attr: v for attr in kept.get(a.arg, (a.arg,))})
    given: dict[str, ast.expr] = {}
    args = dict(zip(order, call.args, strict=False)) | {k.arg: k.value for k in call.keywords if k.arg}
    for param, node in args.items():
        for attr in kept.get(param, (param,)):
            given[attr] = node
            defaults.pop(attr, None)
            if (v := _plain(node, names)) is not None:
                defaults[attr] = v
    return {f"self.{k}": v for k, v in defaults.items()}, given


def _init_names(init: ast.FunctionDef) -> dict[str, tuple[str, ...]]:
    """`__init__(self, model, tp=1)` with `self.model_id = model`: parameter -> the attributes it is kept as."""
    out: dict[str, tuple[str, ...]] = {}
    for node in ast.walk(init):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Name):
            for t in node.targets:
                if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self":
                    out[node.value.id] = (*out.get(node.value.id, ()), t.attr)
    return out


def _attribute_places(cls: ast.ClassDef) -> dict[tuple[int, int], str]:
    """(line, col) of each `self.NAME` in the class, and of a `str(self.NAME)` around one -> NAME: where an argv
    word read from it is placed."""
    out: dict[tuple[int, int], str] = {}
    for node in ast.walk(cls):
        if not isinstance(node, ast.expr):
            continue
        inner = node.args[0] if isinstance(node, ast.Call) and len(node.args) == 1 else node
        if isinstance(inner, ast.Attribute) and isinstance(inner.value, ast.Name) and inner.value.id == "self":
            out[(node.lineno, node.col_offset + 1)] = inner.attr
    return out


def _at_call(dep: Deployment, call: ast.Call, given: dict[str, ast.expr], places: dict[tuple[int, int], str],
             src: _Source, name: str) -> Deployment:
    """The class's launch placed at the call; each value the call gives at its place there."""

    def moved(span: Span | None) -> Span | None:
        attr = places.get((span.line, span.col)) if span is not None else None
        node = given.get(attr) if attr is not None else None
        return src.value_span(node) if node is not None else span

    settings: dict[str, Setting] = {k: replace(s, span=moved(s.span)) for k, s in dep.settings.items()}
    built = dep.launch_span
    where = f"line {built.line} of {built.path}" if built is not None else "its module"
    note = f"{name}(...) starts the server its class builds ({where}), read with this call's arguments for self.NAME"
    return replace(dep, launch_span=src.span(call), model_span=moved(dep.model_span), settings=settings,
                   notes=(*dep.notes, note))
