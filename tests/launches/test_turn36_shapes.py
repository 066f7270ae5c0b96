"""Shapes the turn-36 held-out samples showed kvlint passing over or misreading, each read by a mechanism, not a
case."""

from __future__ import annotations

from kvlint.findings import Severity
from kvlint.launches import read_path
from kvlint.lint import LintOptions, lint

_RAYLLM = """\
deployment_config:
  max_concurrent_queries: 64
engine_config:
  model_id: llama-7b-chat
  hf_model_id: meta-llama/Llama-2-7b-chat-hf
  type: VLLMEngine
  engine_kwargs:
    max_num_seqs: 64
    gpu_memory_utilization: 0.95
  max_total_tokens: 4096
scaling_config:
  num_workers: 2
  num_gpus_per_worker: 1
  resources_per_worker:
    accelerator_type_a10: 0.01
"""


def test_a_rayllm_model_file_is_one_vllm_launch(tmp_path):
    """Sample K316: RayLLM (Ray Serve LLM's predecessor) keeps one model a file, `engine_config: {type: VLLMEngine}`;
    its workers are the tensor-parallel ranks, max_total_tokens the context length, the replica's
    max_concurrent_queries (Ray Serve's name before 2.10) its declared load."""
    path = tmp_path / "llama.yaml"
    path.write_text(_RAYLLM)
    (dep,) = read_path(str(path)).deployments
    assert (dep.engine, dep.model) == ("vllm", "meta-llama/Llama-2-7b-chat-hf")
    assert dep.get("max_model_len") == 4096 and dep.get("tensor_parallel_size") == 2
    assert dep.get("max_num_seqs") == 64 and dep.get("gpu_memory_utilization") == 0.95
    assert (dep.gpu, dep.gpu_count) == ("A10", 2)
    assert dep.declared_load is not None and dep.declared_load.value == 64
    assert dep.settings["tensor_parallel_size"].span.line == 12  # num_workers
    # another engine's model file (TGI's `type: TextGenerationInferenceEngine`) is none of vLLM's
    path.write_text(_RAYLLM.replace("type: VLLMEngine", "type: TextGenerationInferenceEngine"))
    assert not read_path(str(path)).deployments


_ISVC = """\
apiVersion: serving.kserve.io/v1beta1
kind: InferenceService
metadata:
  name: granite
spec:
  predictor:
    model:
      modelFormat:
        name: pytorch
      runtime: {runtime}
      storage:
        key: aws-connection-vllm
        path: models/granite-3b-code-base
      resources:
        limits:
          nvidia.com/gpu: '1'
"""


def test_an_inference_service_on_a_runtime_named_for_an_engine_is_a_launch(tmp_path):
    """Sample K316: OpenShift AI's InferenceService names its ServingRuntime (`runtime: vllm`, written in another
    file) and the stored model, with a model format that names no engine: that runtime starts the engine on the
    model, so it is a launch whose flags are the runtime's, never silence."""
    path = tmp_path / "isvc.yaml"
    path.write_text(_ISVC.format(runtime="vllm-cuda-runtime"))
    (dep,) = read_path(str(path)).deployments
    assert dep.engine == "vllm" and dep.gpu_count == 1
    assert dep.model_span is not None and dep.model_span.line == 13
    assert any("ServingRuntime vllm-cuda-runtime" in n for n in dep.notes)
    # a runtime named for another server names no engine
    path.write_text(_ISVC.format(runtime="kserve-huggingfaceserver"))
    assert not read_path(str(path)).deployments


def test_a_process_tool_naming_an_entry_point_is_no_passed_over_launch():
    """Sample K317: a training script clears stale servers with `pkill -f "vllm.entrypoints"`: a pattern matched
    against running processes, never an engine started, so KV008 has no place there; a command that does run the
    entry point in a shape kvlint cannot read is still said."""
    from kvlint.launches.named import passed_over

    killed = 'pkill -9 -u $(whoami) -f "vllm.entrypoints" 2>/dev/null || true\nsudo killall -f vllm.entrypoints\n'
    assert passed_over("train.sh", killed, "shell") is None
    run = killed + "nohup python -m vllm.entrypoints.openai.api_server \"$@\" &\n"
    found = passed_over("train.sh", run, "shell")
    assert found is not None and found.span is not None and found.span.line == 3


def test_a_vendor_fork_with_its_own_parser_decides_the_values_stock_vllm_refuses():
    """Sample K320: a script that imports xfastertransformer runs Intel's vllm-xft fork, whose parser reads
    `--dtype bf16`: stock vLLM's refusal is an info naming the fork; without the import it is the error."""
    from pathlib import Path

    fixture = Path(__file__).parents[1] / "fixtures" / "rules" / "KV007" / "bad_vendor_fork.sh"
    result = lint([str(fixture)], LintOptions())
    assert {(f.code, f.severity) for f in result.findings if f.code == "KV007"} == {("KV007", Severity.INFO)}
    assert all("vllm-xft" in f.message for f in result.findings if f.code == "KV007")


