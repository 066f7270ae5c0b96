"""`docker run` / `podman run` in scripts and `sh -c '... "$@"' -- ARGS`: fixtures we wrote in the
shapes real launch scripts and LeaderWorkerSets use; every model, flag and GPU is pinned to (line, col)."""

from __future__ import annotations

from pathlib import Path

from kvlint.launches import read_path
from kvlint.span import Span

FIX = Path(__file__).resolve().parent.parent / "fixtures" / "launches"


def _at(span):
    return (span.line, span.col)


def _deps(name: str):
    result = read_path(str(FIX / name))
    assert not [f for f in result.findings if f.severity >= 2], result.findings
    return result.deployments


def test_image_entrypoint_takes_the_flags_and_options_name_the_container():
    first = _deps("docker/run-variants.sh")[0]
    assert (first.engine, first.engine_version, first.name) == ("vllm", "0.9.2", "demo-server")
    assert first.model == "example-org/demo-8b" and _at(first.model_span) == (10, 13)
    assert first.get("max_model_len") == 8192 and _at(first.settings["max_model_len"].span) == (10, 36)
    assert first.get("gpu_memory_utilization") == 0.85 and _at(first.settings["gpu_memory_utilization"].span) == (10, 66)
    assert first.gpu_count is None  # --gpus all: every GPU on the host, however many that is
    assert _at(first.engine_version_span) == (9, 5)


def test_entrypoint_option_replaces_the_image_entry_point():
    d = _deps("docker/run-variants.sh")[1]
    assert (d.engine, d.engine_version, d.model) == ("vllm", "0.8.5", "example-org/demo-3b")
    assert _at(d.model_span) == (12, 51) and d.get("tensor_parallel_size") == 2
    assert d.gpu_count == 2 and _at(d.gpu_count_span) == (11, 12)


def test_bash_c_after_the_image_is_read_with_the_container_env():
    d = _deps("docker/run-variants.sh")[2]
    assert (d.engine_version, d.model, _at(d.model_span)) == ("0.10.1", "example-org/demo-70b", (14, 25))
    mml = d.settings["max_model_len"]
    assert (mml.value, mml.origin) == (4096, "variable")  # \$MAX_LEN: expanded inside, from -e MAX_LEN=4096
    assert d.gpu_count == 4 and _at(d.gpu_count_span) == (13, 17)  # --gpus '"device=0,1,2,3"'


def test_podman_cdi_devices_count_and_sglang_needs_its_command():
    d = _deps("docker/run-variants.sh")[3]
    assert (d.engine, d.engine_version, d.model) == ("sglang", "0.4.6.post1", "example-org/demo-7b")
    assert d.get("tp_size") == 2 and d.get("context_length") == 32768 and _at(d.settings["context_length"].span) == (16, 94)
    assert d.gpu_count == 2 and _at(d.gpu_count_span) == (15, 38)


def test_sglang_image_with_only_flags_is_the_launch_meant_and_said_to_start_no_server(tmp_path):
    """lmsysorg/sglang's entry point is no server: the flags are run as the container's program (KV014). The launch
    is read as meant (sample K62's compose counted it), the image kept for the rule to say what really runs."""
    p = tmp_path / "run.sh"
    p.write_text("docker run --gpus 1 lmsysorg/sglang:v0.4.6 --model-path org/m --tp 1\n")
    (d,) = read_path(str(p)).deployments
    assert (d.engine, d.model, d.get("tp_size"), d.no_server_image) == \
        ("sglang", "org/m", 1, (Span(str(p), 1, 21, 1, 43), "lmsysorg/sglang:v0.4.6", "--model-path"))


def test_env_file_beside_the_script_and_host_passthrough():
    (d,) = _deps("docker/run-env-file.sh")
    assert d.model == "example-org/demo-1b" and _at(d.model_span) == (2, 21)
    assert d.get("max_model_len") == 2048 and d.settings["max_model_len"].origin == "variable"
    seqs = d.settings["max_num_seqs"]
    assert not seqs.resolved and "passed from the host by docker run -e" in " ".join(d.notes)


def test_missing_env_file_is_said(tmp_path):
    p = tmp_path / "run.sh"
    p.write_text("docker run --env-file prod.env vllm/vllm-openai:v0.9.0 --model org/m\n")
    (d,) = read_path(str(p)).deployments
    assert any("--env-file prod.env is not beside this script" in n for n in d.notes)


