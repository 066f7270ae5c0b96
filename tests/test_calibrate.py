"""Calibration: measuring non-KV from logs, and writing/reading the .kvlint.yaml block."""

from __future__ import annotations

import json

import pytest
import yaml

from kvlint import calibrate as C
from kvlint.errors import KvlintError
from kvlint.logs import parse_log
from kvlint.logs.record import GIB

ENTRY = C.Calibration(model="meta-llama/Llama-3.1-8B-Instruct", gpu="H100 SXM 80GB", tp=2, engine="vllm",
                      engine_version="0.19.0", non_kv_gib=3.96, source_log="logs/start.log")


def test_measured_non_kv_matches_the_profiler_breakdown(shared_dir):
    """vLLM 0.19 logs its own non-KV total (weights included): ours must agree to the log's rounding."""
    cases = json.loads((shared_dir / "logs" / "cases.json").read_text())
    checked = 0
    for case in cases:
        if case["non_kv_memory_gib"] is None or case["model_loading_gib"] is None:
            continue
        record = parse_log("\n".join(case["lines"]))
        if record.requested_memory_gib is None:
            continue
        measured = C.measure_non_kv(record).non_kv_bytes / GIB
        assert measured == pytest.approx(case["non_kv_memory_gib"] - case["model_loading_gib"], abs=0.021)
        checked += 1
    assert checked >= 15


def test_measure_from_total_and_utilization():
    record = parse_log("Model loading took 10.0 GiB memory\nAvailable KV cache memory: 60.0 GiB")
    m = C.measure_non_kv(record, total_bytes=80 * GIB, utilization=0.9)
    assert m.non_kv_bytes == 72 * GIB - 70 * GIB
    with pytest.raises(KvlintError, match="requested memory"):
        C.measure_non_kv(record)


def test_measure_sglang_needs_total():
    text = ("[2026-01-01 00:00:00] server_args=ServerArgs(model_path='m', mem_fraction_static=0.8)\n"
            "[2026-01-01 00:00:01] Load weight end. elapsed=1.00 s, type=X, avail mem=60.00 GB, mem usage=15.00 GB.\n"
            "[2026-01-01 00:00:02] KV Cache is allocated. #tokens: 100, K size: 22.50 GB, V size: 22.50 GB")
    record = parse_log(text)
    assert C.measure_non_kv(record, total_bytes=80 * GIB).non_kv_bytes == 4 * GIB
    with pytest.raises(KvlintError, match="GPU total"):
        C.measure_non_kv(record)


def test_lookup_matches_spelling_variants_and_versions():
    config = {"calibration": [json.loads(json.dumps(ENTRY.__dict__))]}
    got = C.lookup(config, "Meta-Llama/llama-3.1-8B-instruct", "h100_sxm_80gb", 2, "vllm", "v0.19.0")
    assert got == round(3.96 * GIB)
    assert C.lookup(config, ENTRY.model, ENTRY.gpu, 1, "vllm", "0.19.0") is None  # other TP
    assert C.lookup(config, ENTRY.model, ENTRY.gpu, 2, "vllm", "0.33.0") is None  # other version
    assert C.lookup(config, ENTRY.model, ENTRY.gpu, 2, "vllm", None) == round(3.96 * GIB)
    assert C.lookup({"calibration": [{"model": "x"}]}, "x", "g", 1, "vllm", None) is None  # malformed skipped


def test_splice_keeps_other_content_and_comments():
    text = "# team config\ngpu: H100  # our fleet\ncalibration:\n  - model: old\n    gpu: A100\n\n# rules\nignore: [KV301]\n"
    out = C.splice(text, C.render_block([ENTRY]))
    assert out.startswith("# team config\ngpu: H100  # our fleet\ncalibration:\n  - model: meta-llama")
    assert out.endswith("\n# rules\nignore: [KV301]\n")
    data = yaml.safe_load(out)
    assert data["ignore"] == ["KV301"] and data["gpu"] == "H100"
    assert C.entries(data) == [ENTRY]


