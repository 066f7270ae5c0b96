"""An engine container described in a schema kvlint has no adapter for (a benchmark harness's cell file, a deploy
tool's own YAML): an engine image, given as `image` or as a repository key + a tag key, beside an argv list of
the engine's flags is one launch, its values at their positions."""

from __future__ import annotations

from kvlint.launches import read_path
from tests.launches.test_docker_and_positional import _at

HARNESS_CELL = """# ablation cell
cell_id: a1
engine:
  image_repo: vllm/vllm-openai
  image_tag: v0.7.3
  command:
    - --model
    - Qwen/Qwen2.5-7B-Instruct
    - --max-model-len
    - "8192"
    - --tensor-parallel-size
    - "2"
  gpu_device: 0
workload:
  model: Qwen/Qwen2.5-7B-Instruct
"""


def test_repository_and_tag_keys_beside_an_engine_argv_are_a_launch():
    [dep] = read_path("a1.yaml", HARNESS_CELL).deployments
    assert (dep.engine, dep.model, _at(dep.model_span)) == ("vllm", "Qwen/Qwen2.5-7B-Instruct", (8, 7))
    assert dep.image == "vllm/vllm-openai:v0.7.3" and dep.engine_version == "0.7.3"
    assert dep.get("max_model_len") == 8192 and _at(dep.settings["max_model_len"].span) == (10, 7)
    assert dep.get("tensor_parallel_size") == 2 and _at(dep.settings["tensor_parallel_size"].span) == (12, 7)


def test_an_image_map_with_repository_and_tag_is_the_image():
    text = ("server:\n  image:\n    repository: vllm/vllm-openai\n    tag: v0.9.0\n"
            "  args: [--model, org/m, --max-model-len, '4096']\n")
    [dep] = read_path("values.yaml", text).deployments
    assert (dep.model, dep.engine_version, dep.get("max_model_len")) == ("org/m", "0.9.0", 4096)


def test_a_repository_key_of_another_image_is_not_an_engine():
    text = "job:\n  image_repo: python\n  image_tag: '3.12'\n  command: [--model, org/m, --max-model-len, '4096']\n"
    assert read_path("cell.yaml", text).deployments == []
