"""Span arithmetic on argv tokens, so a setting points at its value and a launch at its entry point.

Launch detection and the flag parser both narrow or widen token spans; keeping the one rule here
means `--flag=value` and `vllm serve` are located the same way everywhere.
"""

from __future__ import annotations

from kvlint.span import Span, Token


def join_spans(first: Span | None, last: Span | None) -> Span | None:
    """From the start of `first` to the end of `last` when both sit in one file, else `first`."""
    if first is None or last is None or first.path != last.path:
        return first
    return Span(first.path, first.line, first.col, last.end_line, last.end_col)


def sub_span(tok: Token, offset: int, text: str) -> Span | None:
    """The span of `text` inside a token (for `--flag=value`) when the token was written without quotes."""
    s = tok.span
    if s is None or s.line != s.end_line or s.end_col - s.col != len(tok.text):
        return s
    return Span(s.path, s.line, s.col + offset, s.line, s.col + offset + len(text))
