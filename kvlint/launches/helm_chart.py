"""Helm templates read against their own chart's values.yaml: simple references resolved in place.

A template under `templates/` of a folder holding `Chart.yaml` is rendered by Helm with that chart's
`values.yaml`. kvlint does not render Go templates, but the references deployment files use most
are simple: `{{ .Values.a.b }}`, with `| default X`, `| quote`, `toYaml .Values.x | nindent N`,
`with .Values.x` ... `toYaml .`, `.Chart.AppVersion`. Those are looked up in values.yaml and the
document tree is rebuilt with the values' own nodes, so a setting's span points at the value in
values.yaml (origin "chart-values"). Inside a longer string (a `sh -c` script) each reference that
resolves to a scalar is replaced where it stands, and `{{ range .Values.list }} {{ . }}{{ end }}` over a
list of scalars (`.`, `toString .`, `quote .`, `. | quote` in its body) renders the body once per item.
Anything else (`include`, other `range` bodies, conditionals, functions this module does not know) stays
unresolved text, each `{{ }}` kept whole.
"""

from __future__ import annotations

import bisect
import os
import re
from functools import lru_cache

from kvlint import limits
from kvlint.lazyre import lazy
from kvlint.record import field, record, replace
from kvlint.sources.scalars import scalar_mapped
from kvlint.sources.templates import Templated, detemplate, has_placeholder
from kvlint.sources.text import LineIndex, Mapped, SourceError, read_file
from kvlint.sources.yaml import TEMPLATE_NOTE, YamlFile, YamlProblem, YNode, parse_yaml
from kvlint.span import Span

# One action on one line. The body never holds `{{` or `}}`, so on a run of `{` each start fails at once and a
# scan is linear (a body of `[^\n]{0,2000}?` tried 2,000 characters from every `{` of the run: O(n x 2000),
# 22 s for 200 KB of `{`); an unclosed `{{` costs the rest of its line, up to the next `{{`, at most.
_EXPR = lazy(r"\{\{-?((?:[^\n{}]|\{(?!\{)|\}(?!\})){0,2000}?)-?\}\}")
_WHOLE = lazy(r"^\s*\{\{[^{}]*\}\}\s*$")
_STR = "tag:yaml.org,2002:str"
_FLAG_EQ = lazy(r"^(--?[A-Za-z][A-Za-z0-9_-]*)=(\{\{[^{}]*\}\})$")
_ARGV_KEYS = ("args", "command")
_BLOCKS = ("if", "with", "range", "define", "block")
_ITEM_FORMS = {".": False, "toString .": False, "quote .": True, ". | quote": True}  # -> rendered in quotes
_PASS = frozenset({"quote", "squote", "toString", "int", "int64", "float64", "trim"})
_MAX_DEPTH = 64  # template documents are shallow; past this the tree is kept as it is
_MAX_TEMPLATES = 64  # a chart's templates read to see whether one is the launch (charts hold a handful)
_MAX_TEMPLATE_BYTES = 1 << 20
ROOT = ("",)  # the template's top-level `.`
CHART_NOTE = ("Helm template: simple references ({{{{ .Values.x }}}}, default, quote, toYaml) read from {values}; "
              "other {{{{ }}}} expressions kept as unresolved text")


@record
class Chart:
    """The chart around a template: its values (with spans) and Chart.yaml's name and versions."""

    root: str
    values: YamlFile
    meta: dict[str, str] = field(default_factory=dict)  # Chart.yaml: Name, Version, AppVersion
    keys: dict[int, dict[str, YNode]] = field(default_factory=dict, compare=False)  # map node -> key index

    def child(self, node: YNode, key: str) -> YNode | None:
        """`node.get(key)` in constant time: a template can look up thousands of keys in a big map."""
        index = self.keys.get(id(node))
        if index is None:
            index = self.keys[id(node)] = {k: v for k, _, v in node.pairs()}  # the last duplicate wins
        return index.get(key)


@record
class Value:
    """What a reference evaluates to: a values.yaml node, or literal text from the template itself."""

    node: YNode | None
    text: str
    quoted: bool = False

    @property
    def scalar(self) -> bool:
        return self.node is None or self.node.is_scalar


