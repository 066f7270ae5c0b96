"""Counts read from manifest text, safely: one conversion every reader uses.

`str.isdigit()` is true for `²` and for a 5,000-digit string, and `int()` then raises (not a decimal
digit; Python's 4,300-digit conversion limit). A GPU, node or replica count is a small ASCII integer;
anything else is "not a count" (None), never an exception that costs the whole file.
"""

from __future__ import annotations

MAX_DIGITS = 18  # below 2**63: every count an engine or a scheduler can hold


def count(text: str | None) -> int | None:
    """`"8"` -> 8; None for anything that is not a plain ASCII integer of at most MAX_DIGITS digits."""
    if text is None:
        return None
    text = text.strip()
    if not text or len(text) > MAX_DIGITS or not (text.isascii() and text.isdigit()):
        return None
    return int(text)