def test_lws_sh_c_dollar_at_takes_the_args_list():
    leader = _deps("k8s/lws-positional.yaml")[0]
    assert leader.model == "example-org/demo-70b" and _at(leader.model_span) == (16, 17)
    assert leader.get("tensor_parallel_size") == 8 and _at(leader.settings["tensor_parallel_size"].span) == (18, 17)
    assert leader.get("pipeline_parallel_size") == 2 and leader.gpu_count == 16


def test_bash_c_numbered_parameters_after_the_placeholder():
    d = _deps("k8s/lws-positional.yaml")[1]
    assert d.model == "example-org/demo-8b" and _at(d.model_span) == (44, 94)
    assert d.get("max_model_len") == 4096 and _at(d.settings["max_model_len"].span) == (44, 117)
    assert d.get("max_num_seqs") == 32


def test_first_word_after_the_script_is_dollar_zero_and_that_is_said():
    d = _deps("k8s/lws-positional.yaml")[2]
    assert d.model == "example-org/demo-1b"  # `--model` became $0; the id is then the positional model
    assert any("$0" in n and "--model" in n for n in d.notes)


def test_dollar_at_without_known_arguments_is_an_entry_point_not_a_launch(tmp_path):
    p = tmp_path / "entry.sh"
    p.write_text('#!/bin/sh\nexec vllm serve "$@"\n')
    result = read_path(str(p))  # an image's entry point: the launch is where it is called with a model
    assert result.deployments == [] and [(f.code, f.span.line) for f in result.findings] == [("KV008", 2)]


def test_shell_script_sh_c_with_arguments(tmp_path):
    p = tmp_path / "run.sh"
    p.write_text("sh -c 'vllm serve \"$1\" --max-model-len \"$2\"' sh org/m 1024\n")
    (d,) = read_path(str(p)).deployments
    assert d.model == "org/m" and d.get("max_model_len") == 1024
    assert _at(d.model_span) == (1, 49) and _at(d.settings["max_model_len"].span) == (1, 55)


def test_set_double_dash_makes_the_positional_parameters_of_the_commands_after_it(tmp_path):
    """Sample K46's model-foundry entry script (measured: the launch placed at `set --`, 10 lines above the
    command): `if [ $# -eq 0 ]; then set -- --model "${DEFAULT_MODEL}" ...; fi` then `python -m
    vllm.entrypoints.openai.api_server "$@"`: the command's arguments are those words, each at its line; the
    launch is the command. `set -euo pipefail` sets options only."""
    p = tmp_path / "start_vllm.sh"
    p.write_text('#!/usr/bin/env bash\nset -euo pipefail\nDEFAULT_MODEL="${VLLM_DEFAULT_MODEL:-org/default}"\n'
                 'if [ $# -eq 0 ]; then\n  set -- \\\n    "--model" "${DEFAULT_MODEL}" \\\n'
                 '    "--dtype" "float16"\nfi\npython -m vllm.entrypoints.openai.api_server "$@"\n')
    (d,) = read_path(str(p)).deployments
    assert (d.model, _at(d.model_span), d.launch_span.line, d.get("dtype")) == ("org/default", (6, 15), 9, "float16")


def test_a_scripts_positional_parameters_are_its_callers_values(tmp_path):
    """Sample K50's AlphaGRPO script (measured: KV007 error "SGLang rejects --port $2: not an integer"): a script file
    run with arguments kvlint does not see gives `--host $1 --port $2` its caller's values: open, never judged."""
    from kvlint.lint import LintOptions, lint

    p = tmp_path / "serve.sh"
    p.write_text("#!/bin/bash\npython -m sglang.launch_server --model-path org/m --host $1 --port $2 --tp $3\n")
    (d,) = read_path(str(p)).deployments
    assert d.invalid_values == () and not d.settings["port"].resolved and not d.settings["tp_size"].resolved
    assert [f.code for f in lint([str(p)], LintOptions()).findings if f.severity >= 2] == []


