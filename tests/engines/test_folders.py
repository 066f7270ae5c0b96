"""Every registered engine provides every part, under the same names, and its facts import nothing."""

from __future__ import annotations

import ast
import inspect

import pytest

from kvlint.engines import get_engine
from kvlint.engines.base import Engine
from kvlint.engines.registered import PARTS, engine_names, facts, part

NAMES = engine_names()


def _public(module) -> set[str]:
    return {n for n in vars(module) if n.isupper()}


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("piece", PARTS)
def test_the_folder_has_every_part(name, piece):
    assert part(name, piece).__doc__, f"kvlint.engines.{name}.{piece} has no docstring saying what it is"


@pytest.mark.parametrize("name", NAMES)
def test_the_facts_are_the_same_names_as_vllms_and_import_nothing(name):
    module = facts(name)
    assert _public(module) == _public(facts("vllm"))
    assert name == module.NAME
    tree = ast.parse(inspect.getsource(module))
    assert [n for n in ast.walk(tree) if isinstance(n, ast.Import | ast.ImportFrom)] == []


def _protocol_members() -> list[str]:
    annotated = [n for n in Engine.__annotations__ if not n.startswith("_")]
    methods = [n for n, v in vars(Engine).items() if callable(v) and not n.startswith("_")]
    return annotated + methods


@pytest.mark.parametrize("name", NAMES)
def test_the_record_provides_every_member_of_the_protocol(name):
    engine = get_engine(name)
    assert [m for m in _protocol_members() if not hasattr(engine, m)] == []
    assert engine.name == name and engine.facts is facts(name)
    assert engine.flag_table().engine == name
    assert engine.release(None) and engine.non_kv_coefficients() and engine.log_patterns()
    assert all(p.engine == name for p in engine.log_patterns())
    assert all(engine.flag_table().by_option.by_dest(engine.setting(r)) for r in ("max_len", "tp", "mem"))


def test_the_protocol_is_what_the_test_checks():
    assert {"facts", "syntax", "log", "budget", "release", "flag_table", "non_kv_coefficients", "log_patterns",
            "derived_max_len"} <= set(_protocol_members())
