"""Python launches in their context: a function that starts the engine from its parameters, called elsewhere in
the file with the values (`_serve_vllm(model=QWEN, tensor_parallel_size=2, extra_args=[...])` from two Modal
functions: two launches), and the GPU a decorator requests for the function that runs it (Modal's
`@app.function(gpu="L40S:2")`, `@app.cls(gpu="H100")`).

A parameter's value is the caller's expression, read in the caller's place: its literal, or the module constant
it names, each at its position in the file (the value that causes a finding is the call's, not the parameter's
use). A list parameter the function appends to its argument list (`cmd.extend(extra_args or [])`, `cmd +=
extra`) brings the caller's list literal. A caller that passes its own parameters on is followed to its callers
(up to four functions out). A function called from nowhere in the file keeps its one launch, with what its
defaults give.
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Callable

from kvlint.launches.build import ManifestGpu
from kvlint.span import Span

Def = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
# calls that start a process from an argument list (the list is their first argument): subprocess's, os's exec and
# spawn families, asyncio's, and a `spawn(...)` helper's
PROCESS_STARTS = frozenset({"Popen", "run", "call", "check_call", "check_output", "create_subprocess_exec", "execv",
                            "execvp", "execvpe", "execve", "spawnv", "spawnvp", "spawn"})
_MAX_CALLS = 16  # call sites read per function


def owners(tree: ast.Module) -> dict[int, tuple[Def, ...]]:
    """Each node's enclosing functions and classes, innermost first (by node id)."""
    out: dict[int, tuple[Def, ...]] = {}
    stack: list[tuple[ast.AST, tuple[Def, ...]]] = [(tree, ())]
    while stack:
        node, chain = stack.pop()
        for child in ast.iter_child_nodes(node):
            inner = (child, *chain) if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) \
                else chain
            out[id(child)] = inner if inner is not chain else chain
            stack.append((child, inner))
    return out


def decorator_gpu(path: str, chain: tuple[Def, ...], names: dict[str, str] | None = None) -> ManifestGpu:
    """The GPU the innermost decorated function or class asks for: `gpu="L40S:2"` (card and count), `gpu="H100"`,
    `gpu=["H100", "A100-80GB"]` (the first the platform finds: options, the first kept as the product). `names`:
    the module's constants, for `gpu=GPU_CONFIG` and `gpu=f"{GPU_TYPE}:{GPU_COUNT}"` (Modal's own examples)."""
    for owner in chain:
        for deco in owner.decorator_list:
            if not isinstance(deco, ast.Call):
                continue
            value = next((k.value for k in deco.keywords if k.arg == "gpu"), None)
            if value is not None:
                return _gpu(path, value, names or {})
    return ManifestGpu()


def decorator_image(path: str, chain: tuple[Def, ...], tree: ast.Module) -> tuple[str, Span] | None:
    """The registry image the innermost decorated function or class runs in: `image=NAME` where the module binds NAME
    to `modal.Image.from_registry("lmsysorg/sglang:v0.4.9.post2-cu126")` (its `.pip_install(...)`-like steps kept on
    it), or that call written in the decorator; None when no decorator names one."""
    for owner in chain:
        for deco in owner.decorator_list:
            value = next((k.value for k in deco.keywords if k.arg == "image"), None) \
                if isinstance(deco, ast.Call) else None
            if value is None:
                continue
            if isinstance(value, ast.Name):
                value = next((stmt.value for stmt in tree.body if isinstance(stmt, ast.Assign)
                              and any(isinstance(t, ast.Name) and t.id == value.id for t in stmt.targets)), value)
            return _registry_image(path, value)
    return None


def _registry_image(path: str, node: ast.expr) -> tuple[str, Span] | None:
    """The string a `from_registry(...)` call in a chain of method calls is given, with its span."""
    while isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        arg = node.args[0] if node.func.attr == "from_registry" and node.args else None
        if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
            text, col = arg.value, arg.col_offset + 2  # the string's first character, past its quote
            return text, Span(path, arg.lineno, col, arg.lineno, col + len(text))
        node = node.func.value
    return None


def _gpu(path: str, node: ast.expr, names: dict[str, str]) -> ManifestGpu:
    if isinstance(node, (ast.List, ast.Tuple)) and node.elts:
        node = node.elts[0]
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
            isinstance(node.func.value, ast.Attribute) and node.func.value.attr == "gpu":
        return _gpu_object(path, node)  # Modal's earlier `modal.gpu.A10G(count=2)`
    text, literal = _gpu_text(node, names)
    if not text:
        return ManifestGpu()
    card, _, count = text.partition(":")
    start = node.col_offset + (2 if literal else 1)
    span = Span(path, node.lineno, start, node.lineno, start + (len(card) if literal else
                                                                 (node.end_col_offset or 0) - node.col_offset))
    note = f"GPU from the decorator's gpu={text!r}"
    if card.lower() == "any":
        return ManifestGpu(count=int(count) if count.isdigit() else None, notes=(note + ": any card",))
    return ManifestGpu(product=card, product_span=span, count=int(count) if count.isdigit() else 1,
                       count_span=span, notes=(note,))


