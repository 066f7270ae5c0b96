"""What `kvlint check` shows, apart from what fails: --statistics, --min-severity, --format concise and the
GitHub format chosen under GitHub Actions."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from kvlint import cli

EXAMPLES = str(Path(__file__).resolve().parents[2] / "examples")


@pytest.fixture(autouse=True)
def _not_in_actions(monkeypatch):
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)


def _run(capsys, *argv: str) -> tuple[int, str, str]:
    code = cli.main(["check", *argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_statistics_counts_per_rule(capsys):
    code, out, _ = _run(capsys, "--statistics", EXAMPLES)
    rows = [re.fullmatch(r" *(\d+)  (KV\d{3})  \[(\w+)\]  ([\w-]+)", line) for line in out.splitlines()]
    assert all(rows) and code == 1
    counts = {(m.group(2), m.group(3)): int(m.group(1)) for m in rows if m}  # a rule whose cases differ in
    _, doc, _ = _run(capsys, "--format", "json", EXAMPLES)  # severity (KV204) has a row per severity
    findings = json.loads(doc)["findings"]
    kinds = {(f["code"], f["severity"]) for f in findings}
    assert counts == {k: sum(1 for f in findings if (f["code"], f["severity"]) == k) for k in kinds}
    assert [int(m.group(1)) for m in rows if m] == sorted(counts.values(), reverse=True)


def test_statistics_as_json_and_refused_for_document_formats(capsys):
    _, out, _ = _run(capsys, "--statistics", "--format", "json", EXAMPLES)
    table = json.loads(out)
    assert table and set(table[0]) == {"code", "name", "severity", "count"}
    code, _, err = _run(capsys, "--statistics", "--format", "sarif", EXAMPLES)
    assert code == 2 and "--statistics" in err


def test_min_severity_hides_but_does_not_change_what_fails(capsys):
    full_code, full, _ = _run(capsys, "--format", "concise", EXAMPLES)
    code, shown, err = _run(capsys, "--format", "concise", "--min-severity", "warning", EXAMPLES)
    assert code == full_code == 1
    assert "[info]" in full and "[info]" not in shown and "[warning]" in shown
    infos = full.count("[info]")
    assert f"{infos} findings below --min-severity not shown" in err
    assert re.search(r"Found \d+ findings? \(\d+ errors?, \d+ warnings?\) in", shown)
    # an info-only failure threshold still fails on the hidden infos
    assert _run(capsys, "--min-severity", "error", "--fail-on", "info", "--select", "KV301", EXAMPLES)[0] == 1


def test_min_severity_applies_to_a_collected_report_too(capsys):
    _, out, _ = _run(capsys, "--format", "json", "--min-severity", "error", EXAMPLES)
    assert {f["severity"] for f in json.loads(out)["findings"]} == {"error"}
    _, stats, _ = _run(capsys, "--statistics", "--min-severity", "error", EXAMPLES)
    assert "[info]" not in stats and "[error]" in stats


def test_concise_is_one_line_per_finding(capsys):
    _, out, _ = _run(capsys, "--format", "concise", EXAMPLES)
    lines = out.splitlines()
    assert all(re.match(r"\S+:\d+:\d+: KV\d{3} \[(error|warning|info)\] ", line) for line in lines[:-1])
    assert lines[-1].startswith("Found ")
    _, text, _ = _run(capsys, EXAMPLES)
    assert len(lines) - 1 == sum(1 for line in text.splitlines() if line.startswith("   = docs:"))


def test_github_format_under_github_actions(capsys, monkeypatch):
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    _, out, _ = _run(capsys, EXAMPLES)
    assert out.startswith("::error file=") and "Found" not in out
    _, out, _ = _run(capsys, "--format", "text", EXAMPLES)
    assert "Found" in out and "::error" not in out
    monkeypatch.setenv("GITHUB_ACTIONS", "false")
    assert "Found" in _run(capsys, EXAMPLES)[1]


def test_a_missing_file_is_the_whole_report(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, _ = _run(capsys, "missing.yaml")
    assert code == 3 and out == "missing.yaml: error: no such file or directory\n"
    code, out, _ = _run(capsys, "--format", "concise", "missing.yaml")
    assert out == "missing.yaml: error: no such file or directory\n"


def test_summary_words_agree_with_their_counts():
    from kvlint.findings import Finding, Severity
    from kvlint.lint import LintResult
    from kvlint.report.text import plural, summary

    one = Finding("KV004", "unknown-flag", Severity.ERROR, "m", None, path="a.yaml")
    assert summary(LintResult(findings=[one], files=["a.yaml"])) == "Found 1 finding (1 error) in 1 file."
    assert summary(LintResult(files=["a", "b"], deployments=1)) == "No findings in 2 files (1 engine launch)."
    assert (plural(0, "file"), plural(7, "launch", "launches")) == ("0 files", "7 launches")


def test_kv003_prints_at_the_severity_it_is_listed_with(capsys):
    from kvlint.registry import get_rule

    _, out, _ = _run(capsys, "--format", "concise", "--select", "KV003", EXAMPLES)
    printed = {line.split(" [")[1].split("]")[0] for line in out.splitlines() if " KV003 [" in line}
    assert printed == {str(get_rule("KV003").severity)}
