"""Shapes the turn-43 work showed kvlint passing over or misreading (the held-out samples K404-K421), each read by
a mechanism, not a case: every test writes the shape small, with the launches it must give (and the ones it must
not)."""

from __future__ import annotations

from pathlib import Path

from kvlint.launches import read_path

_ARMS = """#!/bin/bash
CFG=${1:?config}
VLLM="vllm serve /models/qwen --max-num-seqs 8"
SGL="python -m sglang.launch_server --model-path /models/qwen"
case "$CFG" in
  a) CMD="$VLLM --max-model-len 65536" ;;
  b) CMD="$VLLM --max-model-len 32768
          --enable-prefix-caching" ;;
  c) CMD="$SGL --context-length 4096" ;;
  d) CMD="llama-server -m /models/q.gguf -c 4096" ;;
  *) exit 2 ;;
esac
"""


def _lengths(path: Path) -> list[tuple[str, object]]:
    deps = read_path(str(path)).deployments
    return sorted((d.engine, d.get("max_model_len") or d.get("context_length")) for d in deps)


def test_each_arm_that_gives_a_whole_engine_command_is_a_launch(tmp_path):
    """K408: a `case` of twenty configurations, each arm `CMD="$VLLM --flags"` or `CMD="$SGL --flags"`, then the
    command run once. The arms were configurations of one command grouped by model (one vLLM, one SGLang launch);
    an arm that gives the variable a whole engine command is a command of its own: one launch each, each with its
    arm's flags at their places. The llama.cpp arm is none."""
    for run in ("exec $CMD\n", 'eval "$CMD"\n', 'CMD=$(echo $CMD)\ntmux new-session -d -s serve "exec $CMD > log 2>&1"\n'):
        path = tmp_path / f"serve{len(run)}.sh"
        path.write_text(_ARMS + run)
        assert _lengths(path) == [("sglang", 4096), ("vllm", 32768), ("vllm", 65536)], run
        deps = read_path(str(path)).deployments
        assert all(not d.one_of_arms for d in deps)
        spans = sorted(d.settings["max_model_len"].span.line for d in deps if d.engine == "vllm")
        assert spans == [6, 7]


def test_arms_that_set_only_flags_stay_configurations_of_one_command(tmp_path):
    """The counter-case: arms that set only a setting (`TP=8` / `TP=4`) of one command for one model are one
    deployment, as before."""
    path = tmp_path / "tp.sh"
    path.write_text('#!/bin/bash\ncase "$GPU" in\n  h100) TP=4 ;;\n  *) TP=8 ;;\nesac\n'
                    'vllm serve Qwen/Qwen2.5-7B-Instruct --tensor-parallel-size $TP\n')
    assert len(read_path(str(path)).deployments) == 1


def test_a_sweeps_serve_command_is_read_even_when_the_program_is_a_make_variable(tmp_path):
    """K421: a Makefile recipe `$(VLLM) bench sweep serve --serve-cmd "$(VLLM) serve $(MODEL) $(SERVE_FLAGS)"` with
    `VLLM := $(shell which vllm)`. vLLM's sweep starts the server its `--serve-cmd` holds; the option names the engine
    only through a variable spelled in capitals, so the string was not read. It is now: one launch per recipe."""
    folder = tmp_path / "bench"
    folder.mkdir()
    (folder / "Makefile").write_text(
        "VLLM := $(shell which vllm 2>/dev/null)\nMODEL := openai/gpt-oss-120b\nSERVE_FLAGS := --max-model-len 1024\n\n"
        'baseline:\n\t$(VLLM) bench sweep serve \\\n\t\t--serve-cmd "$(VLLM) serve $(MODEL) $(SERVE_FLAGS)" \\\n'
        '\t\t--bench-cmd "$(VLLM) bench serve --dataset-name hf" -o out\n')
    (dep,) = read_path(str(folder / "Makefile")).deployments
    assert (dep.engine, dep.model, dep.get("max_model_len")) == ("vllm", "openai/gpt-oss-120b", 1024)
    assert dep.model_span is not None and dep.model_span.line == 7


