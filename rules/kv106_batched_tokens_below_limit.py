"""vLLM's per-step token budget is set below what its other limits require.

## What it checks
vLLM launches where `--max-num-batched-tokens` is written and is smaller than `--max-num-seqs`
(also written), or smaller than `--max-model-len` while chunked prefill is turned off
(`--no-enable-chunked-prefill`). Defaults never trigger it: vLLM adjusts the values it chooses.

## Why it matters
vLLM's scheduler config rejects both at startup (`max_num_batched_tokens (...) must be greater than
or equal to max_num_seqs (...)`; `... is smaller than max_model_len ...`): the pod crash-loops.

## Example
```
vllm serve Qwen/Qwen3-8B --max-model-len 32768 --no-enable-chunked-prefill --max-num-batched-tokens 8192
```

## Use instead
Raise `--max-num-batched-tokens` to at least `--max-model-len` (or keep chunked prefill on), and to
at least `--max-num-seqs`.

## Options
None.
"""

from __future__ import annotations

from collections.abc import Iterator

from kvlint.findings import Finding, Severity
from kvlint.registry import Context, rule
from kvlint.rules import _common as c


@rule("KV106", "batched-tokens-below-limit", Severity.ERROR,
      "max_num_batched_tokens is below max_num_seqs, or below max_model_len without chunked prefill.",
      reads=("max_len", "max_seqs", "max_batched"))
def check(ctx: Context) -> Iterator[Finding]:
    dep = ctx.deployment
    budget = dep.get("max_num_batched_tokens")
    if not ctx.engine.checks_batched_tokens or not isinstance(budget, int) or budget <= 0:
        return
    seqs = dep.get("max_num_seqs")
    span = dep.span_of("max_num_batched_tokens")
    if isinstance(seqs, int) and budget < seqs:
        yield check.rule.finding(
            ctx, f"max_num_batched_tokens {budget} must be >= max_num_seqs {seqs}: vLLM refuses to start",
            span, related=[c.related(dep, "max_seqs", "the batch size it must cover")],
            fix=f"--max-num-batched-tokens {seqs}", max_num_batched_tokens=budget, max_num_seqs=seqs)
    length = _length(ctx)
    if dep.get("enable_chunked_prefill") is False and length and budget < length:
        yield check.rule.finding(
            ctx, f"max_num_batched_tokens {budget} is smaller than max_model_len {length} with chunked prefill "
            f"off: vLLM refuses to start (one prompt must fit one step)", span,
            related=[c.related(dep, "max_len", "the length one step must hold")],
            fix=f"--max-num-batched-tokens {length}", max_num_batched_tokens=budget, max_model_len=length)


def _length(ctx: Context) -> int | None:
    """The max_model_len in force: written, else the budget's or the model's derived one."""
    written = ctx.deployment.get("max_model_len")
    if isinstance(written, int) and written > 0:
        return written
    if ctx.budget is not None:
        return ctx.budget.max_model_len
    return ctx.model.max_len_vllm if ctx.model is not None else None
