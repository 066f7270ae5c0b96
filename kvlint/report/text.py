"""Human output: `path:line:col: KV101 [error] message`, a code frame with carets, and a summary.

The header line is the grep-able, editor-clickable contract (compilers' format); the frame shows the
offending value so a reader need not open the file. Colour only when asked (a terminal, no NO_COLOR).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from kvlint import redact
from kvlint.findings import Finding, Severity
from kvlint.printable import printable
from kvlint.status import CapacityTally, LaunchStatus, capacity_line

if TYPE_CHECKING:
    from kvlint.lint import LintResult, Run, Totals

FRAME_WIDTH = 120
COLORS = {Severity.ERROR: "31", Severity.WARNING: "33", Severity.INFO: "36"}


def _paint(text: str, code: str, color: bool) -> str:
    return f"\x1b[{code}m{text}\x1b[0m" if color else text


def header(f: Finding, color: bool = False) -> str:
    where = str(f.span) if f.span else f.path or "-"
    level = _paint(f"[{f.severity}]", "1;" + COLORS[f.severity], color)
    return f"{_paint(printable(where), '1', color)}: {_paint(f.code, '1', color)} {level} {printable(f.message)}"


def frame(f: Finding, lines: list[str] | None, color: bool = False) -> list[str]:
    """The source line under the finding with carets under its span."""
    s = f.span
    if s is None or not lines or not 1 <= s.line <= len(lines):
        return []
    src = lines[s.line - 1].rstrip("\n").removesuffix("\r").expandtabs(1)
    end = s.end_col if s.end_line == s.line and s.end_col > s.col else len(src) + 1
    src, col, end, before, after = _around(src, s.col, end)
    src, col, end = _redacted(src, col, end)
    src, start, end = _window(src, col, end)
    if before and not src.startswith("..."):
        src, start, end = "..." + src, start + 3, end + 3
    if after and not src.endswith("..."):
        src += "..."
    width = len(str(s.line))
    carets = " " * (start - 1) + "^" * max(1, end - start)
    bar = _paint("|", "34", color)
    return [f"{' ' * width} {bar}", f"{s.line} {bar} {src}",
            f"{' ' * width} {bar} {_paint(carets, COLORS[f.severity], color)}"]


def _around(src: str, col: int, end: int, width: int = FRAME_WIDTH) -> tuple[str, int, int, bool, bool]:
    """The part of a long line a window can show, widened to whole words and the two words before (a flag's
    name and its value are redacted together), so each finding redacts a few hundred characters, not a line of
    25 KB with 2,000 findings on it; and whether text was left off before and after."""
    if len(src) <= 3 * width:
        return src, col, end, False, False
    lo = max(0, col - 1 - width)
    floor = max(0, lo - WORD_REACH)  # a line with no spaces (minified JSON, a PowerShell array) is not one word
    for _ in range(3):  # back to the start of this word, then over two more (`--name value`, `"Bearer X"`)
        lo = src.rfind(" ", floor, lo)
        if lo <= floor:
            lo = floor
            break
        while lo > floor and src[lo - 1] == " ":
            lo -= 1
    start = min(len(src), max(col, end) - 1 + width)
    hi = src.find(" ", start, start + WORD_REACH)
    hi = min(len(src), start + WORD_REACH) if hi < 0 else hi
    return src[lo:hi], col - lo, end - lo, lo > 0, hi < len(src)


# How far past the window a word (or three) may reach: the longest credential a flag carries fits, and a
# 120 KB line without spaces is not redacted whole once per finding (4,096 findings took 9 s).
WORD_REACH = 1024


def _redacted(src: str, col: int, end: int) -> tuple[str, int, int]:
    """The line with its credentials masked before any window is cut from it: a cut that drops a flag's name
    (`...rFAKE0019 --foo-key`) leaves a value no later pass can tell is a secret; control characters escaped
    (kvlint.printable). Columns follow the mask and the escapes."""

    def show(text: str) -> str:
        return printable(redact.redact_text(text))

    shown = show(src)
    if shown == src:
        return src, col, end
    start = len(show(src[:col - 1])) + 1
    end = min(start + len(show(src[col - 1:end - 1])), len(shown) + 1)
    return shown, start, max(start + 1, end)


def _window(src: str, col: int, end: int, width: int = FRAME_WIDTH) -> tuple[str, int, int]:
    """A long line cut to the part around the span (minified JSON, one-line scripts), with '...' marks."""
    if len(src) <= width:
        return src, col, end
    end = min(end, col + width // 2)
    first = max(0, col - 1 - width // 3)
    cut = ("..." if first else "") + src[first:first + width] + ("..." if first + width < len(src) else "")
    shift = first - (3 if first else 0)
    return cut, col - shift, end - shift


def notes(f: Finding) -> list[str]:
    out = [printable(f"   = related: {r.span}: {r.message}") for r in f.related]
    if f.fix:
        out.append(printable(f"   = fix: {f.fix}"))
    if f.estimated:
        out.append("   = note: rests on kvlint's non-KV estimate (calibrate with `kvlint verify` or set non-kv-gib)")
    if f.data.get("modelled_release"):
        out.append(printable(f"   = note: {f.data['modelled_release']}"))
    out.append(f"   = docs: kvlint rule {f.code}")
    return out


def plural(count: int, word: str, words: str | None = None) -> str:
    """`1 file`, `7 files`, `2 engine launches`: the count with the word in the number it takes."""
    return f"{count} {word if count == 1 else words or word + 's'}"


def summary(result: LintResult | Totals) -> str:
    counts = _counts(result)
    files = plural(len(result.files), "file")
    over = passed_over_words(result.passed_over)
    if not sum(counts.values()):
        return f"No findings in {files} ({plural(result.deployments, 'engine launch', 'engine launches')}{over})."
    parts = [plural(n, str(sev)) for sev, n in sorted(counts.items(), reverse=True) if n]
    extra = f", {result.suppressed} suppressed" if result.suppressed else ""
    tail = f" ({over[2:]})" if over else ""
    return f"Found {plural(sum(counts.values()), 'finding')} ({', '.join(parts)}{extra}) in {files}{tail}."


def passed_over_words(n: int) -> str:
    """`; 3 places named an engine but gave no launch` (KV008), or nothing when there are none."""
    if not n:
        return ""
    return f"; {plural(n, 'place')} named an engine but gave no launch"


def _counts(result: LintResult | Totals) -> dict[Severity, int]:
    have = result.severities
    return {sev: have.get(sev, 0) for sev in Severity}


def render(result: LintResult, *, color: bool = False) -> str:
    return "".join(chunks(result, color=color))


def chunks(result: LintResult, *, color: bool = False) -> Iterator[str]:
    """The report a finding at a time (each chunk ends in a newline), so a large run's report is written as it
    is made instead of held whole."""
    yield from _findings(result.findings, result.texts, color)
    yield _tail(result, result.launches)


def stream(run: Run, *, color: bool = False) -> Iterator[str]:
    """The same report from a run as its files are checked: each file's findings are written and dropped, so
    memory does not grow with the number of files."""
    for report in run.reports():
        if report.findings:
            yield from _findings(report.findings, run.texts(report), color)
    yield _tail(run.totals, run.totals.capacity)


def _findings(findings: Iterable[Finding], texts: dict[str, str], color: bool) -> Iterator[str]:
    split: dict[str, list[str]] = {}
    for f in findings:
        path = f.span.path if f.span else f.path
        if path not in split and path in texts:
            split[path] = texts[path].split("\n")  # as spans count lines: a lone CR or form feed is no line end
        yield "\n".join([header(f, color), *frame(f, split.get(path), color), *notes(f)]) + "\n"


def _tail(result: LintResult | Totals, launches: Iterable[LaunchStatus] | CapacityTally) -> str:
    out = [printable(f"{path}: error: {reason}") for path, reason in result.unreadable]
    if not result.files and result.unreadable:  # `check missing.yaml`: the error is the report
        return "\n".join(out) + "\n"
    out.append(summary(result))
    out.append(capacity_line(launches))
    return "\n".join(out) + "\n"
