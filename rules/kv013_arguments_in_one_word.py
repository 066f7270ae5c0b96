"""A launch's arguments passed to the engine as one word: the server exits at start-up.

## What it checks
A word of the engine's command that holds several of its arguments (`--model-path M --tp 2`), in the place of an
argument, not of a flag's value. It comes from a quoted expansion (`python -m sglang.launch_server "$args"` after
`args=" --model-path M --tp 2"`) or a quoted string, where the shell passes it whole (the quotes are what stop the
split), or from one item of an exec-form list handed to an image's entry point (compose `command: [...,
"--max-num-batched-tokens 2048"]`, sample K388), which no shell splits at all.
kvlint reads the launch as it was meant (the word split, each value at its place in the file), so every other
check judges the intended settings; this rule says what the shell really passes.

## Why it matters
argparse never reads a word holding spaces as an option. SGLang exits with `unrecognized arguments`; vLLM takes
the whole string as the model (`vllm serve "$ARGS"`) and fails to load it. The script looks right, and the
failure is a line in a log.

## Example
```bash
args=" --model-path openai/gpt-oss-120b --tp 8 --mem-fraction-static 0.85"
python3 -m sglang.launch_server "$args"
```

## Use instead
Leave the expansion unquoted (`$args`, split on spaces by the shell), or keep the arguments in an array and pass
`"${args[@]}"`. A flag's value with spaces (`--chat-template "{% ... %}"`) is one word, as it should be, and is not
reported; nor is a `--flag=VALUE` word whose value holds spaces (a Kubernetes args item
`--limit-mm-per-prompt={"image": 0, "video": 0}`): argparse splits it at its first `=`, unless the value holds
another of the engine's options (`"--model=M --tp 2"`, reported).

## Options
None.
"""

from __future__ import annotations

from collections.abc import Iterator

from kvlint.findings import Finding, Severity
from kvlint.registry import Context, rule
from kvlint.rules import _common as c


@rule("KV013", "arguments-in-one-word", Severity.ERROR,
      "Several of the engine's arguments reach it as one word (a quoted expansion): the server exits at start-up.")
def check(ctx: Context) -> Iterator[Finding]:
    dep = ctx.deployment
    engine = c.title(dep.engine)
    for span, text in dep.one_word_args:
        shown = text if len(text) <= 60 else text[:57] + "..."
        yield check.rule.finding(
            ctx, f"`{shown}` reaches {engine} as one argument (nothing splits it: a quoted shell word, "
                 "or one item of an exec-form list): its parser reads no option from a word holding spaces, so the "
                 "server exits at start-up (unrecognized arguments, or the whole string taken as the model); kvlint "
                 "read the launch as meant", span or dep.launch_span,
            fix="pass each option and its value as words of their own: an unquoted expansion, an array passed as "
                "\"${ARGS[@]}\", or one list item each")
