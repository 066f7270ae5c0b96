"""A file that names an engine but from which no launch could be read: the readers report it, this module
documents it.

## What it checks
Three cases, one finding each, at the place the engine is named:
- a values file (Helm chart values, or any YAML map that is not a Kubernetes object) whose `image` is a
  vLLM or SGLang image (`vllm/vllm-openai`, `nm-vllm-openai`, `lmsysorg/sglang`, ...) but where neither a
  known chart adapter, the container walk, nor the unknown-chart walk (model keys such as `modelName`,
  `model`, `model.name`, `modelId`; argument lists such as `args`, `extraArgs`) finds a launch;
- any other file kvlint reads (script, Makefile, PowerShell, Python, Dockerfile, YAML) that names an engine
  entry point or image on a code or config line (`vllm serve`, `python -m vllm.entrypoints...`,
  `sglang.launch_server`, `trl vllm-serve`, `vllm/vllm-openai`, `lmsysorg/sglang`), or runs a container from
  an image variable named for an engine (`docker run -d "$SGLANG_IMAGE" $ARGS`), or decorates a function with a
  decorator named for an engine and given a model (Metaflow's `@vllm(model=..., openai_api_server=True)`), and gives
  no launch: a command shape kvlint does not read yet, an entry point started with the arguments passed to it
  (`"$@"`), or a Dockerfile whose entry point starts the engine with no model (the image, launched where it is run),
  or one that installs an engine and runs a script of the repository's that is not in the tree (`CMD ["./start.sh"]`);
- in a script whose other launches were read, a command that runs an engine entry point as words of its own
  through a program kvlint cannot read (`xargs -I{} vllm serve {}`, `parallel ... python -m
  sglang.launch_server ...`): one finding per such command (at most five a file), so a launch is not passed
  over because its neighbours were found. Printing, search and process tools (`echo`, `grep`, `pkill -f "vllm
  serve"`) do not run the engine and are not reported.
A mention in a comment or a Python docstring is not a place; the summary counts the places ("N places
named an engine but gave no launch"), and the JSON report's `summary.passed_over`.

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
`args:`, write the launch as a command line kvlint reads (`vllm serve MODEL --flags`), or add
`# kvlint: disable-file` when the file does not start the engine itself (its model is chosen elsewhere).

## Options
None. Info severity: it reports what kvlint could not read, not a fault in the file.
"""

from __future__ import annotations

from collections.abc import Iterable

from kvlint.findings import Finding, Severity
from kvlint.registry import Context, rule


@rule("KV008", "unknown-launch-layout", Severity.INFO,
      "A file names an engine entry point or image, but kvlint could not read a launch from it.",
      source="reader")
def check(ctx: Context) -> Iterable[Finding]:
    return ()
