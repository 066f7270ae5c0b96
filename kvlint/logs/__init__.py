"""Engine startup logs: what vLLM and SGLang actually allocated, for `kvlint verify` and calibration."""

from __future__ import annotations

from kvlint.logs.parse import parse_log
from kvlint.logs.record import LogRecord

__all__ = ["LogRecord", "parse_log"]
