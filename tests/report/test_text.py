"""The text frame stays readable on long lines: the caret still lands under the span."""

from __future__ import annotations

from kvlint.findings import Finding, Severity
from kvlint.report.text import frame
from kvlint.span import Span


def test_long_line_is_windowed_around_the_span():
    line = "a" * 500 + "--max-model-len=32768" + "b" * 500
    col = 501 + len("--max-model-len=")
    f = Finding("KV101", "pool-below-one-request", Severity.ERROR, "m", Span("x.sh", 1, col, 1, col + 5))
    _, src, carets = frame(f, [line])
    assert len(src) < 140 and src.startswith("1 | ...") and src.endswith("...")
    start = carets.index("^")
    assert src[start:start + 5] == "32768" and carets.count("^") == 5


def test_short_line_is_whole():
    f = Finding("KV204", "gpu-count-mismatch", Severity.ERROR, "m", Span("x.yaml", 2, 5, 2, 6))
    _, src, carets = frame(f, ["x", "tp: 4"])
    assert src == "2 | tp: 4" and carets.endswith("    ^")


def test_a_modelled_release_note_shows_control_characters_escaped():
    """Fuzz seed 41 (case 291): an image name with a raw C1 control (`rocm/sgl-dev\\x9b\\x9b:20250901`) reached the
    terminal through the `= note:` line of a date-tagged image's modelled release; every report line is printable."""
    from kvlint.report.text import notes

    f = Finding("KV108", "catalogue-sweep", Severity.INFO, "m", Span("a.sh", 1, 1, 1, 2), path="a.sh",
                data={"modelled_release": "the image rocm/sgl-dev\x9b:20250901 is a build of 2025-09-01"})
    (note,) = [n for n in notes(f) if n.startswith("   = note:")]
    assert "\x9b" not in note and "\\x9b" in note