def test_a_shell_form_cmd_running_a_program_on_an_engine_image_is_no_launch():
    """Sample K94's Dockerfile (`FROM vllm/vllm-openai` + `CMD service nginx start && ollama serve`) was read as a
    vLLM launch of the model "service"; a shell-form CMD naming a program is the command the author means the
    container to run, and the KV008 says Docker hands it to vLLM's entry point as arguments. A CMD of flags is still
    the engine's arguments."""
    path = Path(__file__).resolve().parent.parent / "fixtures" / "launches" / "docker" / "program-cmd.Dockerfile"
    result = read_path(str(path))
    assert result.deployments == []
    (note,) = result.findings
    assert note.code == "KV008" and "as written the container starts the engine on a model named /bin/sh" in note.message
    flags = path.read_text().replace("CMD service nginx start && /usr/local/bin/ollama serve",
                                     "CMD --model org/cmd-flags --max-model-len 4096")
    (d,) = read_path(str(path), flags).deployments
    assert (d.model, d.get("max_model_len")) == ("org/cmd-flags", 4096)


def test_an_engine_flag_before_the_image_is_not_read_as_the_image():
    """Sample K104's runbook: `docker run ... --max-model-len auto vllm/vllm-openai-rocm:v0.14.0 Qwen/Qwen3-0.6B`:
    the flag's value is not the image (the launch was passed over); the launch is read without the flag, which
    docker rejects (KV015), and a docker option both have (`--device`) stays docker's."""
    from kvlint.launches import read_path

    (d,) = read_path("run.sh", "docker run --rm --device /dev/kfd --max-model-len auto "
                               "vllm/vllm-openai-rocm:v0.14.0 Qwen/Qwen3-0.6B\n").deployments
    assert (d.model, d.image, "max_model_len" in d.settings) == ("Qwen/Qwen3-0.6B", "vllm/vllm-openai-rocm:v0.14.0", False)
    assert [(text, _at(span)) for span, text in d.runner_rejects] == [("--max-model-len", (1, 35))]


def test_comment_lines_inside_a_continued_cmd_are_dropped_and_a_bare_word_is_an_expression():
    """Sample K109: `CMD ["python", "-m", ..., \\` with `# ...` lines between its items and an unquoted
    `env.MODEL_NAME`: Docker drops the comment lines and the instruction goes on; the array JSON refuses is read as
    meant (KV001 says Docker does not), the bare word an unresolved expression, no `--host,` read as a flag."""
    from kvlint.launches import read_path

    result = read_path("Dockerfile", 'FROM vllm/vllm-openai:v0.4.2\nCMD ["python", "-m", '
                       '"vllm.entrypoints.openai.api_server", \\\n     "--model", env.MODEL_NAME, \\\n'
                       '     # the quantization\n     "--quantization", "awq", \\\n     "--max-model-len", "4096"]\n')
    (d,) = result.deployments
    assert (d.model, d.model_resolved, _at(d.model_span), d.get("max_model_len"), d.unknown_flags) == \
        ("env.MODEL_NAME", False, (3, 17), 4096, ())
    # the image's own entry point (v0.4.2: `python3 -m vllm.entrypoints.openai.api_server`) is not replaced, so the
    # CMD is handed to it as arguments (KV019, turn 33)
    assert [f.code for f in result.findings] == ["KV001", "KV019"]


def test_a_notes_file_of_container_runs_and_an_image_script_given_the_environment():
    """Sample K113's runs.txt: `docker run --gpus all -e MODEL=M ... org/vllm:0.2.4-v48` lines (no entry word: the
    notes reader passed them over in silence), one of them running the image's `/opt/vllm/listener.sh`: the
    container's environment names the model, not the script's path."""
    from kvlint.launches import read_path

    text = ("# RUN HF\ndocker run --gpus all \\\n  -e MODEL=org/llama \\\n  fra.ocir.io/ds/vllm:0.2.4-v48\n\n"
            "# RUN GIT\ndocker run --gpus all \\\n  -e MODEL=org/llama-git \\\n  fra.ocir.io/ds/vllm:0.2.1-v43 \\\n"
            "  /opt/vllm/listener.sh\n")
    deps = read_path("runs.txt", text).deployments
    assert [(d.model, _at(d.model_span)) for d in deps] == [("org/llama", (3, 12)), ("org/llama-git", (8, 12))]


