"""Shapes the turn-48 samples showed kvlint misreading, each read by a mechanism, not a case: every test writes the
shape small, with what it must give (and what it must not)."""

from __future__ import annotations

import pytest

from kvlint.launches import read_path
from kvlint.lint import LintOptions, lint
from tests.launches.shapes import write as _write


def test_a_recipes_command_fields_are_filled_from_the_recipes_own_keys():
    """Sample K500's sparkrun recipes (measured: three launches with `{model}` and `{resolved_model_path}` as their
    models): the runner fills a top-level `command:` string's fields from the recipe's keys, not only from
    `defaults:` (which wins), so `{model}` is the recipe's `model:` and a field of a top-level map its entry."""
    text = ("recipe_version: '2'\nmodel: org/m\ncontainer: vllm/vllm-openai@sha256:ab\ndefaults:\n"
            "  tensor_parallel: 2\n  max_model_len: 32768\n  model: org/from-defaults\ncommand: |\n"
            "  vllm serve {model} \\\n    --max-model-len {max_model_len} --tensor-parallel-size {tensor_parallel}\n")
    (d,) = read_path("sparkrun_recipe.yaml", text).deployments
    assert (d.model, d.get("max_model_len"), d.get("tensor_parallel_size")) == ("org/from-defaults", 32768, 2)
    nested = ("model: org/m\ncluster_config:\n  resolved_model_path: /srv/models/M\ncommand: |\n"
              "  vllm serve {resolved_model_path} --port {port}\n")
    (d,) = read_path("sparkrun_nested.yaml", nested).deployments
    assert d.model == "/srv/models/M" and d.model_span is not None and d.model_span.line == 5
    # a field no key of the recipe gives stays as written: the runner's to fill
    (d,) = read_path("sparkrun_open.yaml", "model: org/m\ncommand: vllm serve {path} --port 8000\n").deployments
    assert d.model == "{path}"


@pytest.mark.parametrize(("value", "edit", "expected"), [
    ("Qwen/Qwen3-8B", "//\\//--", "Qwen--Qwen3-8B"),  # the Hub cache's folder name
    ("/models/org/m", "##*/", "m"), ("/models/org/m/", "%/", "/models/org/m"),
    ("a.b.c", "%.*", "a.b"), ("a.b.c", "%%.*", "a"), ("a.b.c", "#*.", "b.c"), ("a.b.c", "##*.", "c"),
    ("abcabc", "/b/X", "aXcabc"), ("abc", "/#a/Z", "Zbc"), ("abc", "/%c/Z", "abZ"), ("abc", "/#b/Z", "abc"),
])
def test_a_pattern_edit_of_a_known_value_is_read_as_bash_does(value: str, edit: str, expected: str) -> None:
    """bash's `${NAME#pat}`, `${NAME%pat}` and `${NAME/pat/rep}` forms (sample K498: `${MODEL//\\//--}`) were left as
    written, so a path built with one was unknown; a glob of `*` and `?` is read, a bracket class left open."""
    text = f'M="{value}"\nvllm serve "/m/${{M{edit}}}" --port 8000\n'
    (d,) = read_path("edits.sh", text).deployments
    assert d.model == f"/m/{expected}" and d.model_resolved
    (d,) = read_path("edits_open.sh", 'M="a.b"\nvllm serve "/m/${M%[.]b}"\n').deployments
    assert not d.model_resolved


def test_a_hub_cache_path_with_a_run_time_snapshot_names_its_model(tmp_path) -> None:
    """Sample K498 (measured: "the reference $SNAP_IN is an unresolved expression"): `SNAP_IN="/hf/hub/models--
    ${MODEL//\\//--}/snapshots/$SNAP_NAME"`, the snapshot chosen at run time: the path's known text is the model's
    cache folder, so the launch names the model (sized when kvlint knows it, said not known offline otherwise); a
    one-word value with an unknown part that names no model stays unknown."""
    body = ('MODEL="${{MODEL:-{model}}}"\nSNAP_IN="/hf/hub/models--${{MODEL//\\//--}}/snapshots/$SNAP_NAME"\n'
            'vllm serve "$SNAP_IN" --max-model-len 4096\n')
    known = _write(tmp_path, "snap_known.sh", body.format(model="Qwen/Qwen2.5-7B-Instruct"))
    result = lint([str(known)], LintOptions(gpu="L4-24GB"))
    [status] = result.launches
    assert (status.model, status.capacity) == ("/hf/hub/models--Qwen--Qwen2.5-7B-Instruct/snapshots/$SNAP_NAME",
                                               "evaluated"), status
    unknown = _write(tmp_path, "snap_unknown.sh", body.format(model="org/Never-Published-9B"))
    [f] = [f for f in lint([str(unknown)], LintOptions(gpu="L4-24GB")).findings if f.code == "KV002"]
    assert "not known offline" in f.message
    (d,) = read_path("base_path.sh", 'M="$BASE/m"\nvllm serve "$M"\n').deployments
    assert d.model == "$M"


