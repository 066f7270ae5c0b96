"""docker compose substitutes `${VAR}` from the `.env` beside the compose file; kvlint reads it too."""

from __future__ import annotations

from kvlint.launches import read_path
from kvlint.launches.compose import dotenv_beside

COMPOSE = """services:
  a:
    image: vllm/vllm-openai:v0.33.0
    command: ["--model", "org/m", "--max-model-len", "${MAX_LEN}", "-tp", "${TP:-2}"]
  b:
    image: vllm/vllm-openai:v0.33.0
    command: --model org/m --max-model-len ${MAX_LEN:-4096} --max-num-seqs $SEQS
"""


def _deps(tmp_path, dotenv: str | None):
    (tmp_path / "compose.yaml").write_text(COMPOSE)
    if dotenv is not None:
        (tmp_path / ".env").write_text(dotenv)
    return read_path(str(tmp_path / "compose.yaml")).deployments


def test_dotenv_syntax(tmp_path):
    (tmp_path / "x.yaml").write_text("")
    (tmp_path / ".env").write_text("# comment\nA=1\nexport B = two \nC='x # y'\nD=\"q\"  # note\nE=v # trailing\nnot a line\n")
    env, path = dotenv_beside(str(tmp_path / "x.yaml"))
    assert env == {"A": "1", "B": "two", "C": "x # y", "D": "q", "E": "v"} and path.endswith(".env")


def test_dotenv_values_substitute_with_note_and_compose_span(tmp_path):
    a, b = _deps(tmp_path, "MAX_LEN=20000\nSEQS=64\n")
    mml = a.settings["max_model_len"]
    assert (mml.value, mml.span.line, mml.origin) == (20000, 4, "variable")
    assert mml.span.path.endswith("compose.yaml") and a.get("tensor_parallel_size") == 2
    assert any("${MAX_LEN} = '20000' from .env" in n for n in a.notes)
    assert (b.get("max_model_len"), b.get("max_num_seqs")) == (20000, 64)
    line = COMPOSE.splitlines()[6]
    assert (b.settings["max_model_len"].span.col, b.settings["max_model_len"].span.end_col) == (
        line.index("${MAX_LEN") + 1, line.index(" --max-num") + 1)


def test_without_dotenv_defaults_apply_and_bare_variables_stay_unresolved(tmp_path):
    a, b = _deps(tmp_path, None)
    assert a.settings["max_model_len"].resolved is False and not any(".env" in n for n in a.notes)
    assert b.get("max_model_len") == 4096 and b.settings["max_model_len"].origin == "default-expansion"
    assert b.settings["max_num_seqs"].resolved is False


def test_image_entrypoint_launch_points_at_the_command(tmp_path):
    from kvlint.lint import LintOptions, lint

    a, b = _deps(tmp_path, None)
    assert (a.launch_span.line, a.launch_span.col) == (4, 14) and b.launch_span.line == 7
    result = lint([str(tmp_path / "compose.yaml")], LintOptions(select=("KV003",)))
    assert [(s.span.line, s.span.col) for s in result.launches] == [(4, 14), (b.launch_span.line, b.launch_span.col)]


def test_device_ids_written_as_one_comma_list_are_each_a_gpu(tmp_path):
    """Sample K25 (measured: a wrong KV204 error "-tp 2 needs 2 GPUs, the instance requests 1"): `device_ids:
    ["5,6"]` is two devices (the NVIDIA runtime joins the ids with commas into NVIDIA_VISIBLE_DEVICES)."""
    from kvlint.launches import read_path

    p = tmp_path / "docker-compose.yml"
    p.write_text("services:\n  vllm:\n    image: vllm/vllm-openai:v0.10.1\n    command: >\n      --model org/m\n"
                 "      --tensor-parallel-size 2\n    deploy:\n      resources:\n        reservations:\n"
                 '          devices:\n            - driver: nvidia\n              device_ids: ["5,6"]\n'
                 "              capabilities: [gpu]\n")
    (dep,) = read_path(str(p)).deployments
    assert dep.gpu_count == 2


