"""Shapes the turn-37 held-out samples (and the turn-36 leftovers) showed kvlint passing over or misreading, each read
by a mechanism, not a case."""

from __future__ import annotations

from kvlint.launches import read_path


def test_a_dockerfile_env_value_quoted_with_spaces_is_one_value(tmp_path):
    """Turn 36's K323 (RunPod worker): `ENV SGLANG_SERVER_CMD="python3 -m sglang.launch_server ..."` then
    `CMD ["bash", "-c", "$SGLANG_SERVER_CMD"]`. Docker splits ENV pairs as a shell does, so the quoted command is
    one value, which the shell the CMD starts expands into the engine's command line. Before, the value was cut at
    its spaces (`SGLANG_SERVER_CMD=python3`) and the image was said to start the engine with no model."""
    path = tmp_path / "Dockerfile"
    path.write_text('FROM ubuntu:22.04\n'
                    'ENV SGLANG_SERVER_CMD="python3 -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct'
                    ' --tp 2" PORT=30000\n'
                    'ARG TAG="v 1"\n'
                    'CMD ["bash", "-c", "$SGLANG_SERVER_CMD --port $PORT"]\n')
    (dep,) = read_path(str(path)).deployments
    assert (dep.engine, dep.model) == ("sglang", "Qwen/Qwen2.5-7B-Instruct")
    assert dep.get("tp_size") == 2 and dep.get("port") == 30000
    # an unbalanced quote is read word by word, as before, and gives no traceback
    path.write_text('FROM ubuntu:22.04\nENV A="x y\nCMD ["bash", "-c", "$A"]\n')
    assert not read_path(str(path)).deployments


def test_an_entry_point_handed_its_arguments_by_an_empty_default_is_the_image(tmp_path):
    """Turn 37's K327 (tpu-inference's image): `exec python3 -m vllm.entrypoints.openai.api_server ${VLLM_ARGS:-}`
    in `docker/entrypoint.sh`: the variable with an empty default is the environment's, as `$VLLM_ARGS` is, so the
    script is the image (counting rule 5), said by a KV008 info; a default with a model keeps it a launch."""
    path = tmp_path / "docker" / "entrypoint.sh"
    path.parent.mkdir()
    path.write_text('#!/bin/bash\nset -e\nexec python3 -m vllm.entrypoints.openai.api_server ${VLLM_ARGS:-}\n')
    result = read_path(str(path))
    assert not result.deployments
    assert [f.code for f in result.findings] == ["KV008"] and result.findings[0].span.line == 3
    path.write_text('#!/bin/bash\nexec vllm serve "${MODEL:-}" --port 8000\n')
    assert not read_path(str(path)).deployments
    path.write_text('#!/bin/bash\nexec vllm serve "${MODEL:-Qwen/Qwen3-8B}" --port 8000\n')
    (dep,) = read_path(str(path)).deployments
    assert dep.model == "Qwen/Qwen3-8B"


def test_a_ruby_program_building_an_engine_command_line_is_read(tmp_path):
    """Turn 37's K327 (ubicloud's inference-endpoint control plane, Ruby): the `vllm serve` command line is a string
    with `#{...}` interpolations. Scripting languages' files (Ruby, Perl, PHP, Lua, Elixir, Julia, R) are walked and
    read as Jenkinsfiles are: each string holding an engine's entry point, as shell."""
    from kvlint.launches import iter_files

    path = tmp_path / "nexus.rb"
    path.write_text('def cmd\n  case engine\n  when "vllm"\n'
                    '    "/opt/env/bin/vllm serve /ie/models/model --served-model-name #{name} --max-model-len 8192"\n'
                    '  end\nend\n')
    assert [p for p, why in iter_files([str(tmp_path)]) if why is None] == [str(path)]
    (dep,) = read_path(str(path)).deployments
    assert (dep.engine, dep.model, dep.get("max_model_len")) == ("vllm", "/ie/models/model", 8192)
    assert dep.model_span is not None and dep.model_span.line == 4


