"""YAML read once through PyYAML's composer, keeping where every key and scalar came from.

Loaded data loses positions, raw text ("8" vs 8) and comments; findings need all three. Documents
are composed one at a time (split at `---` lines) so one broken document does not hide the others,
and alias expansion is bounded so a "billion laughs" file costs nothing.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable, Iterator
from typing import Any

import yaml

from kvlint import limits
from kvlint.lazyre import lazy
from kvlint.record import field, record, replace, replaceable
from kvlint.sources.comments import scan_comments
from kvlint.sources.templates import Templated, detemplate
from kvlint.sources.text import LineIndex, Mapped
from kvlint.span import Span

_BaseLoader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_TAGS: dict[str, str] = {}  # plain scalar -> resolved tag
_TAGS_MAX = 8192  # short values only (64 characters), about 1 MiB when full
_RESOLVER: Any = yaml.resolver.BaseResolver
_COLLECTION_TAGS: dict[Any, str] = {yaml.SequenceNode: _RESOLVER.DEFAULT_SEQUENCE_TAG,
                                    yaml.MappingNode: _RESOLVER.DEFAULT_MAPPING_TAG}
_SCALAR_TAG: str = _RESOLVER.DEFAULT_SCALAR_TAG


class _Loader(_BaseLoader):
    """PyYAML's safe loader (libyaml when present) with tag resolution short-cut.

    libyaml composes in C but calls back into Python for every node: the resolver's path hooks before and
    after it, and `resolve` for its tag (a dozen regular expressions per plain `true`, `8` or name). This
    loader has no path resolvers (the safe loader has none and kvlint adds none), so the hooks have nothing
    to do and a tag is a function of the node's kind and, for a plain scalar, its value alone; manifests
    repeat the same few hundred values. Those callbacks were ~1.5 % of a 1,000-file check's instructions."""

    yaml_path_resolvers: dict[Any, Any] = {}  # none, ever: the hooks and `resolve` below rely on it
    # called with (parent, index) before each node and with nothing after it: C callables that do nothing
    # (a Python method that returns at once costs several hundred instructions a call from libyaml's composer)
    descend_resolver = staticmethod(operator.is_)
    ascend_resolver = staticmethod(tuple)

    def resolve(self, kind: Any, value: Any, implicit: Any) -> Any:
        """The tag PyYAML's resolver gives, memoised for short plain scalars."""
        if kind is not _SCALAR:
            return _COLLECTION_TAGS[kind]  # what the resolver gives a collection without path resolvers
        if not implicit[0]:
            return _SCALAR_TAG  # not a plain scalar: the resolver consults no implicit resolver
        if len(value) > 64:
            return super().resolve(kind, value, implicit)
        tag = _TAGS.get(value)
        if tag is None:
            tag = super().resolve(kind, value, implicit)
            if len(_TAGS) >= _TAGS_MAX:
                _TAGS.clear()
            _TAGS[value] = tag
        return tag


MAX_NODES = 200_000  # expanded node count per document; real manifests are a few thousand
MAX_COMPOSE = 150_000  # estimated nodes per document composed at once (PyYAML's C composer cannot be stopped)
MAX_DUPLICATE_REPORTS = 20  # per document: past this the file is generated, not hand-written
_DOC_SPLIT = lazy(r"^(?:---|\.\.\.)(?=[ \t]|$)", re.M)
_CONFLICT = lazy(r"^(<<<<<<<|=======|>>>>>>>)( |$)", re.M)


