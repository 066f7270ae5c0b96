"""Shapes the turn-41 held-out samples (and the turn-40 ones left) showed kvlint passing over or misreading, each read
by a mechanism, not a case."""

from __future__ import annotations

import json

from kvlint.findings import Finding
from kvlint.launches import read_path
from tests.launches.checked import checked as _checked


def _said(path) -> Finding:
    """The one finding a file gives that kvlint reads no launch from: its never-silent note."""
    result = read_path(str(path))
    assert list(result.deployments) == []
    (note,) = result.findings
    return note


def _notebook(cells: list[tuple[str, str]]) -> str:
    return json.dumps({"cells": [{"cell_type": kind, "metadata": {}, "source": source.splitlines(keepends=True)}
                                 for kind, source in cells], "metadata": {}, "nbformat": 4, "nbformat_minor": 5},
                      indent=1)


def test_a_notebook_markdown_cell_holding_a_pasted_command_is_read_as_a_markdown_document_is(tmp_path):
    """K374 (a client notebook): a markdown cell that is just `python -m vllm.entrypoints.openai.api_server --model M
    ...`, the server to start before the OpenAI client's cells. Only fenced blocks of a markdown cell were read, so
    the launch was passed over in silence; a cell is now read as a Markdown document is, each value at its place in
    the .ipynb file. A cell of prose that names the engine is still no launch."""
    command = "python -m vllm.entrypoints.openai.api_server --model Qwen/Qwen2.5-7B-Instruct --enable-prefix-caching"
    path = tmp_path / "api.ipynb"
    path.write_text(_notebook([("markdown", "We serve the model with vLLM first.\n"), ("markdown", command),
                               ("code", "from openai import OpenAI\nclient = OpenAI()\n")]))
    (dep,) = read_path(str(path)).deployments
    assert dep.model == "Qwen/Qwen2.5-7B-Instruct" and dep.get("enable_prefix_caching") is True
    span = dep.model_span
    assert span is not None
    line = path.read_text().splitlines()[span.line - 1]
    assert line[span.col - 1:span.end_col - 1] == "Qwen/Qwen2.5-7B-Instruct"
    path.write_text(_notebook([("markdown", "We serve the model with vLLM first, then query it.\n"),
                               ("code", "print(1)\n")]))
    assert list(read_path(str(path)).deployments) == []


def test_a_launch_on_ascend_npus_is_not_sized_over_the_gpu_catalogue(tmp_path):
    """K386 (AIBrix on Ascend, a vllm-ascend fork's smoke test): a Deployment of `quay.io/ascend/vllm-ascend` asking for
    `huawei.com/Ascend910: "2"`, and a script that exports `ASCEND_RT_VISIBLE_DEVICES` before `python -m
    vllm.entrypoints.openai.api_server`. Both were swept over the GPU catalogue ("starts on every card with at least
    10.8 GiB"), a card they never run on. The resource, the image and a variable only the CANN runtime reads each put
    the launch on Ascend NPUs now; a CUDA launch beside them is still a GPU's."""
    manifest = tmp_path / "npu-deploy.yaml"
    manifest.write_text(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: q}\nspec:\n  template:\n    spec:\n      containers:\n"
        "        - name: vllm\n          image: registry.local/serving:v1\n"
        "          command: [vllm, serve, Qwen/Qwen2.5-7B-Instruct, --tensor-parallel-size, '2']\n"
        "          resources:\n            limits:\n              huawei.com/Ascend910: \"2\"\n")
    (dep,) = read_path(str(manifest)).deployments
    assert dep.gpu == "huawei.com/Ascend910" and dep.gpu_count == 2
    image = tmp_path / "compose.yaml"
    image.write_text("services:\n  llm:\n    image: quay.io/ascend/vllm-ascend:v0.11.0rc1\n"
                     "    command: [vllm, serve, Qwen/Qwen2.5-7B-Instruct]\n")
    (dep,) = read_path(str(image)).deployments
    assert dep.gpu == "ascend"
    script = tmp_path / "smoke.sh"
    script.write_text("export ASCEND_RT_VISIBLE_DEVICES=0\n"
                      "python -m vllm.entrypoints.openai.api_server --model Qwen/Qwen2.5-0.5B-Instruct --port 8000\n")
    (dep,) = read_path(str(script)).deployments
    assert dep.gpu == "ascend" and any("ASCEND_RT_VISIBLE_DEVICES" in n for n in dep.notes)
    script.write_text("export CUDA_VISIBLE_DEVICES=0\n"
                      "python -m vllm.entrypoints.openai.api_server --model Qwen/Qwen2.5-0.5B-Instruct --port 8000\n")
    (dep,) = read_path(str(script)).deployments
    assert dep.gpu is None


