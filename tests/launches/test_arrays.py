"""Bash arrays as a command's words: `args=( ... )`, `args+=( ... )` (an addition under a condition is left out
and noted), `"${args[@]}"` and `${a[@]+"${a[@]}"}` expanding to the array's words where they were written, and a
custom image named for the engine run with them. Fixtures in tests/fixtures/launches/arrays."""

from __future__ import annotations

from pathlib import Path

from kvlint.launches import read_path
from kvlint.sources.shell import tokenize
from kvlint.sources.text import Mapped

FIX = Path(__file__).resolve().parent.parent / "fixtures" / "launches" / "arrays"


def _at(span):
    return (span.line, span.col)


def test_an_array_literal_is_one_assignment_word_with_its_elements():
    commands, errors = tokenize(Mapped("x", "a=( one # c\n  two\n)\nb+=(x)\necho (y)\n"))
    assert errors == []
    first, second = commands[0].words[0], commands[1].words[0]
    assert first.literal == "a=" and [e.literal for e in first.elements] == ["one", "two"]
    assert second.literal == "b+=" and [e.literal for e in second.elements] == ["x"]
    assert all(w.elements is None for c in commands[2:] for w in c.words)  # `echo (y)` is no array


def test_docker_run_of_arrays_into_an_image_named_for_the_engine():
    (d,) = read_path(str(FIX / "spark.sh")).deployments
    assert (d.engine, d.model, _at(d.model_span)) == ("vllm", "org/array-model", (6, 3))
    assert d.get("max_model_len") == 262144 and _at(d.settings["max_model_len"].span) == (7, 19)
    assert d.get("kv_cache_dtype") == "fp8" and _at(d.settings["kv_cache_dtype"].span) == (8, 20)
    assert d.get("tensor_parallel_size") == 2 and _at(d.settings["tensor_parallel_size"].span) == (10, 36)
    assert "enforce_eager" not in d.settings
    assert any("line 12: `--enforce-eager`" in n and "only when a condition holds" in n for n in d.notes)
    assert any("assumed from the image name vllm-spark:latest" in n for n in d.notes)


def test_declared_array_conditional_and_unconditional_additions():
    (d,) = read_path(str(FIX / "serve.sh")).deployments
    assert (d.model, _at(d.model_span)) == ("org/serve-array", (2, 26))
    assert d.get("gpu_memory_utilization") == 0.85 and _at(d.settings["gpu_memory_utilization"].span) == (2, 67)
    assert d.get("max_model_len") == 8192 and _at(d.settings["max_model_len"].span) == (4, 24)
    assert any("`--max-model-len 131072`" in n for n in d.notes)


def test_an_unknown_array_expands_as_before_and_an_unset_optional_one_to_nothing(tmp_path):
    p = tmp_path / "inline.sh"
    p.write_text('vllm serve org/m ${extra[@]+"${extra[@]}"} --max-model-len 4096\n')
    (d,) = read_path(str(p)).deployments
    assert d.model == "org/m" and d.get("max_model_len") == 4096 and d.unknown_flags == ()


def test_commands_run_in_a_running_container_or_pod():
    deps = read_path(str(FIX / "exec.sh")).deployments
    got = [(d.engine, d.model, _at(d.model_span)) for d in deps]
    assert got == [("vllm", "org/docker-exec", (2, 51)), ("sglang", "org/podman-exec", (3, 62)),
                   ("vllm", "org/kubectl-exec", (4, 60))]
    assert _at(deps[0].settings["max_model_len"].span) == (2, 83)
    assert deps[1].get("tp_size") == 2 and _at(deps[1].settings["tp_size"].span) == (3, 83)
    assert deps[2].get("tensor_parallel_size") == 4 and _at(deps[2].settings["tensor_parallel_size"].span) == (4, 100)


def test_powershell_param_and_array_splat():
    (d,) = read_path(str(FIX / "start.ps1")).deployments
    assert (d.engine, d.model, _at(d.model_span)) == ("vllm", "$Model", (7, 12))  # a parameter with no default
    assert any("$Model" in n and "not resolved" in n for n in d.notes)
    assert d.get("tensor_parallel_size") == 2 and _at(d.settings["tensor_parallel_size"].span) == (5, 41)
    assert d.get("max_model_len") == 4096 and _at(d.settings["max_model_len"].span) == (6, 35)
    assert d.unknown_flags == ()


def test_docker_run_of_a_custom_image_holding_the_engine_name(tmp_path):
    p = tmp_path / "run.sh"
    p.write_text("docker run --gpus all org/spark-vllm-build:1 org/custom --max-model-len 4096\n"
                 "docker run org/spark-vllm-build:1 bash -c 'echo hi'\n")
    (d,) = read_path(str(p)).deployments
    assert (d.engine, d.model, _at(d.model_span), d.get("max_model_len")) == ("vllm", "org/custom", (1, 46), 4096)


