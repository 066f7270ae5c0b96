"""vLLM refuses to start: one request at max_model_len does not fit the KV pool.

## What it checks
vLLM sizes its KV pool at startup (`gpu_memory_utilization` x total memory, minus weights and the
non-KV memory it profiles) and then checks that one request of `max_model_len` tokens fits. kvlint
repeats that arithmetic from the model's config.json, the GPU and the flags, and reports the bytes
needed, the bytes available, and the largest length that fits (vLLM's own binary search). With PP 3
or 4 vLLM checks the stages in order and its message quotes the first that fails, whose length a later
stage may not hold; the finding then shows the engine's number and the length that fits every stage.

## Why it matters
vLLM raises `To serve at least one request with the model's max seq len ...` and the pod
crash-loops, after pulling the image and loading every weight.

## Example
```
vllm serve Qwen/Qwen2.5-32B-Instruct --max-model-len 131072    # on one H100 80GB
```

## Use instead
Lower `--max-model-len` to the length in the message, store KV in fp8 (`--kv-cache-dtype fp8`),
raise `--gpu-memory-utilization`, or add GPUs with `-tp`. Each alternative in the message is
computed, not guessed.

Where the non-KV term is kvlint's estimate, the verdict carries its uncertainty: for each release era,
`kvlint/data/nonkv.json` records the most the estimate under-stated the pool on real logs of that era
(bench/pool_error.py). A shortfall inside that band is a warning ("may refuse ... within the estimate's
+-X GiB"), not an error. A launch that pins no release (no image tag, a host install) is also judged on
one release of every era; when one of them starts it, the finding is an info naming the releases.

## Options
None. Findings that rest on the non-KV estimate are marked `estimated`; give them their own
severity with `estimated-severity: {KV101: warning}`. Once `kvlint verify LOG --calibrate` has measured
this deployment's non-KV memory, the message says `calibrated` and the finding is exact.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from kvlint.budget import Budget, VllmDetail
from kvlint.findings import Finding, Severity
from kvlint.registry import Context, rule
from kvlint.rules import _common as c


@rule("KV101", "pool-below-one-request", Severity.ERROR,
      "One request at max_model_len does not fit the KV pool; vLLM refuses to start.",
      needs=("model", "gpu", "budget"))
def check(ctx: Context) -> Iterator[Finding]:
    dep, b = ctx.deployment, ctx.budget
    if b is None or not ctx.engine.refuses_unfit_request or b.fits_one_request or b.kv_pool_bytes <= 0:
        return
    needed = _needed(b)
    field, words = c.config_field(ctx, "num_kv_heads")
    message = (f"max_model_len {b.max_model_len} needs {c.gib(needed)} of KV cache per rank{words}; the pool holds "
               f"{c.gib(b.kv_pool_bytes)} ({c.tokens(b.kv_tokens)} tokens) on {c.gpu_label(ctx)} "
               f"(weights {c.gib(b.weights_bytes, 1)}, non-KV {c.gib(b.non_kv_bytes, 1)}{c.basis(b)}).")
    severity, verdict, data = _verdict(ctx, b)
    message += " " + verdict
    fixes = _alternatives(ctx, b)
    if _model_max(ctx) and b.max_model_len > _model_max(ctx):
        message += f" The model's own maximum is {c.tokens(_model_max(ctx))} tokens (KV105)."
    if fixes:
        message += " Fits: " + ", or ".join(fixes) + "."
    yield check.rule.finding(
        ctx, message, c.primary(dep, "max_len"),
        related=[c.related(dep, "mem", "sets the share of the GPU the pool comes from"),
                 c.related(dep, "kv_dtype", "sets the bytes per cached token"),
                 c.related(dep, "tp", "splits KV heads and weights across ranks"), field],
        fix=fixes[0] if fixes else "use a larger GPU or more of them", severity=severity,
        estimated=b.kv_pool_estimated, needed_bytes=needed, pool_bytes=b.kv_pool_bytes,
        kv_tokens=b.kv_tokens, max_model_len=b.max_model_len, fits_max_model_len=b.estimated_max_model_len,
        engine_estimated_max_model_len=_engine_estimate(b), **data)


def _verdict(ctx: Context, b: Budget) -> tuple[Severity | None, str, dict[str, Any]]:
    """The refusal as the estimate supports it. A launch that pins no release could run any era's: when one of
    them starts it, the release decides (an info naming them). Otherwise, a shortfall inside the non-KV estimate's
    band (how much larger the pool has been than estimated on that era's logs) is a warning that says so; beyond
    it, the error. Each era is judged with its own band."""
    short = _shortfall(b)
    data: dict[str, Any] = {"short_bytes": short, "pool_band_bytes": b.pool_band_bytes}
    if ctx.release_open:
        tried = [(r, x) for r in ctx.engine.era_releases() if r != b.engine_version
                 for x in (ctx.on_release(r),) if x is not None]
        starts = [(r, x) for r, x in tried if _starts(x)]
        if starts:
            refuses = [b.engine_version] + [r for r, x in tried if not _starts(x)]
            fits = [f"{r} ({c.gib(x.kv_pool_bytes)} est.)" for r, x in starts if x.fits_one_request]
            near = [f"{r} ({c.gib(_shortfall(x))} short, within its +-{c.gib(x.pool_band_bytes)})"
                    for r, x in starts if not x.fits_one_request]
            on = "; ".join(p for p in (f"starts on {', '.join(fits)}" if fits else "",
                                       f"may start on {', '.join(near)}" if near else "") if p)
            words = (f"vLLM {', '.join(refuses)} refuses to start, but the launch pins no vLLM release: it {on}. "
                     f"The release decides (pin the image tag, or `engine-version:` in .kvlint.yaml).")
            return Severity.INFO, words, {**data, "open_input": "vLLM release", "on": refuses,
                                          "off": [r for r, _ in starts]}
    if b.pool_band_bytes and short <= b.pool_band_bytes:
        words = (f"vLLM may refuse to start: the pool falls {c.gib(short)} short, within the non-KV estimate's "
                 f"+-{c.gib(b.pool_band_bytes)} (the most the pool was under-estimated on {b.pool_band_era}).")
        return Severity.WARNING, words, data
    return None, f"vLLM refuses to start{_printed(b)}.", data


def _shortfall(b: Budget) -> int:
    """Bytes the pool lacks for one max-length request (with the one block the engine's check may hold back)."""
    block = b.detail.bytes_per_block if isinstance(b.detail, VllmDetail) else 0
    return max(0, _needed(b) + block - b.kv_pool_bytes)


def _starts(b: Budget) -> bool:
    """The estimate says it starts, or its shortfall lies inside the era's band."""
    return b.fits_one_request or (b.kv_pool_bytes > 0 and _shortfall(b) <= b.pool_band_bytes)


def _engine_estimate(b: Budget) -> int | None:
    return b.detail.engine_estimated_len if isinstance(b.detail, VllmDetail) else None


def _printed(b: Budget) -> str:
    """The length vLLM's message prints where it is not the one kvlint suggests: vLLM checks the pipeline stages
    in order and quotes the first that fails; a later stage may hold less, and only the smaller length starts.
    (Where they agree, the suggested --max-model-len is the engine's own number.)"""
    printed = _engine_estimate(b)
    if printed is None or printed == b.estimated_max_model_len:
        return ""
    fits = (f"{c.tokens(b.estimated_max_model_len)} tokens fit every stage" if b.estimated_max_model_len
            else "no length fits every stage")
    return (f" (its message: \"the estimated maximum model length is {printed}\"; that is the first pipeline stage "
            f"that fails: {fits})")


def _needed(b: Budget) -> int:
    """Bytes one max-length request takes, as vLLM's check counts them (blocks per request x block bytes)."""
    if b.request_bytes:
        return b.request_bytes
    block = b.block_size or 1
    return b.kv_bytes_per_token * (-(-b.max_model_len // block) * block)


def _alternatives(ctx: Context, b: Budget) -> list[str]:
    """Levers that make one request fit, each checked by recomputing the budget.

    Only levers that keep max_model_len: when the length is past the model's own maximum (KV105), a
    bigger pool cannot serve it, so only the shorter length is offered.
    """
    dep = ctx.deployment
    out: list[str] = []
    derived = _model_max(ctx)
    longest = min(b.estimated_max_model_len or 0, derived or b.max_model_len)
    if longest:
        out.append(f"{c.flag(dep.engine, 'max_len')} {longest}")
    if derived and b.max_model_len > derived:
        return out
    if b.kv_cache_dtype in ("auto", "bfloat16", "float16", "bf16", "half"):
        fp8 = ctx.what_if({c.setting_name(dep.engine, "kv_dtype"): c.fp8_kv(dep.engine)})
        if fp8 is not None and fp8.fits_one_request:
            out.append(f"{c.flag(dep.engine, 'kv_dtype')} {c.fp8_kv(dep.engine)} ({c.tokens(fp8.kv_tokens)} tokens)")
    tp = b.parallel.tp * 2
    wider = ctx.what_if({c.setting_name(dep.engine, "tp"): tp})
    if wider is not None and wider.fits_one_request:
        out.append(f"{c.flag(dep.engine, 'tp')} {tp}")
    return out


def _model_max(ctx: Context) -> int:
    """The longest length the model derives (0 when unknown): past it the engine refuses whatever the pool."""
    return ctx.engine.max_len_limit(ctx.model) if ctx.model is not None else 0
