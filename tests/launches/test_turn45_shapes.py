"""Shapes the turn-45 samples (K452-K455) showed kvlint passing over or misreading, each read by a mechanism, not a
case: every test writes the shape small, with what it must give (and what it must not)."""

from __future__ import annotations

from kvlint.launches import read_path
from tests.launches.shapes import kv008 as _kv008
from tests.launches.shapes import write as _write

_UNIT = """[Unit]
Description=serving lane %i

[Service]
Type=exec
Environment=PYTHONPATH=@@REPO@@/python
ExecStart=@@VENV@@/bin/python -m sglang.srt.turnkey --config @@CONFIG@@ boot %i
Restart=on-failure
"""



def test_a_module_of_the_engines_own_package_run_as_a_service_is_said(tmp_path):
    """K452: a fork's launcher module inside the engine's package (`python -m sglang.srt.turnkey ... boot %i`), its
    model in its own configuration: no launch kvlint can read, so a KV008 at the module, never silent."""
    path = _write(tmp_path, "serving@.service", _UNIT)
    result = read_path(path)
    assert not result.deployments
    assert _kv008(result) == [(7, 34)]


def test_an_engines_tools_run_as_modules_are_not_places(tmp_path):
    """A benchmark, an environment report or a router of the engine's package starts no server of a deployment:
    no KV008 for them (a script of tools alone is no passed-over launch)."""
    path = _write(tmp_path, "tools.sh",
                    "#!/bin/bash\npython -m sglang.bench_serving --backend sglang --num-prompts 10\n"
                    "python -m vllm.collect_env\npython3 -m sglang.srt.disaggregation.mini_lb --port 8000\n"
                    "python -m sglang.check_env\n")
    assert not _kv008(read_path(path))


def test_a_container_passed_the_hosts_prefixed_engine_settings_is_said(tmp_path):
    """K452: `docker run -e ONLINE_TENSOR_PARALLEL_SIZE -e ONLINE_GPU_MEMORY_UTILIZATION ... IMAGE` hands the host's
    values of engine settings (a prefix before each flag's name) to an image whose entry point writes the command:
    said at the first setting. One setting alone stays no evidence."""
    path = _write(tmp_path, "run_online.sh",
                    "#!/usr/bin/env bash\n# vLLM server configuration\nexport ONLINE_MODEL=${ONLINE_MODEL:-org/m}\n"
                    "exec docker run --rm --gpus all \\\n  -e ONLINE_MODEL \\\n  -e ONLINE_TENSOR_PARALLEL_SIZE \\\n"
                    "  -e ONLINE_GPU_MEMORY_UTILIZATION \\\n  \"$IMAGE_NAME\"\n")
    assert _kv008(read_path(path)) == [(6, 13)]
    one = _write(tmp_path, "one.sh",
                    "#!/bin/bash\n# vLLM client\ndocker run --rm -e ONLINE_TENSOR_PARALLEL_SIZE \"$IMAGE\"\n")
    assert not _kv008(read_path(one))


def test_powershells_all_streams_redirection_is_no_word_of_the_command(tmp_path):
    """K453: `& $py @argv *>&1 | Tee-Object` redirects every stream: its `*` is the operator's, not a model the
    program is handed (it was read as a second launch serving `*`)."""
    path = _write(tmp_path, "serve.ps1",
                    "$Model = 'org/model'\n$argv = @(\n    '-m', 'vllm.entrypoints.openai.api_server',\n"
                    "    '--model', $Model\n)\n& $py @argv *>&1 | Tee-Object -FilePath $log -Append\n")
    assert [d.model for d in read_path(path).deployments] == ["org/model"]


_RBG = """apiVersion: workloads.x-k8s.io/v1alpha1
kind: RoleBasedGroup
metadata:
  name: pd
spec:
  roles:
    - name: decode
      replicas: 1
      leaderWorkerSet:
        size: 2
        patchLeaderTemplate:
          spec:
            containers:
            - command: [python3, -m, sglang.launch_server, --model-path, org/m, --disaggregation-mode, decode]
        patchWorkerTemplate:
          spec:
            containers:
            - command: [python3, -m, sglang.launch_server, --model-path, org/m, --disaggregation-mode, decode]
      template:
        spec:
          containers:
          - name: sglang
            image: lmsysorg/sglang:latest
"""


def test_a_role_based_groups_leader_and_worker_patches_are_one_launch(tmp_path):
    """K455: a RoleBasedGroup role lays `patchLeaderTemplate` / `patchWorkerTemplate` over a LeaderWorkerSet: its
    leader and workers are the ranks of one engine, one launch (as LeaderWorkerSet's own templates), not two."""
    path = _write(tmp_path, "rbg.yaml", _RBG)
    assert [(d.engine, d.launch_span.line) for d in read_path(path).deployments] == [("sglang", 14)]


