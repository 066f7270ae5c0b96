"""Shapes the turn-34 held-out samples showed kvlint passing over or misreading, each read by a mechanism, not a
case."""

from __future__ import annotations

from kvlint.launches import read_path


def _at(span):
    return (span.line, span.col) if span is not None else None


def test_a_program_path_joined_from_a_relative_path_names_its_last_part(tmp_path):
    """Sample K290: `[str(ROOT / ".venv-vllm/bin/vllm"), "serve", MODEL, ...]` run by `os.execv`: the path's last
    name is the program, however many folders the written part holds."""
    program = tmp_path / "serve_vllm.py"
    program.write_text(
        "import os\nfrom pathlib import Path\nROOT = Path(__file__).resolve().parents[1]\n"
        'MODEL = "Qwen/Qwen2.5-3B-Instruct"\n'
        'command = [str(ROOT / ".venv-vllm/bin/vllm"), "serve", MODEL, "--max-model-len", "2048"]\n'
        "os.execv(command[0], command)\n")
    (dep,) = read_path(str(program)).deployments
    assert (dep.engine, dep.model, dep.get("max_model_len")) == ("vllm", "Qwen/Qwen2.5-3B-Instruct", 2048)
    assert _at(dep.model_span) == (5, 56)  # the name, where the list uses it
    program.write_text(program.read_text().replace('".venv-vllm/bin/vllm"', '".venv-vllm/bin/"'))
    assert read_path(str(program)).deployments == []


def test_a_compose_script_folded_with_more_indented_lines_is_cut_where_bash_cuts_it(tmp_path):
    """Sample K290: `command: >` then `bash -c "python3 -m vllm...api_server` and more-indented option lines: YAML
    keeps those newlines, so bash runs the entry point alone. The launch is the engine as the shell starts it, the
    cut carried on it for KV012; at one indentation the lines fold into one command, with its model."""
    compose = tmp_path / "docker-compose.yml"
    body = ('services:\n  vllm:\n    image: vllm/vllm-openai:v0.11.0\n    command: >\n'
            '      bash -c "python3 -m vllm.entrypoints.openai.api_server\n'
            '        --model $${MODEL:-Qwen/Qwen2.5-0.5B-Instruct}\n        --max-model-len 1024"\n')
    compose.write_text(body)
    (dep,) = read_path(str(compose)).deployments
    assert dep.model is None and dep.cut is not None and not dep.cut.joined and dep.cut.bare
    assert (dep.cut.comment.line, _at(dep.cut.words)) == (5, (6, 9))
    compose.write_text(body.replace("        --", "      --"))
    (dep,) = read_path(str(compose)).deployments
    assert (dep.model, dep.get("max_model_len"), dep.cut) == ("Qwen/Qwen2.5-0.5B-Instruct", 1024, None)
    assert _at(dep.model_span) == (6, 15)  # compose's `$$` is the shell's `$`: at the expression, as in a script


def test_a_shell_file_says_its_cut_once_and_its_launch_carries_none(tmp_path):
    """A script's reader says KV012 itself (once per cut, whatever reads the launch again); the rule says it for
    launches read from strings inside other files, so the script's launch leaves the record empty."""
    script = tmp_path / "serve.sh"
    script.write_text("vllm serve Qwen/Qwen2.5-0.5B-Instruct\n  --max-model-len 4096\n")
    result = read_path(str(script))
    (dep,) = result.deployments
    assert dep.cut is None and dep.get("max_model_len") is None
    assert [(f.code, f.span.line) for f in result.findings if f.code == "KV012"] == [("KV012", 2)]


_RUNAI = """\
{
  "apiVersion": "run.ai/v2alpha1",
  "kind": "InferenceWorkload",
  "spec": {
    "arguments": {"value": "--model org/m --max-model-len=8192 --tensor-parallel-size=1"},
    "command": {"value": "python3 -m vllm.entrypoints.openai.api_server"},
    "image": {"value": "vllm/vllm-openai:v0.11.0"}
  }
}
"""


