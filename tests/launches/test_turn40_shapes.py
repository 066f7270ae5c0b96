"""Shapes the turn-40 held-out samples showed kvlint passing over or misreading, each read by a mechanism, not a
case."""

from __future__ import annotations

from kvlint.launches import read_path
from tests.launches.checked import checked as _checked


def test_a_command_whose_words_come_from_an_array_above_never_has_a_span_ending_before_it_starts(tmp_path):
    """K367 (a DGX Spark serve script): `ARGS=( serve "$MODEL" ... )` on lines 2-5, then `docker run ... --entrypoint
    vllm IMAGE "${ARGS[@]}"` on line 7. The engine's words `vllm serve` join the entrypoint (line 7) to `serve` (line
    3): the launch span ran from line 7 back to line 3. A span is the command's own words now: the entrypoint's."""
    path = tmp_path / "serve.sh"
    path.write_text('MODEL="${MODEL:-Qwen/Qwen3-8B}"\nARGS=(\n  serve "$MODEL"\n  --max-model-len 4096\n)\n'
                    'docker run -d --gpus all \\\n  --entrypoint vllm vllm/vllm-openai:v0.11.0 "${ARGS[@]}"\n')
    (dep,) = read_path(str(path)).deployments
    span = dep.launch_span
    assert dep.model == "Qwen/Qwen3-8B" and span is not None
    assert (span.line, span.col, span.end_line, span.end_col) == (7, 16, 7, 20)
    assert dep.get("max_model_len") == 4096


def test_a_yaml_block_repeating_one_model_key_is_no_vllm_config_file(tmp_path):
    """K367 (a client's docs): a YAML block of `model: "vllm/..."` three times, the provider routes of a client's
    settings. A vLLM `--config` file is recognised by two distinct flag keys at least; one key repeated is one key,
    so no launch. A file of two distinct keys still is one."""
    path = tmp_path / "vllm.md"
    path.write_text('# Models\n\n```yaml\nmodel: "vllm/meta-llama/Llama-3.3-70B-Instruct"\n\nmodel: "vllm/llama3.3:70b"\n'
                    '\nmodel: "vllm/local"\n```\n')
    assert list(read_path(str(path)).deployments) == []
    config = tmp_path / "serving.yaml"
    config.write_text("model: Qwen/Qwen3-8B\nmax-model-len: 8192\n")
    (dep,) = read_path(str(config)).deployments
    assert (dep.model, dep.get("max_model_len")) == ("Qwen/Qwen3-8B", 8192)


def test_a_choice_of_a_plugin_the_runbook_installs_is_an_info_naming_it(tmp_path):
    """K370 (a KV-cache quantization plugin's README): `pip install "fused-turboquant[cuda,vllm]"`, then `vllm serve M
    --kv-cache-dtype turboquant_k2v4_nc`, a cache type the plugin registers. A package installed with the engine as
    its extra builds on it and may add choices: an info naming the package, not stock vLLM's error. Without the
    install the same value is the error; a value outside a range is the error whatever is installed."""
    path = tmp_path / "README.md"
    install = '```bash\npip install "fused-turboquant[cuda,vllm]"\n```\n\n'
    serve = "```bash\nvllm serve Qwen/Qwen3-8B --kv-cache-dtype turboquant_k2v4_nc\n```\n"
    path.write_text("# Plugin\n\n" + install + serve)
    (kv007,) = [f for f in _checked(path) if f["code"] == "KV007"]
    assert kv007["severity"] == "info" and "fused-turboquant[cuda,vllm]" in kv007["message"]
    assert kv007["span"]["line"] == 8
    path.write_text("# Plugin\n\n" + serve)
    assert [f["severity"] for f in _checked(path) if f["code"] == "KV007"] == ["error"]
    path.write_text("# Plugin\n\n" + install + serve.replace("--kv-cache-dtype turboquant_k2v4_nc",
                                                              "--gpu-memory-utilization 1.5"))
    assert [f["severity"] for f in _checked(path) if f["code"] == "KV007"] == ["error"]


