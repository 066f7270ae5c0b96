"""Reading files safely and mapping string offsets back to (line, column).

Every later stage reports positions, so text is decoded once here and every derived string (a YAML
scalar, a shell word) carries a map back to the original file rather than re-searching for it.
"""

from __future__ import annotations

import bisect
import os
import stat
import sys
import weakref
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any, BinaryIO, overload

from kvlint.lazyre import lazy
from kvlint.record import record
from kvlint.span import Span

_NEWLINE = lazy("\n")
MAX_BYTES = 5 * 1024 * 1024  # manifests are kilobytes; anything past this is not a deployment file


class SourceError(Exception):
    """A file that cannot be read as text; `line` points at the first bad byte when known."""

    def __init__(self, reason: str, line: int | None = None, col: int | None = None):
        super().__init__(reason)
        self.reason = reason
        self.line = line
        self.col = col


def decode(data: bytes, size: int | None = None, bytes_ok: bool = False) -> str:
    """Bytes to text, refusing binary and non-UTF-8 input with the line of the first bad byte. `bytes_ok`: a format
    whose programs read bytes (kvlint.launches.kinds.Kind.bytes_ok): text in a legacy code page is decoded with
    each undecodable byte as U+FFFD (its ASCII, where every flag and model id is written, unchanged)."""
    if len(data) > MAX_BYTES:
        raise SourceError(_over_cap(max(size or 0, len(data))))
    wide = _wide_encoding(data)
    if wide is not None:  # UTF-16/32 with a byte-order mark (Windows editors save YAML so): text, not binary
        try:
            return data.decode(wide).lstrip("\ufeff").replace("\r\n", "\n")
        except UnicodeDecodeError as exc:
            raise SourceError(f"not {wide.upper()} text past its byte-order mark (byte {exc.start})") from None
    if b"\x00" in data[:8192]:
        raise SourceError("binary file (NUL bytes), not a text manifest", _line_of(data, data.index(b"\x00")))
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        if bytes_ok:
            return data.decode("utf-8-sig", errors="replace").replace("\r\n", "\n")
        raise SourceError(f"not UTF-8 text (byte 0x{data[exc.start]:02x})", _line_of(data, exc.start)) from None
    return text.replace("\r\n", "\n")


def _wide_encoding(data: bytes) -> str | None:
    """The codec a byte-order mark names, for the encodings whose text holds NUL bytes."""
    for bom, codec in ((b"\xff\xfe\x00\x00", "utf-32"), (b"\x00\x00\xfe\xff", "utf-32"),
                       (b"\xff\xfe", "utf-16"), (b"\xfe\xff", "utf-16")):
        if data.startswith(bom):
            return codec
    return None


def _over_cap(size: int, cap: int = MAX_BYTES) -> str:
    return f"file is {size / 1048576:.1f} MiB, over the {cap / 1048576:g} MiB size cap for manifests; not read"


def _line_of(data: bytes, offset: int) -> int:
    return data.count(b"\n", 0, offset) + 1


_KINDS = ((stat.S_ISFIFO, "a named pipe (FIFO)"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"), (stat.S_ISDIR, "a folder"))


def not_regular(mode: int) -> str | None:
    """What a file is when it is not a regular file (a FIFO blocks a read forever, /dev/zero never ends)."""
    if stat.S_ISREG(mode):
        return None
    return next((what for test, what in _KINDS if test(mode)), "not a regular file")


def read_bytes(path: str, cap: int = MAX_BYTES) -> bytes:
    """At most `cap` bytes of a regular file, checked before reading: SourceError for anything else, OSError as is.

    The read asks for cap + 1 bytes whatever the size says (a growing file, /proc), so memory never
    depends on the file.
    """
    with _open_regular(path) as (fh, size):
        if size > cap:
            raise SourceError(_over_cap(size, cap))
        data = fh.read(cap + 1)
    if len(data) > cap:
        raise SourceError(_over_cap(max(size, len(data)), cap))
    return data


def read_head(path: str, limit: int) -> bytes:
    """The first `limit` bytes of a regular file (SourceError for other kinds, OSError as is)."""
    with _open_regular(path) as (fh, _):
        return fh.read(limit)


# O_NONBLOCK: opening a FIFO that slipped past the type check does not wait; O_BINARY (Windows): no newline
# translation. Asked of `os` once: a missing module attribute formats an AttributeError every time it is asked.
_READ_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)


@contextmanager
def _open_regular(path: str) -> Iterator[tuple[BinaryIO, int]]:
    """A regular file opened for reading, and its size. The type is checked before opening (opening a FIFO
    waits for a writer; opening some devices acts) and again on the descriptor, in case the path changed."""
    what = not_regular(os.stat(path).st_mode)
    if what is not None:
        raise SourceError(f"{what}, not a regular file; not read")
    with os.fdopen(os.open(path, _READ_FLAGS), "rb") as fh:
        st = os.fstat(fh.fileno())
        what = not_regular(st.st_mode)
        if what is not None:
            raise SourceError(f"{what}, not a regular file; not read")
        yield fh, st.st_size


_STDIN: weakref.WeakKeyDictionary[Any, bytes] = weakref.WeakKeyDictionary()


def read_stdin(cap: int = MAX_BYTES) -> bytes:
    """At most cap + 1 bytes of standard input, read once per stream (the check command and the reader
    both ask for it; the second gets the same bytes, so the reader can still say why they were refused)."""
    stream = getattr(sys.stdin, "buffer", sys.stdin)
    if stream not in _STDIN:
        data = stream.read(cap + 1)
        _STDIN[stream] = data.encode("utf-8") if isinstance(data, str) else data
    return _STDIN[stream]


def read_small(path: str, cap: int) -> str | None:
    """A file looked at beside the one being read (a Dockerfile naming a script, a module's locals): its text when
    it is a regular file of at most `cap` bytes that decodes, else None (never an error: it is only context)."""
    try:
        return decode(read_bytes(path, cap))
    except (OSError, SourceError):
        return None


def read_file(path: str, bytes_ok: bool = False) -> str:
    """Read and decode one file, bounded before it is read (see read_bytes; `bytes_ok`: see decode)."""
    try:
        return decode(read_bytes(path), bytes_ok=bytes_ok)
    except OSError as exc:
        raise SourceError(f"cannot read: {exc.strerror or exc}") from None


def lines_with_starts(text: str) -> tuple[list[str], list[int]]:
    """The text's lines and each one's start offset, with one start more past the last line (where a block that runs
    to the end stops): what a document reader walking its blocks line by line needs (reStructuredText, AsciiDoc,
    Org)."""
    lines = text.split("\n")
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line) + 1)
    return lines, starts


