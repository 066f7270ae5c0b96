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
    are vLLM's by the tables, so the launch is vLLM's with that model. A script handed other words is not read."""
    text = ("docker run --gpus all -d --entrypoint bash org/glm:1 /start.sh /models/glm --served-model-name glm "
            "--tensor-parallel-size 2 --max-model-len 8192\n"
            "bash /opt/serve.sh /models/b --tensor-parallel-size 4 --enable-prefix-caching\n"
            "bash /opt/backup.sh /data --verbose --dry-run\n")
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