@replaceable("kind", "span", "start", "end", "value", "text", "style", "tag", "items", "size")
class YNode:
    """One composed node. Scalars keep their typed value, parsed text, raw-text style and offsets.

    Nodes of a parsed file are built lazily from PyYAML's own nodes (their marks hold the positions): the
    span, the offsets, a scalar's typed value and a collection's items are made when a reader first asks
    for them, so the nodes no reader visits (most values of a large manifest) cost nothing beyond
    libyaml's compose. Nodes made by hand (`YNode("map", span, start, end, items=...)`) hold their fields
    from the start. Either way a node is immutable, and the same composed node (an alias) is one YNode.
    """

    __slots__ = ("kind", "span", "start", "end", "value", "text", "style", "tag", "items", "size", "_src", "_doc",
                 "_keys")

    kind: str  # "map" | "seq" | "scalar"
    span: Span
    start: int  # offset of the node's first character in the file
    end: int
    value: Any  # scalars: typed value (int 8 for `8`, str "8" for `"8"`)
    text: str  # scalars: the parsed string
    style: str | None  # None (plain), "'", '"', "|", ">"
    tag: str
    items: tuple  # seq: (YNode, ...); map: ((key YNode, value YNode), ...)
    size: int  # nodes under this one, aliases expanded

    def __init__(self, kind: str, span: Span, start: int, end: int, value: Any = None, text: str = "",
                 style: str | None = None, tag: str = "", items: tuple = (), size: int = 1) -> None:
        for name, given in (("kind", kind), ("span", span), ("start", start), ("end", end), ("value", value),
                            ("text", text), ("style", style), ("tag", tag), ("items", items), ("size", size),
                            ("_src", None), ("_doc", None), ("_keys", None)):
            object.__setattr__(self, name, given)

    @classmethod
    def _lazy(cls, node: Any, doc: _Doc) -> YNode:
        """A node whose span, offsets, typed value, style, items and size are made on first use."""
        self = object.__new__(cls)
        _SET_SRC(self, node)
        _SET_DOC(self, doc)
        _SET_TAG(self, node.tag)
        _SET_KEYS(self, None)
        if type(node) is _SCALAR:
            _SET_KIND(self, "scalar")
            _SET_TEXT(self, node.value if doc.templated is None else doc.templated.restore(node.value))
            _SET_ITEMS(self, ())
            _SET_SIZE(self, 1)
        else:
            _SET_KIND(self, "seq" if type(node) is _SEQUENCE else "map")
            _SET_TEXT(self, "")
            _SET_VALUE(self, None)
            _SET_STYLE(self, None)
        return self

    def __getattr__(self, name: str) -> Any:
        """A field not made yet (only slots of lazily built nodes are ever unset)."""
        if name not in _LAZY:
            raise AttributeError(name)
        src, doc = object.__getattribute__(self, "_src"), object.__getattribute__(self, "_doc")
        if name in ("span", "start", "end"):
            span, a, b = doc.span(src)
            _SET_SPAN(self, span)
            _SET_START(self, a)
            _SET_END(self, b)
        elif name == "items":
            if self.kind == "map":
                self._index()  # a map's items are made with its key index
            else:
                _SET_ITEMS(self, doc.items(src))
        elif name == "size":
            _SET_SIZE(self, node_size(src, doc.sizes, doc.key_text))
        elif name == "style":
            _SET_STYLE(self, _style(src))
        else:
            _SET_VALUE(self, doc.value(src, self.text))
        return object.__getattribute__(self, name)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"YNode is immutable (cannot set {name})")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"YNode is immutable (cannot delete {name})")

    def __repr__(self) -> str:
        return f"YNode({self.kind!r}, {self.span!r}, tag={self.tag!r})"

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
        index = self._keys
        return (self._index() if index is None else index).get(key)

    def has_any(self, keys: tuple[str, ...]) -> bool:
        """Whether a map has any of these string keys (one call where asking `get` per key is several)."""
        if self.kind != "map":
            return False
        index = self._keys
        if index is None:
            index = self._index()
        for key in keys:  # noqa: SIM110 - a loop, not any() over a generator: asked of every map a walk visits
            if key in index:
                return True
        return False

    def _index(self) -> dict[str, YNode]:
        """A map's key index (string key -> value node, the last occurrence winning, as `get` always chose), made
        on first use; a lazily built map makes its items here too, so both are set by one call. Asked as missing
        slots they were two misses, each a formatted AttributeError before `__getattr__` (~3,500 instructions,
        for most maps a reader visits)."""
        src = self._src
        if src is not None:  # lazily built: nothing made yet (items are made only here)
            _SET_ITEMS(self, self._doc.items(src))
        keys = {k.text: v for k, v in self.items if k.kind == "scalar"}
        _SET_KEYS(self, keys)
        return keys

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

    def data(self) -> Any:
        """Plain Python data (only call on bounded trees: sizes are checked at compose time)."""
        if self.kind == "scalar":
            return self.value
        if self.kind == "seq":
            return [i.data() for i in self.items]
        return {k.data() if k.kind == "scalar" else str(k.span): v.data() for k, v in self.items}


