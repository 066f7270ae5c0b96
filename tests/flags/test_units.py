"""Each engine's own human-readable integers, and kvlint's memory sizes."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kvlint.engines.sglang.syntax import sglang_human_int
from kvlint.engines.vllm.syntax import vllm_human_int, vllm_human_int_or_auto
from kvlint.sizes import parse_memory_size


@pytest.mark.parametrize(
    ("text", "value"),
    [("1k", 1000), ("1K", 1024), ("25.6k", 25600), ("32768", 32768), ("4K", 4096), ("1m", 10**6), ("2M", 2 * 2**20),
     ("-1", -1), ("1_000", 1000), (" 8k ", 8000)],
)
def test_vllm_human_int(text: str, value: int) -> None:
    assert vllm_human_int(text) == value


@pytest.mark.parametrize("text", ["1.5K", "4KiB", "1Ki", "abc", "", "1e3", "9" * 400 + "k"])  # the last: infinite
def test_vllm_human_int_rejects(text: str) -> None:
    with pytest.raises(ValueError):
        vllm_human_int(text)


@pytest.mark.parametrize(("text", "value"), [("auto", -1), ("AUTO", -1), ("-1", -1), ("1K", 1024)])
def test_vllm_auto(text: str, value: int) -> None:
    assert vllm_human_int_or_auto(text) == value


@pytest.mark.parametrize(
    ("text", "value"),
    [("1k", 1000), ("1M", 10**6), ("1Ki", 1024), ("1Mi", 2**20), ("25.6k", 25600), ("32768", 32768), ("-1", -1), ("2G", 2 * 10**9)],
)
def test_sglang_human_int(text: str, value: int) -> None:
    assert sglang_human_int(text) == value


@pytest.mark.parametrize("text", ["32K", "1m", "1.5Ki", "1KI", "auto"])
def test_sglang_human_int_is_case_sensitive(text: str) -> None:
    with pytest.raises(ValueError):
        sglang_human_int(text)


@pytest.mark.parametrize(
    ("text", "value"),
    [("81559MiB", 81559 * 2**20), ("79.19GiB", round(79.19 * 2**30)), ("80GB", 80 * 10**9), ("24G", 24 * 2**30),
     ("16 GiB", 16 * 2**30), ("2TB", 2 * 10**12), ("4096", 4096)],
)
def test_parse_memory_size_binary_and_decimal(text: str, value: int) -> None:
    assert parse_memory_size(text) == value


@given(st.integers(min_value=0, max_value=10**9), st.sampled_from(["K", "M", "G"]))
def test_vllm_binary_suffix_property(n: int, suffix: str) -> None:
    assert vllm_human_int(f"{n}{suffix}") == n * 1024 ** ("KMG".index(suffix) + 1)
    assert vllm_human_int(f"{n}{suffix.lower()}") == n * 1000 ** ("KMG".index(suffix) + 1)


@given(st.integers(min_value=-(10**12), max_value=10**12))
def test_plain_integers_round_trip_in_both_engines(n: int) -> None:
    assert vllm_human_int(str(n)) == n == sglang_human_int(str(n))


@given(st.integers(min_value=0, max_value=10**6), st.sampled_from(["Ki", "Mi", "Gi"]))
def test_sglang_iec_property(n: int, suffix: str) -> None:
    assert sglang_human_int(f"{n}{suffix}") == n * 1024 ** (["Ki", "Mi", "Gi"].index(suffix) + 1)
