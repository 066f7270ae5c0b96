"""GitLab Code Quality: a JSON array of issues the merge request widget shows and compares between branches.

GitLab tells new issues from old ones by `fingerprint` alone and collapses issues that share one, so
the fingerprint is the baseline's (kvlint.baseline.fingerprint: code, launch, model, setting, value;
never the line), with the file and an occurrence number added to keep every issue distinct.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import TYPE_CHECKING

from kvlint.baseline import Subject, about, fingerprint
from kvlint.findings import Finding, Severity
from kvlint.report.sarif import uri

if TYPE_CHECKING:
    from kvlint.lint import LintResult

# GitLab's scale is info, minor, major, critical, blocker.
SEVERITIES = {Severity.ERROR: "critical", Severity.WARNING: "major", Severity.INFO: "info"}


def issue(f: Finding, path: str, digest: str) -> dict:
    s = f.span
    text = f"{f.code} {f.name}: {f.message}" + (f" Fix: {f.fix}" if f.fix else "")
    category = "Performance" if f.code.startswith("KV3") else "Bug Risk"  # KV3xx: levers that buy capacity
    return {"type": "issue", "check_name": f.code, "description": text, "categories": [category],
            "severity": SEVERITIES[f.severity], "fingerprint": digest,
            "location": {"path": path, "lines": {"begin": s.line if s else 1, "end": s.end_line if s else 1}}}


def document(result: LintResult) -> list[dict]:
    seen: Counter[tuple[str, Subject, str]] = Counter()
    out = []
    for f in result.findings:
        path = uri(f.span.path if f.span else f.path, "gitlab")
        key = (f.code, about(f, result), path)
        out.append(issue(f, path, fingerprint(*key, occurrence=seen[key])))
        seen[key] += 1
    for path, reason in result.unreadable:
        out.append({"type": "issue", "check_name": "kvlint", "description": f"kvlint could not read the file: {reason}",
                    "categories": ["Bug Risk"], "severity": "critical",
                    "fingerprint": fingerprint("unreadable", Subject(), uri(path, "gitlab")),
                    "location": {"path": uri(path, "gitlab"), "lines": {"begin": 1, "end": 1}}})
    return out


def render(result: LintResult, *, color: bool = False) -> str:
    return json.dumps(document(result), indent=2) + "\n"
