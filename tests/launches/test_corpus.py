"""Hand-checked expectations for real manifests in ../shared/corpus (each value read in the file).

Columns: file, instance index, engine, model, model line, TP, TP line, max context, its line,
GPU product (as written), GPUs per instance. None = the file does not state it.
"""

from __future__ import annotations

import csv

import pytest

from kvlint.launches import iter_files, read_path

GKE = "GoogleCloudPlatform__kubernetes-engine-samples/ai-ml/"
CASES = [
    (GKE + "llm-serving-gemma/vllm/vllm-3-27b-it.yaml", 0, "vllm", "google/gemma-3-27b-it", 49, 1, 50, 32768, 55, "nvidia-a100-80gb", 1),
    (GKE + "llm-serving-gemma/vllm/vllm-7b-kvcache/patch.yaml", 0, "vllm", "$(MODEL_ID)", 29, 1, 30, 1200, 32, None, 1),
    (GKE + "llm-serving-llama/vllm/vllm-llama4-maverick-17b-128e-instruct-fp8.yaml", 0, "vllm", "meta-llama/Llama-4-Maverick-17B-128E-Instruct-FP8", 54, 8, 55, 524288, 51, "nvidia-h100-80gb", 8),
    (GKE + "vllm-tpu/vllm-llama3-70b.yaml", 0, "vllm", "meta-llama/Llama-3.1-70B", 49, 8, 47, 4096, 48, "tpu-v6e-slice", 8),
    (GKE + "gke-ray/rayserve/llm/llama-3-8b/ray-service.yaml", 0, "vllm", "meta-llama/Meta-Llama-3-8B-Instruct", 36, 2, 37, None, None, "nvidia-l4", None),  # worker pool shared by replicas
    ("agents-x-project__PyVision-RL/verl_agents/slurm_scripts/run_serve_llm.sh", 0, "vllm", "/mnt/petrelfs/zhaoshitian/gveval_zhaoshitian/Qwen2.5-72B-Instruct", 2, 8, 6, 32768, 5, None, 8),
    ("ai-dynamo__dynamo/examples/backends/sglang/deploy/disagg-multinode.yaml", 0, "sglang", "Qwen/Qwen3-0.6B", 44, 8, 48, None, None, None, 8),
    ("ai-dynamo__dynamo/examples/backends/sglang/deploy/disagg-multinode.yaml", 1, "sglang", "Qwen/Qwen3-0.6B", 80, 8, 84, None, None, None, 8),
    ("ai-dynamo__dynamo/examples/backends/vllm/deploy/disagg_kvbm_tp2.yaml", 0, "vllm", "Qwen/Qwen3-8B", 119, 2, 127, 32000, 124, None, 2),
    ("ai-dynamo__dynamo/examples/backends/vllm/deploy/disagg_kvbm_tp2.yaml", 1, "vllm", "Qwen/Qwen3-8B", 163, 2, 175, 32000, 169, None, 2),
    ("awslabs__ai-on-eks/blueprints/inference/inference-charts/values-llama-4-scout-17b-lws-vllm-efa.yaml", 0, "vllm", "meta-llama/Llama-4-Scout-17B-16E-Instruct", 1, 4, 9, 1024, 5, "g6.24xlarge", 8),
    ("dagnaputra__nlp/scripts/serve_7b_model.sh", 0, "vllm", "Qwen/Qwen2.5-7B-Instruct", 6, None, None, 1024, 6, None, None),
    ("Hiroaki-Masuzawa__llm_vlm_memo/individual_shells/run_qwen2.5-3b.sh", 0, "vllm", "Qwen/Qwen2.5-VL-3B-Instruct", 11, None, None, 87360, 11, None, None),
    ("kserve__kserve/docs/samples/fluid/kserve-isvc.yaml", 0, "vllm", "s3://${bucket}/models/meta-llama--Meta-Llama-3.1-8B-Instruct", 22, 1, 19, 1024, 18, "g5.8xlarge", 1),
    ("kserve__kserve/docs/samples/llmisvc/agentic-tool-calling/nemotron-3-ultra-pd.yaml", 0, "vllm", "hf://RedHatAI/NVIDIA-Nemotron-3-Ultra-550B-A55B-FP8-block", 12, 8, 39, None, None, None, 8),
    ("kserve__kserve/docs/samples/llmisvc/single-node-gpu/llm-inference-service-pd-qwen2-7b-gpu.yaml", 1, "vllm", "hf://Qwen/Qwen2.5-7B-Instruct", 12, None, None, None, None, None, 1),
    ("kserve__kserve/config/runtimes/kserve-vllmserver.yaml", 0, "vllm", "/mnt/models", 29, None, None, None, None, None, None),
    ("kubernetes-sigs__lws/docs/examples/sglang/lws.yaml", 0, "sglang", "meta-llama/Meta-Llama-3.1-8B-Instruct", 26, 2, 28, None, None, None, 2),
    ("kubernetes-sigs__lws/docs/examples/vllm/GPU/lws.yaml", 0, "vllm", "meta-llama/Llama-3.1-405B-Instruct", 25, 8, 25, None, None, None, 16),
    ("kubernetes-sigs__lws/docs/examples/vllm/TPU/lws.yaml", 0, "vllm", "meta-llama/Llama-3.3-70B-Instruct", 33, 16, 33, None, None, "tpu-v5-lite-podslice", 16),
    ("lesliegaga__reflexion/zjy_test/serve_vllm_qwen.sh", 0, "vllm", "/mnt/tongyan.zjy/openlm/model/Qwen2.5-72B-Instruct-GPTQ-Int4", 5, 2, 4, 8000, 7, None, 2),
    ("llm-d__llm-d/guides/agentic-serving/modelserver/gpu/vllm/nemotron-3-super/patch-vllm.yaml", 0, "vllm", "nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-FP8", 13, 4, 15, 262144, 16, None, 4),
    ("llm-d__llm-d/guides/inference-scheduling/ms-inference-scheduling/values.yaml", 0, "vllm", "hf://Qwen/Qwen3-32B", 12, 2, 34, None, None, None, 2),
    ("llm-d__llm-d/guides/inference-scheduling/ms-inference-scheduling/values-hpu.yaml", 0, "vllm", "hf://Qwen/Qwen3-8B", 26, None, None, 2048, 63, "intel-gaudi", 1),  # accelerator.type: the device, not a GPU
    ("llm-d__llm-d/guides/wide-ep-lws/manifests/modelserver/base/decode.yaml", 0, "vllm", "deepseek-ai/DeepSeek-R1-0528", 75, 1, 81, None, None, None, 16),
    ("raunak-sood2003__pragmatic-code-generation/vLLM/codellama13b_vllm_server.sh", 0, "vllm", "codellama/CodeLlama-13b-hf", 9, 1, 9, None, None, "A6000", 1),
    ("ray-project__kuberay/ray-operator/config/samples/ray-service.llm-serve.yaml", 0, "vllm", "Qwen/Qwen2.5-7B-Instruct", 15, None, None, 1024, 18, None, None),  # 4-GPU worker pool shared by up to 4 replicas
    ("runpod-workers__worker-vllm/configs/gpt-oss/gpt_oss_120b.yaml", 0, "vllm", "openai/gpt-oss-120b", 1, None, None, 8192, 3, None, None),
    ("runpod-workers__worker-vllm/configs/qwen/qwen3_8b.yaml", 0, "vllm", "Qwen/Qwen3-8B", 1, None, None, 8192, 3, None, None),
    ("sgl-project__ome/config/runtimes/vllm/llama-3-1-405b-instruct-fp8-rt.yaml", 0, "vllm", "$(MODEL_PATH)", 53, 8, 61, 131072, 63, None, 8),
    ("sgl-project__sglang/docker/compose.yaml", 0, "sglang", "meta-llama/Meta-Llama-3.1-8B-Instruct", 16, None, None, None, None, None, 1),
    ("sgl-project__sglang/docker/k8s-sglang-distributed-sts.yaml", 0, "sglang", "/llm-folder", 34, 16, 36, None, None, None, 16),
    ("sgl-project__sglang/docker/k8s-sglang-service.yaml", 0, "sglang", "meta-llama/Meta-Llama-3.1-8B-Instruct", 35, None, None, None, None, None, 1),
    ("skypilot-org__skypilot/llm/deepseek-r1/deepseek-r1-671B.yaml", 0, "sglang", "deepseek-ai/DeepSeek-R1", 29, 16, 30, None, None, "H200", 16),
    ("skypilot-org__skypilot/llm/kimi-k2/kimi-k2.sky.yaml", 0, "vllm", "moonshotai/Kimi-K2-Instruct", 59, 8, 61, 32768, 63, "H100", 16),
    ("substratusai__kubeai/manifests/models/llama-3.1-405b-instruct-fp8-h100.yaml", 0, "vllm", "hf://neuralmagic/Meta-Llama-3.1-405B-Instruct-FP8", 8, 8, 14, 65536, 11, "nvidia-gpu-h100", 8),
    ("substratusai__kubeai/manifests/models/phi-4-bnb-4bit-l4.yaml", 0, "vllm", "hf://unsloth/phi-4-bnb-4bit", 8, None, None, 8192, 11, "nvidia-gpu-l4", 1),
    ("substratusai__kubeai/manifests/models/gemma-2b-it-tpu.yaml", 0, "vllm", "hf://google/gemma-2b-it", 8, None, None, None, None, "google-tpu-v5e-1x1", 1),
    ("vllm-project__aibrix/brixbench/benchmark/testdata/deployments/dynamo/qwen3-8b-round-robin-1p1d-tp2-vke.yaml", 0, "vllm", "/models/Qwen3-8B", 166, 2, 170, 1024, 168, None, 2),
    ("vllm-project__aibrix/samples/disaggregation/sglang/tp-1p1d.yaml", 0, "sglang", "/models/Qwen3-8B", 67, 2, 77, None, None, None, 2),
    ("vllm-project__aibrix/samples/heterogeneous/deepseek-coder-7b-v100-deployment.yaml", 0, "vllm", "/models/deepseek-coder-6.7b-instruct", 48, None, None, 10240, 53, "Tesla-V100", 1),  # node affinity gpu-name
    ("vllm-project__aibrix/samples/quickstart/model.yaml", 0, "vllm", "deepseek-ai/DeepSeek-R1-Distill-Llama-8B", 32, None, None, 12288, 37, None, 1),
    ("vllm-project__production-stack/tutorials/assets/values-02-basic-config.yaml", 0, "vllm", "meta-llama/Llama-3.1-8B-Instruct", 7, None, None, 4096, 21, None, 1),
    ("vllm-project__production-stack/tutorials/assets/values-25-v100-multi-gpu-tp4.yaml", 0, "vllm", "Qwen/Qwen2.5-14B-Instruct", 26, 4, 45, 8192, 46, None, 4),
    ("vllm-project__production-stack/helm/values.yaml", 0, "vllm", "mistralai/Mistral-7B-Instruct-v0.2", 51, 2, 146, 16384, 142, "nvidia.com/mig-4g.71gb", 1),
    ("vllm-project__vllm/examples/online_serving/disaggregated_prefill.sh", 1, "vllm", "meta-llama/Meta-Llama-3.1-8B-Instruct", 67, None, None, 100, 70, None, 1),
    ("vllm-project__vllm/examples/online_serving/chart-helm/values.yaml", 0, "vllm", "/data/", 11, None, None, None, None, None, 1),
    ("GoogleCloudPlatform__kubernetes-engine-samples/app-design-center/ai-inference/values.yaml", 0, "vllm", "google/gemma-7b-it", 27, 1, 46, 512, 49, "nvidia-l4", 1),
    ("InftyAI__llmaz/docs/examples/sglang/playground.yaml", 0, "sglang", "Qwen/Qwen2-0.5B-Instruct", 9, None, None, None, None, "t4", 1),
    ("InftyAI__llmaz/docs/examples/speculative-decoding/vllm/playground.yaml", 0, "vllm", "facebook/opt-6.7b", 9, None, None, None, None, "a10", 1),
    ("InftyAI__llmaz/chart/templates/backends/vllm.yaml", 1, "vllm", "{{`{{ .ModelPath }}`}}", 59, 1, 71, None, None, None, None),
    ("Tandemn-Labs__tandemn-tuna/tuna/templates/baseten_config.yaml.tpl", 0, "vllm", "{model}", 16, "{tp_size}", 20, "{max_model_len}", 19, None, None),
    ("kaito-project__kaito/examples/inference/kaito_workspace_custom_config.yaml", 0, "vllm", "deepseek-r1-distill-qwen-14b", 33, 2, 15, 131072, 14, "Standard_NC24ads_A100_v4", 1),
    ("kaito-project__kaito/examples/inference/kaito_workspace_llama-3.3_70b_instruct.yaml", 0, "vllm", "llama-3.3-70b-instruct", 34, 2, 28, 16384, 20, "Standard_NC48ads_A100_v4", 4),  # KAITO: TP = GPUs per VM
    ("runpod-workers__worker-vllm/.runpod/hub.json", 0, "vllm", "deepseek-ai/deepseek-r1-distill-llama-8b", 17, 1, 240, None, None, "ADA_80_PRO", 1),
    ("vllm-project__aibrix/samples/deepseek-r1/deepseek-r1-huggingface.yaml", 0, "vllm", "deepseek-ai/DeepSeek-R1", 96, 16, 96, None, None, None, 16),
    ("anyscale__examples/03_deploy_llama_3_8b/serve_llama_3_1_8b.py", 0, "vllm", "meta-llama/Llama-3.1-8B-Instruct", 9, None, None, 8192, 25, "L4", None),  # Ray Serve LLMConfig
    ("yandy__dockerapps/vllm/run.ps1", 0, "vllm", "deepseek-ai/DeepSeek-V3", 1, None, None, None, None, None, None),  # PowerShell, now walked
    ("zwycl__s3/generator_llms/host.sh", 0, "vllm", "Qwen/Qwen2.5-14B-Instruct-GPTQ-Int4", 4, 2, 7, 8192, 6, None, 2),
]
TP = ("tensor_parallel_size", "tp_size")
CONTEXT = ("max_model_len", "context_length")
# Files index.tsv marks as vllm/sglang that give no instance on purpose or need an adapter not
# written yet: KAITO's preset catalogue (30 presets, no launch), and a Helm template whose
# if/else branches both survive detemplating (its values file is what gets read).
NOT_YET = {
    "kaito-project__kaito/presets/workspace/models/supported_models.yaml",
    "vllm-project__production-stack/helm/templates/deployment-vllm-multi.yaml",
    # its command and args are whole `toYaml .Values.servingRuntime.*` blocks: the corpus holds the chart without
    # Chart.yaml, so helm_chart.chart_of does not resolve them against values.yaml (tests/launches/test_helm_chart.py
    # pins that), and its values.yaml (vllm_kserve adapter) already is this chart's one launch
    "redhat-ai-services__helm-charts/charts/vllm-kserve/templates/servingruntime.yaml",
}


