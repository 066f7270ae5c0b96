"""Compose list commands are exec form, and a flags-only launch behind an image kvlint does not know is
found by the same rule in Kubernetes, compose and `docker run`. Fixtures are our own files in the shapes
a survey of real deployment files found; their `# expect:` markers pin the findings."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _expect import expected

from kvlint.launches import read_path
from kvlint.launches.compose import interpolate
from kvlint.launches.env import Field, Supplied
from kvlint.launches.infer import engine_from_flags
from kvlint.lint import LintOptions, lint

FIX = Path(__file__).resolve().parent.parent / "fixtures" / "launches"
EXEC = FIX / "compose" / "exec-list.yaml"
UNKNOWN = FIX / "compose" / "unknown-image.yaml"
RUN = FIX / "docker" / "run-unknown-image.sh"


def _at(span):
    return (span.line, span.col)


def _by_name(path: Path):
    return {d.name: d for d in read_path(str(path)).deployments}


@pytest.fixture(autouse=True)
def _offline(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")


@pytest.mark.parametrize("path, codes", [(EXEC, ("KV007",)), (UNKNOWN, ("KV105", "KV007")), (RUN, ("KV002", "KV007"))])
def test_findings_match_markers(path, codes):
    result = lint([str(path)], LintOptions(select=codes))
    assert {(f.span.line, f.span.col, f.code) for f in result.findings} == expected(path)


def test_list_item_is_one_argument_with_its_quotes():
    listed = _by_name(EXEC)["listed"]
    gen = listed.settings["override_generation_config"]
    assert gen.value == {"max_new_tokens": 32768} and gen.resolved and _at(gen.span) == (10, 9)
    assert not listed.invalid_values and listed.model == "Qwen/Qwen3-8B"
    mml = listed.settings["max_model_len"]  # interpolated inside the item, never split
    assert (mml.value, mml.origin, _at(mml.span)) == (8192, "default-expansion", (11, 9))


def test_string_command_still_splits_as_a_shell_would():
    string = _by_name(EXEC)["string"]
    assert string.settings["override_generation_config"].value == {"temperature": 0.5}
    assert string.served_model_name == "qwen chat" and not string.invalid_values


def test_list_item_that_is_not_json_is_still_refused():
    bad = _by_name(EXEC)["not-json"]
    assert [v.flag for v in bad.invalid_values] == ["--override-generation-config"]


@pytest.mark.parametrize("text, want", [
    ('{"a": "$$x"}', ('{"a": "$x"}', (), "")),
    ("${A}-$A", ("1-1", (), "variable")),
    ("${NOPE:-${A}}", ("1", (), "default-expansion")),
    ("${EMPTY:-d}|${EMPTY-d}", ("d|", (), "default-expansion")),
    ("${NOPE}", ("${NOPE}", ("${NOPE}",), "")),
    ("${NOPE-}", ("${NOPE-}", ("${NOPE-}",), "")),
    ("${NOPE:?set it}", ("${NOPE:?set it}", ("${NOPE:?set it}",), "")),
    ("${A:+on}${NOPE:+on}", ("on", (), "")),
    ("${CFG}", ("c", (), "config-variable")),
    ("${broken", ("${broken", (), "")),
    ("'quoted' \"both\" a b", ("'quoted' \"both\" a b", (), "")),
])
def test_interpolation_is_compose_s_and_nothing_more(text, want):
    env = {"A": "1", "EMPTY": "", "CFG": Supplied("c", "config-variable")}
    assert interpolate(text, env) == want


def test_unknown_image_with_engine_flags_is_a_launch_with_the_note():
    deps = _by_name(UNKNOWN)
    assert set(deps) == {"vllm"}  # `web` (generic flags) and `wrapper` (own entrypoint) are not launches
    d = deps["vllm"]
    assert (d.engine, d.model, d.get("tensor_parallel_size"), d.get("max_model_len")) == (
        "vllm", "facebook/opt-125m", 1, 8192)
    assert d.gpu_count == 1 and _at(d.gpu_count_span) == (13, 45) and d.engine_version is None
    assert "engine vllm inferred from the flags: no entrypoint, and the image does not name an engine" in d.notes


def test_docker_run_of_an_unknown_image_with_engine_flags():
    deps = read_path(str(RUN)).deployments
    assert len(deps) == 1  # the llama.cpp-shaped (generic flags, -m) and the --entrypoint runs are not launches
    d = deps[0]
    assert (d.engine, d.model, d.get("max_model_len")) == ("vllm", "/workspace/models/qwen", 1024)
    assert "tensor_parallel_size" not in d.settings  # not written: the engine's default (1) applies
    assert d.gpu_count == 1 and _at(d.gpu_count_span) == (3, 29)
    assert (d.engine_version, _at(d.engine_version_span)) == ("0.7.0", (3, 62))  # the .../vllm image's tag
    assert "engine vllm assumed: vastai/vllm:v0.7.0-cuda-12.1-pytorch-2.5.1-py312 carries it and is given only vllm's flags" \
        in d.notes


ARGV_SHAPES = [
    ("--model x --max-model-len 4096", "vllm"),
    ("--max_model_len=4096 --model x", "vllm"),
    ("--model x --tensor-parallel-size 2", "vllm"),
    ("--model-path x --tensor-parallel-size 2", "sglang"),
    ("--model-path x --tp-size 2", "sglang"),
    ("--model x --context-length 4096", "sglang"),
    ("--port 80 --model x", None),  # a model flag alone decides nothing: llama.cpp's server takes --model too
    ("--model-path x --port 30000", None),
    ("--model x --n-gpu-layers 99", None),  # llama.cpp: its flags would be vLLM "errors" if taken for one
    ("--port 8080 --ctx-size 4096 -m m.gguf", None),  # llama.cpp's server, model given as -m
    ("--port 80 --workers 4", None),
    ("serve --max-model-len 4096", None),
    # by the tables: every flag the engine's, one at least no other engine takes
    ("--enable-lora --lora-modules a=./a --max-lora-rank 64", "vllm"),
    ("--model-path x --enable-torch-compile --chunked-prefill-size 4096", "sglang"),
    ("--enable-lora --lora-modules a=./a --jinja", None),  # a flag no release of vLLM has: another program
    ("--lora-modules a=./a", None),  # one flag is any program's
    # a model first: only `vllm serve` takes it as a positional
    ("google/gemma-3-4b-it --enable-lora --lora-modules a=./a", "vllm"),
    ("/models/qwen --max-model-len 4096 --enforce-eager", "vllm"),
    ("google/gemma-3-4b-it --port 8000 --host 0.0.0.0", None),  # both engines' flags: the tables cannot tell
    ("google/gemma-3-4b-it --ctx-size 4096 --n-gpu-layers 99", None),  # llama.cpp's
    ("serve.py --enforce-eager --max-num-seqs 4", None),  # a program, not a model
    # vLLM's dotted JSON keys are keys of the flag before the dot (sample K59's compose command)
    ("/models/ds --max-model-len 4096 --speculative-config.method=ngram --speculative-config.num-speculative-tokens=3",
     "vllm"),
]


@pytest.mark.parametrize("argv, engine", ARGV_SHAPES)
def test_rule_on_argv_shapes(argv, engine):
    assert engine_from_flags([Field(w, None) for w in argv.split()]) == engine


def _k8s(tmp_path: Path, argv: str) -> list:
    items = "".join(f"\n        - {w!r}" for w in argv.split())
    p = tmp_path / "pod.yaml"
    p.write_text("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n"
                 f"    - name: c\n      image: example/server:1\n      args:{items}\n")
    return read_path(str(p)).deployments


def _compose(tmp_path: Path, argv: str) -> list:
    p = tmp_path / "compose.yaml"
    p.write_text(f"services:\n  s:\n    image: example/server:1\n    command: {argv}\n")
    return read_path(str(p)).deployments


def _docker(tmp_path: Path, argv: str) -> list:
    p = tmp_path / "run.sh"
    p.write_text(f"#!/bin/sh\ndocker run --gpus 1 example/server:1 {argv}\n")
    return read_path(str(p)).deployments


@pytest.mark.parametrize("argv, engine", ARGV_SHAPES)
def test_all_three_readers_agree(tmp_path, argv, engine):
    found = {reader.__name__: [d.engine for d in reader(tmp_path, argv)] for reader in (_k8s, _compose, _docker)}
    assert found == {name: [engine] if engine else [] for name in found}



@pytest.mark.parametrize("kind", ["compose", "docker"])
def test_a_known_image_that_starts_no_server_is_read_as_meant_not_inferred(tmp_path, kind):
    from kvlint.launches.images import known_image

    assert known_image("lmsysorg/sglang:v0.4.6") and not known_image("vastai/vllm:v0.7.0")
    flags = "--model-path org/m --tp-size 1"
    p = tmp_path / ("compose.yaml" if kind == "compose" else "run.sh")
    p.write_text(f"services:\n  s:\n    image: lmsysorg/sglang:v0.4.6\n    command: {flags}\n" if kind == "compose"
                 else f"docker run --gpus 1 lmsysorg/sglang:v0.4.6 {flags}\n")
    (d,) = read_path(str(p)).deployments  # the flags reach no server (KV014): the launch they mean, not inferred
    assert d.engine == "sglang" and d.no_server_image is not None and not any("inferred" in n for n in d.notes)


@pytest.mark.parametrize("text", ["${A:-" * 20000, "${A:-" * 20000 + "x" + "}" * 20000, "$" * 50000 + "{"])
def test_interpolation_of_hostile_nesting_is_linear_and_never_recurses_away(text):
    """Unclosed `${A:-${A:-...` was rescanned from every `$` (a fuzzed compose file ran for minutes), and deep
    closed nesting recursed past Python's limit (RecursionError here); both now stop and keep the value as
    text (the time is measured by bench/fuzz_manifests.py, not here)."""
    out, _, _ = interpolate(text, {})
    assert out.startswith("$") and len(out) <= len(text)


def test_a_script_in_one_exec_form_item_keeps_each_values_line():
    """Sample H (a compose `command: [bash, -c, |...]` on a loaded block scalar): every value was reported at the
    item's first line, `- |`; the script's characters keep their places in the file now."""
    (d,) = read_path(str(FIX / "compose" / "script-item.yaml")).deployments
    at = d.model_span
    assert (d.engine, d.model, at.line, at.col) == ("sglang", "Qwen/Qwen3-8B", 15, 24)
    assert (d.settings["port"].span.line, d.settings["port"].span.col) == (16, 18)
    assert (d.launch_span.line, d.launch_span.col) == (14, 14)


def test_a_planning_subcommand_given_engine_flags_is_not_a_launch(tmp_path):
    """Sample K25's deployer example (measured: a spurious launch): `runpod-vllm plan --model X --gpu H100
    --tensor-parallel-size 2 --max-model-len 32768` works a deployment out offline; the same tool's `deploy` runs it."""
    from kvlint.launches import read_path

    p = tmp_path / "multi-gpu.sh"
    p.write_text("#!/usr/bin/env bash\nrunpod-vllm plan \\\n  --model org/m \\\n  --tensor-parallel-size 2 \\\n"
                 "  --max-model-len 32768 \\\n  --port 8000\n")
    assert read_path(str(p)).deployments == []
    p.write_text(p.read_text().replace(" plan ", " deploy "))
    assert [d.model for d in read_path(str(p)).deployments] == ["org/m"]

