"""Terraform's `helm_release`: a chart installed with its values set one by one (`set = [{ name =
"servingEngineSpec.modelSpec[0].modelURL", value = local.model }]`, or `set { ... }` blocks).

The chart reads those values as a values file would, so they are assembled into one (each dotted path a key,
`[i]` a list item) and read by the chart adapters (kvlint.launches.helm.read_values), the same as a values.yaml.
A value Terraform computes from `local.X` or `var.X` is taken from the module's own `locals { }` blocks and
variables' defaults in the .tf files of the same folder (a module is its folder); anything else stays
unresolved. Every position a launch holds is moved back to the `value = ...` it came from in this file.
"""

from __future__ import annotations

import json
import os
import re
from typing import Any

from kvlint.deployment import Deployment
from kvlint.lazyre import lazy
from kvlint.sources.text import LineIndex, Mapped
from kvlint.span import Span

_RELEASE = lazy(r'\bresource[ \t]+"helm_release"[ \t]+"[\w-]+"[ \t]*\{')
_SET = lazy(r'\bname[ \t]*=[ \t]*"(?P<name>[^"\n]+)"[ \t]*,?\s*value[ \t]*=[ \t]*'
            r'(?P<value>"(?:[^"\\\n]|\\.)*"|[^\s,}]+)')
_LOCAL = lazy(r'(?m)^[ \t]*(\w+)[ \t]*=[ \t]*("(?:[^"\\\n]|\\.)*"|-?\d+(?:\.\d+)?|true|false)[ \t]*(?:#.*|//.*)?$')
_LOCALS = lazy(r"\blocals[ \t]*\{")
_VARIABLE = lazy(r'\bvariable[ \t]+"(\w+)"[ \t]*\{[^{}]*?\bdefault[ \t]*=[ \t]*'
                 r'("(?:[^"\\\n]|\\.)*"|-?\d+(?:\.\d+)?|true|false)')
_REF = lazy(r"^(local|var)\.(\w+)$")
_PATH = lazy(r"([^\[\]]+)|\[(\d+)\]")  # one dotted part: a key, then its [i]s
_MAX_SETS = 500
_MAX_SIBLINGS = 64
_READ_CAP = 256 * 1024
_MAX_INDEX = 16


def releases(path: str, text: str) -> list[Deployment]:
    """The launches of the file's helm_release resources."""
    if "helm_release" not in text:
        return []
    from kvlint.launches.hcl import block_end

    index = LineIndex(text)
    module = module_values(path) if "local." in text or "var." in text else {}
    out: list[Deployment] = []
    for m in _RELEASE.finditer(text):
        end = block_end(text, m.end() - 1)
        out.extend(_heredoc_values(path, text, m.start(), end, module)
                   or _release(path, text, index, m.start(), end, module))
    return out


HEREDOC = lazy(r"<<(-?)[ \t]*([A-Za-z_]\w*)[ \t]*\n")
_INTERPOLATION = lazy(r"\$\{([^{}\n]*)\}")


def _heredoc_values(path: str, text: str, start: int, end: int, module: dict[str, str]) -> list[Deployment]:
    """`values = [<<-EOT ... EOT]`: each here-document is a values file written in place, read at its own lines
    (its indentation kept: YAML takes a uniformly indented document), `${var.X}` / `${local.X}` the module's
    literal where it has one."""
    from kvlint.launches.helm import read_values
    from kvlint.sources.yaml import parse_yaml

    at = text.find("values", start, end)
    out: list[Deployment] = []
    for h in HEREDOC.finditer(text, at if at >= 0 else end, end):
        close = re.compile(r"(?m)^[ \t]*" + re.escape(h.group(2)) + r"[ \t]*$").search(text, h.end(), end)
        if close is None:
            continue
        body = text[h.end() : close.start()]
        body = _INTERPOLATION.sub(lambda r: interpolated(r.group(1), module), body)
        yf = parse_yaml(path, "\n" * text.count("\n", 0, h.end()) + body)
        for doc in yf.docs:
            if doc.is_map:
                out.extend(read_values(yf, doc)[0])
    return out


