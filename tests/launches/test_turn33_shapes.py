"""Shapes the turn-33 held-out samples showed kvlint passing over or misreading, each read by a mechanism, not a
case."""

from __future__ import annotations

from kvlint.launches import read_path


def _at(span):
    return (span.line, span.col) if span is not None else None


_MATRIX = """\
matrix:
  models:
    - id: q
      repo: org/q
  deployments:
    - id: small
      hardware: l4
      engine:
        name: vllm
        image: ghcr.io/example/vllm:v0.11.0
        arguments:
          - --model
          - /repository
          - --max-model-len
          - "65536"
          - --kv-cache-dtype
          - fp8
    - id: big
      engine:
        image: ghcr.io/example/vllm:v0.12.0
        arguments: [--model, org/big, --max-model-len, "8192", --tensor-parallel-size, "2"]
    - id: notes
      owner: team-a
"""


def test_each_item_of_a_deployment_matrix_with_an_argument_vector_is_a_launch():
    """Sample K273 (said only: KV008 "chart layout unknown"): a benchmarking tool's matrix lists deployments, each
    an engine image and an argument vector (flag, value, flag, value) under `arguments:`: one launch per item, with
    the item's own image and each value where it is written; an item with no arguments is none."""
    result = read_path("experiment.yaml", _MATRIX)
    deps = result.deployments
    assert [(d.engine, d.model, d.get("max_model_len"), d.image) for d in deps] == [
        ("vllm", "/repository", 65536, "ghcr.io/example/vllm:v0.11.0"),
        ("vllm", "org/big", 8192, "ghcr.io/example/vllm:v0.12.0")]
    assert deps[1].get("tensor_parallel_size") == 2
    assert _at(deps[0].model_span) == (13, 13)
    assert not [f for f in result.findings if f.code == "KV008"]


def test_an_argument_list_of_another_program_in_a_matrix_is_not_a_launch():
    """The same layout whose lists are a benchmark client's flags (`--model` and flags no engine has) gives none."""
    text = _MATRIX.replace("--max-model-len", "--num-prompts").replace("--kv-cache-dtype", "--request-rate") \
        .replace("--tensor-parallel-size", "--dataset-name").replace("ghcr.io/example/vllm", "ghcr.io/example/bench")
    assert read_path("experiment.yaml", text).deployments == []
