"""Shapes the turn-35 held-out samples showed kvlint passing over or misreading, each read by a mechanism, not a
case."""

from __future__ import annotations

from kvlint.findings import Severity
from kvlint.flags.flag_table import flag_table
from kvlint.flags.flag_values import read_value
from kvlint.launches import read_path
from kvlint.lint import LintOptions, lint


def _at(span):
    return (span.line, span.col) if span is not None else None


def test_vllm_folds_the_case_and_dashes_of_its_kernel_backends_before_checking_the_choices():
    """Sample K301: `--moe-backend FLASHINFER_CUTLASS` starts vLLM (its argparse type lower-cases the value and makes
    dashes underscores); a value that is still no choice after folding is refused."""
    spec = flag_table("vllm").by_option["--moe-backend"]
    assert read_value("vllm", spec, "FLASHINFER_CUTLASS") == ("flashinfer_cutlass", None)
    assert read_value("vllm", spec, "flashinfer-cutlass") == ("flashinfer_cutlass", None)
    value, reason = read_value("vllm", spec, "FLASHINFER_CUTLAS")
    assert value is None and reason is not None and reason.startswith("valid: ")
    # SGLang's choices are compared as written: no SGLang option folds its value
    assert all(s.type != "lower_snake" for s in flag_table("sglang").flags)


_SETUP = """\
#!/usr/bin/env bash
SPEC_TOKENS="${SPEC_TOKENS:-3}"
SPECARG="--speculative-config '{\\"method\\":\\"mtp\\",\\"num_speculative_tokens\\":$SPEC_TOKENS}'"
setup_script() {
  cat <<EOF
exec vllm serve Qwen/Qwen3-8B \\\\
  --max-model-len 8192 ${SPECARG}
EOF
}
docker run --gpus all vllm/vllm-openai:v0.20.0 --entrypoint bash -lc "$(setup_script)"
"""


def test_a_value_written_into_a_here_document_script_keeps_its_quotes_as_quotes(tmp_path):
    """Sample K301: `SPECARG="--speculative-config '{...}'"` written by an unquoted here-document into a script that
    `bash -lc` runs: the written script holds the value as text, so its single quotes quote the JSON there (one
    word, valid JSON), not characters of the word."""
    script = tmp_path / "start.sh"
    script.write_text(_SETUP)
    deps = read_path(str(script)).deployments
    dep = next(d for d in deps if d.model == "Qwen/Qwen3-8B")
    assert dep.get("speculative_config") == {"method": "mtp", "num_speculative_tokens": 3}
    assert dep.invalid_values == ()
    assert _at(dep.settings["speculative_config"].span)[0] == 7  # at the expression in the body
    # a quoted delimiter writes `${SPECARG}` as it is: the written script expands it itself, with no value set
    script.write_text(_SETUP.replace("cat <<EOF", "cat <<'EOF'"))
    dep = next(d for d in read_path(str(script)).deployments if d.model == "Qwen/Qwen3-8B")
    assert dep.get("speculative_config") is None


def test_a_runbook_saved_under_a_scripts_name_is_read_as_markdown(tmp_path):
    """Sample K300: a file named `.sh` whose first line is a Markdown fence holds three fenced commands; read as a
    script, the backquotes made nothing of it."""
    notes = tmp_path / "serve.sh"
    notes.write_text("```bash\nvllm serve Qwen/Qwen2.5-0.5B-Instruct-AWQ \\\n    --max-model-len 2048\n```\n\n"
                     "Kieu 2:\n\n```\npython -m vllm.entrypoints.openai.api_server --model 'HuggingFaceTB/SmolLM2-135M'"
                     " \\\n  --max-model-len 512\n```\n")
    deps = read_path(str(notes)).deployments
    assert [(d.model, d.get("max_model_len"), d.launch_span.line) for d in deps] == [
        ("Qwen/Qwen2.5-0.5B-Instruct-AWQ", 2048, 2), ("HuggingFaceTB/SmolLM2-135M", 512, 9)]
    # a script that only mentions a fence later is still a script
    notes.write_text("#!/bin/sh\necho '```'\nvllm serve Qwen/Qwen2.5-0.5B-Instruct-AWQ --max-model-len 2048\n")
    (dep,) = read_path(str(notes)).deployments
    assert dep.launch_span.line == 3