_ENCODED = lazy(r"\b(?:yamlencode|jsonencode)\(\s*\{")
_MAX_DEPTH = 16
_HCL_KEY = lazy(r'"((?:[^"\\\n]|\\.)*)"|([A-Za-z_][\w-]*)')  # an object key: quoted, or a bare name
_LITERAL = lazy(r"-?\d+(?:\.\d+)?|true|false")


def _encoded_values(path: str, text: str, index: LineIndex, start: int, end: int,
                    module: dict[str, str]) -> list[tuple[str, str, bool, Span]]:
    """`values = [yamlencode({ servingEngineSpec = { modelSpec = [{ modelURL = "...", ... }] } })]`: the values
    written as a Terraform object, each leaf a value at its place (a reference Terraform computes stays
    unresolved unless the module gives it a literal), as `set` entries (which Helm applies over them)."""
    at = text.find("values", start, end)
    found = _ENCODED.search(text, at, end) if at >= 0 else None
    entries: list[tuple[str, str, bool, Span]] = []
    if found is not None:
        _HclValues(path, text, index, end, module, entries).object(found.end() - 1, "", 0)
    return entries


class _HclValues:
    """A bounded walk of a Terraform object expression: `key = value` (or `key: value`) pairs, lists, strings,
    numbers, booleans and other expressions (a reference, a function call) kept as written."""

    def __init__(self, path: str, text: str, index: LineIndex, end: int, module: dict[str, str],
                 entries: list[tuple[str, str, bool, Span]]):
        self.path, self.text, self.index, self.end, self.module = path, text, index, end, module
        self.entries = entries

    def skip(self, pos: int) -> int:
        """Past blanks, line breaks, commas and comments (`#`, `//`, `/* */`)."""
        text = self.text
        while pos < self.end:
            c = text[pos]
            if c in " \t\r\n,":
                pos += 1
            elif c == "#" or text.startswith("//", pos):
                nl = text.find("\n", pos)
                pos = self.end if nl < 0 else nl
            elif text.startswith("/*", pos):
                close = text.find("*/", pos)
                pos = self.end if close < 0 else close + 2
            else:
                break
        return pos

    def object(self, pos: int, prefix: str, depth: int) -> int:
        pos += 1  # past `{`
        while len(self.entries) < _MAX_SETS:
            pos = self.skip(pos)
            if pos >= self.end or self.text[pos] == "}":
                return pos + 1
            key_m = _HCL_KEY.match(self.text, pos)
            if key_m is None:
                return self.end
            key = key_m.group(1) if key_m.group(1) is not None else key_m.group(2)
            pos = self.skip(key_m.end())
            if pos >= self.end or self.text[pos] not in "=:":
                return self.end
            pos = self.value(self.skip(pos + 1), f"{prefix}.{key.replace('.', chr(92) + '.')}".lstrip("."), depth)
        return self.end

    def value(self, pos: int, dotted: str, depth: int) -> int:
        if depth >= _MAX_DEPTH or pos >= self.end:
            return self.end
        c = self.text[pos]
        if c == "{":
            return self.object(pos, dotted, depth + 1)
        if c == "[":
            return self.listed(pos, dotted, depth + 1)
        stop = self._scalar_end(pos)
        raw = self.text[pos:stop].strip()
        value, resolved = _value(raw, self.module)
        if resolved and raw[:1] != '"' and not _LITERAL.fullmatch(raw):  # `aws_ecr_repository.x.url`, `max(a, b)`
            value, resolved = "${" + raw + "}", False
        line, col = self.index.locate(pos)
        self.entries.append((dotted, value, resolved, Span(self.path, line, col, line, col + len(raw))))
        return stop

    def listed(self, pos: int, dotted: str, depth: int) -> int:
        pos += 1
        for k in range(_MAX_INDEX + 1):
            pos = self.skip(pos)
            if pos >= self.end or self.text[pos] == "]":
                return pos + 1
            pos = self.value(pos, f"{dotted}[{k}]", depth)
        return self.end

    def _scalar_end(self, pos: int) -> int:
        """Where a scalar or an expression ends: its closing quote, or the first `,`, line break, `}` or `]` outside
        brackets."""
        text = self.text
        if text[pos] == '"':
            k = pos + 1
            while k < self.end and text[k] != '"':
                k += 2 if text[k] == "\\" else 1
            return min(k + 1, self.end)
        depth, k = 0, pos
        while k < self.end:
            c = text[k]
            if c in "([{":
                depth += 1
            elif c in ")]}":
                if depth == 0:
                    return k
                depth -= 1
            elif depth == 0 and c in ",\n#":
                return k
            k += 1
        return k


