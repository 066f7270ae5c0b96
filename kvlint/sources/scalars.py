"""Where each character of a YAML scalar's parsed value sits in the raw file.

Block, folded and multi-line quoted scalars do not map to a contiguous slice, so characters are
matched greedily through the raw text (line breaks and spaces match each other, since folding
turns one into the other). A shell word inside `args: - |` then points at its own line.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kvlint.sources.text import Mapped

if TYPE_CHECKING:
    from kvlint.sources.yaml import YamlFile, YNode

_WS = " \t\n"


def scalar_mapped(src: YamlFile, node: YNode) -> Mapped:
    raw = src.text[node.start : node.end]
    value = node.text
    j = _body_start(raw, node.style)
    offsets: list[int] = []
    for ch in value:
        k = _find(raw, j, ch)
        if k is None:
            offsets.append(offsets[-1] if offsets else j)
            continue
        offsets.append(k)
        j = k + 1
    offsets.append(min(len(raw), (offsets[-1] + 1) if offsets else j))
    pos = tuple(src.index.locate(node.start + o) for o in offsets)
    return Mapped(node.span.path, value, pos)


def _body_start(raw: str, style: str | None) -> int:
    if style in ("|", ">"):
        nl = raw.find("\n")
        return nl + 1 if nl >= 0 else len(raw)
    if style in ("'", '"'):
        return 1
    return 0


def _find(raw: str, j: int, ch: str) -> int | None:
    """Next raw position for value char `ch`; stops early at a non-matching non-space char."""
    n = len(raw)
    if ch in _WS:
        while j < n:
            if raw[j] in _WS:
                return j
            if raw[j] == "\\":  # escaped line break or \n, \t in double quotes
                return j
            j += 1
        return None
    while j < n:
        c = raw[j]
        if c == ch:
            return j
        if c in _WS or c in "'\"\\":
            j += 1
            continue
        return None
    return None
