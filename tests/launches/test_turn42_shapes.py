"""Shapes the turn-42 held-out samples showed kvlint passing over or misreading, each read by a mechanism, not a
case: every test writes the shape small, with the launches it must give (and the ones it must not)."""

from __future__ import annotations

import json
from pathlib import Path

from kvlint.launches import read_path
from tests.launches.checked import checked as _checked


def _notebook(cells: list[tuple[str, str]]) -> str:
    return json.dumps({"cells": [{"cell_type": kind, "metadata": {}, "source": source.splitlines(keepends=True)}
                                 for kind, source in cells], "metadata": {}, "nbformat": 4, "nbformat_minor": 5},
                      indent=1)


def _text_at(path: Path, span) -> str:
    """The characters a span covers (one line)."""
    line = path.read_text().splitlines()[span.line - 1]
    return line[span.col - 1:span.end_col - 1]


def test_an_apostrophe_inside_a_double_quoted_parameter_default_is_text(tmp_path):
    """K406: `: "${HOST_IP:?set HOST_IP (this rank's IP)}"` above the launch. The apostrophe opened a quote that ran
    to the file's end (bash 5.2 does the same and fails; dash and the author read an apostrophe), so the entry
    point's `vllm serve` was passed over. Inside a double-quoted `${...}` a single quote is text now."""
    path = tmp_path / "entrypoint.sh"
    path.write_text('#!/bin/bash\n: "${HOST_IP:?set HOST_IP (this rank\'s IP)}"\nMODEL="${MODEL:-/model}"\n'
                    'exec vllm serve "$MODEL" --tensor-parallel-size 4 --max-model-len 256\n')
    (dep,) = read_path(str(path)).deployments
    assert (dep.model, dep.get("tensor_parallel_size"), dep.get("max_model_len")) == ("/model", 4, 256)
    assert _text_at(path, dep.settings["max_model_len"].span) == "256"


def test_a_launchers_first_argument_left_to_the_environment_is_its_model(tmp_path):
    """K406: `python3 scripts/launch_vllm.py "$MODEL" --own 2 -- --tensor-parallel-size 4 ...` with `MODEL=${MODELS}/x`
    from the environment. A wrapper named for the engine and serving, handing the engine's flags on after `--`, was
    read only when its first argument was written out; an open variable there is the model too."""
    path = tmp_path / "serve.sh"
    path.write_text('#!/bin/bash\nMODEL=${MODELS}/MiniMax-M2.7-FP8\n'
                    'exec python3 scripts/launch_vllm.py "$MODEL" --target-layer-ids 2 16 -- '
                    '--tensor-parallel-size 4 --max-model-len 2048\n')
    (dep,) = read_path(str(path)).deployments
    assert dep.engine == "vllm" and not dep.model_resolved
    assert (dep.get("tensor_parallel_size"), dep.get("max_model_len")) == (4, 2048)
    path.write_text('#!/bin/bash\nexec python3 scripts/launch_vllm.py --target-layer-ids 2 16\n')
    assert list(read_path(str(path)).deployments) == []  # no model, no engine flags: no launch


def test_a_notebooks_code_cells_are_one_module(tmp_path):
    """K405: `def start_server(model, *extra)` in one cell, `MODEL = "..."` in another, and three cells calling
    `start_server(MODEL, ...)`, `start_server(AWQ_MODEL, ...)`. Each cell was read alone, so the function kept its
    one launch with `${model}`. The cells are read as the kernel runs them, one module: a launch per model, each
    model at its place in the .ipynb."""
    path = tmp_path / "bench.ipynb"
    path.write_text(_notebook([
        ("code", "%pip install -q vllm\n"),
        ("code", 'import subprocess\nMODEL = "Qwen/Qwen2.5-1.5B-Instruct"\nAWQ_MODEL = "Qwen/Qwen2.5-1.5B-Instruct-AWQ"\n'),
        ("code", "def start_server(model, *extra):\n"
                 '    cmd = ["vllm", "serve", model, "--max-model-len", "4096", *extra]\n'
                 "    return subprocess.Popen(cmd)\n"),
        ("code", "proc = start_server(MODEL)\n"),
        ("code", 'proc = start_server(AWQ_MODEL, "--quantization", "awq")\n')]))
    deps = read_path(str(path)).deployments
    assert sorted(d.model or "" for d in deps) == ["Qwen/Qwen2.5-1.5B-Instruct", "Qwen/Qwen2.5-1.5B-Instruct-AWQ"]
    for dep in deps:  # each model at the call that gives it (the value that causes a finding is the caller's)
        assert _text_at(path, dep.model_span) == ("MODEL" if dep.model.endswith("Instruct") else "AWQ_MODEL")
        assert dep.get("max_model_len") == 4096


