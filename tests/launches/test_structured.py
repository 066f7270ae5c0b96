"""Structured settings at any depth (kvlint.launches.structured), known charts under subchart keys, and the
values issue N lists as misread: each launch with its value positions (line, col) asserted."""

from __future__ import annotations

from pathlib import Path

import pytest

from kvlint.launches import read_path
from kvlint.launches.keys import option_for_key, spelled_as_flag

FIX = Path(__file__).resolve().parent.parent / "fixtures" / "launches" / "structured"


def _one(name: str):
    result = read_path(str(FIX / name))
    assert [f for f in result.findings if str(f.severity) == "error"] == []
    (dep,) = result.deployments
    return dep


def _s(dep, name):
    s = dep.settings[name]
    return (s.value, s.span.line, s.span.col)


@pytest.mark.parametrize("engine, key, option", [
    ("vllm", "maxModelLen", "--max-model-len"), ("vllm", "max_model_len", "--max-model-len"),
    ("vllm", "max-model-len", "--max-model-len"), ("vllm", "tensorParallelSize", "--tensor-parallel-size"),
    ("vllm", "tp", "-tp"), ("vllm", "gpuMemoryUtilization", "--gpu-memory-utilization"),
    ("sglang", "memFractionStatic", "--mem-fraction-static"), ("sglang", "tpSize", "--tp-size"),
    ("sglang", "tp", "--tp-size"), ("sglang", "dp", "--dp-size"),
    ("vllm", "contextLength", None), ("vllm", "replicaCount", None), ("vllm", "name", None),
])
def test_a_key_in_any_spelling_is_the_option_the_engine_table_names(engine, key, option):
    assert option_for_key(engine, key) == option


def test_bare_words_are_settings_but_never_evidence():
    assert spelled_as_flag("maxModelLen") and spelled_as_flag("max_model_len") and spelled_as_flag("tp")
    assert not spelled_as_flag("port") and not spelled_as_flag("dtype")


def test_unknown_chart_camel_case_under_a_key_is_read_not_defaulted():
    """Issue N: TP read as 1 and the length as the model's maximum gave a false "vLLM refuses to start"."""
    d = _one("unknown-structured.yaml")
    assert (d.engine, d.model, d.model_span.line, d.model_span.col) == ("vllm", "openai/gpt-oss-120b", 6, 14)
    assert _s(d, "tensor_parallel_size") == (4, 7, 23) and _s(d, "max_model_len") == (16384, 8, 16)
    assert _s(d, "gpu_memory_utilization") == (0.9, 9, 27)  # quoted "0.9" is a number to the engine
    assert d.gpu_count == 4


def test_settings_at_depth_through_anchor_and_merge_key():
    d = _one("deep-merge.yaml")
    assert (d.engine, d.model, d.model_span.line, d.model_span.col) == ("vllm", "Qwen/Qwen2.5-7B-Instruct", 9, 17)
    assert _s(d, "max_model_len") == (32768, 3, 18)  # the anchor's own line: where the value is written
    assert _s(d, "tensor_parallel_size") == (2, 4, 7)
    assert _s(d, "max_num_seqs") == (64, 10, 19) and _s(d, "gpu_memory_utilization") == (0.85, 11, 29)


def test_engine_named_by_a_key_value_takes_its_own_flags():
    d = _one("sglang-engine-key.yaml")
    assert (d.engine, d.model, d.model_span.line) == ("sglang", "Qwen/Qwen2.5-7B-Instruct", 4)
    assert _s(d, "context_length") == (8192, 5, 20) and _s(d, "mem_fraction_static") == (0.8, 6, 24)
    assert _s(d, "tp_size") == (2, 7, 13)


def test_a_role_s_engine_named_by_a_backend_key_takes_its_flags():
    """Sample K162's RLinf config: `rollout_backend: sglang` names the engine of the `server:` map below it (a
    Hydra `${..model_path}` its model); a value that only contains the engine's name names none."""
    text = ("model_path: org/rl\nrollout_backend: sglang\nlaunch_server: True\nserver:\n  model_path: ${..model_path}\n"
            "  tp_size: 2\n  mem_fraction_static: 0.85\n  max_running_requests: 64\n")
    (d,) = read_path("rl.yaml", text).deployments
    assert (d.engine, d.model, d.get("tp_size"), d.get("max_running_requests")) == ("sglang", "org/rl", 2, 64)
    other = text.replace("rollout_backend: sglang", "rollout_backend: sglang-router-v2")
    assert read_path("rl.yaml", other).deployments == []
    # sample K166's LLaMA-Factory config: the key names the engine of its own map's settings, an in-process engine
    factory = "model_name_or_path: org/lf\ntemplate: llama3\ninfer_backend: vllm\nvllm_enforce_eager: true\n"
    assert read_path("llama3_vllm.yaml", factory).deployments == []


def test_application_settings_without_an_engine_named_are_not_a_launch():
    assert read_path(str(FIX / "app-settings.yaml")).deployments == []


def test_production_stack_under_a_subchart_key_with_anchor_merge():
    d = _one("subchart-production-stack.yaml")
    assert (d.name, d.model, d.model_span.line, d.model_span.col) == ("llama", "meta-llama/Llama-3.1-8B-Instruct", 12, 19)
    assert _s(d, "max_model_len") == (8192, 4, 18) and _s(d, "tensor_parallel_size") == (2, 5, 25)
    assert (d.engine_version, d.gpu_count, d.gpu_count_span.line) == ("0.9.1", 2, 13)