_LAZY = frozenset({"span", "start", "end", "value", "style", "items", "size"})
_SLOT = {name: YNode.__dict__[name].__set__ for name in YNode.__slots__}  # plain slot stores, past __setattr__
_SET_KIND, _SET_SPAN, _SET_START, _SET_END = _SLOT["kind"], _SLOT["span"], _SLOT["start"], _SLOT["end"]
_SET_VALUE, _SET_TEXT, _SET_STYLE, _SET_TAG = _SLOT["value"], _SLOT["text"], _SLOT["style"], _SLOT["tag"]
_SET_ITEMS, _SET_SIZE, _SET_SRC, _SET_DOC = _SLOT["items"], _SLOT["size"], _SLOT["_src"], _SLOT["_doc"]
_SET_KEYS = _SLOT["_keys"]
_SCALAR, _SEQUENCE, _MAPPING = yaml.ScalarNode, yaml.SequenceNode, yaml.MappingNode
_STYLES = ("'", '"', "|", ">")
_STR_TAG = "tag:yaml.org,2002:str"


def _style(node: Any) -> str | None:
    return node.style if node.style in _STYLES else None


class _Doc:
    """One composed document: PyYAML's node graph and what turns its nodes into YNodes.

    Each composed node becomes one YNode: a node's items are made once and kept, and with aliases (the
    only way one composed node has two parents) a memo by node makes the alias the same YNode."""

    def __init__(self, path: str, start: int, base_line: int, templated: Templated | None, root: Any,
                 aliases: bool):
        self.path, self.start, self.base_line, self.templated, self.root = path, start, base_line, templated, root
        self.nodes: dict[int, YNode] = {}  # id(PyYAML node) -> its YNode, with aliases only
        self.sizes: dict[int, int] = {}
        self.aliases = aliases
        self._ctor: yaml.constructor.SafeConstructor | None = None

    def wrap(self, node: Any) -> YNode:
        """The node's YNode (a bound method kept on the instance would make every document a reference cycle,
        freed only by the cycle collector: a large run's memory would grow between collections)."""
        if not self.aliases:
            return YNode._lazy(node, self)
        found = self.nodes.get(id(node))
        if found is None:
            found = self.nodes[id(node)] = YNode._lazy(node, self)
        return found

    def span(self, node: Any) -> tuple[Span, int, int]:
        sm, em, b = node.start_mark, node.end_mark, self.base_line + 1
        return (Span(self.path, sm.line + b, sm.column + 1, em.line + b, em.column + 1), self.start + sm.index,
                self.start + em.index)

    def key_text(self, node: Any) -> str:
        return self.templated.restore(node.value) if self.templated is not None else node.value

    def value(self, node: Any, text: str) -> Any:
        """A scalar's typed value for the YAML core tags (int 8 for `8`), else its parsed string."""
        if node.tag == _STR_TAG or not node.tag.startswith("tag:yaml.org,2002:"):
            return text
        if self._ctor is None:
            self._ctor = yaml.constructor.SafeConstructor()
        try:
            return self._ctor.construct_object(node)
        except Exception:  # noqa: BLE001 - an odd timestamp or number form: keep the text
            return text

    def items(self, node: Any) -> tuple:
        wrap = self.wrap
        if type(node) is _SEQUENCE:  # lists, not generators: every map and list of a file comes through here
            return tuple([wrap(c) for c in node.value])
        pairs = node.value
        for k, _ in pairs:
            if type(k) is _SCALAR and k.value == "<<":  # a merge key (or a quoted `<<`)
                pairs = effective_pairs(node, self.key_text)
                break
        return tuple([(wrap(k), wrap(v)) for k, v in pairs])


