"""Byte units, defined once: every stage that turns bytes into GiB (or back) uses these, and memory sizes as
kvlint's own input (`--gpu-memory 81559MiB`) spell them, following the IEC/SI split."""

from __future__ import annotations

import re

from kvlint.errors import KvlintError
from kvlint.lazyre import lazy

MIB = 2**20
GIB = 2**30


def gib(n: float, digits: int = 2) -> str:
    """`n` bytes as `12.34 GiB`."""
    return f"{n / GIB:.{digits}f} GiB"


_MEMORY_RE = lazy(r"\s*(\d+(?:\.\d+)?)\s*([KMGT]i?B?|[kmgt]i?b?|B|b)?\s*", re.IGNORECASE)


def parse_memory_size(text: str | int) -> int:
    """Bytes from `81559MiB`, `79.19GiB`, `80GB`, `24G`, or a bare byte count.

    `KiB`/`MiB`/`GiB`/`TiB` and the bare letters `K`/`M`/`G`/`T` are binary (powers of 1024, as
    nvidia-smi and torch mean them); `KB`/`MB`/`GB`/`TB` are decimal (powers of 1000, as cards are sold).
    """
    if isinstance(text, int):
        return text
    m = _MEMORY_RE.fullmatch(str(text))
    if not m:
        raise KvlintError(f"cannot read memory size {text!r}", "use e.g. 81559MiB, 79.19GiB or 80GB")
    number, unit = m.groups()
    unit = (unit or "B").upper()
    letter = unit[0]
    if letter == "B":
        scale = 1
    elif unit.endswith("IB") or len(unit) == 1:
        scale = 1024 ** ("KMGT".index(letter) + 1)
    else:
        scale = 1000 ** ("KMGT".index(letter) + 1)
    return round(float(number) * scale)
