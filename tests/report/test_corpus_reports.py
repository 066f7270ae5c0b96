"""Real files through the machine-readable reporters: every finding on the corpus validates."""

from __future__ import annotations

import json

import jsonschema

from kvlint.cli import main


def _run(capsys, shared_dir, fmt):
    assert main(["check", str(shared_dir / "corpus"), "--format", fmt, "--exit-zero"]) == 0
    return json.loads(capsys.readouterr().out)


def test_corpus_sarif_validates(capsys, shared_dir):
    doc = _run(capsys, shared_dir, "sarif")
    schema = json.loads((shared_dir / "schemas" / "sarif-schema-2.1.0.json").read_text())
    jsonschema.validate(doc, schema)
    results = doc["runs"][0]["results"]
    assert len(results) > 50
    assert all(r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in results)


def test_corpus_json_validates_and_matches_sarif(capsys, shared_dir):
    from importlib.resources import files

    doc = _run(capsys, shared_dir, "json")
    jsonschema.validate(doc, json.loads((files("kvlint") / "data" / "report.schema.json").read_text()))
    sarif = _run(capsys, shared_dir, "sarif")
    assert len(doc["findings"]) == len(sarif["runs"][0]["results"])
