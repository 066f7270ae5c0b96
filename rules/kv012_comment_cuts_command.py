r"""A comment (or a missing `\`) that ends a launch's command before its last line.

## What it checks
A command continued over several lines (`\` at the end of each) in which one line ends in a comment. The shell
ends the command at the comment: a `\` inside a comment is part of the comment and continues nothing. The option
lines after it are a command of their own (`--max-model-len: command not found`). The finding is at the first
option cut off, with the line the command ends on.

When the comment falls after the engine's command (`vllm serve M ... # note \`), the engine starts without the
options below it, and kvlint reads the launch as the shell runs it, so every capacity check judges what really
starts. When it falls before (`docker run ... --ipc host  # required \`, then the image and `vllm serve`), the
shell runs the wrapper cut short, which fails; kvlint reads the launch as it was meant, so its checks still apply.

A `\` followed by a blank at a line's end cuts the command the same way (the backslash escapes the blank, not the
newline: the command ends with a one-blank argument, and the option lines run on their own); kvlint reads the launch
as it was meant and says where the command ends.

So does a line with no `\` at all when option lines follow right below it: the `\` left out, or written at the
start of the next line (`\ --reasoning-parser X`, a command not found). kvlint counts only option lines directly
under a command that names an engine or a container runner (not after a blank line, not in a README's next code
block, not below a usage text). A `bash -c "..."` script inside a compose file, a manifest or a CI step is read the
same way: a folded `>` string keeps the newline before a more-indented line, so `bash -c "python3 -m vllm...` with
its options indented further runs the entry point alone (sample K290).

## Why it matters
The script looks right and starts something else: the server comes up without `--max-model-len` or
`--tensor-parallel-size`, or the container never starts. The error is a line in a log that nobody reads.

## Example
```bash
docker run --gpus all \
  --ipc host   # required by NCCL \
  --shm-size 16g \
  vllm/vllm-openai:v0.11.0 \
  --model Qwen/Qwen2.5-7B-Instruct
```

## Use instead
Put the comment on a line of its own above the command, or after its last line; a line continues only when `\`
is its last character.

## Options
None. Warning severity: the command runs, without what follows the comment.
"""

from __future__ import annotations

from collections.abc import Iterable

from kvlint.findings import Finding, Related, Severity
from kvlint.registry import Context, rule


@rule("KV012", "comment-cuts-command", Severity.WARNING,
      "A comment or a missing `\\` ends a launch's continued command: the option lines after it never reach it.",
      source="reader")
def check(ctx: Context) -> Iterable[Finding]:
    """A launch read from a shell string inside another file (a compose `bash -c "..."`, a CI step's script, a
    README's block) carries its cut; a shell file's and a Makefile's readers say theirs themselves, once each."""
    cut = ctx.deployment.cut
    if cut is None:
        return ()
    message, fix = cut.said()
    return (Finding("KV012", "comment-cuts-command", Severity.WARNING, message, cut.words, fix=fix,
                    related=(Related(cut.comment, "the command ends here"),)),)
