"""Each reader on a small fixture we wrote (tests/fixtures/launches): values, spans, GPUs, notes."""

from __future__ import annotations

from pathlib import Path

from kvlint.launches import iter_files, read_path
from kvlint.launches.build import version_from_image

FIX = Path(__file__).resolve().parent.parent / "fixtures" / "launches"


def _one(name: str):
    result = read_path(str(FIX / name))
    assert len(result.deployments) == 1, result
    return result.deployments[0]


def _at(setting):
    return (setting.span.line, setting.span.col)


def test_k8s_sh_c_script_with_container_env_and_defaults():
    d = _one("k8s-shell.yaml")
    assert (d.engine, d.engine_version, d.model, d.model_span.line) == ("vllm", "0.8.5", "example-org/demo-8b", 19)
    assert d.get("tensor_parallel_size") == 2 and _at(d.settings["tensor_parallel_size"]) == (20, 36)
    # ${LEN:-8192} is overridden by the later --max-model-len from $EXTRA_ARGS (last wins)
    assert d.get("max_model_len") == 4096 and d.get("max_num_seqs") == 64
    util = d.settings["gpu_memory_utilization"]
    assert util.resolved is False and util.value == "$UTIL"
    assert (d.gpu, d.gpu_count, d.gpu_span.line) == ("nvidia-l4", 2, 11)
    assert d.ignore_codes == ("KV103", "KV105")


def test_compose_entrypoint_plus_folded_command():
    d = _one("compose.yaml")
    assert (d.engine, d.engine_version, d.model) == ("sglang", "0.4.6.post1", "example-org/demo-1b")
    assert d.get("context_length") == 8192 and _at(d.settings["context_length"]) == (7, 24)
    assert d.get("tp_size") == 1 and d.gpu_count == 2


def test_dockerfile_shell_form_with_arg_and_env():
    d = _one("Dockerfile")
    assert (d.engine, d.engine_version, d.model) == ("vllm", "0.9.1", "example-org/demo-7b")
    assert d.get("max_model_len") == 16384 and d.settings["max_model_len"].span.line == 5


def test_skypilot_resolves_gpu_variables_and_multiplies_nodes():
    d = _one("sky.yaml")
    assert (d.engine, d.engine_version, d.model) == ("vllm", "0.10.0", "example-org/demo-70b")
    assert d.get("tensor_parallel_size") == 8
    assert (d.gpu, d.gpu_count) == ("A100-80GB", 8)
    assert any("alternatives" in n for n in d.notes)


def test_script_with_several_launches_docker_run_and_eval():
    deps = read_path(str(FIX / "two-launches.slurm")).deployments
    assert [(d.engine, d.model) for d in deps] == [
        ("vllm", "example-org/demo-8b"), ("vllm", "example-org/demo-8b"), ("vllm", "example-org/demo-3b"), ("sglang", "example-org/s")]
    first, second, docker, evaled = deps
    assert first.get("max_model_len") == 100 and first.gpu_count == 1 and first.gpu == "a100"
    assert "max_model_len" not in second.settings and "gpu_memory_utilization" not in second.settings
    assert any("commented-out" in n for n in second.notes)
    assert docker.engine_version == "0.8.5" and docker.gpu_count == 2 and docker.get("tensor_parallel_size") == 2
    assert evaled.get("tp_size") == 4 and evaled.settings["tp_size"].span.line == 9
    # four launches share #SBATCH --gres=gpu:a100:2: the last states no devices of its own
    assert evaled.gpu_count is None and evaled.gpu == "a100" and any("share this job's 2 GPU(s)" in n for n in evaled.notes)


def test_production_stack_extra_args_win_over_camel_keys():
    d = _one("stack-values.yaml")
    assert (d.model, d.engine_version, d.gpu_count) == ("example-org/demo-8b", "0.8.5", 1)
    util = d.settings["gpu_memory_utilization"]
    assert util.value == 0.4 and util.span.line == 13 and util.origin == "chart"
    assert d.get("max_model_len") == 4096 and d.get("enable_chunked_prefill") is False
    assert not d.unknown_flags  # `v0` is a chart key, not an engine flag


def test_vllm_config_file_keys_are_flags():
    d = _one("engine.vllm.yaml")
    assert (d.model, d.get("max_model_len"), d.get("tensor_parallel_size"), d.get("enforce_eager")) == ("example-org/demo-8b", 16384, 2, True)
    assert d.settings["max_model_len"].origin == "config-file"


