"""Shapes the turn-38 held-out samples (and the turn-37 leftovers) showed kvlint passing over or misreading, each read
by a mechanism, not a case."""

from __future__ import annotations

from kvlint.launches import read_path
from tests.launches.checked import checked as _checked


def test_a_toml_file_sets_the_environment_of_its_commands_in_capitals(tmp_path):
    """Turn 37's K328 (a Flox environment): `[services] vllm.command = "vllm serve $VLLM_MODEL ..."` with
    `VLLM_MODEL = "..."` under `[vars]`. An upper-case TOML key given a string is an environment variable in every
    TOML format that has one (Flox, pixi, fly.toml, mise), so the command reads it, at its place; a lower-case key
    is an ordinary setting and is not. The model's place is the reference, as in a shell script."""
    path = tmp_path / "manifest.toml"
    path.write_text('[vars]\nVLLM_MODEL = "meta-llama/Llama-3.1-8B-Instruct"\nVLLM_TP = \'2\'  # two cards\n'
                    'model = "not-this/one"\n\n[services]\n'
                    'vllm.command = "vllm serve $VLLM_MODEL --tensor-parallel-size $VLLM_TP"\n')
    (dep,) = read_path(str(path)).deployments
    assert (dep.model, dep.get("tensor_parallel_size")) == ("meta-llama/Llama-3.1-8B-Instruct", 2)
    assert dep.model_span is not None and (dep.model_span.line, dep.model_span.col) == (7, 28)
    # the same lines in an INI file are not read as an environment
    ini = tmp_path / "app.ini"
    ini.write_text(path.read_text().replace("vllm.command", "command"))
    assert all(d.model != "meta-llama/Llama-3.1-8B-Instruct" for d in read_path(str(ini)).deployments)


def test_settings_keyed_by_engine_run_each_engine_on_the_documents_model(tmp_path):
    """Turn 37's K324 (a serving benchmark's harness config): `frameworks: {sglang: {base_server_flags: {model_path:
    M, ...}}, vllm: {base_server_flags: {tensor_parallel_size: 1, max_model_len: 12288, ...}}}` beside a top-level
    `model: {name: M}`. The vLLM map has no model of its own: it runs on the document's, one launch per engine. A map
    for another engine with fewer than three flag-spelled keys, or one that is not an engine (`trtllm:`), is not."""
    path = tmp_path / "bench.yaml"
    path.write_text("model:\n  name: Qwen/Qwen3-8B\nframeworks:\n  sglang:\n    server_command: python -m sglang.launch_server\n"
                    "    base_server_flags:\n      model_path: Qwen/Qwen3-8B\n      mem_fraction_static: 0.8\n"
                    "      schedule_policy: lpm\n  vllm:\n    server_command: vllm serve\n    base_server_flags:\n"
                    "      tensor_parallel_size: 2\n      max_model_len: 12288\n      gpu_memory_utilization: 0.9\n"
                    "  trtllm:\n    base_server_flags:\n      tp_size: 1\n      max_batch_size: 8\n      kv_cache_free: 0.9\n")
    sglang, vllm = read_path(str(path)).deployments
    assert (sglang.engine, vllm.engine) == ("sglang", "vllm")
    assert (vllm.model, vllm.get("tensor_parallel_size"), vllm.get("max_model_len")) == ("Qwen/Qwen3-8B", 2, 12288)
    assert vllm.model_span is not None and vllm.model_span.line == 2
    path.write_text(path.read_text().replace("      gpu_memory_utilization: 0.9\n", ""))
    assert [d.engine for d in read_path(str(path)).deployments] == ["sglang"]


