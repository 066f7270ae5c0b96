"""Helm / Go template expressions made harmless for the YAML composer, without moving any column.

`{{ ... }}` is not YAML. Lines made only of template actions are blanked; inline expressions are
swapped for same-length placeholders, restored in scalar text afterwards, so values still read as
the unresolved expression and every span stays exact.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_EXPR = re.compile(r"\{\{.*?\}\}")
_ONLY_ACTIONS = re.compile(r"^\s*(?:\{\{.*?\}\}\s*)+$")
_PLACEHOLDER = re.compile(r"\u27e6[0-9a-z_]*\u27e7")


@dataclass(frozen=True)
class Templated:
    text: str
    count: int = 0
    first_line: int = 1
    table: dict[str, str] = field(default_factory=dict)

    def restore(self, text: str) -> str:
        if "\u27e6" not in text:
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
        if _ONLY_ACTIONS.match(line):
            lines[i] = " " * len(line)
        else:
            lines[i] = _EXPR.sub(lambda m: _placeholder(m.group(0), table), line)
    if not first:
        return Templated(text)
    return Templated("\n".join(lines), len(table) or 1, first, table)


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