def test_a_bracketed_word_is_a_placeholder_not_a_value_the_engine_refuses(tmp_path):
    """K406's runbook "illustrative shape": `vllm serve "[model-root]" --kv-cache-memory-bytes "[bounded-bytes]"`. The
    byte count was an error ("not a count vLLM reads"); a word in brackets is the reader's to fill in, as `<port>` is."""
    path = tmp_path / "RUNBOOK.md"
    path.write_text('# Serve\n\n```bash\nsetsid vllm serve "[model-root]" \\\n  --max-num-seqs 1 \\\n'
                    '  --kv-cache-memory-bytes "[bounded-bytes]"\n```\n')
    (dep,) = read_path(str(path)).deployments
    assert dep.invalid_values == () and not dep.model_resolved
    assert not [f for f in _checked(path) if f["severity"] in ("warning", "error")]


def _pod(init: str, containers: str) -> str:
    return ("apiVersion: batch/v1\nkind: Job\nmetadata: {name: eval}\nspec:\n  template:\n    spec:\n"
            f"      initContainers:\n{init}      containers:\n{containers}")


def test_a_native_sidecar_init_container_is_a_container_that_serves(tmp_path):
    """K406: an evaluation Job whose engine runs as an init container with `restartPolicy: Always` (Kubernetes'
    native sidecar) beside the client container. Init containers were skipped, and a generic reader placed the launch
    at the block's `|`; a sidecar is read as a container now, each value at its place."""
    sidecar = ("      - name: vllm-server\n        restartPolicy: Always\n        image: vllm/vllm-openai:v0.22.1\n"
               "        command: [/bin/bash, -c]\n        args:\n          - |\n            LOCAL=/tier1/model\n"
               '            exec vllm serve "$LOCAL" --max-model-len 32768 --port 8000\n')
    client = "      - name: bench\n        image: python:3.12-slim\n        command: [python, run.py]\n"
    path = tmp_path / "eval.yaml"
    path.write_text(_pod(sidecar, client))
    (dep,) = read_path(str(path)).deployments
    assert (dep.model, dep.get("max_model_len")) == ("/tier1/model", 32768)
    assert dep.launch_span is not None and dep.launch_span.line == 15 and _text_at(path, dep.model_span) == '"$LOCAL"'


def test_a_repository_script_a_build_named_for_the_engine_runs_from_a_bind_mount_is_read(tmp_path):
    """K406: `docker run --mount "type=bind,src=./configs,dst=/recipe-config" --entrypoint /bin/bash
    qwen38-merlin-vllm:0.30.0 /recipe-config/entrypoint.sh`. `--mount` was not read as a mount and a build named for
    the engine was not one whose scripts are looked for; the launch is the script's now. With the folder left to a
    variable kvlint cannot see, the run is still a launch, its model the script's."""
    (tmp_path / "configs").mkdir()
    (tmp_path / "configs" / "entrypoint.sh").write_text(
        "#!/bin/bash\nexec vllm serve /model --tensor-parallel-size 2 --max-model-len 262144\n")
    run = tmp_path / "serve.sh"
    run.write_text('#!/bin/bash\nexec docker run -d --gpus all \\\n  --mount "type=bind,src=./configs,dst=/recipe-config,'
                   'readonly" \\\n  --entrypoint /bin/bash qwen38-merlin-vllm:0.30.0 /recipe-config/entrypoint.sh\n')
    (dep,) = read_path(str(run)).deployments
    assert (dep.model, dep.get("tensor_parallel_size"), dep.get("max_model_len")) == ("/model", 2, 262144)
    run.write_text(run.read_text().replace("src=./configs", "src=$CONFIG_DIR"))
    (open_dep,) = read_path(str(run)).deployments
    assert open_dep.engine == "vllm" and "/recipe-config/entrypoint.sh" in (open_dep.model or "")