def test_a_shell_entrypoint_whose_script_ends_in_an_image_script_reads_the_container_environment():
    """Sample K111's launcher: `--entrypoint /bin/bash ... IMAGE -lc 'unset X; exec /usr/local/bin/serve-glm52.sh
    --flags'`: the image's script starts the engine from the `-e` variables, as `IMAGE /usr/local/bin/serve.sh`
    does (passed over with only a KV008 note before)."""
    from kvlint.launches import read_path

    text = ("docker run -d --device nvidia.com/gpu=all --entrypoint /bin/bash \\\n"
            "  -e MODEL=org/glm -e TP_SIZE=8 \\\n  org/vllm:2026-06-17 \\\n"
            "  -lc 'unset NCCL_GRAPH_FILE\n       exec /usr/local/bin/serve-glm52.sh --linear-backend auto'\n")
    (dep,) = read_path("run.sh", text).deployments
    assert (dep.engine, dep.model, _at(dep.model_span), dep.get("tensor_parallel_size")) == \
        ("vllm", "org/glm", (2, 12), 8)
    plain = text.replace("exec /usr/local/bin/serve-glm52.sh", "echo")  # a shell that runs no script of the image
    assert read_path("run.sh", plain).deployments == []


def test_a_dockerfile_header_comment_ending_in_a_backslash_continues_nothing(tmp_path):
    """Sample K115 (measured: a KV007 warning assuming the newest release): a header comment `# Run: docker run
    --gpus all \\` joined the lines below it, FROM among them, so the CMD's launch had no base image; a comment line
    of its own ends where it ends, as Docker's parser has it."""
    from kvlint.launches import read_path

    p = tmp_path / "Dockerfile"
    p.write_text("# Run:  docker run --gpus all \\\n#         my-image\n\nFROM vllm/vllm-openai:v0.6.6\n"
                 'CMD ["--model", "org/m", "--limit-mm-per-prompt", "image=5"]\n')
    (dep,) = read_path(str(p)).deployments
    assert (dep.image, dep.engine_version, dep.model) == ("vllm/vllm-openai:v0.6.6", "0.6.6", "org/m")


def test_a_command_line_continuing_a_container_run_in_notes_is_read_once():
    """Sample K123's notes (measured: two launches of one run): `docker run ... rocm/vllm:latest \\` then a line
    `  vllm serve $MODEL`: the line is the run's command, not a launch of its own."""
    from kvlint.launches import read_path

    text = ("# local run\ndocker run -it --rm \\\n  -e MODEL=org/m \\\n  --device=/dev/kfd \\\n  rocm/vllm:latest \\\n"
            "  vllm serve $MODEL\n\ncurl http://localhost:8000/v1/models\n")
    deps = read_path("notes.txt", text).deployments
    assert [(d.model, d.image) for d in deps] == [("$MODEL", "rocm/vllm:latest")]  # the host shell expands it


def test_a_created_container_runs_its_command_and_an_image_variable_is_the_image(tmp_path):
    """Sample K171's `docker create ... "${IMAGE}" vllm serve --config ...` (then `docker start`): create takes run's
    options, image and command. Sample K172's `docker run -d "${opts[@]}" "$IMAGE" "${model_args[@]}"` with
    `model_args=("$MODEL" --tensor-parallel-size ... --gpu-memory-utilization ...)`: a variable named for the image is
    the image (not more options), and a first word named for the model, then vLLM's own flags, is vLLM's positional
    model. A variable named otherwise (`$DOCKER_OPTS`) before a word that looks like an image is still options."""
    p = tmp_path / "create.sh"
    p.write_text('#!/bin/bash\ndocker create --name v --gpus all "${IMAGE}" vllm serve org/created --port 8000\n'
                 'docker start -a v\n')
    (d,) = read_path(str(p)).deployments
    assert (d.engine, d.model, _at(d.model_span)) == ("vllm", "org/created", (2, 57))
    p.write_text('#!/bin/bash\nargs=("$MODEL" --tensor-parallel-size 2 --max-model-len 8192 '
                 '--gpu-memory-utilization 0.9)\nid=$(docker run -d --gpus all "$IMAGE" "${args[@]}")\n')
    (v,) = read_path(str(p)).deployments
    assert (v.engine, v.model, v.model_resolved, v.get("max_model_len")) == ("vllm", "$MODEL", False, 8192)
    p.write_text('#!/bin/bash\ndocker run -d --gpus all "$VLLM_IMAGE" org/m --tensor-parallel-size 2 '
                 '--max-model-len 8192\n')
    (m,) = read_path(str(p)).deployments
    assert (m.model, _at(m.model_span), m.get("max_model_len")) == ("org/m", (2, 40), 8192)
    p.write_text('#!/bin/bash\ndocker run -d --gpus all $DOCKER_OPTS vllm/vllm-openai:v0.11.0 --model org/o\n')
    (o,) = read_path(str(p)).deployments
    assert (o.model, o.engine_version) == ("org/o", "0.11.0")