def test_folder_walk_finds_fixture_kinds():
    walked = [Path(p) for p, r in iter_files([str(FIX)]) if r is None]
    found = sorted(p.name for p in walked if p.parent == FIX)  # the folders below hold each reader's own fixtures
    assert any(p.parent != FIX for p in walked) and not any(p.name == "serve.env" for p in walked)
    assert found == sorted(["Dockerfile", "compose.yaml", "engine.vllm.yaml", "k8s-shell.yaml", "sky.yaml", "stack-values.yaml",
                            "two-launches.slurm", "serve-with-config.sh"])


def test_config_file_settings_merge_below_the_command_line():
    d = _one("serve-with-config.sh")
    assert d.model == "example-org/demo-8b" and d.model_span.path.endswith("engine.vllm.yaml")
    assert d.get("tensor_parallel_size") == 4 and d.settings["tensor_parallel_size"].span.line == 3
    assert d.get("max_model_len") == 16384 and d.settings["max_model_len"].origin == "config-file"


def test_missing_config_file_is_a_note_not_a_guess(tmp_path):
    (tmp_path / "run.sh").write_text("vllm serve org/m --config absent.yaml\n")
    (d,) = read_path(str(tmp_path / "run.sh")).deployments
    assert "max_model_len" not in d.settings and any("absent.yaml" in n for n in d.notes)


def test_dockerfile_exec_form():
    result = read_path("Dockerfile", 'FROM lmsysorg/sglang:v0.5.0\nCMD ["python3", "-m", "sglang.launch_server", "--model-path", "org/m", "--context-length", "4096"]\n')
    (d,) = result.deployments
    assert (d.engine, d.engine_version, d.model, d.get("context_length")) == ("sglang", "0.5.0", "org/m", 4096)
    span = d.settings["context_length"].span
    assert (span.line, span.col) == (2, 93)  # the 4096 inside the JSON array


def test_version_from_image_only_for_engine_images():
    assert version_from_image("vllm/vllm-openai:v0.8.5") == "0.8.5"
    assert version_from_image("lmsysorg/sglang:v0.4.6.post1-cu124") == "0.4.6.post1"
    assert version_from_image("vllm/vllm-openai:latest") is None
    assert version_from_image("nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.2.0") is None
    assert version_from_image("localhost:5000/vllm-openai") is None


def test_a_script_in_a_legacy_code_page_is_read_not_refused(tmp_path):
    # sample K52's start_vllm.bat: REM comments in GBK (cmd.exe reads the console's code page); a shell script
    # with a Latin-1 comment: valid for the programs that run them, so read (KV001 stays for YAML, which must be
    # UTF-8: tests/launches/bad_cases.py)
    bat = tmp_path / "start.bat"
    bat.write_bytes("@echo off\r\nREM 一键启动 vLLM\r\nwsl -e vllm serve org/gbk-model --max-model-len 4096\r\n"
                    .encode("gbk"))
    sh = tmp_path / "serve.sh"
    sh.write_bytes(b"#!/bin/sh\n# caf\xe9\nvllm serve org/latin-model --port 8001\n")
    for path, model, line in ((bat, "org/gbk-model", 3), (sh, "org/latin-model", 3)):
        result = read_path(str(path))
        assert not [f for f in result.findings if f.code == "KV001"], result.findings
        (d,) = result.deployments
        assert (d.model, d.model_span.line) == (model, line)
    yaml = tmp_path / "k.yaml"
    yaml.write_bytes(b"# caf\xe9\nargs: [--model, m]\n")
    assert [f.code for f in read_path(str(yaml)).findings] == ["KV001"]


def test_json_with_comments_and_trailing_commas_is_read_as_its_tools_read_it(tmp_path):
    """Sample K182's `.vscode/launch.json` (a wrong KV001 error, its launch passed over): VS Code's JSON takes `//`
    and `/* */` comments and trailing commas; blanked, every other character keeps its place, and a `//` inside a
    string (a URL) stays. The debugger's `module` + `args` is the launch, each value at its place."""
    from kvlint.launches.read import jsonc_blanked

    text = ('{\n  "configurations": [\n    {\n      "module": "vllm.entrypoints.openai.api_server",\n'
            '      "args": ["--model", "org/dbg", "--max-model-len", "4096", "--tensor-parallel-size", "2",],\n'
            '      "env": {\n        // GPUs\n        "URL": "http://h//x", /* two */\n      },\n    },\n  ],\n}\n')
    assert len(jsonc_blanked(text)) == len(text) and '"http://h//x"' in jsonc_blanked(text)
    p = tmp_path / "launch.json"
    p.write_text(text)
    result = read_path(str(p))
    assert [f.code for f in result.findings if f.code == "KV001"] == []
    (d,) = result.deployments
    assert (d.model, d.model_span.line, d.model_span.col, d.get("max_model_len")) == ("org/dbg", 5, 27, 4096)
