"""The engine-invocation finder on any text: launchers in front of the engine, new file kinds, heredocs,
Python, and what is said when a file names an engine but gives no launch. Fixtures in
tests/fixtures/launches/finder; every model and flag pinned to (line, col)."""

from __future__ import annotations

from pathlib import Path

from kvlint.launches import read_path

FIX = Path(__file__).resolve().parent.parent / "fixtures" / "launches" / "finder"


def _at(span):
    return (span.line, span.col)


def _deps(name: str):
    result = read_path(str(FIX / name))
    assert not [f for f in result.findings if f.severity >= 2], result.findings
    return result.deployments


def test_launchers_in_front_of_the_engine_are_peeled():
    deps = _deps("wrappers.sh")
    got = [(d.engine, d.model, _at(d.model_span)) for d in deps]
    assert got == [
        ("vllm", "org/apptainer-exec", (3, 60)),
        ("vllm", "org/sif-run", (4, 65)),
        ("vllm", "org/hatch", (5, 31)),
        ("sglang", "org/conda", (6, 84)),
        ("vllm", "org/torchrun", (7, 86)),
        ("vllm", "org/mpi-uv", (8, 62)),
        ("vllm", "org/enroot", (9, 58)),
        ("vllm", "org/trl", (10, 24)),
        ("vllm", "org/trl-module", (11, 42)),
        ("vllm", "org/poetry-pixi", (12, 32)),
    ]
    assert _at(deps[0].settings["max_model_len"].span) == (3, 95)
    assert deps[1].engine_version == "0.8.5" and deps[1].get("tensor_parallel_size") == 2
    assert deps[3].get("tp_size") == 2 and _at(deps[3].settings["tp_size"].span) == (6, 99)


def test_trl_server_flags_with_underscores_are_vllm_settings():
    trl, module = _deps("wrappers.sh")[7:9]
    assert trl.get("tensor_parallel_size") == 2 and _at(trl.settings["tensor_parallel_size"].span) == (10, 55)
    assert trl.get("max_model_len") == 32768 and _at(trl.settings["max_model_len"].span) == (10, 73)
    assert trl.unknown_flags == () and trl.invalid_values == ()
    assert module.get("data_parallel_size") == 2
