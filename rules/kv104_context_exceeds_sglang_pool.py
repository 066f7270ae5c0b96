"""SGLang starts with a pool smaller than its context length and rejects long requests later.

## What it checks
For SGLang launches: `max_total_num_tokens` (the pool, after `mem_fraction_static`, weights and
the page rounding) against `--context-length` (or the model's derived context length). A pool the
launch caps itself below the context (`--max-total-tokens`) is the size it chose: quiet when the pool
reaches that cap.

## Why it matters
Unlike vLLM, SGLang does not refuse to start. It logs a warning and then refuses or truncates every
request longer than the pool, in production, under load, with no crash to alert anyone.

## Example
```
python -m sglang.launch_server --model-path meta-llama/Llama-3.1-70B-Instruct --tp-size 2 \
  --context-length 131072 --mem-fraction-static 0.80    # two 80 GB cards
```

## Use instead
Lower `--context-length` to the pool, store KV in fp8 (`--kv-cache-dtype fp8_e4m3`), raise
`--mem-fraction-static`, or add GPUs.

## Options
None.
"""

from __future__ import annotations

from collections.abc import Iterator

from kvlint.findings import Finding, Severity
from kvlint.registry import Context, rule
from kvlint.rules import _common as c


@rule("KV104", "context-exceeds-sglang-pool", Severity.WARNING,
      "SGLang's pool is smaller than its context length; long requests are rejected.",
      needs=("model", "gpu", "budget"))
def check(ctx: Context) -> Iterator[Finding]:
    dep, b = ctx.deployment, ctx.budget
    if b is None or not ctx.engine.starts_with_short_pool:
        return
    if b.kv_pool_bytes <= 0 or b.kv_tokens <= 0 or b.holds_what_it_asks:
        return  # also a pool the launch capped itself (--max-total-tokens): the size chosen, not a shortfall
    fixes = [f"{c.flag(dep.engine, 'max_len')} {b.kv_tokens}"]
    if b.kv_cache_dtype in ("auto", "bfloat16", "bf16"):
        fp8 = ctx.what_if({c.setting_name(dep.engine, "kv_dtype"): c.fp8_kv(dep.engine)})
        if fp8 is not None and fp8.kv_tokens >= b.max_model_len:
            fixes.append(f"{c.flag(dep.engine, 'kv_dtype')} {c.fp8_kv(dep.engine)} ({c.tokens(fp8.kv_tokens)} tokens)")
    mfs = f" (mem_fraction_static {b.mem_fraction_static:.3f})" if b.mem_fraction_static else ""
    message = (f"context_length {c.tokens(b.max_model_len)} but the KV pool holds {c.tokens(b.kv_tokens)} tokens"
               f"{c.basis(b)} on {c.gpu_label(ctx)}{mfs}: SGLang starts and rejects requests longer "
               f"than the pool.")
    if fixes:
        message += " Fits: " + ", or ".join(fixes) + "."
    yield check.rule.finding(
        ctx, message, c.primary(dep, "max_len"),
        related=[c.related(dep, "mem", "the engine's share of GPU memory")],
        fix=fixes[0] if fixes else "use a larger GPU or more of them", estimated=b.kv_pool_estimated,
        kv_tokens=b.kv_tokens, context_length=b.max_model_len)
