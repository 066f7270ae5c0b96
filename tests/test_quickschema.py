"""kvlint.quickschema must agree with jsonschema on the config schema: it lets valid files skip jsonschema."""

from __future__ import annotations

import datetime
from pathlib import Path

import jsonschema
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from referencing import Registry
from referencing.jsonschema import DRAFT202012

from kvlint.config import _schema
from kvlint.quickschema import is_valid, valid

REPO = Path(__file__).resolve().parent.parent
CONFIG = _schema()
CALIBRATION = _schema("calibration.schema.json")
DOCUMENTS = {"calibration.schema.json": CALIBRATION}
VALIDATOR = jsonschema.Draft202012Validator(
    CONFIG, registry=Registry().with_resource(CALIBRATION["$id"], DRAFT202012.create_resource(CALIBRATION)))

# values near the schema's edges: codes, severities, sizes, versions, negative and fractional numbers
scalars = st.one_of(
    st.sampled_from(["", "K", "KV101", "kv1", "error", "warning", "info", "fatal", "80GiB", "81559MiB", "1.5 TB",
                     "80 GB", "lots", "0.33.0", "v0.5.23", "0.33.0rc1", "1.2.3.4.5", "vllm", "sglang", "H100"]),
    st.integers(-3, 100), st.floats(-2, 100, allow_nan=False), st.booleans(), st.none(), st.text(max_size=6))
json_values = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.dictionaries(st.sampled_from(["vllm", "sglang", "default", "KV101", "x"]), inner,
                                                 max_size=3)), max_leaves=6)


def near(shape):
    """Mostly the key's own shape (often valid), sometimes any JSON value (usually not)."""
    return st.one_of(shape, shape, shape, shape, shape, json_values)


codes = near(st.lists(near(st.sampled_from(["KV101", "KV1", "pool-below-one-request", "*.yaml", "K", ""])),
                      max_size=3))
severity = near(st.sampled_from(["error", "warning", "info"]))
version = near(st.sampled_from(["0.33.0", "v0.5.23", "0.33.0rc1", "1", "0.33.0.1.2", "latest"]))
number = near(st.one_of(st.integers(-2, 90), st.floats(-1, 90, allow_nan=False)))
names = st.sampled_from(["KV101", "KV301", "Qwen/Qwen3-8B", "default", "x"])
good_entry = st.fixed_dictionaries(
    {"model": st.sampled_from(["Qwen/Qwen3-8B", "m"]), "gpu": st.just("H100-SXM-80GB"), "tp": st.sampled_from([1, 2, 1.0]),
     "engine": st.sampled_from(["vllm", "sglang"]), "non_kv_gib": st.one_of(st.integers(-1, 90), st.floats(-1, 90))},
    optional={"engine_version": st.sampled_from(["0.33.0", ""]), "source_log": st.just("vllm.log")})
changed_entry = st.tuples(good_entry, st.sampled_from(["model", "gpu", "tp", "engine", "non_kv_gib", "engine_version",
                                                       "source_log", "extra"]), scalars).map(
    lambda t: {**t[0], t[1]: t[2]})
missing_entry = good_entry.flatmap(lambda d: st.sampled_from(sorted(d)).map(lambda k: {x: v for x, v in d.items() if x != k}))
calibration_entry = st.one_of(good_entry, good_entry, changed_entry, missing_entry, json_values)
KEYS = {
    "select": codes, "ignore": codes, "exclude": codes, "fail-on": severity,
    "severity": near(st.dictionaries(names, severity, max_size=2)),
    "estimated-severity": near(st.dictionaries(names, severity, max_size=2)),
    "rules": near(st.dictionaries(names, near(st.dictionaries(names, scalars, max_size=2)), max_size=2)),
    "gpu": near(st.sampled_from(["H100-SXM-80GB", ""])),
    "gpu-memory": near(st.sampled_from(["80GiB", "81559MiB", "1.5 TB", "80 GB", "0.5", "80 GiBs", "lots"])),
    "engine-version": near(st.one_of(version, st.dictionaries(st.sampled_from(["vllm", "sglang", "trt"]), version,
                                                              max_size=2))),
    "models": near(st.dictionaries(names, near(st.sampled_from(["models/x.json", ""])), max_size=2)),
    "non-kv-gib": near(st.one_of(number, st.dictionaries(names, number, max_size=2))),
    "per-path-ignores": near(st.dictionaries(st.sampled_from(["*.yaml", "deploy/"]), codes, max_size=2)),
    "calibration": near(st.lists(calibration_entry, max_size=2)),
    "gpus": near(st.dictionaries(st.sampled_from(["deploy/**", "*.yaml"]), near(st.sampled_from(["H100", ""])),
                                 max_size=2)),
    "node-labels": near(st.dictionaries(st.sampled_from(["pool=a100", "gpu-h100"]), near(st.sampled_from(["A100", ""])),
                                        max_size=2)),
    "variables": near(st.dictionaries(st.sampled_from(["TP", "MODEL"]), scalars, max_size=2)),
    "vllm-config-files": codes,
    "baseline": near(st.sampled_from([".kvlint-baseline.json", ""])),
}
assert set(KEYS) == set(CONFIG["properties"]), "a new config key needs a strategy here"
one_key = st.sampled_from(sorted(KEYS)).flatmap(lambda key: KEYS[key].map(lambda value: {key: value}))
configs = st.one_of(one_key, st.fixed_dictionaries({}, optional={**KEYS, "unknown-key": scalars}))


@settings(max_examples=300, deadline=None)
@given(configs)
def test_agrees_with_jsonschema_on_generated_configs(data):
    assert valid(data, CONFIG, CONFIG, DOCUMENTS) == VALIDATOR.is_valid(data)


@settings(max_examples=200, deadline=None)
@given(st.lists(calibration_entry, max_size=3))
def test_agrees_with_jsonschema_on_calibration_blocks(block):
    assert valid({"calibration": block}, CONFIG, CONFIG, DOCUMENTS) == VALIDATOR.is_valid({"calibration": block})


@pytest.mark.parametrize("path", sorted(str(p) for p in REPO.glob("**/.kvlint.y*ml") if ".venv" not in p.parts))
def test_repository_configs_are_valid_both_ways(path):
    data = yaml.safe_load(Path(path).read_text())
    assert VALIDATOR.is_valid(data) and is_valid(data, CONFIG, DOCUMENTS)


def test_values_outside_json_are_left_to_jsonschema():
    data = {"engine-version": datetime.date(2026, 1, 1)}  # YAML reads an unquoted date as a date
    assert not VALIDATOR.is_valid(data) and not is_valid(data, CONFIG, DOCUMENTS)
    assert not is_valid({1: "x"}, CONFIG, DOCUMENTS)  # non-string keys: jsonschema decides


def test_unknown_keywords_are_left_to_jsonschema():
    assert not is_valid("abc", {"maxLength": 10})
    assert not is_valid({"a": 1}, {"$ref": "other.json"})
    assert is_valid("abc", {"type": "string", "minLength": 3, "description": "annotations are ignored"})


def test_one_of_means_exactly_one():
    overlapping = {"oneOf": [{"type": "integer"}, {"minimum": 0}]}
    assert not is_valid(5, overlapping)  # both alternatives hold
    assert is_valid(-5, overlapping) and is_valid(0.5, overlapping)
    assert not is_valid(-0.5, overlapping)