def test_a_gpu_service_of_an_image_tagged_for_the_engine_is_configured_by_its_environment(tmp_path):
    """Sample K24's Blackwell compose (measured: KV008 only): `image: ghcr.io/org/infer:vllm` and `:sglang` on a GPU
    reservation, configured by MODEL_PATH, MAX_MODEL_LEN and TP_SIZE: each is its engine's launch, and TP_SIZE
    (SGLang's spelling) is vLLM's tensor-parallel size, never left at 1. Without a GPU reservation, none."""
    from kvlint.launches import read_path

    p = tmp_path / "docker-compose.yml"
    body = ("services:\n  vllm:\n    image: ghcr.io/org/infer:vllm\n    environment:\n"
            "      - MODEL_PATH=${MODEL_PATH:-Qwen/Qwen2.5-7B-Instruct}\n      - TP_SIZE=${TP_SIZE:-2}\n"
            "      - MAX_MODEL_LEN=8192\n")
    gpus = ("    deploy:\n      resources:\n        reservations:\n          devices:\n"
            "            - driver: nvidia\n              count: all\n              capabilities: [gpu]\n")
    p.write_text(body + gpus)
    (dep,) = read_path(str(p)).deployments
    assert (dep.engine, dep.model, dep.get("tensor_parallel_size"), dep.get("max_model_len")) == \
        ("vllm", "Qwen/Qwen2.5-7B-Instruct", 2, 8192)
    p.write_text(body)
    assert read_path(str(p)).deployments == []


def test_a_mounted_wrapper_handed_a_variable_then_vllm_flags_is_a_launch_of_that_model(tmp_path):
    """Sample K107: `entrypoint: [/usr/local/bin/run-vllm.sh]` mounted from a script not in the tree, `command:
    [${INFER_MODEL}, --max-model-len, "4096", ...]`: the variable is the model `vllm serve "$@"` takes first."""
    from kvlint.launches import read_path

    path = tmp_path / "docker-compose.yml"
    path.write_text("services:\n  infer:\n    image: vllm/vllm-openai:v0.13.0\n"
                    "    entrypoint: [\"/usr/local/bin/run-vllm.sh\"]\n"
                    "    volumes:\n      - ./run-vllm.sh:/usr/local/bin/run-vllm.sh:ro\n"
                    "    command:\n      - ${INFER_MODEL}\n      - --max-model-len\n      - \"4096\"\n"
                    "      - --gpu-memory-utilization\n      - \"0.90\"\n")
    (d,) = read_path(str(path)).deployments
    assert (d.model, d.model_span.line, d.get("max_model_len")) == ("${INFER_MODEL}", 8, 4096)


def test_a_mounted_python_entrypoint_not_in_the_tree_is_a_launch_of_its_model_variable(tmp_path):
    """Sample K108: `entrypoint: [python3, /opt/app/sglang_entrypoint.py]` mounted from a file not in the tree, on
    SGLang's image, `SGLANG_MODEL_ID: ${SGLANG_MODEL_ID:-}` in its environment: the launch, its model that variable
    (an empty default is the run's to give), where the environment names it."""
    from kvlint.launches import read_path

    path = tmp_path / "compose.yaml"
    path.write_text("services:\n  model:\n    image: ${SGLANG_IMAGE:-lmsysorg/sglang:v0.5.17}\n"
                    "    entrypoint:\n      - python3\n      - /opt/app/sglang_entrypoint.py\n"
                    "    environment:\n      SGLANG_MODEL_ID: ${SGLANG_MODEL_ID:-}\n"
                    "    volumes:\n      - ./docker/sglang_entrypoint.py:/opt/app/sglang_entrypoint.py:ro\n")
    (d,) = read_path(str(path)).deployments
    assert (d.engine, d.model, d.model_resolved, d.model_span.line) == ("sglang", "${SGLANG_MODEL_ID:-}", False, 8)


def test_a_mode_word_to_an_engine_named_build_is_its_entry_point_s_not_a_model(tmp_path):
    """Sample K112: `image: dgx-vllm:latest` with `command: ray-head` (read as the model "ray-head") and `command:
    serve` with `MODEL=...` in its environment, on the NVIDIA runtime: the first is no launch, the second the
    environment's launch."""
    from kvlint.launches import read_path

    path = tmp_path / "docker-compose.yml"
    path.write_text("services:\n  ray-head:\n    image: dgx-vllm:latest\n    runtime: nvidia\n    command: ray-head\n"
                    "  vllm-server:\n    image: dgx-vllm:latest\n    runtime: nvidia\n    environment:\n"
                    "      - MODEL=org/served\n      - TENSOR_PARALLEL_SIZE=2\n    command: serve\n")
    (d,) = read_path(str(path)).deployments
    assert (d.model, d.model_span.line, d.get("tensor_parallel_size")) == ("org/served", 10, 2)


