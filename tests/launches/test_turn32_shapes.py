"""Shapes the turn-32 held-out samples (K261-K264) showed kvlint passing over or misreading, each read by a
mechanism, not a case: a loop's brace-expanded list, a script handed a model and one engine's flags, a compose
service whose script is a host file, a variable a script fills from a program, a runbook's REPL prompts and
notebook lines, a Python path the program wraps in `str(Path(...))`, a flag list a command splices in, and a
name that says it holds the interpreter."""

from __future__ import annotations

from kvlint.launches import read_path


def _at(span):
    return (span.line, span.col) if span is not None else None


def test_a_loops_brace_expanded_list_gives_its_values_not_the_braces():
    """Sample K264 (measured: a KV007 error, wrong): `for port in {7471..7590}; do ... PORT=$port` before
    `--port "$PORT"`: bash expands the braces, so the port is a number; a list `org/{a,b}` is two models."""
    text = ('PORT=10000\nfor port in {7471..7590}; do\n  if free $port; then PORT=$port; break; fi\ndone\n'
            'python -m sglang.launch_server --model-path org/m --port "$PORT"\n'
            'for m in org/{a,b}; do\n  vllm serve $m &\ndone\n')
    deps = read_path("run.sh", text).deployments
    assert [d.model for d in deps] == ["org/m", "org/a", "org/b"]
    assert str(deps[0].get("port")) in ("7471", "7590")


def test_a_script_handed_a_model_and_one_engines_flags_passes_them_on():
    """Sample K263 (measured: silent): `docker run ... --entrypoint bash IMAGE /start.sh MODEL --tensor-parallel-size
    2 ...` and `bash /opt/serve.sh MODEL --flags`: a prelude script that ends in `exec vllm serve "$@"`; the flags
    are vLLM's by the tables, so the launch is vLLM's with that model. A script handed other words, or one named for
    a benchmark or an evaluation (a job that takes the model and flags, not a server), is not read."""
    text = ("docker run --gpus all -d --entrypoint bash org/glm:1 /start.sh /models/glm --served-model-name glm "
            "--tensor-parallel-size 2 --max-model-len 8192\n"
            "bash /opt/serve.sh /models/b --tensor-parallel-size 4 --enable-prefix-caching\n"
            "bash /opt/backup.sh /data --verbose --dry-run\n"
            "bash /opt/bench_vllm.sh /models/c --tensor-parallel-size 4 --enable-prefix-caching\n")
    deps = read_path("run.sh", text).deployments
    assert [(d.engine, d.model, d.get("tensor_parallel_size")) for d in deps] == [
        ("vllm", "/models/glm", 2), ("vllm", "/models/b", 4)]
    assert _at(deps[0].model_span) == (1, 64)


def test_a_compose_services_script_from_a_host_path_on_an_engine_build_is_its_launch(tmp_path, monkeypatch):
    """Sample K263 (measured: said only): an engine-named build on GPUs whose entry point is a script mounted from
    an absolute host path (`/home/u/deploy/serve.sh:/experiment/serve.sh`), a file no repository holds: the
    service is that engine's deployment, its model left to the script (unresolved), not a place passed over."""
    monkeypatch.chdir(tmp_path)
    compose = tmp_path / "compose.yml"
    compose.write_text("services:\n  q:\n    image: ${IMG:-eugr/spark-vllm-b12x:nightly}\n    gpus: all\n"
                       "    entrypoint: [\"/experiment/serve.sh\"]\n    volumes:\n"
                       "      - /home/u/deploy/serve.sh:/experiment/serve.sh:ro\n")
    result = read_path(str(compose))
    (dep,) = result.deployments
    assert (dep.engine, dep.model_resolved, _at(dep.launch_span)) == ("vllm", False, (5, 18))
    assert not [f for f in result.findings if f.code == "KV008"]
    compose.write_text(compose.read_text().replace("    gpus: all\n", ""))  # no GPU: no evidence it serves
    assert read_path(str(compose)).deployments == []


def test_a_variable_the_script_fills_from_a_program_is_its_own_not_the_environments():
    """Sample K263 (measured: said as an image's entry point): `ARGS=$(grep -v '^#' "$CONFIG" | tr '\\n' ' ')`
    then `exec sglang serve $ARGS "$@"`: the script reads a profile and chooses what it serves, a launch whose model
    is open (rule 8). A variable only the environment sets (`exec sglang serve $ARGS "$@"` alone) stays the image's."""
    own = 'CONFIG=/etc/sglang/x.conf\nARGS=$(grep -v "^#" "$CONFIG" | tr "\\n" " ")\nexec sglang serve $ARGS "$@"\n'
    (dep,) = read_path("start_262k.sh", own).deployments
    assert (dep.engine, dep.model_resolved) == ("sglang", False)
    env_only = 'exec sglang serve $ARGS "$@"\n'
    result = read_path("start_262k.sh", env_only)
    assert result.deployments == [] and [f.code for f in result.findings] == ["KV008"]


