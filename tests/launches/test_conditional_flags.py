"""The file's other branch (Deployment.otherwise, kvlint.resolve): flags a Python launcher adds under an `if` kvlint
does not decide (kvlint.launches.pyfile._with_arms), and a shell `if` arm that sets a command's variables
(kvlint.launches.script), give the launch a second set of settings; the launch is sized with both, and a verdict only
one gives is an info (never an error that assumes one branch)."""

from __future__ import annotations

from kvlint.launches import read_path
from kvlint.lint import LintOptions, lint

PROGRAM = ("import subprocess\n\nMAX_LEN = 8192\n\n\ndef main(short):\n"
           "    cmd = ['vllm', 'serve', 'meta-llama/Llama-3.1-8B-Instruct', '--tensor-parallel-size', '1']\n"
           "    if short:\n        cmd += ['--max-model-len', str(MAX_LEN)]\n"
           "    else:\n        print('full length')\n"
           "    subprocess.run(cmd)\n")


def test_flags_added_under_an_if_are_the_other_branch_with_their_condition(tmp_path):
    path = tmp_path / "serve.py"
    path.write_text(PROGRAM)
    (dep,) = read_path(str(path)).deployments
    assert "max_model_len" not in dep.settings
    assert dep.otherwise is not None
    assert dep.otherwise["max_model_len"].value == 8192 and dep.otherwise["max_model_len"].span.line == 9
    assert dep.otherwise_why == "the program adds flags under `if short` at line 8"


def test_a_verdict_only_the_launch_without_them_gives_is_an_info(tmp_path):
    path = tmp_path / "serve.py"
    path.write_text(PROGRAM)
    (kv101,) = [f for f in lint([str(path)], LintOptions(gpu="L4")).findings if f.code == "KV101"]
    assert str(kv101.severity) == "info" and "only on the file's branch as read, not on otherwise (--max-model-len)" in kv101.message


def test_an_if_whose_else_adds_to_the_same_list_is_left_out(tmp_path):
    path = tmp_path / "serve.py"
    path.write_text(PROGRAM.replace("print('full length')", "cmd += ['--max-model-len', '131072']"))
    (dep,) = read_path(str(path)).deployments
    assert dep.otherwise is None and "max_model_len" not in dep.settings


SCRIPT = ('#!/bin/bash\nARGS="--max-model-len 8192"\nif [ "$LONG" = 1 ]; then\n  ARGS="--max-model-len 131072"\nfi\n'
          'vllm serve meta-llama/Llama-3.1-8B-Instruct $ARGS\n')


def test_a_shell_if_with_no_else_that_sets_the_command_s_variables_is_the_other_branch(tmp_path):
    path = tmp_path / "serve.sh"
    path.write_text(SCRIPT)
    (dep,) = read_path(str(path)).deployments
    assert dep.get("max_model_len") == 131072 and dep.otherwise is not None
    assert dep.otherwise["max_model_len"].value == 8192 and dep.otherwise["max_model_len"].span.line == 6
    assert dep.otherwise_why == "the script sets $ARGS at line 4 under an `if` with no `else`"
    (kv101,) = [f for f in lint([str(path)], LintOptions(gpu="L4")).findings if f.code == "KV101"]
    assert str(kv101.severity) == "info" and "not on otherwise (--max-model-len)" in kv101.message


def test_a_shell_if_the_script_decides_or_with_an_else_is_read_as_it_runs(tmp_path):
    path = tmp_path / "serve.sh"
    path.write_text(SCRIPT.replace('"$LONG" = 1', '"$ARGS" != ""'))  # decided: the arm runs
    (dep,) = read_path(str(path)).deployments
    assert dep.get("max_model_len") == 131072 and dep.otherwise is None
    path.write_text(SCRIPT.replace("fi\n", "else\n  ARGS=\"--max-model-len 4096\"\nfi\n"))
    (dep,) = read_path(str(path)).deployments
    assert dep.otherwise is None


def test_a_test_the_script_decides_before_and_or_or_guards_nothing():
    """Sample K243's launcher (measured: flags read as only conditional): `: "${USE_PREFIX_CACHE:=1}"` then
    `[ "$USE_PREFIX_CACHE" = 1 ] && ARGS+=(--enable-prefix-caching)` adds the flag as any line would; a test decided
    against the command skips it (`[ -n "$K" ] && ARGS+=(...)` with K empty); a test left to run time keeps the
    addition aside, said."""
    text = ('#!/bin/bash\n: "${USE_PC:=1}"\nK=""\nARGS=(serve org/m)\n[ "$USE_PC" = 1 ] && ARGS+=(--enable-prefix-caching)\n'
            '[ -n "$K" ] && ARGS+=(--max-num-seqs 4)\n[ -r /etc/key ] && ARGS+=(--enforce-eager)\n'
            'vllm "${ARGS[@]}"\n')
    (dep,) = read_path("serve.sh", text).deployments
    assert (dep.get("enable_prefix_caching"), dep.get("max_num_seqs"), dep.get("enforce_eager")) == (True, None, None)
    assert [n for n in dep.notes if "only when a condition holds" in n] == [
        "line 7: `--enforce-eager` is added to ${ARGS[@]} only when a condition holds: read without it"]