def test_compose_trailing_empty_expansion_vanishes_as_in_the_shell():
    d = _one("compose-empty-extra-args.yaml")
    assert (d.model, d.model_resolved, d.model_span.line, d.model_span.col) == (
        "meta-llama/Llama-3.2-1B-Instruct", True, 5, 15)
    assert _s(d, "max_model_len") == (4096, 6, 23) and d.unknown_flags == ()


def test_kserve_hf_server_model_from_model_id_and_vllm_flags_after_its_own():
    d = _one("kserve-hf-runtime.yaml")
    assert (d.engine, d.model, d.model_span.line, d.model_span.col) == ("vllm", "Qwen/Qwen2.5-7B-Instruct", 15, 22)
    assert d.unknown_flags == ()  # --model_name, --model_id, --backend are KServe's, not vLLM unknowns
    assert _s(d, "tensor_parallel_size") == (2, 17, 34) and _s(d, "gpu_memory_utilization") == (0.85, 18, 36)
    assert _s(d, "max_model_len") == (16384, 19, 27) and d.gpu_count == 2
    assert any("KServe Hugging Face server" in n and "--backend=vllm" in n for n in d.notes)


def test_kserve_docs_text_generation_isvc_is_a_launch():
    """KServe's docs example gave "0 engine launches": modelFormat huggingface + --model_id, backend auto."""
    d = _one("kserve-hf-isvc.yaml")
    assert (d.model, d.model_span.line, d.model_span.col) == ("meta-llama/meta-llama-3-8b-instruct", 12, 22)
    assert _s(d, "max_model_len") == (8192, 13, 27) and d.unknown_flags == () and d.gpu_count == 1


def test_kserve_hf_server_on_the_transformers_backend_is_not_an_engine(shared_dir):
    path = shared_dir / "corpus" / "kserve__kserve/docs/samples/storage/hf/hf_isvc.yaml"  # --backend=huggingface
    assert read_path(str(path)).deployments == []


def test_kserve_hf_flags_raise_no_kv004(tmp_path):
    from kvlint.lint import LintOptions, lint

    result = lint([str(FIX / "kserve-hf-runtime.yaml"), str(FIX / "kserve-hf-isvc.yaml")], LintOptions())
    assert [f for f in result.findings if f.code == "KV004"] == []
    assert not any("--moe-backend" in (f.fix or "") + f.message for f in result.findings)


def test_camel_case_tp_and_length_give_no_false_refusal_on_h100():
    """gpt-oss-120b with TP 4 and 16k on H100 starts; read as TP 1 at the model's maximum it did not."""
    from kvlint.lint import LintOptions, lint

    result = lint([str(FIX / "unknown-structured.yaml")], LintOptions(gpu="H100"))
    assert [f for f in result.findings if f.severity >= 3] == []


# ---------------------------------------------------------------- one deployment, one launch


def _no_errors(name: str, gpu: str = "H100"):
    from kvlint.lint import LintOptions, lint

    result = lint([str(FIX / name)], LintOptions(gpu=gpu))
    return [f for f in result.findings if f.severity >= 3]


def test_llmaz_lws_leader_and_worker_are_one_launch_over_the_group():
    """Issue N: TP 2 over a 2-pod group of 1 GPU each gave KV204 "not enough GPUs", twice."""
    d = _one("llmaz-service-lws.yaml")
    assert (d.engine, d.model, d.gpu_count, d.gpu_count_span.line) == ("sglang", "Qwen/Qwen2.5-7B-Instruct", 2, 19)
    assert _s(d, "nnodes") == (2, 16, 33)  # --nnodes $(LWS_GROUP_SIZE): the group's size
    assert any("worker pods start the same engine" in n for n in d.notes)
    assert [f.code for f in _no_errors("llmaz-service-lws.yaml")] == []


def test_lws_size_left_to_the_tooling_is_unresolved_not_one():
    d = _one("lws-unresolved-size.yaml")
    assert d.gpu_count is None and d.settings["nnodes"].resolved is False
    assert any("gpu count unresolved: 1 per pod x LeaderWorkerSet size ${GROUP_SIZE}" in n for n in d.notes)
    assert [f.code for f in _no_errors("lws-unresolved-size.yaml")] == []


def test_production_stack_raycluster_head_and_workers_sum_their_gpus():
    d = _one("raycluster-pp.yaml")
    assert _s(d, "pipeline_parallel_size") == (2, 12, 29) and d.gpu_count == 2
    assert any("Ray cluster head 1 + 1 x 1" in n for n in d.notes)
    assert [f.code for f in _no_errors("raycluster-pp.yaml")] == []


def test_headless_data_parallel_worker_joins_its_leader():
    d = _one("dp-headless.yaml")
    assert (d.name, d.gpu_count) == ("dp-leader/vllm", 4)
    assert _s(d, "data_parallel_size") == (4, 12, 64) and d.get("headless") is not True
    assert any("--headless data-parallel worker at dp-worker/vllm line 28" in n for n in d.notes)


def test_corpus_lws_sglang_example_is_one_launch(shared_dir):
    deps = read_path(str(shared_dir / "corpus" / "kubernetes-sigs__lws/docs/examples/sglang/lws.yaml")).deployments
    assert [(d.name, d.gpu_count) for d in deps] == [("sglang/sglang-leader", 2)]