def test_save_creates_then_replaces_same_target(tmp_path):
    (tmp_path / ".git").mkdir()
    sub = tmp_path / "deploy"
    sub.mkdir()
    path = C.save(ENTRY, str(sub))
    assert path == str(sub / ".kvlint.yaml")
    (tmp_path / ".kvlint.yaml").write_text("# keep me\nfail-on: warning\n")
    (sub / ".kvlint.yaml").unlink()
    path = C.save(ENTRY, str(sub))  # found upward at the repo root
    assert path == str(tmp_path / ".kvlint.yaml")
    other = C.Calibration(**{**ENTRY.__dict__, "tp": 4, "non_kv_gib": 5.0})
    C.save(other, str(sub))
    C.save(C.Calibration(**{**ENTRY.__dict__, "non_kv_gib": 4.5}), str(sub))
    text = (tmp_path / ".kvlint.yaml").read_text()
    assert text.startswith("# keep me\nfail-on: warning\n")
    data = yaml.safe_load(text)
    assert sorted((e.tp, e.non_kv_gib) for e in C.entries(data)) == [(2, 4.5), (4, 5.0)]


def test_render_quotes_what_yaml_would_misread():
    odd = C.Calibration(model="org/m:v1 #x", gpu="yes", tp=1, engine="vllm", engine_version="0.10",
                        non_kv_gib=1.0)
    back = C.entries(yaml.safe_load(C.render_block([odd])))
    assert back == [odd]


def test_measure_sglang_prefers_the_pre_load_line():
    text = ("[2026-01-01 00:00:00] server_args=ServerArgs(model_path='m', mem_fraction_static=0.8)\n"
            "[2026-01-01 00:00:01] Load weight begin. avail mem=78.00 GB\n"
            "[2026-01-01 00:00:01] Load weight end. elapsed=1.00 s, type=X, avail mem=63.00 GB, mem usage=15.00 GB.\n"
            "[2026-01-01 00:00:02] KV Cache is allocated. #tokens: 100, K size: 22.00 GB, V size: 22.00 GB")
    m = C.measure_non_kv(parse_log(text), total_bytes=80 * GIB)
    other = 78 * 0.8 - 15 - 44  # 3.4 GiB allocated before the pool besides weights
    assert m.calibration / GIB == pytest.approx(other, abs=1e-6)
    assert m.non_kv_bytes / GIB == pytest.approx(other + 2, abs=1e-6)  # + 2 GiB used before loading


def test_lookup_compares_gpus_by_catalogue_id():
    config = {"calibration": [{**ENTRY.__dict__, "gpu": "H100"}]}
    assert C.lookup(config, ENTRY.model, "H100-SXM-80GB", 2, "vllm", "0.19.0") == round(3.96 * GIB)
    assert C.lookup(config, ENTRY.model, "H200", 2, "vllm", "0.19.0") is None


