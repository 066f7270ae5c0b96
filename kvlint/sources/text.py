"""Reading files safely and mapping string offsets back to (line, column).

Every later stage reports positions, so text is decoded once here and every derived string (a YAML
scalar, a shell word) carries a map back to the original file rather than re-searching for it.
"""

from __future__ import annotations

import bisect
import os
import stat
from dataclasses import dataclass

from kvlint.span import Span

MAX_BYTES = 5 * 1024 * 1024  # manifests are kilobytes; anything past this is not a deployment file


class SourceError(Exception):
    """A file that cannot be read as text; `line` points at the first bad byte when known."""

    def __init__(self, reason: str, line: int | None = None, col: int | None = None):
        super().__init__(reason)
        self.reason = reason
        self.line = line
        self.col = col


def decode(data: bytes, size: int | None = None) -> str:
    """Bytes to text, refusing binary and non-UTF-8 input with the line of the first bad byte."""
    if len(data) > MAX_BYTES:
        size = max(size or 0, len(data))
        raise SourceError(f"file is {size / 1048576:.1f} MiB, over the {MAX_BYTES // 1048576} MiB size cap for manifests; not read")
    if b"\x00" in data[:8192]:
        raise SourceError("binary file (NUL bytes), not a text manifest", _line_of(data, data.index(b"\x00")))
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise SourceError(f"not UTF-8 text (byte 0x{data[exc.start]:02x})", _line_of(data, exc.start)) from None
    return text.replace("\r\n", "\n")


def _line_of(data: bytes, offset: int) -> int:
    return data.count(b"\n", 0, offset) + 1


def read_file(path: str) -> str:
    """Read and decode one file, checking the size before reading it all."""
    try:
        with open(path, "rb") as fh:
            st = os.fstat(fh.fileno())
            size = st.st_size
            if size > MAX_BYTES:
                raise SourceError(f"file is {size / 1048576:.1f} MiB, over the {MAX_BYTES // 1048576} MiB size cap for manifests; not read")
            # never more than the cap, whatever the size says (pipes and /proc report 0)
            data = fh.read(size + 1 if size or stat.S_ISREG(st.st_mode) else MAX_BYTES + 1)
    except OSError as exc:
        raise SourceError(f"cannot read: {exc.strerror or exc}") from None
    return decode(data, size)


class LineIndex:
    """Offset -> (line, col) for a whole text, 1-based, by binary search over line starts."""

    def __init__(self, text: str):
        self.text = text
        self.starts = [0]
        pos = text.find("\n")
        while pos >= 0:
            self.starts.append(pos + 1)
            pos = text.find("\n", pos + 1)

    def locate(self, offset: int) -> tuple[int, int]:
        i = bisect.bisect_right(self.starts, offset) - 1
        return i + 1, offset - self.starts[i] + 1

    def offset(self, line: int, col: int) -> int:
        return self.starts[line - 1] + col - 1

    def line_text(self, line: int) -> str:
        start = self.starts[line - 1]
        end = self.starts[line] - 1 if line < len(self.starts) else len(self.text)
        return self.text[start:end]


@dataclass(frozen=True)
class Mapped:
    """A string as some consumer sees it, with where each of its characters sits in a file.

    Either `pos[i]` is the (line, col) of character i (YAML block/quoted scalars, where the text a
    shell sees is not a contiguous slice of the file), or `index` maps a whole file's offsets.
    """

    path: str
    text: str
    pos: tuple[tuple[int, int], ...] = ()
    index: LineIndex | None = None

    def at(self, i: int) -> tuple[int, int]:
        if self.index is not None:
            return self.index.locate(i)
        if not self.pos:
            return (1, 1)
        return self.pos[min(i, len(self.pos) - 1)]

    def span(self, start: int, end: int) -> Span:
        line, col = self.at(start)
        if end <= start:
            return Span(self.path, line, col, line, col)
        eline, ecol = self.at(end - 1)
        return Span(self.path, line, col, eline, ecol + 1)

    @classmethod
    def whole(cls, path: str, text: str, index: LineIndex | None = None) -> Mapped:
        return cls(path, text, (), index or LineIndex(text))
