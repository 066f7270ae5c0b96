"""MLA models store the whole KV latent on every tensor-parallel rank.

## What it checks
Models with multi-head latent attention (DeepSeek-V2/V3/R1, Kimi-K2, ...) run with attention TP > 1:
TP in vLLM; in SGLang with DP attention (`--enable-dp-attention` / `--attn-dp-size`) each attention
replica spans tp_size // attn_dp_size ranks, and at 1 the latent is not replicated.

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

from collections.abc import Iterator

from kvlint.findings import Finding, Severity
from kvlint.registry import Context, rule
from kvlint.rules import _common as c


@rule("KV203", "mla-replicated", Severity.INFO,
      "The MLA latent is stored whole on every TP rank.", needs=("model",), reads=("tp", "dcp"))
def check(ctx: Context) -> Iterator[Finding]:
    dep, model = ctx.deployment, ctx.model
    if model is None or model.mla is None:
        return
    tp = c.tp_of(dep)
    dcp = c.value(dep, "dcp", 1)
    if not model.is_mla or tp <= 1 or (isinstance(dcp, int) and dcp > 1):
        return
    attn_tp, how = ctx.engine.attention_tp(dep.resolved_values())
    if attn_tp <= 1:
        return
    width = model.mla.kv_lora_rank + model.mla.qk_rope_head_dim
    per_rank = f": {ctx.budget.kv_bytes_per_token:,} bytes per token on each rank" if ctx.budget else ""
    field, words = c.config_field(ctx, "kv_lora_rank")
    dcp = c.flag(dep.engine, "dcp")
    if c.on_release(ctx, "dcp"):
        remedy, fix = f"{dcp} {attn_tp} spreads tokens across them", f"{dcp} {attn_tp}"
    else:  # never a flag the pinned release lacks
        remedy = (f"{ctx.engine.title} {ctx.pinned_version} has no {dcp} (a later release spreads tokens across "
                  f"them)")
        fix = f"a release of {ctx.engine.title} with {dcp}, then {dcp} {attn_tp}"
    yield check.rule.finding(
        ctx, f"{model.model_id} uses MLA: the latent, kv_lora_rank {model.mla.kv_lora_rank} + rope "
        f"{model.mla.qk_rope_head_dim} = {width} values per token per layer, is stored "
        f"whole on each of the {attn_tp} {how}{per_rank}, not divided by {c.flag(dep.engine, 'tp')}; "
        f"{remedy}", c.primary(dep, "tp"), related=[field],
        fix=fix, tp=tp, attention_tp=attn_tp, latent_width=width)