def test_the_habana_runtime_and_its_variables_put_a_container_run_on_gaudi(tmp_path):
    """K409: `docker run --runtime=habana -e HABANA_VISIBLE_DEVICES=all -e MODEL=... IMAGE` of a build named for vLLM
    with no other setting: the run was passed over (no `--gpus`, no engine-prefixed variable). The runtime gives the
    container the host's accelerators, and HABANA_* says they are Gaudi cards: a launch, not sized over GPUs."""
    path = tmp_path / "README.md"
    path.write_text("# Gaudi\n\n```bash\ndocker run -it --rm \\\n    --runtime=habana \\\n"
                    "    -e HABANA_VISIBLE_DEVICES=all \\\n    -e MODEL=meta-llama/Llama-3.1-8B-Instruct \\\n"
                    "    vllm-v0.9.0.1-gaudi-ub24:1.22.1-6\n```\n")
    (dep,) = read_path(str(path)).deployments
    assert dep.model == "meta-llama/Llama-3.1-8B-Instruct" and dep.gpu == "gaudi"


def test_a_wrapper_run_by_bash_handing_the_words_after_a_double_dash_on_is_read(tmp_path):
    """K409: a Pod of `vllm/vllm-openai` whose command is `bash /opt/coldstart-run.sh --run-id serve --repeat 1 --
    --model M --max-model-len 4096`. `bash SCRIPT` stopped the reading, and the wrapper's own options outnumbered the
    engine's flags; the script is read as the program now, and the words after `--` as the engine's."""
    path = tmp_path / "pod.yaml"
    path.write_text("apiVersion: v1\nkind: Pod\nmetadata: {name: cold}\nspec:\n  containers:\n    - name: vllm\n"
                    "      image: vllm/vllm-openai:latest\n      command: [/bin/bash, /opt/coldstart-run.sh]\n"
                    "      args: [--run-id, serve, --repeat, '1', --, --model, Qwen/Qwen2.5-1.5B-Instruct,"
                    " --max-model-len, '4096']\n")
    (dep,) = read_path(str(path)).deployments
    assert (dep.model, dep.get("max_model_len")) == ("Qwen/Qwen2.5-1.5B-Instruct", 4096)
    assert dep.get("tensor_parallel_size") in (None, 1)  # the wrapper's own options do not leave the size open


def test_a_pods_api_front_end_and_its_headless_engine_are_one_launch(tmp_path):
    """K410: one pod with a `--headless` engine and a front end given `--data-parallel-size-local=0` (vLLM's API
    server, no engine core): two launches before; one deployment counted at the engine, which holds the KV pool."""
    path = tmp_path / "capture.yaml"
    path.write_text(
        "apiVersion: v1\nkind: Pod\nmetadata: {name: c}\nspec:\n  containers:\n"
        "    - name: engine\n      image: vllm/vllm-openai:v0.23.0\n      command: [vllm, serve]\n"
        "      args: [google/gemma-4-E4B-it, --headless, --data-parallel-size=1, --max-model-len=16384]\n"
        "    - name: api\n      image: vllm/vllm-openai:v0.23.0\n      command: [vllm, serve]\n"
        "      args: [google/gemma-4-E4B-it, --data-parallel-size=1, --data-parallel-size-local=0, --port=8000]\n")
    (dep,) = read_path(str(path)).deployments
    assert dep.get("headless") is True and any("front end" in n for n in dep.notes)


def test_a_mock_engine_configured_by_its_own_variables_is_no_launch(tmp_path):
    """K410: a build named for vLLM (`org/vllm-vcr:vllm0.23`) given `MODEL` and `MOCK_ITL_MS`, `MOCK_PD_ROLE`: a
    stand-in that answers as the engine would, read as a launch before. The same container without them is one."""
    manifest = ("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec:\n  template:\n    spec:\n"
                "      containers:\n        - name: m\n          image: ghcr.io/org/vllm-vcr:vllm0.23\n          env:\n"
                "            - {name: MODEL, value: Qwen/Qwen3-0.6B}\n            - {name: MOCK_ITL_MS, value: '10'}\n"
                "          resources: {limits: {nvidia.com/gpu: 1}}\n")
    path = tmp_path / "decode.yaml"
    path.write_text(manifest)
    assert list(read_path(str(path)).deployments) == []
    path.write_text(manifest.replace("            - {name: MOCK_ITL_MS, value: '10'}\n", ""))
    (dep,) = read_path(str(path)).deployments
    assert dep.model == "Qwen/Qwen3-0.6B"