def test_a_tools_command_group_for_the_engine_is_no_launch_but_is_said(tmp_path):
    """K370 (a deployment CLI's docs): `spnl vllm up my-deployment --target k8s --model M --hf-token T`. `vllm` is the
    tool's command group and `up` its own verb: the tool writes the engine's command, so the words are not read as
    vLLM's flags (a launch of M with vLLM's defaults was made before). The place is said (KV008), never passed over.
    A wrapper handed the engine's name last (`python launch.py vllm --model M --max-model-len 4096 --port 8000`) is
    still read by its flags."""
    path = tmp_path / "vllm.md"
    path.write_text("# CLI\n\n```shell\nspnl vllm up my-deployment --target k8s --model meta-llama/Llama-3.1-8B-Instruct"
                    " --hf-token YOUR_HF_TOKEN\nspnl vllm down my-deployment --target k8s\n```\n")
    assert list(read_path(str(path)).deployments) == []
    (said,) = [f for f in _checked(path) if f["code"] == "KV008"]
    assert said["span"]["line"] == 4 and "spnl vllm up" in said["message"]
    script = tmp_path / "run.sh"
    script.write_text("python launch.py vllm --model Qwen/Qwen3-8B --max-model-len 4096 --port 8000\n")
    (dep,) = read_path(str(script)).deployments
    assert (dep.engine, dep.model, dep.get("max_model_len")) == ("vllm", "Qwen/Qwen3-8B", 4096)


def test_a_harness_block_typed_as_an_engines_server_is_said(tmp_path):
    """K368 (a data-generation harness's task configs): `blocks: [{name: llm1, type: vllm-server, model_id_or_path:
    M}]`. The block's type names the engine's server, so the harness starts it from the model beside it, with settings
    of its own kvlint does not read: a KV008 at the type, not silence. `type: vllm` alone (a client's backend) is not
    one."""
    path = tmp_path / "cot_transform.yaml"
    path.write_text("name: cot_transform\nblocks:\n  - name: llm1\n    type: vllm-server\n    temperature: 0.5\n"
                    "    model_id_or_path: ibm-granite/granite-8b-code-instruct\n  - name: val1\n    type: always_true\n")
    (said,) = [f for f in _checked(path) if f["code"] == "KV008"]
    assert (said["span"]["line"], said["span"]["col"]) == (4, 11)
    path.write_text(path.read_text().replace("vllm-server", "vllm"))
    assert [f for f in _checked(path) if f["code"] == "KV008"] == []


def test_a_job_script_under_an_unknown_suffix_is_walked_by_its_shebang(tmp_path):
    """K369 (Slurm jobs named `*.ssub`): `#!/bin/bash`, `#SBATCH` lines, then `vllm serve PATH ... &`. A site names
    its job scripts as it likes; the first line says a shell runs them, so the walk reads them as scripts. A file of
    an unknown suffix with no shell's shebang, and a media file, are not read."""
    from kvlint.launches import iter_files

    job = tmp_path / "jobs" / "generate.ssub"
    job.parent.mkdir()
    job.write_text("#!/bin/bash\n#SBATCH --gres=gpu:2\nvllm serve Qwen/Qwen3-8B --tensor-parallel-size 2 &\n")
    (tmp_path / "jobs" / "notes.ssub").write_text("vllm serve Qwen/Qwen3-8B\n")
    (tmp_path / "jobs" / "env.cfgx").write_text("#!/usr/bin/env bash\nexport X=1\n")
    (tmp_path / "jobs" / "logo.png").write_bytes(b"#!/bin/bash\n")
    read = sorted(p.rsplit("/", 1)[-1] for p, why in iter_files([str(tmp_path)]) if why is None)
    assert read == ["env.cfgx", "generate.ssub"]
    (dep,) = read_path(str(job)).deployments
    assert (dep.model, dep.get("tensor_parallel_size")) == ("Qwen/Qwen3-8B", 2)


def test_an_introduced_code_span_of_a_command_list_or_an_engine_image_run_is_a_launch(tmp_path):
    """K371 (a GPU runbook's recovery step): "start vLLM: `cd ~/app && source .venv/bin/activate && nohup vllm serve M
    --port 8001 > /tmp/vllm.log 2>&1 &`": a command list whose last command starts the engine. K373 (a setup list):
    "GPU support: `docker run --gpus all -p 8000:8000 vllm/vllm-openai:latest <model> --max-model-len 4096`": the
    engine's image run with its arguments. Each is a command the runbook gives to run. A span in a sentence with no
    colon introducing it stays prose."""
    path = tmp_path / "GPU_STATUS.md"
    path.write_text("# Recovery\n\n3. If GPU detected, start vLLM: `cd ~/app && source .venv/bin/activate && nohup vllm "
                    "serve stelterlab/Qwen3-30B-A3B-Instruct-2507-AWQ --port 8001 > /tmp/vllm.log 2>&1 &`\n\n"
                    "- Docker with GPU support: `docker run --gpus all -p 8000:8000 vllm/vllm-openai:latest <model> "
                    "--max-model-len 4096`.\n\nWe ran `cd ~/app && vllm serve Qwen/Qwen3-8B` once and it worked.\n")
    deps = read_path(str(path)).deployments
    assert [(d.model, d.launch_span.line if d.launch_span else None) for d in deps] == [
        ("stelterlab/Qwen3-30B-A3B-Instruct-2507-AWQ", 3), ("<model>", 5)]
    assert deps[1].get("max_model_len") == 4096


