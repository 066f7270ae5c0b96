"""The advertised batch of full-length requests does not fit the KV pool.

## What it checks
Declared concurrency against the full-length requests the pool holds at once, the engine's own figure
(vLLM's `Maximum concurrency for N tokens per request`, which counts sliding-window, hybrid and Mamba
layers as the engine does; SGLang's pool over its context length). Concurrency is
declared by `max_num_seqs` (vLLM) or `max_running_requests` (SGLang) written in the launch, or by a
serving or autoscaling target: KServe `containerConcurrency` or a concurrency `scaleTarget`, Knative
`autoscaling.knative.dev/target`, KubeAI `targetRequests`, an HPA on a running-requests metric
(the smaller one when both are given). The message says how many full-length requests really fit at
once, the figure vLLM logs as `Maximum concurrency`, and points at the declaration. With the
engine's defaults nothing was promised, so nothing fires (`kvlint budget` still shows the figure).

## Why it matters
The engine starts, and the deployment looks sized for 256 parallel requests; under long prompts it
holds a handful, and the rest queue or get preempted. Autoscalers and gateway limits set from the
advertised figure then overload it. It is an info: `max_num_seqs` is a scheduler cap and most
requests are shorter than the maximum length, so the figure is for the reviewer to weigh against the
traffic, not a defect (raise it with `severity: {KV103: warning}`).

## Example
```
vllm serve Qwen/Qwen2.5-32B-Instruct --max-model-len 32768 --max-num-seqs 256   # one H100
```

## Use instead
If long requests must run at the declared concurrency: store KV in fp8, add GPUs or replicas, or lower
`--max-model-len`. Lowering `--max-num-seqs` only caps the throughput of short requests.

## Options
- `min-ratio` (number, default 1.0): fire only when the declared concurrency exceeds the full-length requests
  the pool holds at once by this factor.
"""

from __future__ import annotations

from collections.abc import Iterator

from kvlint.findings import Finding, Severity
from kvlint.registry import Context, RuleOption, rule
from kvlint.rules import _common as c
from kvlint.span import Span


@rule("KV103", "concurrency-exceeds-pool", Severity.INFO,
      "The declared concurrency exceeds the full-length requests the KV pool holds (the engine's figure).",
      needs=("model", "gpu", "budget"),
      options=(RuleOption("min-ratio", 1.0,
                          "fire when declared concurrency / the engine's maximum concurrency exceeds this"),))
def check(ctx: Context) -> Iterator[Finding]:
    dep, b = ctx.deployment, ctx.budget
    if b is None or ctx.declared_load is None:
        return  # engine defaults are not a promise anyone made; `kvlint budget` still shows the figure
    seqs, length = ctx.declared_load, b.max_model_len
    if not length or not b.fits_one_request or b.kv_tokens <= 0:
        return
    # the engine's own figure (vLLM's "Maximum concurrency for N tokens per request"): with sliding-window,
    # hybrid or Mamba layers a request needs fewer pool tokens than its length, so pool / length understates it
    fit = b.max_concurrency
    if seqs <= fit * ctx.option(check.rule, "min-ratio"):
        return
    demand = seqs * length
    declared, where = _declaration(ctx)
    message = (f"{declared} {seqs} x {c.setting_name(dep.engine, 'max_len')} {c.tokens(length)}, but the KV pool "
               f"({c.tokens(b.kv_tokens)} tokens{c.basis(b)}) holds {fit:.2f} full-length requests at once "
               f"({ctx.engine.title}'s maximum concurrency): the rest queue or are preempted.")
    yield check.rule.finding(
        ctx, message, where or c.primary(dep, "max_len"),
        related=[c.related(dep, "max_len", "the length every slot is sized for")],
        fix=_fix(ctx), estimated=b.kv_pool_estimated,
        demand_tokens=demand, kv_tokens=b.kv_tokens, full_length_requests=round(fit, 2))


def _declaration(ctx: Context) -> tuple[str, Span | None]:
    """What declared the concurrency, in words, and where: the smaller of the engine flag and the target."""
    from kvlint.resolve import declarations

    dep = ctx.deployment
    found = sorted(declarations(dep, ctx.engine))
    if found and found[0][1] == "flag":
        return c.setting_name(dep.engine, "max_seqs"), c.span(dep, "max_seqs")
    load = dep.declared_load
    return (f"{load.source} target", load.span) if load is not None else ("declared concurrency", None)


def _fix(ctx: Context) -> str:
    """What makes the pool hold more long requests; lowering the declaration only caps throughput for the short
    requests that fit many at a time, so it is not offered."""
    engine = ctx.engine
    return (f"{engine.flag('kv_dtype')} {engine.fp8_kv_dtype}, more GPUs or replicas, or a shorter "
            f"{engine.flag('max_len')}, if long requests must run at this concurrency")