def test_an_engine_subchart_switched_on_reads_the_global_model(tmp_path):
    """Turn 37's K333 (an umbrella chart's values): `global: {LLM_MODEL: <LLM_MODEL>}` and `vllmService: {name:
    vllm-service, enabled: true, service: {port: 8080}}`. Helm hands `global:` to every subchart, so the switched-on
    engine subchart runs that model: a launch at the key, its model the global one (a placeholder here). A key
    spelled in camelCase is the engine's subchart as `vllm-stack:` is; a router's is not, and a subchart switched
    off renders nothing."""
    path = tmp_path / "values.yaml"
    path.write_text("global:\n  LLM_MODEL: Qwen/Qwen2.5-7B-Instruct\ntgiService:\n  enabled: false\n"
                    "vllmService:\n  name: vllm-service\n  enabled: true\n  service:\n    port: 8080\n")
    (dep,) = read_path(str(path)).deployments
    assert (dep.engine, dep.model) == ("vllm", "Qwen/Qwen2.5-7B-Instruct")
    assert dep.launch_span is not None and dep.launch_span.line == 5
    assert dep.model_span is not None and dep.model_span.line == 2
    assert any("switched on with its model named" in n for n in dep.notes)
    for key, on in (("vllmRouter", "true"), ("vllmService", "false")):
        path.write_text(f"global:\n  LLM_MODEL: Qwen/Qwen2.5-7B-Instruct\n{key}:\n  enabled: {on}\n")
        assert not read_path(str(path)).deployments


def test_values_of_a_chart_named_for_the_engine_asking_for_gpus_with_no_model_are_said(tmp_path):
    """Turn 37's K332 (KubeBlocks' `deploy/vllm-cluster/values.yaml`: `version: vllm-baichuan2-13b`, `gpu: 1`, no
    model): the chart's own objects decide what the engine serves. Not a launch (nothing says which model), but one
    KV008 info at the GPU request, not silence. The same values in a folder not named for an engine say nothing."""
    chart = tmp_path / "vllm-cluster"
    chart.mkdir()
    (chart / "values.yaml").write_text("version: vllm-baichuan2-13b\nreplicas: 1\ncpu: 0.5\ngpu: 1\n")
    result = read_path(str(chart / "values.yaml"))
    assert not result.deployments
    (finding,) = result.findings
    assert (finding.code, finding.span.line, finding.span.col) == ("KV008", 4, 6)
    other = tmp_path / "web-cluster"
    other.mkdir()
    (other / "values.yaml").write_text("version: vllm-baichuan2-13b\nreplicas: 1\ncpu: 0.5\ngpu: 1\n")
    assert not read_path(str(other / "values.yaml")).findings


def test_case_arms_giving_one_command_its_pd_role_are_two_launches(tmp_path):
    """Turn 37's K329 (a Kunpeng SGLang fork's `run.sh <role> <rank>`): `case "$ROLE" in prefill) SPECIFIC_ARGS=(
    --disaggregation-mode prefill ...);; decode) SPECIFIC_ARGS=(--disaggregation-mode decode ...);; esac`, then one
    `python -m sglang.launch_server "${BASE_ARGS[@]}" "${SPECIFIC_ARGS[@]}"`. Prefill and decode are two engines,
    each with its own pool (counting rule 3), so the command's arms are two launches, each with its arm's values;
    arms that change only other settings of one role stay one launch."""
    path = tmp_path / "run.sh"
    body = ('#!/bin/bash\nROLE="$1"\nBASE_ARGS=(--model-path "$MODEL_PATH" --tp 8)\ncase "$ROLE" in\n'
            '  prefill)\n    SPECIFIC_ARGS=(--disaggregation-mode prefill --max-total-tokens 18496)\n    ;;\n'
            '  decode)\n    SPECIFIC_ARGS=(--disaggregation-mode decode --max-total-tokens 139328)\n    ;;\nesac\n'
            'python -m sglang.launch_server "${BASE_ARGS[@]}" "${SPECIFIC_ARGS[@]}"\n')
    path.write_text(body)
    deps = read_path(str(path)).deployments
    assert [(d.get("disaggregation_mode"), d.get("max_total_tokens"), d.one_of_arms) for d in deps] == \
        [("prefill", 18496, False), ("decode", 139328, False)]
    path.write_text(body.replace("--disaggregation-mode decode", "--disaggregation-mode prefill"))
    (dep,) = read_path(str(path)).deployments
    assert dep.get("disaggregation_mode") == "prefill"