def test_an_engine_image_run_with_a_model_placeholder_and_more_words_is_a_launch(tmp_path):
    """K373 (a setup list): `docker run --gpus all vllm/vllm-openai:latest <model> <flags>`. A word after an engine's
    image that is neither a model nor a flag, followed by another word, is a program replacing the entry point
    (`IMAGE uvicorn app:app`); a placeholder the reader fills with a model (`<model>`, `<your-model-id>`) is the model
    the entry point serves. `<command> <args>` stays a program's."""
    path = tmp_path / "run.sh"
    path.write_text("docker run --gpus all vllm/vllm-openai:latest <model> <flags>\n")
    (dep,) = read_path(str(path)).deployments
    assert dep.model == "<model>" and dep.model_span is not None and dep.model_span.col == 47
    path.write_text("docker run --gpus all vllm/vllm-openai:latest <command> <args>\n")
    assert list(read_path(str(path)).deployments) == []


def test_a_server_module_of_a_package_built_on_the_engine_is_a_launch_of_it(tmp_path):
    """K368 (a Guardrails detector adapter's README): `python3 -m vllm_detector_adapter.api_server --model $MODEL_NAME`.
    A package named with the engine as one of its words, run by its server module, is the engine's server with
    endpoints of its own: a vLLM launch, its own options left to it (no KV004). A router's module
    (`sglang_router.launch_router`) and another engine borrowing the name (`sparsevllm.api_server`) are not."""
    path = tmp_path / "README.md"
    path.write_text("# Adapter\n\n```sh\npython3 -m vllm_detector_adapter.api_server --model Qwen/Qwen3-8B "
                    "--model-type granite_guardian --max-model-len 4096\n```\n")
    (dep,) = read_path(str(path)).deployments
    assert (dep.engine, dep.model, dep.get("max_model_len")) == ("vllm", "Qwen/Qwen3-8B", 4096)
    assert dep.unknown_flags == ()
    from kvlint.launches.argv import plugin_module

    assert plugin_module("vllm_detector_adapter.api_server") == "vllm"
    assert plugin_module("lmcache_vllm.vllm.entrypoints.openai.api_server") == "vllm"
    assert [plugin_module(m) for m in ("sglang_router.launch_router", "sparsevllm.api_server", "vllm_utils.api_server.x",
                                       "my_vllm_tools")] == [None, None, None, None]


def test_a_choice_refused_by_stock_vllm_is_the_builds_when_the_engine_runs_from_its_own_source_tree(tmp_path):
    """K375 (a gfx908 build's serve script): `ROOT_DIR="${HOME}/vllm-gfx908"`, `VENV="${ROOT_DIR}/.venv"`, then, in a
    function, `"${VENV}/bin/vllm" serve M --kv-cache-dtype int8`. The engine is run from the environment kept inside a
    folder named for it: a checkout built there, whose parser (a fork's, here with an int8 cache) decides its
    choices: an info, not stock vLLM's error. The same command run from an environment that is itself the folder
    (`~/venvs/vllm/bin/vllm`) runs an installed release: the error stays."""
    script = tmp_path / "serve.sh"
    body = ('VENV="${ROOT_DIR}/.venv"\nstart() {\n  "${VENV}/bin/vllm" serve Qwen/Qwen3-8B --kv-cache-dtype int8\n}\n'
            'start\n')
    script.write_text('#!/usr/bin/env bash\nROOT_DIR="${HOME}/vllm-gfx908"\n' + body)
    (dep,) = read_path(str(script)).deployments
    assert dep.program == "${HOME}/vllm-gfx908/.venv/bin/vllm"
    (kv007,) = [f for f in _checked(script) if f["code"] == "KV007"]
    assert kv007["severity"] == "info" and "vllm-gfx908" in kv007["message"] and kv007["span"]["line"] == 5
    script.write_text('#!/usr/bin/env bash\nROOT_DIR="${HOME}/venvs"\n' + body.replace("/.venv", "/vllm"))
    assert [f["severity"] for f in _checked(script) if f["code"] == "KV007"] == ["error"]


