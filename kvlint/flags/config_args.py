"""`--config` YAML files as each engine turns them into argv words before its parser runs.

vLLM and SGLang both read a `--config` file by rewriting it into command-line words and splicing
them into argv, each with its own rules for booleans, lists and key spelling (each engine's
`config_words`, in kvlint/engines/<name>/syntax.py); replaying those rules lets the ordinary flag parser
judge the file exactly as the engine would, spans included.
"""

from __future__ import annotations

import json
from typing import Any

from kvlint.flags.flag_table import flag_table
from kvlint.flags.syntax import ConfigEntry, syntax_of
from kvlint.span import Token


def config_tokens(engine: str, entries: list[ConfigEntry]) -> tuple[list[Token], list[str]]:
    """The argv words the engine builds from its `--config` YAML, and the errors it would raise.

    vLLM: true -> `--key`, false -> `--no-key` only if that option exists (else dropped), lists expand,
    dicts become JSON. SGLang: keys verbatim (so `max_total_tokens:` fails like on its CLI), store_true
    only when true, other booleans as `true`/`false`, and multi-value options refused.
    """
    out: list[Token] = []
    errors: list[str] = []
    for entry in entries:
        words, error = syntax_of(engine).config_words(flag_table(engine), entry)
        if error:
            errors.append(error)
        out += [Token(w, entry.key_span if n == 0 else entry.value_span) for n, w in enumerate(words)]
    return out, errors


def scalar_words(key: str, value: Any) -> list[str]:
    """The words a non-boolean `--config` value becomes in both engines: a list expands, a dict is JSON."""
    if isinstance(value, list):
        return [f"--{key}", *(str(v) for v in value)] if value else []
    return [f"--{key}", json.dumps(value) if isinstance(value, dict) else str(value)]


def splice_config(engine: str, tokens: list[Token], start: int, config: list[Token]) -> list[Token]:
    """The argv the engine parses once its `--config` words are in: CLI beats config beats defaults.

    vLLM inserts them after `serve <model>` (before the rest of the CLI), SGLang before all CLI words;
    both drop the `--config PATH` pair. `tokens[start:]` are the engine's arguments.
    """
    args = list(tokens[start:])
    where = next((i for i, t in enumerate(args) if t.text == "--config"), None)
    if where is not None:
        del args[where:where + 2]
    model_first = syntax_of(engine).config_after_model and args and not args[0].text.startswith("-")
    head = tokens[:start] + (args[:1] if model_first else [])
    rest = args[1:] if model_first else args
    return head + config + rest