def test_the_agentic_api_switch_names_the_package_that_owns_its_options(tmp_path):
    """Turn 37's K327: `vllm serve M --agentic-api --gateway-port 9000` runs vllm-project/agentic-stack's own `vllm`
    command (kvlint/data/plugins.json), whose gateway options are its own: KV004 infos naming the package, not
    warnings that a stock vLLM exits. Without the switch the same option is still a stock vLLM's refusal."""
    from kvlint.findings import Severity
    from kvlint.lint import LintOptions, lint

    path = tmp_path / "run.sh"
    path.write_text("vllm serve Qwen/Qwen3-8B --agentic-api --port 8000 --gateway-port 9000\n")
    found = [f for f in lint([str(path)], LintOptions()).findings if f.code == "KV004"]
    assert [f.severity for f in found] == [Severity.INFO, Severity.INFO]
    assert all("agentic-api, a package built on vLLM" in f.message for f in found)
    other = tmp_path / "other.sh"
    other.write_text("vllm serve Qwen/Qwen3-8B --port 8000 --gateway-port 9000\n")
    assert [f.severity for f in lint([str(other)], LintOptions()).findings if f.code == "KV004"] == [Severity.WARNING]


def test_a_drawing_in_a_plain_block_is_no_command(tmp_path):
    """Turn 37's K325 (a vLLM fork's Deployment.md): an unlabelled block drawing the process tree, `vllm serve (main
    process)` above `├─ AsyncLLM`, was read as a launch of vLLM's default model. A plain block drawn with box-drawing
    characters is a diagram; the same line in a ```bash block, or a plain block without a drawing, is still read."""
    path = tmp_path / "Deployment.md"
    drawing = "```\nvllm serve (main process)\n│\n├─ AsyncLLM\n```\n"
    command = "```\nvllm serve Qwen/Qwen3-8B --max-model-len 8192\n```\n"
    path.write_text(drawing + "\n" + command)
    (dep,) = read_path(str(path)).deployments
    assert dep.model == "Qwen/Qwen3-8B" and dep.model_span is not None and dep.model_span.line == 8
    path.write_text("```bash\nvllm serve Qwen/Qwen3-8B  # └─ the server\n```\n")
    assert [d.model for d in read_path(str(path)).deployments] == ["Qwen/Qwen3-8B"]


def test_an_error_message_naming_the_command_is_no_launch(tmp_path):
    """Turn 37's K326 (a benchmark harness): `raise RuntimeError(f"vllm serve exited early ...")` and `raise
    TimeoutError(f"vllm serve did not become healthy ...")` after the real `subprocess.Popen([... "serve", model,
    ...])` were read as two more launches (models "exited" and "did"). An error's message is told, not run, as a
    print or a log line is."""
    path = tmp_path / "server.py"
    path.write_text('import subprocess, sys\n\n\ndef start(model="Qwen/Qwen3-8B"):\n'
                    '    proc = subprocess.Popen(["vllm", "serve", model, "--max-model-len", "8192"])\n'
                    '    if proc.poll() is not None:\n'
                    '        raise RuntimeError(f"vllm serve exited early (code {proc.returncode})")\n'
                    '    sys.exit("vllm serve did not become healthy")\n')
    (dep,) = read_path(str(path)).deployments
    assert dep.model == "Qwen/Qwen3-8B" and dep.get("max_model_len") == 8192


