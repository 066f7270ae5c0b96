"""Nix attribute sets as the mappings the structured readers walk (a NixOS host's `services.vllm.instances.qwen =
{ model = "org/m"; maxModelLen = 8192; }` beside `image = "vllm/vllm-openai:latest"`).

A NixOS configuration keeps a deployment's settings as an attribute set, the way a chart's values keep them in
YAML: keys spelled like the engine's flags (`maxModelLen`, `gpuMemoryUtilization`) under a model, an image beside
them, one entry per instance. This module reads the attribute sets of a Nix file into `YNode` maps, each key and
value at its place, so the readers that take a chart's values (kvlint.launches.charts.unknown) take these too: no
Nix evaluation, only the literal structure. A value that is an expression (`cfg.model`, `lib.mkIf cond { ... }`)
is the attribute set or literal it ends in when it holds one (`mkIf`'s body, `mkDefault "x"`), else a plain value
of its text, left unresolved as any other reference. Function headers (`{ config, lib, ... }:`), `let ... in`,
`with x;` and `inherit` are passed over. Bounded: MAX_TOKENS tokens, MAX_DEPTH levels.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from kvlint import limits
from kvlint.lazyre import lazy
from kvlint.sources.text import LineIndex
from kvlint.sources.yaml import YamlFile, YNode
from kvlint.span import Span

MAX_TOKENS = 100_000
MAX_DEPTH = 32

_TOKEN = lazy(r"""#[^\n]*|/\*.*?\*/|"(?:[^"\\]|\\.)*"|''(?:[^']|'(?!'))*''"""
              r"""|[A-Za-z_][\w'-]*(?:\.(?:[A-Za-z_][\w'-]*|"[^"\n]*"))*|-?\d+(?:\.\d+)?|\.\.\.|[{}\[\]();=:,@?]|\S""",
              re.DOTALL)
_STR = "tag:yaml.org,2002:str"
_TAGS = {bool: "tag:yaml.org,2002:bool", int: "tag:yaml.org,2002:int", float: "tag:yaml.org,2002:float",
         type(None): "tag:yaml.org,2002:null"}
_LITERALS = {"true": True, "false": False, "null": None}


@dataclass
class _Tok:
    text: str
    start: int
    end: int


@dataclass
class _Map:
    """An attribute set being built: key -> (key token, value), in the order written; nested paths merge."""

    start: int
    end: int = 0
    keys: dict[str, tuple[_Tok, object]] = field(default_factory=dict)


def read_attrsets(path: str, text: str) -> YamlFile | None:
    """The file's outermost attribute set as a one-document YamlFile (None when it holds none)."""
    toks = [_Tok(m.group(), m.start(), m.end()) for k, m in enumerate(_TOKEN.finditer(text))
            if k < MAX_TOKENS and not m.group().startswith(("#", "/*"))]
    parser = _Parser(toks)
    root = parser.value(0, 0)[0]
    if not isinstance(root, _Map):
        return None
    index = LineIndex(text)
    return YamlFile(path, text, index, docs=[_node(root, path, index)])


class _Parser:
    def __init__(self, toks: list[_Tok]) -> None:
        self.toks = toks
        self.closes = _pairs(toks)

    def at(self, i: int) -> str:
        return self.toks[i].text if i < len(self.toks) else ""

    def value(self, i: int, depth: int) -> tuple[object, int]:
        """The value that starts at token i and where it ends (at its `;`, `]` or `}`, not past it)."""
        if depth > MAX_DEPTH:
            return None, self._skip(i)
        found: object = None
        while i < len(self.toks) and self.at(i) not in (";", "]", "}", ")", "in"):
            limits.check()
            word = self.at(i)
            if word in ("let",):
                i = self._bindings(i + 1, _Map(self.toks[i].start), depth, until="in")[1] + 1
            elif word == "with" or word == "assert":
                i = self._skip(i + 1) + 1  # `with pkgs;`: a scope, not a value
            elif word == "{":
                got, i = self._set(i, depth)
                found = got if isinstance(got, _Map) else found
            elif word == "[":
                found, i = self._list(i, depth)
            elif word == "(":
                inner, i = self.value(i + 1, depth + 1)
                found = inner if inner is not None else found
                i += 1 if self.at(i) == ")" else 0
            elif word == ":":
                found = None  # `args: body`: what came before was the function's header
                i += 1
            elif word[0] in "\"'" or word[0].isdigit() or word[0] == "-" and word[1:2].isdigit():
                found, i = self.toks[i], i + 1
            else:
                found, i = (self.toks[i] if found is None or not isinstance(found, _Map) else found), i + 1
        return found, i

    def _set(self, i: int, depth: int) -> tuple[object, int]:
        """An attribute set `{ a = 1; b.c = "x"; }` (i at its `{`), or a function's header (`{ config, ... }`),
        passed over; returns the index after its `}`."""
        close = self._closing(i)
        if any(self.at(k) in (",", "...", "?") for k in range(i + 1, close)) and "=" not in self._top(i + 1, close):
            return None, close + 1
        built, end = self._bindings(i + 1, _Map(self.toks[i].start), depth, until="}")
        built.end = self.toks[end].end if end < len(self.toks) else built.start
        return built, end + 1

    def _bindings(self, i: int, into: _Map, depth: int, until: str) -> tuple[_Map, int]:
        while i < len(self.toks) and self.at(i) != until:
            if self.at(i) in ("}", "]", ")"):
                break  # the block closed before `until` (a `let` in a list, a stray bracket): nothing more here
            if self.at(i) == "inherit" or self.at(i + 1) != "=":
                i = max(self._skip(i) + 1, i + 1)  # always a step forward
                continue
            key = self.toks[i]
            val, i = self.value(i + 2, depth + 1)
            _put(into, key, val)
            i += 1 if self.at(i) == ";" else 0
        return into, i

    def _list(self, i: int, depth: int) -> tuple[object, int]:
        items: list[object] = []
        close = self._closing(i)
        k = i + 1
        while k < close:
            word = self.at(k)
            if word in ("{", "[", "("):
                val, k = self.value(k, depth + 1) if word == "(" else \
                    (self._set(k, depth + 1) if word == "{" else self._list(k, depth + 1))
                items.append(val)
                continue
            items.append(self.toks[k])
            k += 1
        return _Seq(self.toks[i].start, self.toks[close].end if close < len(self.toks) else 0, items), close + 1

    def _closing(self, i: int) -> int:
        """The index of the bracket that closes the one at i (the last token when none does)."""
        return self.closes.get(i, len(self.toks) - 1)

    def _top(self, i: int, close: int) -> list[str]:
        out, depth = [], 0
        for k in range(i, close):
            word = self.at(k)
            depth += word in ("{", "[", "(")
            depth -= word in ("}", "]", ")")
            if depth == 0:
                out.append(word)
        return out

    def _skip(self, i: int) -> int:
        """The index of the `;` that ends the statement at i (or the bracket that closes its block)."""
        depth = 0
        for k in range(i, len(self.toks)):
            word = self.at(k)
            if word in ("{", "[", "("):
                depth += 1
            elif word in ("}", "]", ")"):
                if depth == 0:
                    return k - 1
                depth -= 1
            elif word == ";" and depth == 0:
                return k
        return len(self.toks)


