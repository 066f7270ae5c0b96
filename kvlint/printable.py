"""What reaches a terminal shows control characters as escapes, never acts on them.

A manifest is input from anyone: a model name holding `ESC ] 0 ; title BEL` retitles the reader's window,
`ESC [ 2 J` clears it, a carriage return overwrites the line a reviewer reads (terminal-escapes.sh). Every value
a text output shows (the code frame, messages, `inspect`, `budget`, error lines) goes through `printable`: C0
controls other than tab and newline, DEL, C1 controls and the bidirectional overrides become `\\x1b`-style
escapes. kvlint's own colour codes are added after, around values already escaped.
"""

from __future__ import annotations

import re

from kvlint.lazyre import lazy

_CONTROL = lazy(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def _escape(m: re.Match[str]) -> str:
    code = ord(m.group(0))
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: str) -> str:
    """text with every control character but tab and newline written as an escape (`\\x1b`, `\\x0d`)."""
    if text.isprintable() or _CONTROL.search(text) is None:
        return text
    return _CONTROL.sub(_escape, text)
