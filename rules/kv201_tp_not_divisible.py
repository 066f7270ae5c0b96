"""Tensor parallelism that does not divide the model's attention heads.

## What it checks
The query heads must divide by TP, and the KV heads must divide by TP or TP by the KV heads (then
each KV head is replicated). MLA models have one latent, so only the query heads count.

## Why it matters
Both engines assert this while building the model: the launch fails after the image pull and
before serving, with an error about heads not divisible by the tensor parallel size.

## Example
```
vllm serve Qwen/Qwen2.5-7B-Instruct -tp 3      # 28 heads, 4 KV heads
```

## Use instead
A TP that divides both (the message lists them).

## Options
None.
"""

from __future__ import annotations

from collections.abc import Iterator

from kvlint.findings import Finding, Severity
from kvlint.models.spec import ModelSpec
from kvlint.registry import Context, rule
from kvlint.rules import _common as c


@rule("KV201", "tp-not-divisible", Severity.ERROR,
      "Attention heads or KV heads do not divide by the tensor parallel size.", needs=("model",), reads=("tp",))
def check(ctx: Context) -> Iterator[Finding]:
    dep, model = ctx.deployment, ctx.model
    if model is None:
        return
    tp = c.tp_of(dep)
    problem = _problem(model, tp)
    if tp == 1 or not problem:
        return
    valid = [t for t in (1, 2, 4, 8, 16, 32) if not _problem(model, t)]
    field, words = c.config_field(ctx, "num_kv_heads" if "KV heads" in problem else "num_attention_heads")
    yield check.rule.finding(
        ctx, f"{c.flag(dep.engine, 'tp')} {tp}: {problem}; the engine fails while building the model{words}. "
        f"Valid: {', '.join(map(str, valid))}", c.primary(dep, "tp"), related=[field],
        fix=f"{c.flag(dep.engine, 'tp')} {max(t for t in valid if t <= tp) if valid else 1}", valid_tp=valid)


def _problem(model: ModelSpec, tp: int) -> str | None:
    heads, kvh = model.num_attention_heads, model.num_kv_heads
    if heads % tp:
        return f"{heads} attention heads do not divide by {tp}"
    if not model.is_mla and kvh and kvh % tp and tp % kvh:
        return f"{kvh} KV heads do not divide by {tp}, nor {tp} by {kvh}"
    return None
