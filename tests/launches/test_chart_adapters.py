"""Chart adapters and the unknown-chart walk on fixtures we wrote in the real charts' layouts:
nm-vllm, redhat vllm-kserve, production-stack's VLLMRuntime CRD, AIBrix deployment templates,
Ray Serve LLM config files, and values of charts kvlint has no adapter for (a launch or KV008)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kvlint.launches import read_path
from kvlint.launches.facts import oci_alias

FIX = Path(__file__).resolve().parent.parent / "fixtures" / "launches" / "charts"


def _deps(name: str):
    result = read_path(str(FIX / name))
    assert [f for f in result.findings if f.code != "KV008"] == []
    return result.deployments


def _s(dep, name):
    s = dep.settings[name]
    return (s.value, s.span.line, s.span.col)


def test_nm_vllm_model_name_and_extra_args():
    (d,) = _deps("nm-vllm-values.yaml")
    assert (d.engine, d.model, d.model_span.line, d.model_span.col) == ("vllm", "example-org/demo-7b-gptq", 12, 3)
    assert _s(d, "dtype") == ("float16", 5, 7) and _s(d, "max_model_len") == (8192, 7, 7)
    assert (d.gpu, d.gpu_count, d.gpu_count_span.line) == ("nvidia-l4", 1, 16)
    assert d.engine_version is None  # nm-vllm's own release number, not a vLLM version


def test_vllm_kserve_split_keys_are_one_launch_with_the_model_car():
    (d,) = _deps("vllm-kserve-values.yaml")
    assert d.model == "oci://quay.io/example-org/modelcar-catalog:granite-3.3-8b-instruct"
    assert (d.model_span.line, d.model_span.col) == (12, 8)
    assert _s(d, "max_model_len") == (16384, 9, 7) and d.settings["max_model_len"].origin == "chart"
    assert d.get("gpu_memory_utilization") == 0.9 and d.get("port") == 8080
    assert [(a.name, a.how) for a in d.model_aliases] == [
        ("ibm-granite/granite-3.3-8b-instruct", "download-repo"), ("granite-3.3-8b-instruct", "oci-tag")]
    assert (d.gpu, d.gpu_count) == ("NVIDIA-L40S", 1)
    assert d.declared_load is None  # RawDeployment scaling on cpu is not concurrency


def test_vllm_kserve_multinode_spreads_tp_over_pp_pods():
    (d,) = _deps("vllm-kserve-multinode.yaml")
    assert _s(d, "tensor_parallel_size") == (4, 8, 23) and _s(d, "pipeline_parallel_size") == (2, 7, 25)
    assert d.gpu_count == 8 and any("4 per pod" in n for n in d.notes)
    assert [(a.name, a.how) for a in d.model_aliases] == [("llama-3-1-70b-instruct", "oci-image")]


def test_vllmruntime_crd_and_its_pd_topology():
    single, prefill, decode = _deps("vllmruntime.yaml")
    assert (single.name, single.model, single.model_span.line) == ("llama-runtime", "example-org/demo-8b", 8)
    assert _s(single, "enable_lora") == (True, 9, 5) and _s(single, "max_num_seqs") == (32, 12, 17)
    assert _s(single, "enable_chunked_prefill") == (False, 16, 5)  # false becomes --no-enable-chunked-prefill
    assert _s(single, "tensor_parallel_size") == (2, 17, 25) and _s(single, "max_num_batched_tokens") == (8192, 19, 71)
    assert single.gpu_count == 2 and single.gpu is None  # nvidia.com/gpu names no product
    assert (single.declared_load.value, single.declared_load.source) == (12, "requestsRunningThreshold")
    assert [d.name for d in (prefill, decode)] == ["pd-runtime/prefill", "pd-runtime/decode"]
    assert (decode.get("tensor_parallel_size"), decode.gpu_count, decode.engine_version) == (2, 2, "0.9.1")


def test_aibrix_templates_in_a_configmap():
    prod, dev = _deps("aibrix-templates.yaml")  # the `mock` engine template starts no engine
    assert (prod.name, prod.model, prod.model_span.line) == ("demo-70b-prod/v1.0.0", "s3://models/demo-70b-instruct/", 19)
    assert _s(prod, "tensor_parallel_size") == (4, 25, 15) and _s(prod, "quantization") == ("fp8", 32, 19)
    assert _s(prod, "kv_cache_dtype") == ("fp8_e4m3", 33, 21) and _s(prod, "max_num_seqs") == (256, 28, 25)
    assert (prod.gpu, prod.gpu_count, prod.engine_version) == ("H100-SXM", 4, "0.8.5")
    assert dev.get("dtype") == "bfloat16" and dev.get("max_model_len") == 8192 and dev.gpu == "L40S"


def test_aibrix_templates_as_a_bare_list(tmp_path):
    p = tmp_path / "templates.yaml"
    p.write_text("- name: t\n  spec:\n    engine: {type: sglang, image: lmsysorg/sglang:v0.4.6}\n"
                 "    model_source: {uri: org/m}\n    parallelism: {tp: 2}\n    engine_args: {context_length: 4096}\n")
    (d,) = read_path(str(p)).deployments
    assert (d.engine, d.model, d.get("tp_size"), d.get("context_length")) == ("sglang", "org/m", 2, 4096)


def test_ray_serve_config_file_and_single_llm_config(tmp_path):
    p = tmp_path / "serve_config.yaml"
    p.write_text("applications:\n- name: llm_app\n  import_path: ray.serve.llm:build_openai_app\n  args:\n    llm_configs:\n"
                 "      - model_loading_config: {model_id: qwen, model_source: Qwen/Qwen2.5-7B-Instruct}\n"
                 "        accelerator_type: L4\n        engine_kwargs: {max_model_len: 8192, tensor_parallel_size: 2}\n"
                 "        deployment_config: {max_ongoing_requests: 64, autoscaling_config: {target_ongoing_requests: 16}}\n"
                 "      - models/other.yaml\n")
    (d,) = read_path(str(p)).deployments
    assert (d.name, d.model, d.gpu, d.gpu_span.line) == ("qwen", "Qwen/Qwen2.5-7B-Instruct", "L4", 7)
    assert d.get("max_model_len") == 8192 and d.get("tensor_parallel_size") == 2
    assert (d.declared_load.value, d.declared_load.source, d.declared_load.span.line) == (64, "max_ongoing_requests", 9)
    q = tmp_path / "other.yaml"
    q.write_text("model_loading_config:\n  model_id: m\n  model_source:\n    bucket_uri: s3://bucket/Qwen2.5-1.5B\n"
                 "accelerator_type: A10G\ndeployment_config:\n  autoscaling_config: {target_ongoing_requests: 8}\n")
    (d,) = read_path(str(q)).deployments
    assert (d.model, d.gpu, d.declared_load.value) == ("s3://bucket/Qwen2.5-1.5B", "A10G", 8)


def test_unknown_chart_with_a_model_key_is_a_launch():
    (d,) = _deps("unknown-chart-values.yaml")
    assert (d.model, d.model_span.line, d.model_span.col, d.engine_version) == ("example-org/demo-8b", 6, 9, "0.9.1")
    assert _s(d, "max_num_batched_tokens") == (8192, 8, 22) and _s(d, "kv_cache_dtype") == ("fp8", 10, 15)
    assert _s(d, "max_model_len") == (16384, 13, 5) and d.gpu_count == 1
    assert any("chart not recognised: launch assembled from model.name" in n for n in d.notes)
    assert [(lb.key, lb.value) for lb in d.node_labels] == [("karpenter.sh/nodepool", "l40s")]


def test_unknown_chart_nested_engine_section_prefers_the_model_key():
    (d,) = _deps("unknown-chart-sglang.yaml")
    assert (d.engine, d.model, d.model_span.line, d.engine_version) == ("sglang", "example-org/demo-1b", 3, "0.4.6.post1")
    assert _s(d, "context_length") == (4096, 4, 30) and _s(d, "mem_fraction_static") == (0.85, 4, 63)


def test_unknown_chart_without_a_model_is_never_silent():
    result = read_path(str(FIX / "unknown-chart-no-model.yaml"))
    assert result.deployments == []
    (f,) = result.findings
    assert (f.code, str(f.severity), f.span.line, f.span.col) == ("KV008", "info", 4, 15)
    assert "engine image found, chart layout unknown" in f.message and "vllm/vllm-openai:v0.9.1" in f.message


def test_unknown_chart_image_map_of_its_own_spelling_names_the_engine(tmp_path):
    """Sample K63 (measured: KV008 "layout unknown"): `service.image.version: "vllm/vllm-openai:v0.6.4"` beside
    `pullPolicy:`: a map of the chart's own keys whose value is the whole image; with `llm.model` it is the launch.
    A map value that is no engine image (`version: "1.2"`) names none."""
    p = tmp_path / "values.yaml"
    p.write_text("service:\n  image:\n    version: \"vllm/vllm-openai:v0.6.4\"\n    pullPolicy: IfNotPresent\n"
                 "llm:\n  model: microsoft/Phi-3-mini-4k-instruct\n")
    (d,) = read_path(str(p)).deployments
    assert (d.engine, d.engine_version, d.model, d.model_span.line, d.model_span.col) == \
        ("vllm", "0.6.4", "microsoft/Phi-3-mini-4k-instruct", 6, 10)
    p.write_text("service:\n  image:\n    version: \"1.2\"\nllm:\n  model: microsoft/Phi-3-mini-4k-instruct\n")
    assert read_path(str(p)).deployments == []


def test_unknown_chart_images_under_keys_of_its_own_naming(tmp_path):
    """Sample K131 (measured: one missed, two silent): `images: {vllmRuntime: {repository: .../vllm-cpu-openai-ubi9,
    tag: "0.3"}}` beside `model: {name: tinyllama, maxModelLen: 2048}`, and `defaultServingImage: .../rhaiis/vllm-cuda-
    rhel9:3.3.0` beside a `models:` catalogue whose entries each hold `name:`, `uri:` and their own `extraArgs:` (one
    engine flag is enough for an entry of the same catalogue): each is the launch; a `routerImage:` names no engine."""
    p = tmp_path / "values.yaml"
    p.write_text("images:\n  vllmRuntime:\n    repository: quay.io/org/vllm-cpu-openai-ubi9\n    tag: '0.3'\n"
                 "model:\n  storageUri: oci://quay.io/org/tinyllama:1.0\n  name: tinyllama\n  maxModelLen: 2048\n")
    (d,) = read_path(str(p)).deployments
    assert (d.engine, d.model, d.get("max_model_len")) == ("vllm", "tinyllama", 2048)
    p.write_text("defaultServingImage: registry.redhat.io/rhaiis/vllm-cuda-rhel9:3.3.0\nmodels:\n"
                 "  - name: gpt-oss-20b\n    uri: oci://registry.redhat.io/rhelai1/modelcar-gpt-oss-20b:1.5\n"
                 "    extraArgs: [--enable-force-include-usage]\n"
                 "  - name: nemotron-nano\n    uri: oci://quay.io/org/models:nemotron\n"
                 "    extraArgs: [--max-model-len=131072, --enable-auto-tool-choice, --tool-call-parser=qwen3_coder]\n")
    assert [(d.model, d.model_span.line) for d in read_path(str(p)).deployments] == \
        [("gpt-oss-20b", 3), ("nemotron-nano", 6)]
    p.write_text("routerImage: org/sglang-pd-router:v1\nmodelName: glm\n")
    assert read_path(str(p)).deployments == []


def test_a_values_files_image_maps_are_no_containers(tmp_path):
    """Sample K131 (measured: two spurious launches of the image's default model): `deviceConfigs: {cpu: {image:
    .../vllm-cpu-rhel9:3.4.0, env: [...]}}`, the images a chart picks from; a document with no `kind` is no object,
    so its maps are settings the template places, not containers run as written."""
    p = tmp_path / "values.yaml"
    p.write_text("deviceConfigs:\n  cpu:\n    image: registry.redhat.io/rhaii/vllm-cpu-rhel9:3.4.0\n    env:\n"
                 "      - name: VLLM_CPU_KVCACHE_SPACE\n        value: '16'\n")
    assert read_path(str(p)).deployments == []


def test_role_argument_lists_beside_an_engine_image_are_one_launch_each(tmp_path):
    """`workerImage:` (an SGLang build) beside `prefillExtraArgs:` / `decodeExtraArgs:` and `workerCommonArgs:` with the
    model: one launch per role, on that image (sample K89's values read before an image key ending in `Image` was)."""
    p = tmp_path / "values.yaml"
    p.write_text("decodeExtraArgs: --mem-fraction-static 0.85 --disaggregation-mode decode\nmodelName: glm\n"
                 "prefillExtraArgs: --mem-fraction-static 0.9 --disaggregation-mode prefill\n"
                 "workerCommonArgs: --model-path /data/model/glm --tp-size 8 --context-length 65536\n"
                 "workerImage: mirrors.example.com/org/sglang-glm:v3\n")
    got = [(d.engine, d.model, d.get("mem_fraction_static"), d.image) for d in read_path(str(p)).deployments]
    assert got == [("sglang", "/data/model/glm", 0.85, "mirrors.example.com/org/sglang-glm:v3"),
                   ("sglang", "/data/model/glm", 0.9, "mirrors.example.com/org/sglang-glm:v3")]


def test_an_operator_object_naming_its_engine_and_model_is_a_launch(tmp_path):
    """Sample K64 (measured: silent): an operator's `AIDeployment` with `engine: {name: vllm}` and `models: [{uri:
    M}]`, no engine settings: the operator starts vLLM on M. An object whose engine key names no engine, or that
    names no model, is none."""
    p = tmp_path / "vllm.yaml"
    body = ("apiVersion: premlabs.io/v1alpha1\nkind: AIDeployment\nmetadata:\n  name: v\nspec:\n  engine:\n"
            "    name: {engine}\n  models:\n    - uri: \"mistralai/Mistral-7B-v0.1\"\n")
    p.write_text(body.format(engine='"vllm"'))
    (d,) = read_path(str(p)).deployments
    assert (d.engine, d.model, d.model_span.line, d.model_span.col) == ("vllm", "mistralai/Mistral-7B-v0.1", 9, 12)
    assert any("its operator starts the engine" in n for n in d.notes)
    p.write_text(body.format(engine="localai"))
    assert read_path(str(p)).deployments == []
    p.write_text(body.format(engine="sglang").replace("  models:\n    - uri: \"mistralai/Mistral-7B-v0.1\"\n", ""))
    assert read_path(str(p)).deployments == []


def test_values_without_an_engine_image_stay_quiet(tmp_path):
    p = tmp_path / "values.yaml"
    p.write_text("image:\n  repository: nginx\n  tag: '1.27'\nreplicaCount: 2\n")
    result = read_path(str(p))
    assert result.deployments == [] and result.findings == []


def test_values_of_a_chart_folder_named_for_the_engine_are_its_settings(tmp_path):
    """Sample K42's `helm/vllm/values.yaml` (measured: KV008, no launch): no image in the values (the chart's template
    holds it), but the chart folder is named for vLLM: `model.name` with the flag keys beside it is the launch.
    The same values in a folder named for something else stay what they were."""
    values = ('model:\n  name: "org/chart-model"\n  dtype: auto\n  maxModelLen: 4096\n'
              'resources:\n  limits:\n    nvidia.com/gpu: 1\n')
    (tmp_path / "helm" / "vllm").mkdir(parents=True)
    (tmp_path / "helm" / "webui").mkdir(parents=True)
    named, other = tmp_path / "helm" / "vllm" / "values.yaml", tmp_path / "helm" / "webui" / "values.yaml"
    named.write_text(values)
    other.write_text(values)
    (d,) = read_path(str(named)).deployments
    assert (d.engine, d.model, d.model_span.line, d.get("max_model_len"), d.gpu_count) == \
        ("vllm", "org/chart-model", 2, 4096, 1)
    assert read_path(str(other)).deployments == []


def test_a_model_beside_a_gpu_request_in_values_of_a_chart_named_for_the_engine_is_its_launch(tmp_path):
    """Sample K250's `k8s/apps/vllm/values.yaml` (measured: silent): `image.repository: <default>`, `model.id` and
    `dtype`, and `nvidia.com/gpu: 1`, the flags all in the chart's template: the model on GPUs is the launch. Without
    the GPU request the values say too little."""
    values = ('image:\n  repository: <default>\nmodel:\n  id: "org/chart-model"\n  dtype: "float16"\n'
              'resources:\n  limits:\n    nvidia.com/gpu: 1\n')
    (tmp_path / "apps" / "vllm").mkdir(parents=True)
    p = tmp_path / "apps" / "vllm" / "values.yaml"
    p.write_text(values)
    (d,) = read_path(str(p)).deployments
    assert (d.engine, d.model, d.model_span.line, d.gpu_count) == ("vllm", "org/chart-model", 4, 1)
    p.write_text(values.split("resources:")[0])
    assert read_path(str(p)).deployments == []


@pytest.mark.parametrize("uri, alias", [
    ("oci://quay.io/org/modelcar-catalog:granite-3.3-2b-instruct", ("granite-3.3-2b-instruct", "oci-tag")),
    ("oci://registry.example.com/org/modelcar-granite-7b-lab:1.4", ("granite-7b-lab", "oci-image")),
    ("oci://registry.example.com/org/modelcar-granite-7b-lab@sha256:abc", ("granite-7b-lab", "oci-image")),
    ("oci://registry.example.com/org/runtime:latest", None),
    ("s3://bucket/model", None),
])
def test_oci_model_car_names(uri, alias):
    assert oci_alias(uri) == alias


def test_unknown_chart_with_env_style_model_key_and_image_named_after_the_engine():
    (d,) = _deps("unknown-chart-env-style.yaml")
    assert (d.engine, d.model, d.model_span.line, d.model_span.col) == ("vllm", "example-org/demo-7b", 7, 15)
    assert _s(d, "max_model_len") == (4096, 6, 73) and d.get("enforce_eager") is True


def test_each_chart_adapter_accepts_only_maps_holding_one_of_its_keys():
    """helm._claims asks a subchart walk's map for any adapter's KEYS before any matches(): exact only if no
    adapter accepts a map without one of its own KEYS. Every map of every YAML fixture and example."""
    from kvlint.launches.charts import adapters
    from kvlint.sources.yaml import parse_yaml

    charts = [a for a in adapters() if not a.__name__.endswith(".generic")]
    assert all(a.KEYS and all(isinstance(k, str) for k in a.KEYS) for a in charts)
    root = FIX.parents[2].parent
    files = sorted({*root.glob("tests/fixtures/**/*.yaml"), *root.glob("examples/**/*.yaml")})
    accepted = 0
    for path in files:
        text = path.read_text(errors="replace")
        stack = list(parse_yaml(str(path), text).docs)
        while stack:
            node = stack.pop()
            if node.is_map:
                for chart in charts:
                    if chart.matches(node):
                        accepted += 1
                        assert node.has_any(chart.KEYS), (path, chart.__name__)
                stack.extend(v for _, _, v in node.pairs())
            elif node.is_seq:
                stack.extend(node.items)
    assert accepted >= 8  # the fixtures hold every chart's layout


def test_llmd_deployer_sample_application_roles_with_replicas():
    """llm-d's deployer chart: one vLLM launch per role left running (prefill replicas 0: none), its args from
    the role's extraArgs, its GPUs from the sample application's resources."""
    (d,) = _deps("llmd-deployer-values.yaml")
    assert (d.engine, d.model, d.model_span.line, d.model_span.col) == ("vllm", "hf://example-org/demo-8b-instruct", 6, 23)
    assert _s(d, "tensor_parallel_size") == (2, 17, 9)
    assert _s(d, "max_model_len") == (16384, 19, 9)
    assert (d.gpu_count, d.gpu_count_span.line) == (2, 10)


def test_llmd_deployer_simulator_preset_is_no_launch():
    assert _deps("llmd-deployer-sim.yaml") == []


def test_llmd_modelservice_custom_command_is_the_containers_own_launch():
    """Sample K84: a modelservice role's container with `modelCommand: custom` runs the command and args it
    gives (here SGLang's server), not `vllm serve` of modelArtifacts; a role not created launches nothing."""
    (d,) = _deps("llmd-custom-command.yaml")
    assert (d.engine, d.model, d.model_span.line) == ("sglang", "example-org/demo-0.5b-instruct", 19)
    assert _s(d, "mem_fraction_static") == (0.2, 21, 11)
    assert (d.engine_version, d.gpu_count, d.gpu_count_span.line) == ("0.5.6.post2", 1, 24)


def test_an_unknown_charts_flag_strings_make_one_launch_per_disaggregation_role():
    """Sample K89's P/D values (silent): `workerCommonArgs` (the model and the common flags, one string) with
    `prefillExtraArgs` and `decodeExtraArgs` spliced by the template: SGLang by its flags, one launch per role."""
    decode, prefill = sorted(_deps("pd-flag-strings-values.yaml"), key=lambda d: d.get("disaggregation_mode"))
    assert [d.get("disaggregation_mode") for d in (decode, prefill)] == ["decode", "prefill"]
    assert {d.engine for d in (prefill, decode)} == {"sglang"} and prefill.model == "org/pd-demo"
    assert (prefill.get("mem_fraction_static"), decode.get("mem_fraction_static"), decode.get("tp_size")) == \
        (0.90, 0.85, 8)
    assert (prefill.launch_span.line, decode.launch_span.line) == (7, 4)


def test_an_umbrella_charts_engine_subchart_switched_on_with_its_model_is_a_launch(tmp_path):
    """Sample K95's OPEA values (silent): `vllm: {enabled: true, LLM_MODEL_ID: M}` with no GPU request in the
    file is the subchart's launch of M; switched off, or with no model named, it is not."""
    (d,) = _deps("umbrella-engine-subchart.yaml")
    assert (d.engine, d.model, d.model_span.line) == ("vllm", "org/umbrella-model", 12)
    off = (FIX / "umbrella-engine-subchart.yaml").read_text().replace("vllm:\n  enabled: true", "vllm:\n  enabled: false")
    (tmp_path / "values.yaml").write_text(off)
    assert read_path(str(tmp_path / "values.yaml")).deployments == []


def test_a_catalogue_entry_switched_off_is_audited_not_deployed(tmp_path):
    """Sample K97 (measured: two launches counted where the chart renders none): a values catalogue of unknown
    chart whose entries carry `args:` and `resources:` (read as containers handed flags) and `enabled: false` is a
    list of examples; an entry enabled, or saying nothing, is deployed."""
    p = tmp_path / "values.yaml"
    p.write_text("models:\n  small:\n    id: org/small\n    enabled: false\n    resources:\n      limits:\n"
                 "        nvidia.com/gpu: \"1\"\n    args:\n      - --max-model-len\n      - \"14336\"\n"
                 "      - --gpu-memory-utilization\n      - \"0.9\"\n"
                 "  big:\n    id: org/big\n    enabled: true\n    resources:\n      limits:\n"
                 "        nvidia.com/gpu: \"4\"\n    args:\n      - --tensor-parallel-size\n      - \"4\"\n"
                 "      - --max-model-len\n      - \"8192\"\n")
    deps = read_path(str(p)).deployments
    assert [(d.get("max_model_len"), d.disabled is not None) for d in deps] == [(14336, True), (8192, False)]
    assert deps[0].disabled is not None and deps[0].disabled.line == 4


def test_an_unknown_charts_values_with_no_gpu_count_and_no_tp_leave_tp_to_the_template(tmp_path):
    """Sample K118 (measured: a KV108 error, "no GPU can start Llama-3.1-405B-FP8 at TP 1"): an unknown chart's
    values name the model and the vLLM image but neither GPUs nor TP: the template sets both, so TP is open, never
    1; one GPU stated is TP 1."""
    from kvlint.launches import read_path

    p = tmp_path / "values.yaml"
    body = ("servedModel: meta-llama/Llama-3.1-405B-Instruct-FP8\nimage:\n  vllmURI: vllm/vllm-openai\n"
            "  vllmTag: v0.6.2\n{resources}")
    p.write_text(body.format(resources="resources: {}\n"))
    (dep,) = read_path(str(p)).deployments
    assert dep.settings["tensor_parallel_size"].resolved is False
    p.write_text(body.format(resources="resources:\n  limits:\n    nvidia.com/gpu: 1\n"))
    (dep,) = read_path(str(p)).deployments
    assert "tensor_parallel_size" not in dep.settings and dep.gpu_count == 1


def test_a_kserve_inference_service_whose_model_format_is_vllm_is_a_launch(tmp_path):
    """Sample K121 (passed over in silence): an InferenceService whose predictor's `modelFormat: {name: vLLM}` and
    `runtime: vllm` name the engine, with one flag in `args` (too few to tell the engine by) and GPUs, its
    ServingRuntime installed apart: one vLLM launch of its storageUri (an OCI model car named by its tag); another
    model format is none."""
    from kvlint.launches import read_path

    p = tmp_path / "isvc.yaml"
    p.write_text("apiVersion: serving.kserve.io/v1beta1\nkind: InferenceService\nmetadata:\n  name: vllm\nspec:\n"
                 "  predictor:\n    model:\n      args:\n      - --tensor-parallel-size=2\n      modelFormat:\n"
                 "        name: vLLM\n      resources:\n        limits:\n          nvidia.com/gpu: \"2\"\n"
                 "      runtime: vllm\n      storageUri: oci://quay.io/org/modelcar-catalog:granite-3.3-8b-instruct\n")
    (dep,) = read_path(str(p)).deployments
    assert (dep.engine, dep.model_span.line, dep.get("tensor_parallel_size"), dep.gpu_count) == ("vllm", 16, 2, 2)
    p.write_text(p.read_text().replace("name: vLLM", "name: sklearn").replace("runtime: vllm", "runtime: mlserver"))
    assert read_path(str(p)).deployments == []


def test_the_vllm_kserve_charts_overlay_that_keeps_its_runtime_is_read(tmp_path):
    """Sample K121 (passed over in silence): an overlay of redhat-ai-services' vllm-kserve chart sets
    `servingTopology: multiNode`, `multiNode` sizes and `model.uri`, keeping the chart's own vLLM runtime."""
    from kvlint.launches import read_path

    p = tmp_path / "values.yaml"
    p.write_text("servingTopology: multiNode\nmultiNode:\n  pipelineParallelSize: 2\n  tensorParallelSize: 1\n"
                 "model:\n  uri: oci://quay.io/org/modelcar-catalog:qwen2.5-7b-instruct\n")
    (dep,) = read_path(str(p)).deployments
    assert (dep.engine, dep.model_span.line, dep.get("pipeline_parallel_size"), dep.gpu_count) == ("vllm", 6, 2, 2)


def test_the_vllm_kserve_charts_values_of_a_model_source_alone_are_read(tmp_path):
    """Sample K125 (passed over in silence): a model catalogue's values for redhat-ai-services' vllm-kserve chart,
    `model: {mode: uri, uri: oci://...}` and its env only: the chart's vLLM runtime serves that model."""
    from kvlint.launches import read_path

    p = tmp_path / "values.yaml"
    p.write_text("model:\n  mode: uri\n  uri: oci://quay.io/org/modelcar-catalog:qwen2.5-7b-instruct\n  env:\n"
                 "    - name: X  # see docs.vllm.ai\n      value: '1'\n")
    (dep,) = read_path(str(p)).deployments
    assert (dep.engine, dep.model_span.line) == ("vllm", 3)
    p.write_text("model:\n  mode: s3\n  uri: oci://quay.io/org/x:y\n")  # another source named: not this shape
    assert read_path(str(p)).deployments == []


def test_an_operator_object_running_the_engines_image_on_a_model_is_a_launch(tmp_path):
    """Sample K217's `LLMService` (measured: a miss, a KV008): `spec.model: M` beside `spec.image:
    vllm/vllm-openai:latest` and `gpuCount: 1`, no engine key and no engine settings: its operator runs the engine's
    image on M. The same object running another image is none."""
    p = tmp_path / "llmservice.yaml"
    body = ("apiVersion: apps.example.dev/v1alpha1\nkind: LLMService\nmetadata:\n  name: s\nspec:\n"
            "  model: TinyLlama/TinyLlama-1.1B-Chat-v1.0\n  image: {image}\n  gpuCount: 1\n")
    p.write_text(body.format(image="vllm/vllm-openai:latest"))
    (d,) = read_path(str(p)).deployments
    assert (d.engine, d.model, d.model_span.line, d.image) == \
        ("vllm", "TinyLlama/TinyLlama-1.1B-Chat-v1.0", 6, "vllm/vllm-openai:latest")
    assert any("runs vllm's image" in n for n in d.notes)
    p.write_text(body.format(image="ghcr.io/org/server:1"))
    assert read_path(str(p)).deployments == []


def test_an_operator_objects_engine_block_listing_models_is_a_launch_each(tmp_path):
    """Sample K225's README (silent): an `LMDeployment` whose `spec.vllm` block is enabled and lists two models: its
    operator serves each with vLLM (a launch each, at its list item); the block switched off starts none."""
    p = tmp_path / "stack.yaml"
    body = ("apiVersion: llm.example.io/v1alpha1\nkind: LMDeployment\nmetadata:\n  name: s\nspec:\n  vllm:\n"
            "    enabled: {on}\n    models:\n      - \"org/a\"\n      - \"org/b\"\n  openwebui:\n    enabled: true\n")
    p.write_text(body.format(on="true"))
    got = [(d.engine, d.model, d.model_span.line) for d in read_path(str(p)).deployments]
    assert got == [("vllm", "org/a", 9), ("vllm", "org/b", 10)]
    p.write_text(body.format(on="false"))
    assert read_path(str(p)).deployments == []