CLUSTER = """services:
  head:
    image: ${VLLM_IMAGE}
    profiles: ["head"]
    environment:
      - ROLE=head
      - MODEL=${MODEL:-org/m}
      - MAX_MODEL_LEN=${MAX_MODEL_LEN:-8192}
    deploy: {resources: {reservations: {devices: [{driver: nvidia, count: 1, capabilities: [gpu]}]}}}
    volumes:
      - ${ENTRYPOINT_FILE:-./entrypoints/entrypoint.sh}:/entrypoint.sh:ro
    entrypoint: ["bash", "/entrypoint.sh"]
  worker:
    image: ${VLLM_IMAGE}
    profiles: ["worker"]
    environment:
      - ROLE=worker
      - MODEL=${MODEL:-org/m}
      - MAX_MODEL_LEN=${MAX_MODEL_LEN:-8192}
    deploy: {resources: {reservations: {devices: [{driver: nvidia, count: 1, capabilities: [gpu]}]}}}
    volumes:
      - ${ENTRYPOINT_FILE:-./entrypoints/entrypoint.sh}:/entrypoint.sh:ro
    entrypoint: ["bash", "/entrypoint.sh"]
  ui:
    image: ghcr.io/open-webui/open-webui:main
"""


def test_an_engine_variable_image_running_an_unseen_script_is_one_launch_per_cluster(tmp_path):
    """Sample K116 (passed over in silence): `image: ${VLLM_IMAGE}` on GPUs running a mounted entry point script the
    tree does not hold (`${ENTRYPOINT_FILE:-./entrypoints/entrypoint.sh}:/entrypoint.sh`, its `:-` no separator),
    as a `head` and a `worker` service: one vLLM launch configured by the environment, the worker its other node."""
    (tmp_path / "compose.yaml").write_text(CLUSTER)
    (dep,) = read_path(str(tmp_path / "compose.yaml")).deployments
    assert (dep.engine, dep.name, dep.model, dep.get("max_model_len")) == ("vllm", "head", "org/m", 8192)
    assert any("worker service(s) at line(s) 23" in n for n in dep.notes)
    (tmp_path / "compose.yaml").write_text(CLUSTER.replace("${VLLM_IMAGE}", "${APP_IMAGE}"))
    assert read_path(str(tmp_path / "compose.yaml")).deployments == []


def test_a_service_building_an_image_whose_copied_script_serves_its_environment_model(tmp_path):
    """Sample K130's deepseek-docker (measured: two launches silent; the builds were not in the sample, the
    repository has them): `build: ./deepseek-r1` whose Dockerfile copies start.sh to /app/start.sh and runs it, the
    script serving `--model "${MODEL_NAME}"`, and the service's `environment: [MODEL_NAME=org/r1]`: the launch is the
    service, its model the environment's. The Dockerfile alone is the image (no launch), and so is the script."""
    from kvlint.launches import read_path

    build = tmp_path / "r1"
    build.mkdir()
    (build / "Dockerfile").write_text("FROM nvidia/cuda:12.2.2-runtime-ubuntu22.04\nRUN pip3 install vllm==0.8.5\n"
                                      "COPY start.sh /app/start.sh\nWORKDIR /app\nCMD [\"/app/start.sh\"]\n")
    (build / "start.sh").write_text('#!/bin/bash\nexec python3 -m vllm.entrypoints.openai.api_server \\\n'
                                    '    --model "${MODEL_NAME}" --tensor-parallel-size 2 --max-model-len 8192\n')
    compose = tmp_path / "docker-compose.yml"
    compose.write_text("services:\n  r1:\n    build: ./r1\n    environment:\n      - MODEL_NAME=org/r1\n")
    (dep,) = read_path(str(compose)).deployments
    assert (dep.model, dep.get("tensor_parallel_size"), dep.engine_version, dep.launch_span.line) == \
        ("org/r1", 2, "0.8.5", 3)
    assert read_path(str(build / "Dockerfile")).deployments == []
    assert read_path(str(build / "start.sh")).deployments == []