def test_a_workload_whose_command_and_arguments_are_two_strings_is_one_launch(tmp_path):
    """Sample K292's Run:ai InferenceWorkload: `command` names the entry point, `arguments` its flags, each a string
    (here wrapped as `{value: ...}`; plain strings too): the two joined, each word at its place."""
    workload = tmp_path / "llm-server.json"
    workload.write_text(_RUNAI)
    (dep,) = read_path(str(workload)).deployments
    assert (dep.engine, dep.model, dep.get("max_model_len"), dep.image) == ("vllm", "org/m", 8192,
                                                                           "vllm/vllm-openai:v0.11.0")
    assert _at(dep.model_span) == (5, 37)
    plain = tmp_path / "workload.yaml"
    plain.write_text("apiVersion: run.ai/v2alpha1\nkind: InferenceWorkload\nspec:\n"
                     "  command: python3 -m vllm.entrypoints.openai.api_server\n"
                     "  arguments: --model org/m --max-model-len 4096\n")
    (dep,) = read_path(str(plain)).deployments
    assert (dep.model, dep.get("max_model_len"), _at(dep.model_span)) == ("org/m", 4096, (5, 22))
    plain.write_text(plain.read_text().replace("arguments:", "labels:"))
    assert read_path(str(plain)).deployments == []  # the entry point alone is an image's definition


_TEMPLATE = """\
apiVersion: scaffolder.backstage.io/v1beta3
kind: Template
spec:
  parameters:
    - title: Model
      properties:
        llmModel:
          type: string
          default: TinyLlama/TinyLlama-1.1B-Chat-v1.0
  steps:
    - id: values
      action: fetch:template
      input:
        content: |
          vllm:
            image: quay.io/org/vllm-cpu-openai-ubi9:latest
            model: ${{ parameters.llmModel }}
"""


def test_a_template_parameter_with_a_default_is_that_default_in_the_values_it_writes(tmp_path):
    """Sample K292's Backstage template writes a chart's values with `${{ parameters.llmModel }}`: read as the
    parameter's declared default, at the expression's place; without a default it stays open (no launch)."""
    template = tmp_path / "template.yaml"
    template.write_text(_TEMPLATE)
    (dep,) = read_path(str(template)).deployments
    assert (dep.engine, dep.model, _at(dep.model_span)) == ("vllm", "TinyLlama/TinyLlama-1.1B-Chat-v1.0", (17, 20))
    template.write_text(_TEMPLATE.replace("          default: TinyLlama/TinyLlama-1.1B-Chat-v1.0\n", ""))
    assert [d.model for d in read_path(str(template)).deployments if d.model and "TinyLlama" in d.model] == []


def test_an_openvino_build_of_vllm_on_an_intel_gpu_is_a_launch_not_sized_over_cuda_cards(tmp_path):
    """Sample K291: a compose service builds `../text-generation/vllm` and maps only `/dev/dri` (an Intel GPU), its
    model and settings in the environment; a README runs the same build with `-e DEFAULT_MODEL_ID=... -e
    MAX_MODEL_LEN=... -e MAX_NUM_SEQS=...` and no `--gpus`. Both are launches; `VLLM_OPENVINO_DEVICE` says the
    device (CPU or an Intel GPU), which kvlint does not size over the CUDA catalogue."""
    compose = tmp_path / "docker-compose.yml"
    compose.write_text("services:\n  serving:\n    build:\n      context: ../text-generation/vllm\n"
                       "    image: app.serving\n    devices:\n      - /dev/dri:/dev/dri\n    environment:\n"
                       "      - MODEL_PATH=./data/models/llm\n      - MAX_MODEL_LEN=2048\n"
                       "      - VLLM_OPENVINO_DEVICE=${LLM_DEVICE:-GPU}\n")
    (dep,) = read_path(str(compose)).deployments
    assert (dep.model, dep.get("max_model_len"), dep.gpu) == ("./data/models/llm", 2048, "xpu")
    readme = tmp_path / "README.md"
    readme.write_text("```bash\ndocker build -t ov-vllm .\ndocker run -it --rm -p 8000:8000 \\\n"
                      "    -e DEFAULT_MODEL_ID=Qwen/Qwen2.5-7B-Instruct -e MAX_MODEL_LEN=2048 -e MAX_NUM_SEQS=1 \\\n"
                      "    -e VLLM_OPENVINO_DEVICE=CPU ov-vllm\n```\n")
    (dep,) = read_path(str(readme)).deployments
    assert (dep.model, dep.get("max_num_seqs"), dep.gpu, _at(dep.model_span)) == \
        ("Qwen/Qwen2.5-7B-Instruct", 1, "cpu", (4, 25))
    readme.write_text(readme.read_text().replace("-e MAX_NUM_SEQS=1 ", ""))
    assert read_path(str(readme)).deployments == []  # a model and one setting: a client's as well as a server's


