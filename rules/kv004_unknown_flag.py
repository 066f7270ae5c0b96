"""A flag the engine's own argument parser would reject.

## What it checks
Every flag of a vLLM or SGLang launch is parsed with that engine's rules: vLLM turns `_` into `-`
and accepts unique prefixes; SGLang accepts only dash spellings and unique prefixes. A flag neither
would accept, or a prefix that matches several flags, is reported with a did-you-mean.

## Why it matters
argparse exits on the first unknown flag: the pod crash-loops with `unrecognized arguments` before
it loads a single weight, often after a long image pull and model download.

## Example
```
python -m sglang.launch_server --model-path Qwen/Qwen3-8B --context_length 32768
```

## Use instead
```
python -m sglang.launch_server --model-path Qwen/Qwen3-8B --context-length 32768
```

## Options
None.
"""

from __future__ import annotations

from collections.abc import Iterator

from kvlint.findings import Finding, Severity
from kvlint.registry import Context, rule
from kvlint.rules import _common as c


@rule("KV004", "unknown-flag", Severity.ERROR, "A flag the engine's argument parser rejects.")
def check(ctx: Context) -> Iterator[Finding]:
    dep = ctx.deployment
    engine = c.title(dep.engine)
    for unknown in dep.unknown_flags:
        if unknown.reason == "removed":
            continue
        why = "an ambiguous abbreviation" if unknown.reason == "ambiguous" else "an unrecognized argument"
        hint = f"; did you mean {unknown.suggestion}?" if unknown.suggestion else ""
        yield check.rule.finding(
            ctx, f"{engine} rejects {unknown.flag}: {why}, the server exits before loading the model{hint}",
            unknown.span or dep.launch_span,
            fix=f"use {unknown.suggestion}" if unknown.suggestion else "remove the flag", flag=unknown.flag)