_RUNTIME = """apiVersion: serving.kserve.io/v1alpha1
kind: ServingRuntime
metadata:
  name: vllm-runtime
spec:
  supportedModelFormats:
    - name: vLLM
  containers:
    - name: kserve-container
      image: vllm/vllm-openai:v0.9.0
      command: ["python", "-m", "vllm.entrypoints.openai.api_server"]
      args: ["--model=/mnt/models", "--max-model-len=999999999", "--port=8080"]
"""

_SERVICE = """---
apiVersion: serving.kserve.io/v1beta1
kind: InferenceService
metadata:
  name: qwen
spec:
  predictor:
    model:
      runtime: vllm-runtime
      modelFormat: {name: vLLM}
      storageUri: hf://Qwen/Qwen2.5-7B-Instruct
      resources: {limits: {nvidia.com/gpu: "1"}}
"""


def test_a_serving_runtime_alone_is_a_template_not_a_deployment(tmp_path):
    """K421, K397: a ServingRuntime in a file of its own, its model KServe's store `/mnt/models`. It starts an engine
    only for an InferenceService that selects it (the counting rules' template), so it is no deployment: its launch
    is audited as an example (`disabled`, findings infos). With the service in the same file the service is the
    deployment, as before; a runtime that names its own model stays one."""
    path = tmp_path / "runtime.yaml"
    path.write_text(_RUNTIME)
    (dep,) = read_path(str(path)).deployments
    assert dep.disabled is not None and dep.disabled.line == 2 and "template" in dep.disabled_why
    both = tmp_path / "both.yaml"
    both.write_text(_RUNTIME + _SERVICE)
    (served,) = read_path(str(both)).deployments
    assert served.disabled is None and served.model == "hf://Qwen/Qwen2.5-7B-Instruct"
    own = tmp_path / "own.yaml"
    own.write_text(_RUNTIME.replace("/mnt/models", "Qwen/Qwen2.5-7B-Instruct"))
    (named,) = read_path(str(own)).deployments
    assert named.disabled is None


def test_axolotls_vllm_serve_is_a_launch_whose_model_is_in_its_training_config(tmp_path):
    """K421: `axolotl vllm-serve /mnt/axolotl-config/config.yaml --tensor-parallel-size 8` in a Deployment's args and in
    an `sh -c` block. Axolotl's server is TRL's for GRPO rollouts, its model the config's `base_model`: a launch with
    its parallel sizes read, the model left open at the config's place (never the path read as a model id)."""
    path = tmp_path / "serve.sh"
    path.write_text("#!/bin/sh\naxolotl vllm-serve /mnt/axolotl-config/config.yaml --tensor-parallel-size 8\n")
    (dep,) = read_path(str(path)).deployments
    assert dep.engine == "vllm" and not dep.model_resolved and "base_model" in (dep.model or "")
    assert dep.get("tensor_parallel_size") == 8 and dep.model_span is not None and dep.model_span.col == 20
    path.write_text("#!/bin/sh\naxolotl train config.yaml\n")
    assert list(read_path(str(path)).deployments) == []


def test_a_sweeps_serve_command_is_split_into_words_across_lines(tmp_path):
    """K421 (vLLM's own benchmarks/watermarking/run.sh): `--serve-cmd 'vllm serve M` and its flags on the lines
    below, inside one quoted string. The sweep splits the string into words (shlex), so a newline is a blank: the
    flags are the server's, with no KV012 "the shell ends the command there"."""
    path = tmp_path / "run.sh"
    path.write_text("#!/usr/bin/env bash\nvllm bench sweep serve \\\n  --serve-cmd 'vllm serve Qwen/Qwen3-8B\n"
                    "    --language-model-only\n    --max-model-len 4096' \\\n  --bench-cmd 'vllm bench serve\n"
                    "    --model Qwen/Qwen3-8B' -o out\n")
    result = read_path(str(path))
    (dep,) = result.deployments
    assert (dep.model, dep.get("max_model_len")) == ("Qwen/Qwen3-8B", 4096)
    assert dep.settings["max_model_len"].span.line == 5
    assert not [f for f in result.findings if f.code == "KV012"]


