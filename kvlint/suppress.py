"""Inline suppression: `# kvlint: ignore[KV103] reason` and `# kvlint: disable-file`.

Comments are read from the raw text (PyYAML drops them), so a suppression works the same in YAML,
shell scripts and Dockerfiles. A directive covers its own line and the next one, so it can sit at
the end of the offending line or on its own line above it; and like hadolint's and shellcheck's, a
directive above a command covers every line of that command: a shell `\\` continuation (a comment
cannot sit inside one, so "the line above the flag" would end the command), a YAML key whose value is
an indented block (an `args:` list, a `|` or `>` block scalar, a mapping). Directives are parsed
strictly: a misspelt one, or a `kvlint.io/ignore` annotation on a pod template (kvlint reads it from
the object's own metadata), is always reported (KV006) instead of silently suppressing nothing;
unused ones only with --show-unused-suppressions.
"""

from __future__ import annotations

import re

from kvlint.findings import Finding
from kvlint.lazyre import lazy
from kvlint.record import field, record, replace

_LEAD = lazy(r"#\s*kvlint\b", re.IGNORECASE)
# a comment meant for kvlint: `# kvlint:` or a directive word after `# kvlint` (not prose such as `# kvlint rules`)
_MEANT = lazy(r"#\s*kvlint\s*(?::|(?:ignore|disable|noqa|enable)\b)", re.IGNORECASE)
_ANNOTATION = lazy(r"^(\s*)[\"']?kvlint\.io/ignore[\"']?\s*:")
_KEY = lazy(r"^(\s*)(?:-\s+)?[\"']?([\w./-]+)[\"']?\s*:(?:\s|$)")
_OPENS_BLOCK = lazy(r"(?::|[|>][+-]?\d*|[|>]\d*[+-]?)\s*(?:#.*)?$")
_IGNORE = lazy(r"^#\s*kvlint:\s*ignore\[([^\[\]]*)\](?:\s+(.*))?$", re.IGNORECASE)
_DISABLE_FILE = lazy(r"^#\s*kvlint:\s*disable-file(?:\s+(.*))?$", re.IGNORECASE)
# the Markdown spelling (`<!-- kvlint: disable-file why -->`): an HTML comment, which a rendered page does not show
_HTML = lazy(r"<!--\s*(kvlint\b.*?)\s*-->", re.IGNORECASE)


@record
class Directive:
    line: int
    col: int
    text: str
    kind: str  # "ignore" | "disable-file" | "invalid"
    codes: frozenset[str] = frozenset()
    reason: str = ""
    error: str = ""
    end: int = 0  # the last line covered (0: the line after `line`)


@record(frozen=False)
class Outcome:
    kept: list[Finding] = field(default_factory=list)
    suppressed: list[Finding] = field(default_factory=list)
    unused: list[tuple[Directive, str]] = field(default_factory=list)  # directive, why (opt-in KV006)
    invalid: list[tuple[Directive, str]] = field(default_factory=list)  # malformed or misplaced (always KV006)


def parse_comment(comment: str, line: int = 0, col: int = 0) -> Directive | None:
    """One comment (from its '#') as a directive; None when it is not meant for kvlint."""
    text = comment.strip()
    if not _MEANT.match(text):
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
    """Every kvlint directive in a file's comments, with its 1-based line and column and the lines it covers;
    a `kvlint.io/ignore` annotation in a pod template's metadata as an invalid directive."""
    out: list[Directive] = []
    if "kvlint" not in text.lower():  # one scan of the text for most files (lower() maps each character alone)
        return out
    lines = text.splitlines()
    for number, line in enumerate(lines, start=1):
        if "kvlint" not in line.lower():
            continue
        m = _LEAD.search(line)
        if m and _is_comment_start(line, m.start()):
            d = parse_comment(line[m.start():], number, m.start() + 1)
            if d:
                alone = not line[:m.start()].strip()
                last = command_end(lines, number + 1) if alone else max(command_end(lines, number), number + 1)
                out.append(replace(d, end=max(last, number + 1)))
        elif "<!--" in line and (h := _HTML.search(line)) and (d := parse_comment("# " + h.group(1), number,
                                                                                h.start() + 1)):
            out.append(replace(d, end=max(command_end(lines, number + 1), number + 1)))
        elif (a := _ANNOTATION.match(line)) and (where := _template_of(lines, number, len(a.group(1)))):
            out.append(Directive(number, len(a.group(1)) + 1, line.strip(), "invalid",
                                 error=f"the annotation is on the {where}'s metadata, where kvlint does not read it "
                                       "(it suppresses nothing): put it in the object's own metadata.annotations"))
    return out


def command_end(lines: list[str], first: int) -> int:
    """The last line (1-based) of the command or YAML entry that starts on line `first`: through a shell `\\`
    continuation, and through the indented block of a YAML key or block scalar (`args:`, `- |`, `command: >-`)."""
    if first > len(lines):
        return first
    last = first
    while last <= len(lines) - 1 and lines[last - 1].rstrip().endswith("\\"):
        last += 1
    head = lines[first - 1]
    if last == first and _OPENS_BLOCK.search(head.rstrip()) and _KEY.match(head) or head.strip() in ("-", "- |", "- >"):
        last = _block_end(lines, first)
    return last


def _block_end(lines: list[str], first: int) -> int:
    """The last line of the block under line `first`: lines indented deeper, and for a key, a list at its own
    indent (YAML's compact `args:` / `- x`); blank lines and comments inside do not end it."""
    head = lines[first - 1]
    indent = len(head) - len(head.lstrip())
    key_indent = indent + (len(head.lstrip()) - len(head.lstrip().lstrip("-").lstrip()))
    last = first
    for number in range(first + 1, len(lines) + 1):
        line = lines[number - 1]
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        deeper = len(line) - len(stripped) > indent
        compact = len(line) - len(stripped) == key_indent == indent and stripped.startswith("- ") \
            and head.rstrip().endswith(":")
        if not (deeper or compact):
            break
        last = number
    return last


def _template_of(lines: list[str], number: int, indent: int) -> str | None:
    """'pod template' when the annotation on line `number` sits in a `*template*:` entry's metadata (Deployment
    spec.template, LeaderWorkerSet leaderTemplate/workerTemplate ...), else None."""
    names = []
    for line in reversed(lines[:number - 1]):
        m = _KEY.match(line)
        if m and len(m.group(1)) < indent and not line.lstrip().startswith("#"):
            names.append(m.group(2))
            indent = len(m.group(1))
            if len(names) >= 3:
                break
    if names[:2] == ["annotations", "metadata"] and len(names) == 3 and "template" in names[2].lower():
        return "pod template"
    return None


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
            out.invalid.append((d, d.error))
        elif i not in used:
            what = "no finding in this file" if d.kind == "disable-file" else \
                f"no {', '.join(sorted(d.codes))} finding on the lines it covers"
            out.unused.append((d, what))
    return out


def _covering(finding: Finding, directives: list[Directive]) -> int | None:
    if finding.span is None:
        return None
    line = finding.span.line
    for i, d in enumerate(directives):
        if d.kind == "ignore" and d.line <= line <= (d.end or d.line + 1) and matches(finding, d.codes):
            return i
    return None
