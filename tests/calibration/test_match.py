"""Matching calibration entries to a deployment and relabelling its budget (kvlint.calibration.match)."""

from __future__ import annotations

import json

from kvlint.calibration.entry import Calibration
from kvlint.calibration.match import apply, default_version, lookup, match
from kvlint.logs.record import GIB

ENTRY = Calibration(model="meta-llama/Llama-3.1-8B-Instruct", gpu="H100 SXM 80GB", tp=2, engine="vllm",
                    engine_version="0.19.0", non_kv_gib=3.96, source_log="logs/start.log")


def test_lookup_matches_spelling_variants_and_versions():
    config = {"calibration": [json.loads(json.dumps(ENTRY.__dict__))]}
    got = lookup(config, "Meta-Llama/llama-3.1-8B-instruct", "h100_sxm_80gb", 2, "vllm", "v0.19.0")
    assert got == round(3.96 * GIB)
    assert lookup(config, ENTRY.model, ENTRY.gpu, 1, "vllm", "0.19.0") is None  # other TP
    assert lookup(config, ENTRY.model, ENTRY.gpu, 2, "vllm", "0.33.0") is None  # other version
    assert lookup(config, ENTRY.model, ENTRY.gpu, 2, "vllm", None) == round(3.96 * GIB)
    assert lookup({"calibration": [{"model": "x"}]}, "x", "g", 1, "vllm", None) is None  # malformed skipped


def test_lookup_compares_gpus_by_catalogue_id():
    config = {"calibration": [{**ENTRY.__dict__, "gpu": "H100"}]}
    assert lookup(config, ENTRY.model, "H100-SXM-80GB", 2, "vllm", "0.19.0") == round(3.96 * GIB)
    assert lookup(config, ENTRY.model, "H200", 2, "vllm", "0.19.0") is None


def test_version_spellings_name_one_release():
    config = {"calibration": [{**ENTRY.__dict__, "engine_version": "0.19.0+cu128"}]}
    for spelling in ("0.19", "v0.19.0", "0.19.0"):
        assert lookup(config, ENTRY.model, "H100", 2, "vllm", spelling) == round(3.96 * GIB)
    assert lookup(config, ENTRY.model, "H100", 2, "vllm", "0.19.1") is None


def test_match_prefers_the_deployments_release_else_newest_with_a_note():
    old = Calibration(**{**ENTRY.__dict__, "engine_version": "0.19.0", "non_kv_gib": 3.0})
    new = Calibration(**{**ENTRY.__dict__, "engine_version": "0.20.1", "non_kv_gib": 4.0})
    found = match([new, old], ENTRY.model, "H100", 2, "vllm", "v0.19")
    assert found.entry == old and found.exact and found.note() is None and found.non_kv_bytes == 3 * GIB
    other = match([old, new], ENTRY.model, "H100", 2, "vllm", "0.33.0")
    assert other.entry == new and not other.exact and "0.20.1 applied to vllm 0.33.0" in other.note()
    default = default_version("vllm")
    assert match([old], ENTRY.model, "H100", 2, "vllm", None).version == default != ""
    assert match([old], ENTRY.model, "H100", 4, "vllm", "0.19.0") is None
    assert match([old], ENTRY.model, "A100-80GB", 2, "vllm", "0.19.0") is None


def test_apply_relabels_only_a_used_non_kv_term():
    from kvlint.gpus import lookup_gpu
    from kvlint.memory import compute_budget
    from kvlint.models.resolve import resolve_model

    found = match([ENTRY], ENTRY.model, "H100", 2, "vllm", "0.19.0")
    spec, gpu = resolve_model(ENTRY.model), lookup_gpu("H100")
    settings = {"tensor_parallel_size": 2, "max_model_len": 8192}
    given = compute_budget("vllm", spec, settings, gpu, version="0.19.0", non_kv_bytes=found.non_kv_bytes)
    b = apply(given, found)
    assert (b.non_kv_source, b.kv_pool_estimated, b.kv_pool_bytes) == ("calibrated", False, given.kv_pool_bytes)
    step = next(s for s in b.steps if s.name == "non-KV")
    assert step.formula == "calibrated from logs/start.log (vllm 0.19.0, TP=2)" and b.to_json()["calibration"]["tp"] == 2
    fixed = compute_budget("vllm", spec, {**settings, "kv_cache_memory_bytes": 10 * GIB}, gpu, version="0.19.0",
                           non_kv_bytes=found.non_kv_bytes)
    assert apply(fixed, found).non_kv_source == "not-needed"
