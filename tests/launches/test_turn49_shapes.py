"""Shapes the turn-49 samples showed kvlint misreading, each read by a mechanism, not a case: every test writes the
shape small, with what it must give (and what it must not)."""

from __future__ import annotations

from kvlint.deployment import launch_count
from kvlint.launches import read_path
from kvlint.lint import LintOptions, lint
from tests.launches.shapes import write as _write

_CLI = ('#!/usr/bin/env bash\ndie() {{ echo "$*" >&2; exit 1; }}\n'
        '{helpers}'
        'cmd_up() {{\n  local model="" gpus="" extra=()\n  while (( $# )); do\n    case "$1" in\n'
        '      -g) gpus="$2"; shift 2 ;;\n      --) shift; extra=("$@"); break ;;\n'
        '      *) model="$1"; shift ;;\n    esac\n  done\n'
        '  docker run -d --gpus all vllm/vllm-openai:v0.10.0 --model "$model" "${{extra[@]}}"\n}}\n'
        'cmd_menu() {{\n  read -rp "model: " m\n  if [[ -n "$g" ]]; then cmd_up "$m" -g "$g"; else cmd_up "$m"; fi\n}}\n'
        'cmd="${{1:-}}"; shift || true\ncase "$cmd" in\n  "") cmd_menu ;;\n  up) cmd_up "$@" ;;\n'
        '  *) die "unknown $cmd" ;;\nesac\n')


def test_a_subcommand_dispatchers_calls_are_one_launch():
    """Sample K503's CLI (measured: silent). `cmd_up "$@"` hands the body the script's own unknown arguments (its
    `$1` is unknown, not the word "$@"); `--) extra=("$@")` in a `while` over the arguments gathers run-time words
    (no `-g` read as an engine flag); calls from arms of which one runs (the menu's `if` / `else`, the dispatcher's
    `case`) are one launch, in configurations."""
    deps = read_path("vllm-cli", _CLI.format(helpers="")).deployments
    assert launch_count(deps) == 1
    assert all(d.engine == "vllm" and not d.unknown_flags and not d.model_resolved for d in deps)


def test_a_long_clis_helper_calls_leave_its_dispatcher_its_calls():
    """Sample K503 again: calls made while function bodies are read where they stand have a budget of their own, so
    the many helper calls of a long CLI's bodies leave the calls at its end read (`cmd_up org/real` gives that
    model). Two calls that both run (two replicas) stay two launches."""
    helpers = "".join(f'h{k}() {{ die "a"; die "b"; die "c"; die "d"; }}\n' for k in range(40))
    callers = "".join(f'c{k}() {{ h{k}; h{k}; h{(k + 1) % 40}; }}\n' for k in range(40))
    text = _CLI.format(helpers=helpers + callers) + "cmd_up org/real\ncmd_up org/other\n"
    models = {d.model for d in read_path("vllm-cli2", text).deployments}
    assert {"org/real", "org/other"} <= models


def test_a_container_a_call_removes_before_starting_it_again_is_one_server():
    """Sample K515's runbook (measured: two launches for one): `start_server` removes the container it names
    (`docker rm -f qwen35-h200`) before `docker run --name qwen35-h200`, so a second call replaces the first's server.
    A body that removes another container gives a launch per call."""
    text = ('start_server () {\n  docker rm -f srv >/dev/null 2>&1 || true\n'
            '  docker run -d --name srv --gpus all vllm/vllm-openai:v0.18.0 org/m --tensor-parallel-size "$1"\n}\n'
            'start_server 4\nfor tp in 4 8; do\n  start_server "$tp"\ndone\n')
    assert len(read_path("restart.sh", text).deployments) == 1
    other = text.replace("docker rm -f srv", "docker rm -f old")
    assert len(read_path("restart2.sh", other).deployments) == 2


def test_a_server_the_caller_stops_before_calling_again_is_one_server():
    """Sample K518's evaluation (measured: two launches for one): `run_server baseline; ...; stop_server;
    run_server speculative`, the stop in the caller: one server, restarted with other settings. Without the stop the
    two calls run side by side: two launches."""
    body = ('run_server() {{\n  local mode=$1\n  local -a command=(vllm serve org/m --port 8000)\n'
            '  if [[ "$mode" == spec ]]; then command+=(--speculative-config "$CFG"); fi\n'
            '  "${{command[@]}}" > "$mode.log" 2>&1 &\n  SERVER_PID=$!\n}}\n'
            'stop_server() {{ kill "$SERVER_PID" || true; }}\nrun_server baseline\n{stop}run_server spec\n')
    assert len(read_path("eval_a.sh", body.format(stop="stop_server\n")).deployments) == 1
    assert len(read_path("eval_b.sh", body.format(stop="")).deployments) == 2


