"""`--config` YAML files as each engine turns them into argv."""

from __future__ import annotations

import pytest

from kvlint.flags.config_args import ConfigEntry, config_tokens, splice_config
from kvlint.flags.flag_table import flag_table
from kvlint.flags.parse import parse_args
from kvlint.span import Span, Token


def words(tokens: list[Token]) -> list[str]:
    return [t.text for t in tokens]


def test_vllm_config_words() -> None:
    entries = [ConfigEntry("tensor-parallel-size", 2), ConfigEntry("enforce-eager", True), ConfigEntry("async-scheduling", False),
               ConfigEntry("enforce_eager", False), ConfigEntry("compilation-config", {"mode": 3}), ConfigEntry("api-key", ["a", "b"]),
               ConfigEntry("middleware", [])]
    tokens, errors = config_tokens("vllm", entries)
    assert words(tokens) == ["--tensor-parallel-size", "2", "--enforce-eager", "--no-async-scheduling",
                             "--compilation-config", '{"mode": 3}', "--api-key", "a", "b"]
    assert errors == []  # the underscore-spelled false boolean is dropped silently, as vLLM does


def test_sglang_config_words() -> None:
    entries = [ConfigEntry("tp-size", 2), ConfigEntry("disable-radix-cache", True), ConfigEntry("enable-metrics", False),
               ConfigEntry("json-model-override-args", {"a": 1})]
    tokens, errors = config_tokens("sglang", entries)
    assert words(tokens) == ["--tp-size", "2", "--disable-radix-cache", "--json-model-override-args", '{"a": 1}']
    assert errors == []


def test_sglang_refuses_multi_value_options_in_config() -> None:
    multi = next(f for f in flag_table("sglang").flags if f.kind == "value" and f.nargs in ("+", "*"))
    _, errors = config_tokens("sglang", [ConfigEntry(multi.options[0][2:], ["x"])])
    assert errors and "unsupported config option" in errors[0]


def test_sglang_underscore_config_key_is_rejected_by_its_parser() -> None:
    tokens, _ = config_tokens("sglang", [ConfigEntry("max_total_tokens", 100)])
    parsed = parse_args("sglang", tokens, positional_model=False)
    assert [u.suggestion for u in parsed.unknown] == ["--max-total-tokens"]


def test_config_tokens_carry_yaml_spans() -> None:
    key, value = Span("c.yaml", 3, 1, 3, 21), Span("c.yaml", 3, 23, 3, 24)
    tokens, _ = config_tokens("vllm", [ConfigEntry("tensor-parallel-size", 2, key, value)])
    parsed = parse_args("vllm", tokens, positional_model=False)
    s = parsed.settings["tensor_parallel_size"]
    assert (s.value, s.span, s.flag_span) == (2, value, key)


@pytest.mark.parametrize(
    ("engine", "cli", "start", "expected_tp"),
    [("vllm", "vllm serve m --config c.yaml", 2, 2), ("vllm", "vllm serve m --config c.yaml -tp 4", 2, 4),
     ("sglang", "sglang serve m --config c.yaml", 2, 2), ("sglang", "sglang serve m --tp-size 8 --config c.yaml", 2, 8)],
)
def test_cli_beats_config(engine: str, cli: str, start: int, expected_tp: int) -> None:
    key = "tensor-parallel-size" if engine == "vllm" else "tp-size"
    config, _ = config_tokens(engine, [ConfigEntry(key, 2)])
    argv = splice_config(engine, [Token(w) for w in cli.split()], start, config)
    assert "--config" not in words(argv)
    parsed = parse_args(engine, argv, start)
    dest = "tensor_parallel_size" if engine == "vllm" else "tp_size"
    assert parsed.settings[dest].value == expected_tp and parsed.model.value == "m" and not parsed.errors


def test_vllm_config_goes_after_the_model() -> None:
    config, _ = config_tokens("vllm", [ConfigEntry("max-model-len", 4096)])
    argv = splice_config("vllm", [Token(w) for w in ["vllm", "serve", "org/m", "--config", "c.yaml"]], 2, config)
    assert words(argv) == ["vllm", "serve", "org/m", "--max-model-len", "4096"]
