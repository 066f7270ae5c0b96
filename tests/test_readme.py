"""README's rule table is the registry's: a rule added, renamed or re-graded without the README fails here."""

from __future__ import annotations

import re
from pathlib import Path

from kvlint.registry import all_rules

README = Path(__file__).resolve().parent.parent / "README.md"


def test_readme_rule_table_matches_the_registry():
    section = README.read_text(encoding="utf-8").split("## Rules", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| (KV\d{3}) \| ([a-z0-9-]+) \| (error|warning|info) \|", section, re.M)
    assert rows == [(r.code, r.name, str(r.severity)) for r in all_rules()]


def _sample_blocks(text: str) -> list[list[str]]:
    """The README's plain fenced blocks that show `kvlint check examples/` output (they start `examples/`)."""
    blocks: list[tuple[str, list[str]]] = []  # (the fence's language, the lines)
    inside = False
    for line in text.splitlines():
        if line.startswith("```"):
            inside = not inside
            if inside:
                blocks.append((line[3:], []))
        elif inside:
            blocks[-1][1].append(line)
    return [b for lang, b in blocks if not lang and b and b[0].startswith("examples/")]


def _findings(lines: list[str]) -> list[tuple[str, list[str]]]:
    """(header, frame lines) per finding of a sample: a header wrapped over several lines is one line again."""
    out: list[tuple[str, list[str]]] = []
    for line in lines:
        if re.match(r"\d* +\||   = ", line):  # a code frame or a note under the finding
            out[-1][1].append(line)
        elif line.startswith("examples/") or not out or out[-1][1]:
            out.append((line, []))
        else:
            out[-1] = (out[-1][0] + " " + line, out[-1][1])
    return out


def test_readme_sample_output_is_what_kvlint_prints(monkeypatch, capsys):
    """The first output block (and every other `examples/` sample) is real output of `kvlint check examples/`:
    a changed number, message or frame fails here, with the line to paste."""
    from kvlint import cli

    monkeypatch.chdir(README.parent)
    cli.main(["check", "examples/"])
    printed = capsys.readouterr().out.splitlines()
    blocks = _sample_blocks(README.read_text(encoding="utf-8"))
    assert blocks and blocks[0][0].startswith("examples/shell/bad-serve.sh:")
    for block in blocks:
        for header, frame in _findings(block):
            assert header in printed, "README sample drifted; kvlint prints:\n" + "\n".join(
                p for p in printed if p.split(" [")[0] == header.split(" [")[0])
            at = printed.index(header)
            assert printed[at + 1:at + 1 + len(frame)] == frame


def test_sample_reader_joins_wrapped_headers():
    lines = ["examples/a.sh:1:2: KV101 [error] one", "two three", "  |", "1 | x", "  | ^", "examples/b:3:4: KV1 x"]
    assert _findings(lines) == [("examples/a.sh:1:2: KV101 [error] one two three", ["  |", "1 | x", "  | ^"]),
                                ("examples/b:3:4: KV1 x", [])]
