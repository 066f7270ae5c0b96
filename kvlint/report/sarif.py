"""SARIF 2.1.0 for code scanning: rule descriptors with help, regions, related locations.

Descriptors list every rule (not only those that fired) so code scanning can show the help of a
rule whose alerts were all fixed; ruleIndex ties each result to its descriptor.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from kvlint import DOCS_URL, __version__
from kvlint.findings import Finding, Severity
from kvlint.registry import Rule, all_rules
from kvlint.report.paths import report_path
from kvlint.span import Span
from kvlint.status import capacity_summary

if TYPE_CHECKING:
    from kvlint.lint import LintResult

LEVELS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}
SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
DOCS_URI = DOCS_URL  # kept for importers; the value lives in kvlint/__init__.py


def uri(path: str, fmt: str = "sarif") -> str:
    """The artifact's URI: relative to the working directory (kvlint.report.paths), or file:// outside it."""
    rel = report_path(path, fmt)
    return "file://" + rel if rel.startswith("/") else rel


def descriptor(rule: Rule) -> dict:
    from kvlint.ruledocs import rule_markdown

    return {
        "id": rule.code, "name": rule.name,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": rule.docs.get("What it checks", rule.summary)},
        "help": {"text": rule.docs.get("Use instead", rule.summary), "markdown": rule_markdown(rule, level=1)},
        "helpUri": f"{DOCS_URI}#{rule.code.lower()}-{rule.name}",
        "defaultConfiguration": {"level": LEVELS[rule.severity]},
        "properties": {"tags": ["kv-cache", rule.source]},
    }


def location(span: Span | None, path: str) -> dict[str, Any]:
    loc: dict[str, Any] = {"physicalLocation": {"artifactLocation": {"uri": uri(span.path if span else path)}}}
    if span is not None:
        loc["physicalLocation"]["region"] = {"startLine": span.line, "startColumn": span.col,
                                             "endLine": span.end_line, "endColumn": span.end_col}
    return loc


def result_json(f: Finding, index: dict[str, int]) -> dict:
    out = {
        "ruleId": f.code, "ruleIndex": index[f.code], "level": LEVELS[f.severity],
        "message": {"text": f.message + (f" Fix: {f.fix}" if f.fix else "")},
        "locations": [location(f.span, f.path)],
        "properties": {"name": f.name, "estimated": f.estimated},
    }
    if f.related:
        out["relatedLocations"] = [dict(location(r.span, f.path), id=i, message={"text": r.message})
                                   for i, r in enumerate(f.related)]
    return out


def document(result: LintResult) -> dict[str, Any]:
    rules = all_rules()
    index = {r.code: i for i, r in enumerate(rules)}
    return {
        "$schema": SCHEMA, "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "kvlint", "version": __version__, "informationUri": DOCS_URI,
                                "rules": [descriptor(r) for r in rules]}},
            "results": [result_json(f, index) for f in result.findings],
            "invocations": [{"executionSuccessful": not result.unreadable,
                             "toolExecutionNotifications": [
                                 {"level": "error", "message": {"text": reason},
                                  "locations": [location(None, path)]} for path, reason in result.unreadable]}],
            "properties": {"deployments": [s.to_json() for s in result.launches],
                           "capacity": capacity_summary(result.launches)},
        }],
    }


def render(result: LintResult, *, color: bool = False) -> str:
    return json.dumps(document(result), indent=2) + "\n"
