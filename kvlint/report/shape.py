"""What `kvlint check` shows, apart from what fails: `--min-severity` hides findings below a severity from
the report (the exit code still counts them: `--fail-on` decides failure), `--statistics` prints a count
per rule instead of the findings (ruff's `--statistics`)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from kvlint.findings import Finding, Severity
from kvlint.record import replace

if TYPE_CHECKING:
    from kvlint.lint import FileReport, Run, Totals


class Shown:
    """A run seen through --min-severity, for the reports written as files are checked: each file's findings
    below `least` dropped, and the totals' counts with them (the run's own totals still decide the exit)."""

    def __init__(self, run: Run, least: Severity) -> None:
        self.run, self.least = run, least

    def reports(self) -> Iterator[FileReport]:
        for report in self.run.reports():
            yield replace(report, findings=[f for f in report.findings if f.severity >= self.least])

    def texts(self, report: FileReport) -> dict[str, str]:
        return self.run.texts(report)

    @property
    def totals(self) -> Totals:
        t = self.run.totals
        return replace(t, severities={s: n for s, n in t.severities.items() if s >= self.least})


def statistics(findings: list[Finding], fmt: str) -> str:
    """Findings counted per rule, most first: `  11  KV101  [error]  pool-below-one-request`, or JSON."""
    import json
    from collections import Counter

    counts = Counter((f.code, f.name, f.severity) for f in findings)
    rows = sorted(counts.items(), key=lambda item: (-item[1], item[0][0]))
    if fmt == "json":
        return json.dumps([{"code": c, "name": n, "severity": str(s), "count": k} for (c, n, s), k in rows],
                          indent=2) + "\n"
    width = max((len(str(k)) for _, k in rows), default=1)
    return "".join(f"{k:>{width}}  {c}  [{s}]  {n}\n" for (c, n, s), k in rows)
