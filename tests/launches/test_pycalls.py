"""kvlint.launches.pycalls: a helper that starts the engine from its parameters is one launch per call, with the
caller's values and GPU; a decorator's `gpu=` is the launch's GPU (Modal)."""

from __future__ import annotations

from kvlint.launches import read_path
from tests.launches.test_docker_and_positional import FIX, _at


def test_a_helper_called_from_two_modal_functions_is_two_launches_with_the_callers_values():
    deps = read_path(str(FIX / "python" / "helper_called_twice.py")).deployments
    got = [(d.model, _at(d.model_span), d.get("max_model_len"), d.get("tensor_parallel_size"),
            d.get("kv_cache_dtype"), d.gpu, d.gpu_count) for d in deps]
    assert got == [("Qwen/Qwen2.5-7B-Instruct", (14, 18), 8192, 1, "fp8", "L40S", 1),
                   ("meta-llama/Llama-3.1-70B-Instruct", (20, 13), 16384, 2, None, "H100", 2)]
    assert _at(deps[1].gpu_span) == (17, 20)


def test_a_modal_class_decorator_gives_the_gpu_of_its_method_s_launch():
    (dep,) = read_path(str(FIX / "python" / "modal_gpu.py")).deployments
    assert (dep.model, dep.gpu, dep.gpu_count, dep.get("tp_size")) == ("Qwen/Qwen2.5-32B-Instruct", "A100-80GB", 2, 2)
    assert any("gpu='A100-80GB:2'" in n for n in dep.notes)


def test_a_helper_no_one_calls_is_read_once_with_its_defaults(tmp_path):
    path = tmp_path / "serve.py"
    path.write_text("import subprocess\n\ndef serve(model='org/m', tp=2):\n"
                    "    subprocess.run(['vllm', 'serve', model, '-tp', str(tp)])\n")
    (dep,) = read_path(str(path)).deployments
    assert (dep.model, dep.get("tensor_parallel_size")) == ("org/m", 2)


def test_modal_s_earlier_gpu_objects_name_the_card_and_count(tmp_path):
    path = tmp_path / "app.py"
    path.write_text("import modal, subprocess\napp = modal.App()\n\n"
                    "@app.function(image=vllm_image, gpu=modal.gpu.A10G(count=2))\n"
                    "def serve():\n    subprocess.Popen(['vllm', 'serve', 'org/m', '-tp', '2'])\n")
    (dep,) = read_path(str(path)).deployments
    assert (dep.gpu, dep.gpu_count, _at(dep.gpu_span)) == ("A10G", 2, (4, 47))


def test_a_python_keyword_given_a_variable_named_for_an_engine_is_no_image(tmp_path):
    """`image=vllm_image` in a program that runs the engine in-process (sample K2's rawsh): no KV008 naming the
    variable as an image."""
    path = tmp_path / "app.py"
    path.write_text("import modal\nvllm_image = modal.Image.debian_slim().pip_install('vllm')\n"
                    "@app.function(image=vllm_image)\ndef f():\n    pass\n")
    assert read_path(str(path)).findings == []


def test_a_helper_called_twice_with_the_same_values_is_one_launch(tmp_path):
    """A start and a health restart calling one helper (sample K5's paddleocr service): one deployment."""
    path = tmp_path / "svc.py"
    path.write_text("import subprocess\n\ndef start(model='org/m'):\n"
                    "    subprocess.Popen(['vllm', 'serve', model, '--max-model-len', '4096'])\n\n"
                    "def boot():\n    start()\n\ndef restart():\n    start()\n")
    (dep,) = read_path(str(path)).deployments
    assert (dep.model, dep.get("max_model_len")) == ("org/m", 4096)


def test_one_command_started_by_a_modal_function_per_card_is_one_launch_over_those_cards(tmp_path):
    """Sample K9's modal-vllm-server: `run_chat_logic(model)` builds one command, called by nine `@app.function(
    gpu="T4")` ... `gpu="B200"` wrappers with the same values: one launch whose GPU is one of those cards (its
    options, each tried), not nine."""
    p = tmp_path / "serve.py"
    p.write_text(
        "import modal, subprocess\n"
        "app = modal.App('x')\n"
        "def run(model):\n"
        "    subprocess.Popen(['vllm', 'serve', model, '--max-model-len', '4096'])\n"
        + "".join(f"@app.function(gpu='{g}')\ndef run_{k}(model):\n    run('Qwen/Qwen2.5-7B-Instruct')\n"
                  for k, g in enumerate(("T4", "L4", "H100"))))
    (dep,) = read_path(str(p)).deployments
    assert dep.gpu is None and [o.name for o in dep.gpu_options] == ["T4", "L4", "H100"]
    assert [o.span.line for o in dep.gpu_options] == [5, 8, 11] and dep.get("max_model_len") == 4096