def test_a_string_command_compose_cuts_before_the_engine_is_read_as_meant_and_marked():
    """Sample K135 (measured: a miss and a spurious launch of a mounted script): `entrypoint: ["/bin/sh", "-c"]` with
    `command: > python /tmp/patch.py && python -m vllm... --model M`. Compose's splitter (go-shellwords) stops at the
    `&&`, so `sh -c` runs `python` alone: the launch is read as meant, marked where the cut is (KV017); the same
    script given as one list item is not cut."""
    from kvlint.launches import read_path

    text = ("services:\n  v:\n    image: vllm/vllm-openai:v0.11.0\n    entrypoint: [\"/bin/sh\", \"-c\"]\n"
            "    command: >\n      python /tmp/patch.py &&\n      python -m vllm.entrypoints.openai.api_server"
            " --model org/m --max-model-len 4096\n")
    (dep,) = read_path("compose.yaml", text).deployments
    assert (dep.model, dep.get("max_model_len")) == ("org/m", 4096)
    assert dep.compose_cut is not None and (dep.compose_cut[0].line, dep.compose_cut[1]) == (6, "&&")
    listed = text.replace("    command: >\n      python", "    command:\n      - >\n        python")
    listed = listed.replace("\n      python -m", "\n        python -m")
    (kept,) = read_path("compose.yaml", listed).deployments
    assert kept.compose_cut is None and kept.model == "org/m"


def test_a_command_running_a_script_the_services_build_copies_in_reads_that_script(tmp_path):
    """Sample K189's dgx-spark-vllm: `build: {dockerfile: Dockerfile.vllm}` (an image named for vLLM) with `command:
    ["/usr/local/bin/start-vllm"]`, the Dockerfile `COPY start-vllm.sh /usr/local/bin/start-vllm`: the program was
    read as the model (a build named for the engine taken for its entry point); the copied script is read, with the
    service's environment, each value at its place there."""
    from kvlint.launches import read_path

    (tmp_path / "Dockerfile.vllm").write_text("FROM org/spark-vllm:1\nCOPY start-vllm.sh /usr/local/bin/start-vllm\n")
    (tmp_path / "start-vllm.sh").write_text('#!/bin/bash\nexec vllm serve "${VLLM_MODEL}" \\\n'
                                            '  --max-model-len "${VLLM_MAX_MODEL_LEN:-65536}"\n')
    compose = tmp_path / "compose.yaml"
    compose.write_text("services:\n  vllm:\n    build: {context: ., dockerfile: Dockerfile.vllm}\n"
                       "    image: local/vllm-spark:latest\n    gpus: all\n    command: [\"/usr/local/bin/start-vllm\"]\n"
                       "    environment:\n      VLLM_MODEL: org/copied\n")
    (dep,) = read_path(str(compose)).deployments
    assert (dep.engine, dep.model, dep.get("max_model_len")) == ("vllm", "org/copied", 65536)
    at = dep.settings["max_model_len"].span
    assert dep.model_span.path.endswith("start-vllm.sh") and (at.line, at.col) == (3, 19)
    assert any("which the build copies in from start-vllm.sh" in n for n in dep.notes)


def test_a_program_a_build_named_for_the_engine_puts_in_is_no_model_even_unread(tmp_path):
    """Sample K75's vllm_demo: `command: ["/app/start_vllm_server.sh", "8001", "0.0.0.0"]` to a build named for vLLM
    whose Dockerfile is not in the tree: the script's path was read as the model; it is the engine's deployment
    configured by the service's environment (`VLLM_MODEL_NAME`), its parallelism left to the script."""
    from kvlint.launches import read_path

    compose = tmp_path / "compose.yaml"
    compose.write_text("services:\n  vllm-server:\n    build: {context: ., dockerfile: Dockerfile.vllm}\n"
                       "    image: vllm-server:latest\n    environment:\n"
                       "      - VLLM_MODEL_NAME=${VLLM_MODEL_NAME:-/app/models/qwen2.5-1.5b-instruct}\n"
                       "    command: [\"/app/start_vllm_server.sh\", \"8001\", \"0.0.0.0\"]\n")
    (dep,) = read_path(str(compose)).deployments
    assert (dep.engine, dep.model, dep.model_span.line, dep.model_span.col) == \
        ("vllm", "/app/models/qwen2.5-1.5b-instruct", 6, 25)
    assert dep.get("tensor_parallel_size") is None
    assert any("which the image's build puts in, which is not in the tree" in n for n in dep.notes)