@record
class _Expr:
    start: int
    end: int
    body: str  # inside the braces, trimmed
    dot: tuple[str, ...] | None  # `.` here: ROOT, a values path (inside `with`), None (inside `range`)
    each: tuple[str, ...] | None = None  # inside `range PATH` (nearest block): the list `.` walks


@record
class ChartTemplate(YamlFile):
    """A template file whose references were resolved; `mapped` knows substituted text's positions."""

    chart: Chart | None = None
    originals: dict[tuple[int, int], str] = field(default_factory=dict)  # (start, end) -> text before
    exprs: tuple[_Expr, ...] = ()
    starts: tuple[int, ...] = ()  # exprs' start offsets, for bisection

    def mapped(self, node: YNode) -> Mapped:
        if self.chart is not None and node.span.path != self.path:
            return self.chart.values.mapped(node)
        original = self.originals.get((node.start, node.end))
        if original is None or self.chart is None:
            return super().mapped(node)
        return _substituted(scalar_mapped(self, replace(node, text=original)), self, node)


def chart_of(path: str) -> Chart | None:
    """The chart a template belongs to: a `templates/` folder (or below) whose parent has Chart.yaml."""
    if path in ("", "-"):
        return None
    folder = os.path.dirname(path)  # kept as the caller wrote it: values.yaml spans read the same way
    for _ in range(6):
        if os.path.basename(os.path.normpath(folder)) == "templates":
            root = os.path.dirname(os.path.normpath(folder))
            if os.path.isfile(os.path.join(root, "Chart.yaml")):
                return _load_chart(root, *_stamp(os.path.join(root, "values.yaml")))
        parent = os.path.dirname(folder)
        if not folder or parent == folder:
            break
        folder = parent
    return None


def pinned_image(path: str, image: str) -> tuple[str, Span | None] | None:
    """A template read without its Chart.yaml (a chart copied in part): its references are left unresolved, but
    the image it runs is the release Helm would install, and a values.yaml beside `templates/` says which. Only the
    image string is rendered from it (`"{{ .Values.image.repository }}:{{ .Values.image.tag }}"`), and only when
    every reference in it resolves to a scalar; the span is the last value's (the tag)."""
    root = _bare_chart_root(path)
    if root is None or "{{" not in image:
        return None
    chart = _load_values(root, *_stamp(os.path.join(root, "values.yaml")))
    if chart is None:
        return None
    out, last, span = [], 0, None
    for m in _EXPR.finditer(image):
        value = evaluate(chart, m.group(1).strip(), ROOT)
        if value is None or (value.node is not None and not value.node.is_scalar) or not value.text:
            return None
        out += [image[last:m.start()], value.text]
        last, span = m.end(), value.node.span if value.node is not None else span
    rendered = "".join(out) + image[last:]
    return (rendered, span) if "{{" not in rendered else None


def _bare_chart_root(path: str) -> str | None:
    """The folder above a `templates/` folder holding this file when it has values.yaml but no Chart.yaml."""
    folder = os.path.dirname(path)
    for _ in range(6):
        if os.path.basename(os.path.normpath(folder)) == "templates":
            root = os.path.dirname(os.path.normpath(folder))
            has_values = os.path.isfile(os.path.join(root, "values.yaml"))
            return root if has_values and not os.path.isfile(os.path.join(root, "Chart.yaml")) else None
        parent = os.path.dirname(folder)
        if not folder or parent == folder:
            break
        folder = parent
    return None


@lru_cache(maxsize=32)
def _load_values(root: str, _mtime: int, _size: int) -> Chart | None:
    try:
        values = parse_yaml(os.path.join(root, "values.yaml"), read_file(os.path.join(root, "values.yaml")))
    except SourceError:
        return None
    return Chart(root, values) if values.docs and values.docs[0].is_map else None