def _pairs(toks: list[_Tok]) -> dict[int, int]:
    """Each opening bracket's index -> its closing bracket's, in one pass (an unclosed one has none)."""
    out: dict[int, int] = {}
    stack: list[int] = []
    for k, tok in enumerate(toks):
        if tok.text in ("{", "[", "("):
            stack.append(k)
        elif tok.text in ("}", "]", ")") and stack:
            out[stack.pop()] = k
    return out


@dataclass
class _Seq:
    start: int
    end: int
    items: list[object]


def _put(into: _Map, key: _Tok, val: object) -> None:
    """`a.b.c = v`: nested sets, merged with those an earlier binding made."""
    parts = _path(key.text)
    node, offset = into, key.start
    for part in parts[:-1]:
        current = node.keys.get(part)
        inner = current[1] if current is not None else None
        if not isinstance(inner, _Map):
            inner = _Map(offset, key.end)
            node.keys[part] = (_Tok(part, offset, offset + len(part)), inner)
        node = inner
        offset += len(part) + 1
    last = parts[-1]
    here = _Tok(last, offset, offset + len(last))
    earlier = node.keys[last][1] if last in node.keys else None
    if isinstance(val, _Map) and isinstance(earlier, _Map):
        earlier.keys.update(val.keys)
        return
    node.keys[last] = (here, val)


def _path(text: str) -> list[str]:
    return [p.strip('"') for p in re.findall(r'"[^"]*"|[^.]+', text)]


def _node(val: object, path: str, index: LineIndex) -> YNode:
    if isinstance(val, _Map):
        items = tuple((_scalar(k.text, k.start, k.end, None, path, index), _node(v, path, index))
                      for k, v in val.keys.values())
        return YNode("map", _span(path, index, val.start, max(val.end, val.start + 1)), val.start, val.end,
                     items=items, tag="tag:yaml.org,2002:map")
    if isinstance(val, _Seq):
        elements = tuple(_node(v, path, index) for v in val.items)
        return YNode("seq", _span(path, index, val.start, max(val.end, val.start + 1)), val.start, val.end,
                     items=elements, tag="tag:yaml.org,2002:seq")
    if isinstance(val, _Tok):
        word = val.text
        if word.startswith('"'):
            body = bytes(word[1:-1], "utf-8").decode("unicode_escape", "replace") if "\\" in word else word[1:-1]
            return _scalar(body, val.start, val.end, '"', path, index)
        if word.startswith("''"):
            return _scalar(word[2:-2], val.start, val.end, "'", path, index)
        return _scalar(word, val.start, val.end, None, path, index)
    return _scalar("", 0, 0, None, path, index, null=True)


def _scalar(text: str, start: int, end: int, style: str | None, path: str, index: LineIndex,
            null: bool = False) -> YNode:
    value: object = text
    if null:
        value = None
    elif style is None and text in _LITERALS:
        value = _LITERALS[text]
    elif style is None and re.fullmatch(r"-?\d+", text):
        value = int(text)
    elif style is None and re.fullmatch(r"-?\d+\.\d+", text):
        value = float(text)
    tag = _TAGS.get(type(value), _STR) if not isinstance(value, str) else _STR
    return YNode("scalar", _span(path, index, start, max(end, start + 1)), start, end, value=value, text=text,
                 style=style, tag=tag)


def _span(path: str, index: LineIndex, start: int, end: int) -> Span:
    line, col = index.locate(start)
    end_line, end_col = index.locate(end)
    return Span(path, line, col, end_line, end_col)