def test_a_container_named_for_the_engine_from_an_image_variable_given_its_flags_is_its_launch(tmp_path):
    """Sample K173's two-node heredoc: `docker run -d --name vllm-fn $CPUSET_ARG -e ... $IMAGE $MODEL_ARG
    $VLLM_ARGS_STR --node-rank 0 --host 0.0.0.0 --port $PORT`: an expansion before the one named for the image is
    more options; the container's name says vLLM and every flag is vLLM's, so it is vLLM's launch, its model the
    variable. The same run named for no engine, or given another program's flags, stays a place (KV008)."""
    p = tmp_path / "launch.sh"
    run = ('#!/bin/bash\ndocker run -d --name {name} $CPUSET_ARG -e NCCL_DEBUG=INFO \\\n'
           '  $IMAGE $MODEL_ARG $VLLM_ARGS_STR {flags}\n')
    p.write_text(run.format(name="vllm-fn", flags="--node-rank 0 --host 0.0.0.0 --port $PORT"))
    (d,) = read_path(str(p)).deployments
    assert (d.engine, d.model, _at(d.model_span), d.image) == ("vllm", "$MODEL_ARG", (3, 10), "$IMAGE")
    p.write_text(run.format(name="app", flags="--node-rank 0 --host 0.0.0.0 --port $PORT"))
    assert read_path(str(p)).deployments == []
    p.write_text(run.format(name="vllm-fn", flags="--workers 4 --log-format json"))
    assert read_path(str(p)).deployments == []


def test_an_entrypoint_given_with_an_equals_sign_is_the_program(tmp_path):
    """Sample K119's README (read before only by a program-less guess, which b1552f7 rightly dropped):
    `docker run --entrypoint="python3" ... lmsysorg/sglang:latest -m sglang.launch_server ...`: the program is
    `python3`, written after `=` as after a space."""
    p = tmp_path / "run.sh"
    for form in ('--entrypoint="python3"', "--entrypoint=python3", "--entrypoint python3"):
        p.write_text(f"docker run {form} --gpus all lmsysorg/sglang:v0.5.4 -m sglang.launch_server "
                     "--model-path org/ep --tp 4\n")
        (d,) = read_path(str(p)).deployments
        assert (d.engine, d.model, d.get("tp_size")) == ("sglang", "org/ep", 4), form


def test_a_container_running_a_script_of_the_repository_it_mounts(tmp_path):
    """Sample K207's README: `docker run -v $(pwd):/app --entrypoint bash vllm/vllm-openai:v0.14.1 -c "python3
    /app/plugin/start_server.py"` runs the repository's own launcher in the engine's image: its launch, read in the
    repository's file (found from the README's folder up), on the container's image and GPUs (each was a KV008).
    Arguments the container hands the script (`--tp 2`) leave the script's sizes open, never its defaults; a script
    the repository does not hold is no launch."""
    (tmp_path / "plugin").mkdir()
    (tmp_path / "plugin" / "start_server.py").write_text(
        'import os\nM = "org/scripted"\n\n\ndef main():\n'
        '    os.execvp("vllm", ["vllm", "serve", M, "--max-model-len", "8192", "--tensor-parallel-size", "1"])\n')
    (tmp_path / "docs").mkdir()
    run = ("```bash\ndocker run -d --gpus all -v $(pwd):/app -w /app --entrypoint bash \\\n"
           '  vllm/vllm-openai:v0.14.1 \\\n  -c "python3 /app/plugin/start_server.py{args}"\n```\n')
    readme = tmp_path / "docs" / "serve.md"
    readme.write_text(run.format(args=""))
    (d,) = read_path(str(readme)).deployments
    assert (d.model, d.engine_version, d.get("max_model_len"), d.get("tensor_parallel_size")) == \
        ("org/scripted", "0.14.1", 8192, 1)
    assert d.model_span.path.endswith("start_server.py") and d.launch_span.line == 3
    readme.write_text(run.format(args=" --tp 2"))
    (d,) = read_path(str(readme)).deployments
    assert "tensor_parallel_size" not in d.settings or not d.settings["tensor_parallel_size"].resolved
    readme.write_text(run.format(args="").replace("plugin/start_server.py", "plugin/missing.py"))
    assert read_path(str(readme)).deployments == []