def test_a_default_appended_unless_given_after_a_loop_of_run_time_words_is_read(tmp_path):
    """Turn 38's K334 and K336 (SGLang's SageMaker entry point `docker/serve`, in two forks): a loop turns the
    `SM_SGLANG_*` variables into flags (`ARGS+=("--${name}")`, known only at run time), then `if ! [[ " ${ARGS[@]} "
    =~ " --model-path " ]]; then ARGS+=(--model-path "${SM_SGLANG_MODEL_PATH:-/opt/ml/model}"); fi`, then `exec
    python3 -m sglang.launch_server "${ARGS[@]}"`. The guard adds a default unless it was given, so the script as
    run with its defaults serves /opt/ml/model: a launch (counting rule 5's defaulted model), not a KV008 pass-over."""
    path = tmp_path / "serve"
    path.write_text('#!/bin/bash\nARGS=()\nwhile IFS="=" read -r key value; do\n'
                    '    name=$(echo "${key#SM_SGLANG_}" | tr "_" "-")\n    ARGS+=("--${name}")\n'
                    'done < <(env | grep "^SM_SGLANG_")\n'
                    'if ! [[ " ${ARGS[@]} " =~ " --port " ]]; then\n    ARGS+=(--port "${SM_SGLANG_PORT:-8080}")\nfi\n'
                    'if ! [[ " ${ARGS[@]} " =~ " --model-path " ]]; then\n'
                    '    ARGS+=(--model-path "${SM_SGLANG_MODEL_PATH:-/opt/ml/model}")\nfi\n'
                    'exec python3 -m sglang.launch_server "${ARGS[@]}"\n')
    (dep,) = read_path(str(path)).deployments
    assert (dep.engine, dep.model, dep.get("port")) == ("sglang", "/opt/ml/model", 8080)
    assert dep.model_span is not None and dep.model_span.line == 11
    # an option the script's own words already hold is not added again: the guard does not run
    path.write_text('#!/bin/bash\nARGS=(--model-path Qwen/Qwen3-8B)\n'
                    'if ! [[ " ${ARGS[@]} " =~ " --model-path " ]]; then\n    ARGS+=(--model-path /opt/ml/model)\nfi\n'
                    'python3 -m sglang.launch_server "${ARGS[@]}"\n')
    (dep,) = read_path(str(path)).deployments
    assert dep.model == "Qwen/Qwen3-8B"


def test_an_entry_point_script_starting_the_engine_bare_is_the_image(tmp_path):
    """Turn 38's K336 (an NVCF sample's `entrypoint.sh`: a collector in the background, then `vllm serve` with no
    model and no flag): the image's entry point, as a Dockerfile's bare ENTRYPOINT is (counting rule 5), said by one
    KV008 info; the same command in a script no image runs stays a launch of the engine's default model."""
    path = tmp_path / "entrypoint.sh"
    path.write_text("#!/bin/bash\nset -e\notelcol-contrib --config /etc/otel.yaml &\nvllm serve\n")
    result = read_path(str(path))
    assert not result.deployments
    assert [(f.code, f.span.line) for f in result.findings] == [("KV008", 4)]
    other = tmp_path / "bench.sh"
    other.write_text(path.read_text())
    assert len(read_path(str(other)).deployments) == 1


