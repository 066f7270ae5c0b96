"""Finding where an engine command starts: entry points, wrappers, and the span of the entry point."""

from __future__ import annotations

import pytest

from kvlint.flags.launch import detect_launch
from kvlint.span import Span
from tests.flags.tokens import toks


@pytest.mark.parametrize(
    ("line", "engine", "index"),
    [
        ("vllm serve m", "vllm", 2), ("/usr/local/bin/vllm serve m", "vllm", 2),
        ("python -m vllm.entrypoints.openai.api_server --model m", "vllm", 3),
        ("python3.11 -m vllm.entrypoints.api_server --model m", "vllm", 3),
        ("/usr/bin/python3 -u -m sglang.launch_server --model-path m", "sglang", 4),
        ("sglang serve m", "sglang", 2), ("exec vllm serve m", "vllm", 3), ("env A=B C=D vllm serve m", "vllm", 5),
        ("uv run vllm serve m", "vllm", 4), ("CUDA_VISIBLE_DEVICES=0 exec python3 -m sglang.launch_server", "sglang", 5),
        ("env -i -u HOME A=1 nohup vllm serve m", "vllm", 8), ("uv run python -m vllm.entrypoints.openai.api_server", "vllm", 5),
        ("python -m vllm.entrypoints.cli.main serve m", "vllm", 4),
    ],
)
def test_detect_launch(line: str, engine: str, index: int) -> None:
    found = detect_launch(toks(line))
    assert found is not None and (found.engine, found.index) == (engine, index)
    name, i = found  # unpacks like the (engine, index) pair other modules expect
    assert (name, i) == (engine, index)


def test_detect_launch_entry_span_covers_the_entry_point() -> None:
    found = detect_launch(toks("exec vllm serve m"))
    assert found is not None and found.entry_span == Span("f.sh", 1, 6, 1, 16)


@pytest.mark.parametrize("line", ["vllm", "python -m http.server", "echo vllm serve", "sglang", "python3 app.py"])
def test_not_a_launch(line: str) -> None:
    assert detect_launch(toks(line)) is None
