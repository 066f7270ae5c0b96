"""A compose string `command:` cut at an operator before the engine's command: the engine never starts.

## What it checks
A compose service whose `command:` is one string holding shell operators (`&&`, `;`, `|`) with the engine's
command after the first of them, run by a shell entry point (`entrypoint: ["/bin/sh", "-c"]`, or `-lc`) or by the
image's own (no `entrypoint:`: `command: cd / && python3 -m vllm.entrypoints.openai.api_server ...`); or one
string of several words with no operator (`command: >- vllm serve "$${MODEL}" ...`), which compose also hands to the
shell word by word. kvlint reads the launch as it was meant (the whole string as the shell's script, each value at
its place), so every other check judges the intended settings; this rule says what the container really runs.

## Why it matters
Compose splits a string command into words itself (compose-go's `ShellCommand`, with mattn/go-shellwords), and its
splitter stops at the first unquoted `;`, `&` or `|`: everything after `python patch.py &&` is dropped. What is left
reaches `sh -c` as separate words, and `sh -c` runs only the first of them as its script (`python`, the others are
its `$0` and arguments). The container starts, runs something else, and the server the file describes never comes
up.

## Example
```yaml
services:
  vllm:
    image: vllm/vllm-openai:v0.11.0
    entrypoint: ["/bin/sh", "-c"]
    command: >
      python /tmp/patch.py &&
      python -m vllm.entrypoints.openai.api_server --model Qwen/Qwen3-8B
```

## Use instead
Give the shell its script as one word: a list with one item.
```yaml
    entrypoint: ["/bin/sh", "-c"]
    command:
      - >
        python /tmp/patch.py &&
        python -m vllm.entrypoints.openai.api_server --model Qwen/Qwen3-8B
```

## Options
None.
"""

from __future__ import annotations

from collections.abc import Iterator

from kvlint.findings import Finding, Severity
from kvlint.registry import Context, rule
from kvlint.rules import _common as c


@rule("KV017", "compose-command-cut", Severity.ERROR,
      "A compose string command is cut before the engine's command (at an operator, or after its first word).")
def check(ctx: Context) -> Iterator[Finding]:
    dep = ctx.deployment
    if dep.compose_cut is None:
        return
    span, operator = dep.compose_cut
    message = (f"compose splits this string command itself and stops at the first `{operator}`: the words after it, "
               f"the {c.title(dep.engine)} command among them, never reach the container, which runs only the words "
               "left (a shell entry point, only the first of them); kvlint read the launch as meant (the whole string "
               "as the shell's script)") \
        if operator else \
        (f"compose splits this string command into words and hands them to `sh -c` one by one: the shell runs only "
         f"the first as its script, and this word and those after it become its `$0` and arguments, so the "
         f"{c.title(dep.engine)} command starts without them; kvlint read the launch as meant (the whole string as "
         "the shell's script)")
    yield check.rule.finding(
        ctx, message, span,
        fix="give a shell its script as one word: `entrypoint: [\"/bin/sh\", \"-c\"]` and `command:` as a list "
            "with one item (`- >` then the lines)")
