"""The model's config.json could not be found offline, so the capacity rules are skipped.

## What it checks
Every launch names a model. kvlint resolves it, in order: a local path, the `models:` overrides of
`.kvlint.yaml`, the Hugging Face cache, the Hub (only with `--online`), and the bundled registry.
When none has it, this finding says which reference failed and how to make it resolvable. A model that is
simply not known offline (a Hub id kvlint does not bundle, a path naming nothing) is reported once per run,
as one info naming every such model (sorted, at most eight named) and the one command that fixes them all,
`kvlint models lock`; each launch's status (JSON `skip_kind: "unknown-model"` or `"model-path"`) still says
it was not sized. A reference the file leaves open (an unresolved expression, a placeholder the deploy
tooling fills, a local path with no config beside it) is an info on its launch: the deployment is not wrong,
kvlint only cannot size it, and the info says what would let it. A config that cannot be read (malformed,
implausible sizes) or evidence naming two different models is a warning.

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
or record every model the repository names in its kvlint.lock, once, where the Hub is reachable, and
commit it: `kvlint check` then sizes them offline (pre-commit.ci, air-gapped runners):
```sh
kvlint models lock          # writes kvlint.lock; `kvlint models lock --check` in CI
```
or run once with `--online` (uses HF_TOKEN) to fill the local cache.

## Options
None.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from kvlint.findings import Finding, Severity, short
from kvlint.flags.flag_values import is_placeholder
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
    blanks = bool(dep.model) and not (dep.model or "").strip()  # `\ ` before `&`: a word of one space (K224)
    if blanks:
        what = (f"the model is a word of blanks only ({dep.model!r}): a backslash before a space passes the space as "
                "an argument of its own, which the engine takes as its positional model (replacing --model), so it "
                "loads no model")
    # a model no source has offline is folded by kvlint.lint into the run's one info (PER_RUN), after this
    # launch's annotations and inline suppressions had their say
    per_run: dict[str, Any] = {"per_run": PER_RUN} if NOT_KNOWN in ctx.model_error else {}
    yield check.rule.finding(
        ctx, f"{what}; capacity rules skipped for this deployment", span,
        fix="remove the backslash before the space: a line continuation is a backslash at the very end of its line"
        if blanks else "map it to a local config.json under `models:` in .kvlint.yaml, or run `kvlint check --online`",
        severity=Severity.INFO if _left_open(ctx) else None, model=dep.model, **per_run)


def _left_open(ctx: Context) -> bool:
    """The file leaves the model to its deploy tooling: an expression, a placeholder, a bare path, no model.
    Not a defect a reviewer can act on in this file (the reviewer's table judged every such warning noise)."""
    dep = ctx.deployment
    if not dep.model or not dep.model_resolved:
        return True

    return is_placeholder(dep.model) or (dep.model.startswith(("/", "./", "../", "~"))
                                         and "no config.json beside" in (ctx.model_error or ""))


NOT_KNOWN = "not known offline"
PER_RUN = "unknown-model"
