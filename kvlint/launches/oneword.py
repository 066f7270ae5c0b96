"""An engine's arguments passed as one word (sample K56): `python -m sglang.launch_server "$args"` after
`args=" --model-path M --tp 2 ..."`, or `vllm serve "$ARGS"`.

The quotes keep the shell from splitting the expansion, so the engine's parser gets one argument holding
spaces. argparse never reads such a word as an option: SGLang exits with "unrecognized arguments", and vLLM takes
the whole string as its positional model and fails to load it. The launch is read as it was meant (the word split
into the engine's arguments, each still at its place in the file), so every other check judges the intended
settings, and rules/kv013 says what the shell really passes. A word in a value's place (`--chat-template "{% ...
%}"`, `--served-model-name "my model"`) is a value, and one that does not start with one of the engine's own
options is not read as arguments.
"""

from __future__ import annotations

from collections.abc import Mapping

from kvlint.flags.flag_table import FlagTable, flag_table, match, normalise
from kvlint.launches.env import Field, expand_word
from kvlint.lazyre import lazy
from kvlint.sources.shell import tokenize
from kvlint.span import Span

# a template's expression (`--model={{ .Values.model.id }}`, `{% if %}`, `${{ inputs.m }}`) holds spaces by its own
# syntax, not arguments
_TEMPLATED = lazy(r"\{\{|\{%")
Joined = tuple[tuple[Span | None, str], ...]  # (where the word is, its text) for each word split


def split_joined(engine: str, words: list[Field], env: Mapping[str, str]) -> tuple[list[Field], Joined]:
    """`words` with each word that holds several of the engine's arguments split into them, and those words."""
    if not any(" " in f.text and " " in f.text.strip() for f in words):  # asked of every launch: the cheap test first
        return words, ()
    table = flag_table(engine)
    out: list[Field] = []
    joined: list[tuple[Span | None, str]] = []
    value_next = False
    for word in words:
        parts = word.text.split()
        if not value_next and len(parts) > 1 and word.resolved and _option(table, parts[0]) \
                and not _TEMPLATED.search(word.text) and not _valued(table, word.text):
            split = _split(word, env)
            if split:
                out.extend(split)
                joined.append((word.span, " ".join(parts)))
                continue
        out.append(word)
        value_next = not value_next and word.text.startswith("-") and "=" not in word.text \
            and _takes_value(table, word.text)
    return out, tuple(joined)


def _option(table: FlagTable, word: str) -> bool:
    """Whether a word is one of the engine's own options (a `--flag=value` by its name)."""
    if not word.startswith("-"):
        return False
    spec, _, _ = match(table, normalise(table, word.split("=", 1)[0]))
    return spec is not None


def _valued(table: FlagTable, text: str) -> bool:
    """`--opt=VALUE WITH SPACES` (a Kubernetes args item `--limit-mm-per-prompt={"image": 0, "video": 0}`, sample
    K94): argparse splits the word at its first `=` and takes the rest as the option's value, spaces and all, so it
    is one argument; only a value that itself holds another of the engine's options (`--model=M --tp 2`) is several
    arguments run together."""
    head, eq, value = text.strip().partition("=")
    return bool(eq) and " " not in head and not any(_option(table, w) for w in value.split())


def _takes_value(table: FlagTable, word: str) -> bool:
    spec, _, _ = match(table, normalise(table, word))
    return spec is not None and spec.kind in ("value", "append")


def _split(word: Field, env: Mapping[str, str]) -> list[Field]:
    """The word's text as the shell would split it unquoted, each part at its place in the file; none when it is
    more than one simple command."""
    m = word.mapped()
    commands, errors = tokenize(m)
    if errors or len(commands) != 1:
        return []
    return [f for w in commands[0].words for f in expand_word(w, m, env)]
