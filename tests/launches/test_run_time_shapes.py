"""Shapes of samples K136-K139 (turn 23), each read as a class: a function whose engine arms a caller's own test
rules out (`if [ "$ENGINE" = sglang ]; then start "--disable-radix-cache"`), an argument array a loop gathers at
run time and `set --` makes the script's arguments, several unknown expansions among `docker run`'s options, a
program found in one of two places (`BIN if os.path.exists(BIN) else "vllm"`), a command inside a Markdown HTML
comment, and the never-silent note's place when an `echo` prints the command first."""

from __future__ import annotations

from pathlib import Path

import pytest

from kvlint.launches import read_path


def _read(tmp_path: Path, name: str, text: str):
    path = tmp_path / name
    path.write_text(text)
    return read_path(str(path))


_BENCH = """\
#!/bin/bash
ENGINE="${1:-vllm}"
MODEL="Qwen/Qwen3-8B"
start_server() {
    local extra="$1"
    if [ "$ENGINE" = "vllm" ]; then
        vllm serve "$MODEL" --max-model-len 8192 $extra &
    elif [ "$ENGINE" = "sglang" ]; then
        python3 -m sglang.launch_server --model-path "$MODEL" $extra &
    fi
}
if [ "$ENGINE" = "sglang" ]; then
    start_server "--disable-radix-cache"
else
    start_server "--enable-prefix-caching"
fi
"""


def test_a_call_under_a_test_reads_only_the_arms_the_test_allows(tmp_path):
    """The sglang call's flag never reaches vLLM, the else call's never reaches SGLang: each engine gets its own
    arm's flag only (read before, each call gave both engines both flags: two wrong KV004s, sample K139)."""
    deps = _read(tmp_path, "bench.sh", _BENCH).deployments
    by_engine = {d.engine: d for d in deps}
    assert sorted(d.engine for d in deps) == ["sglang", "vllm"]
    assert "--disable-radix-cache" not in by_engine["vllm"].unknown_flags
    assert by_engine["vllm"].settings["enable_prefix_caching"].value is True
    assert "--enable-prefix-caching" not in by_engine["sglang"].unknown_flags
    assert by_engine["sglang"].settings["disable_radix_cache"].value is True


def test_a_variable_assigned_after_its_test_is_no_longer_known_by_it(tmp_path):
    """`E=vllm` inside the sglang arm: the call sees E as assigned, so the body's vLLM arm runs."""
    text = _BENCH.replace('    start_server "--disable-radix-cache"', '    ENGINE=vllm\n    start_server ""')
    deps = _read(tmp_path, "bench.sh", text).deployments
    assert [d.engine for d in deps].count("vllm") >= 1


def test_an_else_arm_excludes_the_literals_of_the_arms_before_it(tmp_path):
    text = """\
run() {
    case "$E" in
        a) vllm serve org/a --max-model-len 4096 ;;
        b) vllm serve org/b --max-model-len 4096 ;;
    esac
}
if [ "$E" = a ]; then
    echo a
else
    run
fi
"""
    deps = _read(tmp_path, "case.sh", text).deployments
    assert [d.model for d in deps] == ["org/b"]


_GATHER = """\
#!/usr/bin/env bash
_args=()
while [ "$#" -gt 0 ]; do
  case "$1" in
    --numa-bind) NUMA=auto; shift ;;
    *) _args+=("$1"); shift ;;
  esac
done
set -- ${_args[@]+"${_args[@]}"}
exec vllm serve "$@"
"""


def test_arguments_a_loop_gathers_are_passed_through_not_empty(tmp_path):
    """The array a `while` loop fills from "$1" is known only at run time: `set --` with it leaves the script's
    arguments unknown, so `vllm serve "$@"` is an entry point (KV008 info), not a launch of vLLM's default model."""
    result = _read(tmp_path, "entrypoint.sh", _GATHER)
    assert result.deployments == []
    assert [(f.code, f.span.line) for f in result.findings] == [("KV008", 10)]
    assert "run time" in result.findings[0].message


def test_an_array_used_directly_after_a_gathering_loop_is_unknown_too(tmp_path):
    text = _GATHER.replace('set -- ${_args[@]+"${_args[@]}"}\nexec vllm serve "$@"', 'exec vllm serve "${_args[@]}"')
    result = _read(tmp_path, "entrypoint.sh", text)
    assert result.deployments == [] and [f.code for f in result.findings] == ["KV008"]


def test_an_array_reassigned_after_the_loop_is_known_again(tmp_path):
    text = _GATHER.replace('set -- ${_args[@]+"${_args[@]}"}', '_args=(org/m --max-model-len 2048)\nset -- "${_args[@]}"')
    (dep,) = _read(tmp_path, "entrypoint.sh", text).deployments
    assert (dep.model, dep.get("max_model_len")) == ("org/m", 2048)


