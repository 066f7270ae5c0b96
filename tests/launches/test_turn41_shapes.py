"""Shapes the turn-41 held-out samples (and the turn-40 ones left) showed kvlint passing over or misreading, each read
by a mechanism, not a case."""

from __future__ import annotations

import json

from kvlint.launches import read_path


def _notebook(cells: list[tuple[str, str]]) -> str:
    return json.dumps({"cells": [{"cell_type": kind, "metadata": {}, "source": source.splitlines(keepends=True)}
                                 for kind, source in cells], "metadata": {}, "nbformat": 4, "nbformat_minor": 5},
                      indent=1)


def test_a_notebook_markdown_cell_holding_a_pasted_command_is_read_as_a_markdown_document_is(tmp_path):
    """K374 (a client notebook): a markdown cell that is just `python -m vllm.entrypoints.openai.api_server --model M
    ...`, the server to start before the OpenAI client's cells. Only fenced blocks of a markdown cell were read, so
    the launch was passed over in silence; a cell is now read as a Markdown document is, each value at its place in
    the .ipynb file. A cell of prose that names the engine is still no launch."""
    command = "python -m vllm.entrypoints.openai.api_server --model Qwen/Qwen2.5-7B-Instruct --enable-prefix-caching"
    path = tmp_path / "api.ipynb"
    path.write_text(_notebook([("markdown", "We serve the model with vLLM first.\n"), ("markdown", command),
                               ("code", "from openai import OpenAI\nclient = OpenAI()\n")]))
    (dep,) = read_path(str(path)).deployments
    assert dep.model == "Qwen/Qwen2.5-7B-Instruct" and dep.get("enable_prefix_caching") is True
    span = dep.model_span
    assert span is not None
    line = path.read_text().splitlines()[span.line - 1]
    assert line[span.col - 1:span.end_col - 1] == "Qwen/Qwen2.5-7B-Instruct"
    path.write_text(_notebook([("markdown", "We serve the model with vLLM first, then query it.\n"),
                               ("code", "print(1)\n")]))
    assert list(read_path(str(path)).deployments) == []