def test_a_runbooks_repl_prompts_and_notebook_lines_are_the_shells():
    """Samples K262 and K264 (measured: missed): a bash block written with a REPL's prompts (`>>> hf jobs run ...
    \\` then `...   vllm serve M`), and a Python block's `!vllm serve M` (a Colab cell pasted): shell commands."""
    text = ("# Jobs\n\n```bash\n>>> hf jobs run --detach --flavor a10g-small \\\n...   vllm/vllm-openai \\\n"
            "...   vllm serve org/a --max-model-len 8192\n```\n\n```python\n!pip install vllm\n"
            "!vllm serve org/b --port 8000\nprint('ok')\n```\n")
    deps = read_path("README.md", text).deployments
    assert [(d.model, _at(d.model_span)) for d in deps] == [("org/a", (6, 18)), ("org/b", (11, 13))]
    assert deps[0].get("max_model_len") == 8192


def test_a_path_a_program_wraps_and_a_flag_list_a_command_splices_in():
    """Sample K263's boot program (measured: a miss and a spurious launch): `MODEL = Path(os.environ.get(
    'MODEL_PATH', '/models/m'))` read through `str(MODEL)` is that default, and a flag list bound to a name that
    `Popen([sys.executable, '-m', 'sglang.launch_server', *args])` splices in is placed at that command."""
    text = ("import os, subprocess, sys\nfrom pathlib import Path\n"
            "MODEL = Path(os.environ.get('MODEL_PATH', '/models/m'))\n"
            "def main():\n    args = ['--model-path', str(MODEL), '--tp-size', '8', '--context-length', '4096']\n"
            "    subprocess.Popen([sys.executable, '-m', 'sglang.launch_server', *args])\n")
    (dep,) = read_path("boot.py", text).deployments
    assert (dep.model, _at(dep.model_span), _at(dep.launch_span), dep.get("tp_size")) == (
        "/models/m", (5, 29), (6, 45), 8)


def test_a_name_that_holds_the_interpreter_runs_the_engines_cli_script():
    """Sample K264 (measured: silent): `[str(python), str(python.parent / 'vllm'), 'serve', str(checkpoint), ...]`
    with `python = ROOT / '.venv/bin/python'`: the venv's Python runs vLLM's CLI script, a launch whose model is
    the checkpoint (open); a name that does not say it holds Python is not read as one."""
    text = ("import os\nfrom pathlib import Path\nROOT = Path(__file__).parent\n"
            "def plan(checkpoint):\n    python = ROOT / '.venv/bin/python'\n"
            "    command = [str(python), str(python.parent / 'vllm'), 'serve', str(checkpoint), '--port', '8000']\n"
            "    os.execve(command[0], command, {})\n")
    (dep,) = read_path("serve.py", text).deployments
    assert (dep.engine, dep.model_resolved, _at(dep.model_span)) == ("vllm", False, (6, 67))
    other = text.replace("python = ", "tool = ").replace("str(python)", "str(tool)").replace("python.parent", "tool.parent")
    assert read_path("serve.py", other).deployments == []


def test_an_engine_build_whose_environment_names_its_model_is_a_launch_its_dockerfile_the_image():
    """Sample K267 (measured: a miss and a spurious launch): a Deployment runs `registry:5000/vllm:latest` with
    `MODEL_ID` from a ConfigMap and no command (no GPU request: a CPU build): the launch, its model left open; the
    Dockerfile whose `CMD ["sh", "-c", "vllm serve \\"$MODEL_ID\\" ..."]` takes the model only from its environment
    is the image (counting rule 5), said, not a launch. An ENV default makes the Dockerfile's own launch."""
    manifest = ("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: inf}\nspec:\n  template:\n    spec:\n"
                "      containers:\n      - name: server\n        image: reg:5000/vllm:latest\n        env:\n"
                "        - name: MODEL_ID\n          valueFrom: {configMapKeyRef: {name: cfg, key: model-id}}\n")
    (dep,) = read_path("deploy.yaml", manifest).deployments
    assert (dep.engine, dep.model_resolved, dep.image) == ("vllm", False, "reg:5000/vllm:latest")
    assert read_path("deploy.yaml", manifest.replace("MODEL_ID", "LOG_LEVEL")).deployments == []
    docker = 'FROM python:3.12-slim\nRUN pip install vllm\nCMD ["sh", "-c", "vllm serve \\"$MODEL_ID\\" --port 8001"]\n'
    result = read_path("Dockerfile", docker)
    assert result.deployments == [] and [f.code for f in result.findings] == ["KV008"]
    (own,) = read_path("Dockerfile", docker.replace("RUN pip", "ENV MODEL_ID=org/m\nRUN pip")).deployments
    assert own.model == "org/m"