def test_a_case_on_a_value_the_callers_option_overrides_keeps_every_arm(tmp_path):
    """Turn 37's K326 (QAnything's start script): `runtime_backend="default"`, getopts' `b) runtime_backend=$OPTARG`,
    then `case $runtime_backend in ... "vllm") python3 -m vllm.entrypoints.openai.api_server ...`. The default stands
    for the values a launch is sized with, but it does not make the other arms dead: `-b vllm` runs that arm. A
    subject the script fixes still prunes its arms."""
    path = tmp_path / "run.sh"
    body = ('case $backend in\n"hf")\n    python3 -m fastchat.serve.model_worker --model-path /m/x\n    ;;\n'
            '"vllm")\n    python3 -m vllm.entrypoints.openai.api_server --model Qwen/Qwen3-8B --port 8000 &\n    ;;\n'
            'esac\n')
    path.write_text('#!/bin/bash\nbackend="default"\nwhile getopts ":b:" opt; do\n  case $opt in\n'
                    '    b) backend=$OPTARG ;;\n  esac\ndone\n' + body)
    (dep,) = read_path(str(path)).deployments
    assert dep.model == "Qwen/Qwen3-8B" and dep.model_span is not None and dep.model_span.line == 13
    path.write_text('#!/bin/bash\nbackend="default"\n' + body)
    assert not read_path(str(path)).deployments


_SERVE_APP = """\
applications:
  - name: app
    route_prefix: /
    import_path: src.main:deployment
    deployments:
      - name: VLLMDeployment
        ray_actor_options:
          num_gpus: 1
        user_config:
          engine_args:
            model: Qwen/Qwen2.5-7B-Instruct
            tensor_parallel_size: 1
            max_model_len: 16384
"""


def test_a_serve_application_handing_engine_args_to_its_own_class_is_a_launch(tmp_path):
    """Turn 37's K324: a Ray Serve config (`serve build` output) deploying the repository's own VLLMDeployment, which
    builds vLLM's engine from `user_config.engine_args` (Ray's vLLM example). `engine_args` is vLLM's name for its
    settings: the map is the launch's, each value at its place. An application with no such map stays none."""
    path = tmp_path / "deployment.yaml"
    path.write_text(_SERVE_APP)
    (dep,) = read_path(str(path)).deployments
    assert (dep.engine, dep.model) == ("vllm", "Qwen/Qwen2.5-7B-Instruct")
    assert dep.get("max_model_len") == 16384 and dep.settings["max_model_len"].span.line == 13
    path.write_text(_SERVE_APP.replace("engine_args", "app_settings"))
    assert not read_path(str(path)).deployments


_ROLE = """\
- name: Build vLLM command
  ansible.builtin.set_fact:
    _vllm_command: >-
      --model {{ vllm_model }}
      --max-model-len 8192
      {% if vllm_enforce_eager | bool %}--enforce-eager{% endif %}

- name: Start vLLM container
  community.docker.docker_container:
    name: vllm
    image: "{{ vllm_image }}"
    device_requests:
      - driver: nvidia
        count: -1
    command: "{{ _vllm_command }}"
"""


def test_a_container_task_whose_command_a_set_fact_built_is_read_there(tmp_path):
    """Turn 37's K326 (sbnb's vLLM role, passed over in silence): `command: "{{ _vllm_command }}"` of a
    docker_container task whose image is a variable, the command built by an earlier `set_fact` from vLLM's own
    flags. The lone variable is read as the value the play gave it, where it wrote it; the flag an `{% if %}` adds
    only under a condition is not assumed; the engine is the one the flags are unmistakably of."""
    path = tmp_path / "main.yml"
    path.write_text(_ROLE)
    (dep,) = read_path(str(path)).deployments
    assert (dep.engine, dep.model) == ("vllm", "{{ vllm_model }}")
    assert dep.model_span is not None and dep.model_span.line == 4
    assert dep.get("max_model_len") == 8192 and dep.get("enforce_eager") is None
    path.write_text(_ROLE.replace("_vllm_command: >-", "_other: >-"))
    assert not read_path(str(path)).deployments