def test_without_the_forks_package_the_refusal_stands(tmp_path):
    script = tmp_path / "run.sh"
    script.write_text("python -m vllm.entrypoints.openai.api_server --model Qwen/Qwen2.5-7B-Instruct --dtype bf16\n")
    result = lint([str(script)], LintOptions())
    assert [f.severity for f in result.findings if f.code == "KV007"] == [Severity.ERROR]


_RECIPE = """\
image:
  repository: mixa3607/vllm-gfx906
  tag: 0.11.0-rocm-6.3.3-20251102214219
app-configuration:
  vllm.yaml: |-
    model: Qwen/Qwen3-30B-A3B
    served-model-name:
      - qwen3
    max-model-len: 64K
    tensor-parallel-size: 2
    gpu-memory-utilization: 0.95
"""


def test_an_engine_config_file_the_values_embed_is_the_launch(tmp_path):
    """Sample K319: the values of a chart kvlint has no adapter for carry the engine's `--config` file as a string
    (`vllm.yaml: |-`) beside a vLLM image: its model and flags are the launch, each value at its line in the block;
    a block that names no model leaves the KV008 said."""
    path = tmp_path / "recipe.yaml"
    path.write_text(_RECIPE)
    (dep,) = read_path(str(path)).deployments
    assert (dep.engine, dep.model) == ("vllm", "Qwen/Qwen3-30B-A3B")
    assert dep.get("max_model_len") == 65536 and dep.get("tensor_parallel_size") == 2
    assert dep.model_span is not None and dep.model_span.line == 6
    assert dep.settings["max_model_len"].span.line == 9
    path.write_text(_RECIPE.replace("    model: Qwen/Qwen3-30B-A3B\n", ""))
    result = read_path(str(path))
    assert not result.deployments and [f.code for f in result.findings] == ["KV008"]


_FLOW = """\
from metaflow import FlowSpec, step, vllm


class Hello(FlowSpec):
    @vllm(
        model="Qwen/Qwen3-0.6B",
        openai_api_server=True,
    )
    @step
    def start(self):
        self.next(self.end)
"""


def test_a_decorator_named_for_an_engine_with_a_model_is_said_not_passed_over():
    """Sample K316: Metaflow's `@vllm(model=..., openai_api_server=True)` has a plugin start a vLLM server for the
    step; kvlint reads no launch from it, so it says so at the decorator (KV008), never silence. A decorator with no
    model (`@vllm_cache`) or a call in the body is not such a place."""
    from kvlint.launches.named import passed_over

    found = passed_over("flow.py", _FLOW, "python")
    assert found is not None and found.span is not None and (found.span.line, found.span.col) == (5, 5)
    assert "@vllm(...)" in found.message
    assert passed_over("flow.py", _FLOW.replace('model="Qwen/Qwen3-0.6B",', "cache=True,"), "python") is None


_OPERATOR = """\
apiVersion: airunway.ai/v1alpha1
kind: ModelDeployment
metadata:
  name: qwen3-vllm
spec:
  model:
    id: Qwen/Qwen3-0.6B
    source: huggingface
  engine:
    type: vllm
  resources:
    gpu:
      count: 1
"""


def test_an_operator_resource_naming_its_engine_by_type_is_a_launch(tmp_path):
    """Sample K322: an operator's resource names its engine as `engine: {type: vllm}` beside `model: {id: ...}` and
    a GPU count of its own shape (`resources: {gpu: {count: 1}}`): the operator starts that engine on that model."""
    path = tmp_path / "md.yaml"
    path.write_text(_OPERATOR)
    (dep,) = read_path(str(path)).deployments
    assert (dep.engine, dep.model, dep.gpu_count) == ("vllm", "Qwen/Qwen3-0.6B", 1)
    path.write_text(_OPERATOR.replace("type: vllm", "type: llamacpp"))
    assert not read_path(str(path)).deployments


_SOURCE_BUILD = """\
```bash
git clone https://github.com/example/vllm.git
cd vllm
pip install -e .
python -m vllm.entrypoints.openai.api_server --model Qwen/Qwen3-0.6B --enable-apxm
```
"""