def test_an_exec_form_list_item_holding_an_option_and_its_value_is_one_argument(tmp_path):
    """K388 (a compose file): `command:` of `vllm/vllm-openai:latest` lists `- --max-num-batched-tokens 2048` as one
    item. No shell splits an exec-form list: the image's `vllm serve` gets one word holding a space, which argparse
    takes as the positional model, over `--model=...`. kvlint read that word as the model (KV002 "not known
    offline: --max-num-batched-tokens 2048"); the launch is read as meant now, and the word's error is said (KV013).
    `--flag=value` is one word argparse splits at `=`: no finding."""
    path = tmp_path / "docker-compose.yml"
    listed = ("services:\n  vllm:\n    image: vllm/vllm-openai:v0.11.0\n    command:\n"
              "      - --model=Qwen/Qwen3-8B\n      - --max-model-len=4096\n      - {}\n")
    path.write_text(listed.format("--max-num-batched-tokens 2048"))
    (dep,) = read_path(str(path)).deployments
    assert dep.model == "Qwen/Qwen3-8B" and dep.get("max_num_batched_tokens") == 2048
    (kv013,) = [f for f in _checked(path) if f["code"] == "KV013"]
    assert kv013["severity"] == "error" and "exec-form list" in kv013["message"]
    assert (kv013["span"]["line"], kv013["span"]["col"]) == (7, 9)
    path.write_text(listed.format("--max-num-batched-tokens=2048"))
    assert not [f for f in _checked(path) if f["code"] == "KV013"]


def test_a_features_switch_and_its_knob_are_one_family_of_a_build(tmp_path):
    """K387 (a fork of SGLang): `--enable-decode-token-budget --decode-token-budget-stall-limit 4`, two options no
    release has. A switch that turns a feature on and a knob of the same feature come from one build (a fork or a
    plugin adds them together; a typo does not come in consistently named pairs): an info, as for two options that
    share their first two words. One such option alone stays a warning."""
    path = tmp_path / "restart.sh"
    cmd = "python -m sglang.launch_server --model-path Qwen/Qwen3-8B {}\n"
    path.write_text(cmd.format("--enable-decode-token-budget --decode-token-budget-stall-limit 4"))
    assert [f["severity"] for f in _checked(path) if f["code"] == "KV004"] == ["info", "info"]
    path.write_text(cmd.format("--enable-decode-token-budget"))
    assert [f["severity"] for f in _checked(path) if f["code"] == "KV004"] == ["warning"]


def test_a_script_kept_with_the_image_builds_that_hands_its_arguments_on_is_the_image(tmp_path):
    """K390 (an SGLang fork's `docker/sm75-serve.sh`): `exec python3 -m sglang.launch_server --attention-backend
    torch_native ... "$@"`, no model of its own. A script kept in the folder of the repository's image builds is one an
    image runs, and its model comes with the arguments the image is run with (counting rule 5): a KV008 note, not a
    launch with no model. The same script elsewhere stays a launch whose model is open (turn 39's design), and one in
    docker/ that serves a model of its own is a launch."""
    folder = tmp_path / "docker"
    folder.mkdir()
    path = folder / "sm75-serve.sh"
    path.write_text('#!/usr/bin/env bash\nexec python3 -m sglang.launch_server \\\n  --attention-backend torch_native \\\n'
                    '  "$@"\n')
    note = _said(path)
    assert note.code == "KV008" and note.span is not None and note.span.line == 2 and "docker/" in note.message
    other = tmp_path / "sm75-serve.sh"
    other.write_text(path.read_text())
    assert len(read_path(str(other)).deployments) == 1
    path.write_text('#!/usr/bin/env bash\nexec python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B "$@"\n')
    (dep,) = read_path(str(path)).deployments
    assert dep.model == "Qwen/Qwen3-8B"