def templates_hold_launch(path: str) -> bool:
    """True for a chart's own values.yaml (Chart.yaml beside it) when a template of that chart reads as an
    engine launch: the template rendered with these values is the launch, so the values file is its input,
    not a second launch to assemble. A values file whose chart templates are not on disk stays a launch."""
    if os.path.basename(path) != "values.yaml":
        return False
    root = os.path.dirname(path)
    folder = os.path.join(root, "templates")
    if not os.path.isfile(os.path.join(root, "Chart.yaml")) or not os.path.isdir(folder):
        return False
    return _template_launches(_listing(folder))


def _listing(folder: str) -> tuple[tuple[str, int, int], ...]:
    """The chart's YAML templates (a bounded walk) with their stamps, the key of the cached answer."""
    out: list[tuple[str, int, int]] = []
    for here, dirs, files in os.walk(folder):
        dirs.sort()
        for name in sorted(files):
            if name.endswith((".yaml", ".yml")) and len(out) < _MAX_TEMPLATES:
                full = os.path.join(here, name)
                out.append((full, *_stamp(full)))
    return tuple(out)


@lru_cache(maxsize=32)
def _template_launches(listing: tuple[tuple[str, int, int], ...]) -> bool:
    from kvlint.launches.read import may_hold_launch, read_one

    for path, _, size in listing:
        if size < 0 or size > _MAX_TEMPLATE_BYTES:
            continue
        try:
            text = read_file(path)
        except SourceError:
            continue
        if "{{" in text and may_hold_launch(text) and read_one(path, text).deployments:
            return True
    return False


def _stamp(path: str) -> tuple[int, int]:
    try:
        st = os.stat(path)
    except OSError:
        return (0, -1)
    return (st.st_mtime_ns, st.st_size)


@lru_cache(maxsize=32)
def _load_chart(root: str, _mtime: int, _size: int) -> Chart | None:
    try:
        text = read_file(os.path.join(root, "values.yaml"))
        meta_text = read_file(os.path.join(root, "Chart.yaml"))
    except SourceError:
        return None
    values = parse_yaml(os.path.join(root, "values.yaml"), text)
    if not values.docs or not values.docs[0].is_map:
        return None
    meta_doc = parse_yaml(os.path.join(root, "Chart.yaml"), meta_text).docs
    meta: dict[str, str] = {}
    for key, _, val in meta_doc[0].pairs() if meta_doc and meta_doc[0].is_map else ():
        if val.is_scalar:
            meta[key[:1].upper() + key[1:]] = val.text
    return Chart(root, values, meta)


def parse_template(path: str, text: str) -> YamlFile:
    """A chart template composed with every `{{ }}` neutralised, even when the text happens to be
    valid YAML (`replicas: {{ .Values.n }}` composes as nested flow maps, not as a reference)."""
    templated = detemplate(text)
    plain = parse_yaml(path, templated.text)
    docs = [_restore(d, templated, 0) for d in plain.docs]
    note = YamlProblem(TEMPLATE_NOTE, templated.first_line, 1, "info")
    return YamlFile(path, text, LineIndex(text), docs, plain.problems + [note], plain.comments, templated)


def _restore(node: YNode, templated: Templated, depth: int) -> YNode:
    if depth > _MAX_DEPTH:
        return node
    if node.is_scalar:
        if not has_placeholder(node.text):
            return node
        text = templated.restore(node.text)
        return replace(node, text=text, value=text, tag=_STR)
    if node.is_seq:
        return replace(node, items=tuple(_restore(i, templated, depth + 1) for i in node.items))
    return replace(node, items=tuple((_restore(k, templated, depth + 1), _restore(v, templated, depth + 1))
                                     for k, v in node.items))


def resolve_template(yf: YamlFile, chart: Chart) -> ChartTemplate:
    """The template's documents with every simple reference replaced by what values.yaml holds."""
    exprs = _scan(yf.text)
    problems = [replace(p, message=CHART_NOTE.format(values=chart.values.path)) if p.message == TEMPLATE_NOTE else p
                for p in yf.problems]
    out = ChartTemplate(yf.path, yf.text, yf.index, [], problems, yf.comments, yf.templated, chart, {}, exprs,
                        tuple(e.start for e in exprs))
    toyaml = _toyaml_after_keys(yf, exprs)
    docs = [_rewrite(out, d, toyaml, None, 0) for d in yf.docs]
    return replace(out, docs=docs)