def test_option_lines_below_a_line_are_its_cut_only_right_below_a_command_that_names_an_engine_or_runner(tmp_path):
    """The missing-`\\` cut (KV012) joins option lines to the command right above them only: not across a blank line
    or into a README's next code block (another command), and not below a line that names no engine or container
    runner (a usage text's option list, sample K274's `... | latex_policy_v1` above `--model NAME  Hugging Face`)."""
    readme = tmp_path / "README.md"
    readme.write_text("```bash\nvllm serve Qwen/Qwen3-8B\n```\n\nOptions:\n\n```bash\n--max-model-len 4096\n```\n")
    result = read_path(str(readme))
    assert [d.get("max_model_len") for d in result.deployments] == [None]
    assert [f.code for f in result.findings if f.code == "KV012"] == []
    usage = tmp_path / "usage.sh"
    usage.write_text("echo 'modes: default | simple_policy_1'\nlatex_policy_v1\n  --model NAME  Hugging Face model\n"
                     "  --max-num-seqs N  default: 64\n")
    assert read_path(str(usage)).deployments == []
    usage.write_text("docker run --gpus all --ipc host\n  vllm/vllm-openai:v0.11.0 --model org/m --max-num-seqs 8\n")
    assert [f.code for f in read_path(str(usage)).findings if f.code == "KV012"] == []  # the image is no option
    usage.write_text("docker run --gpus all --ipc host\n  --shm-size 8g vllm/vllm-openai:v0.11.0 --model org/m\n")
    (dep,) = read_path(str(usage)).deployments
    assert dep.model == "org/m" and [f.span.line for f in read_path(str(usage)).findings if f.code == "KV012"] == [2]


def test_a_script_in_a_program_string_continues_its_lines_with_the_languages_escaped_backslash(tmp_path):
    """Sample K283's SlurmUI page: a job script in a TypeScript template literal, each line ending `\\\\` (one `\\`
    once the string is built). Read as the shell reads the built script: one command with all its flags, no cut."""
    page = tmp_path / "page.tsx"
    page.write_text("const vllm = () => `#!/bin/bash\n#SBATCH --gres=gpu:2\n\nvllm serve org/m \\\\\n"
                    "  --tensor-parallel-size 2 \\\\\n  --max-model-len 4096\n`;\n")
    result = read_path(str(page))
    (dep,) = result.deployments
    assert (dep.model, dep.get("tensor_parallel_size"), dep.get("max_model_len")) == ("org/m", 2, 4096)
    assert _at(dep.settings["max_model_len"].span) == (6, 19)
    assert [f for f in result.findings if f.code == "KV012"] == []


_DUAL = """\
#!/bin/bash
IMAGE="intel/llm-scaler-vllm:0.21.0-b3"
INNER='#!/bin/bash
set -e
exec vllm serve /model \\
  --max-model-len 32768 --max-num-seqs 1
'
echo "$INNER" > /tmp/inner.sh
docker run -d --device /dev/dri:/dev/dri -v /tmp/inner.sh:/entrypoint.sh:ro --entrypoint /bin/bash "$IMAGE" \\
  /entrypoint.sh
"""


def test_a_script_kept_in_a_variable_and_written_to_a_file_is_read_where_it_is_written(tmp_path):
    """Sample K294: `INNER='...exec vllm serve /model ...'`, `echo "$INNER" > /tmp/inner.sh`, then mounted into a
    container as its entry point: the launch is the script's command, each value at its place in the variable.
    A variable only printed to the terminal is no launch."""
    script = tmp_path / "launch.sh"
    script.write_text(_DUAL)
    launches = read_path(str(script)).deployments
    assert [(d.model, d.get("max_model_len"), _at(d.model_span)) for d in launches] == [("/model", 32768, (5, 17))]
    script.write_text(_DUAL.replace('echo "$INNER" > /tmp/inner.sh', 'echo "$INNER"'))
    assert [d.model for d in read_path(str(script)).deployments] == []