def _setting(dep, names):
    for n in names:
        if n in dep.settings:
            return dep.settings[n]
    return None


@pytest.mark.parametrize("case", CASES, ids=[f"{c[0].rsplit('/', 1)[-1]}#{c[1]}" for c in CASES])
def test_corpus_expectation(shared_dir, case):
    path, idx, engine, model, model_line, tp, tp_line, ctx, ctx_line, gpu, gpu_count = case
    result = read_path(str(shared_dir / "corpus" / path))
    dep = result.deployments[idx]
    assert dep.engine == engine
    assert dep.model == model
    assert dep.model_span is not None and dep.model_span.line == model_line
    tp_s, ctx_s = _setting(dep, TP), _setting(dep, CONTEXT)
    assert (tp_s.value if tp_s else None) == tp
    assert (tp_s.span.line if tp_s else None) == tp_line
    assert (ctx_s.value if ctx_s else None) == ctx
    assert (ctx_s.span.line if ctx_s else None) == ctx_line
    assert dep.gpu == gpu
    assert dep.gpu_count == gpu_count


def _index(shared_dir):
    with open(shared_dir / "corpus" / "index.tsv", encoding="utf-8") as fh:
        return list(csv.DictReader(fh, delimiter="\t"))


def test_every_corpus_file_reads_without_error(shared_dir):
    """No exception for any file; only the merge-conflict file has an error-level KV001."""
    errors = {}
    for path, reason in iter_files([str(shared_dir / "corpus")]):
        assert reason is None, (path, reason)
        result = read_path(path)
        bad = [f.message for f in result.findings if str(f.severity) == "error"]
        if bad:
            errors[path.rsplit("corpus/", 1)[1]] = bad
    assert list(errors) == ["sgl-project__sglang/docker/k8s-sglang-distributed-sts.yaml"]