def test_a_bash_cells_here_document_applied_to_the_cluster_is_read(tmp_path):
    """K410: a `%%bash -s ...` cell that pipes `cat <<EOF ... EOF` (a Pod running the API server) to `oc apply -f -`.
    Here-documents were read in scripts only; a shell cell's are read the same way, each value at its place."""
    cell = ('%%bash -s "$POD_NAME" "$MODEL"\ncat <<EOF | oc apply -f -\napiVersion: v1\nkind: Pod\n'
            "metadata: {name: $1}\nspec:\n  containers:\n  - name: vllm\n    image: vllm/vllm-openai:latest\n"
            "    command: [python3, -m, vllm.entrypoints.openai.api_server, --model, facebook/opt-125m,"
            " --max-model-len, '2048']\nEOF\n")
    path = tmp_path / "demo.ipynb"
    path.write_text(_notebook([("code", cell)]))
    (dep,) = read_path(str(path)).deployments
    assert (dep.model, dep.get("max_model_len")) == ("facebook/opt-125m", 2048)
    assert _text_at(path, dep.model_span) == "facebook/opt-125m"


def test_a_case_of_configurations_folded_onto_one_line_gives_each_engines_launch(tmp_path):
    """K408: `case "$CFG"` arms setting `CMD` to llama.cpp, vLLM and SGLang command lines, then `CMD=$(echo $CMD)` and
    `tmux new-session ... "exec $CMD"`. The fold replaced every arm's value, and the eight arms read were llama.cpp's:
    no launch. The fold applies to each arm now, and an arm running another program is not read."""
    path = tmp_path / "serve.sh"
    arms = "".join(f'  lcpp-{k}) CMD="llama-server -m /m/{k}.gguf -c 65536" ;;\n' for k in range(9))
    path.write_text('#!/bin/bash\nCFG=${1:?config}\nVLLM="vllm serve /models/q --max-model-len 65536\n'
                    '      --max-num-seqs 16"\nSGL="python -m sglang.launch_server --model-path /models/q\n'
                    '      --context-length 65536"\ncase "$CFG" in\n' + arms +
                    '  vllm-a) CMD="$VLLM --enable-prefix-caching" ;;\n  sglang-a) CMD="$SGL --disable-cuda-graph" ;;\n'
                    'esac\nCMD=$(echo $CMD)\ntmux new-session -d -s serve "exec $CMD > log 2>&1"\n')
    deps = read_path(str(path)).deployments
    assert sorted(d.engine for d in deps) == ["sglang", "vllm"]
    assert {d.get("max_model_len") or d.get("context_length") for d in deps} == {65536}


def test_a_function_that_restarts_its_server_is_one_launch_per_model(tmp_path):
    """K411: `run_one bf16 "$MODEL_BF16"`, `run_one fp8 ...`, `run_one nvfp4 ...` of a function that starts the
    server, benchmarks it and kills it. A restarted server was one launch whatever the calls gave it; calls giving
    other models start other deployments (three), and calls changing only other settings stay one."""
    body = ('run_one() {\n  local model="$1"; shift\n  nohup vllm serve "$model" --max-model-len 4096 "$@" &\n'
            '  pid=$!\n  kill "$pid"\n}\n')
    path = tmp_path / "sweep.sh"
    path.write_text("#!/bin/bash\n" + body + "run_one Qwen/Qwen3-32B\nrun_one Qwen/Qwen3-32B-FP8\n"
                    "run_one RedHatAI/Qwen3-32B-NVFP4\n")
    assert sorted(d.model or "" for d in read_path(str(path)).deployments) == \
        ["Qwen/Qwen3-32B", "Qwen/Qwen3-32B-FP8", "RedHatAI/Qwen3-32B-NVFP4"]
    other = tmp_path / "sweep2.sh"
    other.write_text("#!/bin/bash\n" + body + "run_one Qwen/Qwen3-32B --max-num-seqs 8\n"
                     "run_one Qwen/Qwen3-32B --max-num-seqs 16\n")
    assert len(read_path(str(other)).deployments) == 1


def test_rank_branches_that_differ_in_the_front_ends_options_are_one_deployment(tmp_path):
    """K408: rank 0 runs `vllm serve "${COMMON[@]}" --host 0.0.0.0 --tool-call-parser glm47 --reasoning-parser glm45
    --enable-auto-tool-choice`, the other ranks `vllm serve "${COMMON[@]}" --headless --data-parallel-start-rank N`.
    Options only the HTTP server reads are the leader's, as its address is: one launch."""
    path = tmp_path / "worker.sh"
    path.write_text('#!/bin/bash\nCOMMON=(org/glm --tensor-parallel-size 2 --data-parallel-size 8)\n'
                    'if (( NODE_RANK == 0 )); then\n  exec vllm serve "${COMMON[@]}" --host 0.0.0.0 '
                    '--tool-call-parser glm47 --enable-auto-tool-choice\nelse\n'
                    '  exec vllm serve "${COMMON[@]}" --headless --data-parallel-start-rank 4\nfi\n')
    (dep,) = read_path(str(path)).deployments
    assert dep.get("headless") is not True and dep.get("tensor_parallel_size") == 2