def test_a_listed_command_of_another_program_is_not_the_engines(tmp_path):
    """Turn 38's K336 (a benchmark planner's manifest): `"ours_server": ["<VLLM_CPP_BUILD>/examples/server",
    "--model", M, "--block-size", "32", "--num-blocks", "640", "--max-model-len", "1152"]` beside the vLLM and
    SGLang commands it compares with. The path names a program that is not the engine: its flags are that
    program's, not a vLLM launch (whose `--num-blocks` got a wrong KV004 warning). The engines' own lists stay."""
    path = tmp_path / "plan.py"
    path.write_text('def manifest(image):\n    return {\n'
                    '        "ours_server": ["<VLLM_CPP_BUILD>/examples/server", "--model", "<MODEL_SNAPSHOT>",\n'
                    '                        "--block-size", "32", "--num-blocks", "640", "--max-model-len", "1152"],\n'
                    '        "vllm_server": ["<VLLM_ORACLE>/bin/vllm", "serve", "<MODEL_SNAPSHOT>",\n'
                    '                        "--max-model-len", "1152", "--max-num-seqs", "16"],\n    }\n')
    (dep,) = read_path(str(path)).deployments
    assert (dep.engine, dep.launch_span.line if dep.launch_span else None) == ("vllm", 5)


def test_an_option_of_an_sglang_release_before_the_tables_is_a_removed_flag(tmp_path):
    """Turn 38's K337 (ZhiLight's 2024 benchmark record): `python -m sglang.launch_server ... --max-num-reqs 64`.
    SGLang 0.2 had the option (the pool's request slots); the tables read 0.5.4 on. It is a removed flag with its
    value (KV005 names the release it is gone from), not an option no release has (KV004), and `64` is its value,
    not a stray word."""
    path = tmp_path / "bench.sh"
    path.write_text("python -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct --tp 2 --max-num-reqs 64\n")
    (dep,) = read_path(str(path)).deployments
    assert [(u.flag, u.reason, u.value) for u in dep.unknown_flags] == [("--max-num-reqs", "removed", "64")]
    found = [f for f in _checked(path) if f["code"] in ("KV004", "KV005")]
    assert [f["code"] for f in found] == ["KV005"] and "absent from the 0.3.6 parser" in found[0]["message"]


def test_commands_in_multi_line_template_literals_end_at_their_closing_quote(tmp_path):
    """Turn 38's K335 (Hugging Face's `local-apps.ts`, the Hub's "use this model" snippets): each command is a
    JavaScript template literal over several lines, `\\\\`-continued, closed by `` `; ``. The pip command ended at
    the program's `;` (`--port 30000`;`, a wrong KV007 error) and the Docker one, opened after `const dockerCommand =
    ``, was missed. A command starts after the quote that opens its string and ends before the one that closes it."""
    path = tmp_path / "apps.ts"
    path.write_text('const a = `# Start the vLLM server:\nvllm serve "${model.id}"${flags}`;\n'
                    'const b = `# Start the SGLang server:\npython3 -m sglang.launch_server \\\\\n'
                    '    --model-path "${model.id}" \\\\\n    --port 30000`;\n'
                    'const c = `docker run --gpus all \\\\\n    lmsysorg/sglang:latest \\\\\n'
                    '    python3 -m sglang.launch_server \\\\\n        --model-path "${model.id}" \\\\\n'
                    '        --port 30000`;\n')
    deps = read_path(str(path)).deployments
    assert [(d.engine, d.launch_span.line if d.launch_span else None, d.image) for d in deps] == \
        [("vllm", 2, None), ("sglang", 4, None), ("sglang", 9, "lmsysorg/sglang:latest")]
    assert [d.get("port") for d in deps[1:]] == [30000, 30000] and not any(d.invalid_values for d in deps)


def test_a_compose_service_named_for_the_engine_on_an_image_left_to_a_variable_is_said(tmp_path):
    """Turn 38's K335 (Gaudi's vllm-fork `.cd/docker-compose.yml`): `vllm-server: {image: ${DOCKER_IMAGE}, command:
    ["server", "--config-file", ...], environment: [MODEL, ...]}`. The image's entry point starts the engine, which
    the file does not show: one KV008 info at the image, not silence. A service not named for an engine, or one whose
    image is written out, says nothing."""
    path = tmp_path / "docker-compose.yml"
    path.write_text('services:\n  vllm-server:\n    image: ${DOCKER_IMAGE}\n    environment:\n      - MODEL\n'
                    '    command: ["server", "--config-file", "${CONFIG}"]\n'
                    '  web:\n    image: ${WEB_IMAGE}\n    command: ["serve"]\n')
    result = read_path(str(path))
    assert not result.deployments
    assert [(f.code, f.span.line) for f in result.findings] == [("KV008", 3)]
    path.write_text(path.read_text().replace("${DOCKER_IMAGE}", "org/custom:1"))
    assert not read_path(str(path)).findings