def test_a_runbooks_choice_among_values_is_a_placeholder_not_a_refused_value(tmp_path):
    """Sample K301: a README's `--node-rank {0,1}` beside `<deepseek-v4-model>` is the document's notation for a value
    its reader picks; a script that writes the same passes it to the engine as written."""
    readme = tmp_path / "README.md"
    readme.write_text("```bash\nvllm serve <model> --nnodes 2 --node-rank {0,1} --max-model-len 8192\n```\n")
    (dep,) = read_path(str(readme)).deployments
    assert dep.invalid_values == ()
    assert any("{0,1} is a placeholder" in n for n in dep.notes)
    script = tmp_path / "run.sh"
    script.write_text("vllm serve Qwen/Qwen3-8B --nnodes 2 --node-rank {0,1} --max-model-len 8192\n")
    (dep,) = read_path(str(script)).deployments
    assert [v.raw for v in dep.invalid_values] == ["{0,1}"]


def test_a_command_in_a_sentence_on_a_variable_model_is_a_launch(tmp_path):
    """Sample K300: "then rerun `uv run vllm serve $MODEL --enable-chunked-prefill --tensor-parallel-size $TP_SIZE`":
    a whole command with its options, its model a variable the runbook leaves to its reader; a span that only names
    the command is still prose."""
    readme = tmp_path / "README.md"
    readme.write_text("Update $MODEL, then rerun `uv run vllm serve $MODEL --enable-chunked-prefill "
                      "--tensor-parallel-size $TP_SIZE`.\n\nThe server is `vllm serve $MODEL` as before.\n")
    (dep,) = read_path(str(readme)).deployments
    assert (dep.engine, dep.model, dep.model_resolved, _at(dep.model_span)) == ("vllm", "$MODEL", False, (1, 46))


_MLPERF = """\
guide: optimized-baseline
model:
  name: openai/gpt-oss-120b
  source: pvc
modelserver:
  engine: vllm
  replicas: 4
  tensor_parallel_size: 2
  vllm_args:
    - "--max-model-len=49000"
    - "--max-num-seqs=1024"
router:
  mode: standalone
"""


def test_settings_beside_the_model_that_name_the_engine_and_hold_its_arguments_are_a_launch(tmp_path):
    """Sample K302: a deploy tool's values, the model at `model.name` and beside it `modelserver: {engine: vllm,
    tensor_parallel_size: 2, vllm_args: [...]}`: one launch with those settings. A map of settings alone beside the
    model (a benchmark's bookkeeping, sample K88) stays no launch."""
    values = tmp_path / "override.yaml"
    values.write_text(_MLPERF)
    (dep,) = read_path(str(values)).deployments
    assert (dep.engine, dep.model, dep.get("tensor_parallel_size"), dep.get("max_model_len"),
            dep.get("max_num_seqs")) == ("vllm", "openai/gpt-oss-120b", 2, 49000, 1024)
    assert _at(dep.model_span) == (3, 9)
    values.write_text(_MLPERF.replace('  vllm_args:\n    - "--max-model-len=49000"\n    - "--max-num-seqs=1024"\n', ""))
    assert read_path(str(values)).deployments == []


def test_a_plugin_that_places_its_stages_on_devices_is_not_judged_by_tp_times_pp(tmp_path):
    """Sample K302: `vllm serve --omni` with `--stage-overrides` putting stages on device 1, two GPUs requested: no
    KV204 "1 requested GPU stays idle"; the same launch without the plugin's switch keeps it."""
    manifest = tmp_path / "omni.yaml"
    body = ("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: omni}\nspec:\n  template:\n    spec:\n"
            "      containers:\n        - name: vllm\n          image: vllm/vllm-omni:v0.24.0\n"
            "          args: [vllm, serve, Qwen/Qwen2.5-7B-Instruct, --omni, --max-model-len, '8192']\n"
            "          resources: {limits: {nvidia.com/gpu: 2}}\n")
    manifest.write_text(body)
    options = LintOptions(select=("KV204",))
    assert [f.code for f in lint([str(manifest)], options).findings] == []
    manifest.write_text(body.replace(", --omni", "").replace("vllm-omni", "vllm-openai"))
    assert [f.code for f in lint([str(manifest)], options).findings] == ["KV204"]


