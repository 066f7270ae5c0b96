"""The subcommands, one module each, and the one way they write to the terminal."""

from __future__ import annotations

from typing import TextIO


def write(stream: TextIO, text: str) -> None:
    """Write and flush (a pre-commit or CI log shows each block as it comes); a character the stream's
    encoding lacks becomes `?` rather than an error."""
    try:
        stream.write(text)
    except UnicodeEncodeError:
        encoding = stream.encoding or "utf-8"
        stream.write(text.encode(encoding, "replace").decode(encoding))
    stream.flush()