def _gpu_text(node: ast.expr, names: dict[str, str]) -> tuple[str, bool]:
    """The decorator's GPU string and whether it is written as a literal: a string, a module constant's value, or
    an f-string of constants; "" when any part is unknown."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value.strip(), True
    if isinstance(node, ast.Name):
        return names.get(node.id, "").strip(), False
    if isinstance(node, ast.JoinedStr):
        parts = []
        for part in node.values:
            if isinstance(part, ast.Constant) and isinstance(part.value, str):
                parts.append(part.value)
            elif isinstance(part, ast.FormattedValue) and isinstance(part.value, ast.Name) \
                    and part.value.id in names and part.format_spec is None:
                parts.append(names[part.value.id])
            else:
                return "", False
        return "".join(parts).strip(), False
    return "", False


def _gpu_object(path: str, node: ast.Call) -> ManifestGpu:
    """`modal.gpu.H100(count=2)`: the class names the card; a literal `count` (else 1), a name's count unknown."""
    assert isinstance(node.func, ast.Attribute)
    card = node.func.attr
    count_node = next((k.value for k in node.keywords if k.arg == "count"), None)
    count = count_node.value if isinstance(count_node, ast.Constant) and isinstance(count_node.value, int) else \
        1 if count_node is None else None
    span = Span(path, node.func.lineno, node.func.end_col_offset - len(card) + 1, node.func.lineno,
                node.func.end_col_offset + 1) if node.func.end_col_offset is not None else None
    return ManifestGpu(product=card, product_span=span, count=count, count_span=span,
                       notes=(f"GPU from the decorator's gpu=modal.gpu.{card}(...)",))


def call_sites(tree: ast.Module, fn: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.Call]:
    """The calls of `fn` by its name in the file (`fn(...)`, `self.fn(...)`), in source order."""
    return _calls_by_name(tree).get(fn.name, [])[:_MAX_CALLS]


_CALLS = "_kvlint_calls_by_name"  # the index, kept on the tree it was made from


def _calls_by_name(tree: ast.Module) -> dict[str, list[ast.Call]]:
    """Every call of the file by the name it is made by, in source order: made once per tree (a 4,000-line
    program asked for the callers of 170 functions walked its tree 170 times, over a second: sample K279)."""
    index: dict[str, list[ast.Call]] | None = getattr(tree, _CALLS, None)
    if index is None:
        index = {}
        for n in ast.walk(tree):
            if isinstance(n, ast.Call):
                index.setdefault(callee(n.func), []).append(n)
        for calls in index.values():
            calls.sort(key=lambda c: (c.lineno, c.col_offset))
        setattr(tree, _CALLS, index)
    return index


def callee(func: ast.expr) -> str:
    """The name a call is made by: `f(...)` -> f, `obj.f(...)` -> f."""
    if isinstance(func, ast.Name):
        return func.id
    return func.attr if isinstance(func, ast.Attribute) else ""


