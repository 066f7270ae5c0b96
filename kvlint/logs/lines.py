"""Strip what surrounds an engine message: colours, timestamps, process tags, markdown emphasis.

Logs reach us through docker, kubectl, systemd and issue threads, each adding its own decoration.
The parser matches messages with `search`, so leftovers are harmless; what matters is pulling out
the rank tag first, because multi-GPU runs interleave per-worker lines with different values.
"""

from __future__ import annotations

import re

from kvlint.lazyre import lazy
from kvlint.record import record

_ANSI = lazy(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07")
# vLLM: "(Worker_TP1 pid=445) ", "(VllmWorker TP0 pid=1430) ", "(EngineCore_DP0 pid=164) "
_VLLM_PROC = lazy(r"\((?P<proc>[A-Za-z][\w ]*?)\s+pid=\d+\)")
# SGLang: "[2026-11-29 07:20:15 DP1 TP0] " (labels only when that size > 1)
_SGLANG_HEAD = lazy(
    r"\[\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:[.,]\d+)?(?P<labels>(?: (?:DP|PP|ATTN_CP|MOE_DP|TP|EP)\d+)*)\]"
)
_VLLM_HEAD = lazy(
    r"\b(?:DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL)\s+\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)?\s+\[?[\w./-]+\.py:\d+\]\s*"
)
_RANK_PART = lazy(r"(?:^|[_ ])(DP|PP|TP|EP)_?(\d+)")


@record
class Line:
    number: int  # 1-based line number in the input
    rank: str  # "" when the line names no worker; else "TP1", "DP0_TP1", ...
    message: str  # the text with decoration removed


def strip_ansi(text: str) -> str:
    return _ANSI.sub("", text)


def rank_of(labels: str) -> str:
    """Normalise a process name or SGLang label list to "DP0_TP1"-style keys (TP last)."""
    parts = {kind: num for kind, num in _RANK_PART.findall(labels)}
    order = ("DP", "PP", "EP", "TP")
    return "_".join(f"{k}{parts[k]}" for k in order if k in parts)


def split_line(number: int, raw: str) -> Line:
    text = strip_ansi(raw).replace("**", "")
    rank = ""
    proc = _VLLM_PROC.search(text)
    if proc:
        rank = rank_of(proc.group("proc"))
        text = text[: proc.start()] + text[proc.end():]
    head = _SGLANG_HEAD.search(text)
    if head:
        rank = rank or rank_of(head.group("labels"))
        text = text[: head.start()] + text[head.end():]
    text = _VLLM_HEAD.sub("", text, count=1)
    return Line(number, rank, text.strip())


def split_lines(text: str) -> list[Line]:
    return [split_line(i, raw) for i, raw in enumerate(text.splitlines(), start=1) if raw.strip()]


def is_rank0(rank: str) -> bool:
    """A worker tag is rank 0 when every index in it is 0 (untagged lines come from rank 0 too)."""
    return all(n == "0" for n in re.findall(r"\d+", rank))