def test_an_engine_entrypoint_with_no_arguments_is_an_image_not_a_launch(tmp_path):
    """Issue L: an ENTRYPOINT with no arguments was reported as a launch with a KV002 warning."""
    assert read_path(str(FIX / "entrypoint-only.yaml")).deployments == []
    compose = tmp_path / "compose.yaml"
    compose.write_text("services:\n  vllm:\n    image: vllm/vllm-openai:v0.9.1\n"
                       "    entrypoint: [python3, -m, vllm.entrypoints.openai.api_server]\n")
    assert read_path(str(compose)).deployments == []
    compose.write_text("services:\n  vllm:\n    image: vllm/vllm-openai:v0.9.1\n"
                       "    entrypoint: [python3, -m, vllm.entrypoints.openai.api_server, --max-model-len, '4096']\n")
    assert len(read_path(str(compose)).deployments) == 1  # a flag: the launch is here (its model the default)


def test_model_map_and_settings_map_side_by_side():
    d = _one("sibling-settings.yaml")
    assert (d.model, d.model_span.line, d.model_span.col, d.engine_version) == ("Qwen/Qwen2.5-32B-Instruct", 3, 11, "0.10.0")
    assert _s(d, "tensor_parallel_size") == (2, 11, 23) and _s(d, "max_model_len") == (32768, 12, 16)
    assert _s(d, "reasoning_parser") == ("deepseek_r1", 15, 7) and "task" not in d.settings  # "" keeps the default
    assert d.gpu_count == 2


def test_json_settings_under_an_engine_key():
    d = _one("engine-settings.json")
    assert (d.engine, d.model, d.model_span.line, d.model_span.col) == ("vllm", "Qwen/Qwen2.5-7B-Instruct", 5, 16)
    assert _s(d, "max_model_len") == (16384, 6, 24) and _s(d, "tensor_parallel_size") == (2, 7, 31)


def test_known_chart_two_keys_down_is_still_that_chart():
    d = _one("subchart-deeper.yaml")
    assert (d.name, d.model, d.model_span.line, d.gpu_count) == ("deep", "Qwen/Qwen2.5-7B-Instruct", 8, 1)
    assert _s(d, "max_model_len") == (4096, 11, 26)


def test_an_empty_argument_list_after_a_switch_vanishes_too():
    d = _one("compose-extra-args-after-switch.yaml")
    assert (d.model, d.model_resolved, d.get("enforce_eager")) == ("Qwen/Qwen2.5-7B-Instruct", True, True)


def test_an_empty_value_after_an_option_stays_the_environment_s():
    from kvlint.launches.env import expand_words
    from kvlint.sources.shell import tokenize
    from kvlint.sources.text import Mapped

    text = "--api-key ${KEY:-} --port 8000 ${EXTRA:-}"
    m = Mapped("x", text, tuple((1, i + 1) for i in range(len(text) + 1)))
    cmds, _ = tokenize(m)
    fields = expand_words(cmds[0].words, m, {})
    assert [f.text for f in fields] == ["--api-key", "${KEY:-}", "--port", "8000"] and not fields[1].resolved


def test_raycluster_head_engine_spans_head_and_workers():
    d = _one("raycluster-head-engine.yaml")
    assert (d.gpu_count, d.get("tensor_parallel_size"), d.get("pipeline_parallel_size")) == (4, 2, 2)
    assert any("Ray cluster head 2 + 1 x 2" in n for n in d.notes)
    assert [f.code for f in _no_errors("raycluster-head-engine.yaml")] == []


def test_raycluster_worker_replicas_left_to_tooling_are_unresolved():
    d = _one("raycluster-unresolved-workers.yaml")
    assert d.gpu_count is None and any("${WORKERS} (unresolved) x 2" in n for n in d.notes)
    assert [f.code for f in _no_errors("raycluster-unresolved-workers.yaml")] == []


def test_an_operator_object_named_for_its_engine_is_read_from_its_spec(tmp_path):
    d = _one("operator-object.yaml")
    assert (d.engine, d.model, d.model_span.line, d.model_span.col, d.gpu_count) == (
        "vllm", "Qwen/Qwen2.5-7B-Instruct", 7, 10, 2)
    assert _s(d, "max_model_len") == (8192, 8, 16) and _s(d, "tensor_parallel_size") == (2, 9, 23)
    cm = tmp_path / "cm.yaml"  # a ConfigMap of an application's settings names no engine: not a launch
    cm.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\ndata:\n  model: example-org/demo\n"
                  "  max_model_len: '4096'\n  temperature: '0.7'\n")
    assert read_path(str(cm)).deployments == []


def test_settings_beside_sampling_parameters_are_a_client_s_not_a_launch(tmp_path):
    p = tmp_path / "eval.yaml"
    p.write_text("vllm:\n  model: example-org/demo-8b\n  max_model_len: 4096\n  tensor_parallel_size: 2\n"
                 "  temperature: 0.0\n  max_tokens: 512\n")
    assert read_path(str(p)).deployments == []


def test_a_client_block_beside_the_engine_block_is_not_the_engine(tmp_path):
    """Sample K8's UltraRAG parameters (read after its measurement): under `backend: vllm`, an `openai:` block
    with `base_url` and `api_key` is a client of a server, never the engine's settings; the `vllm:` block with
    `model_name_or_path` and engine keys is."""
    from kvlint.launches import read_path

    p = tmp_path / "parameter.yaml"
    p.write_text("backend: vllm\nbackend_configs:\n  vllm:\n    model_name_or_path: org/engine-model\n"
                 "    gpu_memory_utilization: 0.9\n  openai:\n    model_name: served-name\n"
                 "    base_url: http://localhost:8000/v1\n    api_key: abc\n")
    (dep,) = read_path(str(p)).deployments
    assert (dep.model, dep.model_span.line, dep.get("gpu_memory_utilization")) == ("org/engine-model", 4, 0.9)


