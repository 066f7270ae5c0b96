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
