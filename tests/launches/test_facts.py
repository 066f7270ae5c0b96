"""Facts beside the engine flags (issue F): node labels, candidate GPUs, declared load, model aliases.
Each value is pinned to the (line, col) of the declaration in a fixture we wrote."""

from __future__ import annotations

from pathlib import Path

import pytest

from kvlint.launches import read_path
from kvlint.launches.facts import looks_like_hub_id, path_alias

FIX = Path(__file__).resolve().parent.parent / "fixtures" / "launches"


@pytest.fixture(scope="module")
def deps():
    return {d.name: d for d in read_path(str(FIX / "k8s" / "facts.yaml")).deployments}


def _at(span):
    return (span.line, span.col)


def test_node_selector_and_single_value_affinity_terms_are_labels(deps):
    d = deps["qwen-local/vllm"]
    assert [(lb.key, lb.value, _at(lb.span)) for lb in d.node_labels] == [
        ("karpenter.sh/nodepool", "gpu-a100", (10, 32)), ("topology.kubernetes.io/zone", "us-east-1a", (21, 30))]
    assert [(lb.key, lb.value) for lb in deps["sglang-keda/sglang"].node_labels] == [
        ("cloud.google.com/gke-nodepool", "h100-pool")]


def test_product_affinity_with_several_values_gives_options_with_the_pod_count(deps):
    d = deps["qwen-local/vllm"]
    assert [(o.name, o.count, _at(o.span), o.source) for o in d.gpu_options] == [
        ("NVIDIA-A100-SXM4-80GB", 2, (18, 30), "node-affinity"), ("NVIDIA-H100-80GB-HBM3", 2, (18, 53), "node-affinity")]
    assert d.gpu == "NVIDIA-A100-SXM4-80GB|NVIDIA-H100-80GB-HBM3"  # the single field keeps today's reading


def test_gke_compute_class_priorities_are_options(deps):
    d = deps["knative-vllm"]
    assert [(o.name, o.count, _at(o.span), o.source) for o in d.gpu_options] == [
        ("nvidia-l4", 1, (118, 19), "compute-class"), ("nvidia-tesla-a100", 1, (119, 19), "compute-class")]


def test_one_product_gives_no_options(tmp_path):
    p = tmp_path / "one.yaml"
    p.write_text("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  nodeSelector: {cloud.google.com/gke-accelerator: nvidia-l4}\n"
                 "  containers:\n  - image: vllm/vllm-openai:v0.9.0\n    args: [--model, org/m]\n")
    (d,) = read_path(str(p)).deployments
    assert d.gpu == "nvidia-l4" and d.gpu_options == ()


@pytest.mark.parametrize("name, value, source, at", [
    ("qwen-local/vllm", 24, "hpa:vllm:num_requests_running", (51, 25)),
    ("isvc-hard-limit", 16, "containerConcurrency", (59, 27)),
    ("isvc-target", 8, "scaleTarget", (73, 18)),
    ("knative-vllm", 10, "autoscaling.knative.dev/target", (101, 41)),
    ("sglang-keda/sglang", 48, "keda:prometheus", (146, 20)),
])
def test_declared_load(deps, name, value, source, at):
    load = deps[name].declared_load
    assert (load.value, load.source, _at(load.span)) == (value, source, at)


def test_raw_deployment_scale_target_is_cpu_not_concurrency(deps):
    assert deps["isvc-raw-cpu"].declared_load is None


def test_aliases_for_local_paths_best_first(deps):
    d = deps["qwen-local/vllm"]
    assert [(a.name, a.how, _at(a.span)) for a in d.model_aliases] == [
        ("Qwen/Qwen3-8B", "served-name", (25, 63)), ("Qwen/Qwen3-8B-FP8", "env:MODEL_ID", (28, 22))]  # not TOKENIZER
    assert [(a.name, a.how) for a in deps["isvc-hard-limit"].model_aliases] == [("example-org/demo-8b", "storageUri")]
    assert [(a.name, a.how) for a in deps["knative-vllm"].model_aliases] == [("example-org/demo-3b", "path")]


