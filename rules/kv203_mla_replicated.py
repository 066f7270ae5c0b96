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

from kvlint.rules import _common as c

from kvlint.findings import Severity
from kvlint.registry import rule


@rule("KV203", "mla-replicated", Severity.INFO,
      "The MLA latent is stored whole on every TP rank.", needs=("model",))
def check(ctx):
    dep, model = ctx.deployment, ctx.model
    tp = c.tp_of(dep)
    dcp = c.value(dep, "dcp", 1)
    if not model.is_mla or tp <= 1 or (isinstance(dcp, int) and dcp > 1):
        return
    attn_tp, how = _attention_tp(ctx, tp)
    if attn_tp <= 1:
        return
    width = model.mla.kv_lora_rank + model.mla.qk_rope_head_dim
    per_rank = f": {ctx.budget.kv_bytes_per_token:,} bytes per token on each rank" if ctx.budget else ""
    field, words = c.config_field(model, "kv_lora_rank")
    yield check.rule.finding(
        ctx, f"{model.model_id} uses MLA: the latent, kv_lora_rank {model.mla.kv_lora_rank} + rope "
        f"{model.mla.qk_rope_head_dim} = {width} values per token per layer, is stored "
        f"whole on each of the {attn_tp} {how}{per_rank}, not divided by {c.flag(dep.engine, 'tp')}; "
        f"{c.flag(dep.engine, 'dcp')} {attn_tp} spreads tokens across them", c.primary(dep, "tp"), related=[field],
        fix=f"{c.flag(dep.engine, 'dcp')} {attn_tp}", tp=tp, attention_tp=attn_tp, latent_width=width)


def _attention_tp(ctx, tp: int) -> tuple[int, str]:
    """Ranks that hold one copy of the latent: SGLang's DP attention gives each attention replica
    tp // attn_dp ranks, so at attention TP 1 nothing is replicated (the budget's Parallel says how many)."""
    par = ctx.budget.parallel if ctx.budget is not None else None
    if par is None or par.attn_dp <= 1:
        return tp, "TP ranks"
    return par.attention_tp, (f"attention TP ranks ({c.flag(ctx.deployment.engine, 'tp')} {tp} / attention DP "
                              f"{par.attn_dp})")
