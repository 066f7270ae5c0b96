"""Helm / Go template expressions made harmless for the YAML composer, without moving any column.

`{{ ... }}` is not YAML. Lines made only of template actions are blanked; inline expressions are
swapped for same-length placeholders, restored in scalar text afterwards, so values still read as
the unresolved expression and every span stays exact.
"""

from __future__ import annotations

from kvlint.lazyre import lazy
from kvlint.record import field, record

_OPEN = "\u27e6"  # a placeholder's first character: nothing YAML or a shell gives means it
_PLACEHOLDER = lazy(r"\u27e6[0-9a-z_]*\u27e7")


def has_placeholder(text: str) -> bool:
    """Whether `text` holds a neutralised template expression (read as unresolved by every reader)."""
    return _OPEN in text


@record
class Templated:
    text: str
    count: int = 0
    first_line: int = 1
    table: dict[str, str] = field(default_factory=dict)

    def restore(self, text: str) -> str:
        if not has_placeholder(text):
            return text
        return _PLACEHOLDER.sub(lambda m: self.table.get(m.group(0), m.group(0)), text)


def detemplate(text: str) -> Templated:
    if "{{" not in text and "{%" not in text:
        return Templated(text)
    table: dict[str, str] = {}
    lines = text.split("\n")
    first = 0
    for i, line in enumerate(lines):
        if "{{" not in line and "{%" not in line and "{#" not in line:
            continue
        first = first or i + 1
        found = expressions(line)
        if found and _only_actions(line, found):
            lines[i] = " " * len(line)
        elif found:
            lines[i] = _swap(line, found, table)
    if not first:
        return Templated(text)
    return Templated("\n".join(lines), len(table) or 1, first, table)


def expressions(line: str) -> list[tuple[int, int]]:
    """(start, end) of each `{{ ... }}` in a line, left to right, each closed by the first `}}` after it opens.

    Forward passes of str.find: once no `}}` follows, none follows any later `{{` either, so a line of a million
    `{` costs a scan per kind (the non-greedy regex this replaces rescanned the rest from every brace).
    """
    return actions(line, set(_CLOSERS))


# Go/Helm and Jinja expressions `{{ }}`; Jinja's statements `{% for %}` and comments `{# #}` (Ansible templates,
# `docker-compose.yml.j2`) are template actions the same way
_CLOSERS = {"{": "}}", "%": "%}", "#": "#}"}


def _opening(line: str, start: int, kinds: set[str]) -> int:
    """Where the next `{{`, `{%` or `{#` (of the kinds still open) starts from `start`; -1 when none."""
    found = [at for k in kinds if (at := line.find("{" + k, start)) >= 0]
    return min(found) if found else -1


def _only_actions(line: str, found: list[tuple[int, int]]) -> bool:
    """Nothing but template actions and blanks on the line (`{{- if .Values.x }}`)."""
    ends = [0] + [e for _, e in found]
    starts = [s for s, _ in found] + [len(line)]
    return all(not line[a:b].strip() for a, b in zip(ends, starts, strict=True))


def _swap(line: str, found: list[tuple[int, int]], table: dict[str, str]) -> str:
    pieces, last = [], 0
    for start, end in found:
        pieces += [line[last:start], _placeholder(line[start:end], table)]
        last = end
    return "".join(pieces) + line[last:]


def _placeholder(expr: str, table: dict[str, str]) -> str:
    n = len(table)
    ident = ""
    while True:
        n, r = divmod(n, 36)
        ident += "0123456789abcdefghijklmnopqrstuvwxyz"[r]
        if not n:
            break
    body = ident.ljust(len(expr) - 2, "_")
    key = "\u27e6" + body + "\u27e7"
    table[key] = expr
    return key


