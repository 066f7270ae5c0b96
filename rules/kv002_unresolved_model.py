"""The model's config.json could not be found offline, so the capacity rules are skipped.

## What it checks
Every launch names a model. kvlint resolves it, in order: a local path, the `models:` overrides of
`.kvlint.yaml`, the Hugging Face cache, the Hub (only with `--online`), and the bundled registry.
When none has it, this finding says which reference failed and how to make it resolvable.

## Why it matters
Every KV number depends on the model's layers, KV heads and head size. Without them kvlint cannot
tell whether the deployment starts, so it says so rather than passing the file silently.

## Example
```yaml
args: ["--model", "my-org/private-llama-70b", "--max-model-len", "32768"]
```

## Use instead
Point kvlint at the config in `.kvlint.yaml`:
```yaml
models:
  my-org/private-llama-70b: models/private-llama-70b/config.json
```
or run once with `--online` (uses HF_TOKEN) to fill the local cache.

## Options
None.
"""

from __future__ import annotations

from collections.abc import Iterator

from kvlint.findings import Finding, Severity, short
from kvlint.registry import Context, rule


@rule("KV002", "unresolved-model", Severity.WARNING, "The model's config.json is not available offline.",
      source="resolve")
def check(ctx: Context) -> Iterator[Finding]:
    """Resolution failures are collected by the pipeline; this only turns them into findings."""
    dep = ctx.deployment
    if not ctx.model_error:
        return
    span = dep.model_span or dep.launch_span
    named = dep.model is None or short(dep.model) in ctx.model_error or repr(dep.model) in ctx.model_error
    what = ctx.model_error if named else f"model {short(dep.model or '')!r}: {ctx.model_error}"
    yield check.rule.finding(
        ctx, f"{what}; capacity rules skipped for this deployment", span,
        fix="map it to a local config.json under `models:` in .kvlint.yaml, or run `kvlint check --online`",
        model=dep.model)