def test_an_option_only_gaudis_build_takes_marks_the_launch_as_that_build(tmp_path):
    """Turn 38's K335 (HabanaAI/vllm-fork's `.cd/templates/template_vllm_server.sh`): `vllm serve $MODEL ...
    --use-padding-aware-scheduling --max-num-prefill-seqs $N --num-scheduler-steps 1`. The first two are options only
    Intel Gaudi's vLLM fork has (kvlint/data/vendor_launchers.json): the script runs that build, so its unknown and
    stock-removed options are infos naming it, not warnings that a stock vLLM exits."""
    path = tmp_path / "server.sh"
    path.write_text("vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 4096 --use-padding-aware-scheduling "
                    "--max-num-prefill-seqs 16 --num-scheduler-steps 1\n")
    found = [(f["code"], f["severity"]) for f in _checked(path) if f["code"] in ("KV004", "KV005")]
    assert found == [("KV004", "info"), ("KV004", "info"), ("KV005", "info")]
    stock = tmp_path / "stock.sh"  # a file of its own: a run reads each script's text once
    stock.write_text("vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 4096 --num-scheduler-steps 1\n")
    assert [f["severity"] for f in _checked(stock) if f["code"] == "KV005"] == ["warning"]


def test_an_image_given_a_python_module_to_run_is_a_launch(tmp_path):
    """Turn 38's K337 (Hunyuan's README): `docker run ... hunyuaninfer/hunyuan-a13b:hunyuan-moe-A13B-sglang -m
    sglang.launch_server --model-path M --tp 4`. The image's entry point is a Python interpreter, handed `-m` and the
    engine's module: a launch of that engine, the image's."""
    path = tmp_path / "run.sh"
    path.write_text("docker run --gpus all --ipc=host hunyuaninfer/hunyuan-a13b:hunyuan-moe-A13B-sglang \\\n"
                    "    -m sglang.launch_server --model-path tencent/Hunyuan-A13B-Instruct --tp 4 --port 30000\n")
    (dep,) = read_path(str(path)).deployments
    assert (dep.engine, dep.model, dep.get("tp_size")) == ("sglang", "tencent/Hunyuan-A13B-Instruct", 4)
    assert dep.image == "hunyuaninfer/hunyuan-a13b:hunyuan-moe-A13B-sglang"


def test_vllm_mindsporess_cli_serves_as_vllm_does(tmp_path):
    """Turn 38's K336 (vLLM-MindSpore's README): `vllm-mindspore serve Qwen/Qwen3-8B`, vLLM's CLI on MindSpore: a vLLM
    launch with the model positional, as `vllm serve` is."""
    path = tmp_path / "README.md"
    path.write_text("Run:\n\n```bash\nvllm-mindspore serve Qwen/Qwen3-8B --max-model-len 8192\n```\n")
    (dep,) = read_path(str(path)).deployments
    assert (dep.engine, dep.model, dep.get("max_model_len")) == ("vllm", "Qwen/Qwen3-8B", 8192)


