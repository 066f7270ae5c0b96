"""The GPU of a deployment could not be determined, so the capacity rules are skipped.

## What it checks
The GPU product comes from the manifest (`nvidia.com/gpu.product` node selectors and affinities,
`cloud.google.com/gke-accelerator`, instance types, chart keys), from `--gpu`, or from `gpu:` in
`.kvlint.yaml`. This finding fires when none gives a product, or the product is not in kvlint's
catalogue (the message lists close names).

## Why it matters
Whether a pool fits depends on the card: 80 GB and 48 GB cards give very different answers. kvlint
never guesses a GPU.

## Example
```yaml
resources:
  limits:
    nvidia.com/gpu: 1        # which GPU?
```

## Use instead
Declare the product where the scheduler sees it:
```yaml
nodeSelector:
  nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3
```
or set a default for the repository in `.kvlint.yaml` (`gpu: H100-SXM-80GB`), or pass `--gpu`.

## Options
None.
"""

from __future__ import annotations

from kvlint.findings import Severity
from kvlint.registry import rule


@rule("KV003", "unknown-gpu", Severity.WARNING, "The GPU product is not declared or not in the catalogue.",
      source="resolve")
def check(ctx):
    """Resolution failures are collected by the pipeline; this only turns them into findings."""
    dep = ctx.deployment
    if not ctx.gpu_error:
        return
    span = dep.gpu_span or dep.launch_span
    yield check.rule.finding(
        ctx, f"{ctx.gpu_error}; capacity rules skipped for this deployment", span,
        fix="declare the GPU (nvidia.com/gpu.product node selector), pass --gpu, or set `gpu:` in .kvlint.yaml",
        gpu=dep.gpu)