def test_engines_found_where_index_says(shared_dir):
    rows = _index(shared_dir)
    assert len(rows) == 124
    for row in rows:
        if row["engine"] not in ("vllm", "sglang") or row["path"] in NOT_YET:
            continue
        deps = read_path(str(shared_dir / "corpus" / row["path"])).deployments
        assert deps and all(d.engine == row["engine"] for d in deps), row["path"]


def test_engine_none_files_give_no_instances(shared_dir):
    for row in _index(shared_dir):
        if row["engine"] == "none":
            assert read_path(str(shared_dir / "corpus" / row["path"])).deployments == [], row["path"]


def test_image_tag_gives_engine_version(shared_dir):
    lws = read_path(str(shared_dir / "corpus" / "kubernetes-sigs__lws/docs/examples/vllm/GPU/lws.yaml")).deployments[0]
    assert lws.engine_version == "0.8.5" and lws.engine_version_span.line == 17
    sgl = read_path(str(shared_dir / "corpus" / "vllm-project__aibrix/samples/disaggregation/sglang/tp-1p1d.yaml")).deployments[0]
    assert sgl.engine_version == "0.4.9.post3"


def test_unresolved_values_are_kept_not_guessed(shared_dir):
    dep = read_path(str(shared_dir / "corpus" / "llm-d__llm-d/guides/wide-ep-lws/manifests/modelserver/base/decode.yaml")).deployments[0]
    # $((LWS_GROUP_SIZE * DP_SIZE_LOCAL)): LWS sets the group size to leaderWorkerTemplate.size (2), env gives 8
    assert dep.get("data_parallel_size") == 16 and dep.settings["data_parallel_size"].span.line == 82
    rank = dep.settings["data_parallel_start_rank"]
    assert rank.resolved is False and rank.value == "$START_RANK"
    assert any("START_RANK" in n and "line 66" in n for n in dep.notes)


