"""Where each character of a YAML scalar's parsed value sits in the raw file.

Block, folded and multi-line quoted scalars do not map to a contiguous slice, so characters are
matched greedily through the raw text (line breaks and spaces match each other, since folding
turns one into the other). A shell word inside `args: - |` then points at its own line.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kvlint import limits
from kvlint.sources.text import Mapped, Runs

if TYPE_CHECKING:
    from kvlint.sources.yaml import YamlFile, YNode

_WS = " \t\n"


def scalar_mapped(src: YamlFile, node: YNode) -> Mapped:
    raw = src.text[node.start : node.end]
    value = node.text
    j = _body_start(raw, node.style)
    runs = Runs()  # file offset of each value character, as runs (a plain scalar is one)
    last = node.start + j
    i = 0
    while i < len(value):
        if i & 0xFFF == 0:
            limits.check()
        same = _common(value, i, raw, j)
        if same:  # a stretch the value shares with the raw text: one step at C speed
            runs.add(node.start + j, same)
            last = node.start + j + same - 1
            i, j = i + same, j + same
            continue
        k = _find(raw, j, value[i])
        if k is None:
            runs.add(last)  # folded or escaped: the character stays on the last matched one
        else:
            runs.add(node.start + k)
            last, j = node.start + k, k + 1
        i += 1
    runs.add(min(node.start + len(raw), (last + 1) if value else node.start + j))
    return Mapped(node.span.path, value, index=src.index, offsets=runs)


def _common(a: str, i: int, b: str, j: int) -> int:
    """Length of the common prefix of a[i:] and b[j:], by slice comparisons of growing, then shrinking, length."""
    top = min(len(a) - i, len(b) - j)
    if top <= 0 or a[i] != b[j]:
        return 0
    good, step = 1, 1
    while good < top:
        m = min(good + step, top)
        if a[i + good : i + m] == b[j + good : j + m]:
            good, step = m, step * 2
        elif step == 1:
            break
        else:
            step //= 2
    return good


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
