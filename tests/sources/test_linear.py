"""Readers stay linear in their input: the repro shapes of the quadratic scans, at 64 KiB.

Each shape took seconds to minutes before (a 64 KiB line of `{` in YAML: 110 s). The assertions are on
results, not on time: a reader that turns quadratic again runs into the per-file time budget
(kvlint.limits, 1 s by default, some 50 times what these need), and the result says so instead of
the expected finding. Timings of the same shapes at 5 MiB live in bench/bad_input.py.
"""

from __future__ import annotations

import pytest

from kvlint.launches import read_path
from kvlint.sources.shell import tokenize
from kvlint.sources.templates import detemplate, expressions
from kvlint.sources.text import Mapped

N = 64 * 1024


def _no_budget_finding(result) -> None:
    assert not any("time budget" in f.message for f in result.findings), [f.message for f in result.findings]


@pytest.mark.parametrize("text", [
    "a: " + "{" * N + "\n",  # the template regex rescanned the rest of the line from every brace
    "a: b\nc: " + "{{" * (N // 2) + "\n",
    "a: [\nc: " + "{{ x " * (N // 5) + "\n",
    "a: [\n" + "{{ x }} {{" * (N // 10) + "\n",  # the only-actions regex backtracked over every split
], ids=["braces", "open-templates", "open-templates-spaced", "actions-then-open"])
def test_unclosed_template_braces_in_yaml(text):
    result = read_path("values.yaml", text)
    _no_budget_finding(result)
    assert any(f.code == "KV001" and "invalid YAML" in f.message for f in result.findings)


@pytest.mark.parametrize("line", [
    "{" * N,
    "{{" * (N // 2),  # find("}}") from every `{{`
    '"' * N,  # a million empty quoted strings: one part, not a million
    "'" * N,
    "`" * N,
    "$(" * (N // 2),
    "${a:-" * (N // 5),  # each nested default re-read the rest of the text
    "$((" * (N // 3),
    "\\" * N,
], ids=["braces", "open-templates", "double-quotes", "single-quotes", "backticks", "command-subst", "defaults",
        "arithmetic", "backslashes"])
def test_pathological_shell_lines(line):
    result = read_path("serve.sh", "vllm serve org/m " + line + "\n")
    _no_budget_finding(result)
    assert [d.model for d in result.deployments] == ["org/m"]


def test_empty_quotes_are_one_part_with_the_same_meaning():
    (cmd,), _ = tokenize(Mapped.whole("s.sh", 'a """""""x""""" ""\n'))
    word = cmd.words[1]
    assert word.literal == "x" and len(word.parts) == 1 and word.parts[0].quoted
    assert cmd.words[2].literal == "" and cmd.words[2].raw_quoted  # `""` is still an (empty) argument


def test_template_expressions_are_found_left_to_right_in_one_pass():
    assert expressions("a {{ b }} c {{{ d }}} {{ e") == [(2, 9), (12, 20)]
    assert expressions("{" * 1000) == []


def test_detemplate_blanks_action_lines_and_keeps_columns():
    text = "  {{- if .Values.x }}  {{ end }}\nimage: {{ .Values.image }}:v1\n{{ a }} x }}\n"
    out = detemplate(text)
    lines = out.text.split("\n")
    assert lines[0].strip() == "" and len(lines[0]) == len(text.split("\n")[0])
    assert len(lines[1]) == len("image: {{ .Values.image }}:v1") and out.restore(lines[1]) == text.split("\n")[1]
    assert lines[2].strip() != ""  # text after the action is not an action line


def test_realistic_script_is_read_at_linear_cost():
    unit = "MODEL=org/m\nexport TP=2\n# comment\nvllm serve $MODEL --tensor-parallel-size $TP &\n"
    result = read_path("serve.sh", unit * (N // len(unit)))
    _no_budget_finding(result)
    assert len(result.deployments) == N // len(unit) and result.deployments[0].get("tensor_parallel_size") == 2


@pytest.mark.parametrize("word", ["x" * 200_000, '"' + "y" * 200_000 + '"', "'" + "z" * 200_000, "$(" + "(" * 200_000],
                         ids=["plain", "double-quoted", "unterminated-single", "unterminated-substitution"])
def test_a_word_longer_than_any_argument_is_one_kv001(word):
    result = read_path("serve.sh", "vllm serve org/m " + word + "\n")
    assert [f.code for f in result.findings] == ["KV001"] and "MAX_ARG_STRLEN" in result.findings[0].message
    assert result.deployments == []


def test_a_long_argument_under_the_limit_is_read():
    result = read_path("serve.sh", "vllm serve org/m --served-model-name " + "n" * 100_000 + "\n")
    assert result.findings == [] and result.deployments[0].get("served_model_name") == ["n" * 100_000]
