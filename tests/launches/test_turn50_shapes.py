"""Shapes the turn-50 samples (and turn 49's leftovers) showed kvlint misreading, each read by a mechanism, not a
case: every test writes the shape small, with what it must give (and what it must not)."""

from __future__ import annotations

from kvlint.launches import read_path


def test_a_command_printed_by_a_function_defined_apart_from_its_caller_is_placed_where_it_is_written():
    """Sample K519 (turn 49's leftover: a launch at the call, none at the text): `main` calls `build` defined above
    it; the printed command's words sit in `build`'s body, outside the view of `main`'s. The launch and its values
    point at the written text, in whichever order the two bodies stand."""
    build = 'build() {\n  local cmd="python -m vllm.entrypoints.openai.api_server"\n' \
            '  cmd="${cmd} --model $1"\n  cmd="${cmd} --max-model-len 4096"\n  echo "${cmd}"\n}\n'
    main = 'main() {\n  local c\n  c=$(build "${M}")\n  ${c}\n}\n'
    for text, line in ((build + main, 5), (main + build, 10)):
        (d,) = read_path("run.sh", "#!/bin/bash\n" + text + 'main "$@"\n').deployments
        span = d.settings["max_model_len"].span
        assert (d.get("max_model_len"), span.line if span else 0) == (4096, line)


def test_a_sentence_about_the_engine_handed_to_a_helper_is_no_command():
    """Sample K536 (measured: three launches for none): helpers a sourced file defines (`die`, `ok`) handed sentences
    that start with the engine's command (`die "vllm serve exited immediately"`, `ok "vllm serve started (logs:
    ...)"`). A model that is a bare word of letters, or words the engine takes as no argument before its first
    option, make the argument a sentence; a command handed whole to a job submitter stays a launch."""
    text = ('#!/bin/bash\nsource "$(dirname "$0")/lib.sh"\nstep() {\n  die "vllm serve exited immediately"\n'
            '  ok "vllm serve started (logs: ssh $HEAD docker logs -f x)"\n  die "vllm serve is no longer running"\n}\n'
            'step\n')
    assert read_path("start.sh", text).deployments == []
    (d,) = read_path("submit.sh", 'python submit_job.py run1 "vllm serve org/m --max-model-len 4096" --ngpu 2\n').deployments
    assert (d.model, d.get("max_model_len")) == ("org/m", 4096)


def test_a_systemd_unit_under_a_yaml_name_is_read_as_the_unit_it_is():
    """Sample K539 (measured: a KV001 error, noise): `uttera-tts-vllm.yml` is a systemd unit (`[Unit]`, `Key=Value`),
    installed by copying it to `.service`; it is read as a unit, as `.service` files are: no invalid-YAML error, and
    an `ExecStart=` that runs the engine is its launch. A YAML file that does not parse for another reason still
    gets its error."""
    unit = "# a unit\n\n[Unit]\nDescription=TTS vLLM Server\n\n[Service]\nExecStart={}\n"
    plain = read_path("svc.yml", unit.format("/opt/app/bin/uvicorn main:app --port 9004"))
    assert (plain.deployments, [f.code for f in plain.findings]) == ([], [])
    (d,) = read_path("svc.yml", unit.format("/opt/v/bin/vllm serve org/m --max-model-len 4096")).deployments
    assert (d.model, d.get("max_model_len")) == ("org/m", 4096)
    crlf = read_path("svc.yml", unit.format("/opt/app/bin/uvicorn main:app").replace("\n", "\r\n"))
    assert [f.code for f in crlf.findings] == []
    broken = read_path("svc.yml", "services:\n  vllm:\n    image: vllm/vllm-openai\n   command: [x\n")
    assert "KV001" in [f.code for f in broken.findings]


def test_an_object_that_starts_the_engines_server_is_a_launch():
    """Samples K541 and K542 (measured: silent): SGLang's own `sgl.Runtime(model_path=M, ...)` runs the server in a
    process of its own; testcontainers' `VLLMContainer(model_name=M, max_model_len=..., port=...)` starts the engine's
    container. Each is a launch, its keywords that are the engine's flags read as them and its own (`port`, an image)
    left out. The engine's in-process classes (`LLM`, `sgl.Engine`) are no server, and a class the file defines is
    read with its body."""
    rt = 'import sglang as sgl\nrt = sgl.Runtime(model_path="org/m", context_length=4096, disable_radix_cache=True)\n'
    (d,) = read_path("server.py", rt).deployments
    assert (d.engine, d.model, d.get("context_length"), d.get("disable_radix_cache")) == ("sglang", "org/m", 4096, True)
    box = ('from testcontainers.vllm import VLLMContainer\n\nwith VLLMContainer(\n    model_name="org/m",\n'
           '    max_model_len=1024,\n    port=8000,\n    image="x/y",\n) as v:\n    pass\n')
    (e,) = read_path("example.py", box).deployments
    assert (e.engine, e.model, e.get("max_model_len"), e.unknown_flags) == ("vllm", "org/m", 1024, ())
    span = e.settings["max_model_len"].span
    assert span is not None and span.line == 5
    for text in ('from vllm import LLM\nllm = LLM(model="org/m", max_model_len=4096)\n',
                 'import sglang as sgl\ne = sgl.Engine(model_path="org/m", context_length=4096)\n',
                 'class VLLMServer:\n    def __init__(self, model_name):\n        self.m = model_name\n'
                 's = VLLMServer(model_name="org/m")\n'):
        assert read_path("p.py", text).deployments == []