def test_a_thematic_break_between_a_documents_yaml_objects_is_a_document_marker(tmp_path):
    """K455: an MDX page whose converter wrote Markdown's `***` for YAML's `---` inside a block: the block is read as
    the two documents meant (the Deployment's launch kept), not refused whole as YAML."""
    path = _write(tmp_path, "page.mdx",
                    "# Deploy\n\n```yaml Config\napiVersion: apps/v1\nkind: Deployment\nspec:\n  template:\n"
                    "    spec:\n      containers:\n      - image: vllm/vllm-openai:v0.11.0\n"
                    "        args: [--model, org/m]\n***\napiVersion: v1\nkind: Service\n```\n")
    assert [(d.engine, d.model) for d in read_path(path).deployments] == [("vllm", "org/m")]


def test_an_engine_chosen_by_type_with_its_flags_listed_is_said(tmp_path):
    """K455: a tool's package manifest (`type: vllm`, its flags listed under `serve.args`, the model under a key of
    the tool's) for an accelerator with no GPU request: a KV008 at the engine's name, never silent. A `type: vllm`
    with no flags of the engine listed (a client's backend choice) is not a place."""
    path = _write(tmp_path, "package.yaml",
                    "name: m\nweights: org/m\ntype: vllm\nserve:\n  args:\n    - --trust-remote-code\n"
                    "    - --enable-prefix-caching\n    - [--tool-call-parser, hermes]\n")
    assert _kv008(read_path(path)) == [(3, 7)]
    client = _write(tmp_path, "client.yaml",
                    "provider:\n  type: vllm\n  base_url: http://localhost:8000/v1\nflags:\n  - --verbose\n")
    assert not _kv008(read_path(client))


def test_a_script_the_file_writes_and_mounts_into_the_engine_container_is_one_launch(tmp_path):
    """K457: `cat > "${WORK_DIR}/.runtime/serve.sh" <<EOF ... vllm serve M ... EOF`, then `docker run -v
    "${WORK_DIR}/.runtime:/runtime" IMAGE bash /runtime/serve.sh`: the container runs the script this file wrote,
    whose launch is read at its body; not a second launch whose model is left to an unseen script."""
    path = _write(tmp_path, "start.sh",
                    '#!/bin/bash\nIMAGE="${IMAGE:-eugr/spark-vllm:latest}"\nmkdir -p "${WORK_DIR}/.runtime"\n'
                    'cat > "${WORK_DIR}/.runtime/serve.sh" <<EOF\n#!/bin/bash\nexec vllm serve org/m --port 8000\nEOF\n'
                    'docker run -d --gpus all -v "${WORK_DIR}/.runtime:/runtime:ro" "${IMAGE}" '
                    'bash /runtime/serve.sh\n')
    assert [(d.launch_span.line, d.model) for d in read_path(path).deployments] == [(6, "org/m")]


def test_a_variable_holding_srun_options_is_no_command_of_the_step(tmp_path):
    """K457: `MOUNTS="--container-mounts=$BASE:..."` (part of it known at run time) then `srun --container-image=IMG
    $MOUNTS $EXPORTS bash -c "${cmd}"`: the variables are srun's options, so the step runs `bash -c`, not an engine
    image handed `$MOUNTS` as its model (a launch with no model, beside the one its here-document holds)."""
    path = _write(tmp_path, "launch.sh",
                    '#!/bin/bash\nMOUNTS="--container-mounts=$BASE_DIR_C:/lustre"\nEXPORTS="--export=ALL,T=${T}"\n'
                    "read -r -d '' cmd <<EOF\npython3 -m sglang.launch_server --model-path org/m --tp 4\nEOF\n"
                    'srun --container-image=/images/sglang:dev.sqsh $MOUNTS $EXPORTS bash -c "${cmd}"\n')
    assert [(d.launch_span.line, d.model) for d in read_path(path).deployments] == [(5, "org/m")]


def test_a_recipe_choosing_the_engine_by_runtime_beside_its_settings_is_said(tmp_path):
    """K458: a sparkrun recipe with no command (`model: org/m`, `runtime: sglang`, `defaults: {gpu_memory_utilization:
    0.9}`): the tool writes the engine's command from its keys; a KV008 at the engine's name, never silent. Without an
    engine option among its keys (a catalogue's `runtime: vllm` entry) it is no place."""
    path = _write(tmp_path, "recipe.yaml",
                    "model: org/m\nruntime: sglang\ndefaults:\n  port: 8888\n  gpu_memory_utilization: 0.9\n")
    assert _kv008(read_path(path)) == [(2, 10)]
    catalogue = _write(tmp_path, "catalogue.yaml", "model: org/m\nruntime: vllm\nregistry: eugr\nmin_nodes: 1\n")
    assert not _kv008(read_path(catalogue))