def test_a_json_block_of_a_document_is_read_as_the_job_it_shows(tmp_path):
    """Turn 37's K330 (Nosana's docs, passed over in silence): each example is a job definition in a ```json block,
    `{"image": "docker.io/vllm/vllm-openai:v0.5.4", "cmd": ["--model", ...]}`. A JSON block that names an engine is
    read as the JSON file it shows, each value at its line; one that names none (a request body) is not read."""
    path = tmp_path / "vllm.md"
    path.write_text('# Jobs\n\n```json\n{\n  "ops": [\n    {\n      "type": "container/run",\n      "args": {\n'
                    '        "cmd": ["--model", "Qwen/Qwen2.5-7B-Instruct", "--max-model-len", "4096"],\n'
                    '        "image": "docker.io/vllm/vllm-openai:v0.5.4",\n        "gpu": true\n      }\n    }\n  ]\n}\n'
                    '```\n\n```json\n{"model": "Qwen/Qwen2.5-7B-Instruct", "max_tokens": 64}\n```\n')
    (dep,) = read_path(str(path)).deployments
    assert (dep.engine, dep.model, dep.get("max_model_len")) == ("vllm", "Qwen/Qwen2.5-7B-Instruct", 4096)
    assert dep.model_span is not None and dep.model_span.line == 9


def test_an_llm_inference_service_whose_main_container_is_a_simulator_starts_no_engine(tmp_path):
    """Turn 37's K330: a KServe LLMInferenceService whose template's main container runs llm-d's inference simulator
    (`image: ghcr.io/llm-d/llm-d-inference-sim:v0.7.1`) answers the API without an engine; with vLLM's own image, or
    no image, the controller's vLLM serves the model."""
    path = tmp_path / "model.yaml"
    body = ('apiVersion: serving.kserve.io/v1alpha1\nkind: LLMInferenceService\nmetadata:\n  name: sim\nspec:\n'
            '  model:\n    uri: hf://facebook/opt-125m\n  template:\n    containers:\n      - name: main\n'
            '        image: "{image}"\n        args: [--model, facebook/opt-125m]\n')
    path.write_text(body.format(image="ghcr.io/llm-d/llm-d-inference-sim:v0.7.1"))
    assert not read_path(str(path)).deployments
    path.write_text(body.format(image="vllm/vllm-openai:v0.10.2"))
    (dep,) = read_path(str(path)).deployments
    assert dep.engine == "vllm"


def test_an_operators_key_the_engine_would_refuse_is_not_asserted(tmp_path):
    """Turn 37's K329: a custom InferenceService of the repository's own operator with `gpuMemoryUtilization: 85`
    (a percentage its controller may divide by 100). The memory model's refusal of a value such a key gave is a
    KV007 info naming the controller, not an error that vLLM exits; the same value written as the flag stays one."""
    from kvlint.findings import Severity
    from kvlint.lint import LintOptions, lint

    path = tmp_path / "qwen.yaml"
    path.write_text('apiVersion: serving.platform.io/v1alpha1\nkind: InferenceService\nmetadata:\n  name: q\nspec:\n'
                    '  model: Qwen/Qwen2.5-0.5B-Instruct\n  backend: vLLM\n  maxModelLen: 2048\n'
                    '  gpuMemoryUtilization: 85\n')
    found = [f for f in lint([str(path)], LintOptions()).findings if f.code == "KV007"]
    assert [(f.severity, f.span.line if f.span else None) for f in found] == [(Severity.INFO, 9)]
    script = tmp_path / "run.sh"
    script.write_text("vllm serve Qwen/Qwen2.5-0.5B-Instruct --gpu-memory-utilization 85\n")
    assert [f.severity for f in lint([str(script)], LintOptions()).findings if f.code == "KV007"] == [Severity.ERROR]


