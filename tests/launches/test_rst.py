"""reStructuredText documents (kvlint.launches.rst): the commands of their code blocks, at their places; prose, a
directive's options and other languages' blocks are no commands (sample K82's Sphinx tutorial, not walked)."""

from __future__ import annotations

from pathlib import Path

from kvlint.launches import iter_files, read_path
from kvlint.launches.rst import block_ranges

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "rst"


def _at(span):
    return (span.line, span.col) if span is not None else None


def test_a_tutorials_code_blocks_are_its_launches():
    result = read_path(str(FIX / "tutorial.rst"))
    got = [(d.engine, d.model, _at(d.model_span)) for d in result.deployments]
    assert got == [("sglang", "org/rst-sglang", (9, 50)), ("vllm", "org/rst-literal", (13, 16)),
                   ("vllm", "org/rst-manifest", (27, 33))]
    assert result.deployments[1].get("max_model_len") == 8192
    assert [f.code for f in result.findings if f.code != "KV002"] == []


def test_block_ranges_skip_options_and_end_at_the_first_shallower_line():
    text = ".. code-block:: bash\n   :linenos:\n\n   vllm serve m\n   --tp 2\nafter\n"
    ((start, end, lang),) = block_ranges(text)
    assert (text[start:end], lang) == ("   vllm serve m\n   --tp 2", "bash")


def test_the_walk_reads_rst(tmp_path):
    (tmp_path / "guide.rst").write_text("x\n")
    assert [why for _, why in iter_files([str(tmp_path)])] == [None]