def test_a_switchs_quoted_true_in_a_map_an_unknown_program_reads_is_the_switch_on(tmp_path):
    """K421's AMD AIM recipe: `args: {--model: M, --trust-remote-code: "true"}` under `vllm_serve:`. The program that
    turns the map into a command line is unknown; a quoted "true" of a switch is its on value there, not the stray
    word vLLM refuses (a KV007 error at measurement). vLLM's own --config file keeps its reading (the string is
    passed on after the flag)."""
    path = tmp_path / "recipe.yaml"
    path.write_text('vllm_serve:\n  "1_gpu":\n    enabled: true\n    args:\n      --model: Qwen/Qwen3-32B\n'
                    '      --trust-remote-code: "true"\n      --enforce-eager: "false"\n      --max-model-len: "32768"\n')
    (dep,) = read_path(str(path)).deployments
    assert dep.get("trust_remote_code") is True and dep.get("max_model_len") == 32768
    assert not dep.invalid_values and dep.get("enforce_eager") in (None, False)


def test_an_env_args_variable_in_a_here_document_manifest_takes_the_scripts_values(tmp_path):
    """K419: `oc apply -f - <<YAML` of an LLMInferenceService whose VLLM_ADDITIONAL_ARGS is
    `"--max-model-len=${MAX_MODEL_LEN} ..."`, MAX_MODEL_LEN set above. The shell fills it as it writes the body; the
    flags in the variable were read unfilled (the length open)."""
    path = tmp_path / "deploy.sh"
    path.write_text('#!/bin/bash\nMODEL_URI="${LLMD_MODEL_URI:-hf://Qwen/Qwen2.5-7B-Instruct}"\n'
                    'MAX_MODEL_LEN="${LLMD_MAX_MODEL_LEN:-16384}"\noc apply -f - <<YAML\n'
                    'apiVersion: serving.kserve.io/v1alpha2\nkind: LLMInferenceService\nmetadata:\n  name: demo\n'
                    'spec:\n  model:\n    uri: ${MODEL_URI}\n  template:\n    containers:\n    - name: main\n'
                    '      env:\n      - name: VLLM_ADDITIONAL_ARGS\n'
                    '        value: "--max-model-len=${MAX_MODEL_LEN} --enforce-eager"\nYAML\n')
    (dep,) = read_path(str(path)).deployments
    assert (dep.model, dep.get("max_model_len"), dep.get("enforce_eager")) == (
        "hf://Qwen/Qwen2.5-7B-Instruct", 16384, True)
    assert dep.settings["max_model_len"].span.line == 17


def test_an_options_value_in_angle_brackets_with_blanks_is_one_placeholder(tmp_path):
    """K420's runbook: `--tensor-parallel-size <num of GUPs available per node>`. The shell reads `<num` as a
    redirection, so `of` was the value (a KV007 error). After an option, angle brackets around words are the
    reader's placeholder; `sort <in.txt 2>/dev/null` stays redirections."""
    from kvlint.sources.shell import tokenize
    from kvlint.sources.text import Mapped

    path = tmp_path / "README.md"
    path.write_text("# Serve\n\n```bash\nvllm serve /path/to/model \\\n  --tensor-parallel-size <num of GPUs per node> \\\n"
                    "  --max-model-len 8192\n```\n")
    (dep,) = read_path(str(path)).deployments
    assert not dep.invalid_values and dep.settings["tensor_parallel_size"].raw == "<num of GPUs per node>"
    assert dep.get("max_model_len") == 8192
    cmds, _ = tokenize(Mapped.whole("x.sh", "sort <in.txt 2>/dev/null\n"))
    assert [w.literal for w in cmds[0].words] == ["sort"]