def test_values_with_an_engine_image_per_section_give_one_launch_per_section() -> None:
    """Sample K503's chart values (measured: silent; only the last section's image was read, and that section is
    switched off): `vllm: {phi: {image: {repository: vllm/vllm-openai}, model: A, resources: {limits:
    {nvidia.com/gpu: 1}}}, large: {enabled: false, image: ..., model: B}}`: each section holding an engine image
    and its own model is a launch, its GPUs its own section's; one switched off stays off."""
    section = ("  {name}:\n    enabled: {on}\n    image:\n      registry: docker.io\n      repository: vllm/vllm-openai\n"
               "      tag: latest\n    model: \"{model}\"\n    resources:\n      limits:\n        nvidia.com/gpu: {gpus}\n")
    text = ("vllm:\n" + section.format(name="phi", on="true", model="org/a", gpus=1)
            + section.format(name="large", on="false", model="org/b", gpus=2) + "ray:\n  head:\n    image:\n"
            "      repository: rayproject/ray\n")
    first, second = read_path("values.yaml", text).deployments
    assert (first.model, first.gpu_count, first.disabled) == ("org/a", 1, None)
    assert (second.model, second.gpu_count) == ("org/b", 2) and second.disabled is not None
    one = "vllm:\n" + section.format(name="phi", on="true", model="org/a", gpus=1)
    (only,) = read_path("values_one.yaml", one).deployments
    assert only.model == "org/a"


def test_a_platform_server_config_pointing_at_a_running_server_is_no_launch() -> None:
    """Sample K504's vllm-runtime README (measured: five launches for three): `VLLMServerConfig(mode="managed",
    model_name=M, port=8000)` makes the library start vLLM, but the same class with `mode="external"` and a
    `base_url` connects to a server already running: a client, no launch."""
    managed = ('from vllm_runtime import VLLMServerConfig\n\na = VLLMServerConfig(mode="managed", model_name="org/m", '
               'tensor_parallel_size=1, max_model_len=4096, port=8000)\n')
    (d,) = read_path("managed_runtime.py", managed).deployments
    assert d.model == "org/m"
    for k, external in enumerate(('mode="external", model_name="org/m", base_url="http://127.0.0.1:8000/v1"',
                                  'model_name="org/m", tensor_parallel_size=1, max_model_len=4096, '
                                  'base_url=f"http://{host}/v1"')):
        text = f"from vllm_runtime import VLLMServerConfig\n\na = VLLMServerConfig({external})\n"
        assert read_path(f"external_runtime_{k}.py", text).deployments == []


def test_a_toml_string_value_holding_an_engine_command_is_read() -> None:
    """Sample K504's Flox manifest (measured: said, not read): `[services.sglang] command = "exec python3.12 -m
    sglang.launch_server --model-path \\"${SGLANG_MODEL:-org/m}\\" --port $SGLANG_PORT"` beside `[vars]` and a
    multi-line `on-activate = '''...'''` hook whose lines look like pairs: the command is read at its place, the
    hook's lines are its text (never pairs)."""
    text = ('version = 1\n[vars]\nSGLANG_PORT = "30000"\n[hook]\non-activate = \'\'\'\n  _pp=""\n  x = "a"\n\'\'\'\n'
            '[services.sglang]\ncommand = "exec python3.12 -m sglang.launch_server --model-path '
            '\\"${SGLANG_MODEL:-org/m}\\" --port $SGLANG_PORT"\n')
    (d,) = read_path("manifest.toml", text).deployments
    assert (d.engine, d.model, d.model_span.line) == ("sglang", "org/m", 10)