def _release(path: str, text: str, index: LineIndex, start: int, end: int,
             module: dict[str, str]) -> list[Deployment]:
    entries = _encoded_values(path, text, index, start, end, module) if "encode(" in text[start:end] else []
    for k, sm in enumerate(_SET.finditer(text, start, end)):
        if k >= _MAX_SETS:
            break
        value, resolved = _value(sm.group("value"), module)
        line, col = index.locate(sm.start("value"))
        entries.append((sm.group("name"), value, resolved, Span(path, line, col, line, col + len(sm.group("value")))))
    return assembled(path, entries, Span(path, *index.locate(start), *index.locate(start)))


def assembled(path: str, entries: list[tuple[str, str, bool, Span]], first: Span) -> list[Deployment]:
    """The launches of a chart given its values one dotted path at a time (Terraform's `set`, Helmfile's `set:`,
    `helm --set`): (path, value, known, where the value is) each; every position moved back to its value."""
    from kvlint.launches.helm import read_values
    from kvlint.sources.yaml import parse_yaml

    tree: dict[str, Any] = {}
    for dotted, value, resolved, span in entries[:_MAX_SETS]:
        _put(tree, dotted, (value, resolved, span))
    if not tree:
        return []
    lines: list[str] = []
    places: dict[int, Span] = {}
    _emit(tree, 0, lines, places)
    yf = parse_yaml(path, "\n".join(lines) + "\n")
    if not yf.docs or not yf.docs[0].is_map:
        return []
    deps, _ = read_values(yf, yf.docs[0])
    return [_moved(d, places, first) for d in deps]


def interpolated(expr: str, module: dict[str, str]) -> str:
    """A Terraform template interpolation as Terraform writes it into the text: a string literal's content, a
    module local's or variable's literal, else the expression kept unresolved (without quotes that would end a
    YAML string around it)."""
    expr = expr.strip()
    if len(expr) >= 2 and expr[0] == expr[-1] == '"':
        return expr[1:-1]
    found = module.get(expr)
    return found if found is not None else "${" + expr.replace('"', "") + "}"


def _value(raw: str, module: dict[str, str]) -> tuple[str, bool]:
    """A set value's text and whether it is known: a literal, a module local or variable default, else the
    expression as written."""
    ref = _REF.match(raw)
    if ref is not None:
        found = module.get(raw)
        return (found, True) if found is not None else ("${" + raw + "}", False)
    if raw.startswith('"'):
        text = raw[1:-1].replace('\\"', '"')
        return text, "${" not in text
    return raw, True


def _put(tree: dict[str, Any], dotted: str, leaf: tuple[str, bool, Span]) -> None:
    """Place a leaf at a dotted path (`a.b[0].c`, Helm's `--set` syntax; `\\.` keeps a dot in a key)."""
    keys: list[str | int] = []
    for part in re.split(r"(?<!\\)\.", dotted):
        for m in _PATH.finditer(part.replace("\\.", ".")):
            keys.append(m.group(1) if m.group(1) is not None else int(m.group(2)))
    node: Any = tree
    for k, key in enumerate(keys):
        last = k == len(keys) - 1
        nxt: Any = leaf if last else ([] if isinstance(keys[k + 1], int) else {})
        if isinstance(key, int):
            if not isinstance(node, list) or key > _MAX_INDEX:
                return
            while len(node) <= key:
                node.append({})
            if last or not isinstance(node[key], (dict, list)) or type(node[key]) is not type(nxt):
                node[key] = nxt if last or not isinstance(node[key], type(nxt)) else node[key]
            node = node[key]
        else:
            if not isinstance(node, dict):
                return
            if last or not isinstance(node.get(key), type(nxt)):
                node[key] = nxt
            node = node[key]


