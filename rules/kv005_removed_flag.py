"""A flag that older engine releases accepted and the configured release has removed.

## What it checks
Flags removed from the engine's parser, such as `--swap-space` (gone from vLLM 0.33, which no longer
has a CPU swap pool). The readers mark them when the flag table records the removal.

## Why it matters
A manifest copied from an older tutorial starts fine on the old image and crash-loops with
`unrecognized arguments` after an image bump: the same failure as a typo, with a different fix.

## Example
```
vllm serve meta-llama/Llama-3.1-8B-Instruct --swap-space 16
```

## Use instead
Drop the flag (or pin the engine version the manifest was written for).

## Options
None.
"""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources

from kvlint.findings import Severity
from kvlint.registry import rule
from kvlint.rules._common import ENGINE_NAMES


@lru_cache(maxsize=None)
def table_version(engine: str) -> str:
    """The engine release the flag table was read from (the release the removal is judged against)."""
    try:
        text = resources.files("kvlint.data").joinpath(f"{engine}_flags.json").read_text(encoding="utf-8")
        return str(json.loads(text).get("version", ""))
    except (OSError, ValueError):
        return ""


@rule("KV005", "removed-flag", Severity.ERROR, "A flag the configured engine release no longer accepts.")
def check(ctx):
    dep = ctx.deployment
    engine = ENGINE_NAMES.get(dep.engine, dep.engine)
    table = table_version(dep.engine)
    pinned = (f"; the image pins {engine} {dep.engine_version}: check the flag before upgrading"
              if dep.engine_version and dep.engine_version != table else "")
    for unknown in dep.unknown_flags:
        if unknown.reason != "removed":
            continue
        hint = f"; use {unknown.suggestion}" if unknown.suggestion else ""
        yield check.rule.finding(
            ctx, f"{unknown.flag} was removed from {engine} (absent from the {table or 'current'} parser): the "
            f"server exits with 'unrecognized arguments'{hint}{pinned}", unknown.span or dep.launch_span,
            fix=unknown.suggestion and f"use {unknown.suggestion}" or f"remove {unknown.flag}", flag=unknown.flag)