# ---------------------------------------------------------------- scanning the template text

@lru_cache(maxsize=16)
def _scan(text: str) -> tuple[_Expr, ...]:
    """Every `{{ }}` with what `.` means there (`with` narrows it, `range` and `define` lose it).

    Kept per text: checking a chart's values.yaml reads its templates (templates_hold_launch), and the run
    reads the same templates again as files; the second reading does not scan again."""
    out: list[_Expr] = []
    stack: list[tuple[str, ...] | None] = []
    ranges: list[tuple[str, ...] | None] = []  # per open block: the list a `range` walks (None otherwise)
    for m in _EXPR.finditer(text):
        limits.check()
        body = m.group(1).strip()
        dot = next((s for s in reversed(stack) if s != ("if",)), ROOT) if stack else ROOT
        word = body.split(None, 1)[0] if body else ""
        blocks = zip(reversed(ranges), reversed(stack), strict=True)
        each = next((r for r, s in blocks if s != ("if",)), None)
        out.append(_Expr(m.start(), m.end(), body, dot, each))
        if word in _BLOCKS:
            stack.append(("if",) if word == "if" else _with_path(body, dot) if word == "with" else None)
            ranges.append(_with_path(body, dot) if word == "range" and "$" not in body else None)
        elif word == "end" and stack:
            stack.pop()
            ranges.pop()
    return tuple(out)


def _with_path(body: str, dot: tuple[str, ...] | None) -> tuple[str, ...] | None:
    arg = body.split(None, 1)[1].strip() if " " in body else ""
    return _path(arg, dot)


def _path(ref: str, dot: tuple[str, ...] | None) -> tuple[str, ...] | None:
    """`.Values.a.b` / `$.Values.a.b` -> ("Values", "a", "b"); `.x` relative to a `with`; `.` itself."""
    ref = ref.strip()
    if ref.startswith("$."):
        return tuple(p for p in ref[2:].split(".") if p) or ROOT
    if ref == ".":
        return dot
    if not ref.startswith(".") or dot is None or not re.fullmatch(r"(\.[A-Za-z_][A-Za-z0-9_-]*)+", ref):
        return None
    parts = tuple(ref[1:].split("."))
    return parts if dot == ROOT else dot + parts


def _toyaml_after_keys(yf: YamlFile, exprs: tuple[_Expr, ...]) -> dict[int, _Expr]:
    """Key line -> the `toYaml X | nindent N` on the action-only lines right below it."""
    out: dict[int, _Expr] = {}
    by_line = {yf.index.locate(e.start)[0]: e for e in exprs if e.body.startswith("toYaml ")}
    last_key = 0
    for n in range(1, len(yf.index.starts) + 1):
        line = yf.index.line_text(n)
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        only_actions = not _EXPR.sub("", stripped).strip()
        if not only_actions:
            last_key = n if stripped.endswith(":") else 0
        elif n in by_line and last_key:
            out.setdefault(last_key, by_line[n])
    return out


# ---------------------------------------------------------------- evaluating one reference

def evaluate(chart: Chart, body: str, dot: tuple[str, ...] | None) -> Value | None:
    """A reference and its pipeline (`default`, `quote`, `toYaml`, `nindent` ...), or None."""
    stages = [s.strip() for s in _split_pipes(body)]
    if not stages or not stages[0]:
        return None
    value = _head(chart, stages[0], dot)
    for stage in stages[1:]:
        words = stage.split(None, 1)
        name = words[0] if words else ""
        if name == "default":
            fallback = _operand(chart, words[1] if len(words) > 1 else "", dot)
            value = fallback if _empty(value) else value
        elif name in ("nindent", "indent", "toYaml"):
            continue
        elif name in _PASS:
            value = replace(value, quoted=True) if value is not None and name in ("quote", "squote") else value
        else:
            return None
    if value is not None and value.node is not None and value.node.is_scalar and value.node.tag.endswith(":null"):
        return None  # `key:` with no value renders as nothing: not a value kvlint can use
    return value