_GENERATOR = """\
#!/bin/bash
generate() {
  cat <<EOF
apiVersion: apps/v1
kind: Deployment
spec:
  template:
    spec:$(if [[ -n "${PULL_SECRET:-}" ]]; then echo "
      imagePullSecrets:
        - name: ${PULL_SECRET}"; fi)
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.11.0
          args:
            - "--model"
            - "${MODEL}"
            - "--max-num-seqs"
            - "${MAX_SEQS}"${extra_args_yaml}
EOF
}
"""


def test_a_generated_manifest_is_read_without_the_lines_only_the_shell_writes(tmp_path):
    """Sample K296's generator function: `spec:$(if ...; fi)` and `"${MAX_SEQS}"${extra_args_yaml}` are lines the
    shell writes at run time; the manifest is read without them, every value (left open) at its place."""
    script = tmp_path / "yaml.sh"
    script.write_text(_GENERATOR)
    (dep,) = read_path(str(script)).deployments
    assert (dep.engine, dep.model, dep.image, _at(dep.model_span)) == ("vllm", "${MODEL}", "vllm/vllm-openai:v0.11.0",
                                                                       (16, 15))
    assert dep.settings["max_num_seqs"].raw == "${MAX_SEQS}" and not dep.settings["max_num_seqs"].resolved


def test_a_runbooks_makefile_block_is_read_as_the_makefile_it_shows(tmp_path):
    """Sample K295: ```` ```make title="Makefile" ```` with a target whose recipe runs the engine's container and the
    image spelled with the block's own variables: read as a Makefile, the image and model at their lines."""
    doc = tmp_path / "vllm-options.md"
    doc.write_text('# vLLM\n\n```make title="Makefile"\nIMAGE = vllm/vllm-openai\nTAG = v0.16.0\n\nup:\n'
                   '\tdocker run -d --gpus all \\\n\t\t$(IMAGE):$(TAG) \\\n\t\t--model org/m --max-model-len 8192\n```\n')
    (dep,) = read_path(str(doc)).deployments
    assert (dep.model, dep.image, dep.get("max_model_len"), _at(dep.model_span)) == \
        ("org/m", "vllm/vllm-openai:v0.16.0", 8192, (10, 11))


def test_a_command_a_cloud_cli_runs_on_a_remote_machine_is_a_launch(tmp_path):
    """Sample K295: `gcloud compute ssh VM --command="${start_cmd}"` inside a function called once per model with
    `"source venv; nohup vllm serve M -tp ${TP} ..."`: each call's command, each value where it is written."""
    script = tmp_path / "run.sh"
    script.write_text('TP=8\nA="nohup vllm serve org/a -tp ${TP} > a.log 2>&1 &"\nB="nohup vllm serve org/b -tp 2 &"\n'
                      'run() {\n  gcloud compute ssh "$VM" --zone="$Z" --command="$1"\n}\nrun "$A"\nrun "$B"\n')
    found = [(d.model, d.get("tensor_parallel_size")) for d in read_path(str(script)).deployments]
    assert sorted(found) == [("org/a", 8), ("org/b", 2)]
    script.write_text('gcloud compute instances create vm --metadata=startup="vllm serve org/a"\n')
    assert read_path(str(script)).deployments == []


def test_a_frontend_only_node_is_counted_with_the_headless_engines_it_serves(tmp_path):
    """Sample K295: `vllm serve M --headless ... --data-parallel-size-local 1` and a frontend `vllm-rs serve M
    ... --data-parallel-size-local 0` (no engine of its own): one deployment, kept at the engines' command."""
    doc = tmp_path / "README.md"
    doc.write_text("```bash\nvllm serve org/m --headless --data-parallel-address 10.0.0.1 --data-parallel-size 1 "
                   "--data-parallel-size-local 1\n```\n\n```bash\nvllm-rs serve org/m --data-parallel-address 10.0.0.1 "
                   "--data-parallel-size 1 --data-parallel-size-local 0\n```\n")
    (dep,) = read_path(str(doc)).deployments
    assert dep.launch_span.line == 2 and dep.get("headless") is True


def test_a_backslash_written_at_the_start_of_the_next_line_cuts_the_command(tmp_path):
    """Sample K295: `vllm serve M --enable-reasoning ` then `\\ --reasoning-parser X` on the next line: the shell
    ends the command at the first line (its word ` --reasoning-parser` is a command not found); the engine starts
    with tensor parallelism 1, and KV012 says where the command ends."""
    script = tmp_path / "serve.sh"
    script.write_text("vllm serve org/m --max-model-len 4096 \n\\ --tensor-parallel-size 8\n")
    result = read_path(str(script))
    (dep,) = result.deployments
    assert dep.get("tensor_parallel_size") is None
    assert [(f.code, f.span.line) for f in result.findings if f.code == "KV012"] == [("KV012", 2)]


