"""Expanding words with the variables a reader can know: container env, script assignments,
compose/SkyPilot envs and `${VAR:-default}` defaults. Anything else stays as its expression.

An unresolved value is never guessed: the field keeps the raw expression and `resolved=False`,
and the inspect output says which variable was missing.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from kvlint import limits
from kvlint.sources.shell import Part, Word
from kvlint.sources.text import Mapped
from kvlint.span import Span, Token

_K8S_REF = re.compile(r"\$\$|\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)")
_ARITH_OK = re.compile(r"^[\d\s+\-*/%()]+$")
_IDENT = re.compile(r"\$?\{?([A-Za-z_][A-Za-z0-9_]*)\}?")


@dataclass(frozen=True)
class Field:
    """One argv word after expansion, with its source span and what stayed unresolved."""

    text: str
    span: Span | None
    resolved: bool = True
    missing: tuple[str, ...] = ()  # expressions that could not be expanded
    offsets: tuple[int, ...] = field(default=(), compare=False, repr=False)  # per char, into `source`
    source: Mapped | None = field(default=None, compare=False, repr=False)
    origin: str = field(default="", compare=False)  # "default-expansion" | "variable" when text came from $VAR


    def token(self) -> Token:
        return Token(self.text, self.span)

    def mapped(self) -> Mapped:
        """This field's text as new shell input (eval, sh -c), each char still at its file position."""
        if self.source is None or len(self.offsets) != len(self.text):
            pos = ((self.span.line, self.span.col),) * (len(self.text) + 1) if self.span else ()
            return Mapped(self.span.path if self.span else "", self.text, pos)
        if not self.offsets:
            end = (self.span.line, self.span.col) if self.span else (1, 1)
            return Mapped(self.span.path if self.span else "", self.text, (end,))
        # positions looked up when asked: a (line, col) pair per character cost ~100 bytes each
        return self.source.view(self.span.path if self.span else "", self.text, self.offsets + (self.offsets[-1] + 1,))


def expand_k8s(text: str, env: Mapping[str, str]) -> tuple[str, tuple[str, ...]]:
    """Kubernetes `$(VAR)` in command/args: replaced when VAR is in the container env."""
    missing: list[str] = []

    def sub(m: re.Match) -> str:
        if m.group(0) == "$$":
            return "$"
        name = m.group(1)
        if name in env:
            limits.spend(len(env[name]))  # `$(A)$(A)` per env entry doubles: bounded per file
            return env[name]
        missing.append(m.group(0))
        return m.group(0)

    return _K8S_REF.sub(sub, text), tuple(missing)


def expand_word(word: Word, m: Mapped, env: Mapping[str, str]) -> list[Field]:
    # text, offsets, splittable, quoted, missing, extent (start, end) of an expansion, origin
    segs: list[tuple] = []
    for part in word.parts:
        segs.extend(_expand_part(part, m, env))
    fields = _split_fields(segs, m)
    if len(fields) == 1 and any(p.kind != "lit" for p in word.parts) and word.end > word.start:
        # a value that came from an expansion points at the whole expression as written, quotes included
        fields = [replace(fields[0], span=m.span(word.start, word.end))]
    return fields


def _expand_part(part: Part, m: Mapped, env: Mapping[str, str]) -> list:
    if part.kind == "lit":
        return [(part.text, list(part.offsets), False, part.quoted, None, None, "")]
    start, end = part.offsets if len(part.offsets) == 2 else (0, 0)
    raw = m.text[start:end]
    value = _value_of(part, m, env)
    if value is None:
        return [(raw, [start] * len(raw), False, True, raw, (start, end), "")]
    text, missing = value
    limits.spend(len(text))  # `A=$A$A` per line doubles: bounded per file
    return [(text, [start] * len(text), not part.quoted, part.quoted, missing, (start, end), _origin_of(part, env))]


def _origin_of(part: Part, env: Mapping[str, str]) -> str:
    """Where an expanded value came from, for Setting.origin: a `${X:-d}` default or X's definition."""
    if part.kind != "var":
        return "variable" if part.kind == "cmd" and part.text.strip() in env else ""
    val = env.get(part.text)
    defaulted = part.op in (":-", ":=") and not val or part.op in ("-", "=") and val is None
    return "default-expansion" if defaulted else "variable"


def _value_of(part: Part, m: Mapped, env: Mapping[str, str]) -> tuple[str, str | None] | None:
    if part.kind == "var":
        return _var_value(part, m, env)
    if part.kind == "cmd" and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", part.text.strip()):
        name = part.text.strip()  # Kubernetes $(VAR) reaching a shell string
        return (env[name], None) if name in env else None
    if part.kind == "arith":
        result = eval_arith(part.text, env)
        return None if result is None else (str(result), None)
    return None