_OWN_CLI = """\
services:
  serving:
    image: open-audio-llm/vllm-serving:local
    build: {context: ., dockerfile: docker/Dockerfile.vllm-serving}
    gpus: all
    command: [-m, /models/main, -p, "8009", -n, open-audio-llm, -t, "1", -d, "1", -e, -q]
"""


def test_the_options_of_a_builds_own_entry_point_are_not_read_as_the_engines(tmp_path):
    """Sample K304: a project's own build named for vLLM handed `-m DIR -p PORT -n NAME -t TP -d DP`, a wrapper's CLI:
    no "vLLM rejects -n" error, no ambiguous `-d`; the launch stays, its model left to that entry point (KV002 says
    so). Given vLLM's own flags, the same build is read as vLLM."""
    compose = tmp_path / "compose.yaml"
    compose.write_text(_OWN_CLI)
    result = lint([str(compose)], LintOptions())
    assert sorted(f.code for f in result.findings) == ["KV002"]
    (finding,) = result.findings
    assert "entry point's own options (-m, -p, -t, -d, -e" in finding.message and finding.span.line == 6
    compose.write_text(_OWN_CLI.replace('[-m, /models/main, -p, "8009", -n, open-audio-llm, -t, "1", -d, "1", -e, -q]',
                                        '[/models/main, --max-model-len, "8192", -tp, "2"]'))
    (dep,) = read_path(str(compose)).deployments
    assert (dep.model, dep.get("tensor_parallel_size")) == ("/models/main", 2)


def test_a_service_running_a_script_left_out_of_the_tree_is_placed_at_its_image(tmp_path):
    """Sample K306: a service of `${VLLM_IMAGE}` running `bash /entrypoint.sh` mounted from a file not in the tree,
    with no model variable: the launch is the service's command, its model the script's (said as such), pointed at
    the image that names the engine, not at the volume line that mounts the script."""
    compose = tmp_path / "docker-compose.yml"
    compose.write_text("services:\n  head:\n    image: ${VLLM_IMAGE}\n    environment:\n      - MAX_MODEL_LEN=8192\n"
                       "    volumes:\n      - ./entrypoints/entrypoint.sh:/entrypoint.sh:ro\n"
                       "    entrypoint: [bash, /entrypoint.sh]\n"
                       "    deploy: {resources: {reservations: {devices: [{driver: nvidia, count: all, "
                       "capabilities: [gpu]}]}}}\n")
    (dep,) = read_path(str(compose)).deployments
    assert (dep.engine, dep.model, dep.model_resolved) == ("vllm", "(the model the script /entrypoint.sh chooses)",
                                                           False)
    assert (_at(dep.launch_span), _at(dep.model_span)) == ((8, 18), (3, 12))  # the command; the model: its image


def test_engine_settings_beside_the_models_map_under_the_engines_name_are_its_settings(tmp_path):
    """Sample K306: a recipe a script turns into one container, `server: {image: ..., model: M}` beside `vllm:
    {max-model-len: 262144, ...}`: one launch with those settings; a map under another name is not the engine's."""
    recipe = tmp_path / "recipe.yaml"
    body = ("server:\n  image: org/qwen-next-vllm:v4\n  model: org/Qwen3-Next\n  port: 8000\n"
            "vllm:\n  max-model-len: 262144\n  max-num-seqs: 16\n  block-size: 64\n")
    recipe.write_text(body)
    (dep,) = read_path(str(recipe)).deployments
    assert (dep.engine, dep.model, dep.get("max_model_len"), dep.get("max_num_seqs")) == (
        "vllm", "org/Qwen3-Next", 262144, 16)
    assert _at(dep.settings["max_model_len"].span) == (6, 18)
    recipe.write_text(body.replace("vllm:\n", "tuning:\n").replace("org/qwen-next-vllm:v4", "org/qwen-next:v4"))
    assert read_path(str(recipe)).deployments == []


