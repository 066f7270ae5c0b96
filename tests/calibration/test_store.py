"""Writing and reading the `calibration:` block of .kvlint.yaml (kvlint.calibration.render, .store)."""

from __future__ import annotations

import json

import pytest
import yaml

from kvlint.calibration.entry import Calibration, entries
from kvlint.calibration.render import render_block, splice
from kvlint.calibration.store import lookup_file, save
from kvlint.errors import KvlintError
from kvlint.logs.record import GIB

ENTRY = Calibration(model="meta-llama/Llama-3.1-8B-Instruct", gpu="H100 SXM 80GB", tp=2, engine="vllm",
                    engine_version="0.19.0", non_kv_gib=3.96, source_log="logs/start.log")


def test_splice_keeps_other_content_and_comments():
    text = "# team config\ngpu: H100  # our fleet\ncalibration:\n  - model: old\n    gpu: A100\n\n# rules\nignore: [KV301]\n"
    out = splice(text, render_block([ENTRY]))
    assert out.startswith("# team config\ngpu: H100  # our fleet\ncalibration:\n  - model: meta-llama")
    assert out.endswith("\n# rules\nignore: [KV301]\n")
    data = yaml.safe_load(out)
    assert data["ignore"] == ["KV301"] and data["gpu"] == "H100"
    assert entries(data) == [ENTRY]


def test_save_creates_then_replaces_same_target(tmp_path):
    (tmp_path / ".git").mkdir()
    sub = tmp_path / "deploy"
    sub.mkdir()
    path = save(ENTRY, str(sub))
    assert path == str(sub / ".kvlint.yaml")
    (tmp_path / ".kvlint.yaml").write_text("# keep me\nfail-on: warning\n")
    (sub / ".kvlint.yaml").unlink()
    path = save(ENTRY, str(sub))  # found upward at the repo root
    assert path == str(tmp_path / ".kvlint.yaml")
    other = Calibration(**{**ENTRY.__dict__, "tp": 4, "non_kv_gib": 5.0})
    save(other, str(sub))
    save(Calibration(**{**ENTRY.__dict__, "non_kv_gib": 4.5}), str(sub))
    text = (tmp_path / ".kvlint.yaml").read_text()
    assert text.startswith("# keep me\nfail-on: warning\n")
    data = yaml.safe_load(text)
    assert sorted((e.tp, e.non_kv_gib) for e in entries(data)) == [(2, 4.5), (4, 5.0)]


def test_render_quotes_what_yaml_would_misread():
    odd = Calibration(model="org/m:v1 #x", gpu="yes", tp=1, engine="vllm", engine_version="0.10",
                      non_kv_gib=1.0)
    back = entries(yaml.safe_load(render_block([odd])))
    assert back == [odd]


def test_written_block_matches_the_shipped_schema():
    from importlib import resources

    import jsonschema

    schema = json.loads(resources.files("kvlint.data").joinpath("calibration.schema.json").read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    block = yaml.safe_load(render_block([ENTRY, Calibration(**{**ENTRY.__dict__, "source_log": ""})]))
    jsonschema.validate(block["calibration"], schema)
    bad = [{**ENTRY.__dict__, "tp": 0}]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(bad, schema)


def test_lookup_file_reads_only_kvlint_yaml(tmp_path):
    path = tmp_path / ".kvlint.yaml"
    path.write_text("fail-on: warning\n" + render_block([ENTRY]))
    assert lookup_file(str(path), ENTRY.model, "H100", 2, "vllm", "0.19.0") == round(3.96 * GIB)
    (tmp_path / "pyproject.toml").write_text("[tool.kvlint]\n")
    assert lookup_file(str(tmp_path / "pyproject.toml"), ENTRY.model, "H100", 2, "vllm", None) is None
    assert lookup_file(None, ENTRY.model, "H100", 2, "vllm", None) is None


def test_save_refuses_layouts_it_cannot_splice(tmp_path):
    (tmp_path / ".git").mkdir()
    path = tmp_path / ".kvlint.yaml"
    path.write_text("{fail-on: warning,\n  gpu: H100}\n")
    with pytest.raises(KvlintError, match="add it by hand"):
        save(ENTRY, str(tmp_path))
    assert path.read_text() == "{fail-on: warning,\n  gpu: H100}\n"  # untouched
    path.write_text("calibration: []\nfail-on: warning\n")
    save(ENTRY, str(tmp_path))
    assert entries(yaml.safe_load(path.read_text())) == [ENTRY]


def test_save_does_not_hide_a_pyproject_configuration(tmp_path):
    tomllib = pytest.importorskip("tomllib")
    from kvlint.config import load_config

    (tmp_path / ".git").mkdir()
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text('[tool.kvlint]\ngpu = "H100"\n')
    with pytest.raises(KvlintError, match=r"\[\[tool.kvlint.calibration\]\]") as err:
        save(ENTRY, str(tmp_path))
    assert not (tmp_path / ".kvlint.yaml").exists()
    snippet = str(err.value).split(":\n", 1)[1]
    pyproject.write_text(pyproject.read_text() + "\n" + snippet)  # what the message asks for works as given
    assert tomllib.loads(pyproject.read_text())["tool"]["kvlint"]["calibration"][0]["tp"] == 2
    assert load_config(str(pyproject)).calibrations == (ENTRY,)
