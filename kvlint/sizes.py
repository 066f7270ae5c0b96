"""Byte units, defined once: every stage that turns bytes into GiB (or back) uses these."""

from __future__ import annotations

MIB = 2**20
GIB = 2**30


def gib(n: float, digits: int = 2) -> str:
    """`n` bytes as `12.34 GiB`."""
    return f"{n / GIB:.{digits}f} GiB"
