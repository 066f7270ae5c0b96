"""A Python list of the engine's own arguments, without the command, in a file that names the engine:
`default_args = ["--model", ...]` handed to `make_arg_parser(...).parse_args` and `sys.argv = [...]` before the
engine's main. Fixture tests/fixtures/launches/python/default_args.py."""

from __future__ import annotations

from pathlib import Path

from kvlint.launches import read_path

FIX = Path(__file__).resolve().parent.parent / "fixtures" / "launches" / "python"


def _at(span):
    return (span.line, span.col)


def test_default_args_and_sys_argv_are_launches():
    listed, argv = read_path(str(FIX / "default_args.py")).deployments
    assert (listed.engine, listed.model, _at(listed.model_span)) == ("vllm", "org/default-args", (7, 29))
    assert listed.get("max_model_len") == 2048 and _at(listed.settings["max_model_len"].span) == (7, 68)
    assert listed.get("gpu_memory_utilization") == 0.9 and _at(listed.settings["gpu_memory_utilization"].span) == (8, 46)
    assert (argv.engine, argv.model, _at(argv.model_span)) == ("vllm", "org/sys-argv", (17, 46))
    assert argv.get("tensor_parallel_size") == 2 and _at(argv.settings["tensor_parallel_size"].span) == (17, 88)


def test_a_flag_list_needs_the_engine_named_a_model_and_an_engine_flag():
    assert read_path("a.py", 'ARGS = ["--model", "org/m", "--max-model-len", "2048"]\n').deployments == []
    assert read_path("b.py", 'import vllm\nARGS = ["--model", "org/m"]\n').deployments == []
    assert read_path("c.py", 'import vllm\nARGS = ["--model", "org/m", "--lr", "1e-4"]\n').deployments == []
    (d,) = read_path("d.py", 'import sglang\nARGS = ["--model-path", "org/m", "--tp-size", "2"]\n').deployments
    assert (d.engine, d.model, d.get("tp_size")) == ("sglang", "org/m", 2)
    (v,) = read_path("e.py", 'import vllm\nARGS = ["serve", "org/v", "--max-model-len", "4096"]\n').deployments
    assert (v.engine, v.model, v.get("max_model_len")) == ("vllm", "org/v", 4096)
    (g,) = read_path("f.py", 'import sglang\nARGS = ["serve", "org/g", "--tp-size", "2"]\n').deployments
    assert (g.engine, g.model, g.get("tp_size"), _at(g.model_span)) == ("sglang", "org/g", 2, (2, 19))


def test_a_long_flag_list_is_read_in_one_pass_over_its_line(tmp_path, monkeypatch):
    """Each value's place was found with ast.get_source_segment, which splits the whole file per call: a
    20,000-item list on one line took minutes. Bounded on CPU time, generously, by this test itself (about 1.2 s on
    a quiet 2-core machine): the per-file budget (1 s by default) is lifted so a slow CI box measures the reading,
    not the budget's cut-off."""
    import time

    monkeypatch.setenv("KVLINT_FILE_SECONDS", "10")

    items = ", ".join(f'"--max-model-len", "{4096 + i}"' for i in range(10000))
    path = tmp_path / "serve.py"
    path.write_text(f'import vllm\nargs = ["--model", "Qwen/Qwen2.5-7B-Instruct", {items}]\n')
    started = time.process_time()
    [dep] = read_path(str(path)).deployments
    assert time.process_time() - started < 10
    assert dep.model == "Qwen/Qwen2.5-7B-Instruct" and dep.settings["max_model_len"].value == 4096 + 9999


def test_a_python_file_too_large_to_parse_is_a_note(tmp_path):
    path = tmp_path / "gen.py"
    path.write_text("import vllm\nX = [" + "1, " * 300000 + "]\n")
    result = read_path(str(path))
    assert result.deployments == [] and [(f.code, str(f.severity)) for f in result.findings] == [("KV001", "info")]


def test_sys_executable_starts_the_engine_beside_the_program():
    """`[sys.executable, "-m", "sglang.launch_server", ...]`: the running Python is the first word; the values the
    program fills in are unresolved expressions at their place (the launch is found, not passed over)."""
    (d,) = read_path(str(FIX / "beside_itself.py")).deployments
    assert (d.engine, d.model, _at(d.model_span)) == ("sglang", "${settings.model_path}", (12, 9))
    assert d.get("context_length") == 8192 and _at(d.settings["context_length"].span) == (16, 10)
    assert "tp_size" in d.settings and _at(d.settings["tp_size"].span) == (14, 9)
    assert read_path("x.py", "import sys\ncmd = [sys.executable, '-m', 'pip', 'install', 'vllm']\n").deployments == []