def test_a_predictors_tensor_parallel_size_left_to_a_runtime_elsewhere_is_open(tmp_path):
    """K420: an InferenceService with `modelFormat: vLLM`, `runtime: vllm-runtime` (not in the file), no arguments
    and 4 GPUs. kvlint assumed -tp 1 and warned "3 requested GPUs stay idle" (KV204); the runtime's command decides
    it, so it is open, bounded by the 4 GPUs: a verdict only where every size agrees, the launch still sized."""
    path = tmp_path / "isvc.yaml"
    path.write_text("apiVersion: serving.kserve.io/v1beta1\nkind: InferenceService\nmetadata:\n  name: granite\nspec:\n"
                    "  predictor:\n    model:\n      modelFormat:\n        name: vLLM\n      runtime: vllm-runtime\n"
                    "      storageUri: hf://ibm-granite/granite-3.3-8b-instruct\n      resources:\n"
                    "        limits:\n          nvidia.com/gpu: \"4\"\n")
    (dep,) = read_path(str(path)).deployments
    tp = dep.settings["tensor_parallel_size"]
    assert not tp.resolved and tp.span is not None and tp.span.line == 10


def test_a_scripts_ifs_splits_the_words_it_counts(tmp_path):
    """K418: `IFS=,` then `set -- $GPU_ID` with `GPU_ID="0,1,2,3,4,5,6,7"` and `--tensor-parallel-size "$#"`: eight,
    read as one (a KV108 error: no card holds MiniMax-M2.5 on one GPU). The script's IFS splits; an IFS kvlint
    cannot read for sure (`$'\\n\\t'`) leaves the blanks."""
    path = tmp_path / "install.sh"
    path.write_text('#!/bin/bash\nGPU_ID="0,1,2,3,4,5,6,7"\nold_IFS="$IFS"\nIFS=,\nset -- $GPU_ID\nTP=$#\nIFS="$old_IFS"\n'
                    'vllm serve Qwen/Qwen2.5-7B-Instruct --tensor-parallel-size "$TP"\n')
    (dep,) = read_path(str(path)).deployments
    assert dep.get("tensor_parallel_size") == 8
    strict = tmp_path / "strict.sh"
    strict.write_text("#!/bin/bash\nIFS=$'\\n\\t'\nARGS=\"--max-model-len 4096\"\n"
                      "vllm serve Qwen/Qwen2.5-7B-Instruct $ARGS\n")
    (dep,) = read_path(str(strict)).deployments
    assert dep.get("max_model_len") == 4096


def test_a_values_model_map_whose_args_key_names_the_engine_is_a_launch(tmp_path):
    """K420: a chart's values `model: {enabled: true, name: llama-4-scout, uri: oci://..., vllmArgs: "--max-model-len
    8192 --tensor-parallel-size 4"}` gave no launch and no note (silent): the engine was named only by the key of its
    argument string. It is read now, the model the `uri` (beside a reference, `name` is what it is served as)."""
    path = tmp_path / "values.yaml"
    path.write_text('clusterDomain: ""\nmodel:\n  enabled: true\n  name: llama-4-scout\n'
                    '  uri: "oci://registry.redhat.io/rhelai1/modelcar-llama-4-scout-17b-16e-instruct-w4a16:1.5"\n'
                    '  vllmArgs: "--max-model-len 8192 --tensor-parallel-size 4"\n  replicas: 1\n')
    (dep,) = read_path(str(path)).deployments
    assert dep.engine == "vllm" and dep.model.startswith("oci://") and dep.model_span.line == 5
    assert (dep.get("max_model_len"), dep.get("tensor_parallel_size")) == (8192, 4)
    path.write_text('model:\n  name: llama-4-scout\n  uri: oci://x/y:1\n  replicas: 1\n')
    assert list(read_path(str(path)).deployments) == []  # no engine named anywhere: an application's settings