def test_a_dry_run_wrappers_one_line_group_is_no_end_of_its_function() -> None:
    """Sample K503's CLI (measured: silent): `run() { if (( DRY_RUN )); then { printf '%q ' "$@"; echo; } >&2; else
    "$@"; fi }` on one line: the `{ ...; }` group after `then` was read as the function's end, so `run docker_ run
    ... IMAGE --config ...` ran nothing; and `docker_() { $_DOCKER "$@"; }` holds the runner in a variable named for
    it, its value chosen at run time."""
    text = ("run() {\n    if (( DRY_RUN )); then { printf '%q ' \"$@\"; echo; } >&2; else \"$@\"; fi\n}\n"
            'docker_() {\n    $_DOCKER "$@"\n}\n'
            "run docker_ run -d --gpus all vllm/vllm-openai:v0.10.0 --model org/m --tensor-parallel-size 2\n")
    (d,) = read_path("manager.sh", text).deployments
    assert (d.model, d.image, d.get("tensor_parallel_size"), d.launch_span.line) == \
        ("org/m", "vllm/vllm-openai:v0.10.0", 2, 7)
    # a variable of any other name is no runner: its command is not read as a container's
    other = "$RUNNER run -d vllm/vllm-openai:v0.10.0 --model org/m\n"
    assert read_path("other_runner.sh", other).deployments == []


def test_a_batch_job_of_a_projects_engine_named_build_given_only_variables_is_no_launch() -> None:
    """Sample K507's KEDA ScaledJob (measured: a launch): `image: ...azurecr.io/vllm-whisper-batch:latest` with no
    command, `MODEL_NAME` in its environment and a GPU, in a workload that runs to its end: the build's own program
    does its work and exits (vLLM in process), no server. A Deployment of the same build stays a launch, and so does a
    Job of the engine's own image, whose entry point is the server."""
    pod = ("        containers:\n        - name: w\n          image: {image}\n          env:\n"
           "          - name: MODEL_NAME\n            value: org/m\n          resources:\n            limits:\n"
           "              nvidia.com/gpu: \"1\"\n        restartPolicy: {restart}\n")
    job = ("apiVersion: keda.sh/v1alpha1\nkind: ScaledJob\nmetadata:\n  name: j\nspec:\n  jobTargetRef:\n"
           "    template:\n      spec:\n" + pod.format(image="acr.io/vllm-whisper-batch:latest", restart="Never"))
    assert read_path("scaledjob.yaml", job).deployments == []
    deploy = ("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\nspec:\n  template:\n    spec:\n"
              + "\n".join(line[2:] for line in pod.format(image="acr.io/vllm-whisper-batch:latest",
                                                            restart="Always").split("\n")))
    assert [d.model for d in read_path("deployment.yaml", deploy).deployments] == ["org/m"]
    stock = job.replace("acr.io/vllm-whisper-batch:latest", "vllm/vllm-openai:v0.10.0")
    assert [d.engine for d in read_path("stock_job.yaml", stock).deployments] == ["vllm"]


def test_a_compose_file_in_a_json_string_is_read_as_compose() -> None:
    """Sample K507's dstack deployment JSON (measured: two launches said, not read): `"docker_compose_file":
    "services:\\n  vllm:\\n    image: vllm/vllm-openai:v0.9.1\\n    command: --model org/m ..."`, one line of escaped
    lines: its services are the launches, placed on that line."""
    compose = ("services:\\n  proxy:\\n    image: org/panda-vllm-proxy:0.0.2\\n  vllm-a:\\n    image: "
               "vllm/vllm-openai:v0.9.1\\n    command: --model org/a --max-model-len 8192\\n  vllm-b:\\n    image: "
               "vllm/vllm-openai:v0.9.1\\n    command: --model org/b\\n")
    text = '{"manifest_version": 2, "runner": "docker-compose", "docker_compose_file": "' + compose + '"}\n'
    found = read_path("deployment.json", text).deployments
    assert [(d.model, d.model_span.line) for d in found] == [("org/a", 1), ("org/b", 1)]
    assert found[0].get("max_model_len") == 8192