def test_a_patched_builds_few_own_flags_among_many_of_vllms_keep_the_launch(tmp_path):
    """Sample K306: a custom image (no engine in its name) given a model path and fifteen of vLLM's flags, two of them
    the build's own (`--never-evict-kv-cache-prompt-includes`): vLLM's launch, the two said by KV004 as the build's;
    as many unknown flags as known ones are another program's."""
    script = tmp_path / "serve.sh"
    known = " ".join(f"--{f} 1" for f in ("max-num-seqs", "max-model-len", "tensor-parallel-size", "seed",
                                           "max-num-batched-tokens", "max-loras", "max-lora-rank", "block-size"))
    script.write_text("# vllm build\nRUN=(docker run -d --gpus all qwen38-flash-dgx /model "
                      f"{known} --never-evict-a x --never-evict-b 0.25)\n\"${{RUN[@]}}\"\n")
    (dep,) = read_path(str(script)).deployments
    assert (dep.engine, dep.model) == ("vllm", "/model")
    assert sorted(u.flag for u in dep.unknown_flags) == ["--never-evict-a", "--never-evict-b"]
    script.write_text(script.read_text().replace(known, "--max-num-seqs 1 --max-model-len 1"))
    assert read_path(str(script)).deployments == []


def test_a_program_given_a_requests_length_is_a_job_not_a_server(tmp_path):
    """Sample K304: `python3 run_vllm.py --model M --tensor-parallel-size 4 --output-len 64`, a program named for vLLM
    that generates offline: no launch, and the file's KV008 says what kvlint could not tell."""
    script = tmp_path / "run_vllm_SD.sh"
    script.write_text('python3 run_vllm.py --model="meta-llama/Meta-Llama-3-8B" --tensor-parallel-size=4 '
                      '--block-size=16 --dtype="float16" --output-len=64\n')
    result = read_path(str(script))
    assert result.deployments == [] and [f.code for f in result.findings] == ["KV008"]
    script.write_text(script.read_text().replace(" --output-len=64", " --port 8000"))
    (dep,) = read_path(str(script)).deployments
    assert dep.get("tensor_parallel_size") == 4


def test_a_config_file_beside_the_callers_words_is_a_launch_whose_model_the_file_holds(tmp_path):
    """Sample K304: `exec vllm serve --config "$DEFAULT_CONFIG" "$@"`: the config holds the model, the caller adds
    to it; the launch is here (a bare `exec vllm serve "$@"` stays an entry point's)."""
    script = tmp_path / "serve.sh"
    script.write_text('exec "${VENV}/bin/vllm" serve --config /srv/configs/vllm_serve.yaml "$@"\n')
    (dep,) = read_path(str(script)).deployments
    assert (dep.model, dep.model_resolved) == ("--config /srv/configs/vllm_serve.yaml", False)
    script.write_text('exec "${VENV}/bin/vllm" serve "$@"\n')
    assert read_path(str(script)).deployments == []


def test_a_charts_config_file_key_is_the_engines_config_and_a_flags_file_alone_is_no_launch(tmp_path):
    """Sample K307: GKE recipe values `workload: {model: {name: M}, framework: vllm, configFile: serving-args.yaml}`
    and beside them the flags file: one launch at the values, the file's settings merged (a refused value in it is
    found at its own line); the flags file alone, with no model, is no launch of its own."""
    (tmp_path / "serving-args.yaml").write_text("max-model-len: 2645\nmax-num-seqs: 1024\ngpu-memory-utilization: 0.9\n")
    values = tmp_path / "values.yaml"
    values.write_text("workload:\n  model:\n    name: google/gemma-3-27b-it\n  framework: vllm\n"
                      "  configFile: serving-args.yaml\n")
    (dep,) = read_path(str(values)).deployments
    assert (dep.model, dep.get("max_model_len"), dep.get("max_num_seqs")) == ("google/gemma-3-27b-it", 2645, 1024)
    assert read_path(str(tmp_path / "serving-args.yaml")).deployments == []
    (tmp_path / "serving-args.yaml").write_text("model: google/gemma-3-27b-it\nmax-model-len: 2645\n")
    (dep,) = read_path(str(tmp_path / "serving-args.yaml")).deployments
    assert dep.model == "google/gemma-3-27b-it"


