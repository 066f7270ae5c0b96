"""`--format junit` validates against the Jenkins xUnit plugin's junit-10.xsd, the dialect GitLab and Jenkins
read. The xsd's structure is written out below as data (elements, their children, attributes, required
attributes, the SUREFIRE_TIME pattern) and checked with the standard library: no network, no xmlschema
dependency for one test, and every constraint of the xsd that our document can meet or break is here."""

from __future__ import annotations

import re
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from kvlint import cli

REPO = Path(__file__).resolve().parents[2]

# junit-10.xsd (github.com/jenkinsci/xunit-plugin, src/main/resources/.../xsd/junit-10.xsd): element ->
# (children allowed, attributes allowed, attributes required); text is allowed where the xsd says mixed.
TIME = re.compile(r"(([0-9]{0,3},)*[0-9]{3}|[0-9]{0,3})*(\.[0-9]*)?")
MESSAGE = ({"type", "message"}, set())
SCHEMA: dict[str, tuple[set[str], set[str], set[str]]] = {
    "testsuites": ({"testsuite"}, {"name", "time", "tests", "failures", "errors"}, set()),
    "testsuite": ({"testsuite", "properties", "testcase", "system-out", "system-err"},
                  {"name", "tests", "failures", "errors", "group", "time", "skipped", "timestamp", "hostname",
                   "id", "package", "file", "log", "url"}, {"name", "tests", "failures", "errors"}),
    "testcase": ({"skipped", "error", "failure", "rerunFailure", "rerunError", "flakyFailure", "flakyError",
                  "system-out", "system-err"}, {"name", "time", "classname", "group"}, {"name"}),
    "failure": (set(), *MESSAGE), "error": (set(), *MESSAGE), "skipped": (set(), *MESSAGE),
    "properties": ({"property"}, set(), set()), "property": (set(), {"name", "value"}, {"name", "value"}),
    "system-out": (set(), set(), set()), "system-err": (set(), set(), set()),
}
MIXED = {"failure", "error", "skipped", "system-out", "system-err"}


def problems(element: ET.Element, parent: str | None = None) -> list[str]:
    """Where `element` breaks junit-10.xsd (an empty list when it validates)."""
    tag = element.tag
    if tag not in SCHEMA:
        return [f"unknown element <{tag}>"]
    children, allowed, required = SCHEMA[tag]
    out = [f"<{tag}> lacks {a}" for a in sorted(required - set(element.keys()))]
    out += [f"<{tag}> has {a}, not in the xsd" for a in sorted(set(element.keys()) - allowed)]
    time = element.get("time")
    if time is not None and tag != "testcase" and not TIME.fullmatch(time):
        out.append(f"<{tag}> time {time!r}")
    if tag not in MIXED and (element.text or "").strip():
        out.append(f"<{tag}> holds text")
    for child in element:
        if child.tag not in children:
            out.append(f"<{child.tag}> inside <{tag}>")
        out += problems(child, tag)
    return out


def test_the_checker_finds_what_the_xsd_refuses():
    assert problems(ET.fromstring('<testsuites><testsuite name="a" tests="1" failures="0" errors="0">'
                                  '<testcase name="t"/></testsuite></testsuites>')) == []
    bad = ET.fromstring('<testsuites><testsuite name="a" tests="1" time="1s"><testcase file="x"><failure/>'
                        '</testcase><testcase name="t"><testcase name="u"/></testcase></testsuite></testsuites>')
    found = problems(bad)
    assert "<testsuite> lacks failures" in found and "<testcase> has file, not in the xsd" in found
    assert "<testsuite> time '1s'" in found and "<testcase> inside <testcase>" in found


def _junit(capsys, *paths: str) -> ET.Element:
    assert cli.main(["check", "--format", "junit", "--exit-zero", *paths]) in (0, 3)
    return ET.fromstring(capsys.readouterr().out)


def test_examples_report_validates(capsys):
    root = _junit(capsys, str(REPO / "examples"))
    assert problems(root) == []
    suite = root.find("testsuite")
    assert suite is not None and int(suite.get("failures", "0")) >= 10
    assert int(suite.get("tests", "0")) == len(suite.findall("testcase"))
    failures = suite.findall("testcase/failure")
    assert len(failures) == int(suite.get("failures", "")) and {f.get("type") for f in failures} >= {"error"}


def test_clean_files_pass_and_unreadable_ones_are_errors(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    shutil.copy(REPO / "examples" / "kubernetes" / "good-deployment.yaml", tmp_path / "good.yaml")
    root = _junit(capsys, "good.yaml", "missing.yaml")
    assert problems(root) == []
    cases = {c.get("classname"): c for c in root.iter("testcase")}
    assert len(cases["good.yaml"]) == 0 and cases["missing.yaml"].find("error") is not None
    assert root.get("errors") == "1" and root.get("failures") == "0"


@pytest.mark.parametrize("text", ["a < b & c", "quote \" and ' ", "ctrl \x1b[31m"])
def test_messages_are_escaped(text):
    from kvlint.findings import Finding, Severity
    from kvlint.lint import LintResult
    from kvlint.report.junit import render

    f = Finding("KV101", "x", Severity.ERROR, text, None, path="a.yaml")
    root = ET.fromstring(render(LintResult(findings=[f], files=["a.yaml"])))
    assert problems(root) == [] and root.find("testsuite/testcase/failure").get("message") == text.replace("\x1b", "\\x1b")
