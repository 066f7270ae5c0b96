"""Text rewritten for a reader with every kept character's offset in the original: `Make's $(VAR)` read as the
shell's `${VAR}`, Just's `{{name}}` as `${name}`, PowerShell's `$env:NAME` as `$NAME`. The result goes to
`run_script` as a `Mapped` whose positions are looked up in the original file, so a launch's values keep
their line and column however much the text around them changed length."""

from __future__ import annotations

from collections.abc import Callable
from re import Match, Pattern

from kvlint.sources.text import LineIndex, Mapped


def substitute(text: str, pattern: Pattern[str], repl: Callable[[Match[str]], str]) -> tuple[str, list[int]]:
    """`pattern.sub(repl, text)` and, per character of the result, its offset in `text` (a replacement's
    characters all sit at the start of what they replace); one more offset for the end."""
    out: list[str] = []
    offsets: list[int] = []
    last = 0
    for m in pattern.finditer(text):
        out.append(text[last : m.start()])
        offsets.extend(range(last, m.start()))
        new = repl(m)
        out.append(new)
        offsets.extend([m.start()] * len(new))
        last = m.end()
    out.append(text[last:])
    offsets.extend(range(last, len(text) + 1))
    return "".join(out), offsets


def mapped(path: str, original: str, text: str, offsets: list[int]) -> Mapped:
    """`text` (rewritten from `original` by `substitute`) with its characters at their places in `original`."""
    return Mapped(path, text, index=LineIndex(original), offsets=offsets)