def test_a_value_chosen_by_a_fallback_helper_is_its_first_known_choice(tmp_path):
    """Sample K25's embedding launcher (measured: KV008, model unknown): `model = resolve(args.model, "EMBED_MODEL",
    DEFAULT_MODEL, str)` where `resolve` returns its argument, else the environment's value, else its default: run
    with no option and no environment, the model is DEFAULT_MODEL. A helper that returns no parameter is none."""
    p = tmp_path / "start_embed_server.py"
    p.write_text('import argparse, os, subprocess, sys\nDEFAULT_MODEL = "NeuML/pubmedbert-base-embeddings"\n\n'
                 "def resolve(arg_value, env_name, default, caster=None):\n    if arg_value is not None:\n"
                 "        return arg_value\n    raw = os.getenv(env_name)\n    if raw is None:\n        return default\n"
                 "    return raw if caster is None else caster(raw)\n\n"
                 "def join(a, b):\n    return a + b\n\n"
                 "def main():\n    p = argparse.ArgumentParser()\n    p.add_argument('--model', default=None)\n"
                 "    args = p.parse_args()\n    model = resolve(args.model, 'EMBED_MODEL', DEFAULT_MODEL, str)\n"
                 "    other = join('org/', DEFAULT_MODEL)\n"
                 "    cmd = [sys.executable, '-m', 'vllm.entrypoints.openai.api_server', '--model', model, '--port', '8081']\n"
                 "    subprocess.Popen(cmd)\n")
    (d,) = read_path(str(p)).deployments
    assert (d.engine, d.model, d.model_resolved, d.get("port")) == ("vllm", "NeuML/pubmedbert-base-embeddings", True, 8081)
    assert _at(d.model_span) == (21, 83)  # the argv word `model`


def test_a_builder_called_through_a_starter_is_one_launch_per_outer_call(tmp_path):
    """Sample K79's start_vllm.py: `_build_args(model_name)` returns the argv, `_start_server(model_name=...)` passes
    its own parameter on, and two subcommands call the starter with their models: one launch per model, each
    placed at its outermost caller's value."""
    path = tmp_path / "start.py"
    path.write_text(
        "import subprocess, sys\n\n\ndef _build_args(model_name, port):\n"
        "    return [sys.executable, '-m', 'vllm.entrypoints.openai.api_server', '--model', model_name,\n"
        "            '--port', str(port)]\n\n\ndef _start_server(*, model_name, port):\n"
        "    cmd = _build_args(model_name=model_name, port=port)\n    return subprocess.Popen(cmd)\n\n\n"
        "def start_small():\n    _start_server(model_name='org/small', port=8001)\n\n\n"
        "def start_large():\n    _start_server(model_name='org/large', port=8002)\n")
    got = sorted((d.model, d.model_span.line, d.get("port")) for d in read_path(str(path)).deployments)
    assert got == [("org/large", 19, 8002), ("org/small", 15, 8001)]


def test_a_starter_whose_callers_resolve_nothing_keeps_its_own_launch(tmp_path):
    """Sample K68's benchmark: `launch_server(model_path)` reached from two functions that pass `model_path` on from
    the program's `args.model_path` (no default): following them resolves nothing, so the starter's one launch
    stays (not one per route to it)."""
    path = tmp_path / "bench.py"
    path.write_text(
        "import subprocess\n\n\ndef launch_server(model_path, port):\n"
        "    return subprocess.Popen(['python', '-m', 'sglang.launch_server', '--model-path', model_path,\n"
        "                             '--port', str(port)])\n\n\ndef ramp(model_path):\n"
        "    launch_server(model_path, 30000)\n\n\ndef run(model_path):\n    ramp(model_path)\n"
        "    launch_server(model_path, 30000)\n\n\ndef main(args):\n    run(args.model_path)\n")
    deps = read_path(str(path)).deployments
    assert [(d.engine, d.model) for d in deps] == [("sglang", "${model_path}")]


