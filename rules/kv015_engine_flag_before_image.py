"""An engine flag written among `docker run`'s own options, before the image: docker exits before the container starts.

## What it checks
`docker run [OPTIONS] IMAGE [ARGS...]`: every word before the image is docker's (or podman's, nerdctl's). A word
there that is not one of the container runtime's options but is exactly one of the engine's (`--max-model-len`,
`--tensor-parallel-size`, `--mem-fraction-static`) was meant for the engine and written on the wrong side of the
image. kvlint reads the launch as the rest of the command writes it (the image, the model and the flags after the
image; the misplaced flag and its value left out) and reports each such flag. A word that is one of the runtime's
options (`--device`, `--shm-size`, `--ipc`, both engines' and docker's) is docker's, and never reported.

## Why it matters
The container runtime parses its own options strictly: `docker run ... --max-model-len auto vllm/vllm-openai ...`
exits with `unknown flag: --max-model-len` before it pulls the image. A runbook that carries the command fails for
everyone who pastes it, and a script that runs it never starts the server.

## Example
```bash
docker run --gpus all -p 8000:8000 --max-model-len 4096 vllm/vllm-openai:v0.14.0 Qwen/Qwen3-0.6B
```

## Use instead
```bash
docker run --gpus all -p 8000:8000 vllm/vllm-openai:v0.14.0 Qwen/Qwen3-0.6B --max-model-len 4096
```

## Options
None.
"""

from __future__ import annotations

from collections.abc import Iterator

from kvlint.findings import Finding, Severity
from kvlint.registry import Context, rule
from kvlint.rules import _common as c


@rule("KV015", "engine-flag-before-image", Severity.ERROR,
      "An engine flag written before the image in `docker run`: the runtime exits with `unknown flag`.")
def check(ctx: Context) -> Iterator[Finding]:
    dep = ctx.deployment
    for span, flag in dep.runner_rejects:
        name = flag.split("=", 1)[0]
        yield check.rule.finding(
            ctx, f"{flag} is an option of {c.title(dep.engine)}, not of the container runtime, written before the "
                 f"image among the runtime's own options: docker exits with `unknown flag: {name}` and the container "
                 "never starts; kvlint read the launch without it", span or dep.launch_span,
            fix=f"move {name} and its value after the image (and the model)", flag=flag)