def test_a_mounted_script_path_that_leaves_the_mount_is_not_read(tmp_path):
    """The repository script a container runs is read only under the folder it mounts: `/app/../outside.py` would
    leave the repository, so it is not read (bad input never makes kvlint read a file it was not pointed at)."""
    (tmp_path / "repo").mkdir()
    (tmp_path / "outside.py").write_text('import os\nos.execvp("vllm", ["vllm", "serve", "org/outside"])\n')
    readme = tmp_path / "repo" / "README.md"
    readme.write_text("```bash\ndocker run --gpus all -v $(pwd):/app --entrypoint bash vllm/vllm-openai:v0.14.1 "
                      '-c "python3 /app/../outside.py"\n```\n')
    assert [d.model for d in read_path(str(readme)).deployments] == []


def test_a_pod_kubectl_runs_and_a_swarm_service_are_containers_of_the_image():
    """`kubectl run vllm --image=vllm/vllm-openai:v0.10.1 --env=HF_HOME=/cache -- --model M` starts a pod whose
    container gets the arguments after `--` (with `--command`, its command); `docker service create [OPTIONS] IMAGE
    ARGS` starts a swarm service the same way: each a launch of the image's engine, each value at its place (both
    were passed over); `kubectl get pods` is none."""
    text = ("#!/bin/bash\nkubectl run vllm --image=vllm/vllm-openai:v0.10.1 --restart=Never --env=HF_HOME=/cache "
            "-- --model org/pod --max-model-len 4096\n"
            "oc run sg --image=lmsysorg/sglang:v0.4.9 --command -- python3 -m sglang.launch_server --model-path org/oc\n"
            "docker service create --name v --replicas 2 --generic-resource NVIDIA-GPU=1 vllm/vllm-openai:v0.10.1 "
            "--model org/swarm\nkubectl get pods\n")
    found = read_path("deploy.sh", text).deployments
    assert [(d.engine, d.model, _at(d.model_span), d.engine_version) for d in found] == [
        ("vllm", "org/pod", (2, 99), "0.10.1"), ("sglang", "org/oc", (3, 100), "0.4.9"),
        ("vllm", "org/swarm", (4, 110), "0.10.1")]
    assert found[0].get("max_model_len") == 4096


def test_an_emptied_entrypoint_runs_the_words_after_the_image(tmp_path):
    """Sample K233's DGX Spark script (measured: a KV008): `docker run ... --entrypoint "" "${VLLM_IMAGE}" vllm serve
    "${MODEL_HANDLE}" --max-model-len ...`: an empty entry point clears the image's, so the words after the image
    are the whole command (they were read as the arguments of a program named '')."""
    p = tmp_path / "start.sh"
    p.write_text('docker run -d --gpus all --entrypoint "" \\\n  "${VLLM_IMAGE}" \\\n'
                 '  vllm serve "${MODEL_HANDLE}" --max-model-len 8192\n')
    (d,) = read_path(str(p)).deployments
    assert (d.engine, d.model_resolved, d.get("max_model_len"), _at(d.launch_span)) == ("vllm", False, 8192, (3, 3))


def test_red_hat_ai_inference_server_images_start_vllm_with_arguments_only(tmp_path):
    """Sample K234's runbook (a KV008): Red Hat AI Inference Server's documented `podman run ...
    registry.redhat.io/rhaiis/vllm-cuda-rhel9:3.0.0 --model M`: the image's entry point is vLLM's server. Its tag is
    the product's version, no vLLM release: the launch pins none, and says why."""
    from kvlint.config import Config
    from kvlint.engines import get_engine
    from kvlint.resolve import ResolveOptions
    from kvlint.resolve.lookups import version_for

    p = tmp_path / "run.sh"
    p.write_text("podman run --rm -it --device nvidia.com/gpu=all \\\n"
                 "  registry.redhat.io/rhaiis/vllm-cuda-rhel9:3.0.0 \\\n  --model RedHatAI/Llama-3.2-1B-Instruct-FP8\n")
    (d,) = read_path(str(p)).deployments
    assert (d.engine, d.model, _at(d.model_span)) == ("vllm", "RedHatAI/Llama-3.2-1B-Instruct-FP8", (3, 11))
    found = version_for(d, get_engine("vllm"), Config(), ResolveOptions())
    assert found.version is None and "tag names no vLLM release" in found.why


