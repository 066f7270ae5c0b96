"""A custom engine image configured by its environment (kvlint.launches.env_launch): a container or chart values
whose image is a build named for the engine, no command, a model variable and a GPU request. Fixtures in
tests/fixtures/launches/envimage."""

from __future__ import annotations

from pathlib import Path

from kvlint.launches import read_path
from kvlint.launches.env_launch import named_engine

FIX = Path(__file__).resolve().parent.parent / "fixtures" / "launches" / "envimage"


def _at(span):
    return (span.line, span.col)


def test_kubernetes_container_env_is_the_launch():
    (d,) = read_path(str(FIX / "deployment.yaml")).deployments
    assert (d.engine, d.model, _at(d.model_span), d.gpu_count) == ("vllm", "org/env-model", (13, 22), 2)
    assert d.get("max_model_len") == 16384 and _at(d.settings["max_model_len"].span) == (15, 22)
    assert d.get("tensor_parallel_size") == 2 and _at(d.settings["tensor_parallel_size"].span) == (17, 22)
    assert d.image == "ghcr.io/org/foo-vllm-docker:latest" and d.unknown_flags == ()
    assert any("custom build of the engine" in n for n in d.notes)


def test_helm_values_env_map_is_the_launch():
    (d,) = read_path(str(FIX / "values.yaml")).deployments
    assert (d.engine, d.model, _at(d.model_span), d.gpu_count) == ("vllm", "org/values-env-model", (5, 15), 1)
    assert d.get("gpu_memory_utilization") == 0.9 and _at(d.settings["gpu_memory_utilization"].span) == (6, 27)
    assert d.get("max_model_len") == 8192 and _at(d.settings["max_model_len"].span) == (7, 18)


def test_no_gpu_request_or_an_official_image_is_not_read_from_env():
    no_gpu = "image: ghcr.io/org/foo-vllm:1\nenv:\n  MODEL: org/m\n"
    assert read_path("values.yaml", no_gpu).deployments == []
    assert named_engine("vllm/vllm-openai:v0.9.0") is None and named_engine("lmsysorg/sglang:latest") is None
    assert named_engine("ghcr.io/org/foo-vllm-docker:latest") == "vllm" and named_engine("org/web:1") is None


def test_an_image_named_for_a_program_around_the_engine_is_not_the_engine():
    """A router, simulator, benchmark or gateway named for the engine (`vllm-router`, `vllm-sim`, `sglang-router`)
    runs another program: its flags and environment are not the engine's (issue N: K4's simulator)."""
    for image in ("ghcr.io/org/vllm-router:1.0", "lmsysorg/sglang-router:latest", "team/vllm-sim:0.1",
                  "org/vllm_bench:2"):
        assert named_engine(image) is None, image
    assert named_engine("org/vllm-spark:latest") == "vllm"