def test_the_never_silent_note_stands_at_the_command_not_at_the_echo_of_it(tmp_path):
    text = """\
ARGS=()
while IFS='=' read -r key value; do
    ARGS+=("--${key}")
done < <(env | grep "^SM_")
echo "Running command: exec python3 -m sglang.launch_server ${ARGS[@]}"
exec python3 -m sglang.launch_server "${ARGS[@]}"
"""
    result = _read(tmp_path, "serve", text)
    assert result.deployments == []
    assert [(f.code, f.span.line) for f in result.findings] == [("KV008", 6)]


def test_several_unknown_expansions_among_docker_options_are_all_options(tmp_path):
    """`$PATCH_MOUNTS $ENGRAM_MOUNT ... $NCCL_EXTRA "$IMAGE"`: each unknown word before a resolved image is more
    options (read before, the first of two in a row was taken for the image: no launch, sample K139)."""
    text = """\
IMAGE="${IMAGE:-vllm-dsv41:overlay1}"
NCCL_EXTRA="${NCCL_EXTRA:-}"
PATCH_MOUNTS=""
while read -r f; do PATCH_MOUNTS="$PATCH_MOUNTS -v $f:/x/$f:ro"; done < mounts.txt
if [ -f local.json ]; then LOCAL_MOUNT="-v /var/tmp/e:/e:ro"; else LOCAL_MOUNT=""; fi
docker run --gpus all -d --name vllm_x \\
  $PATCH_MOUNTS $LOCAL_MOUNT \\
  -e NCCL_DEBUG=WARN \\
  $NCCL_EXTRA \\
  "$IMAGE" \\
    /models/org-m \\
    --tensor-parallel-size 4 --max-model-len 131072
"""
    (dep,) = _read(tmp_path, "run.sh", text).deployments
    assert (dep.engine, dep.model, dep.get("tensor_parallel_size")) == ("vllm", "/models/org-m", 4)
    assert dep.image == "vllm-dsv41:overlay1"


def test_an_unknown_expansion_followed_by_dockers_own_options_is_options(tmp_path):
    """Sample K154's f-string script (`--network host {privileged_str} --name {NAME} {image_uri} python3 -m
    sglang.launch_server ...`, measured: a KV008, no launch): an unknown word that docker's own valued options
    follow (`--name N`) is more options, and the image is the unknown word just before the command; an unknown word
    followed by the engine's flags stays the image."""
    text = ("docker run -d --gpus all --network host $PRIV \\\n    --name $NAME $IMAGE \\\n"
            "    python3 -m sglang.launch_server --model-path $MODEL_ID --port 30000\n"
            "docker run --gpus all $IMG --model org/m-7b --max-model-len 4096\n")
    first, second = _read(tmp_path, "run.sh", text).deployments
    assert (first.engine, first.model, first.model_span.line) == ("sglang", "$MODEL_ID", 3)
    assert (second.engine, second.model) == ("vllm", "org/m-7b")


def test_a_function_called_in_a_command_substitution_runs(tmp_path):
    """Sample K162 (measured: one launch of four): `PID=$(launch_vllm "org/m" $PORT ...)`, a function that starts a
    server in the background and prints its PID, called from an assignment: each call is a launch with its
    arguments."""
    text = ("launch() {\n  local model=$1 port=$2\n"
            "  python -m vllm.entrypoints.openai.api_server --model \"$model\" --port \"$port\" > log 2>&1 &\n"
            "  echo $!\n}\nP1=$(launch \"org/a-7b\" 8000)\nP2=$(launch \"org/b-1b\" 8001)\n")
    deps = _read(tmp_path, "run.sh", text).deployments
    assert [(d.model, d.get("port")) for d in deps] == [("org/a-7b", 8000), ("org/b-1b", 8001)]


def test_a_server_program_named_from_infer_with_an_etcd_endpoint_is_read_by_its_flags(tmp_path):
    """Sample K162's AMD Infera prefill (measured: no launch): `python3 -m infera.engine.sglang --model-path M
    --etcd-endpoint E ...`: `infera` is no offline-inference program (`infer`, `inference` are), and an
    infrastructure service's address (`--etcd-endpoint`) does not make the program a client of an engine."""
    text = ("python3 -m infera.engine.sglang --model-path /m/GLM-5.2-FP8 --port 30000 --etcd-endpoint http://e:2379 "
            "--tp-size 8 --mem-fraction-static 0.8 --disaggregation-mode prefill\n"
            "python3 offline_inference.py --model-path /m/x --tp-size 8 --mem-fraction-static 0.8 --port 1\n"
            "python3 -m agent.sglang --model-path /m/x --tp-size 8 --mem-fraction-static 0.8 --base-url http://s\n")
    (dep,) = _read(tmp_path, "launch_prefill.sh", text).deployments
    assert (dep.engine, dep.model, dep.get("tp_size")) == ("sglang", "/m/GLM-5.2-FP8", 8)