def test_sibling_blocks_with_their_own_model_are_one_launch_each(tmp_path):
    """Sample K13's srt-slurm recipe (read after its measurement): `sglang_config: {prefill: {...}, decode: {...}}`,
    each with its model path and SGLang flags: two launches (the roles of a disaggregated deployment, counting
    rule 3), each with its own settings; a sibling map without a model is none."""
    from kvlint.launches import read_path

    p = tmp_path / "recipe.yaml"
    p.write_text("backend:\n  type: sglang\n  sglang_config:\n"
                 "    prefill:\n      model-path: org/m\n      tensor-parallel-size: 4\n      mem-fraction-static: 0.9\n"
                 "    decode:\n      model-path: org/m\n      tensor-parallel-size: 8\n      mem-fraction-static: 0.8\n"
                 "    router:\n      policy: round_robin\n")
    deps = read_path(str(p)).deployments
    assert [(d.engine, d.model_span.line, d.get("tp_size")) for d in deps] == [("sglang", 5, 4), ("sglang", 9, 8)]


RECIPE = """name: "p1d1"
model:
  path: "dsfp8"
  container: "lmsysorg/sglang:v0.5.8-cu130"
backend:
  prefill_environment:
    SGLANG_ENABLE_SPEC_V2: "1"
  sglang_config:
    prefill:
      served-model-name: "deepseek-ai/DeepSeek-R1"
      tp-size: 8
      mem-fraction-static: 0.75
      disaggregation-mode: "prefill"
    decode:
      served-model-name: "deepseek-ai/DeepSeek-R1"
      tp-size: 16
      mem-fraction-static: 0.8
      disaggregation-mode: "decode"
"""


def test_role_maps_with_no_model_of_their_own_are_one_launch_each_on_the_recipes_model(tmp_path):
    """Sample K157's srt-slurm recipe (KV008 at measurement): the engine's image as the recipe's `container:`, the
    model a top-level `model: {path: ...}`, the flags in `sglang_config: {prefill: {...}, decode: {...}}` with no
    model in them: one launch per role (counting rule 3), each at its key, with its own flags."""
    p = tmp_path / "recipe.yaml"
    p.write_text(RECIPE)
    deps = read_path(str(p)).deployments
    assert [(d.engine, d.model, d.launch_span.line, d.get("tp_size"), d.get("mem_fraction_static"))
            for d in deps] == [("sglang", "dsfp8", 9, 8, 0.75), ("sglang", "dsfp8", 14, 16, 0.8)]
    assert all(d.image == "lmsysorg/sglang:v0.5.8-cu130" for d in deps)


def test_a_container_beside_settings_with_no_role_maps_is_no_launch(tmp_path):
    """Sample K88's benchmark bookkeeping (`serving: {framework: sglang, container: lmsysorg/sglang:..., tp: 8}`,
    counted 0 by hand) and a recipe whose engine map holds fewer than three flags: no launch."""
    p = tmp_path / "bookkeeping.yaml"
    p.write_text("model:\n  hf_id: org/Model-8B\nserving:\n  framework: sglang\n"
                 "  container: lmsysorg/sglang:latest\n  tp: 8\n  max_model_len: 16384\n")
    assert read_path(str(p)).deployments == []
    p.write_text(RECIPE.replace("      mem-fraction-static: 0.75\n      disaggregation-mode: \"prefill\"\n", "")
                 .replace("      mem-fraction-static: 0.8\n      disaggregation-mode: \"decode\"\n", ""))
    assert read_path(str(p)).deployments == []


def test_each_item_of_a_model_list_is_a_launch_with_the_models_own_settings():
    """Sample K13's Pulumi stack config (measured: 1 of 2 launches, the length read as the model's maximum): the
    items of a list that each hold a model and engine settings are one launch each; `model: {name, maxModelLen}`
    carries the length; an item without an image of its own does not take another item's."""
    first, second = read_path(str(FIX / "model-list.yaml")).deployments
    assert (first.model, _s(first, "max_model_len"), _s(first, "tensor_parallel_size")) == \
        ("Qwen/Qwen2.5-7B-Instruct", (16384, 9, 22), (2, 12, 29))
    assert first.image == "registry.example/org/vllm:arm64-v0.13.0" and second.image is None
    assert (second.model, _s(second, "max_model_len"), _s(second, "max_num_seqs")) == \
        ("Qwen/Qwen2.5-1.5B-Instruct", (8192, 17, 22), (64, 20, 21))


def test_a_document_that_is_a_catalogue_of_models_is_one_launch_per_entry():
    """Sample K13's model-specs.yaml (measured: silent but for KV008): a top-level list of entries naming the engine
    by `repository: vllm/vllm-openai` + `tag:`, settings under `vllmConfig:` with `extraArgs:` appended; an entry
    with no model is none."""
    first, second = read_path(str(FIX / "model-catalogue.yaml")).deployments
    assert (first.engine, first.image, first.model) == ("vllm", "vllm/vllm-openai:v0.10.1", "Qwen/Qwen2.5-7B-Instruct")
    assert _s(first, "max_model_len") == (16384, 9, 18) and _s(first, "gpu_memory_utilization")[0] == 0.8
    assert (second.model, _s(second, "max_model_len")) == ("Qwen/Qwen2.5-1.5B-Instruct", (4096, 17, 18))


