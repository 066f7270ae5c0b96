"""Weights dominate the card and the pool binds: fp8 KV would double the tokens.

## What it checks
Fires when the weights take more than a share of the memory the engine may use (option
`weights-share`, default 0.6), the KV cache is stored at 16 bits, and the pool is the binding
limit (full-length requests at `max_num_seqs` do not fit, or not even one does). The message gives
the tokens with `--kv-cache-dtype fp8` (`fp8_e4m3` for SGLang), recomputed, not estimated as x2.

## Why it matters
When weights leave a thin slice for KV, halving bytes per token is the cheapest lever: no new GPUs,
a small accuracy cost on most models, and the pool holds twice the tokens.

## Example
```
vllm serve meta-llama/Llama-3.1-70B-Instruct -tp 2 --max-model-len 32768
```

## Use instead
`--kv-cache-dtype fp8` (check quality on your eval set first).

## Options
- `weights-share` (number, default 0.6): the share of usable memory the weights must exceed.
"""

from __future__ import annotations

from collections.abc import Iterator

from kvlint.budget import Budget
from kvlint.findings import Finding, Severity
from kvlint.registry import Context, RuleOption, rule
from kvlint.rules import _common as c

SIXTEEN_BIT = ("auto", "bfloat16", "bf16", "float16", "half")


@rule("KV301", "fp8-kv-suggested", Severity.INFO,
      "Weights dominate and the pool binds: fp8 KV doubles the tokens.", needs=("model", "gpu", "budget"),
      options=(RuleOption("weights-share", 0.6, "fire when weights exceed this share of the engine's memory"),))
def check(ctx: Context) -> Iterator[Finding]:
    dep, b, model = ctx.deployment, ctx.budget, ctx.model
    if b is None or model is None:
        return
    usable = b.requested_bytes or b.gpu_memory_bytes
    if b.kv_cache_dtype not in SIXTEEN_BIT or b.kv_pool_bytes <= 0 or not usable or not _binds(b):
        return
    if model.quant is not None and model.quant.kv_cache_dtype:
        return
    share = b.weights_bytes / usable
    if share <= ctx.option(check.rule, "weights-share"):
        return
    fp8 = ctx.what_if({c.setting_name(dep.engine, "kv_dtype"): c.fp8_kv(dep.engine)})
    if fp8 is None or fp8.kv_tokens <= b.kv_tokens:
        return
    message = (f"weights take {share:.0%} of the {c.gib(usable, 1)} {c.title(dep.engine)} may use on "
               f"{c.gpu_label(ctx)} and the pool binds ({c.tokens(b.kv_tokens)} tokens{c.basis(b)}, "
               f"{b.kv_tokens / b.max_model_len:.2f} full-length requests): {c.flag(dep.engine, 'kv_dtype')} "
               f"{c.fp8_kv(dep.engine)} holds {c.tokens(fp8.kv_tokens)} tokens "
               f"(+{c.tokens(fp8.kv_tokens - b.kv_tokens)}, {fp8.kv_tokens / fp8.max_model_len:.2f} requests)")
    yield check.rule.finding(
        ctx, message, c.primary(dep, "kv_dtype", "max_len"), fix=f"{c.flag(dep.engine, 'kv_dtype')} "
        f"{c.fp8_kv(dep.engine)}", estimated=b.kv_pool_estimated, weights_share=round(share, 3),
        kv_tokens=b.kv_tokens, fp8_kv_tokens=fp8.kv_tokens)


def _binds(b: Budget) -> bool:
    """The pool limits the launch: one request does not fit, or the declared batch of full-length ones does not."""
    return not b.fits_one_request or bool(b.max_num_seqs and b.max_num_seqs * b.max_model_len > b.kv_tokens)