def test_a_systemd_units_environment_keeps_commas_in_its_values(tmp_path):
    """K423: `Environment=CUDA_VISIBLE_DEVICES=0,1` above `ExecStart=... vllm.entrypoints.api_server ...
    --tensor-parallel-size 2`. The comma ended the value (supervisor's separator), so the launch saw one GPU: a KV204
    error "-tp 2 needs 2 GPUs but the launch sees 1". systemd separates assignments by blanks only."""
    path = tmp_path / "vllm.service"
    path.write_text("[Service]\nEnvironment=CUDA_VISIBLE_DEVICES=0,1\n"
                    "ExecStart=/opt/venv/bin/python -m vllm.entrypoints.api_server \\\n"
                    '--model "meta-llama/Llama-2-7b-chat-hf" \\\n--tensor-parallel-size 2\n')
    (dep,) = read_path(str(path)).deployments
    assert dep.gpu_count == 2 and dep.get("tensor_parallel_size") == 2
    conf = tmp_path / "vllm.conf"
    conf.write_text("[program:vllm]\ncommand=vllm serve Qwen/Qwen2.5-7B-Instruct --tensor-parallel-size 1\n"
                    'environment=CUDA_VISIBLE_DEVICES=0,HF_HOME="/data"\n')
    (dep,) = read_path(str(conf)).deployments
    assert dep.gpu_count == 1  # supervisor: the comma separates CUDA_VISIBLE_DEVICES=0 from HF_HOME


def test_an_inline_code_span_starting_with_a_blank_is_read_from_its_command(tmp_path):
    """K424's README: ``2. Serve the model with: ` VLLM_USE_V1=1 vllm serve meta-llama/Llama-3.1-8B-Instruct -tp 1` ``
    (a blank after the backtick). The span did not start with the program, so it was passed over in silence."""
    path = tmp_path / "README.md"
    path.write_text("# Serve\n\n2. Serve the model with: ` VLLM_USE_V1=1 vllm serve meta-llama/Llama-3.1-8B-Instruct "
                    "--seed 42 -tp 1`\n")
    (dep,) = read_path(str(path)).deployments
    assert dep.model == "meta-llama/Llama-3.1-8B-Instruct" and dep.model_span.col == 53


def test_a_line_a_script_echoes_into_a_script_it_writes_is_a_launch(tmp_path):
    """K424: a setup script writes its startup scripts a line at a time, `echo "python3 -m
    vllm.entrypoints.openai.api_server --model ${model_path} ..." >>bash_openai.sh`. The line is a command of the
    written script (as a here-document's is); an echo to the terminal or a log is text."""
    path = tmp_path / "setup.sh"
    path.write_text('#!/bin/bash\nmodel_path=meta-llama/Llama-3.1-8B-Instruct\n'
                    'echo "source env/bin/activate" >>bash.sh\n'
                    'echo "python3 -m vllm.entrypoints.openai.api_server --model ${model_path} --max-model-len 4096 '
                    '>>${log} 2>&1" >>bash.sh\necho "now run: vllm serve ${model_path}"\n'
                    'echo "vllm serve ${model_path} --port 1" >> vllm.log\n')
    (dep,) = read_path(str(path)).deployments
    assert (dep.model, dep.get("max_model_len")) == ("meta-llama/Llama-3.1-8B-Instruct", 4096)
    assert dep.settings["max_model_len"].span.line == 4


def test_calls_that_restart_one_server_through_a_stop_function_are_one_launch(tmp_path):
    """K419: `run_policy current 0` and `run_policy full_slo 10`, each starting the server (`start_service`, another
    port and config) and stopping it by `stop_service`, a function that kills it. One server restarted with other
    settings: one launch (a call that stops with `kill` in its own body already was)."""
    path = tmp_path / "run.sh"
    path.write_text('#!/bin/bash\nMODEL=Qwen/Qwen2.5-7B-Instruct\n'
                    'start_service() {\n  vllm serve "$MODEL" --port "$1" --seed "$2" &\n  echo $! > pid\n}\n'
                    'stop_service() {\n  kill "$(cat pid)"\n}\n'
                    'run_policy() {\n  start_service "$2" "$3"\n  sleep 60\n  stop_service\n}\n'
                    'run_policy current 8000 1\nrun_policy full 8010 2\n')
    assert len(read_path(str(path)).deployments) == 1


