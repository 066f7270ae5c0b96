"""`--config` YAML files as each engine turns them into argv words before its parser runs.

vLLM and SGLang both read a `--config` file by rewriting it into command-line words and splicing
them into argv, each with its own rules for booleans, lists and key spelling; replaying those rules
lets the ordinary flag parser judge the file exactly as the engine would, spans included.
"""

from __future__ import annotations

import json
from typing import Any

from kvlint.flags.flag_table import FlagSpec, FlagTable, flag_table
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


def _scalar_words(key: str, value: Any) -> list[str]:
    if isinstance(value, list):
        return [f"--{key}", *(str(v) for v in value)] if value else []
    return [f"--{key}", json.dumps(value) if isinstance(value, dict) else str(value)]


def vllm_config_words(table: FlagTable, entry: ConfigEntry) -> tuple[list[str], str | None]:
    if isinstance(entry.value, bool):
        if entry.value:
            return [f"--{entry.key}"], None
        no_key = f"--no-{entry.key}"
        return ([no_key], None) if no_key in table.by_option else ([], None)
    return _scalar_words(entry.key, entry.value), None


def sglang_config_words(table: FlagTable, entry: ConfigEntry) -> tuple[list[str], str | None]:
    spec = _sglang_config_spec(table, entry.key)
    if spec is not None and (spec.kind not in ("value", "store_true") or spec.nargs not in (None, "?")):
        return [], f"--config: unsupported config option {entry.key!r} ({spec.kind}, nargs {spec.nargs})"
    if isinstance(entry.value, bool):
        if spec is not None and spec.kind == "store_true":
            return ([f"--{entry.key}"] if entry.value else []), None
        return [f"--{entry.key}", str(entry.value).lower()], None
    return _scalar_words(entry.key, entry.value), None


def _sglang_config_spec(table: FlagTable, key: str) -> FlagSpec | None:
    """SGLang looks a YAML key up by dest or by option name with `-` read as `_`."""
    norm = key.replace("-", "_")
    for spec in table.flags:
        if spec.dest == norm or any(o[2:].replace("-", "_") == norm for o in spec.options if o.startswith("--")):
            return spec
    return None


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
