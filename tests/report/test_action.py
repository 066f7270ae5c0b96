"""action.yml is valid composite-action metadata, and its kvlint steps do what docs/ci.md says when run."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
ACTION = yaml.safe_load((REPO / "action.yml").read_text(encoding="utf-8"))
STEPS = ACTION["runs"]["steps"]


def step(name: str) -> dict:
    return next(s for s in STEPS if s.get("name") == name)


def test_metadata_and_inputs():
    assert ACTION["name"] and ACTION["description"]
    assert ACTION["runs"]["using"] == "composite"
    inputs = ACTION["inputs"]
    assert {"paths", "args", "upload-sarif"} <= set(inputs)
    for name, spec in inputs.items():
        assert spec.get("description"), name
        assert isinstance(spec.get("default"), str), name  # composite inputs are strings
        assert set(spec) <= {"description", "required", "default", "deprecationMessage"}, name
    assert inputs["paths"]["default"] == "." and inputs["upload-sarif"]["default"] == "false"
    assert ACTION["outputs"]["exit-code"]["value"] == "${{ steps.check.outputs.exit-code }}"


def test_steps_are_valid_and_injection_safe():
    ids = [s["id"] for s in STEPS if "id" in s]
    assert len(ids) == len(set(ids)) and "check" in ids
    for s in STEPS:
        assert ("run" in s) != ("uses" in s), s.get("name")
        if "run" in s:
            assert s.get("shell") == "bash", s["name"]  # composite run steps must name their shell
            assert "${{" not in s["run"], s["name"]  # inputs arrive as environment variables only
        else:
            assert re.fullmatch(r"[\w.-]+/[\w./-]+@v\d+", s["uses"]), s["uses"]
    upload = next(s for s in STEPS if s.get("uses", "").startswith("github/codeql-action/upload-sarif@"))
    assert "inputs.upload-sarif == 'true'" in upload["if"]
    assert upload["with"]["sarif_file"] == "${{ inputs.sarif-file }}"
    sarif = step("SARIF report")
    assert sarif["if"] == upload["if"] and STEPS.index(sarif) < STEPS.index(upload) < STEPS.index(step("kvlint check"))


def kvlint_bin() -> str | None:
    beside = Path(sys.executable).parent / "kvlint"
    return str(beside) if beside.exists() else shutil.which("kvlint")


def run_step(name: str, tmp_path: Path, **env: str) -> subprocess.CompletedProcess:
    exe = kvlint_bin()
    if exe is None:
        pytest.skip("the kvlint console script is not installed in this environment")
    spec = step(name)
    full = {**os.environ, "PATH": f"{Path(exe).parent}{os.pathsep}{os.environ.get('PATH', '')}",
            "GITHUB_OUTPUT": str(tmp_path / "output"), **env}
    for key, value in spec.get("env", {}).items():
        match = re.fullmatch(r"\$\{\{ inputs\.([\w-]+) \}\}", value)
        if match and key not in env:
            full[key] = ACTION["inputs"][match.group(1)]["default"]
    return subprocess.run(["bash", "-c", spec["run"]], cwd=REPO, env=full, capture_output=True, text=True,
                          timeout=120, check=False)


def test_check_step_annotates_and_gates(tmp_path):
    done = run_step("kvlint check", tmp_path, KVLINT_PATHS="examples/shell examples/vllm-config/bad-config.yaml",
                    KVLINT_ARGS="--gpu H100 --fail-on error")
    assert done.returncode == 1, done.stderr
    assert "::error file=examples/shell/bad-serve.sh,line=6" in done.stdout
    assert "::notice file=examples/vllm-config/bad-config.yaml" in done.stdout
    assert (tmp_path / "output").read_text() == "exit-code=1\n"
    clean = run_step("kvlint check", tmp_path, KVLINT_PATHS="examples/shell/good-serve.sh", KVLINT_ARGS="")
    assert clean.returncode == 0 and "exit-code=0" in (tmp_path / "output").read_text()


def test_sarif_step_writes_a_report_and_stays_green(tmp_path):
    out = tmp_path / "k.sarif"
    done = run_step("SARIF report", tmp_path, KVLINT_PATHS="examples/shell", KVLINT_ARGS="--gpu H100",
                    KVLINT_SARIF=str(out))
    assert done.returncode == 0, done.stderr
    doc = json.loads(out.read_text())
    assert doc["version"] == "2.1.0" and doc["runs"][0]["results"]
    bad = run_step("SARIF report", tmp_path, KVLINT_PATHS="examples/shell", KVLINT_ARGS="--select NOPE",
                   KVLINT_SARIF=str(out))
    assert bad.returncode == 2  # a usage error still fails the job