def test_a_python_launcher_building_its_command_from_expressions_is_said_not_passed_over(tmp_path):
    """K392 (a model launcher): `vllm_cmd = f"{shlex.quote(vllm_bin)} serve"`, `cmd = f"{vllm_cmd} {shlex.quote(source)}
    --max-model-len {maxlen} ..."`, then `subprocess.Popen(f"exec {cmd}", shell=True)`: the program and the model are
    expressions, and the file gave no launch and no finding. A file that starts a process and writes an engine's own
    flag in a string is said now (KV008 at the flag); one that starts no process is not."""
    path = tmp_path / "launcher.py"
    body = ('import shlex, subprocess\n\ndef start(source, maxlen, vllm_bin):\n'
            '    vllm_cmd = f"{shlex.quote(vllm_bin)} serve"\n'
            '    cmd = (\n        f"{vllm_cmd} {shlex.quote(source)} "\n        f"--max-model-len {maxlen} "\n    )\n')
    path.write_text(body + '    return subprocess.Popen(f"exec {cmd}", shell=True)\n')
    note = _said(path)
    assert note.code == "KV008" and note.span is not None and (note.span.line, note.span.col) == (7, 11)
    path.write_text(body + "    return cmd\n")
    assert list(read_path(str(path)).findings) == []


def test_a_container_runtime_found_on_the_path_is_that_runtime(tmp_path):
    """K391 (a sourced helper): `APPT=$(command -v apptainer)`, then `exec "$APPT" exec --nv ... "$SIF" python3 -m
    vllm.entrypoints.openai.api_server --model "${MODEL}" ...`. A program looked up on the PATH is that program, as
    `$(command -v vllm)` already was: the launch inside the container is read."""
    path = tmp_path / "helper.sh"
    path.write_text('APPT=$(command -v apptainer)\nSIF=/images/vllm.sif\n'
                    'exec "$APPT" exec --nv "$SIF" python3 -m vllm.entrypoints.openai.api_server '
                    '--model Qwen/Qwen3-8B --max-model-len 8192\n')
    (dep,) = read_path(str(path)).deployments
    assert dep.model == "Qwen/Qwen3-8B" and dep.get("max_model_len") == 8192


def test_a_container_run_of_an_image_set_at_run_time_with_the_serve_subcommand_is_said(tmp_path):
    """K393 (a remote launch script): `docker run "${ARGS[@]}" "$IMAGE" serve` over ssh, the image (an AMD AIM vLLM
    build) given on the script's command line. Nothing named the engine's command, so the file was passed over in
    silence; a container run whose image is an expansion and whose command is `serve` is said now (KV008 at `serve`)
    where the file names an engine. A `serve` of another kind (`mkdocs serve`) is no such place."""
    path = tmp_path / "serve-remote.sh"
    path.write_text('IMAGE="$1"  # e.g. vendor/aim-vllm-gpt-oss:0.11\nARGS=(-d --device=/dev/kfd -p 8000:8000)\n'
                    'docker run "${ARGS[@]}" "$IMAGE" serve\n')
    note = _said(path)
    assert note.code == "KV008" and note.span is not None and (note.span.line, note.span.col) == (3, 34)
    assert "subcommand `serve`" in note.message
    path.write_text('# docs for the vllm notes\nmkdocs serve\n')
    assert list(read_path(str(path)).findings) == []


def test_a_python_program_a_script_runs_with_python_c_is_read(tmp_path):
    """K397 (an NPU smoke script): `python -c "... ServerArgs(model_path='$MODEL', port=$PORT, device='npu', ...);
    launch_server(server_args)"` after `MODEL=/host-models/Qwen2-0.5B-Instruct`. The program is the shell's string:
    read by the Python reader at its own lines, the script's variables put in as the shell does (silent before, only
    a KV008 for the file's name). A string that starts no server gives nothing."""
    path = tmp_path / "start_server.sh"
    path.write_text('MODEL=/models/Qwen2-0.5B-Instruct\nPORT=30000\npython -c "\n'
                    'from sglang.srt.entrypoints.http_server import launch_server\n'
                    'from sglang.srt.server_args import ServerArgs\n'
                    "server_args = ServerArgs(model_path='$MODEL', port=$PORT, tp_size=1, mem_fraction_static=0.5)\n"
                    'launch_server(server_args)\n"\n')
    (dep,) = read_path(str(path)).deployments
    assert dep.engine == "sglang" and dep.model == "/models/Qwen2-0.5B-Instruct"
    assert dep.model_span is not None and dep.model_span.line == 6
    path.write_text('python -c "import sglang; print(sglang.__version__)"\n')
    assert list(read_path(str(path)).deployments) == []


