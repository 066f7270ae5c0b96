"""One line per finding, `path:line:col: KV101 [error] message` (ruff's `concise`): for grep, editors'
quickfix lists and logs where a code frame is noise. The summary line closes the report as in `text`."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from kvlint.findings import Finding
from kvlint.report.paths import report_path
from kvlint.report.text import summary

if TYPE_CHECKING:
    from kvlint.lint import LintResult, Run, Totals


def line(f: Finding) -> str:
    s = f.span
    where = f"{report_path(s.path)}:{s.line}:{s.col}" if s else report_path(f.path) or "-"
    return f"{where}: {f.code} [{f.severity}] {f.message}\n"


def _tail(result: LintResult | Totals) -> str:
    out = [f"{report_path(path)}: error: {reason}" for path, reason in result.unreadable]
    if not result.files and result.unreadable:  # `check missing.yaml`: the error is the report
        return "\n".join(out) + "\n"
    return "\n".join([*out, summary(result)]) + "\n"


def chunks(result: LintResult, *, color: bool = False) -> Iterator[str]:
    yield from (line(f) for f in result.findings)
    yield _tail(result)


def render(result: LintResult, *, color: bool = False) -> str:
    return "".join(chunks(result))


def stream(run: Run, *, color: bool = False) -> Iterator[str]:
    """The same lines as the run's files are checked."""
    for report in run.reports():
        yield from (line(f) for f in report.findings)
    yield _tail(run.totals)