def test_a_serving_runtimes_mount_with_a_trailing_slash_is_the_services_store(tmp_path):
    """K422: a ServingRuntime's `--model=/mnt/models/` (a trailing slash) and the InferenceService that runs on it with
    `storageUri: s3://...`: the launch took the mount as its model, at the runtime's line; the store is the model."""
    path = tmp_path / "serving.yaml"
    path.write_text(_RUNTIME.replace("--model=/mnt/models", "--model=/mnt/models/").replace(
        '"--max-model-len=999999999", ', "") + _SERVICE)
    (dep,) = read_path(str(path)).deployments
    assert dep.model == "hf://Qwen/Qwen2.5-7B-Instruct" and dep.model_span.line == 23  # storageUri


def test_a_runbook_line_of_a_program_that_starts_the_engine_under_its_own_name(tmp_path):
    """K422: a runbook's plain line `paddlex_genai_server --model_name PaddleOCR-VL-0.9B --backend vllm --port 8118`
    was passed over in silence: the line names no `vllm serve`. The programs kvlint reads as engine wrappers are
    entry points in a text too."""
    path = tmp_path / "README.md"
    path.write_text("# OCR\n\n接下来需要启动vllm框架。\npaddlex_genai_server --model_name PaddleOCR-VL-0.9B --backend vllm "
                    "--port 8118\n")
    (dep,) = read_path(str(path)).deployments
    assert (dep.engine, dep.model, dep.get("port")) == ("vllm", "PaddleOCR-VL-0.9B", 8118)


def test_a_here_documents_lines_that_a_variable_fills_with_yaml(tmp_path):
    """K419: `args:` then a line `${DEFAULT_ARGS}${VLLM_ARGS}` at column 0 of a here-document InferenceService, the
    variables holding YAML list lines. The body was no YAML as written, so its three services were passed over. The
    line is read as an item holding the expression: the arguments a run adds, which may set the parallel sizes."""
    path = tmp_path / "serve-model.sh"
    path.write_text('#!/bin/bash\nNAME=qwen\ncat <<EOF | oc apply -n ${NAMESPACE} -f -\n'
                    'apiVersion: serving.kserve.io/v1beta1\nkind: InferenceService\nmetadata:\n  name: ${NAME}\nspec:\n'
                    '  predictor:\n    model:\n      args:\n${DEFAULT_ARGS}${VLLM_ARGS}\n      modelFormat:\n'
                    '        name: vLLM\n      runtime: ${NAME}\n      storageUri: hf://Qwen/Qwen2.5-7B-Instruct\nEOF\n')
    (dep,) = read_path(str(path)).deployments
    assert dep.model == "hf://Qwen/Qwen2.5-7B-Instruct"
    assert not dep.settings["tensor_parallel_size"].resolved


def test_a_pipeline_steps_script_that_applies_a_manifest_it_writes(tmp_path):
    """K418: a Tekton Task whose step `script: |` writes an InferenceService with `cat <<ISEOF | oc apply -f -`; the
    script names no engine command, so its here-document was never read (silent). A block string holding a
    here-document manifest is read for it."""
    path = tmp_path / "task.yaml"
    body = ("apiVersion: serving.kserve.io/v1beta1\nkind: InferenceService\nmetadata:\n  name: ${MODEL}\nspec:\n"
            "  predictor:\n    model:\n      modelFormat:\n        name: vLLM\n      runtime: ${RUNTIME}\n"
            "      storageUri: hf://Qwen/Qwen2.5-7B-Instruct\n")
    script = "#!/bin/bash\nMODEL=qwen\ncat <<ISEOF | oc apply -f -\n" + body + "ISEOF\n"
    path.write_text("apiVersion: tekton.dev/v1\nkind: Task\nmetadata:\n  name: deploy\nspec:\n  steps:\n"
                    "  - name: deploy\n    image: registry/cli:latest\n    script: |\n"
                    + "".join(f"      {line}\n" for line in script.splitlines()))
    (dep,) = read_path(str(path)).deployments
    assert dep.model == "hf://Qwen/Qwen2.5-7B-Instruct" and dep.model_span.line == 23