def test_a_wrapper_handed_serve_a_model_and_the_engines_flags_is_its_cli(tmp_path):
    """Sample K167's ROCm script (measured: a KV008): `docker run ... vllm-therock:latest python
    /patches/apply_patches.py serve ORG/MODEL --quantization awq --max-model-len 32768 --port 8000`, a wrapper that
    patches vLLM and runs its CLI: vLLM's `serve` launch with the model and flags; a program named for a benchmark
    given the same words is not one."""
    text = ("docker run --rm --network=host docker.io/org/vllm-gfx1151:latest \\\n"
            "  python /patches/apply_patches.py serve QuantTrio/Qwen3.5-122B-A10B-AWQ \\\n"
            "    --quantization awq --max-model-len 32768 --gpu-memory-utilization 0.85 --port 8000\n")
    (dep,) = _read(tmp_path, "run_vllm.sh", text).deployments
    assert (dep.engine, dep.model, dep.get("max_model_len")) == ("vllm", "QuantTrio/Qwen3.5-122B-A10B-AWQ", 32768)
    bench = text.replace("apply_patches.py", "benchmark_serving.py")
    assert _read(tmp_path, "bench.sh", bench).deployments == []


def test_a_program_set_at_run_time_named_for_the_engine_is_its_cli(tmp_path):
    """Sample K164's AgentLab (measured: a KV008): `[toolkit_configs.VLLM_ENV_PATH, "serve", self.model_path,
    "--tensor-parallel-size", ...]`, the path of an environment's `vllm`: that engine's CLI; a run-time program not
    named for an engine stays a KV008."""
    text = ("import subprocess\nimport toolkit_configs\n\n\nclass S:\n    def start(self):  # a vllm server\n"
            "        cmd = [toolkit_configs.VLLM_ENV_PATH, \"serve\", self.model_path, \"--tensor-parallel-size\", "
            "\"2\", \"--port\", \"8000\"]\n        subprocess.Popen(cmd)\n")
    (dep,) = _read(tmp_path, "vllm_server.py", text).deployments
    assert (dep.engine, dep.get("tensor_parallel_size"), dep.launch_span.line) == ("vllm", 2, 7)
    other = _read(tmp_path, "runner.py", text.replace("VLLM_ENV_PATH", "BINARY"))
    assert other.deployments == [] and [f.code for f in other.findings] == ["KV008"]


def test_a_program_found_in_one_of_two_places_is_that_program(tmp_path):
    text = '''\
import os
import shutil
import subprocess

VENV_BIN = "/workspace/venvs/vllm/bin/vllm"


def start(model):
    binary = VENV_BIN if os.path.exists(VENV_BIN) else shutil.which("vllm") or "vllm"
    cmd = [binary, "serve", model, "--port", "8001"]
    return subprocess.Popen(cmd)
'''
    (dep,) = _read(tmp_path, "runner.py", text).deployments
    assert (dep.engine, dep.model_resolved) == ("vllm", False)
    assert (dep.model_span.line, dep.model_span.col) == (10, 29)


def test_two_different_programs_stay_unknown(tmp_path):
    text = '''\
import os
import subprocess


def start(model):
    binary = "/opt/a/vllm" if os.path.exists("/opt/a") else "/opt/b/vllm"
    cmd = [binary, "serve", model, "--port", "8001"]
    return subprocess.Popen(cmd)
'''
    assert _read(tmp_path, "runner.py", text).deployments == []


def test_a_command_inside_a_markdown_html_comment_is_not_a_launch(tmp_path):
    text = """\
# Setup

```bash
vllm serve org/shown --max-model-len 4096
```

<!--

  - vllm serve org/hidden --max-model-len 4096

```bash
vllm serve org/hidden-block
```
-->

```html
<!-- not a comment of the page: a block's text -->
```

```bash
vllm serve org/after --max-model-len 2048
```
"""
    deps = _read(tmp_path, "setup.md", text).deployments
    assert [(d.model, d.model_span.line) for d in deps] == [("org/shown", 4), ("org/after", 21)]