def test_values_that_ask_for_gpus_beside_one_engines_keys_are_that_engines_launch():
    """Sample K268 (measured: silent): a per-model values file of a chart whose template is not in the tree,
    `configs: {model: Qwen/Qwen3-8B, gpu_memory_utilization: 0.5, max_model_len: 20480, max_num_seqs: 1}` beside
    `gpu: {type: q6000, count: 2}`: keys only vLLM's flags are spelled like, on GPUs: vLLM's launch. Without the GPU
    request (an application's own settings) or with keys both engines take, nothing is read."""
    text = ("namespace: llm\nconfigs:\n  name: q\n  model: Qwen/Qwen3-8B\n  gpu_memory_utilization: 0.5\n"
            "  max_model_len: 20480\n  max_num_seqs: 1\ngpu:\n  type: q6000\n  count: 2\n")
    (dep,) = read_path("8b.yaml", text).deployments
    assert (dep.engine, dep.model, _at(dep.model_span), dep.get("max_model_len")) == ("vllm", "Qwen/Qwen3-8B", (4, 10),
                                                                                      20480)
    assert read_path("8b.yaml", text.replace("gpu:\n  type: q6000\n  count: 2\n", "")).deployments == []
    # the chart's GPU switch is the template's request: 2 GPUs, TP left to the template up to them, never 1 alone
    assert (dep.gpu_count, dep.settings["tensor_parallel_size"].resolved) == (2, False)


def test_a_programs_if_else_lists_then_the_words_both_grow():
    """Sample K268 (measured: said only): `if uv: cmd = ["uv", "run", "vllm", "serve"] else: cmd = ["vllm",
    "serve"]` then `cmd.extend([model_name, "--max-model-len", "8192"])`: both arms' lists grown (turn 50's K548),
    one server either way: one launch, the first arm's (kvlint.launches.pyfile._one_of_arms), its words read."""
    text = ("import os, subprocess\ndef main():\n    model_name = os.getenv('MODEL_NAME')\n    if os.getenv('UV'):\n"
            "        cmd = ['uv', 'run', 'vllm', 'serve']\n    else:\n        cmd = ['vllm', 'serve']\n"
            "    cmd.extend([model_name, '--max-model-len', '8192'])\n    subprocess.run(cmd)\n")
    (dep,) = read_path("main.py", text).deployments
    assert (_at(dep.launch_span), _at(dep.model_span), dep.get("max_model_len")) == ((5, 30), (8, 17), 8192)


def test_a_notebook_exported_as_python_and_a_name_it_binds_twice():
    """Sample K265 (measured: said only, then a wrong KV007 error): a Colab export with `!pip install` lines is read
    as a notebook's cell (shell lines and Python apart), and `BASE_MODEL_ID` bound to another model further down
    does not reach the `Popen([...])` between: the program runs top to bottom."""
    text = ('!pip install -q vllm\nimport subprocess, sys\nBASE_MODEL_ID = "org/m"\n'
            'BASE_MODEL_ID = "Qwen/Qwen2.5-14B-Instruct-AWQ"\n'
            'p = subprocess.Popen([sys.executable, "-m", "vllm.entrypoints.openai.api_server", "--model", BASE_MODEL_ID,'
            ' "--quantization", "awq"])\nBASE_MODEL_ID = "org/later"\n!vllm serve org/shell --port 8001\n')
    deps = read_path("resume.py", text).deployments
    assert [(d.model, _at(d.model_span)) for d in deps] == [("Qwen/Qwen2.5-14B-Instruct-AWQ", (5, 94)),
                                                            ("org/shell", (7, 13))]


def test_a_joined_array_a_group_switch_and_a_mounted_host_script():
    """Sample K266 (measured: said only): `wrap_cmd="${wrap_cmds[*]}"` joins the array for `sbatch --wrap`; `sg
    docker -c "docker run ..."` runs its string as the shell does; a build named for the engine on GPUs running
    `bash /opt/serve_cmd.sh`, mounted from a host path, is that engine's launch, its model left to the script."""
    text = ('model=org/m\nwrap_cmds=(\n  "source ~/.bashrc;"\n  "vllm serve ${model} --tensor-parallel-size 4"\n)\n'
            'wrap_cmd="${wrap_cmds[*]}"\nsbatch --gpus-per-node=4 --wrap="${wrap_cmd}"\n'
            'sg docker -c "docker run -d --gpus all -v /home/u/ws/serve_cmd.sh:/opt/serve_cmd.sh:ro vllm:r36-tegra '
            'bash /opt/serve_cmd.sh"\n')
    first, second = read_path("run.sh", text).deployments
    assert (first.model, first.model_span.line, first.get("tensor_parallel_size")) == ("org/m", 4, 4)
    assert (second.engine, second.model, second.image) == (
        "vllm", "(the model the script /opt/serve_cmd.sh serves)", "vllm:r36-tegra")
    assert "mounted from the host" in " ".join(second.notes)


