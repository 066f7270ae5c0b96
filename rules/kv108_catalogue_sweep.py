"""No GPU declared: the launch sized on every card of the GPU catalogue, or on each GPU the file offers.

## What it checks
When no GPU product is known for a launch (most manifests leave it to a node pool), kvlint runs the
engine's own start-up check on every card in its catalogue (on the vendor's cards only when the file
says the vendor: a ROCm image or an `amd.com/gpu` request means AMD, the engines' own CUDA images
NVIDIA; never on the Pascal boards, P100 and P40, catalogued so a manifest naming one resolves but run by
neither engine's build) at the launch's TP x PP x DP and settings
(vLLM: one request at `max_model_len` fits, null block included; SGLang: the pool holds the context),
and finds by bisection the least per-GPU memory at which the engine starts it, and at which it holds
the declared concurrency when one is declared. The finding says which cards pass and which fail,
grouped by memory class. It is an info finding, and an **error** when no card in the catalogue can
start the launch at that parallelism (a 405B bf16 model at TP 1).

When the file offers several GPUs (SkyPilot `accelerators: {L4: 8, A100: 4}` or `any_of`, node
affinity `nvidia.com/gpu.product In [...]`, GKE accelerator lists), each is tried and the ones on
which the launch would not start (error when none starts, warning otherwise) or would not hold its
declared load (warning) are reported.

## Why it matters
"Will it start, and on what?" is the question a reviewer asks of a manifest that does not say, and
the engine answers it from per-GPU memory alone. A scheduler that may pick any of several GPUs will
sooner or later pick the one on which the engine refuses to start.

## Example
```yaml
# no nodeSelector, no GPU product anywhere
args: ["--model", "meta-llama/Meta-Llama-3-70B-Instruct", "--max-model-len", "8192"]
```

## Use instead
Declare the GPU the pool really has (`nvidia.com/gpu.product` node selector, or `.kvlint.yaml`
`gpus:` / `node-labels:` for the fleet) to get the full capacity checks; raise TP, quantize, or
shorten the context where no card can start it; drop the candidates on which it fails.

## Options
None.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from kvlint.findings import Finding, Severity
from kvlint.registry import Context, rule
from kvlint.rules import _common as c
from kvlint.status import CardVerdict, Sweep

SHOWN = 4  # cards named per group before "and N more"


@rule("KV108", "catalogue-sweep", Severity.INFO,
      "No GPU declared: which catalogue cards start the launch, and the least memory per GPU it needs.",
      needs=("model", "sweep"))
def check(ctx: Context) -> Iterator[Finding]:
    if ctx.sweep is not None:
        yield from _catalogue(ctx, ctx.sweep)
    if ctx.candidates is not None:
        yield from _candidates(ctx, ctx.candidates)


def _catalogue(ctx: Context, sweep: Sweep) -> Iterator[Finding]:
    dep = ctx.deployment
    what = _what(ctx)
    where = f"the GPU catalogue's {sweep.scope}" if sweep.scope else "the GPU catalogue"
    if not sweep.passing:
        need = f"at least {c.gib(sweep.min_gpu_memory_bytes, 1)} per GPU" if sweep.min_gpu_memory_bytes else \
            "more memory per GPU than 4 TiB"
        largest = max(sweep.cards, key=lambda v: v.memory_bytes) if sweep.cards else None
        biggest = f" (the largest, {largest.gpu}, has {c.gib(largest.memory_bytes, 1)})" if largest else ""
        among = f" among the {sweep.scope}" if sweep.scope else ""
        yield check.rule.finding(
            ctx, f"no GPU in the catalogue{among} can start {what}: it needs {need}{biggest}",
            c.primary(dep, "tp", "max_len"),
            fix="raise the tensor / pipeline parallel size, quantize the weights, or shorten the context",
            severity=Severity.ERROR, estimated=True, min_gpu_memory_bytes=sweep.min_gpu_memory_bytes)
        return
    floor = sweep.min_gpu_memory_bytes or 0
    below = [v.gpu for v in sweep.cards if v.starts and v.memory_bytes < floor]
    message = (f"no GPU product declared; on {where}, {what} starts on every card with at least "
               f"{c.gib(floor, 1)} per GPU")
    if below:
        message += f" and on {', '.join(below[:SHOWN])}{_more(below)} (smaller engine defaults there)"
    message += f": passes on {_groups(sweep.cards, True)}"
    if sweep.failing:
        message += f"; fails on {_groups(sweep.cards, False)}"
    message += _load_words(ctx, sweep)
    yield check.rule.finding(
        ctx, message + ". Declare the GPU for the full capacity checks.", dep.launch_span or dep.model_span,
        fix="declare the GPU: an nvidia.com/gpu.product node selector, `gpus:` / `node-labels:` in .kvlint.yaml, "
            "or --gpu", estimated=True, min_gpu_memory_bytes=sweep.min_gpu_memory_bytes,
        passing=list(sweep.passing), failing=list(sweep.failing))


def _candidates(ctx: Context, sweep: Sweep) -> Iterator[Finding]:
    dep = ctx.deployment
    fails = [v for v in sweep.cards if not v.starts]
    short = [v for v in sweep.cards if v.starts and v.holds_load is False]
    if not fails and not short:
        return
    what = _what(ctx)
    parts = []
    if fails:
        need = f" (it needs {c.gib(sweep.min_gpu_memory_bytes, 1)} per GPU)" if sweep.min_gpu_memory_bytes else ""
        parts.append(f"{what} does not start on {', '.join(v.gpu for v in fails)}{need}")
    if short:
        subject = "it" if fails else what
        parts.append(f"{subject} holds fewer than the declared {ctx.declared_load} full-length requests on "
                     f"{', '.join(v.gpu for v in short)}")
    passing = [v.gpu for v in sweep.cards if v.starts and v.holds_load is not False]
    tail = f"; fine on {', '.join(passing)}" if passing else ""
    severity = Severity.ERROR if not sweep.passing else Severity.WARNING
    yield check.rule.finding(
        ctx, f"of the GPUs this file offers, {'; '.join(parts)}{tail}", dep.gpu_span or dep.launch_span,
        fix="drop the GPUs it cannot use from the candidates, or size the launch for the smallest one",
        severity=severity, estimated=True, failing=[v.gpu for v in fails], short=[v.gpu for v in short])


def _what(ctx: Context) -> str:
    dep, model = ctx.deployment, ctx.model
    tp = c.tp_of(dep)
    length = c.value(dep, "max_len")
    if not isinstance(length, int) and model is not None:
        length = ctx.engine.derived_max_len(model)
    where = f" at {c.setting_name(dep.engine, 'max_len')} {c.tokens(length)}" if isinstance(length, int) else ""
    cap = c.value(dep, "pool_cap") if c.has_role(dep.engine, "pool_cap") else None
    if isinstance(cap, int) and not isinstance(cap, bool) and (not isinstance(length, int) or cap < length):
        where += f" with its pool capped at {c.flag(dep.engine, 'pool_cap')} {c.tokens(cap)}"
    name = c.launch_model(ctx)
    return f"{ctx.engine.title} with {name}{where} ({c.flag(dep.engine, 'tp')} {tp})"


def _load_words(ctx: Context, sweep: Sweep) -> str:
    if ctx.declared_load is None:
        return ""
    holding = [v for v in sweep.cards if v.holds_load]
    if not holding:
        return f"; no card holds the declared {ctx.declared_load} concurrent full-length requests"
    need = c.gib(sweep.min_load_memory_bytes, 1) if sweep.min_load_memory_bytes else "?"
    return (f"; to hold the declared {ctx.declared_load} concurrent full-length requests it needs {need} per GPU "
            f"({_groups(sweep.cards, True, holding=True)})")


def _groups(cards: tuple[CardVerdict, ...], passing: bool, *, holding: bool = False) -> str:
    """Cards grouped by memory class: `80 GB (H100-SXM-80GB, ...)`, the classes nearest the boundary first
    shown (the smallest that pass, the largest that fail)."""
    chosen = [v for v in cards if bool(v.holds_load if holding else v.starts) == passing]
    classes: dict[int, list[str]] = {}
    for v in sorted(chosen, key=lambda v: (v.memory_class or _class(v.gpu), v.gpu)):
        classes.setdefault(v.memory_class or _class(v.gpu), []).append(v.gpu)
    items = list(classes.items())
    tail = ""
    if len(items) > 3:
        tail = f" and {len(items) - 3} {'larger' if passing else 'smaller'} classes"
        items = items[:3] if passing else items[-3:]
    words = [f"{gb} GB ({', '.join(names[:SHOWN])}{f' and {len(names) - SHOWN} more' if len(names) > SHOWN else ''})"
             for gb, names in items]
    return "; ".join(words) + tail


def _more(names: list[str]) -> str:
    return f" and {len(names) - SHOWN} more" if len(names) > SHOWN else ""


def _class(gpu_id: str) -> int:
    m = re.search(r"(\d+)GB", gpu_id)
    return int(m.group(1)) if m else 0