def effective_pairs(node: Any, key_text: Callable[[Any], str]) -> list[tuple[Any, Any]]:
    """A mapping's (key, value) nodes as a loader sees them: a plain `<<` key merges the pairs of its map (or
    maps) whose keys are not written before it, as the builder always did."""
    out: list[tuple[Any, Any]] = []
    seen: set[str] = set()
    for k, v in node.value:
        if type(k) is _SCALAR:
            text = key_text(k)
            if text == "<<" and _style(k) is None:
                out.extend(p for p in merged_pairs(v, key_text) if _text_of(p[0], key_text) not in seen)
                continue
            seen.add(text)
        out.append((k, v))
    return out


def _text_of(node: Any, key_text: Callable[[Any], str]) -> str:
    return key_text(node) if type(node) is _SCALAR else ""


def merged_pairs(value: Any, key_text: Callable[[Any], str]) -> list[tuple[Any, Any]]:
    if type(value) is _MAPPING:
        return effective_pairs(value, key_text)
    if type(value) is _SEQUENCE:
        return [p for m in value.value if type(m) is _MAPPING for p in effective_pairs(m, key_text)]
    return []


def node_size(root: Any, sizes: dict[int, int], key_text: Callable[[Any], str]) -> int:
    """Nodes under `root`, aliases expanded (a merged pair counts where it is merged), memoised by node."""
    stack = [(root, False)]
    while stack:
        node, ready = stack.pop()
        if id(node) in sizes:
            continue
        if type(node) is _SCALAR:
            sizes[id(node)] = 1
        elif ready:
            sizes[id(node)] = _collection_size(node, sizes, key_text)
        else:
            stack.append((node, True))
            stack.extend((c, False) for c in _children(node) if id(c) not in sizes)
    return sizes[id(root)]


def _collection_size(node: Any, sizes: dict[int, int], key_text: Callable[[Any], str]) -> int:
    if type(node) is _SEQUENCE:
        return 1 + sum(sizes[id(c)] for c in node.value)
    pairs = effective_pairs(node, key_text)
    missing = [n for p in pairs for n in p if id(n) not in sizes]
    if missing:  # a merged map's children: sized on their own first
        for n in missing:
            node_size(n, sizes, key_text)
    return 1 + sum([sizes[id(k)] + sizes[id(v)] for k, v in pairs])


@record
class YamlProblem:
    message: str
    line: int
    col: int
    severity: str = "error"  # "error" | "info"
    kind: str = ""  # "duplicate" for a repeated key (a loader keeps the last), else ""


@record
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
    index = LineIndex(resolved)  # line starts are found when a position is first asked for
    docs: list[YNode] = []
    templated: Templated | None = None
    line, at = 0, 0  # lines before offset `at`
    for start, chunk in _chunks(resolved):
        limits.check()
        line, at = line + resolved.count("\n", at, start), start
        doc, used = _compose_chunk(path, chunk, start, line, problems)
        if used is not None and templated is None:
            templated = used
            problems.append(YamlProblem(TEMPLATE_NOTE, line + used.first_line, 1, "info"))
        if doc is not None:
            docs.append(doc)
    return YamlFile(path, resolved, index, docs, problems, scan_comments(text), templated)


TEMPLATE_NOTE = ("template file (Helm, Go or Jinja): {{ }} expressions are not YAML; the rest is read with "
                 "them kept as unresolved text")


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
    problems.append(YamlProblem("unresolved git merge-conflict markers: not valid YAML; reading the first side of "
                                "each conflict", first, 1))
    return "\n".join(lines)


