"""Shapes the turn-46 samples showed kvlint passing over or misreading, each read by a mechanism, not a case: every
test writes the shape small, with what it must give (and what it must not)."""

from __future__ import annotations

from kvlint.launches import read_path
from tests.launches.shapes import kv008 as _kv008
from tests.launches.shapes import write as _write

_GENERATOR = """model_name: org/big-model
tensor_parallel_size: 4
tool_version: 0.6.0
vllm_port: 8000
api_key: sk-
gpu_memory_utilization: 0.95
tool_call_parser: hermes
enable_auto_tool_choice: true
override_generation_config:
  max_new_tokens: 16384
"""

_OFFLINE = """model_name: org/big-model
tensor_parallel_size: 4
gpu_memory_utilization: 0.95
max_model_len: 8192
batch_size: 64
"""



def test_a_tools_config_of_a_model_and_the_servers_own_options_is_a_launch(tmp_path):
    """K452's generator config: `model_name` beside vLLM's option names, two of them its HTTP front end's
    (`api_key`, `tool_call_parser`, `enable_auto_tool_choice`), which a tool turns into `vllm serve`: one launch with
    its tensor parallelism. The same keys without a server's options (an offline run's config) stay no launch."""
    deps = read_path(_write(tmp_path, "Qwen-TP4.yml", _GENERATOR)).deployments
    assert [(d.engine, d.model, d.settings["tensor_parallel_size"].value) for d in deps] == [("vllm", "org/big-model", 4)]
    assert not read_path(_write(tmp_path, "offline.yml", _OFFLINE)).deployments


def test_engine_flags_handed_to_a_sourced_function_beside_a_model_variable_are_said(tmp_path):
    """K459: `launch "arm" --tensor-parallel-size 8 ...` with `MODEL=org/m` set above, the function from a file the
    script sources (not in the tree): no launch kvlint can read, so a KV008 at the command, never silent. Without a
    model anywhere the same flags stay unsaid (a benchmark's sweep)."""
    script = ("#!/bin/bash\n# runs the vLLM image\nsource ../common/_common.sh\nMODEL=org/m\n"
              "launch \"arm\" \\\n  --tensor-parallel-size 8 \\\n  --gpu-memory-utilization 0.82\n")
    result = read_path(_write(tmp_path, "run_arm.sh", script))
    assert not result.deployments
    assert _kv008(result) == [(5, 1)]
    sweep = script.replace("MODEL=org/m\n", "")
    assert not _kv008(read_path(_write(tmp_path, "sweep.sh", sweep)))


_BUILDER = '''import shlex


def build(image, model_path, tp, env_flags, nccl_prefix):
    return (
        f"{nccl_prefix}docker run -d --gpus all --network host "
        f"{' '.join(env_flags)} "
        f"{shlex.quote(image)} "
        f"python -m sglang.launch_server "
        f"--model-path {model_path} --tp {tp} --port 30000"
    )
'''


def test_an_expansion_before_the_program_is_its_prefix_not_the_program(tmp_path):
    """K465: a Python builder's `f"{nccl_prefix}docker run ... python -m sglang.launch_server ..."`, and a script's
    `$SUDO docker run ...`: the expansion is assignments or a prefix command, the program is docker (one launch
    each). An expansion before a word that is no launcher stays the program (no launch)."""
    deps = read_path(_write(tmp_path, "sglang_docker.py", _BUILDER)).deployments
    assert [(d.engine, d.launch_span.line) for d in deps] == [("sglang", 6)]
    script = ("#!/bin/bash\n$SUDO docker run --gpus all vllm/vllm-openai:v0.10.0 --model org/m "
              "--max-model-len 4096\n")
    assert [d.model for d in read_path(_write(tmp_path, "run.sh", script)).deployments] == ["org/m"]
    other = "#!/bin/bash\n$RUNNER serve-it --model org/m --max-model-len 4096\n"
    assert not read_path(_write(tmp_path, "other.sh", other)).deployments


