"""The engines' option tables: schema, uniqueness, and the history of removed flags."""

from __future__ import annotations

import json
from importlib import resources

import pytest

from kvlint.flags.flag_table import flag_table, removed_flag


def test_tables_match_the_schema() -> None:
    import jsonschema

    schema = json.loads(resources.files("kvlint.data").joinpath("flags.schema.json").read_text())
    for engine in ("vllm", "sglang"):
        data = json.loads(resources.files("kvlint.data").joinpath(f"{engine}_flags.json").read_text())
        jsonschema.validate(data, schema)
        assert data["engine"] == engine


def test_tables_have_no_duplicate_option_strings() -> None:
    for engine in ("vllm", "sglang"):
        table = flag_table(engine)
        count = sum(len(f.options) + len(f.negative) for f in table.flags)
        assert count == len(table.by_option), engine
        assert not set(table.removed) & set(table.by_option), engine


@pytest.mark.parametrize(
    ("engine", "option", "last_seen", "absent_in"),
    [("vllm", "--swap-space", "0.15.0", "0.20.0"), ("vllm", "--swap_space=4", "0.15.0", "0.20.0"), ("vllm", "--task", "0.11.0", "0.13.0"),
     ("sglang", "--cuda-graph-max-bs", "0.5.12", "0.5.23"), ("sglang", "--enable-ep-moe", "0.5.4", "0.5.12"),
     ("vllm", "--device", "0.9.2", "0.10.1.1"), ("vllm", "--speculative-model", "0.7.3", "0.8.5"),
     ("sglang", "--pdlb-url", "0.4.10", "0.5.4")],
)
def test_removed_flag_history(engine: str, option: str, last_seen: str, absent_in: str) -> None:
    info = removed_flag(engine, option)
    assert info is not None and (info["last_seen"], info["absent_in"]) == (last_seen, absent_in)


def test_removed_flag_is_none_for_current_flags() -> None:
    assert removed_flag("vllm", "--max-model-len") is None and removed_flag("sglang", "--tp-size") is None


def _v(text: str) -> tuple[int, ...]:
    return tuple(int(x) for x in text.split("."))


@pytest.mark.parametrize("engine", ["vllm", "sglang"])
def test_history_is_consistent(engine: str) -> None:
    data = json.loads(resources.files("kvlint.data").joinpath(f"{engine}_flags.json").read_text())
    read = data["versions_read"]
    assert read[-1] == data["version"] and read == sorted(read, key=_v)
    for flag in data["flags"]:
        assert flag["seen_in"][-1] == data["version"] and set(flag["seen_in"]) <= set(read), flag["dest"]
    static = data.get("static_read", [])
    assert static == sorted(static, key=_v) and (not static or _v(static[-1]) < _v(read[0]))
    for entry in data["removed"]:
        assert entry["last_seen"] is not None, entry  # every record names a release read with the flag
        if "first_seen" in entry:  # the oldest release read with it (bench/older_options.py --history)
            assert entry["first_seen"] in static and _v(entry["first_seen"]) <= _v(entry["last_seen"]), entry
        if entry.get("before_tables"):  # an older release read statically (bench/older_options.py)
            assert _v(entry["last_seen"]) < _v(entry["absent_in"]) <= _v(read[0]), entry
        elif entry["last_seen"] is not None:
            assert _v(entry["last_seen"]) < _v(entry["absent_in"]) <= _v(data["version"]), entry
            assert read[read.index(entry["last_seen"]) + 1] == entry["absent_in"], entry


@pytest.mark.parametrize(("option", "version", "takes"), [
    ("--ubatch-size", "0.13.0", False), ("--ubatch-size", "0.14.0", True),  # added in 0.14 (arg_utils.py)
    ("--enable-log-deltas", "0.13.0", False), ("--enable-log-deltas", "0.14.0", True),  # a FrontendArgs field
    ("--optimization-level", "0.13.0", True), ("--attention-config", "0.13.0", True),
])
def test_vllm_013_and_014_parsers_are_read(option: str, version: str, takes: bool) -> None:
    """0.13.0 and 0.14.0 are read releases (bench/serve_options.py on their wheels): a flag first seen in 0.14 is
    not offered on a 0.13 pin, and one 0.13 has is no longer 'unknown' there."""
    from kvlint.flags.flag_table import on_release

    assert on_release("vllm", option, version) is takes


@pytest.mark.parametrize(("engine", "option", "last_seen", "absent_in", "takes"), [
    ("sglang", "--max-num-reqs", "0.2.15", "0.3.6", True), ("sglang", "--disable-regex-jump-forward", "0.2.15",
                                                              "0.3.6", False),
    ("sglang", "--n-share-experts-fusion", "0.4.6", "0.4.7", True), ("sglang", "--impl", "0.4.9", "0.4.10", True),
])
def test_options_of_releases_before_the_tables_are_removed_flags(engine: str, option: str, last_seen: str,
                                                                 absent_in: str, takes: bool) -> None:
    """Turn 38's K337 (a 2024 benchmark record: `sglang.launch_server ... --max-num-reqs 64`): an option releases
    older than the tables' first had is a removed flag, last seen on the older release read statically and absent
    from the next release read, not an option "no release has"; whether it takes a value is kept, so the word after
    it is read as its value or not, as that release's parser did."""
    info = removed_flag(engine, option)
    assert info is not None and info.get("before_tables") is True
    assert (info["last_seen"], info["absent_in"], info["takes_value"]) == (last_seen, absent_in, takes)
    if option == "--impl":  # renamed (its dest too): the record names the option that took its place
        assert info["replacement"] == "--model-impl"
