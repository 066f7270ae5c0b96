"""examples/: `kvlint check examples/` (the README's first command) produces exactly the findings
marked `# expect:` in the files, with no network and no flags."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from _expect import actual, expected

from kvlint.cli import main

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = REPO / "examples"
FILES = sorted(p for p in EXAMPLES.rglob("*") if p.suffix in (".yaml", ".sh") and not p.name.startswith("."))
KINDS = ("helm-production-stack", "kubernetes", "leaderworkerset", "kserve", "compose", "shell", "sglang",
         "vllm-config", "fleet")


@pytest.fixture(scope="module")
def report(tmp_path_factory, monkeypatch_module):
    out = tmp_path_factory.mktemp("examples") / "report.json"
    monkeypatch_module.chdir(REPO)
    code = main(["check", "examples/", "--format", "json", "--output", str(out)])
    return code, json.loads(out.read_text())


@pytest.fixture(scope="module")
def monkeypatch_module():
    mp = pytest.MonkeyPatch()
    mp.setenv("HF_HUB_OFFLINE", "1")
    yield mp
    mp.undo()


def test_every_input_kind_has_good_and_bad():
    for kind in KINDS:
        names = {p.name.split("-")[0] for p in (EXAMPLES / kind).iterdir()}
        assert {"good", "bad"} <= names, kind


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(EXAMPLES)))
def test_findings_match_markers(report, path):
    _, doc = report
    want = expected(path)
    assert actual(doc["findings"], path, want) == want
    if path.name.startswith("good"):
        assert want == set()
    else:
        assert want, "a bad example must expect something"


def test_exit_code_and_nothing_unexplained(report):
    code, doc = report
    assert code == 1  # the bad examples hold errors
    assert doc["unreadable"] == []
    assert all(f["span"] is not None for f in doc["findings"])
    docs = [p for p in EXAMPLES.rglob("*.md")]  # read from their shell blocks (kvlint.launches.markdown): none here
    assert doc["summary"]["files"] == len(FILES) + len(docs) and docs
