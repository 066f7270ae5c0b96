"""The weights (plus non-KV memory) do not fit the memory the engine may use on one rank.

## What it checks
Per rank, the weights (split by tensor and pipeline parallelism, at the checkpoint's or the requested
precision) plus the non-KV memory (activations, CUDA graphs, NCCL) against the memory the engine
takes: `gpu_memory_utilization` x total for vLLM, `mem_fraction_static` x total for SGLang. When
nothing is left for the KV pool, the engine cannot start.

## Why it matters
vLLM fails with `No available memory for the cache blocks` or an out-of-memory while loading;
SGLang with `Loaded weights leave no GPU memory for the KV cache`. Either way the pod never serves.

## Example
```
vllm serve meta-llama/Llama-3.1-70B-Instruct      # 141 GB of bf16 weights on one 80 GB card
```

## Use instead
Split the model with `-tp` (the message names the smallest TP that leaves a pool), quantize the
weights (`--quantization fp8` or an AWQ/GPTQ checkpoint), or use a larger card.

## Options
None.
"""

from __future__ import annotations

from collections.abc import Iterator

from kvlint.budget import Budget
from kvlint.deployment import Deployment
from kvlint.engines import get_engine
from kvlint.findings import Finding, Severity
from kvlint.registry import Context, rule
from kvlint.rules import _common as c


@rule("KV102", "weights-exceed-memory", Severity.ERROR,
      "Weights and non-KV memory leave no KV pool on a rank.", needs=("model", "gpu", "budget"))
def check(ctx: Context) -> Iterator[Finding]:
    dep, b = ctx.deployment, ctx.budget
    if b is None or b.kv_pool_bytes > 0:
        return
    if _derived_out_of_domain(dep, b):
        yield _refused_share(ctx, b)
        return
    usable = b.requested_bytes or b.gpu_memory_bytes
    share = _share(dep, b)
    message = (f"weights need {c.gib(b.weights_bytes, 1)} per rank (tp {b.parallel.tp}, pp {b.parallel.pp}) and "
               f"non-KV {c.gib(b.non_kv_bytes, 1)}{c.basis(b)}, but {share} of {c.gpu_label(ctx)} "
               f"leaves {c.gib(usable, 1)}: no memory for the KV cache, "
               f"{c.title(dep.engine)} cannot start.")
    tp = _smallest_tp(ctx, b)
    if tp:
        message += f" Fits: {c.flag(dep.engine, 'tp')} {tp}."
    yield check.rule.finding(
        ctx, message, c.primary(dep, "tp", "quant"),
        related=[c.related(dep, "mem", "the engine's share of GPU memory"),
                 c.related(dep, "quant", "sets the bytes per weight")],
        fix=f"{c.flag(dep.engine, 'tp')} {tp}" if tp else "quantize the weights or use a larger GPU",
        estimated=b.kv_pool_estimated, weights_bytes=b.weights_bytes, usable_bytes=usable, fits_tp=tp)


def _derived_out_of_domain(dep: Deployment, b: Budget) -> bool:
    """The engine derived its memory share itself and got a value at or below 0 (SGLang 0.5.3+ reserves 1.5 MB per
    token of --chunked-prefill-size: 131072 is 192 GiB, more than an 80 GB card)."""
    fraction = _fraction(b)
    written = dep.settings.get(get_engine(dep.engine).setting("mem"))
    return fraction is not None and fraction <= 0 and (written is None or written.origin == "default")


def _refused_share(ctx: Context, b: Budget) -> Finding:
    """The derived share is outside its domain: the engine refuses to start, whatever the weights; the fix is the
    flag that sets the share (and the setting the derivation grew from)."""
    dep, engine = ctx.deployment, ctx.engine
    name, fraction = engine.setting("mem"), _fraction(b)
    cause = c.span(dep, "max_batched")
    grew = (f" from {engine.flag('max_batched')} {c.value(dep, 'max_batched')}" if cause is not None else "")
    fixes = []
    for share in (0.85, 0.8, 0.9):
        given = ctx.what_if({name: share})
        if given is not None and given.kv_pool_bytes > 0:
            fixes.append(f"{engine.flag('mem')} {share:g}")
            break
    fix = fixes[0] if fixes else f"{engine.flag('mem')} (a fraction in (0, 1))"
    message = (f"{engine.title} {b.engine_version} derives {name} {round(fraction or 0, 3):g} on {c.gpu_label(ctx)}"
               f"{grew}: a fraction at or below 0, so {engine.title} refuses to start (no memory for weights or KV "
               f"cache). Set {fix}" + (f" or lower {engine.flag('max_batched')}" if cause is not None else "") + ".")
    return check.rule.finding(
        ctx, message, cause or c.primary(dep, "tp", "quant"),
        related=[c.related(dep, "mem", "the engine's share of GPU memory")], fix=fix,
        estimated=False, derived_fraction=fraction, release=b.engine_version)


def _share(dep: Deployment, b: Budget) -> str:
    """A flag the user wrote is quoted as written; a default is named as the engine's, never as a flag."""
    fraction = _fraction(b)
    if not fraction:
        return "the engine's share"
    engine = get_engine(dep.engine)
    name = engine.setting("mem")
    written = dep.settings.get(name)
    if written is not None and written.origin != "default":
        return f"{engine.flag('mem')} {fraction:g}"
    return f"{name} {round(fraction, 3):g} ({engine.title}'s {engine.memory_share_default})"


def _fraction(b: Budget) -> float | None:
    """The engine's memory share: SGLang's mem_fraction_static, else vLLM's requested / total."""
    if b.mem_fraction_static is not None:
        return b.mem_fraction_static
    return round(b.requested_bytes / b.gpu_memory_bytes, 2) if b.requested_bytes and b.gpu_memory_bytes else None


def _smallest_tp(ctx: Context, b: Budget) -> int | None:
    dep = ctx.deployment
    for tp in (2, 4, 8, 16):
        if tp <= b.parallel.tp:
            continue
        wider = ctx.what_if({c.setting_name(dep.engine, "tp"): tp})
        if wider is not None and wider.kv_pool_bytes > 0 and wider.fits_one_request:
            return tp
    return None
