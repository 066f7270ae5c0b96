"""A build on the engine's own image whose CMD names a script or a program: the engine reads it as its argument.

## What it checks
A Dockerfile `FROM` an image whose entry point starts the engine (`vllm/vllm-openai`: `vllm serve`; its older
tags: `python3 -m vllm.entrypoints.openai.api_server`) that sets no `ENTRYPOINT` of its own and an exec-form `CMD`
whose first word is a script or a program (`CMD ["./startup.sh"]`, `CMD ["bash", "/app/run.sh"]`, `CMD ["python3",
"-m", "vllm.entrypoints.openai.api_server", ...]`). Docker appends the CMD to the entry point, so the container
runs `vllm serve ./startup.sh`: the engine reads the script's path as the model (or refuses the word). The
Dockerfile reader reports it at the CMD's first word. A script's build reads no launch from the image (the script
is the launch, where it is); an engine command written in the CMD is read as meant, as KV014 and KV018 do.

## Why it matters
The image builds and pushes; the container exits at start-up, the engine failing to load a model named after a
shell script, and the script that was meant to start it never runs.

## Example
```dockerfile
FROM vllm/vllm-openai:v0.16.0
COPY startup.sh .
CMD ["./startup.sh"]
```

## Use instead
`ENTRYPOINT ["./startup.sh"]`, or `ENTRYPOINT []` before the `CMD`. A build whose own ENTRYPOINT runs the script,
a shell-form CMD (`CMD ./startup.sh`, run through `/bin/sh -c`), or a base image with no engine entry point
(`lmsysorg/sglang`) is not reported.

## Options
None. Warning severity: a compose `entrypoint:` or a Kubernetes `command:` that runs the image may replace the
entry point; the image as built does not start.
"""

from __future__ import annotations

from collections.abc import Iterable

from kvlint.findings import Finding, Severity
from kvlint.registry import Context, rule


@rule("KV019", "cmd-handed-to-engine-cli", Severity.WARNING,
      "A build on the engine's own image whose exec-form CMD names a script: the engine's CLI takes it as the model.",
      source="reader")
def check(ctx: Context) -> Iterable[Finding]:
    return ()