def test_a_python_program_kept_in_a_string_is_read_as_a_program(tmp_path):
    """Sample K97 (measured: missed, a KV008 at the image name): a deploy tool that writes an agent program to the
    instance it starts (`AGENT_PY = '''...'''`) starts the engine from that program's argv list; it is read as the
    file's own lists are, at its lines. A string of prose that mentions vLLM, or one that does not parse, is not."""
    p = tmp_path / "deploy.py"
    p.write_text("import os\n\nIMAGE = 'vllm/vllm-openai:v0.11.1'\n"
                 "AGENT_PY = '''\\\nimport subprocess\n\n\ndef swap(model):\n"
                 "    cmd = ['docker', 'run', '-d', '--gpus', 'all', 'vllm/vllm-openai:v0.11.1',\n"
                 "           '--model', 'Qwen/Qwen3-8B', '--max-model-len', '8192']\n"
                 "    subprocess.run(cmd)\n'''\n"
                 "NOTE = '''vLLM is started\nby the agent\nwhen asked'''\n")
    (dep,) = read_path(str(p)).deployments
    assert (dep.model, _at(dep.model_span), dep.get("max_model_len"), dep.engine_version) == \
        ("Qwen/Qwen3-8B", (10, 24), 8192, "0.11.1")


def test_a_flag_list_a_helper_extends_its_command_with_takes_the_caller_s_values(tmp_path):
    """Sample K198's launcher: `run_cli(model_name, tp)` picks the entry point in a loop, then `cmd.extend(["--model",
    model_name, "--tensor-parallel-size", str(tp)])`, and `main()` calls it with `args.model`, whose argparse default
    is a module constant: the flag list is read with the caller's values, each resolved through the default."""
    path = tmp_path / "server.py"
    path.write_text(
        "import argparse, subprocess\n\nDEFAULT_MODEL = 'org/defaulted'\n\n\n"
        "def run_cli(model_name, tp):\n    cmd = None\n"
        "    for p in [['python3', '-m', 'vllm.entrypoints.openai.api_server'], ['vllm', 'serve']]:\n"
        "        cmd = p\n        break\n"
        "    cmd.extend(['--model', model_name, '--tensor-parallel-size', str(tp)])\n"
        "    subprocess.run(cmd)\n\n\n"
        "def main():\n    parser = argparse.ArgumentParser()\n"
        "    parser.add_argument('--model', default=DEFAULT_MODEL)\n"
        "    parser.add_argument('--tp', type=int, default=2)\n    args = parser.parse_args()\n"
        "    run_cli(args.model, args.tp)\n")
    (dep,) = read_path(str(path)).deployments
    assert (dep.model, _at(dep.model_span), dep.get("tensor_parallel_size")) == ("org/defaulted", (20, 13), 2)


def test_a_parameter_defaulting_to_a_module_constant_is_that_constants_value():
    """`def serve(model=DEFAULT_MODEL)`: Python evaluates the default from the module when the function is defined,
    so a launch built from the parameter has the constant's model (was `${model}`, unresolved); a default naming
    no known value stays unresolved."""
    text = ('import subprocess\nDEFAULT_MODEL = "org/m"\n\n\ndef serve(model=DEFAULT_MODEL, tp=2):\n'
            '    subprocess.run(["vllm", "serve", model, "--tensor-parallel-size", str(tp)])\n')
    (dep,) = read_path("serve.py", text).deployments
    assert (dep.model, dep.get("tensor_parallel_size"), _at(dep.model_span)) == ("org/m", 2, (6, 38))
    (dep,) = read_path("serve.py", text.replace("model=DEFAULT_MODEL", "model=pick()")).deployments
    assert dep.model == "${model}"


def test_a_programs_master_and_worker_argv_are_one_deployment():
    """Sample K217's multi-node verifier (two launches counted): `run_master()` and `run_worker()` each build the
    same `sglang.launch_server` argv but for `--node-rank` (0 and 1): one deployment, as a script's rank branches
    are; two commands with different models stay two."""
    body = ('import subprocess, sys\nMODEL = "/models/m"\n\n\ndef run_{role}():\n'
            '    cmd = [sys.executable, "-m", "sglang.launch_server", "--model-path", {model}, "--tp", "8",\n'
            '           "--nnodes", "2", "--node-rank", "{rank}", "--dist-init-addr", "10.0.0.1:5000"]\n'
            '    subprocess.run(cmd)\n')
    text = body.format(role="master", rank=0, model="MODEL") + "\n\n" + body.format(role="worker", rank=1, model="MODEL")
    (dep,) = read_path("multinode.py", text).deployments
    assert (dep.model, dep.launch_span.line, dep.get("node_rank")) == ("/models/m", 6, 0)
    other = text.replace('"--model-path", MODEL, "--tp", "8",\n           "--nnodes", "2", "--node-rank", "1"',
                         '"--model-path", "/models/n", "--tp", "8",\n           "--nnodes", "2", "--node-rank", "1"')
    assert len(read_path("multinode.py", other).deployments) == 2


