"""kvlint.launches.named: the substring precondition of the engine-name pattern never hides a match."""

from __future__ import annotations

import pytest

from kvlint.launches.named import _NAMED, _first_place, _names_engine


@pytest.mark.parametrize("text", ["vllm serve m", "python -m sglang.launch_server", "image: ghcr.io/x/vllm-fork:1",
                                  "repository: lmsysorg/sglang", "trl vllm-serve --model m", "image: nginx",
                                  "VLLM SERVE m", "run the server", "  image: 'sglang-custom'"])
def test_a_text_the_pattern_matches_names_an_engine(text):
    if _NAMED.search(text) is not None:
        assert _names_engine(text)
    else:
        assert _first_place(text, "shell") is None


def test_the_first_place_is_found_after_lines_without_a_name():
    text = "#!/bin/sh\nexport A=1\n\nvllm serve model --port 1\n"
    assert _first_place(text, "shell") == (4, 1, "vllm serve")


@pytest.mark.parametrize("text", ["a\nb vllm\nc\nimage: x/vllm-a\n", "vllm\nvllm serve m\n", "xvllm serve m\nsglang",
                                  "image: 'my-sglang:1'\n", "serve vllm\n", "lmsysorg/sglang\n", "", "vllmsglang\n"])
def test_the_line_search_finds_the_patterns_first_match(text):
    from kvlint.launches.named import _named_line

    whole, lines = _NAMED.search(text), _named_line(text)
    assert (whole is None) == (lines is None)
    if whole is not None and lines is not None:
        assert whole.span() == lines.span()
