"""Other text files that start an engine from one line: supervisor / systemd / INI `command=` and
`ExecStart=`, a Procfile's `web: ...`, a TOML `cmd = "vllm serve ..."`.

Each line that names an engine entry point (kvlint.launches.named) is a command from the first character after
the `=`, `:` or quote that precedes it to the end of the line (or the closing quote), `\\`-continued and
indented continuation lines included; it goes to `run_script` at the file's offsets, so every value keeps its
line and column.
"""

from __future__ import annotations

from kvlint.deployment import Deployment
from kvlint.launches import ReadResult
from kvlint.lazyre import lazy

_ENTRY = lazy(r"\bvllm[ \t]+serve\b|\bsglang[ \t]+serve\b|\bsglang\.launch_server\b|\bvllm\.entrypoints\b"
              r"|\btrl[ \t]+vllm-serve\b|\btrl\.scripts\.vllm_serve\b")
_COMMENT_START = ("#", ";", "//")
_JOINED = lazy(r"(?<!\\)\n")  # a newline not escaped by `\\`: an indented continuation


def read(path: str, text: str, _as_vllm_config: bool | None = None) -> ReadResult:
    """The reader protocol's entry (kvlint.launches.kinds)."""
    from kvlint.sources.comments import scan_comments

    if _ENTRY.search(text) is None:
        return ReadResult(path)
    return ReadResult(path, read_lines(path, text), comments=scan_comments(text))


def read_lines(path: str, text: str, commands: list[tuple[int, int]] | None = None) -> list[Deployment]:
    """The launches of each command (start, end offsets; by default each line that names an entry point)."""
    from kvlint.launches.build import LaunchContext, ManifestGpu, finish
    from kvlint.launches.groups import is_launch
    from kvlint.launches.script import run_script
    from kvlint.sources.text import LineIndex, Mapped

    index = LineIndex(text)
    out: list[Deployment] = []
    for start, end in _commands(text) if commands is None else commands:
        # an INI value continued on indented lines is one command: its newlines are spaces (offsets unchanged)
        m = Mapped(path, _JOINED.sub(" ", text[start:end]), index=index, offsets=range(start, end + 1))
        launches, _, notes = run_script(m, {})
        ctx = LaunchContext(notes=tuple(notes))
        out.extend(d for d in (finish(path, f, ctx, ManifestGpu()) for f in launches) if is_launch(d))
    return out


def _indented(text: str, at: int) -> bool:
    """An INI / supervisor value continued on the next line: it starts with a blank and holds more."""
    end = text.find("\n", at)
    line = text[at : len(text) if end < 0 else end]
    return line[:1] in (" ", "\t") and line.strip() != ""


def _commands(text: str) -> list[tuple[int, int]]:
    """(start, end) offsets of each command a line holds."""
    found: list[tuple[int, int]] = []
    line_start = 0
    while line_start < len(text):
        line_end = text.find("\n", line_start)
        line_end = len(text) if line_end < 0 else line_end
        line = text[line_start:line_end]
        m = _ENTRY.search(line)
        if m is not None and not line.lstrip().startswith(_COMMENT_START):
            cut = max(line.rfind(c, 0, m.start()) for c in "=:\"'")
            quote = line[cut] if cut >= 0 and line[cut] in "\"'" else ""
            start = line_start + cut + 1
            end = line_end
            while end < len(text) and (text[line_start:end].rstrip().endswith("\\") or _indented(text, end + 1)):
                nxt = text.find("\n", end + 1)
                end = len(text) if nxt < 0 else nxt
            close = text.find(quote, start, end) if quote else -1
            found.append((start, close if close >= 0 else end))
            line_start = end + 1
            continue
        line_start = line_end + 1
    return found