def _head(chart: Chart, stage: str, dot: tuple[str, ...] | None) -> Value | None:
    words = _words(stage)
    if not words:
        return None
    if words[0] == "default" and len(words) == 3:
        primary = _operand(chart, words[2], dot)
        return _operand(chart, words[1], dot) if _empty(primary) else primary
    if words[0] in ("toYaml", "quote", "squote", "toString", "int", "int64", "trim") and len(words) == 2:
        value = _operand(chart, words[1], dot)
        return replace(value, quoted=True) if value is not None and words[0] in ("quote", "squote") else value
    if words[0] == "index" and len(words) >= 3:
        base = _path(words[1], dot)
        keys = tuple(w.strip('"') for w in words[2:])
        return _lookup(chart, base + keys) if base is not None and all(w.startswith('"') for w in words[2:]) else None
    return _operand(chart, stage, dot) if len(words) == 1 else None


def _operand(chart: Chart, text: str, dot: tuple[str, ...] | None) -> Value | None:
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] == '"':
        return Value(None, text[1:-1])
    if re.fullmatch(r"-?\d+(\.\d+)?|true|false", text):
        return Value(None, text)
    if text.startswith(".Chart.") and "." not in text[7:]:
        found = chart.meta.get(text[7:])
        return Value(None, found) if found is not None else None
    path = _path(text, dot)
    return _lookup(chart, path) if path is not None else None


def _lookup(chart: Chart, path: tuple[str, ...]) -> Value | None:
    if not path or path[0] != "Values":
        return None
    node: YNode | None = chart.values.docs[0]
    for key in path[1:]:
        node = chart.child(node, key) if node is not None and node.is_map else None
    if node is None:
        return None
    return Value(node, node.text if node.is_scalar else "")


def _empty(value: Value | None) -> bool:
    """Go templates' `empty`: missing, null, "", false, 0, or an empty map or list."""
    if value is None:
        return True
    node = value.node
    if node is None:
        return value.text in ("", "false", "0")
    if node.is_scalar:
        return node.tag.endswith(":null") or node.text == "" or (node.style is None and node.text in ("false", "0"))
    return not node.items


def _split_pipes(body: str) -> list[str]:
    parts: list[str] = []
    cur: list[str] = []
    depth, quote = 0, False
    for ch in body:
        if ch == '"':
            quote = not quote
        elif not quote and ch == "(":
            depth += 1
        elif not quote and ch == ")":
            depth -= 1
        if ch == "|" and not quote and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    parts.append("".join(cur))
    return parts if depth == 0 and not quote else []


def _words(stage: str) -> list[str]:
    return re.findall(r'"[^"]*"|\S+', stage)


# ---------------------------------------------------------------- rebuilding the tree

def _rewrite(tf: ChartTemplate, node: YNode, toyaml: dict[int, _Expr], key: str | None, depth: int) -> YNode:
    if depth > _MAX_DEPTH:
        return node
    if node.is_scalar:
        return _scalar(tf, node)
    if node.is_seq:
        items: list[YNode] = []
        for item in node.items:
            split = _split_flag(tf, item) if key in _ARGV_KEYS and item.is_scalar else None
            if split is None and key in _ARGV_KEYS and item.is_scalar:
                split = _ranged(tf, item)  # may be empty: `range` over an empty list adds no argument
            items.extend(split if split is not None else [_rewrite(tf, item, toyaml, None, depth + 1)])
        return replace(node, items=tuple(items))
    pairs = []
    for k, v in node.items:
        filled = _from_toyaml(tf, k, v, toyaml)
        new = filled if filled is not None else _rewrite(tf, v, toyaml, k.text if k.is_scalar else None, depth + 1)
        pairs.append((k, new))
    return replace(node, items=tuple(pairs))


def _exprs_in(tf: ChartTemplate, start: int, end: int) -> list[_Expr]:
    """The references inside [start, end), found by bisection (a template can hold thousands)."""
    first, last = bisect.bisect_left(tf.starts, start), bisect.bisect_left(tf.starts, end)
    return [e for e in tf.exprs[first:last] if e.end <= end]