WHOLE_COMMAND = """#!/usr/bin/env bash
MODEL="${VLLM_MODEL:-org/array-held}"
TP="${VLLM_TP:-8}"
server_cmd=(
  vllm serve "${MODEL}"
  --tensor-parallel-size "${TP}"
  --max-model-len 32768
)
if [[ "${TOOLS}" == "1" ]]; then
  server_cmd+=(--enable-auto-tool-choice)
fi
{
  printf 'docker run --rm vllm/vllm-openai:latest'
  printf ' %q' "${server_cmd[@]}"
} > "${cmd_file}"
nohup "${cmd_file}" > log 2>&1 &
"""


def test_an_array_holding_the_whole_engine_command_is_a_launch_however_it_is_run():
    """The array is only expanded into a generated script (`printf %q`): its words are still the launch."""
    (d,) = read_path("serve.sh", WHOLE_COMMAND).deployments
    assert (d.engine, d.model, _at(d.model_span)) == ("vllm", "org/array-held", (5, 14))
    assert d.get("tensor_parallel_size") == 8 and _at(d.settings["tensor_parallel_size"].span) == (6, 26)
    assert d.get("max_model_len") == 32768 and _at(d.settings["max_model_len"].span) == (7, 19)
    assert "enable_auto_tool_choice" not in d.settings
    assert any("server_cmd" in n for n in d.notes)


def test_an_array_run_by_a_command_is_one_launch_and_an_args_only_array_none():
    ran = WHOLE_COMMAND.replace("printf ' %q' \"${server_cmd[@]}\"", '"${server_cmd[@]}"')
    assert len(read_path("serve.sh", ran).deployments) == 1
    args_only = "args=(--model org/m --max-model-len 4096)\necho \"${args[@]}\"\n"
    assert read_path("serve.sh", args_only).deployments == []


def test_a_docker_run_array_is_one_launch_and_its_docker_options_stay_dockers():
    """Sample G: `--stop-timeout 60` was not known to take a value, so `60` became the image and every docker option
    after it a vLLM flag (seven KV004 on docker's options); the array was also counted again beside the command that
    ran it."""
    (d,) = read_path(str(FIX / "docker-array.sh")).deployments
    assert (d.engine, d.model, _at(d.model_span)) == ("vllm", "Qwen/Qwen2.5-0.5B-Instruct", (17, 9))
    assert d.unknown_flags == () and d.get("gpu_memory_utilization") == 0.15
    assert _at(d.settings["gpu_memory_utilization"].span) == (18, 28)


def test_every_docker_run_value_option_takes_its_value():
    from kvlint.launches.docker_run import VALUE_OPTS

    for option in ("--stop-timeout", "--health-interval", "--pids-limit", "--sysctl", "--cpuset-mems", "--ip"):
        assert option in VALUE_OPTS, option


def test_one_array_run_from_two_arms_is_one_launch(tmp_path):
    """Sample K23's judge-server script (measured: two launches at one line): `VLLM_CMD=(vllm serve "$M" ...)` run
    as `nohup "${VLLM_CMD[@]}" &` in a detached arm and `"${VLLM_CMD[@]}" &` in the other is one command written
    once: one launch. The same function called with other arguments stays two."""
    from kvlint.launches import read_path

    p = tmp_path / "start.sh"
    p.write_text('M=org/m\nCMD=(\n    vllm serve "$M"\n    --port 8000\n)\nif $DETACH; then\n'
                 '    nohup "${CMD[@]}" > log 2>&1 &\nelse\n    "${CMD[@]}" &\nfi\n')
    assert [d.model_span.line for d in read_path(str(p)).deployments] == [3]
    q = tmp_path / "two.sh"
    q.write_text('start() {\n    vllm serve "$1" --port "$2"\n}\nstart org/a 8000\nstart org/b 8001\n')
    assert [d.model for d in read_path(str(q)).deployments] == ["org/a", "org/b"]


def test_one_array_run_with_the_callers_arguments_from_two_arms_is_one_launch():
    """Sample K250's image entry point (measured: two launches at one line): `exec "${args[@]}" "$@"` in one arm and
    `exec python3 on-demand-server --listen-port P -- "${args[@]}" "$@"` in the other: the script's own arguments are
    the same words wherever each arm writes them, so the command is one launch."""
    from kvlint.launches import read_path

    text = ('args=(\n  vllm serve "${MODEL_ID:-org/m}"\n  --max-model-len 4096\n)\nif [ "$ON_DEMAND" = 1 ]; then\n'
            '  exec python3 /usr/local/bin/vllm-on-demand-server --listen-port 8000 -- "${args[@]}" "$@"\nelse\n'
            '  exec "${args[@]}" "$@"\nfi\n')
    assert [(d.model, d.model_span.line) for d in read_path("entrypoint.sh", text).deployments] == [("org/m", 2)]