def test_a_script_mounted_from_a_folder_above_and_not_in_the_tree_is_the_images_launch(tmp_path):
    """Sample K92: `../../scripts/start_vllm_docker.sh:/app/start.sh` run by `entrypoint: [/bin/bash, /app/start.sh]`
    on vLLM's image: a repository path above the compose file, as `./` is (it was a KV008); the launch is placed at
    the command that runs the script."""
    from kvlint.launches import read_path

    compose = tmp_path / "docker-compose.yaml"
    compose.write_text("services:\n  vllm:\n    image: vllm/vllm-openai:v0.7.3\n    volumes:\n"
                       "      - ../../scripts/start_vllm_docker.sh:/app/start.sh:ro\n"
                       "    entrypoint: [\"/bin/bash\", \"/app/start.sh\"]\n"
                       "    deploy: {resources: {reservations: {devices: [{driver: nvidia, count: 1, capabilities: [gpu]}]}}}\n")
    (dep,) = read_path(str(compose)).deployments
    assert (dep.engine, dep.engine_version, dep.model_resolved, dep.launch_span.line) == ("vllm", "0.7.3", False, 6)


def test_a_build_s_mode_words_and_a_model_variable_of_its_own_naming():
    """Sample K204: one image `sglang-sxm2:latest` built for SGLang, one service per model, each given a mode of its
    entry point (`command: [qwen38, mtp]`, `[h3, fl2va]`, `[glm53]`) and its model under a name of its own
    (`FLASH_NEXT_MODEL`, `H3_MODEL`, `GLM53_MODEL`): each is a launch of that model. Two such variables competing
    (`A_MODEL` and `B_MODEL`), or a draft model's alone, name none."""
    from kvlint.launches import read_path

    head = ("services:\n  qwen:\n    image: sglang-sxm2:latest\n    command: [qwen38, mtp]\n    environment:\n")
    gpu = ("    deploy:\n      resources:\n        reservations:\n          devices:\n"
           "            - driver: nvidia\n              count: all\n              capabilities: [gpu]\n")
    text = head + "      FLASH_NEXT_MODEL: /models/Qwen3.8-Flash\n      FLASH_NEXT_GPUS: 0,1,2,3\n" + gpu
    (d,) = read_path("compose.yaml", text).deployments
    assert (d.engine, d.model, d.model_span.line) == ("sglang", "/models/Qwen3.8-Flash", 6)
    two = head + "      A_MODEL: /models/a\n      B_MODEL: /models/b\n" + gpu
    draft = head + "      DRAFT_MODEL: /models/eagle\n" + gpu
    assert read_path("compose.yaml", two).deployments == read_path("compose.yaml", draft).deployments == []


def test_a_program_the_build_runs_is_no_mode():
    """`command: [python, app.py]` on a build named for the engine runs a program of the image, not a mode of its
    entry point: the service is not read as the engine configured by `MODEL` (a mode of plain words is, above)."""
    from kvlint.launches import read_path

    text = ("services:\n  app:\n    image: myorg/vllm-app:latest\n    command: [python, app.py]\n    environment:\n"
            "      GLM_MODEL: /models/glm\n    deploy:\n      resources:\n        reservations:\n          devices:\n"
            "            - driver: nvidia\n              count: all\n              capabilities: [gpu]\n")
    assert [d.model for d in read_path("compose.yaml", text).deployments] != ["/models/glm"]
    moded = text.replace("[python, app.py]", "[glm, fast]")
    assert [d.model for d in read_path("compose.yaml", moded).deployments] == ["/models/glm"]