def test_a_script_whose_header_places_it_on_another_accelerator_is_not_swept_over_gpus(tmp_path):
    """Turn 37's K331 (tt-xla's Gemma example): `# ... through the tt-xla vLLM plugin on a` / `# Tenstorrent BHQB
    4-chip host` above `vllm serve google/gemma-4-31B-it --gpu-memory-utilization 0.1`: swept over the GPU catalogue
    it "needed 580 GiB per GPU" (a KV108 error). The header says where it runs: not sized over GPUs. A header that
    names a device in passing, not as where the script runs, leaves the launch a GPU's."""
    from kvlint.lint import LintOptions, lint

    path = tmp_path / "service.sh"
    path.write_text("# Serves the model through the plugin on a\n# Tenstorrent 4-chip host (1x4 mesh).\n"
                    "vllm serve Qwen/Qwen2.5-7B-Instruct --gpu-memory-utilization 0.1\n")
    (dep,) = read_path(str(path)).deployments
    assert dep.gpu == "tenstorrent"
    assert not [f for f in lint([str(path)], LintOptions()).findings if f.code == "KV108"]
    path.write_text("# Unlike TPUs, GPUs page the cache.\nvllm serve Qwen/Qwen2.5-7B-Instruct\n")
    (dep,) = read_path(str(path)).deployments
    assert dep.gpu is None


def test_run_module_of_the_engine_after_extending_sys_argv_is_a_launch(tmp_path):
    """Turn 37's K331 (vllm-tt-plugin's server example): `args, _ = parser.parse_known_args()` with `--model`
    defaulting to a model, `sys.argv.extend(["--model", args.model, "--max_num_seqs", ...])`, then
    `runpy.run_module("vllm.entrypoints.openai.api_server", run_name="__main__")`: the engine's module runs as a
    program on those arguments, the model the option's default."""
    path = tmp_path / "server.py"
    path.write_text('import argparse, runpy, sys\n\n\ndef main():\n    parser = argparse.ArgumentParser()\n'
                    '    parser.add_argument("--model", default="meta-llama/Llama-3.1-8B-Instruct")\n'
                    '    args, _ = parser.parse_known_args()\n'
                    '    sys.argv.extend(["--model", args.model, "--max_num_seqs", "32"])\n'
                    '    runpy.run_module("vllm.entrypoints.openai.api_server", run_name="__main__")\n')
    (dep,) = read_path(str(path)).deployments
    assert (dep.engine, dep.model, dep.get("max_num_seqs")) == ("vllm", "meta-llama/Llama-3.1-8B-Instruct", 32)
    path.write_text(path.read_text().replace("runpy.run_module", "print"))
    assert not read_path(str(path)).deployments


def test_an_entry_point_serving_a_mounted_folder_of_the_environments_model_is_the_image(tmp_path):
    """Turn 37's K328 (a Cloud Run image's startup.sh): `MODEL_PATH="/models/${MODEL_NAME}"` then `--model
    "${MODEL_PATH}"`: the folder is the image's mount, the model the environment's, so the script is the image (rule
    5), said by KV008; a fixed model name in the path keeps it a launch."""
    path = tmp_path / "startup.sh"
    path.write_text('#!/bin/bash\nMODEL_PATH="/models/${MODEL_NAME}"\n'
                    'exec python3 -m vllm.entrypoints.openai.api_server --model "${MODEL_PATH}" --max-model-len 8192\n')
    result = read_path(str(path))
    assert not result.deployments and [f.code for f in result.findings] == ["KV008"]
    path.write_text(path.read_text().replace("${MODEL_NAME}", "qwen3-8b"))
    assert [d.model for d in read_path(str(path)).deployments] == ["/models/qwen3-8b"]


def test_a_cloud_build_step_running_gcloud_run_deploy_is_read_as_the_container_it_deploys(tmp_path):
    """Turn 37's K329: a Cloud Build step `entrypoint: gcloud` with `args: [run, deploy, SERVICE, --image=...,
    --gpu=1, --gpu-type=nvidia-l4, --args=--model=M, ...]` deploys a vLLM image on Cloud Run: the entry point and
    its arguments are one command line, read as `gcloud run deploy` is in a script."""
    path = tmp_path / "cloudbuild.yaml"
    path.write_text("steps:\n- name: gcr.io/google.com/cloudsdktool/cloud-sdk\n  entrypoint: gcloud\n  args:\n"
                    "  - run\n  - deploy\n  - svc\n  - --image=us-docker.pkg.dev/p/r/gemma-vllm-service:latest\n"
                    "  - --gpu=1\n  - --gpu-type=nvidia-l4\n  - --args=--model=google/gemma-2-9b-it\n"
                    "  - --args=--max-model-len=4096\n")
    (dep,) = read_path(str(path)).deployments
    assert (dep.engine, dep.model, dep.get("max_model_len")) == ("vllm", "google/gemma-2-9b-it", 4096)
    assert (dep.gpu, dep.gpu_count) == ("nvidia-l4", 1)  # the product as written; the catalogue resolves it


