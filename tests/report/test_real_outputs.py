"""The reporters on a real run (examples/): SARIF and JSON validate, and every format agrees on the set."""

from __future__ import annotations

import json
import re
from importlib import resources
from pathlib import Path

import pytest

from kvlint.cli import main

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def outputs(tmp_path_factory):
    out = tmp_path_factory.mktemp("out")
    mp = pytest.MonkeyPatch()
    mp.chdir(REPO)
    try:
        for fmt in ("json", "sarif", "github", "text"):
            assert main(["check", "examples/", "--format", fmt, "--output", str(out / fmt)]) == 1
    finally:
        mp.undo()
    return {fmt: (out / fmt).read_text() for fmt in ("json", "sarif", "github", "text")}


def test_sarif_and_json_validate(outputs, shared_dir):
    import jsonschema

    sarif_schema = json.loads((shared_dir / "schemas" / "sarif-schema-2.1.0.json").read_text())
    jsonschema.validate(json.loads(outputs["sarif"]), sarif_schema)
    own = json.loads(resources.files("kvlint.data").joinpath("report.schema.json").read_text())
    jsonschema.validate(json.loads(outputs["json"]), own)


def test_formats_agree(outputs):
    doc = json.loads(outputs["json"])
    want = sorted((f["path"], f["span"]["line"], f["span"]["col"], f["code"]) for f in doc["findings"])
    results = json.loads(outputs["sarif"])["runs"][0]["results"]
    sarif = sorted((r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
                    r["locations"][0]["physicalLocation"]["region"]["startLine"],
                    r["locations"][0]["physicalLocation"]["region"]["startColumn"], r["ruleId"]) for r in results)
    github = sorted((m[0], int(m[1]), int(m[2]), m[3]) for m in
                    re.findall(r"^::\w+ file=([^,]+),line=(\d+),col=(\d+),.*?title=(KV\d+)::", outputs["github"], re.M))
    text = sorted((m[0], int(m[1]), int(m[2]), m[3]) for m in
                  re.findall(r"^(\S+):(\d+):(\d+): (KV\d+) \[", outputs["text"], re.M))
    assert want and sarif == want and github == want and text == want
