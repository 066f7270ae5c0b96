"""General kinds found missing or misread on held-out sample D (issues L and N), each with a fixture under
tests/fixtures/launches/kinds2 whose launches, models and value positions are pinned here: comment-only
backtick substitutions on continuation lines, `NAME=value` lists as an `env:`."""

from __future__ import annotations

from pathlib import Path

from kvlint.launches import read_path

FIX = Path(__file__).resolve().parent.parent / "fixtures" / "launches" / "kinds2"


def _at(span):
    return (span.line, span.col)


def _deps(name: str):
    result = read_path(str(FIX / name))
    assert not [f for f in result.findings if f.severity >= 2], result.findings
    return result.deployments


def test_a_comment_only_backtick_substitution_is_no_word():
    """`` `# note` \\ `` expands to nothing: it is neither the model nor a flag's value (it was read as the model)."""
    (d,) = _deps("tick-comments.sh")
    assert (d.model, _at(d.model_span)) == ("./checkpoints/org-model", (4, 13))
    assert d.get("quantization") == "awq" and _at(d.settings["quantization"].span) == (7, 20)
    assert d.get("max_model_len") == 4096 and _at(d.settings["max_model_len"].span) == (10, 21)
    assert d.unknown_flags == ()


def test_a_list_of_name_value_strings_is_the_env_of_the_commands():
    """dstack's `env:` list: `- MODEL_ID=org/x` resolves `$MODEL_ID`; a bare `- CONTEXT` comes from whoever runs
    it, so `$CONTEXT` stays unresolved (never a guess)."""
    (d,) = _deps("dstack-env.dstack.yml")
    assert (d.engine, d.model, d.model_resolved, _at(d.model_span)) == ("sglang", "org/env-list-model", True, (13, 26))
    context = d.settings["context_length"]
    assert (context.value, context.resolved, _at(context.span)) == ("$CONTEXT", False, (14, 30))
