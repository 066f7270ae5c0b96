"""Helm / Go template expressions made harmless for the YAML composer, without moving any column.

`{{ ... }}` is not YAML. Lines made only of template actions are blanked; inline expressions are
swapped for same-length placeholders, restored in scalar text afterwards, so values still read as
the unresolved expression and every span stays exact.
"""

from __future__ import annotations

from kvlint.lazyre import lazy
from kvlint.record import field, record

_OPEN = "\u27e6"  # a placeholder's first character: nothing YAML or a shell gives means it
_PLACEHOLDER = lazy(r"\u27e6[0-9a-z_]*\u27e7")


def has_placeholder(text: str) -> bool:
    """Whether `text` holds a neutralised template expression (read as unresolved by every reader)."""
    return _OPEN in text


@record
class Templated:
    text: str
    count: int = 0
    first_line: int = 1
    table: dict[str, str] = field(default_factory=dict)

    def restore(self, text: str) -> str:
        if not has_placeholder(text):
            return text
        return _PLACEHOLDER.sub(lambda m: self.table.get(m.group(0), m.group(0)), text)


def detemplate(text: str) -> Templated:
    if "{{" not in text:
        return Templated(text)
    table: dict[str, str] = {}
    lines = text.split("\n")
    first = 0
    for i, line in enumerate(lines):
        if "{{" not in line:
            continue
        first = first or i + 1
        found = expressions(line)
        if found and _only_actions(line, found):
            lines[i] = " " * len(line)
        elif found:
            lines[i] = _swap(line, found, table)
    if not first:
        return Templated(text)
    return Templated("\n".join(lines), len(table) or 1, first, table)


def expressions(line: str) -> list[tuple[int, int]]:
    """(start, end) of each `{{ ... }}` in a line, left to right, each closed by the first `}}` after it opens.

    One forward pass of str.find: once no `}}` follows, none follows any later `{{` either, so a line of
    a million `{` costs one scan (the non-greedy regex this replaces rescanned the rest from every brace).
    """
    out: list[tuple[int, int]] = []
    pos = line.find("{{")
    while pos >= 0:
        close = line.find("}}", pos + 2)
        if close < 0:
            break
        out.append((pos, close + 2))
        pos = line.find("{{", close + 2)
    return out


def _only_actions(line: str, found: list[tuple[int, int]]) -> bool:
    """Nothing but template actions and blanks on the line (`{{- if .Values.x }}`)."""
    ends = [0] + [e for _, e in found]
    starts = [s for s, _ in found] + [len(line)]
    return all(not line[a:b].strip() for a, b in zip(ends, starts, strict=True))


def _swap(line: str, found: list[tuple[int, int]], table: dict[str, str]) -> str:
    pieces, last = [], 0
    for start, end in found:
        pieces += [line[last:start], _placeholder(line[start:end], table)]
        last = end
    return "".join(pieces) + line[last:]


def _placeholder(expr: str, table: dict[str, str]) -> str:
    n = len(table)
    ident = ""
    while True:
        n, r = divmod(n, 36)
        ident += "0123456789abcdefghijklmnopqrstuvwxyz"[r]
        if not n:
            break
    body = ident.ljust(len(expr) - 2, "_")
    key = "\u27e6" + body + "\u27e7"
    table[key] = expr
    return key
