"""16-bit weights and a binding pool: fp8 weights would free memory for more requests.

## What it checks
Models served at 16-bit weights (no quantization_config, no `--quantization`) whose weights take
most of the memory and whose pool is the binding limit (as in KV301). The message gives the GiB
fp8 weights free per rank and how many more full-length requests the pool then holds, recomputed
with `--quantization fp8`.

## Why it matters
On large models the weights are most of the card; fp8 weights (Hopper and newer run them natively)
free about half of that for KV.

## Example
```
vllm serve Qwen/Qwen2.5-72B-Instruct -tp 2 --max-model-len 32768
```

## Use instead
`--quantization fp8`, or a pre-quantized fp8 / AWQ / GPTQ checkpoint of the same model.

## Options
- `min-gain-requests` (number, default 1.0): fire only when at least this many more full-length
  requests fit.
- `weights-share` (number, default 0.5): fire only when the weights take more than this share of
  the memory the engine may use (on small models fp8 weights buy little).
"""

from __future__ import annotations

from collections.abc import Iterator

from kvlint.findings import Finding, Severity
from kvlint.registry import Context, RuleOption, rule
from kvlint.rules import _common as c
from kvlint.rules.kv301_fp8_kv_suggested import _binds


@rule("KV302", "weight-quant-suggested", Severity.INFO,
      "fp8 weights would free memory for more full-length requests.", needs=("model", "gpu", "budget"),
      options=(RuleOption("min-gain-requests", 1.0, "fire when fp8 weights add at least this many requests"),
               RuleOption("weights-share", 0.5, "fire when weights exceed this share of the engine's memory")))
def check(ctx: Context) -> Iterator[Finding]:
    dep, b, model = ctx.deployment, ctx.budget, ctx.model
    if b is None or model is None:
        return
    if model.quant is not None or dep.get("quantization") or model.dtype not in ("bfloat16", "float16"):
        return
    usable = b.requested_bytes or b.gpu_memory_bytes
    if b.kv_pool_bytes <= 0 or not _binds(b) or not b.max_model_len or not usable:
        return
    if b.weights_bytes / usable <= ctx.option(check.rule, "weights-share"):
        return
    fp8 = ctx.what_if({c.setting_name(dep.engine, "quant"): "fp8"})
    if fp8 is None or fp8.weights_bytes >= b.weights_bytes:
        return
    before, after = b.kv_tokens / b.max_model_len, fp8.kv_tokens / fp8.max_model_len
    if after - before < ctx.option(check.rule, "min-gain-requests"):
        return
    freed = b.weights_bytes - fp8.weights_bytes
    yield check.rule.finding(
        ctx, f"fp8 weights ({c.flag(dep.engine, 'quant')} fp8) free {c.gib(freed, 1)} per rank on {c.gpu_label(ctx)}: "
        f"{after - before:.2f} more full-length requests ({c.tokens(b.kv_tokens)} -> {c.tokens(fp8.kv_tokens)} "
        f"tokens{c.basis(b)})", c.primary(dep, "quant", "max_len"),
        fix=f"{c.flag(dep.engine, 'quant')} fp8", estimated=b.kv_pool_estimated, freed_bytes=freed,
        kv_tokens=b.kv_tokens, fp8_kv_tokens=fp8.kv_tokens)
