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


def test_a_command_wrapped_at_the_prose_s_line_length_is_read_as_one():
    """Sample K199's ROCm guide wraps its commands with no `\\`: `... api_server --model` ends one line of the block,
    `/path/to/model --dtype float16 -tp 2 --port 8001 &` is the next. An option that takes a value at a line's end
    takes the next line's first word; a switch at a line's end (`--trust-remote-code`) does not, and a Markdown
    runbook is read the same way."""
    text = (".. code-block:: shell\n\n"
            "   CUDA_VISIBLE_DEVICES=0,1 python -m vllm.entrypoints.api_server --model\n"
            "   /path/to/model --dtype float16 -tp 2 --port 8001 &\n\n"
            "   python -m vllm.entrypoints.api_server --model org/switch --trust-remote-code\n"
            "   echo started\n")
    first, second = read_path("guide.rst", text).deployments
    assert (first.model, _at(first.model_span), first.get("tensor_parallel_size")) == ("/path/to/model", (4, 4), 2)
    assert (first.get("port"), second.model, second.get("port")) == (8001, "org/switch", None)
    md = "```bash\n" + text.split("\n\n", 1)[1].replace("   ", "") + "```\n"
    assert [(d.model, d.get("tensor_parallel_size")) for d in read_path("run.md", md).deployments] == [
        ("/path/to/model", 2), ("org/switch", None)]


def test_an_option_left_without_its_value_before_another_command_is_not_joined():
    """A runbook's `vllm serve M --chat-template` with the next line `curl ...`: the option's value is missing, and
    the next line is a command of its own, not a wrapped value: it is not read as `--chat-template curl ...` (whose
    words would be taken for the engine's flags)."""
    md = "```bash\nvllm serve org/m --chat-template\ncurl -s localhost:8000/v1/models -H 'A: b'\n```\n"
    (d,) = read_path("run.md", md).deployments
    assert d.model == "org/m" and not any(u.flag == "-H" for u in d.unknown_flags)


def test_prose_naming_the_engine_is_no_place():
    """A tutorial's prose that names `vllm serve` in a literal span is no command, and no KV008 place either (the
    walk's net passed over it before: only the code blocks are a document's places)."""
    result = read_path("guide.rst", "Guide\n=====\n\nRun ``vllm serve org/m`` on the host.\n")
    assert (result.deployments, result.findings) == ([], [])