def test_a_string_command_of_several_words_under_a_shell_entry_point_is_cut_at_its_first_word():
    """Sample K211 (a KV008): `entrypoint: ["/bin/sh", "-lc"]` and `command: >- vllm serve "$${MODEL_ID}" ...`, no
    operator: compose splits the string into words, so `sh -c` runs `vllm` alone. The launch is read as meant (the
    string as the shell's script, `$$` the shell's `$`, the service's environment its variables), marked where the
    shell's script ends (KV017); one word, or the script as one list item, is not cut."""
    from kvlint.launches import read_path

    text = ('services:\n  v:\n    image: vllm/vllm-openai:v0.11.0\n    entrypoint: ["/bin/sh", "-lc"]\n'
            '    environment:\n      MODEL_ID: org/m\n    command: >-\n      vllm serve "$${MODEL_ID}"\n'
            '      --max-model-len 4096\n')
    (dep,) = read_path("compose.yaml", text).deployments
    assert (dep.model, dep.get("max_model_len")) == ("org/m", 4096)
    assert dep.compose_cut is not None and (dep.compose_cut[0].line, dep.compose_cut[0].col, dep.compose_cut[1]) \
        == (8, 12, "")
    listed = text.replace('    command: >-\n      vllm serve "$${MODEL_ID}"\n      --max-model-len 4096\n',
                          '    command:\n      - vllm serve "$${MODEL_ID}" --max-model-len 4096\n')
    (kept,) = read_path("compose.yaml", listed).deployments
    assert kept.compose_cut is None and kept.model == "org/m"


def test_a_service_written_again_over_an_included_files_takes_its_image(tmp_path):
    """Sample K238 (measured: silent): `include: [../../infra/docker-compose.base.yml]`, then `services: {vllm:
    {command: [${MODEL_NAME}, --max-model-len=..., --enable-lora]}}`: the service is the included file's (its image
    vllm/vllm-openai:v0.14.1) with this file's keys over it, one launch at this file's command."""
    (tmp_path / "infra").mkdir()
    (tmp_path / "exp" / "lora").mkdir(parents=True)
    (tmp_path / "infra" / "docker-compose.base.yml").write_text(
        "services:\n  vllm:\n    image: vllm/vllm-openai:v0.14.1-cu130\n    command:\n      - ${MODEL_NAME}\n"
        "      - --dtype=half\n")
    p = tmp_path / "exp" / "lora" / "docker-compose.yml"
    p.write_text("include:\n  - ../../infra/docker-compose.base.yml\n\nservices:\n  vllm:\n    command:\n"
                 "      - ${MODEL_NAME}\n      - --max-model-len=4096\n      - --enable-lora\n")
    (d,) = read_path(str(p)).deployments
    assert (d.engine, d.engine_version, d.model_resolved, d.get("max_model_len")) == ("vllm", "0.14.1", False, 4096)
    assert d.launch_span.path == str(p) and d.launch_span.line == 7
    p.write_text(p.read_text().replace("include:\n  - ../../infra/docker-compose.base.yml\n", ""))
    assert read_path(str(p)).deployments == []  # no image, no build, no base: no engine


def test_a_rocm_build_of_the_engine_on_amd_devices_configured_by_its_environment_is_a_launch():
    """Sample K256 (measured: said, not read): `image: ${VLLM_TQ_IMAGE:-ghcr.io/org/vllm-rocm-tq:latest}` with
    `devices: [/dev/kfd, /dev/dri]` (AMD's GPUs, no reservation) and `MODEL_NAME: ${MODEL_NAME:-org/m}`: the build's
    own entry point starts vLLM with that model. Without the device nodes (no GPU) it stays a client's service."""
    text = ("services:\n  v:\n    image: ${VLLM_TQ_IMAGE:-ghcr.io/org/vllm-rocm-tq:latest}\n    devices:\n"
            "      - /dev/kfd\n      - /dev/dri\n    environment:\n      MODEL_NAME: \"${MODEL_NAME:-org/m}\"\n"
            "      MAX_MODEL_LEN: \"${MAX_MODEL_LEN:-32768}\"\n")
    (d,) = read_path("docker-compose.yml", text).deployments
    assert (d.engine, d.model, d.get("max_model_len")) == ("vllm", "org/m", 32768)
    assert read_path("docker-compose.yml", text.replace("      - /dev/kfd\n", "")).deployments == []