def test_a_containers_shell_string_is_written_for_the_engine_its_script_names(tmp_path):
    """K466: `docker run --entrypoint bash "$IMAGE" -lc 'python3 /opt/launch_secure.py --model-path M --tp 2 ...'`
    in a script about SGLang: the string names no engine itself, the script does, so the wrapper handed SGLang's
    flags is read as SGLang's launch. The same string in a script that names no engine stays unread."""
    script = ("#!/bin/bash\n# ENGINE node\ndocker run --gpus all --entrypoint bash \"${IMAGE_REF}\" \\\n"
              "  -lc 'python3 -u /opt/q/launch_secure.py --model-path /models/q --served-model-name q \\\n"
              "    --tp 2 --context-length 4096 --mem-fraction-static 0.8 --port 30000 2>&1 | tee log'\n")
    deps = read_path(_write(tmp_path, "start-node.sh", script.replace("ENGINE", "sglang"))).deployments
    assert [(d.engine, d.model, d.launch_span.line) for d in deps] == [("sglang", "/models/q", 4)]
    assert not read_path(_write(tmp_path, "plain.sh", script.replace("ENGINE", "server"))).deployments


def test_an_empty_default_or_an_array_before_a_local_image_is_more_options(tmp_path):
    """K466: `docker run ... ${EXTRA_ENV:-} "${HYBRID_ENV[@]}" "$IMAGE" "$SNAP" --max-model-len ...` with IMAGE a
    local build's name (no registry, no tag): an expansion that may be empty or many words is never the image, so
    the local image is, and its vLLM flags make the launch."""
    for extra in ("${EXTRA_ENV:-}", '"${HYBRID_ENV[@]}"'):
        script = ("#!/bin/bash\nIMAGE=\"${IMAGE:-local-build}\"\ndocker run -d --gpus all \\\n  " + extra + " \\\n"
                  "  \"$IMAGE\" \\\n  \"$SNAP\" --served-model-name q --port 8000 \\\n"
                  "  --max-model-len 4096 --gpu-memory-utilization 0.9\n")
        deps = read_path(_write(tmp_path, "serve.sh", script)).deployments
        assert [(d.engine, d.launch_span.line) for d in deps] == [("vllm", 3)], extra


def test_a_source_strings_newline_escapes_end_its_commands(tmp_path):
    """K467: a TSX page's `code: "pip install sglang\\npython -m sglang.launch_server --model-path M ..."`: each
    `\\n` escape ends a command line, so the launch is read with its model. An escaped backslash before an `n` is no
    line end."""
    page = ('const steps = [\n  {\n    code: "pip install sglang\\npython -m sglang.launch_server --model-path '
            'org/m --tp 2",\n  },\n  {\n    code: "pip install vllm\\nvllm serve org/n --served-model-name n\\n'
            'curl localhost:8000",\n  },\n];\n')
    deps = read_path(_write(tmp_path, "page.tsx", page)).deployments
    assert [(d.engine, d.model, d.launch_span.line) for d in deps] == [("sglang", "org/m", 3), ("vllm", "org/n", 6)]


_APP = '''import uvicorn
from vllm import AsyncEngineArgs, AsyncLLMEngine
from vllm.entrypoints.openai.api_server import build_app

engine_args = AsyncEngineArgs(model="org/m", tensor_parallel_size=2, max_model_len=2048)

if __name__ == "__main__":
    engine = AsyncLLMEngine.from_engine_args(engine_args)
    app = build_app(engine)
    uvicorn.run(app, host="0.0.0.0", port=8000)
'''


def test_an_engine_served_by_its_own_app_factory_is_a_launch(tmp_path):
    """K465: `AsyncEngineArgs(...)`, then vLLM's own `build_app(engine)` served with `uvicorn.run`: the API server
    `vllm serve` starts, built by hand; one launch at the app, with its settings. The engine used in process alone
    (no app served) stays no launch."""
    deps = read_path(_write(tmp_path, "start_server.py", _APP)).deployments
    assert [(d.model, d.launch_span.line, d.settings["tensor_parallel_size"].value) for d in deps] == [("org/m", 9, 2)]
    offline = _APP.replace("    app = build_app(engine)\n    uvicorn.run(app, host=\"0.0.0.0\", port=8000)\n", "")
    assert not read_path(_write(tmp_path, "offline.py", offline)).deployments


_COMPOSE = """services:
  llm:
    image: ghcr.io/org/field-build@sha256:353d7e1597559b7928baf4bfa749b3bf4e7309ef239eb285f32531d4c1a4d13b
    environment:
      MODEL: /model
      MAX_MODEL_LEN: "${MAX_MODEL_LEN:-65536}"
      MAX_NUM_SEQS: "16"
      GPU_MEMORY_UTILIZATION: "0.90"
    deploy:
      resources:
        reservations:
          devices:
            - driver: nvidia
              count: 4
              capabilities: [gpu]
"""


