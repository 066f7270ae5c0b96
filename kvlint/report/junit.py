"""JUnit XML, what Jenkins and GitLab's test report (`artifacts:reports:junit`) read.

The dialect is the Jenkins xUnit plugin's junit-10.xsd (the nearest to a common schema: GitLab, Jenkins and
Azure read it): one `testsuite`, one `testcase` per finding with a `<failure>` whose type is the severity,
one passing `testcase` per file with no finding (so a clean run shows its files as passed tests), and an
`<error>` per file that could not be read. junit-10 has no `file` attribute on a test case, so the path is
the `classname` (what both UIs group by); tests/report/test_junit.py checks the structure against the xsd.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from typing import TYPE_CHECKING

from kvlint.findings import Finding
from kvlint.report.paths import report_path

if TYPE_CHECKING:
    from kvlint.lint import LintResult


# characters XML 1.0 cannot hold even escaped (a terminal escape in a quoted value): written as \\xNN
UNSAFE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def _safe(text: str) -> str:
    return UNSAFE.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


def _case(suite: ET.Element, path: str, name: str) -> ET.Element:
    return ET.SubElement(suite, "testcase", {"name": name, "classname": path, "time": "0"})


def _finding(suite: ET.Element, f: Finding) -> None:
    s = f.span
    path = report_path(s.path if s else f.path)
    where = f" at {s.line}:{s.col}" if s else ""
    failure = ET.SubElement(_case(suite, path, f"{f.code} {f.name}{where}"), "failure",
                            {"type": str(f.severity), "message": _safe(f.message)})
    failure.text = _safe("\n".join([f"{path}{where.replace(' at ', ':')}: {f.code} [{f.severity}] {f.message}",
                              *([f"fix: {f.fix}"] if f.fix else [])]))


def document(result: LintResult) -> ET.Element:
    suite = ET.Element("testsuite", {"name": "kvlint", "tests": "0", "failures": str(len(result.findings)),
                                     "errors": str(len(result.unreadable)), "skipped": "0", "time": "0"})
    flagged = set()
    for f in result.findings:
        _finding(suite, f)
        flagged.add(f.span.path if f.span else f.path)
    for path in result.files:
        if path not in flagged:
            _case(suite, report_path(path), "kvlint")
    for path, reason in result.unreadable:
        ET.SubElement(_case(suite, report_path(path), "kvlint"), "error",
                      {"type": "unreadable", "message": _safe(reason)})
    suite.set("tests", str(len(suite)))
    root = ET.Element("testsuites", {k: suite.get(k, "") for k in ("name", "tests", "failures", "errors", "time")})
    root.append(suite)
    return root


def render(result: LintResult, *, color: bool = False) -> str:
    root = document(result)
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
