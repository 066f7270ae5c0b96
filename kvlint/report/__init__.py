"""Reporters: one set of findings rendered as text, concise lines, json, sarif, github annotations, GitLab Code
Quality, JUnit XML or HTML.

Each reporter is a pure function of the lint result, so the golden tests push the same findings
through all four and any drift between formats shows up as a diff.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from kvlint.lint import LintResult, Run
    from kvlint.report.shape import Shown

FORMATS = {
    "text": "kvlint.report.text",
    "json": "kvlint.report.json_report",
    "sarif": "kvlint.report.sarif",
    "github": "kvlint.report.github",
    "gitlab": "kvlint.report.gitlab",
    "html": "kvlint.report.html",
    "concise": "kvlint.report.concise",
    "junit": "kvlint.report.junit",
}


def render(fmt: str, result: LintResult, *, color: bool = False) -> str:
    """The report for `fmt`; imported on demand so a text run never loads the SARIF code."""
    return "".join(render_chunks(fmt, result, color=color))


def streams(fmt: str) -> bool:
    """Whether `fmt` can be written as the files are checked (a document format is written whole)."""
    return fmt in ("text", "github", "concise")


def stream_chunks(fmt: str, run: Run | Shown, *, color: bool = False) -> Iterator[str]:
    """The report of a run, written as its files are checked, each piece redacted (see render_chunks)."""
    from kvlint.redact import redact_text

    for piece in importlib.import_module(FORMATS[fmt]).stream(run, color=color):
        yield redact_text(piece)


def render_chunks(fmt: str, result: LintResult, *, color: bool = False) -> Iterator[str]:
    """The report in pieces to write as they come: the text report a finding at a time, the others whole.

    Each piece is redacted on its own (the last net: a frame's source line, a message); a text piece ends
    with a finding's `= docs:` line, where no credential pattern can continue into the next piece."""
    from kvlint.redact import redact_text

    module = importlib.import_module(FORMATS[fmt])
    pieces = module.chunks(result, color=color) if hasattr(module, "chunks") else iter([module.render(result,
                                                                                                     color=color)])
    for piece in pieces:
        yield redact_text(piece)