def test_an_editable_install_of_a_cloned_engine_tree_runs_that_tree(tmp_path):
    """Sample K322: a fork's README clones its vLLM, `cd vllm` and `pip install -e .`: the launch runs that
    checkout, whose parser may add `--enable-apxm`, so KV004 is an info there; without the install it is a warning."""
    path = tmp_path / "README.md"
    path.write_text(_SOURCE_BUILD)
    assert [f.severity for f in lint([str(path)], LintOptions()).findings if f.code == "KV004"] == [Severity.INFO]
    other = tmp_path / "NOTES.md"  # another file: a file's text is read once per run
    other.write_text(_SOURCE_BUILD.replace("pip install -e .\n", ""))
    assert [f.severity for f in lint([str(other)], LintOptions()).findings if f.code == "KV004"] == [Severity.WARNING]
    # a clone of vLLM's own repository is stock vLLM at a development commit (sample K258): the warning stands
    upstream = tmp_path / "BUILD.md"
    upstream.write_text(_SOURCE_BUILD.replace("example/vllm", "vllm-project/vllm"))
    assert [f.severity for f in lint([str(upstream)], LintOptions()).findings if f.code == "KV004"] == [Severity.WARNING]


def test_a_capitalised_model_name_in_a_runbook_is_a_placeholder(tmp_path):
    """Sample K323: `- vLLM server running: \\`vllm serve MODEL_NAME --max-model-len 8192\\`` is a command the runbook
    gives with its reader's model: a launch whose model is a placeholder (never looked up as a Hub id); a model with a
    `/` or lower-case letters is read as written."""
    from kvlint.flags.flag_values import is_placeholder

    path = tmp_path / "README.md"
    path.write_text("- vLLM server running: `vllm serve MODEL_NAME --max-model-len 8192`\n")
    (dep,) = read_path(str(path)).deployments
    assert dep.model == "MODEL_NAME" and dep.get("max_model_len") == 8192
    assert not dep.model_resolved
    assert is_placeholder("MODEL_NAME") and is_placeholder("BASE_MODEL_PATH")
    assert not is_placeholder("Qwen/QWEN_7B") and not is_placeholder("MODEL") and not is_placeholder("my_model")


_IMAGE = """\
FROM nvidia/cuda:12.4.1-cudnn-runtime-ubuntu22.04
RUN python3 -m pip install --no-cache-dir sglang
COPY handler.py start.sh ./
ENV MODEL_PATH="Qwen/Qwen3-Coder-30B-A3B-Instruct-FP8" \\
    SGLANG_EXTRA_ARGS="--tp 1 --context-length 131072"
CMD ["./start.sh"]
"""


def test_an_image_that_installs_an_engine_and_runs_a_script_not_in_the_tree_is_said(tmp_path):
    """Sample K323: a Dockerfile installs SGLang and runs `./start.sh`, which the tree does not hold: kvlint reads no
    launch from it, so it says so at the script's name (KV008); with the script beside it, the script's own reading
    says where the launch is, and the Dockerfile says nothing."""
    from kvlint.launches.named import passed_over

    path = tmp_path / "Dockerfile"
    path.write_text(_IMAGE)
    found = passed_over(str(path), _IMAGE, "dockerfile")
    assert found is not None and found.span is not None and (found.span.line, found.span.col) == (6, 7)
    assert "installs sglang" in found.message
    (tmp_path / "start.sh").write_text("#!/bin/sh\nexec python3 -m sglang.launch_server --model-path \"$MODEL_PATH\"\n")
    assert passed_over(str(path), _IMAGE, "dockerfile") is None


def test_only_the_engines_own_repository_is_its_upstream():
    """`git clone` of `vllm-project/vllm` is the upstream; an owner whose name merely ends like it is a fork."""
    from kvlint.resolve.lookups import _upstream_clone

    text = "git clone https://github.com/{}.git\ncd vllm\npip install -e .\n"
    assert _upstream_clone(text.format("vllm-project/vllm"), len(text), "vllm")
    assert not _upstream_clone(text.format("my-vllm-project/vllm"), len(text), "vllm")


def test_an_operator_resource_with_prefill_and_decode_roles_is_two_launches(tmp_path):
    """Sample K322: `serving: {mode: disaggregated}` with `scaling: {prefill: {gpu: {count: 4}}, decode: {gpu: {count:
    2}}}`: a prefill and a decode engine with pools of their own (counting rule 3), each with its role's GPUs."""
    path = tmp_path / "pd.yaml"
    path.write_text(_OPERATOR.replace("  resources:\n    gpu:\n      count: 1\n", "") + """\
  serving:
    mode: disaggregated
  scaling:
    prefill:
      replicas: 2
      gpu:
        count: 4
    decode:
      replicas: 4
      gpu:
        count: 2
""")
    deps = read_path(str(path)).deployments
    assert [(d.name, d.model, d.gpu_count) for d in deps] == [("prefill", "Qwen/Qwen3-0.6B", 4),
                                                               ("decode", "Qwen/Qwen3-0.6B", 2)]