def test_a_loop_placing_one_server_per_gpu_shares_the_jobs_request(tmp_path):
    """`for ((GPU=0; ...)); do CUDA_VISIBLE_DEVICES=$GPU python -m vllm... --tp 1 &`: the job's four GPUs are the
    four copies' (a KV204 warning "3 requested GPU(s) stay idle" was wrong, sample K143); an info says so."""
    text = """\
#!/usr/bin/env bash
#SBATCH --gres=gpu:l40s:4
NUM_GPUS="${NUM_GPUS:-4}"
for ((GPU=0; GPU<NUM_GPUS; GPU++)); do
    CUDA_VISIBLE_DEVICES=$GPU python -m vllm.entrypoints.openai.api_server \\
        --model Qwen/Qwen2.5-7B-Instruct --tensor-parallel-size 1 --port $((8000 + GPU)) &
done
wait
"""
    (dep,) = _read(tmp_path, "job.sh", text).deployments
    assert dep.gpu_count == 4 and "CUDA_VISIBLE_DEVICES=$GPU" in (dep.gpu_count_shared or "")


def test_supervisord_environment_references_are_variables_at_their_places(tmp_path):
    """`%(ENV_VLLM_MODEL)s` is supervisord's expansion of its own environment: the model and the flags' values are
    those variables, unresolved (read before as the model "%", sample K140), each at the `%` that starts it."""
    text = """\
[program:vllm]
command=vllm serve %(ENV_VLLM_MODEL)s --port 8000 --max-model-len %(ENV_MAX_LEN)s
autostart=true
"""
    (dep,) = _read(tmp_path, "supervisord.conf", text).deployments
    assert (dep.model, dep.model_resolved, dep.model_span.col) == ("${VLLM_MODEL}", False, 20)
    max_len = dep.settings["max_model_len"]
    assert (max_len.raw, max_len.resolved, max_len.span.col) == ("${MAX_LEN}", False, 67)


def test_a_shift_in_a_command_handed_as_an_argument_is_no_crash(tmp_path):
    """A job submitter handed `"shift; vllm serve ..."`: the string is read as a script with no arguments, where
    `shift` drops nothing (an IndexError before, found by turn 23's random mutations)."""
    (dep,) = _read(tmp_path, "submit.sh", 'python submit.py job "shift; vllm serve org/m --port 1"\n').deployments
    assert (dep.engine, dep.model) == ("vllm", "org/m")


def test_an_argument_list_of_a_program_set_at_run_time_is_never_silent(tmp_path):
    """`[binary, "serve", model, ...]` with `binary` from the environment: no launch kvlint can read, said at the
    list (silent before, sample K139's runner before its program could be named)."""
    text = '''\
import os
import subprocess


def start(model):
    binary = os.environ["VLLM_BIN"]
    cmd = [binary, "serve", model, "--port", "8001"]
    return subprocess.Popen(cmd)
'''
    result = _read(tmp_path, "runner.py", text)
    assert result.deployments == []
    assert [(f.code, f.span.line, f.span.col) for f in result.findings] == [("KV008", 7, 12)]
    assert "set at run time" in result.findings[0].message


def test_an_engine_command_named_in_a_message_is_not_said_to_be_a_run_time_program(tmp_path):
    """Sample K159's wrapper (`parser.error("vllm serve arguments required ...")`, then `["vllm", "serve"] +
    forwarded`): the KV008 at the message said "an argument list whose program is set at run time", a list that
    is not there; only a `[NAME, "serve", ...]` list found as the place says that."""
    text = ("import argparse\nimport subprocess\n\n\ndef main():\n    parser = argparse.ArgumentParser()\n"
            "    args, forwarded = parser.parse_known_args()\n    if not forwarded:\n"
            "        parser.error(\"vllm serve arguments required\")\n"
            "    cmd = [\"vllm\", \"serve\"] + forwarded\n    subprocess.Popen(cmd)\n")
    result = _read(tmp_path, "wrapper.py", text)
    assert result.deployments == []
    assert [f.code for f in result.findings] == ["KV008"]
    assert "set at run time" not in result.findings[0].message


def test_a_command_handed_to_a_function_is_placed_in_the_argument(tmp_path):
    """`start_process vllm "vllm serve M --max-model-len 32K ..." $PORT`, run by the body as `bash -c "... '$cmd'"`:
    the model and each flag at their place in the call's argument (read before at the body's `local cmd=$2`)."""
    text = """\
start_process() {
  local name=$1
  local cmd=$2
  bash -c "stdbuf -oL -eL bash -c '$cmd'" > "$name.log" 2>&1 &
}
start_process "vllm" "
vllm serve Qwen/Qwen3.5-9B \\
  --port 8000 \\
  --max-model-len 32K
" 8000
"""
    (dep,) = _read(tmp_path, "services.sh", text).deployments
    assert (dep.model, dep.model_span.line, dep.model_span.col) == ("Qwen/Qwen3.5-9B", 7, 12)
    assert (dep.settings["max_model_len"].span.line, dep.settings["max_model_len"].span.col) == (9, 19)


