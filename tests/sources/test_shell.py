"""Shell tokenizer: quoting, continuations, comments, operators, heredocs; tokens re-read from offsets."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from kvlint.launches.env import expand_word
from kvlint.sources.shell import tokenize
from kvlint.sources.text import Mapped


def _cmds(text: str, env=None):
    m = Mapped.whole("s.sh", text)
    cmds, errors = tokenize(m)
    return [[f for w in c.words for f in expand_word(w, m, env or {})] for c in cmds], cmds, errors


def test_quotes_continuations_and_positions():
    text = "vllm serve 'org/m' \\\n  --served-model-name \"a b\" \\\n  --x=\"$HOME\"'$lit'\n"
    fields, _, errors = _cmds(text, {"HOME": "/h"})
    assert not errors
    assert [f.text for f in fields[0]] == ["vllm", "serve", "org/m", "--served-model-name", "a b", "--x=/h$lit"]
    ab = fields[0][4]
    assert (ab.span.line, ab.span.col) == (2, 24)


def test_a_brace_in_a_default_does_not_nest_only_a_dollar_brace_does():
    """Sample K158's start.sh (passed over at measurement): `"${K:-{\\"p\\": true\\}}"` (a JSON default, its closing
    brace escaped) was read as an unterminated `${`, swallowing the rest of the script with its launch. Bash nests
    only `${` inside `${...}`: `${Y:-a{b}c}` is `a{b` then `c}`, as bash prints it."""
    fields, _, errors = _cmds('x "${K:-{\\"p\\": true\\}}" ${Y:-a{b}c} "${Y:-a${Z:-q}c}" next\nvllm serve m\n')
    assert not errors
    assert [f.text for f in fields[0]] == ["x", '{"p": true}', "a{bc}", "aqc", "next"]
    assert [f.text for f in fields[1]] == ["vllm", "serve", "m"]


def test_a_placeholder_value_after_an_assignment_is_a_word_not_redirections():
    """Sample K67's skill notes: `CUDA_VISIBLE_DEVICES=<gpu_id> sglang serve --model-path <model>` (read as `<gpu_id`
    from a file and `> sglang` into one, the launch was lost): `NAME=<value>` and `--flag=<value>` keep the
    placeholder as their value; `cmd <in >out` stays two redirections."""
    fields, _, _ = _cmds("CUDA_VISIBLE_DEVICES=<gpu_id> sglang serve --tp=<n> --model-path <model>\n")
    assert [f.text for f in fields[0]] == ["CUDA_VISIBLE_DEVICES=<gpu_id>", "sglang", "serve", "--tp=<n>",
                                           "--model-path", "<model>"]
    fields, _, _ = _cmds("sort <in >out\n")
    assert [f.text for f in fields[0]] == ["sort"]


def test_an_arithmetic_command_is_one_word_not_commands_and_assignments():
    """Sample K72's job (measured: a KV007 error "--tensor_parallel_size GPUS_PER_NODE: not an integer"): `for
    ((i=GPUS_PER_NODE; i>=1; i--))` split at its `;` made `i=GPUS_PER_NODE` an assignment; `(( ... ))` is one word."""
    fields, cmds, _ = _cmds("for ((i=N; i>=1; i--)); do TP=$i; done\n(( n++ ))\nvllm serve m\n")
    assert [[f.text for f in c] for c in fields] == [["for", "((i=N; i>=1; i--))"], ["do", "TP=$i"], ["done"],
                                                     ["(( n++ ))"], ["vllm", "serve", "m"]]


def test_operators_split_commands_and_comments_end_them():
    text = "A=1 B=2 && vllm serve m & echo hi | tee x; # done\nnext one\n"
    _, cmds, _ = _cmds(text)
    assert [c.sep for c in cmds] == ["&&", "&", "|", ";", "\n"]
    assert [w.literal for w in cmds[-1].words] == ["next", "one"]


def test_commented_out_continuation_ends_the_command():
    text = "vllm serve m \\\n  --a 1 \\\n  # --b 2 \\\n  --c 3\n"
    fields, cmds, _ = _cmds(text)
    assert [f.text for f in fields[0]] == ["vllm", "serve", "m", "--a", "1"]
    assert cmds[0].sep == "#" and [f.text for f in fields[1]] == ["--c", "3"]


def test_heredoc_body_is_skipped_and_redirections_dropped():
    text = "cat <<EOF > run.sh\nvllm serve nope\nEOF\nvllm serve yes 2>&1 >> log\n"
    fields, _, _ = _cmds(text)
    assert [[f.text for f in c] for c in fields] == [["cat"], ["vllm", "serve", "yes"]]


def test_parameter_defaults_arith_and_unresolved():
    text = "vllm serve ${M:-org/d} --tp $((A * 2)) --n ${UNSET} --e ${EMPTY-}\n"
    fields, _, _ = _cmds(text, {"A": "4"})
    texts = [f.text for f in fields[0]]
    # an empty default on a variable the file never sets is a value supplied at run time, not ""
    assert texts == ["vllm", "serve", "org/d", "--tp", "8", "--n", "${UNSET}", "--e", "${EMPTY-}"]
    assert fields[0][6].resolved is False and fields[0][6].missing == ("${UNSET}",)
    assert fields[0][8].resolved is False


def test_unquoted_expansion_splits_fields_and_quoted_does_not():
    fields, _, _ = _cmds('run $ARGS "$ARGS"\n', {"ARGS": "--a 1"})
    assert [f.text for f in fields[0]] == ["run", "--a", "1", "--a 1"]


def test_unterminated_quote_is_an_error_not_an_exception():
    _, _, errors = _cmds("vllm serve 'oops\n")
    assert errors and "unterminated" in errors[0][1]


# ---------------------------------------------------------------- property test

_plain = st.from_regex(r"[A-Za-z0-9_./:,=+-]{1,8}", fullmatch=True)
_single = st.text(alphabet=st.sampled_from(list("ab $\"\\#;&|x9é")), max_size=8).map(lambda s: ("'" + s + "'", s))
_double = st.text(alphabet=st.sampled_from(list("ab '#;&|x9é")), max_size=8).map(lambda s: ('"' + s + '"', s))
_escaped = st.sampled_from(list(" ;&|'\"#$")).map(lambda c: ("\\" + c, c))
_part = st.one_of(_plain.map(lambda s: (s, s)), _single, _double, _escaped)
_word = st.lists(_part, min_size=1, max_size=4).filter(lambda ps: not ps[0][0].startswith("#"))
_sep = st.sampled_from([" ", "  ", " \\\n  ", "\t"])


@settings(max_examples=200, deadline=None)
@given(words=st.lists(_word, min_size=1, max_size=6), seps=st.lists(_sep, min_size=6, max_size=6))
def test_tokens_reread_from_their_offsets(words, seps):
    raw_words = ["".join(p[0] for p in w) for w in words]
    values = ["".join(p[1] for p in w) for w in words]
    text = "".join(rw + seps[i] for i, rw in enumerate(raw_words)) + "\n"
    m = Mapped.whole("p.sh", text)
    cmds, errors = tokenize(m)
    assert not errors
    got = [w for c in cmds for w in c.words]
    assert [text[w.start : w.end] for w in got] == raw_words
    for w, value in zip(got, values, strict=False):
        fields = expand_word(w, m, {})
        assert "".join(f.text for f in fields) == value
        # every literal character points at itself in the file
        for part in w.parts:
            assert all(text[o] == ch for ch, o in zip(part.text, part.offsets, strict=False))
        # the word's own slice, tokenized alone, gives the same value
        again = Mapped.whole("p.sh", text[w.start : w.end])
        (cmd,) = tokenize(again)[0]
        assert "".join(f.text for f in expand_word(cmd.words[0], again, {})) == value


def test_alternate_value_expansion():
    fields, _, _ = _cmds("run ${A:+--flag} ${B:+--other} x\n", {"A": "1"})
    assert [f.text for f in fields[0]] == ["run", "--flag", "x"]


def test_go_template_is_one_word_with_its_spaces():
    text = "vllm serve {{ .Values.model }} --max-model-len={{ .Values.len | quote }} --x y\n"
    fields, _, errors = _cmds(text)
    assert not errors
    words = [f.text for f in fields[0]]
    assert words == ["vllm", "serve", "{{ .Values.model }}", "--max-model-len={{ .Values.len | quote }}", "--x", "y"]
    assert fields[0][2].span.col == 12


def test_unclosed_template_braces_are_ordinary_text():
    fields, _, _ = _cmds("echo {{ a b\n")
    assert [f.text for f in fields[0]] == ["echo", "{{", "a", "b"]


def test_empty_default_of_an_unknown_variable_stays_unresolved():
    fields, _, _ = _cmds("vllm serve m --kv-cache-memory-bytes=${KV_BYTES-} --x ${SET:-}\n", {"SET": ""})
    kv = fields[0][3]
    assert kv.text.startswith("--kv-cache-memory-bytes=") and not kv.resolved
    known, _, _ = _cmds("vllm serve m --n ${N:-8}\n")
    assert [f.text for f in known[0]][-1] == "8" and known[0][-1].resolved
