"""The engine's CLI package run as a module (`python -m vllm serve M`): the package has no `__main__`, so Python exits.

## What it checks
A command that runs `python -m PACKAGE SUBCOMMAND ...` where PACKAGE is an engine's command-line package that has
no `__main__` module: vLLM's `vllm` (its wheels hold `vllm/entrypoints/cli/main.py`, installed as the `vllm`
command, and no `vllm/__main__.py`). kvlint reads the launch as it was meant (`vllm serve` with these arguments,
each value at its place), so every other check judges the intended settings; this rule says what the command
really does.

## Why it matters
Python runs a package given to `-m` through its `__main__` module; without one it stops at once with
`No module named vllm.__main__; 'vllm' is a package and cannot be directly executed`. The script reads like a
launch and starts nothing; the failure shows only when something waits for the port.

## Example
```bash
python -m vllm serve Qwen/Qwen2.5-0.5B --max-model-len 1024
```

## Use instead
```bash
vllm serve Qwen/Qwen2.5-0.5B --max-model-len 1024
python -m vllm.entrypoints.cli.main serve Qwen/Qwen2.5-0.5B --max-model-len 1024  # the same CLI, as a module
```

## Options
None.
"""

from __future__ import annotations

from collections.abc import Iterator

from kvlint.findings import Finding, Severity
from kvlint.registry import Context, rule
from kvlint.rules import _common as c


@rule("KV018", "package-without-main", Severity.ERROR,
      "The engine's CLI package is run as a module (`python -m vllm serve`): it has no __main__, so Python exits.")
def check(ctx: Context) -> Iterator[Finding]:
    dep = ctx.deployment
    if dep.no_main is None:
        return
    span, package, meant = dep.no_main
    yield check.rule.finding(
        ctx, f"`python -m {package}` starts nothing: {c.title(dep.engine)}'s `{package}` package has no __main__ "
             f"module, so Python exits ('{package}' is a package and cannot be directly executed) and no server "
             f"starts; kvlint read the launch as meant (`{meant}` with these arguments)",
        span or dep.launch_span, fix=f"run `{meant} ...` (the installed command) instead of `python -m {package} ...`")