def test_an_array_made_in_a_loop_body_and_added_to_there_is_no_gathering(tmp_path):
    """`serve_args=(...)` made afresh in each pass of a loop over GPUs, then `[[ -n "$Q" ]] && serve_args+=(...)`:
    each pass's own list (an optional addition left out, as outside loops), not words gathered across passes."""
    text = """\
for ((gpu_id = 0; gpu_id < GPU_COUNT; gpu_id++)); do
    serve_args=(
        "$MODEL_PATH"
        --max-model-len 8192
    )
    [[ -n "$VLLM_QUANTIZATION" ]] && serve_args+=(--quantization "$VLLM_QUANTIZATION")
    CUDA_VISIBLE_DEVICES=$gpu_id nohup vllm serve "${serve_args[@]}" > "$log" 2>&1 &
done
"""
    (dep,) = _read(tmp_path, "multi.sh", text).deployments
    assert (dep.model, dep.model_span.line, dep.get("max_model_len")) == ("$MODEL_PATH", 3, 8192)


def test_a_program_pointed_at_a_server_url_is_its_client(tmp_path):
    """`python3 vllm_miner.py --port P --vllm-url http://127.0.0.1:8000 --model M` after the server's own launch:
    an option of the program's own naming a server URL makes it a client (read before as a second vLLM launch by
    its flags, sample K147)."""
    text = """\
nohup python3 -m vllm.entrypoints.openai.api_server --model org/m --port 8000 &
nohup python3 vllm_miner.py --port 9000 --vllm-url "http://127.0.0.1:8000" --model org/m &
"""
    deps = _read(tmp_path, "deploy.sh", text).deployments
    assert [(d.model, d.launch_span.line) for d in deps] == [("org/m", 1)]


def test_a_program_named_for_the_engine_with_only_generic_options_is_its_own(tmp_path):
    """`ENTRYPOINT ["python3", "vllm_miner.py"]` + `CMD ["--port", "8091", "--model", M]`: a model and a port are any
    serving program's options, and the name says no server: the program's own (read before as a vLLM launch, sample
    K147); a script named for starting the server with the same two options still is one."""
    miner = 'FROM python:3.11\nENTRYPOINT ["python3", "vllm_miner.py"]\nCMD ["--port", "8091", "--model", "org/m"]\n'
    assert _read(tmp_path, "Dockerfile", miner).deployments == []
    (dep,) = _read(tmp_path, "notes.sh", "./scripts/start_vllm_server.sh --model org/m --port 8000\n").deployments
    assert (dep.engine, dep.model) == ("vllm", "org/m")


def test_a_predictor_serving_the_storage_mount_serves_its_storage_uri(tmp_path):
    """A KServe predictor whose own args say `--model=/mnt/models` beside a `storageUri`: the model is what the URI
    names (KServe mounts it there), at the URI's place; the args' other flags still hold (sample K145). Arguments
    alone are no program of the container's own to read by its flags (`--port=8080` was one for a commit, 84ff402,
    with a server flag among them)."""
    text = """\
apiVersion: serving.kserve.io/v1beta1
kind: InferenceService
metadata:
  name: qwen
spec:
  predictor:
    model:
      args:
        - '--port=8080'
        - '--model=/mnt/models'
        - '--served-model-name=qwen2.5'
        - '--max-model-len=2048'
      modelFormat:
        name: vLLM
      runtime: vllm-cpu
      storageUri: hf://Qwen/Qwen2.5-0.5B-Instruct
"""
    (dep,) = _read(tmp_path, "isvc.yaml", text).deployments
    assert (dep.model, dep.model_span.line, dep.get("max_model_len")) == ("hf://Qwen/Qwen2.5-0.5B-Instruct", 16, 2048)


def _flags(deps):
    return {d.engine: sorted(u.flag for u in d.unknown_flags) for d in deps}