def test_a_command_list_no_code_reads_is_no_launch():
    """Sample K516 (measured: two launches for one): a function binds `cmd = [sys.executable, "-m", ...]`, then runs
    the same command as a string with `shell=True`; the list is never read. A list the function does read, and one
    bound at module level (another module may import it), are launches."""
    unused = ('import subprocess, sys\ndef start():\n    cmd = [sys.executable, "-m", "vllm.entrypoints.openai.api_server",'
              ' "--model", "org/m"]\n    s = "python -m vllm.entrypoints.openai.api_server --model org/m --port 1"\n'
              '    subprocess.Popen(s, shell=True)\n')
    assert [d.launch_span.line for d in read_path("srv_a.py", unused).deployments if d.launch_span] == [4]
    used = unused.replace("subprocess.Popen(s, shell=True)", "subprocess.Popen(cmd)")
    assert len(read_path("srv_b.py", used).deployments) == 2
    module = ('CMD = ["vllm", "serve", "org/m", "--port", "1"]\n')
    assert len(read_path("srv_c.py", module).deployments) == 1


def test_one_command_in_both_arms_of_a_python_if_is_one_launch():
    """Sample K518's notebook (measured: three launches for two): `if vllm_bin: parts = [vllm_bin, "serve", M, ...]
    else: parts = [sys.executable, "-m", "vllm.entrypoints.openai.api_server", "--model", M, ...]`: the same server
    either way. Arms with other models stay two."""
    text = ('import shutil, subprocess, sys\nM = "org/m"\ndef cmd():\n    b = shutil.which("vllm")\n    if b:\n'
            '        parts = [b, "serve", M, "--port", "8000"]\n    else:\n'
            '        parts = [sys.executable, "-m", "vllm.entrypoints.openai.api_server", "--model", M, "--port", "8000"]\n'
            '    return subprocess.Popen(parts)\n')
    assert [d.launch_span.line for d in read_path("nb_a.py", text).deployments if d.launch_span] == [6]
    other = text.replace('"--model", M', '"--model", "org/other"')
    assert len(read_path("nb_b.py", other).deployments) == 2


def test_an_image_named_for_a_benchmark_given_engine_flags_is_a_client(tmp_path):
    """Sample K516 (measured: a launch for none): `docker run vllm-benchmark:latest --vllm_url URL --model M`, an
    image the script builds: its name says it is a program around the engine, so neither its flags nor its `vllm-`
    prefix make it the engine, and no "container for an engine" note is given."""
    text = ('#!/bin/bash\nNAME="vllm-benchmark"\ndocker build -t $NAME:latest .\n'
            'docker run --rm --network host $NAME:latest --vllm_url "$URL" --api_key "$KEY" --model org/m\n')
    p = _write(tmp_path, "run-docker.sh", text)
    assert read_path(p).deployments == []
    assert [f.code for f in lint([p], LintOptions()).findings] == []


def test_a_command_a_function_prints_is_read_with_unknown_values_and_conditional_additions_left_out():
    """Sample K519 (measured: silent): `server_command=$(build_server_command "${model}" ...)` of a body that sets
    `local model="$1"` from an unknown value, appends flags to `cmd` (one under an `if`) and echoes it; the command
    then runs from either arm of an `if` (background or foreground): one launch, its model unknown, the `if`'s flag
    left out."""
    text = ('#!/bin/bash\nbuild() {\n  local model="$1"\n  local port="$2"\n'
            '  local cmd="python -m vllm.entrypoints.openai.api_server"\n  cmd="${cmd} --model ${model}"\n'
            '  cmd="${cmd} --port ${port}"\n  if [ "$TRUST" = "true" ]; then\n    cmd="${cmd} --trust-remote-code"\n'
            '  fi\n  echo "${cmd}"\n}\nbg() {\n  local c="$1"\n  nohup ${c} > log 2>&1 &\n}\n'
            'fg() {\n  local c="$1"\n  ${c} &\n  wait\n}\n'
            'main() {\n  model=$(read_yaml_value cfg.yaml model)\n  local c\n'
            '  c=$(build \\\n    "${model}" "8000")\n  if [ "$BG" = true ]; then\n    bg "$c"\n  else\n'
            '    fg "$c"\n  fi\n}\nmain "$@"\n')
    (d,) = read_path("run_vllm_server.sh", text).deployments
    assert (d.engine, d.model_resolved, d.get("port"), d.get("trust_remote_code")) == ("vllm", False, 8000, None)