def parameters(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> list[str]:
    args = fn.args
    star = [args.vararg.arg] if args.vararg is not None else []
    return [a.arg for a in args.posonlyargs + args.args + args.kwonlyargs if a.arg not in ("self", "cls")] + star


def bind(fn: ast.FunctionDef | ast.AsyncFunctionDef, call: ast.Call) -> dict[str, ast.expr]:
    """The caller's expression for each parameter it passes (positional, then keyword); `*args` / `**kw` stop it."""
    positional = [a.arg for a in fn.args.posonlyargs + fn.args.args]
    if positional and positional[0] in ("self", "cls") and isinstance(call.func, ast.Attribute):
        positional = positional[1:]
    bound: dict[str, ast.expr] = {}
    for name, arg in zip(positional, call.args, strict=False):
        if isinstance(arg, ast.Starred):
            break
        bound[name] = arg
    rest = call.args[len(positional):]
    if fn.args.vararg is not None and not any(isinstance(a, ast.Starred) for a in call.args):
        # `def python_argv(*args)` called `python_argv("--model", m, ...)` (sample K257): the words `*args` stands for
        bound[fn.args.vararg.arg] = ast.copy_location(ast.Tuple(elts=list(rest), ctx=ast.Load()), call)
    bound.update({k.arg: k.value for k in call.keywords if k.arg})
    return bound


_MAX_LEVELS = 4  # functions followed outwards: `cmd_start` -> `_start_server(model)` -> `_build_args(model)`
_MAX_BINDINGS = 32


def bindings(tree: ast.Module, fn: ast.FunctionDef | ast.AsyncFunctionDef, owners_of: dict[int, tuple[Def, ...]],
             known: Callable[[ast.expr], bool], level: int = 0,
             memo: dict[tuple[int, int], list] | None = None) -> list[tuple[dict[str, ast.expr], ast.Call]]:
    """Each way the file calls `fn`: its parameters bound to the callers' expressions, and the outermost call. A call
    that passes its own function's parameters on (`_start_server(model_name=model_name)` building the argv in
    `_build_args(model_name)`) is followed to that function's callers when each of them gives one of those
    parameters a value `known` resolves: then each is one binding (else the call stays one binding, its values
    unresolved: an outer caller's `args.model_path` says no more than the parameter did)."""
    memo = {} if memo is None else memo
    if (id(fn), level) in memo:  # an outer function reached from each of its callee's call sites: read once
        return memo[(id(fn), level)]
    out: list[tuple[dict[str, ast.expr], ast.Call]] = []
    for call in call_sites(tree, fn):
        bound = bind(fn, call)
        outer = next((d for d in owners_of.get(id(call), ()) if not isinstance(d, ast.ClassDef)), None)
        names = set(parameters(outer)) if isinstance(outer, (ast.FunctionDef, ast.AsyncFunctionDef)) else set()
        passed = [k for k, v in bound.items() if uses([v], names)]
        further = bindings(tree, outer, owners_of, known, level + 1, memo) \
            if outer is not None and outer is not fn and level + 1 < _MAX_LEVELS and passed else []
        widened = [({k: _substitute(v, outer_bound) for k, v in bound.items()}, outer_call)
                   for outer_bound, outer_call in further]
        if widened and all(any(known(b[k]) for k in passed) for b, _ in widened):
            out.extend(widened)
        else:
            out.append((bound, call))
        if len(out) >= _MAX_BINDINGS:
            break
    memo[(id(fn), level)] = out[:_MAX_BINDINGS]
    return memo[(id(fn), level)]


def uses(nodes: list[ast.expr], names: set[str]) -> bool:
    """Whether any of the expressions reads one of `names`."""
    return any(isinstance(n, ast.Name) and n.id in names for e in nodes for n in ast.walk(e))


def substituted(elts: list[ast.expr], bound: dict[str, ast.expr]) -> list[ast.expr]:
    """The argv's elements with each bound parameter replaced by the caller's expression (`str(tp)` keeps its
    call around the caller's value)."""
    out: list[ast.expr] = []
    for e in elts:
        given = bound.get(bound_key(e.value)) if isinstance(e, ast.Starred) else None
        out.extend(given.elts if isinstance(given, ast.Tuple) else [_substitute(e, bound)])
    return out


def _substitute(node: ast.expr, bound: dict[str, ast.expr]) -> ast.expr:
    key = bound_key(node)
    if key in bound:
        return bound[key]
    if isinstance(node, ast.Call) and len(node.args) == 1 and bound_key(node.args[0]) in bound:
        new = copy.copy(node)
        new.args = [bound[bound_key(node.args[0])]]
        return new
    return node


def bound_key(node: ast.expr) -> str:
    """The name a value is bound under: a parameter's (`model`), or an attribute of the instance (`self.model`,
    a class's attribute, kvlint.launches.pyclassattrs); "" for any other expression."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"):
        return f"self.{node.attr}"
    return ""


def list_name(fn: ast.FunctionDef | ast.AsyncFunctionDef, node: ast.List | ast.Tuple) -> str | None:
    """The name the argv list is assigned to in the function (`cmd = [...]`)."""
    for stmt in ast.walk(fn):
        if isinstance(stmt, ast.Assign) and stmt.value is node and len(stmt.targets) == 1 \
                and isinstance(stmt.targets[0], ast.Name):
            return stmt.targets[0].id
    return None


def parameter_growth(fn: ast.FunctionDef | ast.AsyncFunctionDef, name: str,
                     bound: dict[str, ast.expr]) -> list[ast.expr]:
    """The caller's list literals the function adds to its argv list: `NAME.extend(P)`, `NAME.extend(P or [])`,
    `NAME += P` for a parameter P, in the function's own body (an addition under an `if` is not known to run)."""
    out: list[ast.expr] = []
    for stmt in fn.body:
        added = _added_parameter(stmt, name)
        value = bound.get(added) if added else None
        if isinstance(value, (ast.List, ast.Tuple)):
            out.extend(value.elts)
    return out


def _added_parameter(stmt: ast.stmt, name: str) -> str | None:
    value: ast.expr | None = None
    if isinstance(stmt, ast.AugAssign) and isinstance(stmt.op, ast.Add) and isinstance(stmt.target, ast.Name) \
            and stmt.target.id == name:
        value = stmt.value
    elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) and isinstance(stmt.value.func,
                                                                                      ast.Attribute) \
            and stmt.value.func.attr == "extend" and isinstance(stmt.value.func.value, ast.Name) \
            and stmt.value.func.value.id == name and len(stmt.value.args) == 1:
        value = stmt.value.args[0]
    if isinstance(value, ast.BoolOp) and isinstance(value.op, ast.Or):
        value = value.values[0]  # `extra_args or []`
    return value.id if isinstance(value, ast.Name) else None
