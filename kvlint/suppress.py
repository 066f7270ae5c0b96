"""Inline suppression: `# kvlint: ignore[KV103] reason` and `# kvlint: disable-file`.

Comments are read from the raw text (PyYAML drops them), so a suppression works the same in YAML,
shell scripts and Dockerfiles. A directive covers its own line and the next one, so it can sit at
the end of the offending line or on its own line above it. Directives are parsed strictly: a
misspelt one is reported (KV006 with --show-unused-suppressions) instead of silently suppressing.
"""

from __future__ import annotations

import re

from kvlint.findings import Finding
from kvlint.lazyre import lazy
from kvlint.record import field, record

_LEAD = lazy(r"#\s*kvlint\b", re.IGNORECASE)
_IGNORE = lazy(r"^#\s*kvlint:\s*ignore\[([^\[\]]*)\](?:\s+(.*))?$", re.IGNORECASE)
_DISABLE_FILE = lazy(r"^#\s*kvlint:\s*disable-file(?:\s+(.*))?$", re.IGNORECASE)


@record
class Directive:
    line: int
    col: int
    text: str
    kind: str  # "ignore" | "disable-file" | "invalid"
    codes: frozenset[str] = frozenset()
    reason: str = ""
    error: str = ""


@record(frozen=False)
class Outcome:
    kept: list[Finding] = field(default_factory=list)
    suppressed: list[Finding] = field(default_factory=list)
    unused: list[tuple[Directive, str]] = field(default_factory=list)  # directive, why


def parse_comment(comment: str, line: int = 0, col: int = 0) -> Directive | None:
    """One comment (from its '#') as a directive; None when it is not meant for kvlint."""
    text = comment.strip()
    if not _LEAD.match(text):
        return None
    if m := _DISABLE_FILE.match(text):
        return Directive(line, col, text, "disable-file", reason=(m.group(1) or "").strip())
    m = _IGNORE.match(text)
    if not m:
        return Directive(line, col, text, "invalid", error="expected `# kvlint: ignore[CODE,...] reason` "
                         "or `# kvlint: disable-file`")
    codes, unknown = resolve_codes(m.group(1))
    if unknown or not codes:
        why = f"unknown rule(s) {', '.join(unknown)}" if unknown else "no rule codes between the brackets"
        return Directive(line, col, text, "invalid", error=why)
    return Directive(line, col, text, "ignore", frozenset(codes), reason=(m.group(2) or "").strip())


def resolve_codes(spec: str) -> tuple[set[str], list[str]]:
    """Codes and names (comma-separated) as codes; the entries that name no rule."""
    from kvlint.registry import all_rules

    by_key = {r.code: r.code for r in all_rules()} | {r.name: r.code for r in all_rules()}
    codes, unknown = set(), []
    for part in (p.strip() for p in spec.split(",")):
        if not part:
            continue
        code = by_key.get(part.upper()) or by_key.get(part.lower())
        codes.add(code) if code else unknown.append(part)
    return codes, unknown


def scan(text: str) -> list[Directive]:
    """Every kvlint directive in a file's comments, with its 1-based line and column."""
    out = []
    for number, line in enumerate(text.splitlines(), start=1):
        if "kvlint" not in line.lower():
            continue
        m = _LEAD.search(line)
        if m and _is_comment_start(line, m.start()):
            d = parse_comment(line[m.start():], number, m.start() + 1)
            if d:
                out.append(d)
    return out


def _is_comment_start(line: str, index: int) -> bool:
    """A '#' that starts a comment: at line start or after whitespace (not inside `a#b` or a URL)."""
    return index == 0 or line[index - 1] in " \t"


def matches(finding: Finding, codes: frozenset[str] | set[str] | tuple[str, ...]) -> bool:
    return finding.code in codes or finding.name in codes


def apply(findings: list[Finding], directives: list[Directive]) -> Outcome:
    """Split one file's findings into kept and suppressed, and list directives that did nothing."""
    out = Outcome()
    used: set[int] = set()
    file_wide = [i for i, d in enumerate(directives) if d.kind == "disable-file"]
    for finding in findings:
        hit = _covering(finding, directives)
        if hit is None and file_wide:
            hit = file_wide[0]
        if hit is None:
            out.kept.append(finding)
        else:
            used.add(hit)
            out.suppressed.append(finding)
    for i, d in enumerate(directives):
        if d.kind == "invalid":
            out.unused.append((d, d.error))
        elif i not in used:
            what = "no finding in this file" if d.kind == "disable-file" else \
                f"no {', '.join(sorted(d.codes))} finding on this line or the next"
            out.unused.append((d, what))
    return out


def _covering(finding: Finding, directives: list[Directive]) -> int | None:
    if finding.span is None:
        return None
    line = finding.span.line
    for i, d in enumerate(directives):
        if d.kind == "ignore" and d.line in (line, line - 1) and matches(finding, d.codes):
            return i
    return None