@pytest.mark.parametrize("default", ['ENGINE="${1:-vllm}"', 'ENGINE="$1"'])
@pytest.mark.parametrize("form", ["if", "case"])
def test_a_variable_set_under_a_test_is_read_under_the_same_test(tmp_path, default, form):
    """`EXTRA` set per engine by one test, used by each engine's command under the same test: each engine reads its
    own arm's value, whether the engine is a caller's default (its other arm read aside) or unknown. Read before
    with the value the reading last went through: `vllm serve ... --disable-radix-cache` (a wrong KV004)."""
    if form == "if":
        body = """\
if [ "$ENGINE" = "vllm" ]; then
  EXTRA="--enable-prefix-caching"
else
  EXTRA="--disable-radix-cache"
fi
if [ "$ENGINE" = "vllm" ]; then
  vllm serve Qwen/Qwen3-8B $EXTRA
else
  python -m sglang.launch_server --model-path Qwen/Qwen3-8B $EXTRA
fi
"""
    else:
        body = """\
case "$ENGINE" in
  vllm) EXTRA="--enable-prefix-caching" ;;
  sglang) EXTRA="--disable-radix-cache" ;;
esac
case "$ENGINE" in
  vllm) vllm serve Qwen/Qwen3-8B $EXTRA ;;
  sglang) python -m sglang.launch_server --model-path Qwen/Qwen3-8B $EXTRA ;;
esac
"""
    deps = _read(tmp_path, "serve.sh", default + "\n" + body).deployments
    assert _flags(deps) == {"vllm": [], "sglang": []}
    by_engine = {d.engine: d for d in deps}
    assert by_engine["vllm"].settings["enable_prefix_caching"].value is True
    assert by_engine["sglang"].settings["disable_radix_cache"].value is True


def test_an_earlier_test_with_no_else_leaves_the_value_from_before_when_no_arm_matches(tmp_path):
    """`if [ "$E" = a ]; then X=...; fi` then, under `[ "$E" = b ]`, X holds what it held before the `if`."""
    text = """\
E="$1"
X="--max-model-len 4096"
if [ "$E" = a ]; then
  X="--max-model-len 8192"
fi
if [ "$E" = b ]; then
  vllm serve org/m $X
fi
"""
    (dep,) = _read(tmp_path, "serve.sh", text).deployments
    assert dep.get("max_model_len") == 4096