def test_a_gpu_service_whose_environment_spells_one_engines_options_is_its_launch(tmp_path):
    """K469: a field build named for no engine, on four GPUs, configured by `MODEL` and three variables spelled as
    options only vLLM has: its entry point's vLLM launch, with the length read. Without the GPU reservation (a
    client's settings) or with two such variables only, no launch."""
    deps = read_path(_write(tmp_path, "compose.yaml", _COMPOSE)).deployments
    assert [(d.engine, d.model, d.settings["max_model_len"].value) for d in deps] == [("vllm", "/model", 65536)]
    client = _COMPOSE.split("    deploy:")[0]
    assert not read_path(_write(tmp_path, "client.yaml", client)).deployments
    two = _COMPOSE.replace('      MAX_NUM_SEQS: "16"\n', "")
    assert not read_path(_write(tmp_path, "two.yaml", two)).deployments


_PRESETS = '''from launcher_library import SlurmLauncher

PRESETS = {
    "judge": {
        "served_model_name": "org/judge",
        "framework": "vllm",
        "nodes": 1,
        "framework_args": (
            "--model org/judge "
            "--host 0.0.0.0 --port 8080 "
            "--tensor-parallel-size 4 --max-model-len 26000"
        ),
    },
    "bench": {"backend": "vllm", "args": "--model org/judge --num-prompts 100 --request-rate 4"},
}
'''


def test_a_python_dict_naming_its_engine_beside_the_engines_arguments_is_a_launch(tmp_path):
    """K471: judge presets `{"framework": "vllm", "framework_args": "--model M ... --tensor-parallel-size 4"}` that a
    launcher library turns into the server: the engine's launch with those flags, placed at the string. A benchmark's
    options beside its `backend` (`--num-prompts`, no server flag) stay no launch."""
    deps = read_path(_write(tmp_path, "launch_judge.py", _PRESETS)).deployments
    assert [(d.engine, d.model, d.launch_span.line, d.settings["tensor_parallel_size"].value) for d in deps] == \
        [("vllm", "org/judge", 9, 4)]


def test_a_dynamo_graph_served_from_its_config_is_said(tmp_path):
    """K468: Dynamo 0.3's `dynamo serve graphs.disagg_router:Frontend -f ./configs/disagg_router.yaml` in a vLLM
    runbook and in a script: the engine workers' model and flags are the config's sections, which kvlint does not
    read, so a KV008 at the command, never silent. A `dynamo` command that serves no graph stays unsaid."""
    page = ("# Disaggregated vLLM with Dynamo\n\nThe model is set in the config.\n\n```bash\ncd examples/llm\n"
            "dynamo serve graphs.disagg_router:Frontend -f ./configs/disagg_router.yaml\n```\n")
    assert _kv008(read_path(_write(tmp_path, "README.md", page))) == [(7, 1)]
    script = "#!/bin/bash\n# vllm workers\ncd examples/llm && uv run dynamo serve components.worker:VllmWorker -f c.yaml\n"
    assert _kv008(read_path(_write(tmp_path, "run.sh", script))) == [(3, 27)]
    other = "#!/bin/bash\n# vllm workers\ndynamo build graphs.disagg:Frontend\n"
    assert not _kv008(read_path(_write(tmp_path, "build.sh", other)))


_HARNESS = '''name = "w4-draft"

[server]
model = "org/m"
served_model_name = "m"
max_model_len = 8192
max_num_seqs = 4
gpu_memory_utilization = 0.90

[benchmark]
concurrency = 1
'''


def test_a_harness_tomls_server_table_is_a_launch(tmp_path):
    """K475: a benchmark harness's `[server]` table (`model`, `served_model_name` and vLLM's option names), which the
    harness turns into `vllm serve`: one launch, its model at its TOML line and column, its length read. The same
    keys in a table not named for a server, with no second front-end option (an offline run's), stay no launch."""
    deps = read_path(_write(tmp_path, "w4_draft.toml", _HARNESS)).deployments
    assert [(d.engine, d.model, d.settings["max_model_len"].value) for d in deps] == [("vllm", "org/m", 8192)]
    assert [(d.model_span.line, d.model_span.col) for d in deps] == [(4, 9)]
    offline = _HARNESS.replace("[server]", "[offline]")
    assert not read_path(_write(tmp_path, "offline.toml", offline)).deployments
