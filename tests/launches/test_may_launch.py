"""kvlint.launches.read.may_hold_launch: the substring test on lowered ASCII text gives the pattern's answer."""

from __future__ import annotations

import pytest

from kvlint.launches.read import MAY_LAUNCH, may_hold_launch


@pytest.mark.parametrize("text", ["KV_Cache: fp8", "Max-Num-Seqs: 4", "image: VLLM/x", "LLMConfig(", "Context_Length",
                                  "nothing to see", "kv cache", "mem.fraction", "\u212aaito", "\u212a nothing", "",
                                  "spec:\n  Tensor-Parallel: 2\n", "KVLINT: disable"])
def test_the_substring_test_agrees_with_the_pattern(text):
    assert may_hold_launch(text) == (MAY_LAUNCH.search(text) is not None)