def test_a_notebook_markdown_cells_shell_block_is_a_runbook_command(tmp_path):
    """A markdown cell telling its reader to launch the server in a fenced block (sample K148, silent before): read
    as a runbook's block, each value at its place in the .ipynb's JSON text; its prose is not."""
    import json

    cells = [{"cell_type": "markdown", "metadata": {}, "source": [
        "Launch a vLLM instance (vllm serve is the command):\n", "```\n",
        "vllm serve Qwen/Qwen3-1.7B --port 8000 \\\n", "--max-model-len 16384\n", "```\n"]},
        {"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [], "source": ["import os\n"]}]
    text = json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=1)
    (dep,) = _read(tmp_path, "client.ipynb", text).deployments
    line = text.split("\n").index('    "vllm serve Qwen/Qwen3-1.7B --port 8000 \\\\\\n",') + 1
    assert (dep.model, dep.model_span.line, dep.get("max_model_len")) == ("Qwen/Qwen3-1.7B", line, 16384)


def test_a_case_with_patterns_reads_each_arm_with_its_own_earlier_arm(tmp_path):
    """`qwen3-8b)` and `llama*)` arms in two `case`s on one variable: each later arm reads what the earlier arm its
    pattern allows assigned (a pattern is a fact too: `llama*` never holds a value `qwen3-8b` holds)."""
    text = """\
M="$1"
case "$M" in
  qwen3-8b) X="--max-model-len 4096" ;;
  llama*) X="--max-model-len 8192" ;;
esac
case "$M" in
  qwen3-8b) vllm serve Qwen/Qwen3-8B $X ;;
  llama*) vllm serve meta-llama/Llama-3.1-8B-Instruct $X ;;
esac
"""
    deps = _read(tmp_path, "presets.sh", text).deployments
    assert [(d.model, d.get("max_model_len")) for d in deps] == [
        ("Qwen/Qwen3-8B", 4096), ("meta-llama/Llama-3.1-8B-Instruct", 8192)]


def test_a_pattern_arm_the_callers_literal_rules_out_does_not_run(tmp_path):
    """`start` called under `[ "$M" = qwen3-8b ]` into a `case "$M"` whose `llama*)` arm no such value matches."""
    text = """\
start() {
  case "$M" in
    qwen*) vllm serve Qwen/Qwen3-8B --max-model-len 4096 ;;
    llama*) vllm serve meta-llama/Llama-3.1-8B-Instruct --enable-lora ;;
  esac
}
if [ "$M" = qwen3-8b ]; then start; fi
"""
    assert [d.model for d in _read(tmp_path, "start.sh", text).deployments] == ["Qwen/Qwen3-8B"]


def test_a_simulator_image_given_the_engines_flags_starts_no_engine(tmp_path):
    """`ghcr.io/llm-d/llm-d-inference-sim` answers like vLLM and takes its flags (`--model base-model --max-loras 6`):
    no engine, no model loaded (read before as a vLLM launch by its flags, sample K151); the engine's own image with
    the same arguments still is one."""
    text = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: vllm-llama3-8b-instruct
spec:
  template:
    spec:
      containers:
      - name: vllm-sim
        image: ghcr.io/llm-d/llm-d-inference-sim:v0.5.0
        args: [--model, base-model, --port, '8000', --max-loras, '6', --max-model-len, '4096']
"""
    assert _read(tmp_path, "sim.yaml", text).deployments == []
    real = text.replace("ghcr.io/llm-d/llm-d-inference-sim:v0.5.0", "registry.example/team/llm-serving:v1")
    assert [d.engine for d in _read(tmp_path, "real.yaml", real).deployments] == ["vllm"]


def test_a_notebook_cell_that_writes_a_dockerfile_is_that_dockerfile(tmp_path):
    """`%%writefile Dockerfile` then the build: the file the notebook writes is read by its name's reader, each value
    at its place in the .ipynb (sample K150's Cloud Run notebook, a miss)."""
    import json

    source = ["%%writefile Dockerfile\n", "FROM vllm/vllm-openai:v0.10.1\n",
              "ENTRYPOINT python3 -m vllm.entrypoints.openai.api_server \\\n", "    --model google/gemma-3-4b-it \\\n",
              "    --max-model-len 32768"]
    cells = [{"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [], "source": source}]
    text = json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=1)
    (dep,) = _read(tmp_path, "deploy.ipynb", text).deployments
    line = text.split("\n").index('    "    --model google/gemma-3-4b-it \\\\\\n",') + 1
    assert (dep.model, dep.model_span.line, dep.get("max_model_len"), dep.engine_version) == \
        ("google/gemma-3-4b-it", line, 32768, "0.10.1")


def test_a_wrapper_run_in_a_container_with_sizing_flags_is_never_silent(tmp_path):
    """`srun singularity exec $IMAGE ./run-vllm-process.sh MODEL --tensor-parallel 8 --pipeline-parallel 2`: a
    repository's wrapper handed a model and then vLLM's own flags (abbreviated) inside a container (silent before,
    sample K150, whose reader counts one launch; said by a KV008 from turn 20, read from turn 32 as any script
    handed a model and one engine's flags is: kvlint.launches.script._wrapping_script)."""
    text = """\
#!/bin/bash
#SBATCH --gpus-per-node 8
export CONTAINER_IMAGE=/appl/containers/torch.sif
srun singularity exec $CONTAINER_IMAGE ./run-vllm-process.sh deepseek-ai/DeepSeek-R1-0528 --tensor-parallel 8 \\
  --pipeline-parallel $SLURM_NNODES
"""
    result = _read(tmp_path, "job.sh", text)
    (dep,) = result.deployments
    assert (dep.engine, dep.model, dep.model_span.line, dep.model_span.col) == \
        ("vllm", "deepseek-ai/DeepSeek-R1-0528", 4, 62)
    assert (dep.get("tensor_parallel_size"), dep.settings["pipeline_parallel_size"].resolved) == (8, False)
    assert [f.code for f in result.findings] == []


def test_an_akash_sdl_service_runs_its_command_with_its_args_on_its_profiles_gpus(tmp_path):
    """Akash's SDL: compose's shape with Kubernetes' `command` + `args`, and the GPUs in `profiles.compute`
    (sample K150: read before as a compose service whose `command: [bash, -c]` ran nothing)."""
    text = """\
---
version: "2.0"
services:
  sglang1:
    image: lmsysorg/sglang:v0.4.6.post5-cu124
    command:
      - bash
      - "-c"
    args:
      - >-
        python3 -m sglang.launch_server --model Qwen/Qwen3-8B --tp 8 --host 0.0.0.0 --port 8000
profiles:
  compute:
    sglang1:
      resources:
        gpu:
          units: 8
          attributes:
            vendor:
              nvidia:
                - model: h200
"""
    (dep,) = _read(tmp_path, "deploy.yaml", text).deployments
    assert (dep.engine, dep.model, dep.get("tp_size"), dep.gpu_count, dep.gpu) == ("sglang", "Qwen/Qwen3-8B", 8, 8, "h200")
    assert (dep.gpu_count_span.line, dep.gpu_span.line) == (17, 21)


def test_a_function_reads_a_variable_set_under_the_same_test_as_its_own(tmp_path):
    """The earlier statement's arms reach into a function called after it: `run` tests `$E` as the statement that set
    `X` did, so its vLLM arm reads the vLLM arm's `X` (a wrong KV004 on SGLang's flag before)."""
    text = """\
E="$1"
if [ "$E" = "vllm" ]; then
  X="--enable-prefix-caching"
else
  X="--disable-radix-cache"
fi
run() {
  if [ "$E" = "vllm" ]; then
    vllm serve Qwen/Qwen3-8B $X
  else
    python -m sglang.launch_server --model-path Qwen/Qwen3-8B $X
  fi
}
run
"""
    assert _flags(_read(tmp_path, "run.sh", text).deployments) == {"vllm": [], "sglang": []}


def test_a_simulators_container_written_in_code_starts_no_engine(tmp_path):
    """A Python container dict whose image is a simulator's by its name as written (`FixturesImages.
    LLMD_INFERENCE_SIM`, sample K153: a wrong KV004 on the simulator's own `--tokenizers-cache-dir`), and an HCL
    task whose image is one: their flag lists are no launch; the same lists beside a serving image still are."""
    py = """\
containers = [{
    "name": "kserve-container",
    "image": FixturesImages.LLMD_INFERENCE_SIM,
    "args": ["--model", "org/m", "--port", "8000", "--max-model-len", "4096", "--tokenizers-cache-dir", "/d"],
}]  # vllm
"""
    assert _read(tmp_path, "fixtures.py", py).deployments == []
    hcl = """\
resource "aws_ecs_task_definition" "vllm" {
  container_definitions = jsonencode([{
    image   = "ghcr.io/llm-d/llm-d-inference-sim:v0.5.0"
    command = ["--model", "Qwen/Qwen3-8B", "--max-model-len", "4096", "--port", "8000"]
  }])
}
"""
    assert _read(tmp_path, "main.tf", hcl).deployments == []
    served = hcl.replace("ghcr.io/llm-d/llm-d-inference-sim:v0.5.0", "registry.example/team/serving:v1")
    assert [d.model for d in _read(tmp_path, "served.tf", served).deployments] == ["Qwen/Qwen3-8B"]


def test_a_platforms_engine_app_class_is_a_launch(tmp_path):
    """Union's `VLLMApp(name=..., model=..., port=8084)` (imported from `union.app.llm`): the platform runs a vLLM
    server for it, as ZenML's `VLLMServiceConfig` (sample K153: two misses)."""
    text = """\
from union.app.llm import VLLMApp

app = VLLMApp(
    name="qwen-app",
    container_image="ghcr.io/unionai-oss/serving-vllm:0.1.17",
    model="Qwen/Qwen2.5-0.5B-Instruct",
    port=8084,
)
"""
    (dep,) = _read(tmp_path, "apps.py", text).deployments
    assert (dep.engine, dep.model, dep.model_span.line, dep.get("port")) == ("vllm", "Qwen/Qwen2.5-0.5B-Instruct", 6, 8084)


def test_a_notebook_shell_line_continued_with_backslashes_is_one_command(tmp_path):
    """`!python -m vllm.entrypoints.openai.api_server \\` then option lines (IPython joins them): one shell command,
    not a shell line and some Python (sample K152's dbrx notebook, a miss)."""
    import json

    source = ["!python -m vllm.entrypoints.openai.api_server \\\n", "    --model databricks/dbrx-instruct \\\n",
              "    --tensor-parallel-size 4 \\\n", "    --max-model-len 16048 # a note"]
    cells = [{"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [], "source": source}]
    text = json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=1)
    (dep,) = _read(tmp_path, "dbrx.ipynb", text).deployments
    assert (dep.model, dep.get("tensor_parallel_size"), dep.get("max_model_len")) == ("databricks/dbrx-instruct", 4, 16048)


_ENGINE_ARGS = """\
from vllm.engine.arg_utils import AsyncEngineArgs
from vllm.engine.async_llm_engine import AsyncLLMEngine
from vllm.entrypoints.api_server import run_server

cfg = load()
engine_args = AsyncEngineArgs(
    model="Qwen/Qwen3-8B",
    enable_prefix_caching=cfg["enable_prefix_caching"],
    max_model_len=8192,
)
"""


def test_engine_arguments_for_an_in_process_engine_are_no_launch(tmp_path):
    """`run_server` imported but never called, the arguments handed to `AsyncLLMEngine.from_engine_args` in the
    program's own FastAPI app: no server of vLLM's (sample K154, read as one before)."""
    text = _ENGINE_ARGS + "engine = AsyncLLMEngine.from_engine_args(engine_args)\n"
    assert _read(tmp_path, "server.py", text).deployments == []


def test_a_switch_given_a_run_time_value_is_left_out_not_a_stray_argument(tmp_path):
    """`enable_prefix_caching=cfg["..."]` with `run_server(...)` called: the switch is on or off at run time, so it is
    left out; read as `--enable-prefix-caching VALUE`, the value was taken for the positional model."""
    text = _ENGINE_ARGS + "run_server(engine_args)\n"
    (dep,) = _read(tmp_path, "server.py", text).deployments
    assert (dep.model, dep.get("max_model_len"), "enable_prefix_caching" in dep.settings) == \
        ("Qwen/Qwen3-8B", 8192, False)
