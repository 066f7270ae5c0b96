"""Commands inside `$(...)` and backticks are commands: `ID=$(docker run -d ... "$IMAGE" "${ARGS[@]}")` starts the
engine as surely as the same line without the assignment (sample G's H100 script). Fixtures in
tests/fixtures/launches/substitution."""

from __future__ import annotations

from pathlib import Path

from kvlint.launches import read_path

FIX = Path(__file__).resolve().parent.parent / "fixtures" / "launches" / "substitution"


def _at(span):
    return (span.line, span.col)


def test_a_docker_run_kept_as_an_id_is_a_launch_with_the_scripts_arrays():
    (d,) = read_path(str(FIX / "docker-id.sh")).deployments
    assert (d.engine, d.model, _at(d.model_span)) == ("vllm", "Qwen/Qwen3-8B", (5, 14))
    assert d.get("tensor_parallel_size") == 2 and _at(d.settings["tensor_parallel_size"].span) == (6, 28)
    assert d.get("max_model_len") == 16384 and _at(d.settings["max_model_len"].span) == (7, 21)
    assert d.unknown_flags == ()  # docker's own options (-v, --name) stay docker's


def test_backticks_run_a_launch_and_status_substitutions_start_nothing():
    (d,) = read_path(str(FIX / "backticks.sh")).deployments
    assert (d.engine, d.model, _at(d.model_span)) == ("sglang", "Qwen/Qwen2.5-7B-Instruct", (3, 50))
    assert d.get("tp_size") == 2 and _at(d.settings["tp_size"].span) == (3, 80)


def test_a_substitution_inside_double_quotes_keeps_its_positions():
    text = 'ID="$(vllm serve org/quoted-model --max-model-len 4096)"\n'
    (d,) = read_path("serve.sh", text).deployments
    assert (d.model, _at(d.model_span)) == ("org/quoted-model", (1, 18))
    assert _at(d.settings["max_model_len"].span) == (1, 51)


def test_without_the_reader_of_substitutions_these_are_missed(monkeypatch):
    """The mechanism, not the file: turned off, the same fixtures give no launch (so the tests above could fail)."""
    from kvlint.launches import script

    monkeypatch.setattr(script, "_substituted", lambda *a, **k: None)
    assert read_path(str(FIX / "docker-id.sh")).deployments == []
