"""Shapes the turn-44 work showed kvlint passing over or misreading (the held-out samples K434-K441), each read by
a mechanism, not a case: every test writes the shape small, with the launches it must give (and the ones it must
not)."""

from __future__ import annotations

from kvlint.launches import read_path
from kvlint.sources.templates import actions, detemplate

_TASKS = """{
  "variables": {"MODEL": "{{ infrastructure.model }}"},
  "tasks": [
    {
      "id": "start",
      "commands": [
{% if tp > 1 %}
        "export NCCL_DEBUG=INFO",
{% endif %}
        "nohup python3 -m vllm.entrypoints.openai.api_server --model {{"{{"}}MODEL{{"}}"}} --port 8100 &",
        "echo '[OK] started'"
      ]
    }
  ]
}
"""


def test_a_jinja_expression_closes_after_its_own_string_literals():
    """K435: `{{"{{"}}MODEL{{"}}"}}` is how a Jinja template writes a literal brace pair into its output (a second
    templating stage's `{{MODEL}}`). Each `{{ ... }}` is one action whose string literal may hold `}}`; cutting at
    the first `}}` left a stray quote that broke the JSON string around it."""
    line = 'a {{"{{"}}MODEL{{"}}"}} b {{ x }}'
    assert [line[s:e] for s, e in actions(line, {"{"})] == ['{{"{{"}}', '{{"}}"}}', "{{ x }}"]
    # an unclosed quote is a character, and a Go template's `{{ "}}" }}` the same action
    odd = '{{ "a }} z'
    assert [odd[s:e] for s, e in actions(odd, {"{"})] == ['{{ "a }}']
    assert detemplate('k: "{{ "}}" }}"\n').text.count("\u27e6") == 1


def test_a_jinja_json_task_file_with_escaped_braces_is_read(tmp_path):
    """The K435 task template as a whole: read as the JSON it renders, its command string a launch whose model is
    the second stage's placeholder (unresolved), and no `invalid YAML` error."""
    path = tmp_path / "unified.json.jinja2"
    path.write_text(_TASKS)
    result = read_path(str(path))
    assert [(d.engine, d.launch_span.line) for d in result.deployments] == [("vllm", 10)]
    assert not [f for f in result.findings if f.severity.name == "ERROR"]


def test_a_template_that_still_does_not_parse_is_an_info_not_an_invalid_yaml_error(tmp_path):
    """A template kvlint cannot read as YAML with its expressions set aside says nothing of the file it renders: the
    KV001 is an info naming what was not read, never an error against the user's file. A plain YAML file's own
    syntax error stays an error."""
    path = tmp_path / "pod.yaml.j2"
    path.write_text("a: {{ x }}\nb: [1, 2\n{% for i in r %}\nc: {{ i }}\n{% endfor %}\n")
    kv001 = [f for f in read_path(str(path)).findings if f.code == "KV001"]
    assert kv001 and all(f.severity.name == "INFO" for f in kv001)
    broken = tmp_path / "pod.yaml"
    broken.write_text("a: 1\nb: [1, 2\n")
    assert [f.severity.name for f in read_path(str(broken)).findings if f.code == "KV001"] == ["ERROR"]


def test_a_whole_line_placeholder_a_workflow_replaces_is_read_past(tmp_path):
    """K436: a KServe template whose workflow `sed`s `__VLLM_ARGS__` (a line of its own, standing for lines of YAML)
    and `__MODEL_ID__`: not YAML as written. The placeholder line is blanked as `$EXTRA_ARGS` lines are, and the
    launch is read with its model left to the workflow."""
    path = tmp_path / "kserve-template.yaml"
    path.write_text("apiVersion: serving.kserve.io/v1alpha1\nkind: ServingRuntime\nmetadata:\n  name: __NAME__\n"
                    "spec:\n  containers:\n  - command: [python3, -m, vllm.entrypoints.openai.api_server]\n"
                    "    args:\n    - --model=__MODEL_ID__\n__VLLM_ARGS__\n    image: \"__IMAGE__\"\n"
                    "    name: kserve-container\n")
    result = read_path(str(path))
    assert [d.engine for d in result.deployments] == ["vllm"]
    assert not [f for f in result.findings if f.code == "KV001" and f.severity.name == "ERROR"]


