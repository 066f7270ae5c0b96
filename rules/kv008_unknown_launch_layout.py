"""Values that deploy an engine image in a layout kvlint cannot read: the readers report it, this
module documents it.

## What it checks
A values file (Helm chart values, or any YAML map that is not a Kubernetes object) whose `image`
is a vLLM or SGLang image (`vllm/vllm-openai`, `nm-vllm-openai`, `lmsysorg/sglang`, ...) but where
neither a known chart adapter, the container walk, nor the unknown-chart walk (model keys such as
`modelName`, `model`, `model.name`, `modelId`; argument lists such as `args`, `extraArgs`) finds a
launch. The finding points at the image.

## Why it matters
Without it such a file would pass silently: kvlint would check nothing and say nothing, which
reads as "all clear" for an engine it never saw.

## Example
```yaml
image:
  repository: vllm/vllm-openai   # KV008: engine image found, chart layout unknown
  tag: v0.9.1
service:
  port: 8000
```

## Use instead
Name the model under a key kvlint reads (`modelName:`, `model:`) and the engine flags under
`args:`, or add `# kvlint: disable-file` when the file does not start the engine itself (its model
is chosen elsewhere).

## Options
None. Info severity: it reports what kvlint could not read, not a fault in the file.
"""

from __future__ import annotations

from collections.abc import Iterable

from kvlint.findings import Finding, Severity
from kvlint.registry import Context, rule


@rule("KV008", "unknown-launch-layout", Severity.INFO,
      "An engine image is deployed by values whose layout kvlint cannot read as a launch.", source="reader")
def check(ctx: Context) -> Iterable[Finding]:
    return ()
