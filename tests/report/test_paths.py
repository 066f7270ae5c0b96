"""Every machine format names a file as `k8s/x.yaml` for `kvlint check .`, never `./k8s/x.yaml` (GitHub does
not attach `file=./x` annotations to the diff; SARIF and GitLab match paths the same way)."""

from __future__ import annotations

import json
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from kvlint import cli
from kvlint.report.paths import report_path

REPO = Path(__file__).resolve().parents[2]
BAD = REPO / "examples" / "compose" / "bad-compose.yaml"


@pytest.fixture
def repo(tmp_path, monkeypatch):
    (tmp_path / "k8s").mkdir()
    shutil.copy(BAD, tmp_path / "k8s" / "x.yaml")
    monkeypatch.chdir(tmp_path)
    for name in ("GITHUB_WORKSPACE", "CI_PROJECT_DIR", "GITHUB_ACTIONS"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path


def _check(capsys, fmt: str, *paths: str) -> str:
    assert cli.main(["check", "--format", fmt, "--exit-zero", *paths]) == 0
    return capsys.readouterr().out


def test_github_annotations(repo, capsys):
    out = _check(capsys, "github", ".")
    assert "file=k8s/x.yaml," in out and "./" not in out


def test_github_paths_from_the_workspace_root(repo, capsys, monkeypatch):
    monkeypatch.setenv("GITHUB_WORKSPACE", str(repo))
    monkeypatch.chdir(repo / "k8s")
    assert "file=k8s/x.yaml," in _check(capsys, "github", ".")


def test_sarif_uri(repo, capsys):
    doc = json.loads(_check(capsys, "sarif", "."))
    uris = {loc["physicalLocation"]["artifactLocation"]["uri"]
            for r in doc["runs"][0]["results"] for loc in r["locations"]}
    assert uris == {"k8s/x.yaml"}


def test_gitlab_location_path(repo, capsys, monkeypatch):
    assert {i["location"]["path"] for i in json.loads(_check(capsys, "gitlab", "."))} == {"k8s/x.yaml"}
    monkeypatch.setenv("CI_PROJECT_DIR", str(repo))
    monkeypatch.chdir(repo / "k8s")
    assert {i["location"]["path"] for i in json.loads(_check(capsys, "gitlab", "."))} == {"k8s/x.yaml"}


def test_json_paths(repo, capsys):
    doc = json.loads(_check(capsys, "json", "."))
    paths = {f["path"] for f in doc["findings"]} | {f["span"]["path"] for f in doc["findings"]}
    assert paths == {"k8s/x.yaml"} and {d["path"] for d in doc["deployments"]} == {"k8s/x.yaml"}


def test_json_paths_given_absolute(repo, capsys):
    doc = json.loads(_check(capsys, "json", str(repo)))
    assert {f["path"] for f in doc["findings"]} == {"k8s/x.yaml"}


def test_junit_paths(repo, capsys):
    root = ET.fromstring(_check(capsys, "junit", "."))
    assert {case.get("classname") for case in root.iter("testcase")} == {"k8s/x.yaml"}


def test_concise_paths(repo, capsys):
    out = _check(capsys, "concise", ".")
    assert "k8s/x.yaml:11:9: KV004 [error] " in out and "./" not in out


@pytest.mark.parametrize(("given", "shown"), [("./a/b.yaml", "a/b.yaml"), ("a//b/../c.yaml", "a/c.yaml"),
                                              ("-", "-"), ("", "")])
def test_report_path_normalises(given, shown):
    assert report_path(given) == shown


def test_report_path_outside_the_root_stays_absolute(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert report_path("/etc/hosts") == "/etc/hosts"
