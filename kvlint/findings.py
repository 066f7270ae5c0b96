"""Findings: what a rule (or a reader, for KV001) reports, with the span of the value that causes it."""

from __future__ import annotations

import enum

from kvlint.record import field, record
from kvlint.span import Span


class Severity(enum.IntEnum):
    INFO = 1
    WARNING = 2
    ERROR = 3

    @classmethod
    def parse(cls, text: str) -> Severity:
        try:
            return cls[text.strip().upper()]
        except KeyError:
            raise ValueError(f"unknown severity {text!r} (use error, warning or info)") from None

    def __str__(self) -> str:
        return self.name.lower()


@record
class Related:
    __slots__ = ("span", "message")

    span: Span
    message: str


@record
class Finding:
    code: str  # "KV101"
    name: str  # "pool-below-one-request"
    severity: Severity
    message: str
    span: Span | None  # primary span: the flag or key that decides it (None: whole file / no file)
    related: tuple[Related, ...] = ()
    fix: str | None = None
    estimated: bool = False  # the message rests on the non-KV estimate
    path: str = ""  # the file, also when span is None
    data: dict = field(default_factory=dict, compare=False, hash=False)  # the numbers behind it

    @property
    def sort_key(self) -> tuple:
        s = self.span
        return (self.path or (s.path if s else ""), s.line if s else 0, s.col if s else 0, self.code, self.message)


def short(text: str, width: int = 80) -> str:
    """A value as a message quotes it: a 6,000-character name is cut, never printed whole. Credentials known by
    their shape are masked before the cut: a cut through one (`s3://KEY:SECRET@b` without its `@`, an `hf_` token
    short of its length) is no longer that shape, and the output's last net would let the rest through."""
    if len(text) <= width:
        return text
    from kvlint.redact import redact_shapes  # only for a value long enough to be cut

    text = redact_shapes(text)
    return text if len(text) <= width else text[: width - 3] + "..."