def test_an_interpreter_running_the_engines_console_script_is_the_engine():
    """Sample K522's guide (measured: missed): `<venv>/bin/python <venv>/bin/vllm serve <base> ...` runs vLLM's
    console script through its sibling interpreter; a bare `python` and a placeholder path alike. A script of another
    name stays the script's."""
    for program in ("python", "<venv>/bin/python", "/opt/v/bin/python3.11"):
        (d,) = read_path("serve.sh", f"{program} /opt/v/bin/vllm serve <base> --max-model-len 4096\n").deployments
        assert (d.engine, d.get("max_model_len")) == ("vllm", 4096)
    assert read_path("other.sh", "python /opt/v/bin/serve.py serve <base> --port 1\n").deployments == []


def test_a_markdown_document_saved_under_a_scripts_name_is_read_as_markdown():
    """Sample K521's `scripts/serve_vllm.sh` (measured: missed): a `# title`, then the script in a ```bash fence,
    then prose, with Windows line ends: read as the Markdown it is, its fenced command a launch. A real script whose
    first comment is a heading-like line and that holds no fence stays a script."""
    text = ("# serve_vllm.sh\r\n\r\n```bash\r\n#!/usr/bin/env bash\r\nMODEL=\"${MODEL:-org/m}\"\r\n"
            "python -m vllm.entrypoints.openai.api_server \\\r\n  --model \"${MODEL}\" --max-model-len 8192\r\n"
            "```\r\n\r\n## Description\r\n\r\nStarts the server.\r\n")
    (d,) = read_path("serve_vllm.sh", text).deployments
    assert (d.model, d.launch_span.line if d.launch_span else 0) == ("org/m", 6)
    script = "# Setup\nvllm serve org/m --max-model-len 8192\n"
    (e,) = read_path("setup.sh", script).deployments
    assert e.model == "org/m"


def test_two_commands_written_out_alike_in_two_arms_stay_two():
    """Sample K379 (a regression caught while reading K519's shape): a foreground `exec python -m sglang.launch_server`
    in one phase and a background copy of the same words in another are two commands written out, counted two; only
    a command line kept in a variable and run from either arm is one."""
    text = ('serve() {\n  exec python -m sglang.launch_server --model-path org/m --port 30000\n}\n'
            'bench() {\n  nohup python -m sglang.launch_server --model-path org/m --port 30000 > log 2>&1 &\n}\n'
            'case "$1" in\n  serve) serve ;;\n  bench) bench ;;\nesac\n')
    assert len(read_path("phases.sh", text).deployments) == 2


def test_a_command_line_a_function_builds_is_placed_where_its_words_are_written():
    """A function that grows a global command line (`CMD="vllm serve org/m"; CMD+=" --max-model-len 8192"`) and the
    top level that runs `$CMD`: the flag's value points at its place in the function, not at the `$CMD` word."""
    text = ('#!/bin/bash\nbuild() {\n  CMD="vllm serve org/m"\n  CMD+=" --max-model-len 8192"\n}\nbuild\n$CMD\n')
    (d,) = read_path("grown.sh", text).deployments
    span = d.settings["max_model_len"].span
    assert span is not None and span.line == 4


def test_a_list_items_labelled_command_span_is_a_command_and_an_elided_one_is_not():
    """Sample K526's README (measured: missed): `- **SGLang** \\`python -m sglang.launch_server --model-path M\\``, one
    command per engine, each after a bold label, is the item's command as one alone on its line is. Sample K524's
    doc (measured: a launch for none): a table's Command cell `vllm serve ...` names the command, its arguments an
    ellipsis: no command to run."""
    text = ("# Runs\n\n- **SGLang** `python -m sglang.launch_server --model-path Qwen/Qwen3-4B`\n"
            "- **vLLM**: `vllm serve Qwen/Qwen3-4B`\n\n| Role | Command |\n|---|---|\n| engine | `vllm serve ...` |\n"
            "| cache | `lmcache server ...` |\n")
    deps = read_path("README.md", text).deployments
    assert sorted((d.engine, d.launch_span.line if d.launch_span else 0) for d in deps) == [("sglang", 3), ("vllm", 4)]


