"""YAML read once through PyYAML's composer, keeping where every key and scalar came from.

Loaded data loses positions, raw text ("8" vs 8) and comments; findings need all three. Documents
are composed one at a time (split at `---` lines) so one broken document does not hide the others,
and alias expansion is bounded so a "billion laughs" file costs nothing.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import yaml

from kvlint import limits
from kvlint.sources.comments import scan_comments
from kvlint.sources.templates import Templated, detemplate
from kvlint.sources.text import LineIndex, Mapped
from kvlint.span import Span

_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
MAX_NODES = 200_000  # expanded node count per document; real manifests are a few thousand
MAX_COMPOSE = 150_000  # estimated nodes per document composed at once (PyYAML's C composer cannot be stopped)
MAX_DUPLICATE_REPORTS = 20  # per document: past this the file is generated, not hand-written
_DOC_SPLIT = re.compile(r"^(?:---|\.\.\.)(?=[ \t]|$)", re.M)
_CONFLICT = re.compile(r"^(<<<<<<<|=======|>>>>>>>)( |$)", re.M)


@dataclass(frozen=True, eq=False, slots=True)
class YNode:
    """One composed node. Scalars keep their typed value, parsed text, raw-text style and offsets."""

    kind: str  # "map" | "seq" | "scalar"
    span: Span
    start: int  # offset of the node's first character in the file
    end: int
    value: Any = None  # scalars: typed value (int 8 for `8`, str "8" for `"8"`)
    text: str = ""  # scalars: the parsed string
    style: str | None = None  # None (plain), "'", '"', "|", ">"
    tag: str = ""
    items: tuple = ()  # seq: (YNode, ...); map: ((key YNode, value YNode), ...)
    size: int = 1  # nodes under this one, aliases expanded

    @property
    def is_map(self) -> bool:
        return self.kind == "map"

    @property
    def is_seq(self) -> bool:
        return self.kind == "seq"

    @property
    def is_scalar(self) -> bool:
        return self.kind == "scalar"

    @property
    def elements(self) -> tuple[YNode, ...]:
        """A sequence's items; () for a map or a scalar, so a reader expecting a list never walks a map's
        (key, value) pairs by mistake when a file writes `command: {a: b}`."""
        return self.items if self.kind == "seq" else ()

    def get(self, key: str) -> YNode | None:
        """The value node for a string key (last occurrence, as YAML loaders keep)."""
        if self.kind != "map":
            return None
        found = None
        for k, v in self.items:
            if k.kind == "scalar" and k.text == key:
                found = v
        return found

    def path(self, *keys: str | int) -> YNode | None:
        node: YNode | None = self
        for key in keys:
            if node is None:
                return None
            if isinstance(key, int):
                node = node.items[key] if node.kind == "seq" and -len(node.items) <= key < len(node.items) else None
            else:
                node = node.get(key)
        return node

    def pairs(self) -> Iterator[tuple[str, YNode, YNode]]:
        if self.kind == "map":
            for k, v in self.items:
                if k.kind == "scalar":
                    yield k.text, k, v

    def str_value(self) -> str | None:
        """A scalar as the string a program would receive (env values, argv items)."""
        if self.kind != "scalar" or self.tag.endswith(":null"):
            return None
        return self.text

    def data(self) -> Any:
        """Plain Python data (only call on bounded trees: sizes are checked at compose time)."""
        if self.kind == "scalar":
            return self.value
        if self.kind == "seq":
            return [i.data() for i in self.items]
        return {k.data() if k.kind == "scalar" else str(k.span): v.data() for k, v in self.items}


@dataclass(frozen=True)
class YamlProblem:
    message: str
    line: int
    col: int
    severity: str = "error"  # "error" | "info"
    kind: str = ""  # "duplicate" for a repeated key (a loader keeps the last), else ""


@dataclass(frozen=True)
class YamlFile:
    path: str
    text: str
    index: LineIndex
    docs: list[YNode] = field(default_factory=list)
    problems: list[YamlProblem] = field(default_factory=list)
    comments: dict[int, str] = field(default_factory=dict)
    templated: Templated | None = None  # set when `{{ }}` placeholders were neutralised

    def raw(self, node: YNode) -> str:
        return self.text[node.start : node.end]

    def mapped(self, node: YNode) -> Mapped:
        from kvlint.sources.scalars import scalar_mapped

        return scalar_mapped(self, node)


def parse_yaml(path: str, text: str) -> YamlFile:
    """Compose every document of `text`; problems (with lines) instead of exceptions."""
    problems: list[YamlProblem] = []
    resolved = _resolve_conflicts(text, problems)
    index = LineIndex(resolved)
    docs: list[YNode] = []
    templated: Templated | None = None
    for start, chunk in _chunks(resolved):
        limits.check()
        doc, used = _compose_chunk(path, chunk, start, index, problems)
        if used is not None and templated is None:
            templated = used
            line = index.locate(start)[0] + used.first_line - 1
            problems.append(YamlProblem(TEMPLATE_NOTE, line, 1, "info"))
        if doc is not None:
            docs.append(doc)
    return YamlFile(path, resolved, index, docs, problems, scan_comments(text), templated)


TEMPLATE_NOTE = "Helm/Go template file: {{ }} expressions are not YAML; reading the rest with them kept as unresolved text"


def _chunks(text: str) -> Iterator[tuple[int, str]]:
    starts = [0] + [m.start() for m in _DOC_SPLIT.finditer(text)]
    for a, b in zip(starts, starts[1:] + [len(text)], strict=False):
        if text[a:b].strip():
            yield a, text[a:b]


def _resolve_conflicts(text: str, problems: list[YamlProblem]) -> str:
    """Keep the first side of git merge-conflict blocks (blanking the rest keeps line numbers)."""
    if "<<<<<<<" not in text:
        return text
    lines = text.split("\n")
    state, first = 0, None
    for i, ln in enumerate(lines):
        m = _CONFLICT.match(ln)
        if m and m.group(1) == "<<<<<<<":
            state, first = 1, first or i + 1
            lines[i] = " " * len(ln)  # same length: every later offset stays valid
        elif m and m.group(1) == "=======" and state == 1:
            state, lines[i] = 2, " " * len(ln)
        elif m and m.group(1) == ">>>>>>>" and state:
            state, lines[i] = 0, " " * len(ln)
        elif state == 2:
            lines[i] = " " * len(ln)
    if first is None:
        return text
    problems.append(YamlProblem("unresolved git merge-conflict markers: not valid YAML; reading the first side of each conflict", first, 1))
    return "\n".join(lines)


def _compose_chunk(path, chunk, start, index, problems) -> tuple[YNode | None, Templated | None]:
    """One document; a chunk that is not YAML only because of `{{ }}` is read detemplated."""
    base_line = index.locate(start)[0] - 1
    estimate = _node_estimate(chunk)
    if estimate > MAX_COMPOSE:
        problems.append(YamlProblem(f"document too large to read: about {estimate:,} YAML nodes, over the "
                                    f"{MAX_COMPOSE:,} kvlint composes at once (generated data?); not read",
                                    base_line + 1, 1))
        return None, None
    node, error = _compose(chunk, base_line)
    templated = None
    if error is not None and "{{" in chunk:
        templated = detemplate(chunk)
        node, error = _compose(templated.text, base_line)
    if error is not None:
        problems.append(error)
        return None, templated
    if node is None:
        return None, templated
    return _Builder(path, start, base_line, index, problems, templated).build(node), templated


def _node_estimate(chunk: str) -> int:
    """Roughly how many nodes composing `chunk` makes, counted at C speed before PyYAML spends ~6 us on each.

    Every node but a document's first starts at a line break, a comma, a colon or a dash, or opens with a
    bracket; text inside block scalars and strings counts too, so it errs high, never low.
    """
    return sum(chunk.count(c) for c in "\n,:-[{") + 1


def _compose(text: str, base_line: int):
    try:
        return yaml.compose(text, Loader=_Loader), None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = (mark.line + 1 + base_line) if mark else base_line + 1
        col = (mark.column + 1) if mark else 1
        return None, YamlProblem(f"invalid YAML: {_one_line(exc)}", line, col)
    except (yaml.YAMLError, RecursionError, MemoryError) as exc:
        return None, YamlProblem(f"invalid YAML: {_one_line(exc)}", base_line + 1, 1)


def _one_line(exc: Exception) -> str:
    problem = getattr(exc, "problem", None)
    context = getattr(exc, "context", None)
    text = " ".join(str(p) for p in (context, problem) if p) or str(exc).split("\n")[0]
    return re.sub(r"\s+", " ", text)[:200]


class _Builder:
    """Composed PyYAML graph -> YNode tree, iteratively (no recursion limit) and size-bounded."""

    def __init__(self, path, start, base_line, index, problems, templated):
        self.path, self.start, self.base_line = path, start, base_line
        self.index, self.problems, self.templated = index, problems, templated
        self.ctor = yaml.constructor.SafeConstructor()
        self.duplicates = 0

    def build(self, root) -> YNode | None:
        memo: dict[int, YNode] = {}
        open_: set[int] = set()
        stack = [(root, False)]
        scalar_type = yaml.ScalarNode
        steps = 0
        while stack:
            steps += 1
            if not steps & 1023:
                limits.check()
            node, ready = stack.pop()
            key = id(node)
            if ready:
                open_.discard(key)
                built = self._make(node, memo)
                if built is None:
                    return None
                memo[key] = built
                continue
            if key in memo:
                continue
            if type(node) is scalar_type:
                memo[key] = self._scalar(node, *self._span(node))
                continue
            open_.add(key)
            stack.append((node, True))
            for child in _children(node):
                ck = id(child)
                if ck in memo:
                    continue
                if ck in open_:
                    return self._fail(child, "recursive alias (a node contains itself)")
                if type(child) is scalar_type:
                    memo[ck] = self._scalar(child, *self._span(child))
                else:
                    stack.append((child, False))
        return memo.get(id(root))

    def _fail(self, node, message: str) -> None:
        line, col = self._pos(node.start_mark)
        self.problems.append(YamlProblem(message, line, col))
        return None

    def _pos(self, mark) -> tuple[int, int]:
        return mark.line + 1 + self.base_line, mark.column + 1

    def _span(self, node) -> tuple[Span, int, int]:
        sm, em, b = node.start_mark, node.end_mark, self.base_line + 1
        return Span(self.path, sm.line + b, sm.column + 1, em.line + b, em.column + 1), self.start + sm.index, self.start + em.index

    def _make(self, node, memo) -> YNode | None:
        span, a, b = self._span(node)
        if isinstance(node, yaml.SequenceNode):
            items = tuple(memo[id(c)] for c in node.value)
            size = 1 + sum(i.size for i in items)
            if size > MAX_NODES:
                return self._fail(node, f"document expands to over {MAX_NODES} nodes (alias bomb?); not read")
            return YNode("seq", span, a, b, tag=node.tag, items=items, size=size)
        pairs = self._pairs(node, memo)
        size = 1 + sum(k.size + v.size for k, v in pairs)
        if size > MAX_NODES:
            return self._fail(node, f"document expands to over {MAX_NODES} nodes (alias bomb?); not read")
        return YNode("map", span, a, b, tag=node.tag, items=pairs, size=size)

    def _pairs(self, node, memo) -> tuple:
        out: list[tuple[YNode, YNode]] = []
        seen: dict[str, int] = {}
        for k, v in node.value:
            key, val = memo[id(k)], memo[id(v)]
            if key.kind == "scalar" and key.text == "<<" and key.style is None:
                out.extend(p for p in _merged(val) if p[0].text not in seen)
                continue
            if key.kind == "scalar":
                if key.text in seen and self.templated is None:  # template branches repeat keys
                    self._duplicate(key, seen[key.text])
                seen[key.text] = key.span.line
            out.append((key, val))
        return tuple(out)

    def _duplicate(self, key: YNode, first: int) -> None:
        """One finding per duplicate up to a cap: a generated file can repeat a key a million times."""
        self.duplicates += 1
        if self.duplicates <= MAX_DUPLICATE_REPORTS:
            self.problems.append(YamlProblem(f"duplicate key {key.text!r} (first at line {first}); the last one wins",
                                             key.span.line, key.span.col, kind="duplicate"))
        elif self.duplicates == MAX_DUPLICATE_REPORTS + 1:
            self.problems.append(YamlProblem(f"more duplicate keys after this one; only the first {MAX_DUPLICATE_REPORTS} are reported",
                                             key.span.line, key.span.col, kind="duplicate"))

    def _scalar(self, node, span, a, b) -> YNode:
        text = node.value
        if self.templated is not None:
            text = self.templated.restore(text)
        value: Any = text
        if node.tag != "tag:yaml.org,2002:str" and node.tag.startswith("tag:yaml.org,2002:"):
            try:
                value = self.ctor.construct_object(node)
            except Exception:  # noqa: BLE001 - an odd timestamp or number form: keep the text
                value = text
        style = node.style if node.style in ("'", '"', "|", ">") else None
        return YNode("scalar", span, a, b, value=value, text=text, style=style, tag=node.tag)


def _children(node) -> list:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [n for pair in node.value for n in pair]
    return []


def _merged(val: YNode) -> list[tuple[YNode, YNode]]:
    if val.kind == "map":
        return list(val.items)
    if val.kind == "seq":
        return [p for m in val.items if m.kind == "map" for p in m.items]
    return []