def test_values_of_an_unknown_chart_running_a_build_named_for_the_engine_are_its_launch():
    """Sample K541 (measured: missed): a chart's values with `image: {repository: ghcr.io/org/dspark-vllm-gx10}`, a
    `model: {repo: M}` and a `serving:` map of keys spelled as vLLM's flags: the chart runs that build's vLLM on them.
    The values name a leader and workers, so the pod's one GPU is each pod's request, not the launch's count (no
    GPU-count error for TP 2 on a group of one). A build's name alone, beside no flag keys, is no launch."""
    values = ("image:\n  repository: ghcr.io/org/dspark-vllm-gx10\n  tag: \"0.1.1\"\nmodel:\n  repo: org/m\n"
              "topology:\n  rankLabels:\n    leader: leader\n    worker: worker\nserving:\n  tensorParallelSize: 2\n"
              "  maxModelLen: 8192\n  gpuMemoryUtilization: 0.84\nresources:\n  limits:\n    nvidia.com/gpu: 1\n")
    (d,) = read_path("chart/values.yaml", values).deployments
    assert (d.engine, d.model, d.get("max_model_len"), d.get("tensor_parallel_size")) == ("vllm", "org/m", 8192, 2)
    assert d.gpu_count is None and any("each pod's request" in n for n in d.notes)
    lone = values.replace("topology:\n  rankLabels:\n    leader: leader\n    worker: worker\n", "")
    (e,) = read_path("chart/values.yaml", lone).deployments
    assert e.gpu_count == 1
    bare = "image:\n  repository: ghcr.io/org/dspark-vllm-gx10\nmodel:\n  repo: org/m\n"
    assert read_path("chart/values.yaml", bare).deployments == []


def test_a_slice_of_the_positional_parameters_is_the_arguments_it_names():
    """Sample K543 (measured: missed): `rssh() { ... ssh -o BatchMode=yes "$1" "${@:2}"; }` runs its arguments from
    the second on over SSH; `${*:2}` is them as one word, `${@:2:1}` the second alone."""
    text = ('rssh() {{ ssh -o BatchMode=yes "$1" {}; }}\n'
            'rssh "$h" "docker run -d --gpus all --entrypoint vllm $IMAGE serve /model --max-model-len 4096"\n')
    for sliced in ('"${@:2}"', '"${*:2}"', '"${@:2:1}"'):
        (d,) = read_path("start.sh", text.format(sliced)).deployments
        assert (d.engine, d.model, d.get("max_model_len")) == ("vllm", "/model", 4096)
    assert read_path("start.sh", text.format('"${@:3}"')).deployments == []


def test_arms_that_each_give_an_array_a_whole_command_are_a_launch_each():
    """Sample K548 (measured: missed): `if [[ $KIND == mtp ]]; then cmd=(python -m sglang.launch_server --model-path
    "$MODEL_PATH" ...); else cmd=(python -m sglang.launch_server --model-path meta-llama/... ...); fi` then
    `"${cmd[@]}" &`: two alternative commands, two launches, the arm whose model is a run-time argument included.
    An arm that sets only the arguments of one command written once stays a configuration of it."""
    text = ('#!/bin/bash\nMODEL_PATH="$1"\nif [[ "$KIND" == mtp ]]; then\n  cmd=(\n    python -m sglang.launch_server\n'
            '    --model-path "$MODEL_PATH"\n  )\nelse\n  cmd=(\n    python -m sglang.launch_server\n'
            '    --model-path meta-llama/Meta-Llama-3.1-8B-Instruct\n  )\nfi\n"${cmd[@]}" > log 2>&1 &\n')
    deps = read_path("worker.sh", text).deployments
    assert sorted((d.launch_span.line if d.launch_span else 0, d.model) for d in deps) == \
        [(5, "$MODEL_PATH"), (10, "meta-llama/Meta-Llama-3.1-8B-Instruct")]
    args = ('if [ "$BIG" = 1 ]; then\n  ARGS=(--tensor-parallel-size 8)\nelse\n  ARGS=(--tensor-parallel-size 4)\nfi\n'
            'vllm serve org/m "${ARGS[@]}"\n')
    assert len({d.launch_span for d in read_path("tp.sh", args).deployments}) == 1


