"""kvlint.launches.ray_cluster: a Ray cluster launcher file's docker blocks (sample J's `run_options -e` shape)."""

from __future__ import annotations

from kvlint.launches import read_path
from kvlint.launches.ray_cluster import _words
from kvlint.sources.yaml import parse_yaml
from tests.launches.test_docker_and_positional import FIX, _at


def test_head_and_worker_running_one_engine_build_are_one_launch_read_from_run_options():
    result = read_path(str(FIX / "raycluster" / "docker-run-options.yaml"))
    (dep,) = result.deployments
    assert (dep.engine, dep.model, _at(dep.model_span)) == ("vllm", "Qwen/Qwen2.5-3B-Instruct", (14, 34))
    assert (dep.get("max_model_len"), dep.get("enable_prefix_caching")) == (8192, True)
    assert _at(dep.span_of("max_model_len")) == (15, 56)
    assert dep.image == "team-vllm:test"


def test_a_cluster_on_rays_own_image_starts_no_engine():
    assert read_path(str(FIX / "raycluster" / "ray-image.yaml")).deployments == []


def test_run_option_words_keep_their_columns_and_drop_their_quotes():
    yf = parse_yaml("x.yaml", "o:\n  - '-e \"A=b c\" --gpus all'\n")
    words = _words(yf.docs[0].get("o").items[0])
    assert [(w.text, w.span.col, w.span.end_col) for w in words] == \
        [("-e", 6, 8), ("A=b c", 10, 15), ("--gpus", 17, 23), ("all", 24, 27)]