def test_a_hub_id_model_has_no_aliases(deps):
    assert deps["isvc-target"].model_aliases == ()


def test_docker_mount_maps_the_container_path_to_the_host_path():
    d = read_path(str(FIX / "docker" / "run-variants.sh")).deployments[4]
    assert d.model == "/model" and [(a.name, a.how) for a in d.model_aliases] == [("Qwen/Qwen3-8B", "path")]


@pytest.mark.parametrize("path, alias", [
    ("/models/Qwen/Qwen3-8B", "Qwen/Qwen3-8B"),
    ("/root/.cache/huggingface/hub/models--Qwen--Qwen3-8B/snapshots/abc123", "Qwen/Qwen3-8B"),
    ("s3://${bucket}/models/meta-llama--Meta-Llama-3.1-8B-Instruct", "meta-llama/Meta-Llama-3.1-8B-Instruct"),
    ("pvc://claim/models/Qwen/Qwen2.5-7B-Instruct", "Qwen/Qwen2.5-7B-Instruct"),
    ("/var/mdl/YOUR-MODEL-PATH", None),  # no digit: not a model name
    ("/mnt/petrelfs/user/gveval_user/Qwen2.5-72B-Instruct", None),  # org folder not under a generic folder
    ("/models/Qwen3-8B", None),  # one segment: the registry's by-name lookup handles it
    ("/models/${ORG}/Qwen3-8B", None),
    # a revision folder after the id (sample F): the id before it
    ("/models/microsoft/Phi-3-mini-4k-instruct/main", "microsoft/Phi-3-mini-4k-instruct"),
    ("/models/Qwen/Qwen3-8B/3f1e2d4c5b6a79880123456789abcdef01234567", "Qwen/Qwen3-8B"),
    ("/models/org/main", None),  # `main` is no model name
    # an unresolvable prefix: the literal tail under a generic folder still names the model
    ("$PROJECT_ROOT/huggingface/heterodoxin/gemma-4-e4b-it-apostate", "heterodoxin/gemma-4-e4b-it-apostate"),
])
def test_path_alias(path, alias):
    assert path_alias(path) == alias


def test_hub_id_shape():
    assert looks_like_hub_id("Qwen/Qwen3-8B") and not looks_like_hub_id("models/x") and not looks_like_hub_id("a/b/c")
    assert not looks_like_hub_id("org/config.json") and not looks_like_hub_id("/abs/path")


def test_unresolved_model_gets_only_its_literal_tail(tmp_path):
    p = tmp_path / "isvc.yaml"
    p.write_text("apiVersion: serving.kserve.io/v1beta1\nkind: InferenceService\nmetadata: {name: f}\nspec:\n  predictor:\n"
                 "    model:\n      storageUri: s3://${bucket}/models/meta-llama--Meta-Llama-3.1-8B-Instruct\n"
                 "      args: [--max-model-len, '1024']\n")
    (d,) = read_path(str(p)).deployments
    assert not d.model_resolved and [(a.name, a.how) for a in d.model_aliases] == [("meta-llama/Meta-Llama-3.1-8B-Instruct", "path")]


def test_skypilot_accelerator_sets_and_any_of(tmp_path):
    d = read_path(str(FIX / "sky.yaml")).deployments[0]
    assert [(o.name, o.count, _at(o.span)) for o in d.gpu_options] == [("A100-80GB", 8, (3, 18)), ("H100", 8, (3, 31))]
    assert (d.gpu, d.gpu_count) == ("A100-80GB", 8)
    p = tmp_path / "task.yaml"
    p.write_text("resources:\n  any_of:\n    - accelerators: L4:1\n    - accelerators: {A10G: 1}\nrun: |\n  vllm serve org/m\n")
    (d,) = read_path(str(p)).deployments
    assert [(o.name, o.count, o.source) for o in d.gpu_options] == [("L4", 1, "any_of"), ("A10G", 1, "any_of")]
    p.write_text("resources:\n  ordered:\n    - accelerators: H100:2\nrun: |\n  vllm serve org/m\n")
    (d,) = read_path(str(p)).deployments
    assert (d.gpu, d.gpu_count, d.gpu_options) == ("H100", 2, ())  # one candidate: the product itself