def test_a_program_taken_from_a_configuration_entry_named_for_the_engine_is_its_cli(tmp_path):
    """Sample K297: `[cfg["vllmBin"], "serve", cfg["model"], "--max-num-seqs", "8"]`: the entry's name says the
    program is the engine's CLI, given `serve`; an entry named for nothing else (`cfg["bin"]`) says no engine."""
    program = tmp_path / "start.py"
    program.write_text('import subprocess\ncfg = {}\nargs = [cfg["vllmBin"], "serve", cfg["model"], "--max-num-seqs", "8"]'
                       '\nsubprocess.Popen(args)\n')
    (dep,) = read_path(str(program)).deployments
    assert (dep.engine, dep.get("max_num_seqs"), _at(dep.settings["max_num_seqs"].span)) == ("vllm", 8, (3, 67))
    program.write_text(program.read_text().replace('"vllmBin"', '"bin"'))
    assert read_path(str(program)).deployments == []


def test_a_gpu_service_building_on_an_engine_image_with_its_own_entry_point_is_a_launch(tmp_path):
    """Sample K298: a compose service builds a Dockerfile `FROM lmsysorg/sglang` whose entry point is the repository's
    own program, on GPUs, with `CONTEXT_LENGTH` and `MAX_RUNNING_REQUESTS` in its environment: the engine starts
    with the model that program chooses (a placeholder: counting rule 8) and those settings; never passed over."""
    (tmp_path / "Dockerfile").write_text('FROM lmsysorg/sglang:v0.5.9\nCOPY boot.py /boot.py\n'
                                         'ENTRYPOINT ["python3", "/boot.py"]\n')
    compose = tmp_path / "compose.yaml"
    compose.write_text('services:\n  s:\n    build: .\n    gpus: all\n    environment:\n'
                       '      CONTEXT_LENGTH: "${CONTEXT_LENGTH:-409600}"\n      MAX_RUNNING_REQUESTS: "8"\n')
    (dep,) = read_path(str(compose)).deployments
    assert (dep.engine, dep.model_resolved, dep.get("context_length"), dep.get("max_running_requests")) == \
        ("sglang", False, 409600, 8)
    compose.write_text(compose.read_text().replace("    gpus: all\n", ""))
    assert read_path(str(compose)).deployments == []  # no GPU: a client's build as well


def test_a_command_kept_in_a_variable_with_short_options_only_keeps_its_places(tmp_path):
    """Sample K295: `A="nohup vllm serve org/a -tp ${TP} > a.log 2>&1 &"` (a short option, no `--` one) handed to a
    function: the launch and its values are where the variable is written, as with long options."""
    script = tmp_path / "run.sh"
    script.write_text('TP=8\nA="source /venv/bin/activate; nohup vllm serve org/a -tp ${TP} > a.log 2>&1 &"\n'
                      'run() {\n  bash -c "$1"\n}\nrun "$A"\n')
    (dep,) = read_path(str(script)).deployments
    assert (dep.model, dep.get("tensor_parallel_size"), _at(dep.model_span)) == ("org/a", 8, (2, 48))


def test_a_container_run_with_an_engine_named_argument_array_set_elsewhere_is_said(tmp_path):
    """Sample K294: `docker run ... --gpus all ... "${EXPECTED_IMAGE_ID}" "${VLLM_ARGS[@]}"`, the array set in a file
    the script sources through another (not in the tree), the run's options over twenty lines: a KV008 at the
    array, never silent."""
    script = tmp_path / "run-agent.sh"
    options = "".join(f'  --label "x{k}=${{X{k}}}" \\\n' for k in range(30))
    script.write_text(f'source "$DIR/runtime-common.sh"\ndocker run --detach \\\n{options}  --gpus all \\\n'
                      '  "${EXPECTED_IMAGE_ID}" \\\n  "${VLLM_ARGS[@]}" >/dev/null\n')
    result = read_path(str(script))
    assert result.deployments == []
    (note,) = [f for f in result.findings if f.code == "KV008"]
    assert note.span.line == 35 and "${VLLM_ARGS[@]}" in note.message
