"""The engine's CLI run with its server's flags but no subcommand: the CLI's parser rejects them and exits.

## What it checks
A command that runs an engine's own CLI program with the server's flags straight after it, where that CLI starts
the server only through a subcommand: vLLM's `vllm --model M --port 8000` (the server is `vllm serve M`). kvlint
reads the launch as it was meant (the server with those flags, each value at its place), so every other check
judges the intended settings; this rule says what the command really does.

## Why it matters
`vllm` is a command with subcommands (`serve`, `chat`, `bench`, ...); its top-level parser knows only `--help` and
`--version`, so `vllm --model M` exits with `unrecognized arguments` before anything loads. A script that reads
like a launch starts nothing, and the failure shows only when something waits for the port.

## Example
```bash
vllm --model Qwen/Qwen2.5-0.5B --port 8000 --max-model-len 1024
```

## Use instead
```bash
vllm serve Qwen/Qwen2.5-0.5B --port 8000 --max-model-len 1024
```

## Options
None.
"""

from __future__ import annotations

from collections.abc import Iterator

from kvlint.findings import Finding, Severity
from kvlint.registry import Context, rule
from kvlint.rules import _common as c


@rule("KV016", "cli-without-subcommand", Severity.ERROR,
      "The engine's CLI is run with its server's flags but no subcommand: its parser rejects them and exits.")
def check(ctx: Context) -> Iterator[Finding]:
    dep = ctx.deployment
    if dep.no_subcommand is None:
        return
    span, program, sub = dep.no_subcommand
    yield check.rule.finding(
        ctx, f"`{program}` is run with {c.title(dep.engine)}'s server flags but no subcommand: its parser takes only "
             f"--help and --version before one, so it exits with 'unrecognized arguments' and no server starts; "
             f"kvlint read the launch as meant (`{program} {sub}` with these flags)",
        span or dep.launch_span, fix=f"write `{program} {sub}` before the model and flags")