def _compose_chunk(path: str, chunk: str, start: int, base_line: int,
                   problems: list[YamlProblem]) -> tuple[YNode | None, Templated | None]:
    """One document; a chunk that is not YAML only because of `{{ }}` is read detemplated."""
    estimate = _node_estimate(chunk)
    if estimate > MAX_COMPOSE:
        problems.append(YamlProblem(f"document too large to read: about {estimate:,} YAML nodes, over the "
                                    f"{MAX_COMPOSE:,} kvlint composes at once (generated data?); not read",
                                    base_line + 1, 1))
        return None, None
    templated = None
    composed = chunk
    node, error = _compose(chunk, base_line)
    if error is None and "{{" in chunk and _placeholder_map(node, chunk):
        error = YamlProblem("a {{ }} placeholder read as a flow mapping", base_line + 1, 1)
    if error is not None and "{{" in chunk:
        templated = detemplate(chunk)
        composed = templated.text
        node, error = _compose(composed, base_line)
    if error is not None and "${" in composed:
        node, error, composed = _without_braced_placeholders(composed, base_line, node, error)
    if error is not None:
        problems.append(error if templated is None else _unreadable_template(error))
        return None, templated
    if node is None:
        return None, templated
    aliases = "*" in composed
    doc = _Doc(path, start, base_line, templated, node, aliases)
    checker = _Checker(doc, problems)
    if not checker.check(aliases=aliases):
        return None, templated
    doc.aliases = checker.shared  # a `*` in a string or a command is no alias: no memo, no reference cycle
    return doc.wrap(node), templated


def _unreadable_template(error: YamlProblem) -> YamlProblem:
    """A template that is not YAML even with its expressions set aside says nothing of the file it renders (a
    Jinja `{{ "}}" }}` or a loop that writes keys, rendered right, is valid YAML): what kvlint could not read, an
    info, never an error against the user's file (kvlint.launches.read then tries the template's statements)."""
    return replace(error, message=f"{UNREADABLE_TEMPLATE} ({error.message}): launches in this document are not read",
                   severity="info")


UNREADABLE_TEMPLATE = "template file not readable as YAML with its expressions set aside"