def test_the_walk_reads_the_python_and_powershell_files(shared_dir):
    walked = {p.rsplit("corpus/", 1)[1] for p, why in iter_files([str(shared_dir / "corpus")]) if why is None}
    assert {"anyscale__examples/03_deploy_llama_3_8b/serve_llama_3_1_8b.py", "yandy__dockerapps/vllm/run.ps1"} <= walked


def test_template_note_exactly_for_helm_template_files(shared_dir):
    marked = {r["path"] for r in _index(shared_dir)
              if "[helm-template]" in r["notes"] or r["format"].startswith("helm template")}
    noted = set()
    for row in _index(shared_dir):
        findings = read_path(str(shared_dir / "corpus" / row["path"])).findings
        if any(str(f.severity) == "info" and "template" in f.message for f in findings):
            noted.add(row["path"])
    # a manifest whose Secret is written `hf_api_token: {{HF_TOKEN}}` (a placeholder its user fills): YAML would
    # compose it as a flow mapping, so it is read as the template it is, and said so
    filled = {"GoogleCloudPlatform__kubernetes-engine-samples/ai-ml/llm-serving-llama/vllm/"
              "vllm-llama4-maverick-17b-128e-instruct-fp8.yaml"}
    assert noted == marked | filled and len(marked) == 5


