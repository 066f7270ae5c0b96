"""`--format gitlab`: GitLab Code Quality issues with the fields GitLab requires and line-free fingerprints."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from kvlint.cli import main
from kvlint.lint import LintOptions, lint
from kvlint.report import render

REPO = Path(__file__).resolve().parents[2]

# What GitLab reads from a Code Quality artifact (docs.gitlab.com/ci/testing/code_quality, "Code Quality
# report format"): an array of objects; description, check_name, fingerprint, severity, location.path and
# location.lines.begin are required; severity is one of GitLab's five levels.
GITLAB_SHAPE = {
    "type": "array",
    "items": {
        "type": "object",
        "required": ["description", "check_name", "fingerprint", "severity", "location"],
        "properties": {
            "description": {"type": "string", "minLength": 1},
            "check_name": {"type": "string", "minLength": 1},
            "fingerprint": {"type": "string", "minLength": 1},
            "severity": {"enum": ["info", "minor", "major", "critical", "blocker"]},
            "location": {
                "type": "object", "required": ["path", "lines"],
                "properties": {
                    "path": {"type": "string", "minLength": 1, "not": {"pattern": "^(/|\\./|[A-Za-z]:)"}},
                    "lines": {"type": "object", "required": ["begin"],
                              "properties": {"begin": {"type": "integer", "minimum": 1}}},
                },
            },
        },
    },
}


@pytest.fixture
def in_repo(monkeypatch):
    monkeypatch.chdir(REPO)


def test_examples_report_has_gitlabs_fields(in_repo):
    result = lint(["examples"])
    issues = json.loads(render("gitlab", result))
    jsonschema.validate(issues, GITLAB_SHAPE)
    assert len(issues) == len(result.findings) > 0
    assert len({i["fingerprint"] for i in issues}) == len(issues)  # GitLab collapses equal fingerprints
    by_code = {i["check_name"]: i for i in issues}
    assert by_code["KV101"]["severity"] == "critical" and by_code["KV103"]["severity"] == "info"
    assert by_code["KV301"]["severity"] == "info"
    kv103 = by_code["KV103"]
    assert kv103["location"] == {"path": "examples/vllm-config/bad-config.yaml", "lines": {"begin": 4, "end": 4}}
    assert kv103["description"].startswith("KV103 concurrency-exceeds-pool: max_num_seqs 64")


def _issues(capsys, *paths: str) -> list[dict]:
    code = main(["check", "--gpu", "H100", "--format", "gitlab", "--exit-zero", *paths])
    out, _ = capsys.readouterr()
    assert code == 0
    return json.loads(out)


def test_fingerprints_ignore_moved_lines_and_split_duplicates(tmp_path, monkeypatch, capsys):
    (tmp_path / ".git").mkdir()
    monkeypatch.chdir(tmp_path)
    launch = "vllm serve Qwen/Qwen3-8B --max-model-len 32768 --max-num-seqs 512\n"
    Path("serve.sh").write_text(launch * 2)
    before = _issues(capsys, "serve.sh")
    assert [i["location"]["lines"]["begin"] for i in before] == [1, 2]
    assert before[0]["fingerprint"] != before[1]["fingerprint"]  # same subject twice: still two issues
    Path("serve.sh").write_text("#!/bin/sh\n\n" + launch * 2)
    after = _issues(capsys, "serve.sh")
    assert [i["location"]["lines"]["begin"] for i in after] == [3, 4]
    assert [i["fingerprint"] for i in after] == [i["fingerprint"] for i in before]
    Path("serve.sh").write_text(launch.replace("512", "256") * 2)  # another value: other issues
    assert not {i["fingerprint"] for i in _issues(capsys, "serve.sh")} & {i["fingerprint"] for i in before}


def test_unreadable_file_is_an_issue(tmp_path, monkeypatch, capsys):
    (tmp_path / ".git").mkdir()
    monkeypatch.chdir(tmp_path)
    Path("bad.yaml").write_bytes(b"\xff\xfe\x00binary")
    result = lint(["bad.yaml"], LintOptions(gpu="H100"))
    issues = json.loads(render("gitlab", result))
    jsonschema.validate(issues, GITLAB_SHAPE)
    assert issues and all(i["location"]["path"] == "bad.yaml" for i in issues)