def test_written_block_matches_the_shipped_schema():
    import jsonschema
    from importlib import resources

    schema = json.loads(resources.files("kvlint.data").joinpath("calibration.schema.json").read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    block = yaml.safe_load(C.render_block([ENTRY, C.Calibration(**{**ENTRY.__dict__, "source_log": ""})]))
    jsonschema.validate(block["calibration"], schema)
    bad = [{**ENTRY.__dict__, "tp": 0}]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(bad, schema)


def test_lookup_file_reads_only_kvlint_yaml(tmp_path):
    path = tmp_path / ".kvlint.yaml"
    path.write_text("fail-on: warning\n" + C.render_block([ENTRY]))
    assert C.lookup_file(str(path), ENTRY.model, "H100", 2, "vllm", "0.19.0") == round(3.96 * GIB)
    (tmp_path / "pyproject.toml").write_text("[tool.kvlint]\n")
    assert C.lookup_file(str(tmp_path / "pyproject.toml"), ENTRY.model, "H100", 2, "vllm", None) is None
    assert C.lookup_file(None, ENTRY.model, "H100", 2, "vllm", None) is None


def test_save_refuses_layouts_it_cannot_splice(tmp_path):
    (tmp_path / ".git").mkdir()
    path = tmp_path / ".kvlint.yaml"
    path.write_text("{fail-on: warning,\n  gpu: H100}\n")
    with pytest.raises(KvlintError, match="add it by hand"):
        C.save(ENTRY, str(tmp_path))
    assert path.read_text() == "{fail-on: warning,\n  gpu: H100}\n"  # untouched
    path.write_text("calibration: []\nfail-on: warning\n")
    C.save(ENTRY, str(tmp_path))
    assert C.entries(yaml.safe_load(path.read_text())) == [ENTRY]


def test_version_spellings_name_one_release():
    config = {"calibration": [{**ENTRY.__dict__, "engine_version": "0.19.0+cu128"}]}
    for spelling in ("0.19", "v0.19.0", "0.19.0"):
        assert C.lookup(config, ENTRY.model, "H100", 2, "vllm", spelling) == round(3.96 * GIB)
    assert C.lookup(config, ENTRY.model, "H100", 2, "vllm", "0.19.1") is None


def test_match_prefers_the_deployments_release_else_newest_with_a_note():
    old = C.Calibration(**{**ENTRY.__dict__, "engine_version": "0.19.0", "non_kv_gib": 3.0})
    new = C.Calibration(**{**ENTRY.__dict__, "engine_version": "0.20.1", "non_kv_gib": 4.0})
    found = C.match([new, old], ENTRY.model, "H100", 2, "vllm", "v0.19")
    assert found.entry == old and found.exact and found.note() is None and found.non_kv_bytes == 3 * GIB
    other = C.match([old, new], ENTRY.model, "H100", 2, "vllm", "0.33.0")
    assert other.entry == new and not other.exact and "0.20.1 applied to vllm 0.33.0" in other.note()
    default = C.default_version("vllm")
    assert C.match([old], ENTRY.model, "H100", 2, "vllm", None).version == default != ""
    assert C.match([old], ENTRY.model, "H100", 4, "vllm", "0.19.0") is None
    assert C.match([old], ENTRY.model, "A100-80GB", 2, "vllm", "0.19.0") is None


def test_apply_relabels_only_a_used_non_kv_term():
    from kvlint.engines import compute_budget
    from kvlint.gpus import lookup_gpu
    from kvlint.models.resolve import resolve_model

    found = C.match([ENTRY], ENTRY.model, "H100", 2, "vllm", "0.19.0")
    spec, gpu = resolve_model(ENTRY.model), lookup_gpu("H100")
    settings = {"tensor_parallel_size": 2, "max_model_len": 8192}
    given = compute_budget("vllm", spec, settings, gpu, version="0.19.0", non_kv_bytes=found.non_kv_bytes)
    b = C.apply(given, found)
    assert (b.non_kv_source, b.kv_pool_estimated, b.kv_pool_bytes) == ("calibrated", False, given.kv_pool_bytes)
    step = next(s for s in b.steps if s.name == "non-KV")
    assert step.formula == "calibrated from logs/start.log (vllm 0.19.0, TP=2)" and b.to_json()["calibration"]["tp"] == 2
    fixed = compute_budget("vllm", spec, {**settings, "kv_cache_memory_bytes": 10 * GIB}, gpu, version="0.19.0",
                           non_kv_bytes=found.non_kv_bytes)
    assert C.apply(fixed, found).non_kv_source == "not-needed"


def test_save_does_not_hide_a_pyproject_configuration(tmp_path):
    tomllib = pytest.importorskip("tomllib")
    from kvlint.config import load_config

    (tmp_path / ".git").mkdir()
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text('[tool.kvlint]\ngpu = "H100"\n')
    with pytest.raises(KvlintError, match=r"\[\[tool.kvlint.calibration\]\]") as err:
        C.save(ENTRY, str(tmp_path))
    assert not (tmp_path / ".kvlint.yaml").exists()
    snippet = str(err.value).split(":\n", 1)[1]
    pyproject.write_text(pyproject.read_text() + "\n" + snippet)  # what the message asks for works as given
    assert tomllib.loads(pyproject.read_text())["tool"]["kvlint"]["calibration"][0]["tp"] == 2
    assert load_config(str(pyproject)).calibrations == (ENTRY,)