def test_an_inline_command_on_a_placeholder_model_with_options_is_a_launch(tmp_path):
    """Sample K309: "Start vLLM with `vllm serve <model> --served-model-name my-model`": a whole command, its model left
    to the reader (counting rule 8); `vllm serve <model>` alone still only names the command."""
    doc = tmp_path / "vllm.md"
    doc.write_text("Start vLLM with\n`vllm serve <model> --served-model-name my-model`, then point the proxy at it.\n")
    (dep,) = read_path(str(doc)).deployments
    assert (dep.model, dep.model_resolved, _at(dep.model_span)) == ("<model>", False, (2, 13))
    doc.write_text("Start vLLM with `vllm serve <model>`, then point the proxy at it.\n")
    assert read_path(str(doc)).deployments == []


def test_shell_command_lines_fenced_as_python_are_read_as_the_shells(tmp_path):
    """Sample K308: a ```python block holding `python -m sglang.launch_server --model-path M ...` run in two windows
    (comments between): no Python, so the lines the parser drops are read as shell commands, each at its line."""
    doc = tmp_path / "README.md"
    doc.write_text("```python\n# first window\npython -m sglang.launch_server --model-path Qwen/Qwen3-8B --port 30001\n"
                   "# second window\npython -m sglang.launch_server --model-path Qwen/Qwen3-8B --port 30002\n"
                   "x = 1\n```\n")
    deps = read_path(str(doc)).deployments
    assert [(d.engine, d.model, d.launch_span.line, d.get("port")) for d in deps] == [
        ("sglang", "Qwen/Qwen3-8B", 3, 30001), ("sglang", "Qwen/Qwen3-8B", 5, 30002)]


def test_a_refused_value_of_an_unknown_charts_key_is_the_templates_to_write(tmp_path):
    """Sample K310: values of a chart kvlint has no adapter for, `vllm: {logLevel: "info", ...}` beside the model: the
    key reads as vLLM 0.33's `--log-level` (which takes `INFO`), but the template decides which option it becomes
    (older charts write `--uvicorn-log-level info`): an info, and the launch is still sized. The same value written as
    a flag in the chart's argument list stays the error."""
    values = tmp_path / "values.yaml"
    body = ('model:\n  name: "meta-llama/Llama-3.2-3B-Instruct"\n  maxModelLen: 65000\n'
            'vllm:\n  port: 8000\n  logLevel: "info"\n  maxLogLen: 2048\n')
    values.write_text(body)
    options = LintOptions(select=("KV007",))
    (finding,) = lint([str(values)], options).findings
    assert (finding.severity, finding.span.line) == (Severity.INFO, 6)
    (dep,) = read_path(str(values)).deployments
    assert [(v.flag, v.origin) for v in dep.invalid_values] == [("--log-level", "chart-key")]
    values.write_text(body.replace('  logLevel: "info"\n', '  extraArgs: ["--log-level", "info"]\n'))
    (finding,) = lint([str(values)], options).findings
    assert finding.severity == Severity.ERROR


def test_a_compose_file_fenced_as_bash_is_read_as_yaml(tmp_path):
    """Sample K312: a runbook shows its compose file in a ```bash block (`# qwen_docker-compose.yml`, then `services:`):
    YAML's, read as a compose file at its lines; a shell block that writes a manifest by a here-document stays the
    shell's."""
    doc = tmp_path / "notes.md"
    doc.write_text("```bash\n# docker-compose.yml\nservices:\n  vllm:\n    image: vllm/vllm-openai:v0.6.6.post1\n"
                   "    command: >\n      --model Qwen/Qwen2.5-1.5B-Instruct-AWQ\n      --max-model-len 512\n```\n")
    (dep,) = read_path(str(doc)).deployments
    assert (dep.model, dep.get("max_model_len"), dep.image, dep.model_span.line) == (
        "Qwen/Qwen2.5-1.5B-Instruct-AWQ", 512, "vllm/vllm-openai:v0.6.6.post1", 7)
    doc.write_text("```bash\ncat <<EOF | kubectl apply -f -\napiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n"
                   "  containers:\n  - name: v\n    image: vllm/vllm-openai:v0.9.0\n"
                   "    args: [--model, Qwen/Qwen3-8B, --max-model-len, '4096']\nEOF\n```\n")
    (dep,) = read_path(str(doc)).deployments
    assert (dep.model, dep.get("max_model_len")) == ("Qwen/Qwen3-8B", 4096)
