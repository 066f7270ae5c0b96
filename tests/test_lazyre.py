"""Lazy patterns answer as compiled ones, compile only when used, and every one kvlint declares compiles."""

from __future__ import annotations

import importlib
import pkgutil
import re

import pytest

import kvlint
from kvlint.lazyre import _Lazy, lazy


def test_answers_as_the_compiled_pattern() -> None:
    source = r"(?P<n>\d+)([KMG])"
    eager, late = re.compile(source), lazy(source)
    text = "4K and 16G, not 3x"
    assert late.findall(text) == eager.findall(text)
    assert [m.span() for m in late.finditer(text)] == [m.span() for m in eager.finditer(text)]
    assert late.sub(lambda m: m["n"], text) == eager.sub(lambda m: m["n"], text)
    assert (late.pattern, late.groups, dict(late.groupindex)) == (source, 2, {"n": 1})
    assert late.fullmatch("8M") is not None and late.match("x") is None


def test_compiles_on_first_use_only() -> None:
    late = lazy(r"a+")
    assert "match" not in vars(late)
    assert late.search("baa").group() == "aa"
    assert "match" in vars(late) and vars(late)["match"].__self__.pattern == "a+"


def test_a_bad_pattern_fails_when_used() -> None:
    late = lazy(r"(unclosed")
    with pytest.raises(re.error):
        late.match("x")


def test_every_module_level_lazy_pattern_of_kvlint_compiles() -> None:
    found = 0
    for info in pkgutil.walk_packages(kvlint.__path__, "kvlint."):
        module = importlib.import_module(info.name)
        for name, value in vars(module).items():
            if isinstance(value, _Lazy):
                assert isinstance(value.groups, int), f"{info.name}.{name}"
                found += 1
    assert found >= 40