def blank_statements(text: str) -> str:
    """A Jinja template's statements (`{% for x in y %}`, `{% if a %}`) and comments (`{# #}`) as spaces, over as
    many lines as they span, every newline and every other character kept at its place: what is left reads as
    the file the template renders with each condition true. An `{% else %}` / `{% elif %}` branch is blanked with
    its statement up to its `{% endif %}` (two branches of one key are alternatives, not a duplicate key), and a
    part inside an `{% if %}` stays (`--api-key {{ key }}{% endif %}` keeps its flag). `{{ }}` expressions stay:
    each reader leaves them unresolved."""
    out: list[str] = []
    last = 0
    depth, skip_from = 0, 0  # skip_from: the depth whose else-branch is being blanked (0: none)
    for start, end in actions(text, {"%", "#"}):
        word = text[start + 2 : end - 2].strip("-+ \t\n").split(" ", 1)[0]
        if skip_from:
            depth += (word == "if") - (word == "endif")
            if depth < skip_from:
                out.append(_spaces(text[last:end]))
                last, skip_from = end, 0
            continue
        if word in ("else", "elif") and depth > 0 and text[start + 1] == "%":
            out.append(text[last:start])
            last, skip_from = start, depth
            continue
        depth += (word == "if") - (word == "endif")
        out += [text[last:start], _spaces(text[start:end])]
        last = end
    return "".join(out) + (_spaces(text[last:]) if skip_from else text[last:])


def else_rendering(text: str) -> str | None:
    """The template rendered the other way at its outermost conditionals: each top-level `{% if %}` that has an
    `{% else %}` / `{% elif %}` loses its first arm (statements included, newlines kept) and keeps the rest, so a
    file whose two arms each start the engine (a multi-instance loop, else a legacy single service) shows its
    second launch; None when no top-level conditional has a second arm. Inner conditionals are left to
    blank_statements."""
    out = list(text)
    depth, opened, split, changed = 0, 0, False, False
    for start, end in actions(text, {"%"}):
        word = text[start + 2 : end - 2].strip("-+ \t\n").split(" ", 1)[0]
        if word == "if":
            depth += 1
            if depth == 1:
                opened, split = start, False
        elif word in ("else", "elif") and depth == 1 and not split:
            _blank_into(out, text, opened, end)
            split = changed = True
        elif word == "endif":
            if depth == 1 and split:
                _blank_into(out, text, start, end)
            depth = max(depth - 1, 0)
    return "".join(out) if changed else None


def _blank_into(out: list[str], text: str, start: int, end: int) -> None:
    for k in range(start, end):
        if text[k] != "\n":
            out[k] = " "


def actions(text: str, kinds: set[str]) -> list[tuple[int, int]]:
    """(start, end) of each template action of the given kinds (`{` for `{{ }}`, `%`, `#`) in `text`, in order."""
    found: list[tuple[int, int]] = []
    kinds = set(kinds)
    pos = _opening(text, 0, kinds)
    while pos >= 0:
        closer = _CLOSERS[text[pos + 1]]
        close = text.find(closer, pos + 2)
        quoted = close > 0 and closer != "#}" and (text.find('"', pos + 2, close) >= 0
                                                   or text.find("'", pos + 2, close) >= 0)
        close = closing(text, pos) if quoted else close  # a string literal inside: the closer may be in it
        if close < 0:  # none of this kind closes after here: its later openings are passed over (one scan each)
            kinds.discard(text[pos + 1])
            pos = _opening(text, pos + 2, kinds)
            continue
        found.append((pos, close + 2))
        pos = _opening(text, close + 2, kinds)
    return found


def closing(text: str, pos: int) -> int:
    """Where the action opened at `pos` closes: the first closer outside the expression's own string literals
    (Jinja and Go both lex `{{ "}}" }}` as one action printing `}}`, the way a template writes a literal brace pair
    into its output); a quote that never closes before the end is taken as a character. Each step moves past a
    whole string, so the scan stays linear."""
    closer = _CLOSERS[text[pos + 1]]
    at = pos + 2
    while True:
        close = text.find(closer, at)
        if close < 0 or closer == "#}":
            return close
        double, single = text.find('"', at, close), text.find("'", at, close)
        if double < 0 and single < 0:
            return close
        quote = double if single < 0 or 0 <= double < single else single
        end = text.find(text[quote], quote + 1)
        if end < 0:
            return close
        at = end + 1


def _spaces(text: str) -> str:
    return "".join(c if c == "\n" else " " for c in text)