def test_an_llminferenceservice_main_containers_args_are_the_engines_flags(tmp_path):
    """K414: an LLMInferenceService whose template's main container passes `--data-parallel-size=8` and
    `--max-model-len=262144` in `args:` to the preset's `vllm serve`, on 8 GPUs. The args were not read, so the pod
    was TP 1 on one GPU and KV204 warned that 7 GPUs stay idle; they are the launch's flags now, each at its item."""
    path = tmp_path / "llmisvc.yaml"
    path.write_text("apiVersion: serving.kserve.io/v1alpha2\nkind: LLMInferenceService\nmetadata: {name: glm}\n"
                    "spec:\n  model: {uri: 'hf://Qwen/Qwen3-8B', name: q}\n  template:\n    containers:\n"
                    "      - name: main\n        args:\n          - --data-parallel-size=8\n"
                    "          - --max-model-len=32768\n        resources:\n          limits: {nvidia.com/gpu: '8'}\n")
    (dep,) = read_path(str(path)).deployments
    assert (dep.get("data_parallel_size"), dep.get("max_model_len"), dep.gpu_count) == (8, 32768, 8)
    assert dep.settings["data_parallel_size"].span is not None and dep.settings["data_parallel_size"].span.line == 10
    assert not [f for f in _checked(path) if f["code"] == "KV204"]


def test_a_server_run_inside_a_bubblewrap_sandbox_is_read(tmp_path):
    """K412: `exec bwrap --ro-bind "$ROOTFS"/usr /usr ... "${DEV_BINDS[@]}" --setenv CUDA_VISIBLE_DEVICES 0,1,2,3
    --chdir /w python -m sglang.launch_server ...`. bubblewrap's options (bwrap(1): each takes a fixed number of
    words) are read past to the command it runs, and the variables it sets are the command's."""
    path = tmp_path / "launch-bwrap.sh"
    path.write_text('#!/bin/bash\nDEV_BINDS=()\nexec bwrap \\\n  --ro-bind "$ROOTFS"/usr /usr \\\n  --proc /proc \\\n'
                    '  --unshare-pid \\\n  "${DEV_BINDS[@]}" \\\n  --setenv CUDA_VISIBLE_DEVICES 0,1,2,3 \\\n'
                    '  --chdir /w \\\n  python -m sglang.launch_server --model-path /models/m3 --tp-size 4\n')
    (dep,) = read_path(str(path)).deployments
    assert (dep.engine, dep.model, dep.get("tp_size")) == ("sglang", "/models/m3", 4)
    assert dep.gpu_count == 4


def test_a_script_a_compose_service_mounts_and_runs_takes_the_services_release(tmp_path):
    """K404: `vllm_api/entrypoint.sh` passes `--swap-space 4`, and `vllm_api/docker-compose.yaml` runs it in
    `vllm/vllm-openai:v0.15.0` (`./entrypoint.sh:/app/entrypoint.sh`, `entrypoint: ["/bin/bash",
    "/app/entrypoint.sh"]`). Read alone, the script was given the newest release and KV005 said the server exits;
    the release is the service image's now (0.15.0 still takes the option), as a Dockerfile's FROM gives it."""
    (tmp_path / "entrypoint.sh").write_text("#!/bin/bash\npython3 -m vllm.entrypoints.openai.api_server "
                                             "--model Qwen/Qwen3-8B --swap-space 4 --max-model-len 8192 &\nwait\n")
    (tmp_path / "docker-compose.yaml").write_text(
        "services:\n  vllm:\n    image: vllm/vllm-openai:v0.15.0\n    entrypoint: [\"/bin/bash\", \"/app/entrypoint.sh\"]\n"
        "    volumes:\n      - ./entrypoint.sh:/app/entrypoint.sh\n")
    (kv005,) = [f for f in _checked(tmp_path / "entrypoint.sh") if f["code"] == "KV005"]
    assert "0.15.0 (pinned)" in kv005["message"] and "0.33" not in kv005["message"]