_WINDOWS = """# Run

```sh
docker run --gpus all `
  vllm/vllm-openai:v0.11.0 `
  --model org/m `
  --speculative-config '{\\"method\\":\\"mtp\\",\\"num_speculative_tokens\\":3}'
```
"""


def test_a_powershell_commands_escaped_json_is_what_the_engine_is_handed(tmp_path):
    """K456: a PowerShell `docker run` (backtick continuations) in an `sh` fence passes `'{\\"method\\":...}'`: a native
    program reads each `\\"` as a quote, so the engine gets valid JSON; no KV007 "not valid JSON" error."""
    path = _write(tmp_path, "recipe.md", _WINDOWS)
    (dep,) = read_path(path).deployments
    assert dep.settings["speculative_config"].value == {"method": "mtp", "num_speculative_tokens": 3}
    assert not dep.invalid_values


_BENCH = '''import subprocess

def get_model_args(model, tp):
    cmd = ["--model", model, "--tensor-parallel-size", str(tp), "--gpu-memory-utilization", "0.9"]
    return cmd

def run(model, tp):
    cmd = ["python", "-W", "ignore", "/usr/bin/vllm", "bench", "throughput"] + get_model_args(model, tp)
    subprocess.run(cmd, check=True)

run("org/m", 2)
'''


def test_an_engines_flags_handed_only_to_its_benchmark_are_no_launch(tmp_path):
    """K457: a function returns the engine's flags, and every call of it is added to `[..., vllm, "bench",
    "throughput"]`, vLLM's offline benchmark: the benchmark's arguments, not a server's launch. Added to a `serve`
    command as well, the list stays a launch."""
    assert not read_path(_write(tmp_path, "bench.py", _BENCH)).deployments
    served = _BENCH.replace('run("org/m", 2)',
                            'run("org/m", 2)\nsubprocess.run(["vllm", "serve"] + get_model_args("org/m", 2))')
    assert read_path(_write(tmp_path, "both.py", served)).deployments


def test_env_given_an_array_a_loop_fills_then_the_engine_is_a_launch(tmp_path):
    """K461: `tune_env+=("$name=${!name}")` in a loop, then `env "${tune_env[@]}" PATH=... "$VLLM_ENV/bin/vllm" serve
    "$model"`: the array stands for env's assignments (it was taken for the program, and the launch passed over)."""
    path = _write(tmp_path, "matrix.sh",
                  '#!/bin/bash\ntune_env=()\nfor name in A B; do\n  tune_env+=("$name=${!name}")\ndone\n'
                  'env "${tune_env[@]}" PATH=$GCCBIN:$PATH CC=$GCCBIN/gcc \\\n'
                  '  "$VLLM_ENV/bin/vllm" serve "$model" --port 8000 &\n')
    assert [(d.engine, d.launch_span.line) for d in read_path(path).deployments] == [("vllm", 7)]


def test_an_image_left_to_the_caller_given_the_engines_flags_after_a_short_option_is_a_launch(tmp_path):
    """K461: `docker run ... "$IMAGE" "${VLLM_ARGS[@]}"` with the array `-O3 --model "$MODEL" --tensor-parallel-size
    2 ...`: flags first, the first a short one (vLLM's optimisation level), tell the engine as `--` flags first do."""
    path = _write(tmp_path, "launch_cell.sh",
                  '#!/bin/bash\nIMAGE="$2"\nMODEL="$8"\nVLLM_ARGS=(\n  -O3\n  --model "$MODEL"\n'
                  '  --tensor-parallel-size 2\n  --gpu-memory-utilization 0.88\n)\n'
                  'docker run -d --gpus all "$IMAGE" "${VLLM_ARGS[@]}"\n')
    assert [(d.engine, d.launch_span.line) for d in read_path(path).deployments] == [("vllm", 10)]


_NODES = """# Two nodes

#### Node 0

```bash
sglang serve --model-path org/m --tp-size 16 --dist-init-addr <node0_ip>:12015 --nnodes 2 --node-rank 0 \
  --decode-log-interval 10
```

#### Node 1

```bash
sglang serve --model-path org/m --tp-size 16 --dist-init-addr <node0_ip>:12015 --nnodes 2 --node-rank 1
```
"""


def test_a_runbooks_node_blocks_are_the_ranks_of_one_deployment(tmp_path):
    """K460: "Node 0" and "Node 1" blocks, one rendezvous, `--nnodes 2`, ranks 0 and 1 (the leader's logging flag
    its own): one launch, as separate places' ranks are folded elsewhere, not two."""
    deps = read_path(_write(tmp_path, "deploy.md", _NODES)).deployments
    assert [d.launch_span.line for d in deps] == [6]