def test_a_process_given_its_data_parallel_rank_runs_one_ranks_gpus(tmp_path):
    """K378 (a router's StatefulSet of DP ranks 1-15, rank 0 deployed elsewhere): each pod runs `vllm serve M
    --tensor-parallel-size 1 --data-parallel-size 16 --data-parallel-rank $RANK` on one GPU. A process given its rank
    is one rank of an externally balanced group (vLLM sets its local size to 1): it needs TP x PP GPUs, so no KV204
    error. Without the rank, one process starts all 16 ranks and the error stands."""
    path = tmp_path / "workers.yaml"
    manifest = ("apiVersion: apps/v1\nkind: StatefulSet\nmetadata:\n  name: w\nspec:\n  replicas: 15\n  template:\n"
                "    spec:\n      containers:\n      - name: vllm\n        image: vllm/vllm-openai:v0.11.0\n"
                "        command: [vllm, serve, meta-llama/Llama-3.1-8B-Instruct, --tensor-parallel-size, '1',\n"
                "                  --data-parallel-size, '16', --data-parallel-rank, $(RANK)]\n"
                "        resources:\n          limits:\n            nvidia.com/gpu: 1\n")
    path.write_text(manifest)
    assert [f for f in _checked(path) if f["code"] == "KV204"] == []
    path.write_text(manifest.replace(", --data-parallel-rank, $(RANK)", ""))
    assert [f["severity"] for f in _checked(path) if f["code"] == "KV204"] == ["error"]


def test_a_python_argument_list_running_a_container_on_gpus_with_engine_flags_is_said(tmp_path):
    """K382 (a recipe's runtime): `return ["docker", "run", "-d", "--gpus", "all", ..., image, str(model),
    "--served-model-name", alias, ...]`, its image a name built at run time (`FROM vllm/vllm-openai`, in another
    file). No launch can be read, but the place is said (KV008 at the flag), never passed over. A list that runs a
    container with no GPU, or with no engine flag, is not such a place."""
    path = tmp_path / "runtime.py"
    head = 'import subprocess\n\n# serves vLLM\ndef command(image, model):\n    return [\n        "docker",\n'
    path.write_text(head + '        "run",\n        "--gpus",\n        "all",\n        image,\n        str(model),\n'
                    '        "--served-model-name",\n        "m",\n    ]\n')
    (said,) = [f for f in _checked(path) if f["code"] == "KV008"]
    assert (said["span"]["line"], said["span"]["col"]) == (12, 10) and "--served-model-name" in said["message"]
    path.write_text(head + '        "run",\n        image,\n        "--served-model-name",\n        "m",\n    ]\n')
    assert [f for f in _checked(path) if f["code"] == "KV008"] == []


def test_an_array_of_engine_arguments_handed_to_a_command_built_at_run_time_is_said(tmp_path):
    """K383 (a four-node launcher): `ARGS=(/model --served-model-name "$S" --tensor-parallel-size "$TP" --max-model-len
    "$L" ...)`, then `eval "docker run ... $(q "$IMG") $(q "${ARGS[@]}") --node-rank 0 ..."` for vLLM: the command is
    built at run time, no launch is read, and the place is said at the array (KV008), never passed over. An array of
    other words, or one the script never hands on, is not such a place."""
    path = tmp_path / "launch.sh"
    script = ('#!/bin/bash\n# vLLM on four nodes\nq() { printf "%q " "$@"; }\n'
              'ARGS=(/model --served-model-name "$S" --tensor-parallel-size "$TP"\n  --max-model-len "$L")\n'
              'eval "docker run --name r0 $(q "$IMG") $(q "${ARGS[@]}") --node-rank 0"\n')
    path.write_text(script)
    assert list(read_path(str(path)).deployments) == []
    (said,) = [f for f in _checked(path) if f["code"] == "KV008"]
    assert (said["span"]["line"], said["span"]["col"]) == (4, 1) and "array ARGS" in said["message"]
    path.write_text(script.replace('"${ARGS[@]}"', '"$OTHER"'))
    assert [f for f in _checked(path) if f["code"] == "KV008" and "array" in f["message"]] == []


def test_a_server_module_named_as_sglangs_entry_point_in_another_package_is_said(tmp_path):
    """K378 (SGLang-JAX's scripts): `python -m sgl_jax.launch_server "${common_args[@]}" ...` with `--model-path` in the
    array, in a script that never names SGLang: a port of the engine under a name of its own, which kvlint does not
    size. The place is said (KV008 at the module), never passed over; with no model anywhere it is not."""
    path = tmp_path / "smoke.sh"
    script = ('#!/bin/bash\ncommon_args=(\n  --model-path "${MODEL_PATH}"\n  --tp-size 4\n)\n'
              'python -m sgl_jax.launch_server "${common_args[@]}" --port 30000 &\n')
    path.write_text(script)
    assert list(read_path(str(path)).deployments) == []
    (said,) = [f for f in _checked(path) if f["code"] == "KV008"]
    assert (said["span"]["line"], said["span"]["col"]) == (6, 11) and "sgl_jax.launch_server" in said["message"]
    path.write_text(script.replace('  --model-path "${MODEL_PATH}"\n', ""))
    assert [f for f in _checked(path) if f["code"] == "KV008"] == []
