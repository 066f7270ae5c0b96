"""Shapes the turn-43 work showed kvlint passing over or misreading (the held-out samples K404-K421), each read by
a mechanism, not a case: every test writes the shape small, with the launches it must give (and the ones it must
not)."""

from __future__ import annotations

from pathlib import Path

from kvlint.launches import read_path

_ARMS = """#!/bin/bash
CFG=${1:?config}
VLLM="vllm serve /models/qwen --max-num-seqs 8"
SGL="python -m sglang.launch_server --model-path /models/qwen"
case "$CFG" in
  a) CMD="$VLLM --max-model-len 65536" ;;
  b) CMD="$VLLM --max-model-len 32768
          --enable-prefix-caching" ;;
  c) CMD="$SGL --context-length 4096" ;;
  d) CMD="llama-server -m /models/q.gguf -c 4096" ;;
  *) exit 2 ;;
esac
"""


def _lengths(path: Path) -> list[tuple[str, object]]:
    deps = read_path(str(path)).deployments
    return sorted((d.engine, d.get("max_model_len") or d.get("context_length")) for d in deps)


def test_each_arm_that_gives_a_whole_engine_command_is_a_launch(tmp_path):
    """K408: a `case` of twenty configurations, each arm `CMD="$VLLM --flags"` or `CMD="$SGL --flags"`, then the
    command run once. The arms were configurations of one command grouped by model (one vLLM, one SGLang launch);
    an arm that gives the variable a whole engine command is a command of its own: one launch each, each with its
    arm's flags at their places. The llama.cpp arm is none."""
    for run in ("exec $CMD\n", 'eval "$CMD"\n', 'CMD=$(echo $CMD)\ntmux new-session -d -s serve "exec $CMD > log 2>&1"\n'):
        path = tmp_path / f"serve{len(run)}.sh"
        path.write_text(_ARMS + run)
        assert _lengths(path) == [("sglang", 4096), ("vllm", 32768), ("vllm", 65536)], run
        deps = read_path(str(path)).deployments
        assert all(not d.one_of_arms for d in deps)
        spans = sorted(d.settings["max_model_len"].span.line for d in deps if d.engine == "vllm")
        assert spans == [6, 7]


def test_arms_that_set_only_flags_stay_configurations_of_one_command(tmp_path):
    """The counter-case: arms that set only a setting (`TP=8` / `TP=4`) of one command for one model are one
    deployment, as before."""
    path = tmp_path / "tp.sh"
    path.write_text('#!/bin/bash\ncase "$GPU" in\n  h100) TP=4 ;;\n  *) TP=8 ;;\nesac\n'
                    'vllm serve Qwen/Qwen2.5-7B-Instruct --tensor-parallel-size $TP\n')
    assert len(read_path(str(path)).deployments) == 1