def test_a_roles_variables_named_for_the_engine_are_its_settings():
    """Sample K15's Ansible group_vars (measured: silent): `vllm_model`, `vllm_max_model_len`, ... are the settings
    of the vLLM launch the role renders, each at its key; a client's `vllm_base_url` beside `vllm_model` is none."""
    dep = _one("role-vars.yaml")
    assert (dep.engine, dep.model, _s(dep, "max_model_len"), _s(dep, "quantization")) == \
        ("vllm", "Qwen/Qwen2.5-7B-Instruct-AWQ", (4096, 7, 21), ("awq", 6, 20))
    assert read_path(str(FIX / "client-vars.yaml")).deployments == []


def test_a_benchmarks_record_is_not_a_launch(tmp_path):
    """Every JSON file that names an engine is read now: a benchmark's result record (`engine: vllm`, its model and
    TP beside `request_throughput`, `mean_ttft_ms`) is what a run measured, not a server's settings."""
    p = tmp_path / "results.json"
    p.write_text('{"engine": "vllm", "model": "org/m", "tensor_parallel_size": 2, "max_model_len": 8192,\n'
                 ' "request_throughput": 12.3, "mean_ttft_ms": 45.1, "p99_itl_ms": 20.0}\n')
    assert read_path(str(p)).deployments == []
    q = tmp_path / "engine.json"
    q.write_text('{"engine": "vllm", "model": "org/m", "tensor_parallel_size": 2, "max_model_len": 8192}\n')
    assert len(read_path(str(q)).deployments) == 1


def test_a_rayspec_without_enabled_is_the_charts_earlier_spelling():
    """Sample K18 (measured: a wrong KV204 error, PP 2 on "1 GPU"): production-stack values with `raySpec.headNode`
    and no `enabled` key, as the chart's earlier releases and tutorials wrote them: head 1 + worker 1 GPU."""
    d = _one("raycluster-pp-implied.yaml")
    assert d.gpu_count == 2 and any("no `enabled` key" in n for n in d.notes)
    assert [f.code for f in _no_errors("raycluster-pp-implied.yaml")] == []


def test_chart_values_spelled_by_a_repositorys_own_chart(tmp_path):
    """Sample K21 (measured: KV008 on three values files of a repository's own chart): an argument list whose first
    word is the model (`model: {args: [org/name, --max-model-len, ...]}`), a `modelReference` key, and a `vllm:` block
    beside the chart's own GPU switch (`gpu: {enabled: true, count: 1}`) with the model left to the install."""
    a = tmp_path / "a.yaml"
    a.write_text("image:\n  repository: vllm/vllm-openai\n  tag: v0.10.1\nmodel:\n  args:\n"
                 "    - Qwen/Qwen2.5-1.5B-Instruct\n    - --max-model-len\n    - \"4096\"\n")
    (dep,) = read_path(str(a)).deployments
    assert (dep.model, dep.get("max_model_len"), dep.model_span.line) == ("Qwen/Qwen2.5-1.5B-Instruct", 4096, 6)
    b = tmp_path / "b.yaml"
    b.write_text("image:\n  registry: registry.redhat.io\n  repository: rhaiis/vllm-cuda-rhel9\n"
                 "configuration:\n  modelReference: ibm-granite/granite-3.3-2b-instruct\n  extraArgs: []\n")
    assert [d.model for d in read_path(str(b)).deployments] == ["ibm-granite/granite-3.3-2b-instruct"]
    c = tmp_path / "c.yaml"
    c.write_text('engine: vllm\nmodel:\n  id: ""\nvllm:\n  image:\n    repository: ""\n  args: []\n'
                 "gpu:\n  enabled: true\n  count: 1\n")
    (dep,) = read_path(str(c)).deployments
    assert dep.engine == "vllm" and not dep.model_resolved


def test_a_catalogue_entry_names_its_model_by_name_beside_its_engine_block(tmp_path):
    """Sample K21's rancher-catalog values (measured: KV008): `models: - name: X` with the engine's settings under the
    entry's `vllm:` block and its own time-sliced node selector (`NVIDIA-A30-SHARED`) is a launch; a `name:` outside a
    list of models (a release's, a container's) is no model."""
    p = tmp_path / "values.yaml"
    p.write_text("image:\n  repository: vllm/vllm-openai\n  tag: v0.10.1\nmodels:\n  - name: Qwen/Qwen2.5-7B-Instruct\n"
                 "    nodeSelector:\n      nvidia.com/gpu.product: NVIDIA-A30-SHARED\n    vllm:\n"
                 "      maxModelLen: 8192\n      gpuMemoryUtilization: 0.85\nresources:\n  limits:\n"
                 "    nvidia.com/gpu: 1\n")
    (dep,) = read_path(str(p)).deployments
    assert (dep.model, dep.model_span.line, _s(dep, "max_model_len"), dep.gpu) == \
        ("Qwen/Qwen2.5-7B-Instruct", 5, (8192, 9, 20), "NVIDIA-A30-SHARED")
    q = tmp_path / "other.yaml"
    q.write_text("image:\n  repository: vllm/vllm-openai\nservers:\n  - name: Qwen/Qwen2.5-7B-Instruct\n"
                 "    vllm:\n      maxModelLen: 8192\n")
    assert [d.model for d in read_path(str(q)).deployments] == []