def test_an_entry_point_pinning_only_its_address_is_the_image_whose_environment_gives_the_rest():
    """Sample K525 (measured: a launch for none): `exec vllm serve "${MODEL_ID}" --host 0.0.0.0 --port "${PORT}" ...
    "$@"`, every value the environment's: a container's entry point pins its address, which makes it no launch of its
    own (counting rule 5). One that writes a sizing value is a launch."""
    text = ('#!/usr/bin/env bash\nexec vllm serve "${MODEL_ID}" \\\n  --host 0.0.0.0 \\\n  --port "${PORT}" \\\n'
            '  --max-num-seqs "${MAX_NUM_SEQS}" \\\n  "$@"\n')
    assert read_path("start-whisper.sh", text).deployments == []
    sized = text.replace('--max-num-seqs "${MAX_NUM_SEQS}"', "--max-num-seqs 4")
    assert len(read_path("start-whisper2.sh", sized).deployments) == 1


def test_a_gpu_service_running_its_builds_script_is_the_engine_its_own_variables_name():
    """Sample K524's MI50 service (measured: missed): no image, `build:` of a Dockerfile not in the tree, AMD's
    devices, `command: [sh, /workspace/docker/start-mi50.sh]` and `VLLM_MODEL: ${VLLM_MODEL:-org/m}` beside
    `VLLM_TENSOR_PARALLEL_SIZE`: the engine its environment's prefixed variables name, with that model. Without the
    GPU request it stays a place named."""
    text = ("services:\n  vllm-mi50:\n    build:\n      context: .\n      dockerfile: docker/Dockerfile.rocm.mi50\n"
            "    devices:\n      - /dev/kfd:/dev/kfd\n      - /dev/dri:/dev/dri\n    environment:\n"
            "      VLLM_MODEL: ${VLLM_MODEL:-org/m}\n      VLLM_TENSOR_PARALLEL_SIZE: ${VLLM_TENSOR_PARALLEL_SIZE:-2}\n"
            "    command:\n      - sh\n      - /workspace/docker/start-mi50.sh\n")
    (d,) = read_path("mi50/docker-compose.yml", text).deployments
    assert (d.engine, d.model) == ("vllm", "org/m")
    cpu = text.replace("    devices:\n      - /dev/kfd:/dev/kfd\n      - /dev/dri:/dev/dri\n", "")
    assert read_path("cpu/docker-compose.yml", cpu).deployments == []


def test_a_bare_engine_command_beside_the_documents_full_one_names_it():
    """Sample K521's document (a launch for none): after the script's `python -m vllm.entrypoints.openai.api_server
    --model ... --max-model-len ...`, a "Command Breakdown" block holds the entry point alone, its flags then
    explained in prose: the command named, not a second server on the engine's default model. A document whose only
    command is the bare one keeps it (it starts the default model)."""
    text = ("# Serve\n\n```bash\npython -m vllm.entrypoints.openai.api_server \\\n  --model org/m --max-model-len 8192\n"
            "```\n\n### Command Breakdown\n\n```bash\npython -m vllm.entrypoints.openai.api_server\n```\n")
    (d,) = read_path("serve.md", text).deployments
    assert d.model == "org/m"
    (e,) = read_path("bare.md", "# Serve\n\n```bash\nvllm serve\n```\n").deployments
    assert e.model is None


def test_a_shorter_name_inside_a_longer_one_is_no_unknown_word_of_a_command_line():
    """Sample K531 (measured: silent): a command line kept in `cmd`, holding both the loop's `$i` and `$ip`, both
    unknown: `$i` found inside `$ip` made the unknown stretches overlap and the whole line unreadable."""
    text = ('#!/bin/bash\nfor i in "${!NODES[@]}"; do\n  ip="${IPS[$i]}"\n'
            '  cmd="docker run -d --gpus all -e VLLM_HOST_IP=$ip --entrypoint vllm vllm/vllm-openai:v0.11.0 serve org/m '
            '--node-rank $i --max-model-len 4096"\n  ssh "$host" "$cmd"\ndone\n')
    (d,) = read_path("launch-dual.sh", text).deployments
    assert (d.model, d.get("max_model_len")) == ("org/m", 4096)


