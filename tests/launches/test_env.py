"""Values that come from shell variables: spans cover the expression as written, origin says where from."""

from __future__ import annotations

from kvlint.launches import read_path


def _settings(tmp_path, script: str):
    p = tmp_path / "run.sh"
    p.write_text(script)
    (dep,) = read_path(str(p)).deployments
    return dep.settings


def _cols(s):
    return (s.span.line, s.span.col, s.span.end_col)


def test_bare_variable_spans_the_whole_name(tmp_path):
    s = _settings(tmp_path, "MAXLEN=40960\nvllm serve org/m --max-model-len $MAXLEN --max-num-seqs 8\n")
    line = "vllm serve org/m --max-model-len $MAXLEN"
    assert s["max_model_len"].value == 40960 and s["max_model_len"].origin == "variable"
    assert _cols(s["max_model_len"]) == (2, line.index("$") + 1, len(line) + 1)
    assert s["max_num_seqs"].origin == "explicit"


def test_quoted_braced_variable_spans_quotes_and_braces(tmp_path):
    s = _settings(tmp_path, 'MAX_LEN=${CTX:-65536}\nvllm serve org/m --max-model-len "${MAX_LEN}"\n')
    line = 'vllm serve org/m --max-model-len "${MAX_LEN}"'
    assert s["max_model_len"].value == 65536
    assert _cols(s["max_model_len"]) == (2, line.index('"') + 1, len(line) + 1)


def test_default_expansion_is_marked_and_spans_the_expression(tmp_path):
    s = _settings(tmp_path, "vllm serve org/m --max-model-len ${MAX_LEN:-65536} -tp 2\n")
    line = "vllm serve org/m --max-model-len ${MAX_LEN:-65536}"
    mml = s["max_model_len"]
    assert (mml.value, mml.origin) == (65536, "default-expansion")
    assert _cols(mml) == (1, line.index("$") + 1, len(line) + 1)


def test_split_expansion_gives_each_word_the_variable_span(tmp_path):
    s = _settings(tmp_path, 'EXTRA="--max-model-len 4096"\nvllm serve org/m $EXTRA\n')
    assert s["max_model_len"].value == 4096 and _cols(s["max_model_len"]) == (2, 18, 24)


def test_shell_arithmetic_is_evaluated_safely_with_shell_semantics():
    from kvlint.launches.env import eval_arith

    assert eval_arith("$A * $B", {"A": "8", "B": "2"}) == 16
    assert eval_arith("(7 - 10) / 2", {}) == -1  # truncates toward zero
    assert eval_arith("-7 % 3", {}) == -1
    for bad in ("1 / 0", "2 ** 10", "X + 1", "__import__('os')", "(" * 300 + "1" + ")" * 300):
        assert eval_arith(bad, {}) is None