def test_a_program_path_that_borrows_the_engines_name_is_another_engine(tmp_path):
    """K429: a README's `python nanovllm/entrypoints/api_server.py --model M --tensor-parallel-size 2 ...` (nano-vLLM,
    another engine) beside a `vllm serve` line: the file names vLLM, so its flags read as vLLM's made three launches
    and a KV007 error on its own `--log-level debug`. A name inside another word is not the engine's."""
    path = tmp_path / "README.md"
    path.write_text("# Run\n\n```bash\npython nanovllm/entrypoints/api_server.py --model /models/Qwen3-30B-A3B "
                    "--max-model-len 32768 --tensor-parallel-size 2 --log-level debug\n"
                    "vllm serve Qwen/Qwen3-30B-A3B --tensor-parallel-size 2\n```\n")
    (dep,) = read_path(str(path)).deployments
    assert dep.model == "Qwen/Qwen3-30B-A3B"


def test_a_runbook_blocks_label_before_a_command_is_no_word_of_it(tmp_path):
    """K429: a block's `vLLM: CUDA_VISIBLE_DEVICES=0,1 vllm serve Qwen/Qwen3-30B-A3B ...` under `# Start the API
    server` (a caption per system compared). The label was read as the program (no launch); a shell script's line
    stays as the shell runs it."""
    path = tmp_path / "README.md"
    path.write_text("# Reproduce\n\n```\n# Start the API server\nvLLM: CUDA_VISIBLE_DEVICES=0,1 vllm serve "
                    "Qwen/Qwen3-30B-A3B --tensor-parallel-size 2 --max-model-len 16384\n```\n")
    (dep,) = read_path(str(path)).deployments
    assert (dep.model, dep.get("max_model_len"), dep.gpu_count) == ("Qwen/Qwen3-30B-A3B", 16384, 2)
    script = tmp_path / "run.sh"
    script.write_text("#!/bin/bash\nvLLM: vllm serve Qwen/Qwen3-30B-A3B\n")
    assert list(read_path(str(script)).deployments) == []


def test_a_predictors_kserve_container_beside_its_model_is_one_launch(tmp_path):
    """K426: `predictor: {model: {modelFormat: vLLM, runtime: r, storageUri: pvc://...}, containers: [{name:
    kserve-container, args: [--model, /mnt/models, --tensor-parallel-size, "4"], resources: 4 GPUs}]}`. KServe merges
    the two into one container; kvlint gave two launches (the store's and the mount's). One now: the store, the
    container's flags and GPUs."""
    path = tmp_path / "isvc.yaml"
    path.write_text("apiVersion: serving.kserve.io/v1beta1\nkind: InferenceService\nmetadata:\n  name: llama\nspec:\n"
                    "  predictor:\n    model:\n      modelFormat:\n        name: vLLM\n      runtime: vllm-runtime\n"
                    "      storageUri: pvc://model-store/llama-3.1-70b\n    containers:\n      - name: kserve-container\n"
                    "        image: quay.io/opendatahub/vllm:latest\n        args:\n          - \"--model\"\n"
                    "          - \"/mnt/models\"\n          - \"--tensor-parallel-size\"\n          - \"4\"\n"
                    "        resources:\n          limits:\n            nvidia.com/gpu: \"4\"\n")
    (dep,) = read_path(str(path)).deployments
    assert (dep.model, dep.get("tensor_parallel_size"), dep.gpu_count) == ("pvc://model-store/llama-3.1-70b", 4, 4)


def test_a_service_whose_runtime_is_in_the_file_gives_no_second_launch_from_its_keys(tmp_path):
    """K420: an InferenceService (`model: {args: [...], name: '', runtime: r, storageUri: oci://...}`) and its
    ServingRuntime in one file: the runtime's container is the launch, with the service's store and arguments; the
    generic reader took the empty `name:` for a second launch's model (a placeholder)."""
    path = tmp_path / "isvc.yaml"
    path.write_text(_SERVICE.replace("---\n", "").replace(
        "      runtime: vllm-runtime\n",
        "      args:\n        - '--dtype=half'\n        - '--max-model-len=20000'\n      name: ''\n"
        "      runtime: vllm-runtime\n") + "---\n" + _RUNTIME.replace('"--max-model-len=999999999", ', ""))
    (dep,) = read_path(str(path)).deployments
    assert dep.model == "hf://Qwen/Qwen2.5-7B-Instruct"


