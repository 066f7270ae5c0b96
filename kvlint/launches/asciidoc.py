"""AsciiDoc documents (an `.adoc` module of a product's documentation): the commands and manifests of their listing
blocks, read as a Markdown runbook's are (kvlint.launches.markdown).

Sample K225's OpenDataHub module shows a vLLM `ServingRuntime` and the `InferenceService` that uses it in two
`[source]` blocks (passed over: `.adoc` was not walked). Read: the listing (`----`) and literal (`....`) blocks,
each with the language of the `[source,LANG]` line above it ("" when it names none). An AsciiDoc callout marker at a
line's end (`- --model=/mnt/models <5>`, `# <1>`) is the document's note, not the line's text: blanked. The blocks are
then read as a Markdown document's are (kvlint.launches.markdown.read_document): shell blocks together as one
script, YAML blocks (and unlabelled ones that start as a manifest does) as manifests, the Kubernetes objects among
them as one stream, so a runtime and the service naming it are read together. Everything else is blanked, so every
value keeps its line and column; prose is never read, and a prose mention of an engine is no place for the
never-silent net.
"""

from __future__ import annotations

import re

from kvlint.launches import ReadResult
from kvlint.lazyre import lazy
from kvlint.sources.text import lines_with_starts

_DELIMITER = lazy(r"(-{4,}|\.{4,})[ \t]*$")
# the language is the first positional attribute (`[source,bash]`); a named one (`[source,role="execute"]`, sample K359)
# names none
_SOURCE = lazy(r"\[(?:source|listing)(?:,[ \t]*([\w+.-]*)(?=[ \t]*[,\]]))?[^\]]*\][ \t]*$")
_CALLOUT = lazy(r"(?:[ \t]+(?:#|//)?[ \t]*<(?:\d{1,2}|\.)>)+[ \t]*$", re.M)
_MANIFEST = lazy(r"(?:apiVersion|kind|services|version)[ \t]*:")
# the engines' names, and a kind whose operator starts an engine it need not name (KServe's LLMInferenceService runs
# vLLM: sample K276's runbook applies one in a here-document, naming no engine anywhere)
_WORDS = ("vllm", "sglang", "llminferenceservice")
NOTE = "a command of an AsciiDoc document (its listing blocks; the prose is not read)"


def read(path: str, text: str, _as_vllm_config: bool | None = None) -> ReadResult:
    """The reader protocol's entry (kvlint.launches.kinds)."""
    from kvlint.launches.markdown import read_document

    if not any(w in text.lower() for w in _WORDS):
        return ReadResult(path)
    text = _CALLOUT.sub(lambda m: " " * len(m.group()), text) if "<" in text else text
    # an unlabelled block that starts as a manifest does is YAML; any other unlabelled one a shell's
    blocks = [(s, e, "yaml" if not lang and manifest_block(text[s:e]) else lang)
              for s, e, lang, _ in block_ranges(text)]
    return read_document(path, text, blocks, NOTE)


def block_ranges(text: str) -> list[tuple[int, int, str, int]]:
    """(start, end, language, offset of the opening delimiter line) of each listing or literal block's body: the
    `[source,LANG]` line's language in lower case, "" for none; the body from the line after the delimiter to the
    end of the line before the same delimiter closes it (an unclosed block runs to the end)."""
    lines, starts = lines_with_starts(text)
    out: list[tuple[int, int, str, int]] = []
    k = 0
    while k < len(lines):
        m = _DELIMITER.match(lines[k])
        if m is None:
            k = _paragraph_block(lines, starts, k, out)
            continue
        above = _SOURCE.match(lines[k - 1].strip()) if k else None
        lang = (above.group(1) or "").lower() if above is not None else ""
        close = next((j for j in range(k + 1, len(lines)) if lines[j].rstrip() == m.group(1)), len(lines))
        if close > k + 1:
            out.append((starts[k + 1], starts[close] - 1, lang, starts[k]))
        k = close + 1
    return out


def _paragraph_block(lines: list[str], starts: list[int], k: int, out: list[tuple[int, int, str, int]]) -> int:
    """A `[source,LANG]` line followed by a paragraph, not a delimiter (sample K359's course page: `[source,bash]`
    then `python -m vllm.entrypoints.api_server` / `--model "..."` / `--tensor-parallel-size 2`): AsciiDoc makes the
    paragraph, up to its blank line, the listing. Appends its range to `out`; returns the next line to look at."""
    above = _SOURCE.match(lines[k].strip())
    if above is None or k + 1 >= len(lines) or not lines[k + 1].strip() or _DELIMITER.match(lines[k + 1]):
        return k + 1
    end = next((j for j in range(k + 1, len(lines)) if not lines[j].strip()), len(lines))
    out.append((starts[k + 1], starts[end] - 1, (above.group(1) or "").lower(), starts[k]))
    return end


def manifest_block(body: str) -> bool:
    """Whether an unlabelled block starts as a manifest or compose file does (`apiVersion:`, `services:`)."""
    first = next((line.strip() for line in body.splitlines() if line.strip() and not line.lstrip().startswith("#")), "")
    return _MANIFEST.match(first) is not None

