"""Argv tokens with spans for the flag and launch tests, as a shell reader would hand them over."""

from __future__ import annotations

from kvlint.span import Span, Token


def toks(line: str, path: str = "f.sh") -> list[Token]:
    """Whitespace-split tokens with 1-based columns on line 1 (no quoting in these fixtures)."""
    out, col = [], 1
    for word in line.split(" "):
        if word:
            out.append(Token(word, Span(path, 1, col, 1, col + len(word))))
        col += len(word) + 1
    return out