def _scalar(tf: ChartTemplate, node: YNode) -> YNode:
    if "{{" not in node.text or tf.chart is None or node.span.path != tf.path:
        return node
    found = _exprs_in(tf, node.start, node.end)
    if len(found) == 1 and _WHOLE.match(node.text):
        value = evaluate(tf.chart, found[0].body, found[0].dot)
        if value is not None and value.node is not None:
            return _values_node(value, quoted=node.style in ("'", '"') or value.quoted)
    matches = list(_EXPR.finditer(node.text))
    if not found or len(matches) != len(found):
        return node
    pieces = _rendered(tf.chart, node.text, matches, list(found))
    if all(p.literal for p in pieces):
        return node
    text = "".join(p.text for p in pieces)
    tf.originals[(node.start, node.end)] = node.text
    return replace(node, text=text, value=text, tag=_STR)


@record
class _Piece:
    """A run of rendered text and the [start, end) of the template text it stands for."""

    text: str
    start: int
    end: int
    literal: bool  # the template's own characters, one for one (else a value, spread over its reference)


def _rendered(chart: Chart, text: str, matches: list[re.Match[str]], exprs: list[_Expr | None]) -> list[_Piece]:
    """The text with each reference that resolves to a scalar replaced and each `range` over a values list
    of scalars expanded; every other `{{ }}` kept whole, as written."""
    out: list[_Piece] = []
    ends = _block_ends(exprs)
    i = k = 0
    while k < len(matches):
        m, expr = matches[k], exprs[k]
        out.append(_Piece(text[i : m.start()], i, m.start(), True))
        end = ends.get(k) if expr is not None and expr.body.startswith("range ") else None
        expanded = _range_pieces(chart, text, matches[k : end + 1], exprs[k : end + 1]) if end is not None else None
        if expanded is not None and end is not None:
            out.extend(expanded)
            i, k = matches[end].end(), end + 1
            continue
        value = evaluate(chart, expr.body, expr.dot) if expr is not None else None
        if value is not None and value.scalar:
            out.append(_Piece(value.text, m.start(), m.end(), False))
        else:
            out.append(_Piece(m.group(0), m.start(), m.end(), True))
        i, k = m.end(), k + 1
    out.append(_Piece(text[i:], i, len(text), True))
    return out


def _block_ends(exprs: list[_Expr | None]) -> dict[int, int]:
    """Index of each block opener (`range`, `if`, ...) -> the index of its `end`, within this one scalar: one
    pass with a stack (scanning ahead from every opener was quadratic on a string of unclosed blocks)."""
    ends: dict[int, int] = {}
    open_at: list[int] = []
    for j, expr in enumerate(exprs):
        word = expr.body.split(None, 1)[0] if expr is not None and expr.body else ""
        if word in _BLOCKS:
            open_at.append(j)
        elif word == "end" and open_at:
            ends[open_at.pop()] = j
    return ends


def _range_pieces(chart: Chart, text: str, matches: list[re.Match[str]],
                  exprs: list[_Expr | None]) -> list[_Piece] | None:
    """`{{ range .Values.args }} {{ . }}{{ end }}` over a list of scalars: the body once per item, `.` being
    the item (`quote .` the item in double quotes, as Sprig's quote renders it); None for any other shape."""
    head = exprs[0]
    inner = exprs[1:-1]
    if head is None or "$" in head.body or any(e is None or e.body not in _ITEM_FORMS for e in inner):
        return None
    path = _with_path(head.body, head.dot)
    listed = _lookup(chart, path) if path is not None else None
    if path is not None and path[:1] == ("Values",) and (listed is None or _empty(listed)):
        return []  # Helm renders a range over a missing or empty value as nothing
    if listed is None or listed.node is None or not listed.node.is_seq:
        return None
    items = listed.node.items
    if not all(i.is_scalar and not i.tag.endswith(":null") for i in items):
        return None
    quote = [_ITEM_FORMS[e.body] for e in inner if e is not None]
    out: list[_Piece] = []
    limits.spend(len(items) * (matches[-1].start() - matches[0].end()))  # the body once per item
    for item in items:
        for n in range(1, len(matches) - 1):
            before = matches[n - 1].end()
            out.append(_Piece(text[before : matches[n].start()], before, matches[n].start(), True))
            rendered = _quoted(item.text) if quote[n - 1] else item.text
            out.append(_Piece(rendered, matches[n].start(), matches[n].end(), False))
        last = matches[-2].end()
        out.append(_Piece(text[last : matches[-1].start()], last, matches[-1].start(), True))
    return out