def test_jinja_tags_in_a_flag_string_are_read_in_one_pass():
    """The tags of a templated command string are blanked in one pass: nested ifs are one conditional part, an `{%
    if %}` never closed makes the rest conditional, and every kept character stays at its column."""
    from kvlint.launches.k8s import _without_jinja_tags
    from kvlint.sources.text import Mapped

    text = "--model m {% if a %}--x {% if b %}--y{% endif %}{% endif %} --port 1 {% set z = 1 %}"
    out = _without_jinja_tags(Mapped.whole("f", text)).text
    assert out.split() == ["--model", "m", "--port", "1"] and len(out) == len(text)
    assert out.index("--port") == text.index("--port")
    assert _without_jinja_tags(Mapped.whole("f", "--model m {% if a %}--x --y")).text.split() == ["--model", "m"]


def test_two_replicas_sharing_a_single_node_command_are_two_launches(tmp_path):
    """Turn 37's K333: two compose services run one anchor's `sglang serve ... --tp 4 --dist-init-addr
    127.0.0.1:29500` on their own four GPUs. A rendezvous address with no `--nnodes` is one node, so each service is
    a deployment of its own; with `--nnodes 2` the same pair would be the nodes of one deployment."""
    path = tmp_path / "compose.yaml"
    body = ("x-cmd: &cmd >\n  sglang serve --model-path Qwen/Qwen2.5-7B-Instruct --tp 4\n"
            "  --dist-init-addr 127.0.0.1:29500{extra}\nservices:\n  r1:\n    image: lmsysorg/sglang:v0.5.4\n"
            "    command: *cmd\n  r2:\n    image: lmsysorg/sglang:v0.5.4\n    command: *cmd\n")
    path.write_text(body.format(extra=""))
    assert [d.name for d in read_path(str(path)).deployments] == ["r1", "r2"]
    path.write_text(body.format(extra="\n  --nnodes 2 --node-rank 0"))
    assert len(read_path(str(path)).deployments) == 1


def test_a_runbook_running_a_vendor_device_tool_runs_the_vendors_build(tmp_path):
    """Turn 37's K331 (a Tenstorrent QuietBox guide): the document's blocks run `tt-smi -s`, so its vLLM commands run
    on Tenstorrent chips, where only the vendor's build or plugin of vLLM serves: not swept over GPUs, and an option
    no stock release has (`--num_gpus 4`) is that build's to decide (a KV004 info, not an error). Without the tool
    the same command is a GPU's, and stock vLLM's refusal stands."""
    from kvlint.findings import Severity
    from kvlint.lint import LintOptions, lint

    path = tmp_path / "guide.md"
    body = "```bash\n{tool}python3 -m vllm.entrypoints.openai.api_server --model Qwen/Qwen3-0.6B --num_gpus 1\n```\n"
    path.write_text(body.format(tool="tt-smi -s\n"))
    (dep,) = read_path(str(path)).deployments
    assert dep.gpu == "tenstorrent"
    kv004 = [f for f in lint([str(path)], LintOptions()).findings if f.code == "KV004"]
    assert [f.severity for f in kv004] == [Severity.INFO] and "Tenstorrent chips" in kv004[0].message
    other = tmp_path / "gpu.md"
    other.write_text(body.format(tool=""))
    assert [f.severity for f in lint([str(other)], LintOptions()).findings if f.code == "KV004"] == [Severity.ERROR]