def test_a_program_running_a_command_a_function_named_for_the_engine_builds_is_said(tmp_path):
    """Turn 38's K337 (a Modal app): `subprocess.Popen(launch_argv())` where `launch_argv()` returns
    `sglang_command(model_path=..., tp=...)` imported from another module. The launch is in that function: one KV008
    info at the call, not silence. A command built by a function not named for an engine says nothing."""
    path = tmp_path / "serve.py"
    path.write_text("import subprocess\nfrom .common import sglang_command\n\n\ndef launch_argv():\n"
                    "    return sglang_command(model_path='/artifacts/m', tp=2, port=30000)\n\n\n"
                    "class Server:\n    def start(self):\n        self.proc = subprocess.Popen(launch_argv())\n")
    result = read_path(str(path))
    assert not result.deployments
    assert [(f.code, f.span.line) for f in result.findings] == [("KV008", 11)]
    assert "which this file does not define" in result.findings[0].message
    other = tmp_path / "other.py"
    other.write_text(path.read_text().replace("sglang_command", "web_command"))
    assert not read_path(str(other)).findings


def test_llm_d_roles_running_sglang_serve_are_sglang_launches_each_at_its_role(tmp_path):
    """Turn 38's K338 (aiconfigurator's Jinja template of llm-d-modelservice values): `{% if mode == 'agg' %}` one
    `decode:` role, `{% else %}` a `decode:` and a `prefill:` role, each container `modelCommand: sglangServe` with
    `args: [--model-path, ...]`. The chart runs SGLang's server for `sglangServe`: three launches, each placed at its
    role's container (the model they share is no launch's own place), TP from `parallelism.tensor`."""
    role = ("{name}:\n  create: true\n  parallelism:\n    tensor: {tp}\n  containers:\n    - name: sglang\n"
            "      image: lmsysorg/sglang:latest\n      modelCommand: sglangServe\n      args:\n"
            "        - --model-path\n        - Qwen/Qwen3-8B\n")
    path = tmp_path / "llm-d-values.yaml.j2"
    path.write_text("{# llm-d values #}\n{%- set m = 'Qwen/Qwen3-8B' -%}\nmodelArtifacts:\n  uri: hf://Qwen/Qwen3-8B\n"
                    "{% if mode == 'agg' -%}\n" + role.format(name="decode", tp=1) + "{% else -%}\n"
                    + role.format(name="decode", tp=2) + role.format(name="prefill", tp=4) + "{% endif %}\n")
    deps = read_path(str(path)).deployments
    assert sorted((d.engine, d.name, d.get("tp_size"), d.launch_span.line if d.launch_span else 0) for d in deps) == \
        [("sglang", "decode/sglang", 1, 13), ("sglang", "decode/sglang", 2, 25), ("sglang", "prefill/sglang", 4, 36)]


def test_a_list_of_named_parameters_is_read_as_the_map_it_stands_for(tmp_path):
    """Turn 38's K339 (Kalavai's job values, `kalavai job run vllm --values values.yaml`): a list of `{name, value,
    default, description}` entries, `model_id`, `tensor_parallel_size`, `pipeline_parallel_size` among them. The
    list is a map of its names to its values, read by the settings finder, the engine named by the file's name or by
    an entry's text (`the vLLM server`). A list naming no engine, or one with no model, is no launch."""
    entries = ("- name: model_id\n  value: Qwen/Qwen2.5-1.5B-Instruct\n  default: null\n"
               "- name: tensor_parallel_size\n  value: \"2\"\n  default: \"1\"\n"
               "- name: pipeline_parallel_size\n  value: 2\n  default: 1\n"
               "- name: extra\n  value: \"--dtype float16\"\n  description: \"{what}\"\n")
    path = tmp_path / "values.yaml"
    path.write_text(entries.format(what="Extra parameters to pass to the vLLM server"))
    (dep,) = read_path(str(path)).deployments
    assert (dep.engine, dep.model, dep.get("tensor_parallel_size"), dep.get("pipeline_parallel_size")) == \
        ("vllm", "Qwen/Qwen2.5-1.5B-Instruct", 2, 2)
    assert dep.model_span is not None and dep.model_span.line == 2
    named = tmp_path / "sglang-qwen.yaml"
    named.write_text(entries.format(what="extra arguments").replace("tensor_parallel_size", "tp_size"))
    assert [d.engine for d in read_path(str(named)).deployments] == ["sglang"]
    path.write_text(entries.format(what="extra arguments"))
    assert not read_path(str(path)).deployments