def _quoted(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _values_node(value: Value, quoted: bool) -> YNode:
    node = value.node
    assert node is not None
    if node.is_scalar and quoted and node.tag != _STR:
        return replace(node, value=node.text, tag=_STR)
    return node


def _split_flag(tf: ChartTemplate, item: YNode) -> list[YNode] | None:
    """`- --max-model-len={{ .Values.maxModelLen }}` as two argv items, the value being values.yaml's
    own node (argparse reads `--flag=value` and `--flag value` alike when the value is not a flag)."""
    m = _FLAG_EQ.match(item.text.strip())
    found = _exprs_in(tf, item.start, item.end)
    if not m or len(found) != 1 or tf.chart is None:
        return None
    value = evaluate(tf.chart, found[0].body, found[0].dot)
    if value is None or value.node is None or not value.node.is_scalar or value.node.text.startswith("-"):
        return None
    flag = m.group(1)
    mapped = scalar_mapped(tf, item)
    at = mapped.text.find(flag)
    span = mapped.span(at, at + len(flag)) if at >= 0 else item.span
    flag_node = replace(item, text=flag, value=flag, tag=_STR, span=span)
    return [flag_node, _values_node(value, quoted=True)]


def _ranged(tf: ChartTemplate, item: YNode) -> list[YNode] | None:
    """`{{- range .Values.extraArgs }} {{ quote . }}, {{- end }}` in an argv list: the list's own items."""
    found = _exprs_in(tf, item.start, item.end)
    if tf.chart is None or len(found) != 1 or found[0].each is None or not _WHOLE.match(item.text):
        return None
    if found[0].body not in (".", "quote .", ". | quote", "squote .", ". | squote", "toString ."):
        return None
    listed = _lookup(tf.chart, found[0].each)
    if found[0].each[:1] == ("Values",) and (listed is None or (listed.node is not None and _empty(listed))):
        return []  # Helm renders a range over a missing or empty value as nothing
    if listed is None or listed.node is None or not listed.node.is_seq:
        return None
    return [_values_node(Value(i, i.text), quoted=True) for i in listed.node.items if i.is_scalar]


def _from_toyaml(tf: ChartTemplate, key: YNode, val: YNode, toyaml: dict[int, _Expr]) -> YNode | None:
    """`resources:` followed by `{{- toYaml .Values.resources | nindent 12 }}`: the values map itself."""
    empty = val.is_scalar and (val.tag.endswith(":null") or not val.text)
    expr = toyaml.get(key.span.line) if empty and key.is_scalar else None
    if expr is None or tf.chart is None:
        return None
    value = evaluate(tf.chart, expr.body, expr.dot)
    return value.node if value is not None and value.node is not None and not value.node.is_scalar else None


def _substituted(m: Mapped, tf: ChartTemplate, node: YNode) -> Mapped:
    """The template scalar's text with its references replaced; each substituted character sits on
    the reference it came from, so a word from a value points at its `{{ ... }}` in the template."""
    matches = list(_EXPR.finditer(m.text))
    exprs: list[_Expr | None] = []
    for match in matches:
        offset = tf.index.offset(*m.at(match.start()))
        near = _exprs_in(tf, offset, offset + (match.end() - match.start()))
        exprs.append(near[0] if near else None)
    chars: list[str] = []
    pos: list[tuple[int, int]] = []
    for piece in _rendered(tf.chart, m.text, matches, exprs) if tf.chart is not None else ():
        chars.extend(piece.text)
        if piece.literal:
            pos.extend(m.at(piece.start + k) for k in range(len(piece.text)))
        else:
            width = piece.end - piece.start
            pos.extend(m.at(piece.start + (k * width) // max(1, len(piece.text))) for k in range(len(piece.text)))
    end = (node.span.end_line, node.span.end_col)
    return Mapped(m.path, "".join(chars), tuple(pos) + (end,))
