"""The `calibration:` block as text, and splicing it into a user's YAML without disturbing the rest.

Written textually (replace or append that block only) so the user's other keys, comments and layout
survive; round-tripping through yaml.dump would drop every comment.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

from kvlint.calibration.entry import KEYS, Calibration
from kvlint.lazyre import lazy
from kvlint.record import asdict

_TOP_KEY = lazy(r"^[^\s#-][^:]*:")


def render_block(items: Iterable[Calibration]) -> str:
    lines = ["calibration:"]
    for c in items:
        values = asdict(c)
        first = True
        for key in KEYS:
            value = values[key]
            if key == "source_log" and not value:
                continue
            text = _scalar(value)
            lines.append(f"  {'- ' if first else '  '}{key}: {text}")
            first = False
    return "\n".join(lines) + "\n"


def _scalar(value: Any) -> str:
    """A YAML scalar that reads back as the same type (JSON strings are valid YAML)."""
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    if isinstance(value, (int, float)):
        return repr(value)
    text = str(value)
    plain = re.fullmatch(r"[A-Za-z][\w./@+-]*(?: [\w./@+-]+)*", text)
    reserved = text.lower() in ("true", "false", "null", "yes", "no", "on", "off", "y", "n", "~")
    return text if plain and not reserved else json.dumps(text)


def splice(text: str, block: str) -> str:
    """Replace the top-level `calibration:` block of a YAML text, or append it; keep everything else."""
    lines = text.splitlines(keepends=True)
    start = next((i for i, line in enumerate(lines) if re.match(r"^calibration\s*:", line)), None)
    if start is None:
        sep = "" if not text or text.endswith("\n") else "\n"
        return text + sep + ("\n" if text.strip() else "") + block
    end = start + 1
    while end < len(lines) and not _TOP_KEY.match(lines[end]):
        end += 1
    while end > start + 1 and lines[end - 1].strip().startswith("#"):
        end -= 1  # a comment just above the next key belongs to that key
    tail = lines[end:]
    blank = "\n" if tail and lines[end - 1].strip() == "" else ""
    return "".join(lines[:start]) + block + blank + "".join(tail)


def render_toml(entry: Calibration) -> str:
    """The entry as a [[tool.kvlint.calibration]] table (JSON strings and numbers are valid TOML)."""
    values = asdict(entry)
    lines = ["[[tool.kvlint.calibration]]"]
    lines += [f"{key} = {json.dumps(values[key])}" for key in KEYS if key != "source_log" or values[key]]
    return "\n".join(lines) + "\n"
