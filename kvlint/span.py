"""Source positions shared by every stage, so a finding can point at the exact value that caused it."""

from __future__ import annotations

from kvlint.record import record


@record(order=True)
class Span:
    """A region of one file. Lines and columns are 1-based; end_col is exclusive (as in SARIF)."""

    __slots__ = ("path", "line", "col", "end_line", "end_col")  # one per parsed node: no __dict__ each

    path: str
    line: int
    col: int
    end_line: int
    end_col: int

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.col}"

    def holds(self, other: Span) -> bool:
        """Whether `other` starts inside this region (a value written inside a mapping, not merged into it)."""
        return (self.line, self.col) <= (other.line, other.col) <= (self.end_line, self.end_col)


@record
class Token:
    """One shell/argv word after quote removal, with where its raw text sits (None for typed-in argv)."""

    text: str
    span: Span | None = None