def test_go_pod_specs_joining_strings_with_plus_are_read_with_their_image(tmp_path):
    """Turn 38's K343 (llm-d's snapshot-agent tests, Go): `enginePod(h, "vllm", "vllm/vllm-openai:v0.25.1",
    []string{"python3", "-m", "vllm.entrypoints.openai.api_server"}, []string{"--model=" + h.Model, ...})`. A string
    joined with `+` is one item (the name a `${...}` the program fills in), so the argument list is read, and the
    engine image the call is given beside it is the launch's image (not an item of a list that holds it)."""
    path = tmp_path / "engines.go"
    path.write_text('package x\n\nvar VLLM = EngineSpec{\n\tBuildPod: func(h *Harness) *corev1.Pod {\n'
                    '\t\treturn enginePod(h, "vllm", "vllm/vllm-openai:v0.25.1",\n'
                    '\t\t\t[]string{"python3", "-m", "vllm.entrypoints.openai.api_server"},\n'
                    '\t\t\t[]string{\n\t\t\t\t"--model=" + h.Model,\n\t\t\t\t"--gpu-memory-utilization=0.5",\n'
                    '\t\t\t\t"--port=8000",\n\t\t\t},\n\t\t)\n\t},\n}\n')
    (dep,) = read_path(str(path)).deployments
    assert (dep.engine, dep.model, dep.image) == ("vllm", "${h.Model}", "vllm/vllm-openai:v0.25.1")
    assert dep.get("gpu_memory_utilization") == 0.5 and dep.model_span is not None and dep.model_span.line == 8


def test_a_markdown_block_with_no_label_that_opens_with_an_import_is_python(tmp_path):
    """Turn 38's K345 (TeleChat3's SGLang tutorial): a ``` block with no language holding `from sglang.test.doc_patch
    import launch_server_cmd` then `launch_server_cmd("python3 -m sglang.launch_server --model-path M ...")`. The
    block is a program: read by the Python reader, whose command strings are launches; a plain block of commands
    stays the shell's."""
    path = tmp_path / "sglang.md"
    path.write_text('## Serve\n```\nfrom sglang.utils import launch_server_cmd\n\nproc, port = launch_server_cmd(\n'
                    '    "python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --tp 2"\n)\n```\n\n'
                    '```\nvllm serve Qwen/Qwen3-8B --max-model-len 8192\n```\n')
    deps = read_path(str(path)).deployments
    assert [(d.engine, d.model, d.launch_span.line if d.launch_span else 0) for d in deps] == \
        [("sglang", "Qwen/Qwen3-8B", 6), ("vllm", "Qwen/Qwen3-8B", 11)]


def test_a_cloud_build_deploy_on_gpus_with_its_model_in_the_environment_is_said(tmp_path):
    """Turn 37's K328 (a Cloud Build file, silent before): a step runs `gcloud run deploy` of the repository's own
    image with `args:` items `--gpu=1`, `--gpu-type=nvidia-l4` and `--set-env-vars=MODEL_NAME=qwen3-8b-awq`, in a
    file that names vLLM. The service runs a build whose entry point holds the command: one KV008 info at the model
    variable, the GPU found among the step's list items as on a command's continued lines."""
    path = tmp_path / "cloudbuild.yaml"
    path.write_text("steps:\n  - name: gcr.io/cloud-builders/gcloud\n    args:\n      - run\n      - deploy\n"
                    "      - llm-api\n      - --image=europe-docker.pkg.dev/p/r/llm-api:latest\n      - --gpu=1\n"
                    "      - --set-env-vars=MODEL_NAME=qwen3-8b-awq\n# 40 mins for the vLLM image build\n"
                    "timeout: 2400s\n")
    result = read_path(str(path))
    assert not result.deployments
    assert [(f.code, f.span.line) for f in result.findings] == [("KV008", 9)]
    path.write_text(path.read_text().replace("      - --gpu=1\n", ""))
    assert not read_path(str(path)).findings