def test_an_empty_nested_model_key_is_the_launchs_model_line(tmp_path):
    """Sample K21's MLOps values (measured: the launch placed at `vllm:`, line 17, while the model key the install
    fills is `model.id` at line 13): an empty nested model key is the placeholder, at its own line."""
    p = tmp_path / "values.yaml"
    p.write_text('engine: vllm\nmodel:\n  id: ""\n  revision: ""\nvllm:\n  image:\n    repository: ""\n  args: []\n'
                 "gpu:\n  enabled: true\n  count: 1\n")
    (dep,) = read_path(str(p)).deployments
    assert (dep.model, dep.model_span.line) == ("<model_id>", 3)


def test_an_engine_block_switched_off_is_audited_but_not_deployed(tmp_path):
    """Sample K22's gateway chart defaults (measured: a launch counted where the values deploy none): `vllm: {enabled:
    false, image: vllm/vllm-openai, model: X}` is the chart's default example; kvlint reads it, marks it disabled at
    its `enabled: false` (its findings infos), and the overlay that says `enabled: true` is the launch."""
    p = tmp_path / "values.yaml"
    p.write_text("vllm:\n  enabled: false\n  image:\n    repository: vllm/vllm-openai\n    tag: v0.10.1\n"
                 "  model: Qwen/Qwen2.5-7B-Instruct\n  maxModelLen: 8192\n")
    (dep,) = read_path(str(p)).deployments
    assert (dep.model, dep.disabled.line if dep.disabled else None) == ("Qwen/Qwen2.5-7B-Instruct", 2)
    p.write_text(p.read_text().replace("enabled: false", "enabled: true"))
    (dep,) = read_path(str(p)).deployments
    assert dep.disabled is None


def test_own_chart_values_image_name_model_path_and_gpu_switch(tmp_path):
    """Sample K23's mlrun values (measured: KV008 missing too: silent but for the summary): `imageName:` +
    `imageVersion:`, `model: {path: X, name: ''}` and the chart's `gpu: {type: amd.com/gpu, count: 8}`. The launch
    has the image, the model and 8 GPUs; with no TP in the values, TP is the template's to derive from the count
    (this chart's does: `--tensor-parallel-size={{ .Values.gpu.count }}`), so it is open, not 1."""
    p = tmp_path / "values.yaml"
    p.write_text("imageName: docker.io/vllm/vllm-openai\nimageVersion: v0.10.1\ngpu:\n  type: amd.com/gpu\n"
                 "  count: 8\nmodel:\n  path: Qwen/Qwen3-32B\n  name: ''\n")
    (dep,) = read_path(str(p)).deployments
    tp = dep.settings["tensor_parallel_size"]
    assert (dep.image, dep.model, dep.model_span.line, dep.gpu_count, tp.resolved) == \
        ("docker.io/vllm/vllm-openai:v0.10.1", "Qwen/Qwen3-32B", 7, 8, False)
    p.write_text(p.read_text().replace("count: 8", "count: 1"))
    (one,) = read_path(str(p)).deployments
    assert one.gpu_count == 1 and "tensor_parallel_size" not in one.settings


def test_an_umbrella_switching_on_an_engine_subchart_is_not_passed_over(tmp_path):
    """Sample K23's chat umbrella (measured: silent): `vllm: {enabled: true}` beside another subchart's settings:
    the launch's settings are the subchart's own values, so one KV008 info says so at the key; switched off, none."""
    p = tmp_path / "values.yaml"
    p.write_text("---\nvllm:\n  enabled: true\n\nopenwebui:\n  enabled: true\n  vllmPort: 8000\n")
    result = read_path(str(p))
    assert result.deployments == [] and [(f.code, f.span.line) for f in result.findings] == [("KV008", 2)]
    p.write_text(p.read_text().replace("enabled: true\n\nopen", "enabled: false\n\nopen"))
    assert read_path(str(p)).findings == []


def test_a_recipe_naming_its_engine_by_kind_or_its_build_is_a_launch(tmp_path):
    """Sample K25's cluster recipe (measured: KV008): `{"kind": "vllm", "image": "org/spark-vllm-b12x@sha256:...",
    "model": X, "gpu_memory_utilization": 0.8, "max_num_seqs": 1, "extra_args": [...]}` is a vLLM launch, by its
    `kind:` or by its image's name; `kind: VllmRuntime` (an operator's object) is not a kind that names the engine."""
    p = tmp_path / "recipe.json"
    p.write_text('{"version": 1, "kind": "vllm", "model": "Qwen/Qwen2.5-7B-Instruct",\n "gpu_memory_utilization": 0.8,'
                 '\n "max_num_seqs": 1, "extra_args": ["--enforce-eager"]}\n')
    (dep,) = read_path(str(p)).deployments
    assert (dep.engine, dep.model, dep.get("max_num_seqs"), dep.get("enforce_eager")) == \
        ("vllm", "Qwen/Qwen2.5-7B-Instruct", 1, True)
    p.write_text(p.read_text().replace('"kind": "vllm"', '"image": "org/spark-vllm-b12x:1"'))
    assert [d.engine for d in read_path(str(p)).deployments] == ["vllm"]
    p.write_text(p.read_text().replace('"image": "org/spark-vllm-b12x:1"', '"kind": "VllmRuntime"'))
    assert read_path(str(p)).deployments == []


