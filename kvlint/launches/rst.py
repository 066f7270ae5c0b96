"""reStructuredText documents (a Sphinx tutorial's `.. code-block:: bash`, a `README.rst`): the commands of their
code blocks, read as a Markdown runbook's are (kvlint.launches.markdown).

The collectors of the held-out samples count a tutorial's commands wherever its markup puts them (sample K82's
`ascend_sglang_best_practices.rst`, passed over because `.rst` was not walked). Read: the blocks of `.. code-block::`,
`.. code::` and `.. sourcecode::` directives (their option lines skipped) and the literal blocks a paragraph ending
in `::` opens, each up to the first line indented no deeper than what opened it. Shell blocks (and literal blocks,
which name no language) together as one script, everything else blanked, so every value keeps its line and column;
YAML blocks each alone as the manifest they show. Prose, tables and other languages' blocks are never read, and a
prose mention of an engine is no place for the never-silent net.
"""

from __future__ import annotations

from kvlint.launches import ReadResult
from kvlint.lazyre import lazy
from kvlint.sources.text import lines_with_starts

_DIRECTIVE = lazy(r"([ \t]*)\.\.[ \t]+(?:code-block|code|sourcecode)::[ \t]*([\w+.-]*)[ \t]*$")
_OTHER_DIRECTIVE = lazy(r"[ \t]*\.\.[ \t]")
_WORDS = ("vllm", "sglang")
NOTE = "a command of a reStructuredText document (its code blocks; the prose is not read)"


def read(path: str, text: str, _as_vllm_config: bool | None = None) -> ReadResult:
    """The reader protocol's entry (kvlint.launches.kinds)."""
    from kvlint.launches.markdown import read_document

    if not any(w in text.lower() for w in _WORDS):
        return ReadResult(path)
    return read_document(path, text, block_ranges(text), NOTE)


def block_ranges(text: str) -> list[tuple[int, int, str]]:
    """(start, end, language) of each code block's body: a directive's language in lower case, "" for a literal
    block (`::`); the body from its first line to the end of its last line that holds text."""
    lines, starts = lines_with_starts(text)
    out: list[tuple[int, int, str]] = []
    k = 0
    while k < len(lines):
        line = lines[k]
        m = _DIRECTIVE.match(line)
        literal = m is None and line.rstrip().endswith("::") and not _OTHER_DIRECTIVE.match(line)
        if m is None and not literal:
            k += 1
            continue
        indent = len(line) - len(line.lstrip())
        body, k = _body(lines, k + 1, indent, skip_options=m is not None)
        if body is not None:
            first, last = body
            out.append((starts[first], starts[last] + len(lines[last]), (m.group(2) if m else "").lower()))
    return out


def _body(lines: list[str], k: int, indent: int, skip_options: bool) -> tuple[tuple[int, int] | None, int]:
    """((first, last) line of the block opened above line k, or None when nothing is indented under it), and the
    line the scan goes on from."""
    first = last = None
    while k < len(lines):
        line = lines[k]
        if line.strip():
            deeper = len(line) - len(line.lstrip()) > indent
            if not deeper:
                break
            if skip_options and first is None and line.lstrip().startswith(":"):
                k += 1  # a directive's option (`:linenos:`, `:caption: ...`)
                continue
            first = k if first is None else first
            last = k
        k += 1
    return ((first, last) if first is not None and last is not None else None), k