def test_a_command_line_handed_to_a_sourced_starter_function_is_read(tmp_path):
    """Turn 38's K342 (a Globus Compute launcher): `VLLM_CMD="vllm serve ${MODEL_NAME}"`, flags appended to it, then
    `start_model "$MODEL_NAME" "$VLLM_CMD" "$LOG_FILE" ...`, a function of a file the script sources. A function named
    for starting something, handed a whole engine command line as one argument, runs it: the launch is that command.
    A function of any other name (`log_cmd "$VLLM_CMD"`) is not read as running it."""
    path = tmp_path / "launch.sh"
    body = ('#!/bin/bash\nsource ./common.sh\nMODEL_NAME="$1"\nVLLM_CMD="vllm serve ${MODEL_NAME}"\n'
            'VLLM_CMD="${VLLM_CMD} --tensor-parallel-size 4"\nCALL "$MODEL_NAME" "$VLLM_CMD" "$LOG_FILE"\n')
    path.write_text(body.replace("CALL", "start_model"))
    (dep,) = read_path(str(path)).deployments
    assert (dep.engine, dep.get("tensor_parallel_size")) == ("vllm", 4)
    assert dep.launch_span is not None and dep.launch_span.line == 4
    path.write_text(body.replace("CALL", "log_cmd"))
    assert not read_path(str(path)).deployments


def test_a_dockerfile_writing_its_entry_script_from_the_workdir_is_read_as_the_shell_writes_it(tmp_path):
    """Turn 38's K347 (NuExtract's Dockerfiles): `RUN cat <<EOT > run.sh && chmod +x run.sh` with `python3 -m
    vllm.entrypoints.openai.api_server \\\\` then `--model numind/NuExtract-2.0-8B \\\\` lines, and `ENTRYPOINT [
    "./run.sh" ]`. The script written by a relative name from the WORKDIR is the one `./run.sh` runs, and an
    unquoted delimiter's body is the script as the shell writes it: `\\\\` one backslash, so the lines continue."""
    path = tmp_path / "Dockerfile"
    path.write_text('FROM vllm/vllm-openai:0.10.2\nWORKDIR /app\nRUN cat <<EOT > run.sh && chmod +x run.sh\n'
                    '#!/usr/bin/env bash\npython3 -m vllm.entrypoints.openai.api_server \\\\\n'
                    '    --model numind/NuExtract-2.0-8B \\\\\n    --max-model-len 8192 \\$@\nEOT\n'
                    'ENTRYPOINT [ "./run.sh" ]\n')
    (dep,) = read_path(str(path)).deployments
    assert (dep.engine, dep.model, dep.get("max_model_len")) == ("vllm", "numind/NuExtract-2.0-8B", 8192)
    assert dep.model_span is not None and dep.model_span.line == 6


def test_a_plugin_packages_own_server_module_is_a_launch_of_its_engine(tmp_path):
    """Turn 38's K346 (a ComfyUI node's README): `python -m vllm_omni.entrypoints.openai.serving_image --model
    Qwen/Qwen-Image --port 8000`, vLLM-Omni's image server (the `vllm-omni` package of kvlint/data/plugins.json). A
    plugin package's entry-point module is a launch of the engine it is built on, as a wrapper: an option the engine
    has not is the plugin's, noted, not reported as one a stock server exits on."""
    path = tmp_path / "README.md"
    path.write_text("```bash\npython -m vllm_omni.entrypoints.openai.serving_image \\\n  --model Qwen/Qwen-Image \\\n"
                    "  --port 8000 --num-inference-steps 30\n```\n")
    (dep,) = read_path(str(path)).deployments
    assert (dep.engine, dep.model, dep.get("port")) == ("vllm", "Qwen/Qwen-Image", 8000)
    assert not dep.unknown_flags and any("vllm_omni" in n for n in dep.notes)
