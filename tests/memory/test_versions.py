"""Per-version constants: the data files match their schemas, and each documented drift shows up."""

from __future__ import annotations

import json
from importlib import resources

import pytest

from kvlint.errors import KvlintError
from kvlint.memory import compute_budget
from kvlint.memory.nonkv import capture_sizes
from kvlint.memory.versions import documented, sglang_version, vllm_version

from .specs import LLAMA3_8B, full, sliding, unit_model

GIB = 2**30


@pytest.mark.parametrize("name", ["engine_versions", "nonkv"])
def test_data_matches_schema(name):
    jsonschema = pytest.importorskip("jsonschema")
    data_dir = resources.files("kvlint.data")
    data = json.loads(data_dir.joinpath(f"{name}.json").read_text())
    schema = json.loads(data_dir.joinpath(f"{name}.schema.json").read_text())
    jsonschema.validate(data, schema)


def test_documented_vllm_releases():
    assert documented("vllm") == ["0.7.2", "0.8.0", "0.9.2", "0.10.1", "0.10.2", "0.11.0", "0.12.0", "0.13.0", "0.14.0",
                                  "0.15.0", "0.17.0", "0.18.0", "0.19.0", "0.20.0", "0.21.0", "0.22.0", "0.27.0", "0.30.0", "0.33.0"]


@pytest.mark.parametrize("version, util", [("0.19.0", 0.9), ("0.20.0", 0.92), ("0.33.0", 0.92), ("0.10.1.1", 0.9)])
def test_default_utilization(version, util):
    b = compute_budget("vllm", LLAMA3_8B, {}, None, version=version, gpu_memory_bytes=80 * GIB,
                       weights_bytes=15 * GIB, non_kv_bytes=GIB)
    assert b.requested_bytes == -(-80 * GIB * int(util * 100) // 100) or b.requested_bytes == int(80 * GIB * util)


def test_unknown_version_maps_below_with_a_note():
    assert vllm_version("0.25.1").record.version == "0.22.0"
    assert "modelled as 0.22.0" in vllm_version("0.25.1").note
    assert vllm_version("0.33").note == "" and vllm_version(None).record.version == "0.33.0"
    assert sglang_version("0.5.7").record.version == "0.5.4"
    with pytest.raises(KvlintError):
        vllm_version("latest")


def test_token_formula_changes_at_021():
    """<= 0.20 logs num_blocks // groups * block; 0.21+ logs int(concurrency * max_model_len)."""
    model = unit_model((full(), full()), max_len=100)
    settings = {"dtype": "float32", "max_model_len": 100, "num_gpu_blocks_override": 70}
    old = compute_budget("vllm", model, settings, None, version="0.20.0", gpu_memory_bytes=GIB, weights_bytes=0)
    new = compute_budget("vllm", model, settings, None, version="0.21.0", gpu_memory_bytes=GIB, weights_bytes=0)
    assert old.kv_tokens == 70 * 16
    assert new.kv_tokens == int(70 / 7 * 100)


def test_null_block_reserved_in_checks_from_033():
    model = unit_model((full(), full()), max_len=32 * 16)
    settings = {"dtype": "float32", "max_model_len": 32 * 16, "kv_cache_memory_bytes": 2 * 16384 * 32}
    assert compute_budget("vllm", model, settings, None, version="0.27.0", gpu_memory_bytes=GIB,
                          weights_bytes=0).fits_one_request
    assert not compute_budget("vllm", model, settings, None, version="0.33.0", gpu_memory_bytes=GIB,
                              weights_bytes=0).fits_one_request


def test_sliding_reservation_changes_at_027():
    model = unit_model((sliding(1024),) * 2, max_len=16384)
    settings = {"dtype": "float32", "max_model_len": 16384, "max_num_batched_tokens": 1024,
                "num_gpu_blocks_override": 1000}
    per = {v: compute_budget("vllm", model, settings, None, version=v, gpu_memory_bytes=GIB,
                             weights_bytes=0).detail.blocks_per_request for v in ("0.21.0", "0.27.0")}
    assert per == {"0.21.0": 129, "0.27.0": 193}


def test_large_gpu_batch_tier_from_030():
    big = 180 * GIB
    old = compute_budget("vllm", LLAMA3_8B, {}, None, version="0.27.0", gpu_memory_bytes=big, weights_bytes=0,
                         non_kv_bytes=0)
    new = compute_budget("vllm", LLAMA3_8B, {}, None, version="0.30.0", gpu_memory_bytes=big, weights_bytes=0,
                         non_kv_bytes=0)
    assert (old.max_num_batched_tokens, new.max_num_batched_tokens) == (8192, 16384)
    assert new.max_num_seqs == 1024


def test_h100_server_capture_sizes():
    assert len(capture_sizes(1024, 8192)) == 51
