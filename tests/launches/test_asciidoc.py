"""AsciiDoc documents (kvlint.launches.asciidoc): the commands and manifests of their listing blocks, at their
places; a callout marker is no part of its line, and prose is no command (sample K225's documentation module, not
walked)."""

from __future__ import annotations

from pathlib import Path

from kvlint.launches import iter_files, read_path
from kvlint.launches.asciidoc import block_ranges

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "asciidoc"


def _at(span):
    return (span.line, span.col) if span is not None else None


def test_a_modules_listing_blocks_are_its_launches():
    result = read_path(str(FIX / "runtime.adoc"))
    got = sorted((d.model, _at(d.model_span), d.get("max_model_len"), d.get("tensor_parallel_size"), d.gpu_count)
                 for d in result.deployments)
    assert got == [("/mnt/models", (13, 19), 8192, None, 2), ("org/adoc-model", (43, 12), None, 2, None)]
    assert all("AsciiDoc" in " ".join(d.notes) for d in result.deployments)


def test_block_ranges_take_the_source_language_and_the_matching_delimiter():
    text = "[source,bash]\n----\nvllm serve m\n-----\nstill in\n----\nafter\n"
    ((start, end, lang, opened),) = block_ranges(text)
    assert (text[start:end], lang, opened) == ("vllm serve m\n-----\nstill in", "bash", 14)


def test_prose_naming_the_engine_is_no_launch_and_no_place():
    result = read_path("guide.adoc", "= Guide\n\nRun `vllm serve org/m` on the host.\n")
    assert (result.deployments, result.findings) == ([], [])


def test_the_walk_reads_asciidoc(tmp_path):
    (tmp_path / "module.adoc").write_text("x\n")
    assert [why for _, why in iter_files([str(tmp_path)])] == [None]
