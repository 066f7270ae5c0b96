"""Comments by line, recovered from raw text (PyYAML drops them) for `# kvlint: ignore[...]`."""

from __future__ import annotations

from kvlint.lazyre import lazy


def scan_comments(text: str) -> dict[int, str]:
    """line -> comment text after '#', for '#' at line start or after whitespace, outside quotes.

    Quotes are tracked per line only: a multi-line quoted scalar rarely holds a '#', and a wrong
    guess costs one suppression comment, never a crash.
    """
    out: dict[int, str] = {}
    for number, line in enumerate(text.split("\n"), 1):
        if "#" in line:
            pos = comment_start(line)
            if pos is not None:
                out[number] = line[pos + 1 :].rstrip()
    return out


_STOPS = lazy(r"['\"\\#]")  # the only characters that change the scan


def comment_start(line: str) -> int | None:
    """Offset of the `#` that starts a comment, jumping between quotes, backslashes and `#` (a long line of
    ordinary text is one regex step, not a Python loop per character)."""
    quote = None
    pos = 0
    while (m := _STOPS.search(line, pos)) is not None:
        i, ch = m.start(), m.group()
        pos = i + 1
        if quote:
            if ch == quote:
                quote = None
            elif ch == "\\" and quote == '"':
                continue
        elif ch in "'\"" and (i == 0 or not line[i - 1].isalnum()):
            quote = ch
        elif ch == "#" and (i == 0 or line[i - 1] in " \t"):
            return i
    return None