def test_a_number_the_stock_parser_wants_is_a_source_builds_to_decide(tmp_path):
    """K397 (the launcher at the root of an SGLang fork): the script installs the checkout editable (`pip install -e
    "python[all]"`) and launches it with `--mamba-full-memory-ratio auto`. Stock SGLang wants a number; a source
    tree's parser may take another form, so the build decides (a KV007 info, as for a refused choice). Without the
    install the error stands."""
    cmd = "python -m sglang.launch_server --model-path Qwen/Qwen3-8B --mamba-full-memory-ratio auto\n"
    expected = {"build.sh": ('pip install -e "python[all]"\n', "info"), "plain.sh": ("", "error")}
    for name, (before, severity) in expected.items():  # one file each: a script's text is read once per run
        path = tmp_path / name
        path.write_text(before + cmd)
        assert [f["severity"] for f in _checked(path) if f["code"] == "KV007"] == [severity], name


def test_a_launch_run_from_inside_a_checkout_the_script_finds_in_place_is_that_builds(tmp_path):
    """K397, K402 (experiment scripts of SGLang forks): `cd ~/sglang` or `cd "${SGLANG_REPO}"`, then `python -m
    sglang.launch_server ... --enable-fake-prefill`. A script that changes into an engine checkout it finds in place runs
    the build it was set up in, whose release the file does not say: its own options are that build's (KV004 info, not
    stock SGLang's warning). From another folder the warning stands, and a checkout the file clones itself without
    installing it stays stock (turn 36's K322 design)."""
    cmd = "python -m sglang.launch_server --model-path Qwen/Qwen3-8B --enable-fake-prefill\n"
    expected = {"home.sh": ("cd ~/sglang\n", "info"), "repo.sh": ('cd "${SGLANG_REPO}"\n', "info"),
                "work.sh": ("cd ~/work\n", "warning"),
                "clone.sh": ("git clone https://github.com/example/sglang.git\ncd sglang\n", "warning")}
    for name, (before, severity) in expected.items():  # one file each: a script's text is read once per run
        path = tmp_path / name
        path.write_text(before + cmd)
        assert [f["severity"] for f in _checked(path) if f["code"] == "KV004"] == [severity], name


def test_a_word_put_in_front_of_an_option_names_another_option_not_a_typo(tmp_path):
    """K401 (a speculative-decoding test of a vLLM branch): `--draft-model $draft_model --speculate-length 5`. The
    did-you-mean offered `--model` for `--draft-model` and made it an error: a word put in front of a whole option
    names another option (a draft model), no slip of it. Both are options no release has now, warnings that say a
    build may add them; a dropped or mistyped word still gets its did-you-mean."""
    path = tmp_path / "launch.sh"
    path.write_text("python -m vllm.entrypoints.api_server --model facebook/opt-125m --draft-model m2 "
                    "--speculate-length 5\n")
    found = [(f["severity"], f["message"]) for f in _checked(path) if f["code"] == "KV004"]
    assert [s for s, _ in found] == ["warning", "warning"] and not any("did you mean" in m for _, m in found)
    other = tmp_path / "typo.sh"
    other.write_text("vllm serve facebook/opt-125m --max-model-length 4096\n")
    (typo,) = [f for f in _checked(other) if f["code"] == "KV004"]
    assert typo["severity"] == "error" and "--max-model-len" in typo["message"]


def test_arguments_a_function_prints_are_the_value_its_caller_assigns(tmp_path):
    """K402 (a P/D worker script): `_launch_args() { local mode=$1 host=$2 port=$3; echo "--model-path ${MODEL_PATH}
    --disaggregation-mode ${mode} --host ${host} --port ${port} ..."; }`, then `args=$(_launch_args prefill "$IP"
    "$PORT")` and `python -m sglang.launch_server ${args}` for each role. What the function prints, with the call's
    arguments, is the value: two launches read (a KV008 before). A function that runs anything else is not read so."""
    path = tmp_path / "remote_worker.sh"
    body = ('MODEL_PATH="${MODEL_PATH:-/data/Qwen/Qwen2.5-7B}"\n_launch_args() {\n    local mode=$1 host=$2 port=$3\n'
            '    echo "--model-path ${MODEL_PATH} --disaggregation-mode ${mode} --host ${host} --port ${port}"\n}\n'
            '_start() {\n    local args\n    args=$(_launch_args "$1" 10.0.0.1 "$2")\n'
            '    nohup python -m sglang.launch_server ${args} > "$1.log" 2>&1 &\n}\n_start prefill 30000\n'
            '_start decode 30001\n')
    path.write_text(body)
    deps = read_path(str(path)).deployments
    assert [(d.model, d.get("disaggregation_mode"), d.get("port")) for d in deps] == [
        ("/data/Qwen/Qwen2.5-7B", "prefill", 30000), ("/data/Qwen/Qwen2.5-7B", "decode", 30001)]
    other = tmp_path / "other.sh"
    other.write_text(body.replace('    local mode=$1 host=$2 port=$3\n', '    curl -s localhost\n'))
    assert list(read_path(str(other)).deployments) == []


