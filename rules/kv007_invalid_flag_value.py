"""A flag value the engine refuses: the server exits before it loads the model.

## What it checks
Every value is read with the engine's own type function and choices (`-tp two` is not an integer;
SGLang reads `32k` but not `32K`; vLLM has no `--kv-cache-dtype fp16`, SGLang no plain `fp8`), then
against the checks the engine runs at start-up (`--gpu-memory-utilization` in (0, 1], parallel sizes
of at least 1, MLA-only cache dtypes on MLA models). The finding points at the value as written.

## Why it matters
argparse exits with `invalid ... value` or `invalid choice`, and the engine's config validation
raises before any weight is loaded: the pod crash-loops, usually after a long image pull. The
capacity rules are skipped for such a deployment, since the engine never sizes its memory.

## Example
```
vllm serve Qwen/Qwen3-8B --kv-cache-dtype fp16 --gpu-memory-utilization 1.5
```

## Use instead
```
vllm serve Qwen/Qwen3-8B --kv-cache-dtype auto --gpu-memory-utilization 0.9
```

## Options
None.
"""

from __future__ import annotations

from collections.abc import Iterator

from kvlint.findings import Finding, Severity
from kvlint.registry import Context, rule
from kvlint.rules import _common as c


@rule("KV007", "invalid-flag-value", Severity.ERROR, "A flag value the engine refuses at argument parsing or start-up.")
def check(ctx: Context) -> Iterator[Finding]:
    dep = ctx.deployment
    engine = c.title(dep.engine)
    for bad in (*dep.invalid_values, *((ctx.refusal,) if ctx.refusal is not None else ())):
        what = f"{bad.flag} {bad.raw}".strip() if bad.flag else "these settings"
        yield check.rule.finding(
            ctx, f"{engine} rejects {what}: {bad.reason}; the server exits before loading the model",
            bad.span or dep.launch_span, fix=_fix(bad.reason), flag=bad.flag, value=bad.raw, setting=bad.setting)


def _fix(reason: str) -> str:
    if reason.startswith("valid: "):
        return "use one of " + reason[len("valid: "):]
    if reason.startswith("must"):
        return f"a value that {reason}"
    return "a value the engine accepts"
