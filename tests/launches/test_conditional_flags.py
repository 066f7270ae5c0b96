"""kvlint.launches.pyfile._optional and kvlint.resolve: flags a Python launcher adds under an `if` kvlint does not
decide are the launch's optional settings; the launch is sized without and with them, and a verdict only one of the
two gives is an info (never an error that assumes the flags absent)."""

from __future__ import annotations

from kvlint.launches import read_path
from kvlint.lint import LintOptions, lint

PROGRAM = ("import subprocess\n\nMAX_LEN = 8192\n\n\ndef main(short):\n"
           "    cmd = ['vllm', 'serve', 'meta-llama/Llama-3.1-8B-Instruct', '--tensor-parallel-size', '1']\n"
           "    if short:\n        cmd += ['--max-model-len', str(MAX_LEN)]\n"
           "    else:\n        print('full length')\n"
           "    subprocess.run(cmd)\n")


def test_flags_added_under_an_if_are_optional_settings_with_their_condition(tmp_path):
    path = tmp_path / "serve.py"
    path.write_text(PROGRAM)
    (dep,) = read_path(str(path)).deployments
    assert "max_model_len" not in dep.settings
    assert dep.optional["max_model_len"].value == 8192 and dep.optional["max_model_len"].span.line == 9
    assert dep.optional_why == "`if short` at line 8"


def test_a_verdict_only_the_launch_without_them_gives_is_an_info(tmp_path):
    path = tmp_path / "serve.py"
    path.write_text(PROGRAM)
    (kv101,) = [f for f in lint([str(path)], LintOptions(gpu="L4")).findings if f.code == "KV101"]
    assert str(kv101.severity) == "info" and "only on the program's conditional flags left out" in kv101.message


def test_an_if_whose_else_adds_to_the_same_list_is_left_out(tmp_path):
    path = tmp_path / "serve.py"
    path.write_text(PROGRAM.replace("print('full length')", "cmd += ['--max-model-len', '131072']"))
    (dep,) = read_path(str(path)).deployments
    assert dep.optional == {} and "max_model_len" not in dep.settings
