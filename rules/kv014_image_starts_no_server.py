"""A published engine image that starts no server, given only the engine's flags: the container exits at start-up.

## What it checks
A container of a published image that carries an engine but whose entry point does not start it (SGLang's
`lmsysorg/sglang`: its Dockerfile sets no entry point and no server command), given only that engine's flags: a
compose `command:` with no `entrypoint:`, a Kubernetes container's `args:` with no `command:` (in a whole object: a
Kustomize patch, which names no `selector:`, leaves the command to its base), or the words after the image in
`docker run`. kvlint reads the launch as it was meant (the engine with those flags, each value at its
place), so every other check judges the intended settings; this rule says what the container really runs.

## Why it matters
Arguments given to an image replace its command, not its entry point: the container runs `--model-path=M` as a
program, which does not exist, and exits (`exec: "--model-path=M": executable file not found`). The manifest looks
like every vLLM one (whose image's entry point is the server), and the failure is a crash loop.

## Example
```yaml
services:
  sglang:
    image: lmsysorg/sglang:v0.5.2
    command: [--model-path, Qwen/Qwen3-8B, --port, "30000"]
```

## Use instead
Name the server: `entrypoint: [python3, -m, sglang.launch_server]` (compose), `command: [python3, -m,
sglang.launch_server]` (Kubernetes), or `docker run lmsysorg/sglang:v0.5.2 python3 -m sglang.launch_server
--model-path M`. An image of your own whose entry point starts the server is not reported.

## Options
None.
"""

from __future__ import annotations

from collections.abc import Iterator

from kvlint.engines.registered import facts
from kvlint.findings import Finding, Severity
from kvlint.registry import Context, rule
from kvlint.rules import _common as c


@rule("KV014", "image-starts-no-server", Severity.ERROR,
      "An engine image whose entry point starts no server is given only the engine's flags: the container exits.")
def check(ctx: Context) -> Iterator[Finding]:
    dep = ctx.deployment
    if dep.no_server_image is None:
        return
    span, image, first = dep.no_server_image
    engine = c.title(dep.engine)
    server = f"python3 -m {facts(dep.engine).ENTRY_MODULES[0]}"
    yield check.rule.finding(
        ctx, f"{image} starts no {engine} server on its own (the image sets no entry point for it): the container "
             f"runs `{first}` as its program and exits at start-up; kvlint read the launch as meant ({engine} with "
             "these flags)",
        span or dep.launch_span, fix=f"name the server before the flags (`{server}`): compose `entrypoint:`, "
                                     "Kubernetes `command:`, or the command after the image in `docker run`")