class LineIndex:
    """Offset -> (line, col) for a whole text, 1-based, by binary search over line starts.

    The line starts are found on the first lookup: a file whose positions nobody asks for (no launch,
    no finding) never pays for them."""

    __slots__ = ("text", "_starts")

    def __init__(self, text: str):
        self.text = text
        self._starts: list[int] | None = None

    @property
    def starts(self) -> list[int]:
        if self._starts is None:
            self._starts = [0] + [m.end() for m in _NEWLINE.finditer(self.text)]
        return self._starts

    def locate(self, offset: int) -> tuple[int, int]:
        i = bisect.bisect_right(self.starts, offset) - 1
        return i + 1, offset - self.starts[i] + 1

    def offset(self, line: int, col: int) -> int:
        return self.starts[line - 1] + col - 1

    def line_text(self, line: int) -> str:
        start = self.starts[line - 1]
        end = self.starts[line] - 1 if line < len(self.starts) else len(self.text)
        return self.text[start:end]


class Runs(Sequence[int]):
    """Offsets of a string's characters stored as runs of consecutive offsets: a 5 MiB scalar read straight
    from the file is one run, not five million integers (36 bytes each in a tuple)."""

    def __init__(self) -> None:
        self._starts: list[int] = []  # index of each run's first character
        self._offsets: list[int] = []  # its offset
        self._len = 0

    def add(self, offset: int, count: int = 1) -> None:
        """`count` characters at offset, offset + 1, ...; joined to the last run when they continue it."""
        if count <= 0:
            return
        if not self._starts or self._offsets[-1] + (self._len - self._starts[-1]) != offset:
            self._starts.append(self._len)
            self._offsets.append(offset)
        self._len += count

    def __len__(self) -> int:
        return self._len

    @overload
    def __getitem__(self, i: int) -> int: ...

    @overload
    def __getitem__(self, i: slice) -> list[int]: ...

    def __getitem__(self, i: int | slice) -> int | list[int]:
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(self._len))]
        if i < 0:
            i += self._len
        if not 0 <= i < self._len:
            raise IndexError(i)
        k = bisect.bisect_right(self._starts, i) - 1
        return self._offsets[k] + i - self._starts[k]


@record
class Mapped:
    """A string as some consumer sees it, with where each of its characters sits in a file.

    Either `pos[i]` is the (line, col) of character i, or `index` maps a whole file's offsets, or
    character i sits at `offsets[i]`: an offset of `within` (a string inside another, such as an `sh -c`
    argument), or of the file through `index`. Offsets are turned into positions only when asked, so
    mapping a long scalar costs memory for its runs of offsets, not a (line, col) pair per character.
    """

    path: str
    text: str
    pos: tuple[tuple[int, int], ...] = ()
    index: LineIndex | None = None
    offsets: Sequence[int] | None = None
    within: Mapped | None = None

    def at(self, i: int) -> tuple[int, int]:
        if self.offsets is not None:
            if not len(self.offsets):
                return (1, 1) if self.within is None else self.within.at(0)
            o = self._outside(i) if not 0 <= i < len(self.offsets) else self.offsets[i]
            return self.within.at(o) if self.within is not None else self.index.locate(o) if self.index else (1, 1)
        if self.index is not None:
            return self.index.locate(i)
        if not self.pos:
            return (1, 1)
        return self.pos[min(i, len(self.pos) - 1)]

    def _outside(self, i: int) -> int:
        """The offset of character i of a contiguous stretch beyond its ends: the enclosing text's character there
        (a function body's view addressing the text of another function the file defines, sample K519), else the
        nearest end's."""
        offsets = self.offsets or ()
        last = len(self.within.text) if self.within is not None else len(self.index.text) if self.index else 0
        if isinstance(offsets, range) and offsets.step == 1 and 0 <= offsets.start + i < last:
            return offsets.start + i
        return offsets[max(0, min(i, len(offsets) - 1))]

    def span(self, start: int, end: int) -> Span:
        line, col = self.at(start)
        if end <= start:
            return Span(self.path, line, col, line, col)
        eline, ecol = self.at(end - 1)
        return Span(self.path, line, col, eline, ecol + 1)

    def view(self, path: str, text: str, offsets: Sequence[int]) -> Mapped:
        """`text` whose character i is this string's character offsets[i] (positions looked up when asked)."""
        return Mapped(path, text, offsets=offsets, within=self)

    @classmethod
    def whole(cls, path: str, text: str, index: LineIndex | None = None) -> Mapped:
        return cls(path, text, (), index or LineIndex(text))
