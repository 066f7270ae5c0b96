"""Engine startup logs: what vLLM and SGLang actually allocated, for `kvlint verify` and calibration.

The parser is imported on first use: `kvlint check` reads calibration records (kvlint.logs.record)
on every run and should not pay for compiling the log patterns.
"""

from __future__ import annotations

from typing import Any

__all__ = ["LogRecord", "parse_log"]


def __getattr__(name: str) -> Any:
    if name == "parse_log":
        from kvlint.logs.parse import parse_log

        return parse_log
    if name == "LogRecord":
        from kvlint.logs.record import LogRecord

        return LogRecord
    raise AttributeError(name)