def test_a_bare_engine_command_a_script_runs_is_a_launch_of_the_engines_default(tmp_path):
    """Sample K38's launch script (measured: KV008, no launch): `CMD=(vllm serve)` replaces the array that held the
    model, then `CUDA_VISIBLE_DEVICES=$D "${CMD[@]}" &` runs it: a script's statement is the whole command, so the
    engine starts on its own default model; one launch, at the array's words, said so. An image's entry point
    (`ENTRYPOINT ["vllm", "serve"]`) and a wrapper passing `"$@"` through are still no launch."""
    p = tmp_path / "launch.sh"
    p.write_text('#!/bin/bash\nCMD=(vllm serve "$M" --dtype bf16)\nCMD=(vllm serve)\n'
                 'CUDA_VISIBLE_DEVICES=$D "${CMD[@]}" &\nwait\n')
    (d,) = read_path(str(p)).deployments
    assert (d.engine, d.model, _at(d.launch_span)) == ("vllm", None, (3, 6))
    assert any("serves the engine's own default model" in n for n in d.notes)
    q = tmp_path / "plain.sh"
    q.write_text("#!/bin/sh\nexec vllm serve\n")
    assert [(d.model, d.launch_span.line) for d in read_path(str(q)).deployments] == [(None, 2)]
    through = tmp_path / "entry.sh"
    through.write_text('#!/bin/sh\nexec vllm serve "$@"\n')
    assert read_path(str(through)).deployments == []
    image = tmp_path / "Dockerfile"
    image.write_text('FROM vllm/vllm-openai:v0.11.0\nENTRYPOINT ["vllm", "serve"]\n')
    assert read_path(str(image)).deployments == []


def test_powershell_blocks_additions_fallbacks_and_a_captured_docker_run(tmp_path):
    """Sample K39's PowerShell start script (measured: KV008, no launch): `$image = if ($env:IMG) { $env:IMG } else
    { 'vllm/...' }`, an `if (...) { ... }` block before the command (read as the shell's `if`, not left open),
    `$args += @(...)` adding to the array, `($env:LEN ?? '4096')` items, and `$null = docker @args`."""
    p = tmp_path / "start.ps1"
    p.write_text("$image = if ($env:IMG) { $env:IMG } else { 'vllm/vllm-openai:v0.11.0' }\n"
                 "if ($running) {\n    Write-Host 'already running'\n    exit 0\n}\n"
                 "if ($LASTEXITCODE -ne 0) { exit $LASTEXITCODE }\n"
                 "$args = @(\n    'run','-d',\n    '--gpus','all'\n)\n"
                 "$args += @(\n    $image,\n    '--model', 'org/ps-model',\n"
                 "    '--max-model-len', ($env:VLLM_MAX_MODEL_LEN ?? '4096')\n)\n"
                 "$null = docker @args\n")
    (d,) = read_path(str(p)).deployments
    assert (d.engine, d.engine_version, d.model, _at(d.model_span)) == ("vllm", "0.11.0", "org/ps-model", (13, 17))
    assert d.get("max_model_len") == 4096 and d.settings["max_model_len"].span.line == 14


def test_powershell_computed_assignments_are_open_and_casts_are_their_variables(tmp_path):
    """Sample K46's AEN5 launcher (measured: three KV007 errors on `--port [string]if`, the model read as
    `Resolve-ModelDir`): `$X = Resolve-ModelDir -Path $d` and `$X = if (...) {...} else {...}` are computed when the
    script runs (open values, never the command's first word); `[string]$Port` is `$Port`; a quoted string, a
    number and another known variable stay literal."""
    p = tmp_path / "run.ps1"
    p.write_text("$Model = 'org/ps-model'\n$Len = 8192\n$Util = $Len\n"
                 "$Dir = Resolve-ModelDir -ExplicitPath $ModelDir\n"
                 "$Port = if ($Uri.Port -gt 0) { [int]$Uri.Port } else { 8000 }\n"
                 "$ArgumentList = @(\n  '-m', 'vllm.entrypoints.openai.api_server',\n  '--model', $Model,\n"
                 "  '--port', [string]$Port,\n  '--max-model-len', [string]$Len,\n  '--download-dir', $Dir\n)\n"
                 "Start-Process -FilePath python -ArgumentList $ArgumentList\n")
    (d,) = read_path(str(p)).deployments
    assert (d.model, d.get("max_model_len"), d.settings["port"].resolved) == ("org/ps-model", 8192, False)
    assert d.invalid_values == () and not d.settings["download_dir"].resolved