def test_values_deploying_the_engines_image_on_gpus_with_no_model_are_a_launch(tmp_path):
    """Sample K26's own chart (measured: KV008 only): `image: {repository: registry.redhat.io/rhoai/vllm}` with
    `nvidia.com/gpu: 1` and no model anywhere: the values make the chart start vLLM, its model the chart's default
    or the install's (a placeholder, KV002); without a GPU request it stays the KV008 info."""
    p = tmp_path / "values.yaml"
    p.write_text("image:\n  repository: registry.redhat.io/rhoai/vllm\n  tag: latest\nresources:\n  limits:\n"
                 "    nvidia.com/gpu: 1\n")
    (dep,) = read_path(str(p)).deployments
    assert (dep.engine, dep.model_resolved, dep.gpu_count, dep.model_span.line) == ("vllm", False, 1, 2)
    p.write_text("image:\n  repository: registry.redhat.io/rhoai/vllm\n  tag: latest\n")
    result = read_path(str(p))
    assert result.deployments == [] and [f.code for f in result.findings] == ["KV008"]


def test_a_catalogue_entry_with_its_settings_under_a_map_named_for_the_engine(tmp_path):
    """Sample K47's Ansible group_vars (measured: KV008, no launch): `models: - {name, enabled, hf_name: X, vllm:
    {max_model_len: ...}}`, rendered into one container each by a template: each entry is a launch of the engine
    its settings map is named for, its model the `hf_name`; an `enabled: false` entry is not deployed as written."""
    p = tmp_path / "vars.yaml"
    p.write_text("models:\n  - name: a\n    enabled: true\n    hf_name: org/first\n    vllm:\n"
                 "      tensor_parallel_size: 1\n      max_model_len: 32768\n"
                 "  - name: b\n    enabled: false\n    hf_name: org/second\n    vllm:\n      tensor_parallel_size: 2\n"
                 "      max_model_len: 8192\n")
    first, second = read_path(str(p)).deployments
    assert (first.engine, first.model, first.model_span.line, first.get("max_model_len")) == \
        ("vllm", "org/first", 4, 32768)
    assert (second.model, second.disabled is not None) == ("org/second", True)


def test_a_chart_values_argument_string_beside_the_model_key(tmp_path):
    """Sample K24's chart values (`llm: {hfModelName: X, args: '--gpu-memory-utilization "0.9" --dtype "auto"'}`
    under `charts/vllm/`): the string of flags is the argument list the template pastes in, each word at its place;
    the model is `hfModelName`."""
    (tmp_path / "charts" / "vllm").mkdir(parents=True)
    p = tmp_path / "charts" / "vllm" / "values.yaml"
    p.write_text("llm-serving:\n  llm:\n    hfModelName: org/chart-model\n"
                 "    args: '--gpu-memory-utilization \"0.9\" --dtype \"auto\"'\n")
    (d,) = read_path(str(p)).deployments
    assert (d.model, d.model_span.line, d.get("gpu_memory_utilization"), d.get("dtype")) == \
        ("org/chart-model", 3, 0.9, "auto")


def test_a_model_map_beside_the_address_of_the_server_it_calls_is_a_client():
    assert read_path(str(FIX / "client-beside.yaml")).deployments == []
    dep = _one("server-beside-client.yaml")  # the engine named by a key: its settings, whatever sits beside
    assert (dep.engine, dep.model, _s(dep, "max_model_len")) == ("vllm", "org/stack-model", (8192, 4, 16))


def test_entries_keyed_by_model_id_that_name_their_engine_are_one_launch_each(tmp_path):
    """Sample K104 (LLMariner's values): `overrides: {org/model: {runtimeName: vllm, vllmExtraFlags: [...]}}`; an
    entry naming another runtime is not vLLM's, and a label-shaped key (`nvidia.com/gpu`) is no model."""
    from kvlint.launches import read_path

    path = tmp_path / "values.yaml"
    path.write_text("model:\n  overrides:\n    google/gemma-2b-it:\n      runtimeName: ollama\n"
                    "    org/phi-4-GGUF/phi-4-Q4_K_M.gguf:\n      preloaded: true\n      runtimeName: vllm\n"
                    "      vllmExtraFlags:\n      - --max-model-len\n      - 8200\n"
                    "    org/other:\n      vllmExtraFlags: [--max-model-len, '4096']\n"
                    "    nvidia.com/gpu:\n      runtimeName: vllm\n      vllmExtraFlags: [--max-model-len, '1']\n")
    deps = read_path(str(path)).deployments
    assert [(d.engine, d.model, (d.model_span.line, d.model_span.col), d.get("max_model_len")) for d in deps] == \
        [("vllm", "org/phi-4-GGUF/phi-4-Q4_K_M.gguf", (5, 5), 8200), ("vllm", "org/other", (11, 5), 4096)]


def test_a_catalogue_entry_names_its_model_by_source_and_its_flags_in_an_argument_map():
    """Sample K176's kube-llmops stack (measured: a launch at the subchart switch, its model unknown): `vllm: {models:
    [{name: qwen-small, source: Qwen/..., engine: vllm, engineArgs: {--max-model-len: "4096", --enforce-eager: ""}}]}`:
    the entry's source is the model (its name the one it is served as), the argument map's keys are the flags as
    written, an empty value a switch given alone (a valued flag left empty stays the default)."""
    text = ("vllm:\n  enabled: true\n  models:\n    - name: qwen-small\n      source: org/src-model\n"
            "      engine: vllm\n      engineArgs:\n        --max-model-len: \"4096\"\n        --enforce-eager: \"\"\n"
            "        --chat-template: \"\"\n")
    (d,) = read_path("values.yaml", text).deployments
    assert (d.model, d.model_span.line, d.get("max_model_len"), d.get("enforce_eager")) == ("org/src-model", 5, 4096,
                                                                                           True)
    assert d.get("chat_template") is None and not d.unknown_flags