def test_each_inferenceservice_on_one_servingruntime_is_its_own_launch(tmp_path):
    """K416: one ServingRuntime (Gaudi vLLM) and two InferenceServices running on it, one model each. The runtime's
    container took the first service only, so the second was passed over; it is a launch per service now, each with
    its own store and resources."""
    runtime = ("apiVersion: serving.kserve.io/v1alpha1\nkind: ServingRuntime\nmetadata: {name: vllm-rt}\nspec:\n"
               "  containers:\n    - name: kserve-container\n      image: registry.example/vllm-gaudi:1\n"
               "      command: [python, -m, vllm.entrypoints.openai.api_server]\n"
               "      args: [--port=8080, --model=/mnt/models]\n")
    service = ("---\napiVersion: serving.kserve.io/v1beta1\nkind: InferenceService\nmetadata: {{name: {name}}}\n"
               "spec:\n  predictor:\n    model:\n      modelFormat: {{name: vLLM}}\n      runtime: vllm-rt\n"
               "      storageUri: hf://{model}\n      args: [--max-model-len=4096]\n"
               "      resources: {{limits: {{nvidia.com/gpu: '1'}}}}\n")
    path = tmp_path / "resources.yaml"
    path.write_text(runtime + service.format(name="a", model="Qwen/Qwen3-8B")
                    + service.format(name="b", model="Qwen/Qwen3-4B"))
    deps = read_path(str(path)).deployments
    assert sorted(str(d.model) for d in deps) == ["hf://Qwen/Qwen3-4B", "hf://Qwen/Qwen3-8B"]
    assert all(d.get("max_model_len") == 4096 and d.gpu_count == 1 for d in deps)


def test_a_source_trees_environment_named_by_a_default_in_place_is_that_build(tmp_path):
    """K416: `SGLANG="${SGLANG:-$REPO/.venv/bin/sglang}"`, `REPO="${REPO:-$ROOT/sglang-official}"` with ROOT set at run
    time: the program kept its braces (`.../sglang}`), so the checkout's own environment was not seen and KV005 warned
    that the newest release refuses an option; the source tree's parser decides (an info)."""
    path = tmp_path / "serve.sh"
    path.write_text('#!/bin/bash\nROOT="$(cd "$(dirname "$0")/.." && pwd)"\nREPO="${REPO:-$ROOT/sglang-official}"\n'
                    'SGLANG="${SGLANG:-$REPO/.venv/bin/sglang}"\n'
                    'exec "$SGLANG" serve --model-path Qwen/Qwen3-8B --cuda-graph-max-bs 8\n')
    assert [f["severity"] for f in _checked(path) if f["code"] == "KV005"] == ["info"]


def test_a_container_given_the_engines_variables_on_gpus_is_said_not_passed_over(tmp_path):
    """K404: a compose service of the repository's own image (`ghcr.io/org/qwen3-asr-server:latest`, whose CMD serves
    the model) on the NVIDIA runtime, given `VLLM_TEST_FORCE_FP8_MARLIN=1`: no launch to read, and nothing said. A
    container on GPUs given a variable only the engine reads is a KV008 place now, at the variable; a client given
    the engine's address (`VLLM_BASE_URL`) is not."""
    path = tmp_path / "docker-compose.yml"
    path.write_text("services:\n  asr:\n    image: ghcr.io/org/qwen3-asr-server:latest\n    runtime: nvidia\n"
                    "    environment:\n      - NVIDIA_VISIBLE_DEVICES=all\n      - VLLM_TEST_FORCE_FP8_MARLIN=1\n")
    (note,) = read_path(str(path)).findings
    assert note.code == "KV008" and note.span is not None and (note.span.line, note.span.col) == (7, 9)
    path.write_text("services:\n  app:\n    image: ghcr.io/org/chat-ui:latest\n    runtime: nvidia\n"
                    "    environment:\n      - VLLM_BASE_URL=http://vllm:8000/v1\n")
    assert list(read_path(str(path)).findings) == []


def test_a_values_files_image_tag_naming_the_engine_is_a_place(tmp_path):
    """K414: a values file of the repository's own chart (`serving.image: {repository: llm-d-cuda, tag:
    v0.9.0-vllm0.30.0}` and engine flags under `args:`) gave no launch and nothing said. A `tag:` naming an engine is
    a KV008 place, as an image's name is."""
    path = tmp_path / "values.yaml"
    path.write_text("model:\n  name: glm-5.3\nserving:\n  image:\n    repository: llm-d-cuda\n"
                    "    tag: v0.9.0-vllm0.30.0\n  args:\n    data-parallel-size: '8'\n")
    (note,) = read_path(str(path)).findings
    assert note.code == "KV008" and "v0.9.0-vllm0.30.0" in note.message and note.span is not None
    assert note.span.line == 6
