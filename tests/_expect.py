"""`# expect: KV101` markers: the findings a fixture or example must produce, written beside the line.

`# expect: KV101, KV301` on a line expects those codes there; `KV101@22` also pins the column;
`# expect+1: KV101` targets the next line (shell continuations cannot carry a trailing comment).
"""

from __future__ import annotations

import re
from pathlib import Path

MARKER = re.compile(r"#\s*expect(?:\+(\d+))?:\s*(.+)$")
ITEM = re.compile(r"^(KV\d{3})(?:@(\d+))?$")


def expected(path: Path) -> set[tuple]:
    """(line, code) or (line, col, code) for every marker in the file."""
    out: set[tuple] = set()
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        m = MARKER.search(line)
        if not m:
            continue
        target = number + int(m.group(1) or 0)
        for item in (i.strip() for i in m.group(2).split(",")):
            parsed = ITEM.match(item)
            assert parsed, f"{path}:{number}: bad expect item {item!r}"
            code, col = parsed.groups()
            out.add((target, int(col), code) if col else (target, code))
    return out


def actual(findings: list[dict], path: Path, with_columns: set[tuple]) -> set[tuple]:
    """Findings of one file from the JSON report, shaped like its markers (column where pinned)."""
    pinned = {(e[0], e[2]) for e in with_columns if len(e) == 3}
    out: set[tuple] = set()
    for f in findings:
        if Path(f["path"]).resolve() != path.resolve() or f["span"] is None:
            continue
        line, col = f["span"]["line"], f["span"]["col"]
        out.add((line, col, f["code"]) if (line, f["code"]) in pinned else (line, f["code"]))
    return out
