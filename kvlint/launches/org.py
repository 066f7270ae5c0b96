"""Org-mode documents (a plan or runbook kept in Emacs' Org format): the commands and manifests of their source
blocks, read as a Markdown runbook's are (kvlint.launches.markdown).

Sample K352's plan (`plans/ornith-dgx-spark-docker.org`) holds a `podman run ... vllm serve M ...` in a
`#+begin_src bash` block: passed over, as `.org` was not walked. Read: each `#+begin_src LANG ...` / `#+end_src`
block with its language ("" when it names none) and each `#+begin_example` block as an unlabelled one, either
spelled in any case. The blocks are then read as an AsciiDoc document's are (kvlint.launches.markdown.read_document):
shell blocks together as one script, YAML blocks (and unlabelled ones that start as a manifest does) as manifests.
Everything else is blanked, so every value keeps its line and column; prose is never read.
"""

from __future__ import annotations

from kvlint.launches import ReadResult
from kvlint.lazyre import lazy
from kvlint.sources.text import lines_with_starts

_BEGIN = lazy(r"(?i)[ \t]*#\+begin_(src|example)\b[ \t]*([\w+.-]*)")
_END = lazy(r"(?i)[ \t]*#\+end_(src|example)\b")
_WORDS = ("vllm", "sglang", "llminferenceservice")
NOTE = "a command of an Org document (its source blocks; the prose is not read)"


def read(path: str, text: str, _as_vllm_config: bool | None = None) -> ReadResult:
    """The reader protocol's entry (kvlint.launches.kinds)."""
    from kvlint.launches.asciidoc import manifest_block
    from kvlint.launches.markdown import read_document

    if not any(w in text.lower() for w in _WORDS):
        return ReadResult(path)
    blocks = [(s, e, "yaml" if not lang and manifest_block(text[s:e]) else lang) for s, e, lang in block_ranges(text)]
    return read_document(path, text, blocks, NOTE)


def block_ranges(text: str) -> list[tuple[int, int, str]]:
    """(start, end, language) of each source or example block's body: the language in lower case ("" for none or an
    example block); the body from the line after `#+begin_...` to the end of the line before its `#+end_...` (an
    unclosed block runs to the end)."""
    lines, starts = lines_with_starts(text)
    out: list[tuple[int, int, str]] = []
    k = 0
    while k < len(lines):
        m = _BEGIN.match(lines[k])
        if m is None:
            k += 1
            continue
        kind = m.group(1).lower()
        lang = m.group(2).lower() if kind == "src" else ""
        close = next((j for j in range(k + 1, len(lines))
                      if (e := _END.match(lines[j])) and e.group(1).lower() == kind), len(lines))
        if close > k + 1:
            out.append((starts[k + 1], starts[close] - 1, lang))
        k = close + 1
    return out
