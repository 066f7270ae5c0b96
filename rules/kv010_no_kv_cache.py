"""The launch starts a server with no KV cache (SGLang's diffusion server): nothing to size.

## What it checks
`sglang serve` is a dispatcher: a diffusion model (FLUX, Qwen-Image, Wan, MiniMax-H3 ...) goes to SGLang's
diffusion server (`sglang.multimodal_gen`), not to the LLM server, and `python -m
sglang.multimodal_gen.runtime.launch_server` starts that server directly. kvlint reads such a launch's flags with
the diffusion server's own table (`--num-gpus`, `--dit-cpu-offload`, `--ulysses-degree` are its flags; a flag it does
not know is still a KV004) and does not size it: that server keeps no KV cache of an LLM. This info says so, once
per launch, so a launch left unsized is never silent; its status (JSON `skip_kind: "no-kv-cache"`) says it too.

A launch is read as the diffusion server's when the command line shows it: the entry module; `--model-type
diffusion`; a model id the server's registry names (kvlint/data/sglang_diffusion_flags.json, from the wheels); or
flags only the diffusion server takes, with none only the LLM server takes. Otherwise it is the LLM server's.

## Why it matters
Judged by the LLM server's table, every diffusion flag would be an "unrecognized argument" error, and a model
with no LLM config would be a KV002: all wrong. Saying why the launch is not sized keeps the summary honest.

## Example
```sh
sglang serve --model-path MiniMaxAI/MiniMax-H3 --num-gpus 1 --dit-cpu-offload --pin-cpu-memory
```

## Use instead
Nothing to change. `--model-type llm` (or `diffusion`) tells `sglang serve`, and kvlint, which server to start.

## Options
None.
"""

from __future__ import annotations

from collections.abc import Iterator

from kvlint.findings import Finding, Severity
from kvlint.registry import Context, rule


@rule("KV010", "no-kv-cache", Severity.INFO,
      "The launch starts a server with no KV cache (SGLang's diffusion server): nothing to size.", source="resolve")
def check(ctx: Context) -> Iterator[Finding]:
    """The engine record says the launch's server is not sized (kvlint.resolve skipped it): one info, no fix."""
    dep = ctx.deployment
    why = ctx.engine.unsized_server(dep.server)
    if why is None:
        return
    yield check.rule.finding(ctx, f"{why}; capacity rules do not apply to this launch", dep.launch_span,
                             server=dep.server)