def test_a_services_shell_script_starting_several_servers_gives_each():
    """Sample K531 (measured: one launch for eight): a compose service's `command: [sh, -c, |...]` starts decode and
    prefill servers in the background and one more in the foreground: each is a deployment (P/D roles, counting rule
    3), not only the last."""
    text = ("services:\n  pd:\n    image: lmsysorg/sglang:v0.5.12\n    command:\n      - sh\n      - -c\n      - |\n"
            "        python3 -m sglang.launch_server --model-path org/m --port 30010 --disaggregation-mode decode &\n"
            "        python3 -m sglang.launch_server --model-path org/m --port 30001 --disaggregation-mode prefill &\n"
            "        exec python3 -m sglang.launch_server --model-path org/m --port 30002 --disaggregation-mode prefill\n")
    deps = read_path("pd/docker-compose.yml", text).deployments
    assert sorted(d.get("port") for d in deps) == [30001, 30002, 30010]
    assert {d.image for d in deps} == {"lmsysorg/sglang:v0.5.12"}


def test_words_a_command_list_gains_are_not_a_list_of_their_own():
    """Sample K528 (measured: two launches for one): `cmd += [IMAGE, "python3", "-m", "sglang.launch_server", ...]`
    grows the `docker run` list; the added list is those words, not a second command."""
    text = ('import subprocess\nIMAGE = "lmsysorg/sglang:v0.5.12"\nrank = 0\ncmd = ["docker", "run", "-d"]\n'
            'cmd += [IMAGE, "python3", "-m", "sglang.launch_server", "--model-path", f"/model/{MODEL_DIRNAME}",\n'
            '        "--tp", "4", "--nnodes", "4", "--node-rank", str(rank)]\nsubprocess.run(cmd)\n')
    (d,) = read_path("deploy.py", text).deployments
    assert (d.engine, d.get("tp_size")) == ("sglang", 4)


def test_a_script_writing_a_fenced_readme_stays_a_script():
    """The Markdown-as-`.sh` reading asks that only headings and blank lines come before the first fence: a script
    whose here-document writes a README with a fenced command is still read as the script it is."""
    text = "# Setup\ncat > README.md <<EOF\n```bash\nvllm serve org/x\n```\nEOF\nvllm serve org/m --max-model-len 4096\n"
    (d,) = read_path("setup.sh", text).deployments
    assert d.model == "org/m"


def test_a_dockerfile_line_longer_than_any_real_one_is_not_split_by_shlex(monkeypatch):
    """Fuzz seed 109 (a case of four minutes): a 2 MB `ENV MODEL_NAME="org/...{{{{..."` line went through shlex,
    which reads one character per step of Python and grows its token by copies. A line over 64 KiB is split on
    blanks instead (the fallback an unbalanced quote already took); a short one still as a shell does."""
    import shlex

    from kvlint.launches import dockerfile

    calls = []
    monkeypatch.setattr(shlex, "split", lambda *a, **k: calls.append(a) or ["X=a b"])
    words = dockerfile._quoted_words('A="' + "{" * 70_000 + '" B=1')
    assert [w.partition("=")[0] for w in words] == ["A", "B"] and words[1] == "B=1"
    assert calls == []
    assert dockerfile._quoted_words('A="a b"') == ["X=a b"] and len(calls) == 1


def test_an_unresolved_reference_is_quoted_short_in_its_finding(tmp_path):
    """The same case's KV002 printed its 100,000-character model reference whole ("the reference ... is an
    unresolved expression"): a message quotes a value cut to its width, as every other does."""
    p = tmp_path / "Dockerfile"
    p.write_text('FROM vllm/vllm-openai:v0.7.3\nENV MODEL_NAME="org/m' + "{" * 5000 + '"\n'
                 'CMD ["sh", "-c", "python -m vllm.entrypoints.openai.api_server --model ${MODEL_NAME}"]\n')
    findings = lint([str(p)], LintOptions()).findings
    assert findings and all(len(f.message) < 1000 for f in findings)