def test_a_local_build_given_a_variable_then_vllms_flags_serves_that_variable_as_its_model():
    """Sample K250 (measured: said, not read): `docker run ... "$IMAGE" "$SNAP_IN" --served-model-name q
    --max-model-len "$CTX" --max-num-seqs ... --gpu-memory-utilization ...`, the image a local build of vLLM and the
    first word a Hub-cache snapshot folder set from a command's output: whatever the variable is called, a word the
    shell alone gives followed by flags that are all vLLM's is `vllm serve`'s positional model. Flags of another
    program after it say nothing."""
    text = ('IMAGE="${IMAGE:-qwen-dgx}"\nSNAP_IN="/hf/hub/models--o--m/snapshots/$(basename "$SNAP_HOST")"\n'
            'docker run -d --gpus all \\\n  "$IMAGE" \\\n  "$SNAP_IN" --served-model-name q \\\n'
            '    --max-model-len 8192 --max-num-seqs 4 --gpu-memory-utilization 0.8\n')
    (d,) = read_path("serve.sh", text).deployments
    assert (d.engine, d.model, d.model_resolved, _at(d.model_span)) == ("vllm", "$SNAP_IN", False, (5, 3))
    assert (d.get("max_model_len"), d.get("max_num_seqs"), d.image) == (8192, 4, "qwen-dgx")
    assert read_path("serve.sh", text.replace("--max-num-seqs 4 --gpu-memory-utilization 0.8",
                                              "--epochs 4 --lr 0.8")).deployments == []


def test_gpus_listed_by_a_variable_are_an_unknown_count():
    """Sample K246 (`--gpus "\\"device=${GPU_DEVICES}\\""`, GPU_DEVICES from a sourced .env): a variable may list
    several devices, so the count is unknown, never 1 (a KV204 "requests 1" against `--tensor-parallel-size 2` was
    wrong). A literal list is still counted."""
    text = 'docker run --gpus "\\"device=${GPU_DEVICES}\\"" vllm/vllm-openai:v0.11.0 org/m --tensor-parallel-size 2\n'
    (d,) = read_path("serve.sh", text).deployments
    assert d.gpu_count is None
    (two,) = read_path("serve.sh", text.replace("${GPU_DEVICES}", "0,1")).deployments
    assert two.gpu_count == 2


def test_a_terminal_session_in_an_engine_image_is_no_launch():
    """Sample K254's AMD guide (measured: one spurious launch): `docker run -it --rm --device=/dev/kfd ... --name
    vllm_GLM rocm/vllm-dev:nightly`, no command: a shell the reader then types `vllm serve zai-org/GLM-4.5 ...` into,
    the launch counted there. The same run detached (`-d`) is the image's own command serving its model."""
    text = ("docker run -it --rm --device=/dev/kfd --device=/dev/dri --name vllm_GLM \\\n  rocm/vllm-dev:nightly\n"
            "vllm serve zai-org/GLM-4.5 --tensor-parallel-size 8\n")
    result = read_path("guide.sh", text)
    assert [d.model for d in result.deployments] == ["zai-org/GLM-4.5"] and result.findings == []
    detached = read_path("guide.sh", text.replace("-it --rm", "-d").replace("vllm serve", "echo vllm serve"))
    assert [d.model for d in detached.deployments] == ["(the model the image's own command serves)"]


def test_an_expansion_among_a_container_execs_options_is_options():
    """Sample K256 (measured: said, not read): `exec podman exec ${EXTRA_E:-} -e A=1 "$C" vllm serve /m/q ...`: the
    word the caller may fill with more `-e` options is an option, not the container, which follows the options."""
    text = 'C=x\nexec podman exec ${EXTRA_E:-} -e A=1 "$C" vllm serve /m/q --max-model-len 4096\n'
    (d,) = read_path("start.sh", text).deployments
    assert (d.model, d.get("max_model_len"), d.container) == ("/m/q", 4096, "x")


def test_a_mode_word_handed_to_an_engine_named_build_is_no_model():
    """Sample K257's README (measured: one spurious launch, model `prepare-model`): `docker run --rm -v ...
    org/qwen3-omni-nvfp4-vllm:latest prepare-model`, a download step of the image's own script, is no launch; the
    same image run bare on GPUs is the image's own command, and a model handed to it stays its model."""
    text = 'docker run --rm -v "$D:/models/q" org/qwen3-omni-nvfp4-vllm:latest prepare-model\n'
    assert read_path("README.sh", text).deployments == []
    (m,) = read_path("README.sh", text.replace("prepare-model", "org/m --max-model-len 4096")).deployments
    assert m.model == "org/m"