def test_a_production_stack_model_written_as_a_map_is_that_charts_entry(tmp_path):
    """K402 (a repository's own copy of the vLLM stack chart): `servingEngineSpec.modelSpec` is one map (`name`,
    `repository`, `tag`, `modelURL`, `vllmConfig`), not a list of them: the same entry, read (a KV008 before)."""
    path = tmp_path / "values-example.yaml"
    path.write_text('servingEngineSpec:\n  modelSpec:\n    name: "qwen"\n    repository: "vllm/vllm-openai"\n'
                    '    tag: "v0.11.0"\n    modelURL: "Qwen/Qwen3-8B"\n    requestGPU: 1\n    vllmConfig:\n'
                    '      maxModelLen: 8192\n')
    (dep,) = read_path(str(path)).deployments
    assert (dep.model, dep.get("max_model_len"), dep.image) == ("Qwen/Qwen3-8B", 8192, "vllm/vllm-openai:v0.11.0")


def test_a_file_that_runs_a_launcher_script_with_its_model_set_is_said(tmp_path):
    """K403 (a systemd unit and a wrapper): `Environment=MODEL=/models/Qwen3.8-27B` beside vLLM's variables and
    `ExecStart=/bin/bash .../start_qwen.sh`, and a script that exports MODEL then `exec "$REPO/start_qwen.sh"`. The
    engine's command is the launcher's; the file was passed over in silence. It is said now (KV008 at the script)."""
    unit = tmp_path / "qwen.service"
    unit.write_text("[Service]\nEnvironment=MODEL=/models/Qwen3.8-27B\nEnvironment=VLLM_NO_USAGE_STATS=1\n"
                    "ExecStart=/bin/bash /opt/recipe/start_qwen.sh\n")
    wrapper = tmp_path / "start_gate.sh"
    wrapper.write_text('export MODEL=/models/Qwen3.8-27B\nexport VLLM_USE_V1=1\nexec "$REPO/single-user/start_qwen.sh"\n')
    for path, line in ((unit, 4), (wrapper, 3)):
        result = read_path(str(path))
        (note,) = result.findings
        assert note.code == "KV008" and note.span is not None and note.span.line == line
        assert "start_qwen.sh" in note.message and list(result.deployments) == []


def test_a_plugins_cli_module_takes_its_subcommand(tmp_path):
    """K402 (vLLM-Omni's benchmark): `["python", "-m", "vllm_omni.entrypoints.cli.main", "serve", model, "--omni",
    ...]`. The plugin's CLI module takes `serve` as vLLM's does: the model is the word after it (it was `serve`)."""
    path = tmp_path / "run_matrix.py"
    path.write_text('import subprocess\nMODEL = "Qwen/Qwen3-8B"\ncommand = ["python", "-m", '
                    '"vllm_omni.entrypoints.cli.main", "serve", MODEL, "--omni", "--port", "8091"]\n'
                    'subprocess.Popen(command)\n')
    (dep,) = read_path(str(path)).deployments
    assert dep.model == "Qwen/Qwen3-8B"


def test_a_model_left_to_a_config_file_kvlint_cannot_read_is_said_as_that(tmp_path):
    """K388, K391 (`nohup vllm serve --config vllm.yaml &` with no vllm.yaml beside it): the model is the config file's,
    and the KV002 info called `--config vllm.yaml` "an unresolved expression (variable or template)". It names the file
    now; a config file beside the script is read as before."""
    path = tmp_path / "vllm.sh"
    path.write_text("nohup vllm serve --config vllm.yaml &\n")
    (kv002,) = [f for f in _checked(path) if f["code"] == "KV002"]
    assert "the model is in vllm.yaml" in kv002["message"] and "variable or template" not in kv002["message"]
    (tmp_path / "vllm.yaml").write_text("model: Qwen/Qwen3-8B\nmax-model-len: 8192\n")
    other = tmp_path / "serve.sh"
    other.write_text("nohup vllm serve --config vllm.yaml &\n")
    (dep,) = read_path(str(other)).deployments
    assert dep.model == "Qwen/Qwen3-8B"
