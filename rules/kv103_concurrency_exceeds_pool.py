"""The advertised batch of full-length requests does not fit the KV pool.

## What it checks
`max_num_seqs` (vLLM) or `max_running_requests` (SGLang), written or the engine's default for the
GPU, times the maximum length, against the tokens the pool holds. The message says how many
full-length requests really fit at once, the figure vLLM logs as `Maximum concurrency`.

## Why it matters
The engine starts, and the deployment looks sized for 256 parallel requests; under long prompts it
holds a handful, and the rest queue or get preempted. Autoscalers and gateway limits set from the
advertised figure then overload it.

## Example
```
vllm serve Qwen/Qwen2.5-32B-Instruct --max-model-len 32768 --max-num-seqs 256   # one H100
```

## Use instead
Set `--max-num-seqs` to what fits, lower `--max-model-len`, store KV in fp8, or add replicas.

## Options
- `min-ratio` (number, default 1.0): fire only when demanded tokens exceed the pool by this factor.
"""

from __future__ import annotations

from kvlint.rules import _common as c

from kvlint.findings import Severity
from kvlint.registry import Option, rule


@rule("KV103", "concurrency-exceeds-pool", Severity.WARNING,
      "max_num_seqs x max_model_len exceeds the tokens the KV pool holds.", needs=("model", "gpu", "budget"),
      options=(Option("min-ratio", 1.0, "fire when demanded tokens / pool tokens exceeds this"),))
def check(ctx):
    dep, b = ctx.deployment, ctx.budget
    seqs, length = b.max_num_seqs, b.max_model_len
    if not seqs or not length or not b.fits_one_request or b.kv_tokens <= 0:
        return
    demand = seqs * length
    if demand <= b.kv_tokens * ctx.option(check.rule, "min-ratio"):
        return
    seq_name = c.setting_name(dep.engine, "max_seqs")
    origin = "" if c.span(dep, "max_seqs") else f" ({c.ENGINE_NAMES.get(dep.engine)} default on {c.gpu_label(ctx)})"
    fit = b.kv_tokens / length
    message = (f"{seq_name} {seqs}{origin} x {c.setting_name(dep.engine, 'max_len')} {c.tokens(length)} = "
               f"{c.tokens(demand)} tokens, but the KV pool holds {c.tokens(b.kv_tokens)} tokens"
               f"{c.basis(b)}: only {fit:.2f} full-length requests fit at once; the rest queue "
               f"or are preempted.")
    yield check.rule.finding(
        ctx, message, c.primary(dep, "max_seqs", "max_len"),
        related=[c.related(dep, "max_len", "the length every slot is sized for")],
        fix=f"{c.flag(dep.engine, 'max_seqs')} {max(1, int(fit))}", estimated=b.kv_pool_estimated,
        demand_tokens=demand, kv_tokens=b.kv_tokens, full_length_requests=round(fit, 2))