def test_kubeai_target_requests(shared_dir):
    path = shared_dir / "corpus" / "substratusai__kubeai" / "manifests" / "models" / "llama-3.1-405b-instruct-fp8-h100.yaml"
    (d,) = read_path(str(path)).deployments
    assert (d.declared_load.value, d.declared_load.source, d.declared_load.span.line) == (500, "targetRequests", 20)


def test_production_stack_node_selector_terms(shared_dir, tmp_path):
    path = shared_dir / "corpus" / "vllm-project__production-stack" / "tutorials" / "assets" / "values-25-v100-multi-gpu-tp4.yaml"
    (d,) = read_path(str(path)).deployments
    assert [(lb.key, lb.value, lb.span.line) for lb in d.node_labels] == [("kubernetes.io/hostname", "gpu-node-02", 70)]
    p = tmp_path / "values.yaml"
    p.write_text("servingEngineSpec:\n  modelSpec:\n  - name: m\n    modelURL: org/m\n    requestGPU: 2\n    nodeSelectorTerms:\n"
                 "    - matchExpressions:\n      - key: nvidia.com/gpu.product\n        operator: In\n"
                 "        values: [NVIDIA-L40S, NVIDIA-A10G]\n")
    (d,) = read_path(str(p)).deployments
    assert d.gpu == "NVIDIA-L40S" and [(o.name, o.count) for o in d.gpu_options] == [("NVIDIA-L40S", 2), ("NVIDIA-A10G", 2)]


@pytest.mark.parametrize("module, old", [
    ("kvlint.launches.facts", r"\$\{|\$\(|\{\{|\u27e6"),
    ("kvlint.launches.build", r"\$\{|\$\(|\$[A-Za-z_]|\{\{|\u27e6|\{[a-z_]+\}"),
])
def test_unresolved_is_the_one_pattern_it_replaced(module, old):
    """The template placeholder is tested apart from the pattern (a non-ASCII alternative made its compile
    five times dearer); the predicate is the one pattern's, on the cases and on random texts."""
    import importlib
    import random
    import re

    unresolved = importlib.import_module(module)._unresolved
    pattern = re.compile(old)
    assert unresolved("\u27e6v0\u27e7") and unresolved("${MODEL}") and unresolved("{{ .Values.model }}")
    assert not unresolved("Qwen/Qwen3-8B") and not unresolved("")
    rng = random.Random(7)
    alphabet = "${}()a_Z9 \u27e6\u27e7-"
    for _ in range(3000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 8)))
        assert unresolved(text) == bool(pattern.search(text)), text


def test_an_unresolved_prefix_keeps_the_path_name_of_its_literal_tail():
    text = 'python -m sglang.launch_server --model-path "$ROOT/huggingface/Qwen/Qwen3-8B" --tp 1\n'
    (d,) = read_path("serve.sh", text).deployments
    assert not d.model_resolved and [(a.name, a.how) for a in d.model_aliases] == [("Qwen/Qwen3-8B", "path")]


def test_an_autoscaler_target_of_hundreds_of_digits_is_no_declared_load(tmp_path):
    """Fuzz seed 83: an HPA's `averageValue` of 400 digits is infinite as a float, and `int()` of it raised an
    OverflowError (an internal error). It declares no load; the launch is read as without it."""
    text = (FIX / "k8s" / "facts.yaml").read_text()
    assert 'averageValue: "24"' in text
    path = tmp_path / "facts.yaml"
    path.write_text(text.replace('averageValue: "24"', 'averageValue: "' + "9" * 400 + '"'))
    found = {d.name: d for d in read_path(str(path)).deployments}
    assert found["qwen-local/vllm"].declared_load is None
    assert found["isvc-hard-limit"].declared_load.value == 16  # the file's other launches read as before
