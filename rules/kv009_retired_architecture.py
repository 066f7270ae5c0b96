"""The pinned engine release no longer serves the model's architecture.

## What it checks
The model's `architectures[0]` from its config.json against the release the image tag (or `--engine-version`,
or `engine-version:` in `.kvlint.yaml`) pins. vLLM keeps a table of model classes it served until a
release and of classes moved to out-of-tree plugins, and names them when it refuses a model; kvlint carries
that table (kvlint/data/architectures.json, read from vLLM 0.33). A launch on a release after the last one
that served its model class is reported at the image tag. Launches whose release is not pinned are not
checked (the default release is a guess, not a decision the file made).

## Why it matters
The pod pulls the image, loads nothing and exits: "Model architecture MllamaForConditionalGeneration was
supported in vLLM until v0.10.2, and is not supported anymore". The capacity numbers for such a launch
describe a server that never starts. vLLM tries its Transformers backend first, which runs some retired
decoder-only classes, so this is a warning, not an error.

## Example
```sh
docker run vllm/vllm-openai:v0.11.0 --model meta-llama/Llama-3.2-11B-Vision-Instruct
```

## Use instead
Pin the last release that served the model (`vllm/vllm-openai:v0.10.2`), move to a model the release
serves, or install the plugin the engine names for out-of-tree classes. For Falcon's old remote-code
`RWForCausalLM`, download the checkpoint's config.json again: tiiuae re-saved it as `FalconForCausalLM`.

## Options
None.
"""

from __future__ import annotations

from collections.abc import Iterator

from kvlint.findings import Finding, Severity
from kvlint.registry import Context, rule


@rule("KV009", "retired-architecture", Severity.WARNING,
      "The pinned engine release no longer serves the model's architecture.", needs=("model",), source="resolve")
def check(ctx: Context) -> Iterator[Finding]:
    """A pinned release after the last one that served the model class (or after its move to a plugin)."""
    model, version = ctx.model, ctx.pinned_version
    if model is None or version is None or not model.architecture:
        return
    gone = ctx.engine.retired_architecture(model.architecture, version)
    if gone is None or (gone.resaved_as and _bundled(model.source)):
        return  # a bundled copy of a re-saved checkpoint is older than what a download gives today
    title, dep = ctx.engine.title, ctx.deployment
    if gone.plugin is not None:
        said, fix = f"is served by a plugin since then ({gone.plugin})", f"install {gone.plugin}"
    else:
        said = f"was last served by v{gone.last_release}; {title} refuses it unless its Transformers backend runs it"
        fix = (f"download config.json again (current checkpoints name {gone.resaved_as})" if gone.resaved_as
               else f"pin v{gone.last_release} or a model {title} {version} serves")
    yield check.rule.finding(
        ctx, f"{title} {version} no longer serves {model.architecture} ({model.model_id}) in-tree: it {said}",
        dep.engine_version_span or dep.launch_span, fix=fix, architecture=model.architecture,
        last_release=gone.last_release)


def _bundled(source: str) -> bool:
    return "bundled:" in source or "derived:" in source
