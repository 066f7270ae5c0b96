"""A KV pool fixed by `--kv-cache-memory-bytes` does not fit the GPU beside the weights and non-KV memory.

## What it checks
With `--kv-cache-memory-bytes` (`--kv-cache-memory`) vLLM skips memory profiling and ignores
`--gpu-memory-utilization`: the pool is exactly the flag's value. It is still allocated on the same
card as the weights and the working set (activations, sampler, collectives, CUDA graphs), so per
rank weights + pool + non-KV must stay within the GPU's total memory (as torch reports it). This
rule fires when they do not, with the numbers and the largest pool that would fit.

## Why it matters
KV102 cannot catch this: the pool is not what is left over, it is demanded outright. vLLM fails with
`CUDA out of memory` when it allocates the pool (or while capturing CUDA graphs right after), after
the whole checkpoint has been loaded.

## Example
```
vllm serve Qwen/Qwen3-8B --kv-cache-memory 20G     # on a 24 GB L4: 15.3 GiB of weights + 20 GiB
```

## Use instead
```
vllm serve Qwen/Qwen3-8B --kv-cache-memory 4G
```
or drop the flag and let vLLM size the pool from `--gpu-memory-utilization`.

## Options
None.
"""

from __future__ import annotations

from collections.abc import Iterator

from kvlint.findings import Finding, Severity
from kvlint.registry import Context, rule
from kvlint.rules import _common as c

_DEST = "kv_cache_memory_bytes"


@rule("KV107", "fixed-pool-exceeds-memory", Severity.ERROR,
      "Weights, the pool fixed by --kv-cache-memory-bytes and non-KV memory exceed the GPU.",
      needs=("model", "gpu", "budget"))
def check(ctx: Context) -> Iterator[Finding]:
    dep, b = ctx.deployment, ctx.budget
    fp = b.fixed_pool if b is not None else None
    if b is None or fp is None or fp.overcommit_bytes <= 0:
        return
    over = fp.overcommit_bytes
    s = dep.settings.get(_DEST)
    written = f"{s.flag} {s.raw}" if s is not None and s.flag and s.raw else \
        f"--kv-cache-memory-bytes {b.kv_pool_bytes}"
    weights, non_kv, estimated = fp.weights_bytes, fp.non_kv_bytes, fp.estimated
    room = b.gpu_memory_bytes - weights - non_kv
    message = (f"{written} fixes the KV pool at {c.gib(b.kv_pool_bytes)} per rank, but weights "
               f"{c.gib(weights)} (tp {b.parallel.tp}, pp {b.parallel.pp}) + pool {c.gib(b.kv_pool_bytes)} + non-KV "
               f"{c.gib(non_kv)}{c.est(estimated)} exceed the {c.gib(b.gpu_memory_bytes)} of {c.gpu_label(ctx)} by "
               f"{c.gib(over)}: vLLM skips profiling and fails with CUDA out of memory when it allocates the pool.")
    flag = s.flag if s is not None and s.flag else "--kv-cache-memory-bytes"
    fix, holds = _largest_pool(ctx, room)
    if fix:
        message += f" Fits: {flag} {fix}" + ("." if holds else
                                            f", too small for one {b.max_model_len}-token request: lower "
                                            f"--max-model-len too.")
    elif room <= 0:
        message += " The weights and non-KV memory alone fill the card."
    yield check.rule.finding(
        ctx, message, (s.span if s is not None else None) or dep.launch_span,
        related=[c.related(dep, "tp", "splits the weights across ranks"),
                 c.related(dep, "quant", "sets the bytes per weight")],
        fix=f"{flag} {fix}" if fix else "drop --kv-cache-memory-bytes, use more GPUs or quantize",
        estimated=estimated, overcommit_bytes=over, pool_bytes=b.kv_pool_bytes, weights_bytes=weights,
        non_kv_bytes=non_kv)


def _largest_pool(ctx: Context, room: int) -> tuple[str | None, bool]:
    """Whole GiB that fit beside weights and non-KV (vLLM reads `4G` as 4 GiB), and whether one request fits it."""
    whole = int(room // c.GIB)
    if whole < 1:
        return None, False
    smaller = ctx.what_if({_DEST: whole * c.GIB})
    return f"{whole}G", smaller is not None and smaller.fits_one_request
