"""Machine output, versioned: the shape is documented by kvlint/data/report.schema.json.

Keys are stable and additive; `version` changes only when a key changes meaning or goes away.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from kvlint import __version__
from kvlint.findings import Finding, Severity
from kvlint.report.paths import report_path
from kvlint.span import Span
from kvlint.status import capacity_summary

if TYPE_CHECKING:
    from kvlint.lint import LintResult

VERSION = 1


def span_json(span: Span | None) -> dict[str, Any] | None:
    if span is None:
        return None
    return {"path": report_path(span.path), "line": span.line, "col": span.col, "end_line": span.end_line,
            "end_col": span.end_col}


def _help(code: str) -> dict:
    from kvlint.registry import get_rule

    try:
        rule = get_rule(code)
    except Exception:  # noqa: BLE001 - a reader's code outside the catalogue still reports
        return {"summary": "", "help": ""}
    return {"summary": rule.summary, "help": rule.docs.get("Use instead", "")}


def finding_json(f: Finding) -> dict:
    return {
        "code": f.code, "name": f.name, "severity": str(f.severity), "message": f.message,
        "path": report_path(f.path or (f.span.path if f.span else "")), "span": span_json(f.span),
        "related": [{"span": span_json(r.span), "message": r.message} for r in f.related],
        "fix": f.fix, "estimated": f.estimated, "data": _plain(f.data), **_help(f.code),
    }


def _plain(data: dict) -> dict:
    return {k: v for k, v in data.items() if isinstance(v, (str, int, float, bool, list, type(None)))}


def document(result: LintResult) -> dict[str, Any]:
    counts = {str(sev): sum(1 for f in result.findings if f.severity is sev) for sev in Severity}
    return {
        "version": VERSION,
        "tool": {"name": "kvlint", "version": __version__},
        "findings": [finding_json(f) for f in result.findings],
        "summary": {"files": len(result.files), "deployments": result.deployments,
                    "passed_over": result.passed_over, "findings": len(result.findings),
                    "suppressed": result.suppressed, **counts},
        "unreadable": [{"path": report_path(p), "reason": r} for p, r in result.unreadable],
        "notes": list(result.notes),
        "deployments": [_relative(s.to_json()) for s in result.launches],
        "capacity": capacity_summary(result.launches),
    }


def _relative(entry: dict[str, Any]) -> dict[str, Any]:
    return {**entry, "path": report_path(entry["path"])} if entry.get("path") else entry


def render(result: LintResult, *, color: bool = False) -> str:
    return json.dumps(document(result), indent=2, sort_keys=False) + "\n"