def test_powershell_start_process_of_wsl_kept_as_a_variable(tmp_path):
    """Sample K46's AEN5 WSL branch: `$wsl = Get-Command wsl.exe`, an argument list built with `+=` that starts with
    wsl's own `-d DISTRO --exec python -m vllm...`, and `$proc = Start-Process -FilePath $wsl.Source -ArgumentList
    $ArgumentList -WorkingDirectory $d -RedirectStandardOutput $o -PassThru`: wsl runs the command after `--exec`,
    and the cmdlet's own parameters after the argument list are not the engine's flags."""
    p = tmp_path / "wsl.ps1"
    p.write_text('$wsl = Get-Command wsl.exe -ErrorAction SilentlyContinue\n$ArgumentList = @()\n'
                 '$ArgumentList += @("-d", "Ubuntu")\n'
                 '$ArgumentList += @("--exec", "python3", "-m", "vllm.entrypoints.openai.api_server")\n'
                 '$ArgumentList += @("--model", "org/wsl-model", "--max-model-len", "4096")\n'
                 '$proc = Start-Process -FilePath $wsl.Source -ArgumentList $ArgumentList -WorkingDirectory $Root '
                 '-RedirectStandardOutput $Out -WindowStyle Hidden -PassThru\n')
    (d,) = read_path(str(p)).deployments
    assert (d.model, d.get("max_model_len"), d.unknown_flags) == ("org/wsl-model", 4096, ())
    p.write_text('$cmd = @("-m", "vllm.entrypoints.openai.api_server", "--model", "org/native")\n'
                 '$p = Start-Process -FilePath python -ArgumentList $cmd -WorkingDirectory $Root -PassThru\n')
    (d,) = read_path(str(p)).deployments
    assert (d.model, d.unknown_flags) == ("org/native", ())


def test_one_array_handed_to_a_helper_before_the_devices_are_set_is_still_one_launch(tmp_path):
    """Sample K58's server script (measured: two launches): the array is handed to a dry-run helper of a sourced
    file before `export CUDA_VISIBLE_DEVICES=...`, then run; one deployment, with its devices. Two runs on other
    devices stay two replicas."""
    from kvlint.launches import read_path

    p = tmp_path / "start.sh"
    p.write_text('CMD=(python -m sglang.launch_server --model-path org/m --port 30000)\nmaybe_dry_run "${CMD[@]}"\n'
                 'export CUDA_VISIBLE_DEVICES=1\nexec "${CMD[@]}"\n')
    assert [(d.model, d.gpu_count) for d in read_path(str(p)).deployments] == [("org/m", 1)]
    q = tmp_path / "two.sh"
    q.write_text('CMD=(vllm serve org/m --port 8000)\nCUDA_VISIBLE_DEVICES=0 "${CMD[@]}" &\n'
                 'CUDA_VISIBLE_DEVICES=1 "${CMD[@]}" &\n')
    assert len(read_path(str(q)).deployments) == 2


def test_an_engine_command_array_expanded_in_another_arrays_command_is_one_launch():
    """Sample K192 (measured: a launch twice): `SERVE=(vllm serve M ...)` expanded in `cmd=(docker run ... "$IMAGE"
    "${SERVE[@]}" ...)`: the container's command is the launch, read once, its values at their places in SERVE."""
    (d,) = read_path(str(FIX / "nested-serve-array.sh")).deployments
    assert (d.image, d.model, _at(d.model_span)) == ("vllm-node-x:probe", "/cache/hub/glm-awq", (7, 14))
    assert (d.get("tensor_parallel_size"), _at(d.settings["tensor_parallel_size"].span)) == (4, (8, 26))


def test_the_engine_cli_run_on_an_array_a_programs_output_fills_is_a_launch():
    """Sample K251 (measured: said, not read): `mapfile -t args < <(uv run app vllm-args "$1")` then `exec uv run
    vllm "${args[@]}"`: the subcommand, the model and the flags are the program's output, known at run time: one
    launch, its model open. The CLI run on an array the script sets with no subcommand in it is still no server."""
    from kvlint.launches import read_path

    text = 'mapfile -t args < <(uv run app vllm-args "$1")\nexec uv run --extra serve vllm "${args[@]}"\n'
    (d,) = read_path("serve.sh", text).deployments
    assert (d.engine, d.model_resolved, d.launch_span.line) == ("vllm", False, 2)
    assert read_path("serve.sh", text.replace('mapfile -t args < <(uv run app vllm-args "$1")',
                                              "args=(--version)")).deployments == []