def _emit(node: Any, depth: int, lines: list[str], places: dict[int, Span]) -> None:
    """YAML of the assembled tree, one key per line; `places` maps each leaf's line to its value's span."""
    pad = "  " * depth
    items = enumerate(node) if isinstance(node, list) else node.items()
    for key, child in items:
        head = f"{pad}-" if isinstance(node, list) else f"{pad}{json.dumps(str(key))}:"
        if isinstance(child, tuple):
            value, resolved, span = child
            lines.append(f"{head} {_scalar(value, resolved)}")
            places[len(lines)] = span
        elif isinstance(child, (dict, list)) and child:
            lines.append(head)
            _emit(child, depth + 1, lines, places)
        else:
            lines.append(f"{head} {'[]' if isinstance(child, list) else '{}'}")


def _scalar(value: str, resolved: bool) -> str:
    """A value as `--set` types it: numbers and booleans as such, anything else a string."""
    if resolved and (re.fullmatch(r"-?\d+(\.\d+)?", value) or value in ("true", "false")):
        return value
    return json.dumps(value)


def _moved(dep: Deployment, places: dict[int, Span], first: Span) -> Deployment:
    """The launch with every position moved from the assembled values to the `value = ...` it came from (a line
    that holds only keys goes to the next value below it, or the resource's first line)."""
    ordered = sorted(places)

    def move(span: Span) -> Span:
        if span.path != first.path:
            return span
        line = next((n for n in ordered if n >= span.line), None)
        return places[line] if line is not None else first

    return remap_spans(dep, move)


def placed_back(found: list[Deployment], m: Mapped, path: str) -> list[Deployment]:
    """Launches read from `m.text` as a text of its own (a YAML string, a notebook cell's written file), each span
    moved to where that character is in the file `m` is a view of."""
    index = LineIndex(m.text)

    def move(span: Span) -> Span:
        if span.path != path:
            return span
        first, last = index.offset(span.line, span.col), index.offset(span.end_line, span.end_col)
        return m.span(first, max(last, first))

    return [remap_spans(d, move) for d in found]


def remap_spans(obj: Any, move: Any) -> Any:
    """`obj` (a record, a tuple, a list or a dict of them, any depth) with every Span replaced by `move(span)`: a
    launch read from text cut out of a file, put back at its places in the file."""
    from kvlint.record import fields, replace

    if isinstance(obj, Span):
        return move(obj)
    if isinstance(obj, tuple):
        return tuple(remap_spans(o, move) for o in obj)
    if isinstance(obj, list):
        return [remap_spans(o, move) for o in obj]
    if isinstance(obj, dict):
        return {k: remap_spans(v, move) for k, v in obj.items()}
    if _is_record(obj):
        changes = {}
        for f in fields(obj):
            if not f.init:
                continue
            old = getattr(obj, f.name)
            new = remap_spans(old, move)
            if new is not old:
                changes[f.name] = new
        return replace(obj, **changes) if changes else obj
    return obj


def _is_record(obj: Any) -> bool:
    from kvlint.record import _FIELDS, _PENDING

    cls = type(obj)
    return _PENDING in cls.__dict__ or getattr(cls, _FIELDS, None) is not None


def module_values(path: str) -> dict[str, str]:
    """`local.X` and `var.X` of the module this file belongs to: its folder's .tf files' `locals { }` entries
    with a literal value and its variables' literal defaults."""
    from kvlint.launches.hcl import block_end
    from kvlint.sources.text import read_small

    folder = os.path.dirname(os.path.abspath(path)) if path not in ("", "-") else ""
    try:
        names = sorted(n for n in os.listdir(folder) if n.endswith(".tf"))[:_MAX_SIBLINGS] if folder else []
    except OSError:
        names = []
    out: dict[str, str] = {}
    for name in names:
        text = read_small(os.path.join(folder, name), _READ_CAP)
        if text is None:
            continue
        for block in _LOCALS.finditer(text):
            body_end = block_end(text, block.end() - 1)
            for m in _LOCAL.finditer(text, block.end(), body_end):
                out.setdefault("local." + m.group(1), _literal(m.group(2)))
        for m in _VARIABLE.finditer(text):
            out.setdefault("var." + m.group(1), _literal(m.group(2)))
    return out


def _literal(raw: str) -> str:
    return raw[1:-1].replace('\\"', '"') if raw.startswith('"') else raw
