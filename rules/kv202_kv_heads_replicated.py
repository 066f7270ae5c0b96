"""TP beyond the KV head count: every rank keeps a copy, KV per rank stops shrinking.

## What it checks
GQA/MQA models with fewer KV heads than the tensor parallel size (not MLA, see KV203).

## Why it matters
With TP above the KV heads, each rank stores `max(1, kv_heads // tp)` = one head: the KV cache per
token per rank is the same as at TP = kv_heads, so the extra GPUs add weight memory headroom but no
KV capacity per byte. Sizing that assumes KV divides by TP overestimates the pool.

## Example
```
vllm serve meta-llama/Llama-3.1-70B-Instruct -tp 16    # 8 KV heads
```

## Use instead
Usually fine, but know it: data parallel replicas (`-dp`) or pipeline stages buy more tokens than
TP beyond the KV head count.

## Options
None.
"""

from __future__ import annotations

from collections.abc import Iterator

from kvlint.findings import Finding, Severity
from kvlint.registry import Context, rule
from kvlint.rules import _common as c


@rule("KV202", "kv-heads-replicated", Severity.INFO,
      "TP exceeds the KV heads: KV heads are replicated on every rank.", needs=("model",), reads=("tp",))
def check(ctx: Context) -> Iterator[Finding]:
    dep, model = ctx.deployment, ctx.model
    if model is None:
        return
    tp, kvh = c.tp_of(dep), model.num_kv_heads
    if model.is_mla or not kvh or tp <= kvh:
        return
    field, words = c.config_field(ctx, "num_kv_heads")
    yield check.rule.finding(
        ctx, f"{c.flag(dep.engine, 'tp')} {tp} exceeds the {kvh} KV heads{words}: each KV head is replicated on "
        f"{tp // kvh} ranks, so the KV cache per token per rank stops shrinking at tp {kvh}",
        c.primary(dep, "tp"), related=[field], fix=f"{c.flag(dep.engine, 'tp')} {kvh} with more replicas",
        tp=tp, kv_heads=kvh)