def _var_value(part: Part, m: Mapped, env: Mapping[str, str]) -> tuple[str, str | None] | None:
    """${VAR}, ${VAR:-d}, ${VAR-d}, ${VAR:+alt}; a variable not known here counts as unset, except
    that an empty default (`${VAR-}`) stays unresolved: it marks a value the environment supplies."""
    val = env.get(part.text)
    op = part.op
    use_default = op in (":-", ":=") and not val or op in ("-", "=") and val is None
    use_alt = op == ":+" and bool(val) or op == "+" and val is not None
    if use_default or use_alt:
        fields = _split_fields([s for d in part.default for s in _expand_part(d, m, env)], m, keep_empty=True)
        if any(not f.resolved for f in fields):
            return None
        text = " ".join(f.text for f in fields)
        if use_default and val is None and not text:
            return None  # `${X-}` on a variable this file never sets: its value comes at run time
        return text, None
    if op in (":+", "+"):
        return "", None
    return None if val is None else (val, None)


def eval_arith(expr: str, env: Mapping[str, str]) -> int | None:
    """Shell arithmetic on known integers only (`$((A * B))`); None when anything is unknown.

    Walks the expression's syntax tree instead of evaluating it: only integers, + - * / % and
    parentheses are accepted, with shell semantics (integer division truncating toward zero).
    """

    def sub(mm: re.Match) -> str:
        v = env.get(mm.group(1))
        return v.strip() if v is not None and v.strip().lstrip("-").isdigit() else "\x00"

    text = _IDENT.sub(sub, expr)
    if "\x00" in text or not _ARITH_OK.match(text) or "**" in text or len(text) > 200:
        return None
    try:
        return _arith(ast.parse(text.strip(), mode="eval").body)
    except (ArithmeticError, SyntaxError, ValueError, RecursionError):
        return None


def _tdiv(a: int, b: int) -> int:
    """Integer division truncating toward zero, as the shell does (Python's // floors)."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


_BINOPS = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b,
           ast.Div: _tdiv, ast.Mod: lambda a, b: a - b * _tdiv(a, b)}


def _arith(node: ast.AST) -> int:
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        value = _arith(node.operand)
        return -value if isinstance(node.op, ast.USub) else value
    if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
        left, right = _arith(node.left), _arith(node.right)
        if isinstance(node.op, (ast.Div, ast.Mod)) and right == 0:
            raise ZeroDivisionError
        if isinstance(node.op, ast.Mult) and abs(left) > 2**63 // max(1, abs(right)):
            raise OverflowError
        return _BINOPS[type(node.op)](left, right)
    raise ValueError("not shell arithmetic")


def _split_fields(segs: list, m: Mapped, keep_empty: bool = False) -> list[Field]:
    fields: list[Field] = []
    chars: list[str] = []
    offs: list[int] = []
    ends: list[int] = []  # exclusive end of the source each char came from (a whole $VAR for an expansion)
    missing: list[str] = []
    origins: list[str] = []
    quoted = False

    def close() -> None:
        nonlocal quoted
        if chars or quoted or keep_empty:
            span = m.span(min(offs), max(ends)) if offs else None
            origin = "default-expansion" if "default-expansion" in origins else origins[0] if origins else ""
            fields.append(Field("".join(chars), span, not missing, tuple(missing), tuple(offs), m, origin))
        chars.clear()
        offs.clear()
        ends.clear()
        missing.clear()
        origins.clear()
        quoted = False

    for text, offsets, splittable, is_quoted, miss, extent, origin in segs:
        quoted = quoted or is_quoted
        if miss:
            missing.append(miss)
        limits.check()
        if not splittable:  # nothing to split on: the whole text at once (a 5 MiB word is one C-speed step)
            n = min(len(text), len(offsets))
            if n:
                chars.append(text[:n])
                offs.extend(offsets[:n])
                ends.append(extent[1] if extent else max(offsets[:n]) + 1)
                if origin and origin not in origins:
                    origins.append(origin)
            if not text and offsets == [] and is_quoted:
                quoted = True
            continue
        for ch, off in zip(text, offsets, strict=False):
            if splittable and ch in " \t\n":
                if chars:
                    close()
                continue
            chars.append(ch)
            offs.append(off)
            ends.append(extent[1] if extent else off + 1)
            if origin and origin not in origins:
                origins.append(origin)
        if not text and offsets == [] and is_quoted:
            quoted = True
    close()
    return fields