def test_a_harness_entry_naming_the_engine_cli_its_model_and_arguments_is_a_launch():
    """Sample K549 (measured: eight launches at the wrong lines, eight missed): a scheduler config's instances, each
    `launch: {executable: vllm, model: M, args: [--omni, ...]}` beside `stop: {executable: pkill, args: [-f, "vllm
    serve M --port {endpoint_port}"]}`. The launch entry is `vllm serve M ...`, at its model; the stop entry is a
    pattern pkill matches, no launch."""
    text = ('instances:\n  - id: w0\n    launch:\n      executable: vllm\n      model: org/m\n      args:\n'
            '        - --max-num-seqs\n        - "16"\n    stop:\n      executable: pkill\n      args:\n        - -f\n'
            '        - "vllm serve org/m --port {endpoint_port}"\n')
    (d,) = read_path("scheduler.yaml", text).deployments
    assert (d.engine, d.model, d.get("max_num_seqs"), d.model_span.line if d.model_span else 0) == \
        ("vllm", "org/m", 16, 5)


def test_what_a_program_adds_after_an_if_that_binds_its_command_in_both_arms_both_arms_gain():
    """Sample K548 (measured: two launches for one): `if cli is not None: cmd = [str(cli), "serve", model] else: cmd
    = [python, "-m", "vllm.entrypoints.openai.api_server", "--model", model]`, then `cmd.extend(["--port", ...,
    "--max-model-len", "8192"])`: both arms gain the flags, whichever ran, and the two are one server started either
    way (one launch, its flags read)."""
    text = ('import shutil, subprocess, sys\n\ndef main(model):\n    vllm_cli = shutil.which("vllm")\n'
            '    if vllm_cli is not None:\n        cmd = [str(vllm_cli), "serve", model]\n    else:\n'
            '        cmd = [sys.executable, "-m", "vllm.entrypoints.openai.api_server", "--model", model]\n'
            '    cmd.extend(["--port", "8000", "--max-model-len", "8192"])\n    subprocess.Popen(cmd)\n')
    (d,) = read_path("start.py", text).deployments
    assert (d.engine, d.get("max_model_len"), d.get("port")) == ("vllm", 8192, 8000)


def test_a_server_configuration_sizing_prefill_and_decode_roles_is_two_launches():
    """Sample K542 (measured: one launch for two): `VLLMPDServerConfig(model=M, prefill_nodes=2, decode_nodes=2,
    vllm_args={...})` imported from the project's tool, which submits a prefill and a decode engine: two launches
    (counting rule 3), each named for its role. The same class with no role keywords is one."""
    text = ('import os\nfrom tools.inference.vllm_pd_server import VLLMPDServerConfig\n\nconfig = VLLMPDServerConfig(\n'
            '    name="pd",\n    model=os.environ.get("MODEL", "/path/to/model"),\n    prefill_nodes=2,\n'
            '    decode_nodes=2,\n    gpus_per_node=4,\n)\n')
    deps = read_path("pd.py", text).deployments
    assert sorted(d.name.rsplit(" ", 1)[-1] for d in deps) == ["decode", "prefill"]
    one = text.replace("    prefill_nodes=2,\n    decode_nodes=2,\n", "    nodes=2,\n")
    assert len(read_path("one.py", one).deployments) == 1


def test_a_helper_that_records_the_command_it_is_handed_runs_none():
    """Sample K544 (measured: two launches for one): `write_command "$DIR/cmd.txt" sglang serve "${ARGS[@]}"`, a
    sourced helper that saves the command, then `sglang serve "${ARGS[@]}" &` on the next line: one launch, the run.
    A helper whose name says it runs what it logs (`log_and_run`) still runs it."""
    text = ('source lib.sh\nARGS=(--model-path org/m --context-length 8192)\n'
            'write_command "$DIR/cmd.txt" sglang serve "${ARGS[@]}"\nsglang serve "${ARGS[@]}" > log 2>&1 &\n')
    assert [d.launch_span.line if d.launch_span else 0 for d in read_path("bench.sh", text).deployments] == [4]
    ran = text.replace("write_command", "log_and_run").replace('sglang serve "${ARGS[@]}" > log 2>&1 &\n', "")
    assert len(read_path("bench2.sh", ran).deployments) == 1