def test_a_patched_cli_handed_serve_and_a_variable_or_template_model_is_a_launch(tmp_path):
    """K436: `exec /tmp/_vllm_patched serve {{ model_name }} --port 8000 --tensor-parallel-size ...` (a script the
    manifest writes that runs vLLM's CLI after a patch): a program handed `serve`, a model and vLLM's flags is that
    CLI's launch, and a model written as a variable named for one, or a template expression named for one, is a
    model word as much as a Hub id is. A word that is neither stays no model."""
    for i, model in enumerate(('"$MODEL"', "{{ model_name }}", "{{ .Values.modelId }}")):
        path = tmp_path / f"run{i}.sh"
        path.write_text(f"#!/bin/bash\n# vllm\nexec /tmp/_vllm_patched serve {model} --port 8000 "
                        "--tensor-parallel-size 2 --max-model-len 4096\n")
        assert [d.engine for d in read_path(str(path)).deployments] == ["vllm"], model
    path = tmp_path / "other.sh"
    path.write_text("#!/bin/bash\n# vllm\nexec /tmp/_vllm_patched serve fast --port 8000 --tensor-parallel-size 2\n")
    assert read_path(str(path)).deployments == []


def test_an_inline_python_program_that_execs_its_arguments_is_a_launcher(tmp_path):
    """K434: a container's `python3 -c "...os.execvp(command[0], command)" REV sglang 0.5.16 python3 -m
    sglang.launch_server --model-path /model ...` (a revision check, then the server): the interpreter runs the
    command among its arguments, as a launcher does. A `-c` program that starts no process is no launcher."""
    run = 'python3 -c "import os, sys; os.execvp(sys.argv[3], sys.argv[3:])" abc sglang {rest}\n'
    path = tmp_path / "guard.sh"
    path.write_text("#!/bin/bash\n" + run.format(rest="python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B "
                                                      "--tp 2 --port 8000"))
    deps = read_path(str(path)).deployments
    assert [(d.engine, d.model) for d in deps] == [("sglang", "Qwen/Qwen3-8B")]
    quiet = tmp_path / "print.sh"
    quiet.write_text('#!/bin/bash\npython3 -c "import sys; print(sys.argv)" python3 -m sglang.launch_server '
                     "--model-path Qwen/Qwen3-8B --tp 2\n")
    assert read_path(str(quiet)).deployments == []


def test_verifiers_vllm_server_in_a_python_command_string_is_a_launch(tmp_path):
    """K435: `os.system(f"CUDA_VISIBLE_DEVICES=0,1 uv run vf-vllm --model {MODEL_NAME} --data-parallel-size 2")`:
    verifiers' `vf-vllm` is vLLM's OpenAI server with a weight-sync route, taking vLLM's flags. The program is a
    known engine starter, and a Python string that names it is a command string as one naming `vllm serve` is."""
    path = tmp_path / "inf.py"
    path.write_text('import os\nMODEL_NAME = "Qwen/Qwen3-4B"\n\ndef main():\n    os.system(\n'
                    '        f"CUDA_VISIBLE_DEVICES=0,1 uv run vf-vllm --model {MODEL_NAME} --data-parallel-size 2"\n'
                    "    )\n")
    deps = read_path(str(path)).deployments
    assert [(d.engine, d.model, d.get("data_parallel_size")) for d in deps] == [("vllm", "Qwen/Qwen3-4B", 2)]


