"""Files a build step writes with `echo` or `printf` (`RUN echo '#!/bin/bash\\n\\ ... ' > /app/start.sh`).

A Dockerfile that writes its start script this way and then runs it (`CMD ["/bin/bash", "/app/start.sh"]`) launches
what the script says (sample K120). The script's text is the quoted words as the shell and `echo` give them to the
file: Docker's `\\`-newline continuations joined first, then the shell's quoting, then echo's escapes (`\\n` a newline,
as the `/bin/sh` of Debian-based images prints it). Each character of the result keeps its offset in the Dockerfile, so
a finding on the script points at the line that wrote it.
"""

from __future__ import annotations

from collections.abc import Iterator

from kvlint.lazyre import lazy

_ECHO = lazy(r"(?<![\w-])(echo|printf)((?:\s+-[neE]+)*)\s+(?=['\"%\w#])")
_ESCAPES = {"n": "\n", "t": "\t", "\\": "\\"}
_ENDS = frozenset(";&|\n")


def echo_writes(text: str) -> dict[str, tuple[str, list[int]]]:
    """{path: (what the file holds, the offset in `text` each of its characters comes from)}, `>` starting a file
    and `>>` adding to it, in the order the writes come in `text`."""
    files: dict[str, tuple[str, list[int]]] = {}
    for path, append, chars, offs in writes(text):
        if append and path in files:
            old, old_offs = files[path]
            files[path] = (old + chars, old_offs + offs)
        else:
            files[path] = (chars, offs)
    return files


def writes(text: str) -> Iterator[tuple[str, bool, str, list[int]]]:
    """Each `echo`/`printf` write in `text`, in order: (the file, whether it appends, the characters written, the
    offset in `text` each comes from)."""
    for m in _ECHO.finditer(text):
        words, k = _words(text, m.end())
        if k >= len(text) or text[k] != ">" or not words:
            continue  # printed to the build log, not written
        append = text.startswith(">>", k)
        target, _ = _words(text, k + (2 if append else 1), stop_at_space=True)
        if len(target) != 1 or not target[0][0]:
            continue
        raw, offs = _printed(m.group(1), words, "E" not in m.group(2))
        yield target[0][0], append, raw, offs


def _words(text: str, k: int, stop_at_space: bool = False) -> tuple[list[tuple[str, list[int]]], int]:
    """The shell words from `k` up to a redirection or the command's end: (word, offsets) each, and where it
    stopped. Docker's `\\`-newline continuations vanish wherever they stand, as its parser removes them first."""
    words: list[tuple[str, list[int]]] = []
    chars: list[str] = []
    offs: list[int] = []
    quote, started = "", False
    n = len(text)
    while k < n:
        ch = text[k]
        if ch == "\\" and text.startswith("\n", k + 1):
            k += 2  # a Docker continuation, inside quotes or not
            continue
        if quote:
            if ch == quote:
                quote = ""
            elif quote == '"' and ch == "\\" and k + 1 < n and text[k + 1] in '"\\$`':
                chars.append(text[k + 1])
                offs.append(k)
                k += 1
            else:
                chars.append(ch)
                offs.append(k)
            k += 1
            continue
        if ch in "'\"":
            quote, started = ch, True
        elif ch.isspace() or ch == ">" or ch in _ENDS:
            if started or chars:
                words.append(("".join(chars), offs))
                chars, offs, started = [], [], False
            if ch == ">" or ch in _ENDS or (stop_at_space and words):
                break
        else:
            chars.append(ch)
            offs.append(k)
        k += 1
    else:
        if started or chars:
            words.append(("".join(chars), offs))
    return words, k


def _printed(program: str, words: list[tuple[str, list[int]]], escapes: bool) -> tuple[str, list[int]]:
    """What `echo WORDS` (words joined by a space, a newline after) or `printf FORMAT [ARGS]` prints; printf's
    `'%s\\n' LINE...` prints each argument as a line."""
    if program == "printf":
        fmt, args = words[0], words[1:]
        if fmt[0] in ("%s\\n", "%s\n") and args:
            return _joined([_escaped(w, o) for w, o in args], "\n", tail=True)
        return _escaped(*fmt)
    parts = [_escaped(w, o) if escapes else (w, o) for w, o in words]
    return _joined(parts, " ", tail=True)


def _joined(parts: list[tuple[str, list[int]]], sep: str, tail: bool) -> tuple[str, list[int]]:
    text: list[str] = []
    offs: list[int] = []
    for i, (w, o) in enumerate(parts):
        if i:
            text.append(sep)
            offs.append(o[0] if o else (offs[-1] if offs else 0))
        text.append(w)
        offs.extend(o)
    if tail:
        text.append("\n")
        offs.append(offs[-1] if offs else 0)
    return "".join(text), offs


def _escaped(word: str, offs: list[int]) -> tuple[str, list[int]]:
    """echo's and printf's backslash escapes (`\\n`, `\\t`, `\\\\`) decoded, each at its backslash."""
    if "\\" not in word:
        return word, offs
    out: list[str] = []
    back: list[int] = []
    k = 0
    while k < len(word):
        if word[k] == "\\" and k + 1 < len(word) and word[k + 1] in _ESCAPES:
            out.append(_ESCAPES[word[k + 1]])
            back.append(offs[k])
            k += 2
            continue
        out.append(word[k])
        back.append(offs[k])
        k += 1
    return "".join(out), back
