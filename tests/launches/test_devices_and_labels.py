"""Devices and GPU products as fresh real files write them (a survey of files outside the corpus): Neuron
resources, GPU-operator and CoreWeave node labels, and placeholders a deploy script fills in."""

from __future__ import annotations

from pathlib import Path

import pytest

from kvlint.gpus import accelerator_kind, lookup_gpu
from kvlint.launches import read_path
from kvlint.lint import LintOptions, lint

DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata: {{name: m}}
spec:
  template:
    spec:
      {affinity}
      containers:
      - name: vllm
        image: vllm/vllm-openai:v0.10.1
        args: [--model, Qwen/Qwen3-8B, --max-model-len, '8192']
        resources:
          limits: {{{resource}: 2}}
"""


def _dep(tmp_path: Path, resource: str = "nvidia.com/gpu", affinity: str = ""):
    path = tmp_path / "d.yaml"
    path.write_text(DEPLOYMENT.format(resource=resource, affinity=affinity))
    [dep] = read_path(str(path)).deployments
    return dep


def test_a_neuron_resource_names_the_device_and_the_launch_is_not_swept_on_gpus(tmp_path):
    dep = _dep(tmp_path, resource="aws.amazon.com/neuroncore")
    assert dep.gpu == "aws.amazon.com/neuroncore" and dep.gpu_count == 2
    [status] = lint([str(tmp_path / "d.yaml")], LintOptions()).launches
    assert status.capacity == "skipped" and status.skip_kind == "not-a-gpu"


def test_a_gpu_resource_names_no_product(tmp_path):
    assert _dep(tmp_path).gpu is None


@pytest.mark.parametrize(("key", "value", "card"), [
    ("gpu.nvidia.com/model", "H200", "H200-SXM-141GB"),
    ("gpu.nvidia.com/class", "A100_NVLINK_80GB", "A100-SXM-80GB"),
    ("gpu.nvidia.com/class", "H100_NVLINK_80GB", "H100-SXM-80GB"),
])
def test_gpu_operator_and_coreweave_labels_name_the_card(tmp_path, key, value, card):
    affinity = ("affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: "
                f"[{{matchExpressions: [{{key: {key}, operator: In, values: [{value}]}}]}}]}}}}}}")
    dep = _dep(tmp_path, affinity=affinity)
    assert dep.gpu == value and lookup_gpu(dep.gpu).id == card


@pytest.mark.parametrize("name", ["aws-neuron-core", "aws.amazon.com/neuron", "inf2.xlarge", "habana.ai/gaudi"])
def test_non_gpu_devices_are_named_as_such(name):
    assert accelerator_kind(name) in ("neuron", "gaudi")


def test_a40_is_in_the_catalogue():
    assert lookup_gpu("NVIDIA A40").id == "A40-48GB" and lookup_gpu("A40").memory_mib == 46068


@pytest.mark.parametrize("model", ["__MODEL__", "<MODEL_ID>"])
def test_a_placeholder_model_is_unresolved_and_said_so(tmp_path, model):
    (tmp_path / "s.sh").write_text(f"vllm serve '{model}' --max-model-len 4096\n")
    result = lint([str(tmp_path)], LintOptions())
    [status] = result.launches
    assert status.skip_kind == "unresolved-model" and "placeholder" in (status.skipped_because or "")
    assert not any("not known offline" in f.message for f in result.findings)


RAY_NEURON = """\
apiVersion: ray.io/v1
kind: RayService
metadata: {name: r}
spec:
  serveConfigV2: |
    applications:
    - name: llm
      import_path: ray.serve.llm:build_openai_app
      args:
        llm_configs:
        - model_loading_config: {model_id: m, model_source: Qwen/Qwen3-8B}
          engine_kwargs: {max_model_len: 8192, tensor_parallel_size: 2}
  rayClusterConfig:
    workerGroupSpecs:
    - groupName: neuron-workers
      template:
        spec:
          containers:
          - name: w
            resources: {limits: {aws.amazon.com/neuroncore: 2}}
"""


def test_a_ray_worker_pool_of_neuron_cores_is_not_a_gpu(tmp_path):
    (tmp_path / "ray.yaml").write_text(RAY_NEURON)
    [status] = lint([str(tmp_path / "ray.yaml")], LintOptions()).launches
    assert status.gpu == "aws.amazon.com/neuroncore" and status.skip_kind == "not-a-gpu"
