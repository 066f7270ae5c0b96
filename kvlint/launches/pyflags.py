"""A command line a Python program makes from a dict of the engine's flags (sample K250: a Modal app's
`serve_params = {"model": "/model_storage/qwen3-coder-30b", "mem-fraction": 0.7, "tp": 4}` and then
`"python -m sglang.launch_server " + " ".join([f"--{k} {v}" for k, v in serve_params.items()])`, started with
`subprocess.Popen(..., shell=True)`).

The text is what the comprehension makes, item by item in the dict's order, so the engine's own parser reads the
flags as it would at run time; each key's characters (and the f-string's literal text around it) are placed at the
key in the dict, each value's at the value, so a finding points at the line a reviewer edits. Only the plain shape
is read: one loop over `NAME.items()` of a dict literal the program binds, no condition, an f-string of the key and
the value; anything else stays the unresolved expression it was.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from kvlint.launches.pyfile import _Source

_MAX_ITEMS = 200  # keys read from one dict


def dict_flags(src: _Source, node: ast.Call) -> tuple[str, list[int]] | None:
    """(text, the offset of each character) of `SEP.join(<f-string> for k, v in D.items())` over a dict literal
    bound to D; None for any other call."""
    loop = _join_loop(node)
    if loop is None or src.tree is None:
        return None
    sep, elt, key_name, value_name, holder = loop
    from kvlint.launches.pyfile import _bound_dict, _mapping

    items = _mapping(_bound_dict(src.tree, holder))[:_MAX_ITEMS]
    if not items:
        return None
    text: list[str] = []
    offsets: list[int] = []
    for n, (key, key_node, value) in enumerate(items):
        if n:
            text.append(sep)
            offsets.extend([offsets[-1]] * len(sep))
        piece = _item(src, elt, key_name, value_name, key, key_node, value)
        if piece is None:
            return None
        text.append(piece[0])
        offsets.extend(piece[1])
    return "".join(text), offsets


def _join_loop(node: ast.Call) -> tuple[str, ast.JoinedStr, str, str, ast.Name] | None:
    """(separator, the f-string, the key's name, the value's name, the dict's name) of the plain shape."""
    func = node.func
    if not (isinstance(func, ast.Attribute) and func.attr == "join" and isinstance(func.value, ast.Constant)
            and isinstance(func.value.value, str) and len(node.args) == 1 and not node.keywords):
        return None
    comp = node.args[0]
    if not isinstance(comp, (ast.ListComp, ast.GeneratorExp)) or len(comp.generators) != 1:
        return None
    gen = comp.generators[0]
    target, source = gen.target, gen.iter
    if gen.ifs or not isinstance(comp.elt, ast.JoinedStr) or not isinstance(target, ast.Tuple) \
            or len(target.elts) != 2 or not all(isinstance(t, ast.Name) for t in target.elts):
        return None
    if not (isinstance(source, ast.Call) and isinstance(source.func, ast.Attribute) and source.func.attr == "items"
            and isinstance(source.func.value, ast.Name) and not source.args):
        return None
    key, value = (t.id for t in target.elts if isinstance(t, ast.Name))
    return func.value.value, comp.elt, key, value, source.func.value


def _item(src: _Source, elt: ast.JoinedStr, key_name: str, value_name: str, key: str, key_node: ast.expr,
          value: ast.expr) -> tuple[str, list[int]] | None:
    """One item's text and offsets: literal text and the key at the key, the value at the value."""
    at_key = _start(src, key_node, key)
    text: list[str] = []
    offsets: list[int] = []
    for part in elt.values:
        if isinstance(part, ast.Constant) and isinstance(part.value, str):
            text.append(part.value)
            offsets.extend([at_key] * len(part.value))
            continue
        named = part.value if isinstance(part, ast.FormattedValue) and part.format_spec is None else None
        if isinstance(named, ast.Name) and named.id == key_name:
            text.append(key)
            offsets.extend(range(at_key, at_key + len(key)))
        elif isinstance(named, ast.Name) and named.id == value_name:
            word = _value_text(src, value)
            at = _start(src, value, word)
            text.append(word)
            offsets.extend(range(at, at + len(word)) if src.segment(value).find(word) >= 0 else [at] * len(word))
        else:
            return None
    return "".join(text), offsets


def _value_text(src: _Source, value: ast.expr) -> str:
    """The value as the f-string writes it: a literal's text (`True`, `0.7`), a known name's, else `${expr}` left to
    the program."""
    if isinstance(value, ast.Constant) and value.value is not None:
        return str(value.value)
    field = src.field(value)
    return field.text if field.resolved else "${" + (src.segment(value) or "expr").replace("}", ")") + "}"


def _start(src: _Source, node: ast.expr, text: str) -> int:
    """The offset of `text` inside the node's source (a string's characters after its quote), else of the node."""
    k = src.segment(node).find(text) if text else -1
    return src.offset(node) + max(k, 0)