def test_a_runbooks_single_capital_letter_value_is_a_placeholder(tmp_path):
    """K430's runbook: `vllm serve M -tp 4 --nnodes 4 --node-rank N --master-addr 10.100.10.4` (N: each node's rank,
    for the reader to fill in) was a KV007 error "not an integer"; a script that writes the same keeps it."""
    path = tmp_path / "README.md"
    path.write_text("# Multi-node\n\n```bash\nvllm serve /model -tp 4 --nnodes 4 --node-rank N "
                    "--master-addr 10.100.10.4\n```\n")
    (dep,) = read_path(str(path)).deployments
    assert not dep.invalid_values and any("--node-rank N is a placeholder" in n for n in dep.notes)
    script = tmp_path / "run.sh"
    script.write_text("#!/bin/bash\nvllm serve /model -tp 4 --nnodes 4 --node-rank N\n")
    (dep,) = read_path(str(script)).deployments
    assert dep.invalid_values


def test_a_python_c_program_run_by_path_or_by_a_variable_is_read(tmp_path):
    """K422's plan: SGLang started as `/opt/conda/envs/x/bin/python -c "import sys; sys.argv = [...];
    ...launch_server(prepare_server_args(sys.argv[1:]))"` and again as `$PYTHON -c "..."` (its `-m
    sglang.launch_server` fails there). The `python -c` reader knew the interpreter only by its bare name."""
    path = tmp_path / "start.sh"
    code = ("import sys\nsys.argv = ['sglang',\n    '--model-path', '$MODEL_PATH',\n    '--port', '8001',\n]\n"
            "from sglang.srt.server_args import prepare_server_args\nserver_args = prepare_server_args(sys.argv[1:])\n"
            "from sglang.srt.entrypoints.http_server import launch_server\nlaunch_server(server_args)\n")
    path.write_text('#!/bin/bash\nMODEL_PATH=Qwen/Qwen3-8B\nPYTHON=/opt/conda/envs/x/bin/python\n'
                    f'$PYTHON -c "\n{code}"\n')
    (dep,) = read_path(str(path)).deployments
    assert (dep.engine, dep.model, dep.get("port")) == ("sglang", "Qwen/Qwen3-8B", 8001)
    path.write_text(f'#!/bin/bash\n/opt/conda/envs/x/bin/python -c "\n{code}"\n'.replace("$MODEL_PATH", "Qwen/Qwen3-8B"))
    (dep,) = read_path(str(path)).deployments
    assert dep.model == "Qwen/Qwen3-8B" and dep.model_span.line == 5


def test_a_here_document_manifest_given_an_engines_variable_on_gpus_is_never_silent(tmp_path):
    """K421: a script writes an InferenceService on a runtime named elsewhere (an AMD AIM image), given
    `VLLM_ENABLE_METRICS` and `amd.com/gpu: "1"`, with `cat <<'EOF' > isvc.yaml`: no launch kvlint can read, and
    nothing was said. A KV008 place now, as the same manifest in a .yaml file is."""
    from kvlint.lint import LintOptions, lint

    path = tmp_path / "deploy.sh"
    path.write_text("#!/bin/bash\ncat <<'EOF' > isvc.yaml\napiVersion: serving.kserve.io/v1beta1\n"
                    "kind: InferenceService\nmetadata:\n  name: aim\nspec:\n  predictor:\n    model:\n"
                    "      runtime: aim-qwen3-32b-runtime\n      modelFormat:\n        name: aim-qwen3-32b\n      env:\n"
                    "        - name: VLLM_ENABLE_METRICS\n          value: \"true\"\n      resources:\n        limits:\n"
                    "          amd.com/gpu: \"1\"\nEOF\nkubectl apply -f isvc.yaml\n")
    found = [f for f in lint([str(path)], LintOptions()).findings if f.code == "KV008"]
    assert len(found) == 1 and found[0].span.line == 14 and "VLLM_ENABLE_METRICS" in found[0].message