def test_a_model_folder_handed_to_an_images_entry_point_is_no_program_and_a_recipes_container_its_image():
    """Sample K183's kthena ModelServing (two wrong KV016 errors, read as SGLang): `args: [/mnt/cache/org/m/,
    --tensor-parallel-size, 2, ...]` on an engine build: a path ending in `/` is no program's name (it matched
    the engine whose CLI takes no subcommand), so the flags read as vLLM's with the folder as the model. Sample
    K183's spark-vllm-docker recipe: `container: vllm-node-mxfp4` beside its `command:` is the image the command
    runs in (a custom build: its own options are an info, not a stock refusal)."""
    pod = ("containers:\n  - name: vllm\n    image: ghcr.io/org/engine:vllm-ascend_v0.10.1\n    args:\n"
           "      - /mnt/cache/org/m/\n      - --tensor-parallel-size\n      - \"2\"\n      - --max-model-len\n"
           "      - \"8192\"\n      - --gpu-memory-utilization\n      - \"0.8\"\n")
    (d,) = read_path("serving.yaml", pod).deployments
    assert (d.engine, d.model, d.get("tensor_parallel_size")) == ("vllm", "/mnt/cache/org/m/", 2)
    recipe = ("model: org/r\ncontainer: vllm-node-mxfp4\ncommand: |\n  vllm serve org/r \\\n      --port 8000\n")
    (r,) = read_path("recipe.yaml", recipe).deployments
    assert (r.model, r.image) == ("org/r", "vllm-node-mxfp4")


def test_a_sibling_that_runs_the_engine_s_image_needs_no_flag_of_its_own():
    """Sample K206's app values (podman templates): `instruct: {image: .../vllm-spyre:3.4.0, model: {name: M,
    maxModelLen: 32768, maxBatchSize: 32}}` beside `embedding: {image: .../vllm-ppc64le:0.19.1, model: {name: E,
    maxModelLen: 512}}` and `reranker: {image: .../vllm-spyre:3.4.0, model: {name: R}}`: each sibling that runs the
    engine's image is a launch of its model (two were missed); a sibling of another image is none."""
    from kvlint.launches import read_path

    text = ("instruct:\n  image: registry.example.com/rhaii/vllm-spyre-rhel9:3.4.0\n  model:\n    name: org/instruct\n"
            "    maxModelLen: 32768\n    maxBatchSize: 32\n"
            "embedding:\n  image: icr.io/ppc64le-oss/vllm-ppc64le:0.19.1\n  model:\n    name: org/embed\n"
            "    maxModelLen: 512\n"
            "reranker:\n  image: registry.example.com/rhaii/vllm-spyre-rhel9:3.4.0\n  model:\n    name: org/rerank\n"
            "summarize:\n  image: icr.io/ai/summarize-service:v0.0.17\n  model:\n    name: org/summary\n")
    found = read_path("values.yaml", text).deployments
    assert [(d.model, d.model_span.line) for d in found] == [("org/instruct", 4), ("org/embed", 10),
                                                             ("org/rerank", 15)]
    assert found[1].get("max_model_len") == 512


def test_an_env_key_that_holds_a_configuration_tree_is_walked():
    """Sample K207's NeMo RL recipe (silent): `env: {nemo_gym: {genrm_model: {responses_api_models: {genrm_model:
    {model: M, vllm_serve_kwargs: {tensor_parallel_size: 8, ...}}}}}}`, where `env:` holds the reinforcement-learning
    environments, not a process's variables: a map of maps under `env` is walked; a container's `env:` list is not."""
    from kvlint.launches import read_path

    text = ("env:\n  nemo_gym:\n    genrm_model:\n      genrm:\n        model: org/genrm\n"
            "        vllm_serve_kwargs:\n          tensor_parallel_size: 8\n          max_model_len: 60000\n")
    (d,) = read_path("recipe.yaml", text).deployments
    assert (d.engine, d.model, d.get("tensor_parallel_size"), d.get("max_model_len")) == ("vllm", "org/genrm", 8, 60000)
    flat = "env:\n  MODEL: org/x\n  VLLM_MAX_MODEL_LEN: '4096'\n"
    assert read_path("recipe.yaml", flat).deployments == []


def test_a_list_of_one_engines_flags_under_any_key_is_its_argument_list(tmp_path):
    """Sample K234's values (measured: silent): `model: {repo: M, gpu: [--max-model-len=32000, ...], cpu: [...]}`,
    a chart kvlint has no adapter for whose argument lists are named for the device a `device:` value picks. Every
    item a flag of vLLM's by its table names the engine; the first list is read (the other is the alternative).
    A list of two flags, or one with another program's flag, is no engine's."""
    p = tmp_path / "values.yaml"
    p.write_text('device: "gpu"\nmodel:\n  repo: "org/m"\n  gpu:\n    - --max-model-len=32000\n'
                 "    - --gpu-memory-utilization=0.98\n    - --tensor-parallel-size=1\n"
                 "  cpu:\n    - --block-size=128\n    - --max-model-len=8192\n    - --max-num-seqs=256\n")
    (d,) = read_path(str(p)).deployments
    assert (d.engine, d.model, d.get("max_model_len"), d.get("gpu_memory_utilization")) == ("vllm", "org/m", 32000,
                                                                                           0.98)
    assert d.settings["max_model_len"].span.line == 5
    p.write_text('model:\n  repo: "org/m"\n  gpu:\n    - --max-model-len=32000\n    - --my-own-option=1\n'
                 "    - --gpu-memory-utilization=0.98\n")
    assert read_path(str(p)).deployments == []
