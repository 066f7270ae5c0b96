"""Read the Python reprs engines print for their arguments, without ever executing them.

vLLM logs `non-default args: {...}` (a dict repr) or `args: Namespace(k=v, ...)`; SGLang logs
`server_args=ServerArgs(k=v, ...)`. Issue threads elide parts with `...` and long lines get cut, so
a strict literal_eval would lose everything over one odd value; we split at top-level commas and
evaluate each value alone, keeping the raw text for values that are not literals.
"""

from __future__ import annotations

import ast
from typing import Any

_OPEN = {"(": ")", "[": "]", "{": "}"}


def _split_top(text: str, sep: str = ",") -> list[str]:
    """Split at `sep` outside quotes and brackets (an unclosed tail is kept as the last item)."""
    items, depth, quote, start, i = [], 0, "", 0, 0
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == "\\":
                i += 1
            elif ch == quote:
                quote = ""
        elif ch in "'\"":
            quote = ch
        elif ch in _OPEN:
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == sep and depth == 0:
            items.append(text[start:i])
            start = i + 1
        i += 1
    items.append(text[start:])
    return [item.strip() for item in items if item.strip()]


def _value(raw: str) -> Any:
    try:
        return ast.literal_eval(raw)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return raw


def _strip_wrapper(text: str, opener: str, closer: str) -> str:
    text = text.strip()
    if text.startswith(opener):
        text = text[1:]
    if text.endswith(closer):
        text = text[:-1]
    return text


def parse_dict_repr(text: str) -> dict[str, Any]:
    """`{'model': 'x', 'max_model_len': 8192}` -> dict; tolerant of cut-off and odd values."""
    try:
        value = ast.literal_eval(text.strip())
        if isinstance(value, dict):
            return {str(k): v for k, v in value.items()}
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        pass
    out: dict[str, Any] = {}
    for item in _split_top(_strip_wrapper(text, "{", "}")):
        key, sep, raw = item.partition(":")
        if not sep:
            continue
        key = _value(key.strip())
        if isinstance(key, str) and key:
            out[key] = _value(raw.strip())
    return out


def parse_call_repr(text: str) -> dict[str, Any]:
    """`Namespace(a=1, ..., b='x')` or the inside of it -> dict of keyword values."""
    text = text.strip()
    head = text.find("(")
    if head > 0 and text[:head].isidentifier():
        text = text[head:]
    out: dict[str, Any] = {}
    for item in _split_top(_strip_wrapper(text, "(", ")")):
        key, sep, raw = item.partition("=")
        key = key.strip()
        if sep and key.isidentifier():
            out[key] = _value(raw.strip())
    return out