def test_helm_template_is_one_info_finding(shared_dir):
    result = read_path(str(shared_dir / "corpus" / "GoogleCloudPlatform__kubernetes-engine-samples/app-design-center/ai-inference/templates/deployment.yaml"))
    kv001 = [f for f in result.findings if f.code == "KV001"]
    assert len(kv001) == 1 and str(kv001[0].severity) == "info"
    dep = result.deployments[0]
    assert dep.model == "{{ .Values.model.id }}" and dep.model_resolved is False
    assert dep.settings["max_model_len"].resolved is False


def test_castai_child_charts_are_launches_whose_model_the_install_names(shared_dir):
    """castai's child charts leave `model.name` empty (set at install): the launch is there, its model a
    placeholder naming the key, and the chart's camelCase keys are its settings (each at its own line)."""
    base = shared_dir / "corpus" / "castai__helm-charts/charts/castai-hosted-model/child-charts"
    (vllm,) = read_path(str(base / "vllm" / "values.yaml")).deployments
    assert (vllm.engine, vllm.model, vllm.model_resolved, vllm.model_span.line) == ("vllm", "<model_name>", False, 35)
    assert vllm.engine_version == "0.11.2"
    got = {n: (vllm.settings[n].value, vllm.settings[n].span.line) for n in
           ("enable_chunked_prefill", "max_num_batched_tokens", "dtype", "kv_cache_dtype", "max_lora_rank")}
    assert got == {"enable_chunked_prefill": (True, 108), "max_num_batched_tokens": (10000, 109), "dtype": ("half", 111),
                   "kv_cache_dtype": ("auto", 112), "max_lora_rank": (128, 113)}
    (sgl,) = read_path(str(base / "sglang" / "values.yaml")).deployments
    assert (sgl.engine, sgl.model, sgl.model_span.line, sgl.engine_version) == ("sglang", "<model_name>", 22, "0.5.13")
    assert "tp_size" not in sgl.settings  # `tensorParallelSize:` left empty: the engine's default


def test_dynamo_wrapper_flags_are_not_engine_unknowns(shared_dir):
    path = "vllm-project__aibrix/brixbench/benchmark/testdata/deployments/dynamo/qwen3-8b-round-robin-1p1d-tp2-vke.yaml"
    dep = read_path(str(shared_dir / "corpus" / path)).deployments[0]
    assert dep.unknown_flags == ()
    assert any("--disaggregation-mode" in n and "dynamo.vllm" in n for n in dep.notes)
    assert dep.gpu_count_span.line == 128  # the pod's GPU request, not CUDA_VISIBLE_DEVICES from env
