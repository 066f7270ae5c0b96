"""The string pre-filter of kvlint.launches.helm spells its marker tuples out for speed: they must agree."""

from __future__ import annotations

from kvlint.launches import helm


def test_the_spelled_out_prefilter_agrees_with_the_marker_tuples():
    for marker in helm.ENTRY_MARKERS:
        assert helm._may_launch(f"cd /app && {marker} org/model")
    for runs in helm._RUNS_CONTAINER:
        assert helm._may_launch(f"{runs} -d $VLLM_IMAGE $ARGS")
        assert not helm._may_launch(f"{runs} -d $APP_IMAGE $ARGS")
    assert not helm._may_launch("echo vllm is great")