def test_a_modules_docstring_runbook_blocks_are_read_as_a_runbooks():
    """Sample K266 (measured: silent): a training example's docstring with "Spin up vLLM server" and a ```` ```sh
    ```` block `trl vllm-serve --model M`: read as a Markdown runbook's block, at its place; prose stays prose."""
    text = ('"""Wordle.\n\nRun the server:\n```sh\nCUDA_VISIBLE_DEVICES=0 trl vllm-serve --model Qwen/Qwen3-1.7B\n'
            '```\nThen vllm serve is called by the trainer.\n"""\nimport trl\n')
    (dep,) = read_path("wordle.py", text).deployments
    assert (dep.engine, dep.model, _at(dep.model_span)) == ("vllm", "Qwen/Qwen3-1.7B", (5, 47))


def test_another_engine_borrowing_the_name_and_a_module_judged_by_its_own_name():
    """Sample K270 (measured: a spurious launch): `-m sparsevllm.entrypoints.openai.api_server --model M --port P`
    is another engine's server, not vLLM's (the name is inside another); sample K271 (measured: said only): `python3
    -m trainers.vllm_server --model M --host H --port P`, a copy of TRL's server in a training repository, is judged
    by the module's own name (`vllm_server`), not its package's (`trainers`)."""
    other = 'exec "$PY" -m sparsevllm.entrypoints.openai.api_server --model "$M" --port 8000 --host 0.0.0.0\n'
    assert read_path("worker.sh", other).deployments == []
    text = ('MODEL_PATH="results/sft"\nCMD=(python3 -m trainers.vllm_server\n  --model "${MODEL_PATH}"\n'
            '  --host 0.0.0.0\n  --port 8000)\nexec "${CMD[@]}"\n')
    (dep,) = read_path("launch_vllm_server.sh", text).deployments
    assert (dep.engine, dep.model, _at(dep.model_span)) == ("vllm", "results/sft", (3, 11))


def test_a_unit_a_here_document_writes_is_read_as_the_shell_writes_it():
    """Sample K271 (measured: said, and silent in its Markdown copy): `sudo bash -c "cat <<EOF > $UNIT ... EOF"`
    writing a systemd unit whose `ExecStart=` continues with `\\\\`: the string's quoting and the here-document's
    escapes are undone as the shell does, so the model is read at its place, in a script and in a runbook's block
    labelled for another language (```` ```javascript ```` over shell comments and assignments)."""
    script = ('UNIT=/etc/systemd/system/vllm.service\nsudo bash -c "cat <<EOF > $UNIT\n[Service]\n'
              'ExecStart=$PY -m vllm.entrypoints.openai.api_server \\\\\n    --model org/m \\\\\n'
              '    --max-model-len 4096\nRestart=always\nEOF"\n')
    (dep,) = read_path("install.sh", script).deployments
    assert (dep.model, _at(dep.model_span), dep.get("max_model_len")) == ("org/m", (5, 13), 4096)
    plain = "cat <<EOF | sudo tee /etc/systemd/system/v.service\n[Service]\nExecStart=/usr/bin/python3 -m vllm.entrypoints." \
            "openai.api_server \\\\\n    --model org/n\nEOF\n"
    (unit,) = read_path("install.sh", plain).deployments
    assert (unit.model, _at(unit.model_span)) == ("org/n", (4, 13))
    doc = "Bash\n\n```javascript\n# paths\n" + script + "```\n"
    (from_doc,) = read_path("Install.md", doc).deployments
    assert (from_doc.model, from_doc.model_span.line) == ("org/m", 9)


def test_a_mode_word_to_an_engine_build_configured_by_its_environment():
    """Sample K272 (measured: three launches said only): `docker run --gpus all -e MODEL=/model -e MAX_MODEL_LEN=
    ... -e VLLM_EXTRA_ARGS="--served-model-name n ..." "$VLLM_IMAGE" serve` on `avarok/dgx-vllm-nvfp4-kernel:v23`:
    `serve` is a mode of the build's own entry point, which reads the model and settings from the environment."""
    text = ('VLLM_IMAGE="avarok/dgx-vllm-nvfp4-kernel:v23"\ndocker run -d --gpus all -v "$D:/model" \\\n'
            '  -e MODEL=/model -e MAX_MODEL_LEN=32768 -e MAX_NUM_SEQS=128 \\\n  "$VLLM_IMAGE" \\\n  serve\n')
    (dep,) = read_path("lb-worker.sh", text).deployments
    assert (dep.engine, dep.model, dep.model_span.line, dep.get("max_model_len")) == ("vllm", "/model", 3, 32768)
