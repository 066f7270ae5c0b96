"""The GPU product of a deployment is not declared, or the catalogue does not know the one named.

## What it checks
The GPU product comes from `--gpu`, the manifest (`nvidia.com/gpu.product` node selectors and
affinities, `cloud.google.com/gke-accelerator`, instance types, chart keys), the fleet map in
`.kvlint.yaml` (`node-labels:`, `gpus:` per path) or `gpu:` there. A product that is named but not in
kvlint's catalogue is a warning on that launch when it looks like a typo of a catalogue card (close names
are offered: an extra digit, letters, separators; never another model number of the same length, `RTX 4050`
is not a slip of `RTX 4090`), the rule's one warning; it is listed as info, what it prints in every other
case: a name with no close card, or one that states its memory (`rtx4070-8gb`, a MIG profile such as
`mig-2g.48gb`), is a real card only missing from kvlint's catalogue, so it is an info saying so
(`--gpu-memory` sizes it). When no product is named at all, kvlint sizes the launch
against the whole catalogue instead (KV108) and says so once per run, as an info finding with the
one-line fix. A launch on a TPU, CPU, Gaudi or Neuron device is not sized
(kvlint models GPU memory) and gets one info finding saying so, with nothing to fix.

## Why it matters
Whether a pool fits depends on the card: 80 GB and 48 GB cards give very different answers. kvlint
never guesses a GPU: it either uses the one you declare, or tries them all and says which start it.

## Example
```yaml
resources:
  limits:
    nvidia.com/gpu: 1        # which GPU?
nodeSelector:
  nvidia.com/gpu.product: NVIDIA-H1000   # not a product
```

## Use instead
Declare the product where the scheduler sees it:
```yaml
nodeSelector:
  nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3
```
or declare the fleet once in `.kvlint.yaml` (`gpu: H100-SXM-80GB`, `gpus: {"deploy/edge/**": L4}`,
`node-labels: {"cloud.google.com/gke-nodepool=a100-pool": A100-80GB}`), or pass `--gpu`.

## Options
None.
"""

from __future__ import annotations

from collections.abc import Iterator

from kvlint.findings import Finding, Severity
from kvlint.registry import Context, rule


@rule("KV003", "unknown-gpu", Severity.INFO, "The GPU product is not declared or not in the catalogue.",
      source="resolve")
def check(ctx: Context) -> Iterator[Finding]:
    """A named product the catalogue does not know; the run-level 'none declared' note comes from kvlint.lint."""
    dep = ctx.deployment
    if not ctx.gpu_error:
        return
    if ctx.device_kind is not None:  # a TPU or CPU launch is fine as it is: say why it is not sized, no fix
        yield check.rule.finding(ctx, f"{ctx.gpu_error}; capacity rules do not apply to this launch",
                                 dep.gpu_span or dep.launch_span, severity=Severity.INFO, gpu=dep.gpu)
        return
    span = dep.gpu_span or dep.launch_span
    skipped = "" if ctx.sweep is not None else "; capacity rules skipped for this deployment"
    swept = "; sized against the GPU catalogue instead (KV108)" if ctx.sweep is not None else skipped
    yield check.rule.finding(
        ctx, f"{ctx.gpu_error}{swept}", span,
        fix="declare the GPU (nvidia.com/gpu.product node selector), pass --gpu, or set `gpu:` in .kvlint.yaml",
        severity=Severity.WARNING if _looks_like_a_typo(ctx.gpu_error) and not _states_memory(dep.gpu)
        else Severity.INFO, gpu=dep.gpu)


def _looks_like_a_typo(error: str) -> bool:
    """The catalogue offered close names (kvlint.gpus: only a plausible slip of one of its cards, never another
    model number): a typo worth fixing. With none, the name is a card kvlint lacks (`RTX 4050`): sized on the
    catalogue, said as an info (the reviewer's table judged those warnings noise)."""
    return "did you mean" in error


def _states_memory(name: str | None) -> bool:
    """A name that says its memory (`...-8gb`, `mig-2g.48gb`) is a real card kvlint lacks, not a typo to fix:
    the reviewer's table judged every warning on such names noise."""
    import re

    return bool(name) and re.search(r"\d\s*gi?b\b", name or "", re.I) is not None
