"""MLA models store the whole KV latent on every tensor-parallel rank.

## What it checks
Models with multi-head latent attention (DeepSeek-V2/V3/R1, Kimi-K2, ...) run with TP > 1.

## Why it matters
The MLA latent (`kv_lora_rank + qk_rope_head_dim` values per token per layer) is not split by TP:
each rank caches every token in full. Calculators that divide KV by TP overestimate the pool by
the TP factor. Decode context parallelism (`-dcp` in vLLM, `--dcp-size` in SGLang) is the lever
that spreads tokens over ranks.

## Example
```
vllm serve deepseek-ai/DeepSeek-V3 -tp 8
```

## Use instead
Expect per-rank KV at full size; add `-dcp` for long contexts.

## Options
None.
"""

from __future__ import annotations

from kvlint.findings import Severity
from kvlint.registry import rule
from kvlint.rules import _common as c


@rule("KV203", "mla-replicated", Severity.INFO,
      "The MLA latent is stored whole on every TP rank.", needs=("model",))
def check(ctx):
    dep, model = ctx.deployment, ctx.model
    tp = c.tp_of(dep)
    dcp = c.value(dep, "dcp", 1)
    if not model.is_mla or tp <= 1 or (isinstance(dcp, int) and dcp > 1):
        return
    width = model.mla.kv_lora_rank + model.mla.qk_rope_head_dim
    per_rank = f": {ctx.budget.kv_bytes_per_token:,} bytes per token on each rank" if ctx.budget else ""
    field, words = c.config_field(model, "kv_lora_rank")
    yield check.rule.finding(
        ctx, f"{model.model_id} uses MLA: the latent, kv_lora_rank {model.mla.kv_lora_rank} + rope "
        f"{model.mla.qk_rope_head_dim} = {width} values per token per layer, is stored "
        f"whole on each of the {tp} TP ranks{per_rank}, not divided by {c.flag(dep.engine, 'tp')}; "
        f"{c.flag(dep.engine, 'dcp')} {tp} spreads tokens across them", c.primary(dep, "tp"), related=[field],
        fix=f"{c.flag(dep.engine, 'dcp')} {tp}", tp=tp, latent_width=width)