def test_a_program_joined_from_a_run_time_folder_and_its_name_is_that_program():
    """Sample K220's supervisor (silent): `[str(python.parent / "vllm"), "serve", MODEL, ...]`, the engine's CLI in
    the virtual environment's folder, is vLLM's CLI; `os.path.join(BIN, "vllm")` too. Another program so joined
    (`.../"python"` running a script) is no engine."""
    text = ('import os, subprocess\nMODEL = "org/m"\n\n\ndef command(python):\n'
            '    return [str(python.parent / "vllm"), "serve", MODEL, "--max-model-len", "8192"]\n')
    (dep,) = read_path("setup.py", text).deployments
    assert (dep.model, dep.get("max_model_len"), _at(dep.launch_span)) == ("org/m", 8192, (6, 13))
    joined = text.replace('str(python.parent / "vllm")', 'os.path.join(os.environ["BIN"], "vllm")')
    assert [d.model for d in read_path("setup.py", joined).deployments] == ["org/m"]
    other = text.replace('"vllm"), "serve", MODEL', '"python"), "train.py", MODEL')
    assert read_path("setup.py", other).deployments == []


def test_an_engine_module_run_by_runpy_with_sys_argv_set_is_its_launch():
    """Sample K217's notes (a miss): `sys.argv = ["python -m trl.scripts.vllm_serve", "--model", M, ...]` then
    `runpy.run_module("trl.scripts.vllm_serve", run_name="__main__")` is `python -m trl.scripts.vllm_serve` with
    those words; a module that starts no engine is none."""
    text = ('import sys, runpy\nsys.argv = [\n    "prog",\n    "--model", "org/m",\n    "--data-parallel-size", "2",\n]\n'
            'runpy.run_module("trl.scripts.vllm_serve", run_name="__main__")\n')
    (dep,) = read_path("serve.py", text).deployments
    assert (dep.model, dep.get("data_parallel_size"), dep.model_span.line) == ("org/m", 2, 4)
    assert read_path("serve.py", text.replace("trl.scripts.vllm_serve", "mytool.cli")).deployments == []


def test_a_python_heredoc_in_notes_is_read_as_the_program_it_feeds():
    """The same notes file: `python - <<'PY'` ... `PY` after a command line; the body is the Python program, read
    as a script's here-document is, and its lines are no command lines of the notes."""
    text = ('python -m trl.scripts.vllm_serve --model org/a --tensor-parallel-size 1\n\npython - <<\'PY\'\n'
            'import sys, runpy\nsys.argv = ["prog", "--model", "org/b"]\n'
            'runpy.run_module("trl.scripts.vllm_serve", run_name="__main__")\nPY\n')
    got = [(d.model, d.model_span.line) for d in read_path("install command", text).deployments]
    assert got == [("org/a", 1), ("org/b", 5)]


def test_a_frameworks_model_configuration_with_engine_kwargs_is_a_launch():
    """Sample K227's NeMo Curator (silent): `DynamoVLLMModelConfig(model_identifier=M, engine_kwargs={"dtype":
    "bfloat16", ...})` handed to the framework's InferenceServer starts vLLM on M with those arguments, in a file that
    names the engine only in upper case; a function handed `engine_kwargs` on is no configuration."""
    text = ('from nemo_curator.core.serve import DynamoVLLMModelConfig, InferenceServer\n\n'
            'cfg = DynamoVLLMModelConfig(\n    model_identifier="org/m",\n'
            '    engine_kwargs={"dtype": "bfloat16", "tensor_parallel_size": 2},\n)\n'
            'InferenceServer(models=[cfg]).start()\n')
    (dep,) = read_path("serve.py", text).deployments
    assert (dep.engine, dep.model, dep.get("tensor_parallel_size"), dep.model_span.line) == ("vllm", "org/m", 2, 4)
    handed = 'run_benchmark(model_id="org/m", engine_kwargs={"dtype": "bfloat16"})\n'
    assert read_path("bench.py", "import x\n" + handed).deployments == []


def test_a_helper_that_prepends_the_entry_point_to_its_star_args_is_called_with_the_flags():
    """Sample K257's RunPod worker (measured: said, not read): `def python_argv(*args): return (sys.executable, "-m",
    "vllm.entrypoints.openai.api_server", *args)`, called `python_argv("--model", config.model_id, "--max-model-len",
    "8192")`: the call's words are the engine's flags, each at its place in the call."""
    from kvlint.launches import read_path

    text = ('import sys, subprocess\n\ndef python_argv(*args):\n'
            '    return (sys.executable, "-m", "vllm.entrypoints.openai.api_server", *args)\n\n'
            'def build(model):\n    argv = python_argv(\n        "--model",\n        "org/m",\n'
            '        "--max-model-len", "8192",\n    )\n    return subprocess.Popen(argv)\n')
    (d,) = read_path("server.py", text).deployments
    assert (d.model, d.model_span.line, d.get("max_model_len")) == ("org/m", 9, 8192)