def test_parsed_options_handed_to_a_function_keep_their_defaults() -> None:
    """Sample K510's launcher (measured: the model `${cli_args.model}`, at the wrong place): `def build_args(cli_args):
    return make_arg_parser(...).parse_args(["--model", cli_args.model, ...])` called as `build_args(parse_cli_args())`,
    whose parser gives `--model` a default: the parameter holds the parsed options, so `cli_args.model` is that
    default, at its place."""
    text = ("import argparse\nfrom vllm.entrypoints.openai.api_server import run_server\n"
            "from vllm.entrypoints.openai.cli_args import make_arg_parser\nfrom vllm.utils import FlexibleArgumentParser\n"
            "\ndef build_args(cli_args):\n    parser = make_arg_parser(FlexibleArgumentParser())\n"
            "    return parser.parse_args([\"--model\", cli_args.model, \"--max-model-len\", str(cli_args.max_model_len)])\n"
            "\ndef parse_cli_args():\n    p = argparse.ArgumentParser()\n"
            "    p.add_argument(\"--model\", type=str, default=\"org/m\")\n"
            "    p.add_argument(\"--max-model-len\", type=int, default=2048)\n    return p.parse_args()\n"
            "\ndef main():\n    args = build_args(parse_cli_args())\n    run_server(args)\n\nmain()\n")
    (d,) = read_path("vllm_serve.py", text).deployments
    assert (d.model, d.get("max_model_len")) == ("org/m", 2048)


def test_a_kubernetes_command_replaces_the_engine_images_entry_point() -> None:
    """Sample K508's LMCache cache server (measured: a vLLM launch of the model `/opt/venv/bin/lmcache_server`):
    `image: lmcache/vllm-openai:latest` with `command: [/opt/venv/bin/lmcache_server, 0.0.0.0, "8000"]`: a
    container's `command` replaces the image's entry point, so the program runs, not vLLM. `args:` alone still go to
    the entry point."""
    head = ("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: c\nspec:\n  template:\n    spec:\n"
            "      containers:\n        - name: s\n          image: lmcache/vllm-openai:latest\n")
    program = head + '          command: ["/opt/venv/bin/lmcache_server", "0.0.0.0", "8000"]\n'
    assert read_path("cache_server.yaml", program).deployments == []
    handed = head + '          args: ["org/m", "--max-model-len", "4096"]\n'
    (d,) = read_path("engine_args.yaml", handed).deployments
    assert (d.model, d.get("max_model_len")) == ("org/m", 4096)


def test_a_recipe_of_its_own_container_with_an_engine_config_key_gives_its_roles() -> None:
    """Sample K513's srt-slurm recipes for vLLM (measured: said, not read): `model: {path: /models/k3, container:
    .../pytorch+25+12+py3.sqsh}` (a build named for no engine) and `backend: {vllm_config: {prefill: {...}, decode:
    {...}}}`: the key spelled for the engine's configuration names it, one launch per role; a training config's
    `vllm:` map of the same settings beside a container stays no launch."""
    roles = ("model:\n  path: /models/k3\n  container: /images/pytorch+25+12+py3.sqsh\nbackend:\n  {key}:\n"
             "    prefill:\n      tensor-parallel-size: 8\n      gpu-memory-utilization: 0.9\n      max-model-len: 8192\n"
             "    decode:\n      tensor-parallel-size: 4\n      gpu-memory-utilization: 0.9\n      max-model-len: 8192\n")
    found = read_path("recipe_vllm.yaml", roles.format(key="vllm_config")).deployments
    assert [(d.engine, d.model, d.get("tensor_parallel_size")) for d in found] == \
        [("vllm", "/models/k3", 8), ("vllm", "/models/k3", 4)]
    assert read_path("training_vllm.yaml", roles.format(key="vllm")).deployments == []


def test_a_runner_variable_is_named_for_the_runner_itself() -> None:
    """The runner-variable reading (K503's `$_DOCKER run ...`) takes a variable named for the runner or its command
    (`$DOCKER`, `${PODMAN_CMD}`, `$CONTAINER_RUNTIME`), never one named for something of the runner's (`$DOCKER_IMAGE`,
    `$DOCKER_OPTS`)."""
    from kvlint.launches.docker_run import runner_variable

    taken = ["$DOCKER", "$_DOCKER", "${PODMAN_CMD}", "$CONTAINER_RUNTIME", '"$DOCKER"', "$SUDO_DOCKER"]
    assert [w for w in [*taken, "$DOCKER_IMAGE", "$DOCKER_OPTS", "$RUNNER", "$IMAGE"] if runner_variable(w)] == taken
