"""Number spellings the engines accept, reproduced rule for rule.

vLLM and SGLang both call their parser "human_readable_int" yet disagree: vLLM reads `1K` as 1024 and
`1k` as 1000 and allows `25.6k`; SGLang wants `1Ki` for 1024 and rejects `32K`. A linter that guessed
one rule for both would accept launches the engine refuses, so each engine gets its own function.
Memory sizes (`--gpu-memory 81559MiB`) are kvlint's own input and follow the IEC/SI split.
"""

from __future__ import annotations

import re

from kvlint.errors import KvlintError
from kvlint.lazyre import lazy

_VLLM_DECIMAL = {"k": 10**3, "m": 10**6, "g": 10**9, "t": 10**12}
_VLLM_BINARY = {"K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}
_VLLM_RE = lazy(r"(\d+(?:\.\d+)?)([kKmMgGtT])")
_SGLANG_RE = lazy(r"(\d+(?:\.\d+)?)(Ki|Mi|Gi|Ti|k|M|G|T)")
_SGLANG_UNITS = {"k": 10**3, "M": 10**6, "G": 10**9, "T": 10**12, "Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40}
_MEMORY_RE = lazy(r"\s*(\d+(?:\.\d+)?)\s*([KMGT]i?B?|[kmgt]i?b?|B|b)?\s*", re.IGNORECASE)


def vllm_human_int(text: str) -> int:
    """vLLM's rule: lower-case suffix is decimal (`1k`=1000), upper-case binary (`1K`=1024).

    Decimals only with a decimal suffix (`25.6k`; the product is truncated as the engine's int(float)
    does); anything without a suffix goes through Python's int(), so `1_000` and `+5` pass as there.
    """
    text = text.strip()
    m = _VLLM_RE.fullmatch(text)
    if not m:
        return int(text)
    number, suffix = m.groups()
    if suffix in _VLLM_BINARY:
        if "." in number:
            raise ValueError(f"decimals are not allowed with binary suffix {suffix!r}: {text!r}")
        return int(number) * _VLLM_BINARY[suffix]
    return int(float(number) * _VLLM_DECIMAL[suffix])


def vllm_human_int_or_auto(text: str) -> int:
    """`--max-model-len`: `auto` (any case) and `-1` both ask for auto-fit, returned as -1."""
    if text.strip() == "-1" or text.strip().lower() == "auto":
        return -1
    return vllm_human_int(text)


def sglang_human_int(text: str) -> int:
    """SGLang's rule: `k`, `M`, `G`, `T` are decimal, `Ki`..`Ti` binary; case matters (`32K` fails).

    Decimals only with the decimal suffixes (`25.6k`), computed exactly as the engine's Decimal does.
    """
    text = text.strip()
    m = _SGLANG_RE.fullmatch(text)
    if not m:
        return int(text)
    number, suffix = m.groups()
    if suffix.endswith("i"):
        if "." in number:
            raise ValueError(f"decimals are not allowed with IEC suffix {suffix!r}: {text!r}")
        return int(number) * _SGLANG_UNITS[suffix]
    from decimal import Decimal  # SGLang decimal suffixes only; keeps decimal out of every start-up

    return int(Decimal(number) * _SGLANG_UNITS[suffix])


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