def test_a_launch_read_in_a_script_the_service_mounts_is_placed_at_the_service(tmp_path, monkeypatch):
    """Samples K254 and K256 (measured: a miss and a spurious launch each, the launch placed 50-90 lines down another
    file): a service runs `command: ["/usr/local/bin/entry.sh"]` mounted from `./entrypoint.sh`, which starts vLLM
    with the service's environment. The launch is placed at the service's word that runs the script; its model keeps
    its place in the script."""
    (tmp_path / "entrypoint.sh").write_text("#!/bin/bash\n\nexec vllm serve \"$MODEL\" --max-model-len 4096\n")
    p = tmp_path / "compose.yaml"
    p.write_text("services:\n  v:\n    image: vllm/vllm-openai:v0.11.0\n    entrypoint: [\"/usr/local/bin/entry.sh\"]\n"
                 "    volumes:\n      - ./entrypoint.sh:/usr/local/bin/entry.sh\n    environment:\n      MODEL: org/m\n")
    from kvlint.lint import LintOptions, lint

    monkeypatch.chdir(tmp_path)  # the script is read inside the tree being checked
    (tmp_path / ".kvlint.yaml").write_text("{}\n")  # which its configuration marks
    (launch,) = lint([str(p)], LintOptions(select=("KV003",))).launches
    assert (launch.span.path, launch.span.line) == (str(p), 4)


def test_a_mounted_script_run_by_a_shell_string_gets_the_strings_arguments(tmp_path, monkeypatch):
    """Sample K254's Ray services (`entrypoint: [/bin/bash, -c]`, `command: ["/app/run.sh --head --port=6379"]`): the
    words after the script in the string are its "$@", as they are when written as list items."""

    (tmp_path / "serve.sh").write_text('#!/bin/bash\nexec vllm serve "$1" --max-model-len "${2:-4096}"\n')
    p = tmp_path / "compose.yaml"
    p.write_text("services:\n  v:\n    image: vllm/vllm-openai:v0.11.0\n    entrypoint: [\"/bin/bash\", \"-c\"]\n"
                 "    command: [\"/app/serve.sh org/m 8192\"]\n    volumes:\n      - ./serve.sh:/app/serve.sh\n")
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".kvlint.yaml").write_text("{}\n")  # the project the script lies in
    from kvlint.launches import read_path

    (d,) = read_path("compose.yaml").deployments  # read where `kvlint check` reads it: inside the tree
    assert (d.model, d.get("max_model_len")) == ("org/m", 8192)


def test_a_script_a_service_runs_with_stated_arguments_runs_only_the_path_they_take(tmp_path, monkeypatch):
    """Sample K254's Ray services (measured: the worker counted a launch too): one mounted script, run by the head
    service with `--head` and by the worker with `--worker`; its `if [[ "$MODE" == head ]]` arm calls the function
    that starts vLLM. Run with stated arguments, the worker takes the other arm and calls nothing that serves: one
    launch, the head's. The script read on its own keeps its arms as the alternatives it writes."""
    from kvlint.launches import read_path

    monkeypatch.chdir(tmp_path)
    (tmp_path / ".kvlint.yaml").write_text("{}\n")  # the project the script lies in
    script = ('serve() {\n  vllm serve org/m --tensor-parallel-size 8\n}\nwhile [[ $# -gt 0 ]]; do\n  case $1 in\n'
              '    --head) MODE=head; shift 1 ;;\n    --worker) MODE=worker; shift 1 ;;\n  esac\ndone\n'
              'if [[ "$MODE" == "head" ]]; then\n  ray start --head\n  serve\nelse\n  ray start --block --address=h\nfi\n')
    (tmp_path / "run.sh").write_text(script)
    service = ("  {name}:\n    image: vllm/vllm-openai:v0.11.0\n    entrypoint: [\"/bin/bash\", \"-c\"]\n"
               "    command: [\"/app/run.sh --{name}\"]\n    volumes:\n      - ./run.sh:/app/run.sh\n")
    (tmp_path / "compose.yaml").write_text("services:\n" + service.format(name="head") + service.format(name="worker"))
    assert [d.name for d in read_path("compose.yaml").deployments] == ["head"]
    (tmp_path / "worker.yaml").write_text("services:\n" + service.format(name="worker"))
    assert read_path("worker.yaml").deployments == []
    assert len(read_path("run.sh").deployments) == 1
