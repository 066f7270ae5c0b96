"""GitHub Actions workflow commands: each finding becomes a PR annotation on its line.

`::error file=…,line=…::message`; values are escaped as the runner expects (%, CR, LF in the message;
also `:` and `,` in properties) or the annotation is cut short.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from kvlint.findings import Finding, Severity
from kvlint.printable import printable
from kvlint.report.paths import report_path

if TYPE_CHECKING:
    from kvlint.lint import LintResult, Run

COMMANDS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}


def _data(text: str) -> str:
    text = printable(text.replace("\r", "\n"))  # CR and LF are the runner's escapes below; the rest as \x1b
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _prop(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")


def annotation(f: Finding) -> str:
    s = f.span
    props = [f"file={_prop(report_path(s.path if s else f.path, 'github'))}"]
    if s is not None:
        props += [f"line={s.line}", f"col={s.col}", f"endLine={s.end_line}",
                  f"endColumn={max(s.col, s.end_col - 1)}"]
    props.append(f"title={_prop(f.code)}")
    text = f"{f.message}" + (f" Fix: {f.fix}" if f.fix else "")
    return f"::{COMMANDS[f.severity]} {','.join(props)}::{_data(f'{f.code} [{f.severity}] {f.name}: {text}')}"


def render(result: LintResult, *, color: bool = False) -> str:
    lines = [annotation(f) for f in result.findings]
    lines += [f"::error file={_prop(report_path(p, 'github'))},title=kvlint::{_data(r)}" for p, r in result.unreadable]
    return "\n".join(lines) + ("\n" if lines else "")


def stream(run: Run, *, color: bool = False) -> Iterator[str]:
    """The same annotations as the run's files are checked (memory flat in the number of files)."""
    for report in run.reports():
        for f in report.findings:
            yield annotation(f) + "\n"
    for p, r in run.totals.unreadable:
        yield f"::error file={_prop(report_path(p, 'github'))},title=kvlint::{_data(r)}\n"