def test_a_debugger_that_runs_the_engines_module_is_a_launcher(tmp_path):
    """K444: `python -m debugpy --listen 0.0.0.0:5678 --wait-for-client -m vllm.entrypoints.cli.main serve M ...`
    (and debugpy's own program): the debugger runs the module with the words after it, as torchrun's `-m` does."""
    for i, program in enumerate(("python -m debugpy", "debugpy")):
        path = tmp_path / f"debug{i}.sh"
        path.write_text(f"#!/bin/bash\n{program} --listen 0.0.0.0:5678 --wait-for-client \\\n"
                        "    -m vllm.entrypoints.cli.main serve Qwen/Qwen3-8B --tensor-parallel-size 2\n")
        deps = read_path(str(path)).deployments
        assert [(d.engine, d.model, d.get("tensor_parallel_size")) for d in deps] == [("vllm", "Qwen/Qwen3-8B", 2)]


def test_a_leader_that_starts_ray_by_vllms_script_in_a_group_kvlint_summed_keeps_the_group(tmp_path):
    """vLLM's `multi-node-serving.sh leader` starts a Ray head (as `ray start` does), which leaves a lone pod's node
    count open; in a LeaderWorkerSet whose GPUs kvlint already summed over `size`, the cluster is that group: the
    count stays the group's, not an open range."""
    path = tmp_path / "lws.yaml"
    path.write_text("apiVersion: leaderworkerset.x-k8s.io/v1\nkind: LeaderWorkerSet\nmetadata: {name: m}\nspec:\n"
                    "  leaderWorkerTemplate:\n    size: 2\n    leaderTemplate:\n      spec:\n        containers:\n"
                    "          - name: leader\n            image: vllm/vllm-openai:v0.33.0\n"
                    "            command: [sh, -c]\n            args:\n              - |\n"
                    "                bash /vllm-workspace/examples/online_serving/multi-node-serving.sh leader "
                    "--ray_cluster_size=$(LWS_GROUP_SIZE)\n"
                    "                vllm serve Qwen/Qwen3-8B --tensor-parallel-size 8\n"
                    "            resources: {limits: {nvidia.com/gpu: 8}}\n    workerTemplate:\n      spec:\n"
                    "        containers:\n          - name: worker\n            image: vllm/vllm-openai:v0.33.0\n"
                    "            resources: {limits: {nvidia.com/gpu: 8}}\n")
    [dep] = read_path(str(path)).deployments
    assert dep.gpu_count == 16 and "nnodes" not in dep.settings


def test_a_program_of_an_image_named_for_the_engine_given_its_own_options_is_no_launch(tmp_path):
    """K447: `docker run ... bigdl-llm/triton_vllm:latest tritonserver --model-store /model_repository` (Triton with
    its vLLM backend): the image's name holds the engine's, and `tritonserver` was read as the served model. A bare
    word followed by an option the engine has under no spelling or prefix is the image's program. A bare local model
    followed by the engine's own flags stays a launch."""
    path = tmp_path / "run.sh"
    path.write_text("docker run --rm bigdl-llm/triton_vllm:latest tritonserver --model-store /model_repository\n")
    assert read_path(str(path)).deployments == []
    kept = tmp_path / "kept.sh"
    kept.write_text("docker run --rm --gpus all my/vllm-build:1 mymodel --max-model-len 4096\n")
    assert [d.engine for d in read_path(str(kept)).deployments] == ["vllm"]


def test_a_yaml_template_unreadable_with_its_expressions_set_aside_is_read_by_its_statements(tmp_path):
    """The other side of the template info above: a compose file whose flow list holds a Jinja `{% if %}` inline does
    not read with its expressions set aside (now an info, not an error), so it is read as the template it is, its
    statements blanked: the launch is found, and no KV001 of any severity is left."""
    path = tmp_path / "docker-compose.yaml"
    path.write_text('services:\n  vllm:\n    image: vllm/vllm-openai:v0.10.1\n    command: ["--model", "{{ model }}"'
                    '{% if tp %}, "--tensor-parallel-size", "{{ tp }}"{% endif %}]\n')
    result = read_path(str(path))
    assert [d.engine for d in result.deployments] == ["vllm"]
    assert not [f for f in result.findings if f.code == "KV001" and "not readable" in f.message]