_MAX_PLACEHOLDER_WALK = 20_000  # nodes looked at for a placeholder composed as a flow mapping
_BRACED = lazy(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
_MAX_UNBRACED_LINES = 16


def _without_braced_placeholders(chunk: str, base_line: int, node: Any,
                                 error: YamlProblem) -> tuple[Any, YamlProblem | None, str]:
    """An envsubst template (`labels: { part-of: ${NAME} }`, sample K88's `lws-ep.yaml-template`): a `${NAME}` in
    a flow mapping opens a brace YAML cannot close. On each line the error is on, the placeholders are written
    `$NAME` and two spaces (same length: every column stays, and a plain scalar drops the spaces) and the
    document composed again, a few lines at most; block scalars (the scripts) keep theirs unless YAML fails
    there."""
    lines = chunk.split("\n")
    for _ in range(_MAX_UNBRACED_LINES):
        k = error.line - base_line - 1
        if not 0 <= k < len(lines) or "${" not in lines[k]:
            break
        lines[k] = _BRACED.sub(lambda m: "$" + m.group(1) + "  ", lines[k])
        chunk = "\n".join(lines)
        found, again = _compose(chunk, base_line)
        if again is None:
            return found, None, chunk
        error = again
    return node, error, chunk


def _placeholder_map(root: Any, chunk: str) -> bool:
    """Whether YAML composed a template placeholder written bare as a flow mapping (`{{ name }}:` as a key,
    `- {{ instance.model }}`, `image: {{ image }}`): valid YAML, wrong meaning, so the chunk is read
    detemplated instead. A placeholder inside a quoted or block scalar is text and does not count."""
    stack, seen = [root], 0
    while stack and seen < _MAX_PLACEHOLDER_WALK:
        node = stack.pop()
        seen += 1
        if isinstance(node, yaml.MappingNode):
            if node.flow_style and chunk.startswith("{{", node.start_mark.index):
                return True
            stack.extend(n for pair in node.value for n in pair)
        elif isinstance(node, yaml.SequenceNode):
            stack.extend(node.value)
    return False


def _node_estimate(chunk: str) -> int:
    """Roughly how many nodes composing `chunk` makes, counted at C speed before PyYAML spends ~6 us on each.

    Every node but a document's first starts at a line break, a comma, a colon or a dash, or opens with a
    bracket; text inside block scalars and strings counts too, so it errs high, never low.
    """
    return sum(chunk.count(c) for c in "\n,:-[{") + 1


def _compose(text: str, base_line: int) -> tuple[Any, YamlProblem | None]:
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


class _Checker:
    """What composing a document must report before any reader sees it: recursive aliases, alias bombs and
    duplicate keys, in the order (and under the caps) the YNode builder always reported them.

    Without an alias (no `*` in the text) a document can neither recurse nor expand past its own node
    count, which the compose estimate already bounds, so only duplicate keys are looked for, in one pass
    over the mappings; the full walk runs only for documents with aliases or duplicates."""

    def __init__(self, doc: _Doc, problems: list[YamlProblem]):
        self.doc, self.problems = doc, problems
        self.duplicates = 0
        # Whether the walk met a node twice (an alias): only then must the document's YNodes be memoised by node.
        # A `*` in the text is usually a glob or a product; the memo would make every YNode of the document part
        # of a reference cycle (node -> document -> memo -> node), the whole composed graph freed only by the
        # cycle collector. Without the walk (no `*`) there is no alias either.
        self.shared = False

    def check(self, *, aliases: bool) -> bool:
        """False when the document cannot be read (the problem says why)."""
        if not aliases and (self.doc.templated is not None or not _has_duplicates(self.doc.root)):
            return True  # templated documents never report duplicates (template branches repeat keys)
        return self._walk()

    def _walk(self) -> bool:
        """The builder's traversal (depth first, children last to first, a node once), node sizes included."""
        sizes = self.doc.sizes
        open_: set[int] = set()
        stack = [(self.doc.root, False)]
        steps = 0
        while stack:
            steps += 1
            if not steps & 1023:
                limits.check()
            node, ready = stack.pop()
            key = id(node)
            if ready:
                open_.discard(key)
                if not self._finish(node):
                    return False
                continue
            if key in sizes:
                self.shared = True
                continue
            if type(node) is _SCALAR:
                sizes[key] = 1
                continue
            open_.add(key)
            stack.append((node, True))
            for child in _children(node):
                ck = id(child)
                if ck in sizes:
                    self.shared = True
                    continue
                if ck in open_:
                    return self._fail(child, "recursive alias (a node contains itself)")
                if type(child) is _SCALAR:
                    sizes[ck] = 1
                else:
                    stack.append((child, False))
        return True

    def _finish(self, node: Any) -> bool:
        if type(node) is _MAPPING:
            self._report_duplicates(node)
        size = _collection_size(node, self.doc.sizes, self.doc.key_text)
        if size > MAX_NODES:
            self._fail(node, f"document expands to over {MAX_NODES} nodes (alias bomb?); not read")
            return False
        self.doc.sizes[id(node)] = size
        return True

    def _report_duplicates(self, node: Any) -> None:
        if self.doc.templated is not None:  # template branches repeat keys
            return
        seen: dict[str, tuple[int, Any]] = {}
        restart = self._restart(node) if node is self.doc.root else None
        for k, v in node.value:
            if type(k) is not _SCALAR:
                continue
            text = self.doc.key_text(k)
            if text == "<<" and _style(k) is None:
                continue
            line = k.start_mark.line + 1 + self.doc.base_line
            if text in seen and restart is not None and line >= restart:
                seen[text] = (line, v)  # said once, as the missing separator (_restart)
                continue
            if text in seen:
                first, before = seen[text]
                same = type(v) is _SCALAR and type(before) is _SCALAR and v.value == before.value
                self._duplicate(text, line, k.start_mark.column + 1, first, same)
            seen[text] = (line, v)

    def _restart(self, root: Any) -> int | None:
        """The line where the document's first key comes again at the top level (turn 47's K487: a Deployment, then
        `apiVersion: v1` / `kind: Service` with no `---` between): a second document written without its separator.
        Said once there, naming the keys it repeats, not once per key; None when the first key is not repeated, or the
        keys repeated are one or all scalars (leftovers of a flat map, said key by key)."""
        keys = [k for k, _ in root.value if type(k) is _SCALAR]
        if len(keys) < 2:
            return None
        first = self.doc.key_text(keys[0])
        again = next((k for k in keys[1:] if self.doc.key_text(k) == first), None)
        if again is None:
            return None
        line = again.start_mark.line + 1 + self.doc.base_line
        before = {self.doc.key_text(k) for k in keys if k.start_mark.line + 1 + self.doc.base_line < line}
        later = [(self.doc.key_text(k), v) for k, v in root.value
                 if type(k) is _SCALAR and k.start_mark.line + 1 + self.doc.base_line >= line]
        repeated = list(dict.fromkeys(t for t, _ in later if t in before))
        if len(repeated) < 2 or all(type(v) is _SCALAR for t, v in later if t in before):
            return None  # leftover keys of a flat map (a registry's `a: 1` again), said key by key
        self.duplicates += 1
        self.problems.append(YamlProblem(
            f"a second document starts here without a `---` separator: its keys ({', '.join(repeated)}) repeat the "
            "first document's, so docker compose, kubectl and Helm (Go YAML parsers) reject the file; a tool that "
            f"accepts it keeps the second and loses the first (add `---` before line {line})",
            line, again.start_mark.column + 1, severity="error", kind="duplicate"))
        return line

    def _fail(self, node: Any, message: str) -> bool:
        mark = node.start_mark
        self.problems.append(YamlProblem(message, mark.line + 1 + self.doc.base_line, mark.column + 1))
        return False

    def _duplicate(self, text: str, line: int, col: int, first: int, same: bool = False) -> None:
        """One finding per duplicate up to a cap: a generated file can repeat a key a million times. A key repeated
        with the value it already had changes nothing (an info: a leftover to remove); another value is lost."""
        self.duplicates += 1
        if self.duplicates <= MAX_DUPLICATE_REPORTS:
            lost = (": docker compose, kubectl and Helm (Go YAML parsers) reject the file; a tool that accepts it "
                    "keeps this value and loses the first")
            said = (f"duplicate key {text!r} (first at line {first}) repeats the same value: nothing changes, one "
                    "can go" if same else f"duplicate key {text!r} (first at line {first}){lost}")
            self.problems.append(YamlProblem(said, line, col, severity="info" if same else "error", kind="duplicate"))
        elif self.duplicates == MAX_DUPLICATE_REPORTS + 1:
            self.problems.append(YamlProblem(f"more duplicate keys after this one; only the first "
                                             f"{MAX_DUPLICATE_REPORTS} are reported", line, col, kind="duplicate"))


def _has_duplicates(root: Any) -> bool:
    """Whether any mapping of an alias-free document repeats a key (a plain `<<` merge key aside)."""
    stack = [root]
    steps = 0
    while stack:
        steps += 1
        if not steps & 1023:
            limits.check()
        node = stack.pop()
        if type(node) is _MAPPING:
            keys = [k.value for k, _ in node.value if type(k) is _SCALAR]
            if len(set(keys)) != len(keys) and _repeats([k for k, _ in node.value if type(k) is _SCALAR]):
                return True
            stack.extend([n for pair in node.value for n in pair if type(n) is not _SCALAR])
        elif type(node) is _SEQUENCE:
            stack.extend([n for n in node.value if type(n) is not _SCALAR])
    return False


def _repeats(keys: list[Any]) -> bool:
    """A repeated key other than plain `<<` (merge keys may repeat)."""
    texts = [k.value for k in keys if not (k.value == "<<" and _style(k) is None)]
    return len(set(texts)) != len(texts)


def _children(node: Any) -> list[Any]:
    if type(node) is _SEQUENCE:
        return list(node.value)
    if type(node) is _MAPPING:
        return [n for pair in node.value for n in pair]
    return []
