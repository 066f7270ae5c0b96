"""Shapes held-out samples showed passed over, each read by a mechanism, not a case: a script handed a whole
engine command as its arguments (`exec "$@"` wrappers that load secrets or set up first; sample H's java-alchemist
compose service), a Python handler whose program is `shutil.which("vllm") or "vllm"`, and an engine-named image in
HCL with no launch (sample J's RunPod handler and Terraform container, read after J was measured)."""

from __future__ import annotations

from pathlib import Path

from kvlint.launches import read_path
from tests.launches.test_docker_and_positional import FIX, _at


def test_a_compose_entrypoint_script_runs_the_engine_command_it_is_given():
    result = read_path(str(FIX / "wrapped" / "compose-entrypoint-script.yml"))
    (dep,) = result.deployments
    assert (dep.engine, dep.engine_version, dep.model, _at(dep.model_span)) == \
        ("sglang", "0.5.14", "facebook/opt-125m", (13, 59))
    assert any("read as a wrapper that runs the command it is given" in n for n in dep.notes)


def test_a_wrapper_script_in_a_shell_file_and_one_with_other_arguments():
    result = read_path(str(FIX / "wrapped" / "wrapper-scripts.sh"))
    got = [(d.engine, d.model, _at(d.model_span)) for d in result.deployments]
    assert got == [("vllm", "Qwen/Qwen2.5-7B-Instruct", (3, 30)), ("vllm", "Qwen/Qwen2.5-1.5B-Instruct", (4, 80))]
    assert result.deployments[0].get("max_model_len") == 8192


def test_a_python_handler_whose_program_is_which_or_a_literal():
    """`binp = shutil.which("vllm") or "vllm"` inside `try:`, then `[binp, "serve", MODEL_REPO, ...]`: a launch with
    the environment defaults (it was silent: the list's first word was a name)."""
    result = read_path(str(FIX / "python" / "which_or.py"))
    (dep,) = result.deployments
    assert (dep.engine, dep.model, _at(dep.model_span)) == ("vllm", "Qwen/Qwen2.5-7B-Instruct", (17, 31))
    assert (dep.get("max_model_len"), dep.get("gpu_memory_utilization")) == (32768, 0.92)


def test_an_engine_named_image_in_hcl_with_no_launch_is_a_kv008_at_its_name():
    """`image = "..."` (HCL, TOML) and `"image": "..."` (JSON) name an image as `image:` does in YAML."""
    result = read_path(str(FIX / "named" / "env-no-model.tf"))
    assert result.deployments == []
    (note,) = result.findings
    assert (note.code, _at(note.span)) == ("KV008", (8, 20))
    assert note.message.startswith("engine image ${var.registry}/inference/llm/vllm-release-guard:0.5.2 named here")


def test_an_hcl_container_configured_by_numbered_env_blocks_is_a_launch():
    """Sample J's Terraform container: `MODEL1`, `MAX_MODEL_LEN1` are the first engine's variables (`MAX_MODEL_LEN2`
    another's, not this launch's); the image tag is the team's build, not an engine release."""
    result = read_path(str(FIX / "named" / "env-only.tf"))
    (dep,) = result.deployments
    assert (dep.engine, dep.engine_version, dep.model, _at(dep.model_span)) == \
        ("vllm", None, "/workspace/meta-llama/Llama-Guard-3-8B", (12, 22))
    assert (dep.get("max_model_len"), _at(dep.span_of("max_model_len")), dep.gpu_count) == (4096, (16, 22), 1)
    assert result.findings == []


def test_a_nomad_task_env_map_with_an_engine_prefixed_model_variable():
    result = read_path(str(FIX / "named" / "nomad-env.hcl"))
    (dep,) = result.deployments
    assert (dep.model, _at(dep.model_span), dep.get("tensor_parallel_size"), dep.gpu_count) == \
        ("Qwen/Qwen2.5-7B-Instruct", (10, 33), 2, 2)


def test_an_operator_object_with_engine_named_arguments_is_a_launch():
    """`spec.model.name` and `spec.serving.vllmArgs: [--max-model-len, "8192", ...]`: one vLLM launch; an object
    with a model key and no engine-named argument list is none."""
    result = read_path(str(FIX / "kinds2" / "engine-args-object.yaml"))
    (dep,) = result.deployments
    assert (dep.engine, dep.model, _at(dep.model_span)) == ("vllm", "Qwen/Qwen2.5-7B-Instruct", (9, 11))
    assert (dep.get("max_model_len"), dep.get("dtype")) == (8192, "float16")
    assert _at(dep.span_of("max_model_len")) == (15, 9)


def test_a_docker_command_kept_in_a_string_with_an_unknown_secret_and_run_by_exec():
    """Sample K2's `CMD="docker run ... -e TOKEN=${HF_TOKEN} IMAGE --model ${MODEL} ..."; exec $CMD`: the unknown
    token leaves its own word unresolved, not the whole command."""
    result = read_path(str(FIX / "shell_cmd" / "exec-cmd-string.sh"))
    (dep,) = result.deployments
    assert (dep.engine, dep.engine_version, dep.model, dep.get("max_model_len")) == \
        ("vllm", "0.10.1", "Qwen/Qwen2.5-7B-Instruct", 8192)
    # each value at its place in the string, not at `$CMD`
    assert (_at(dep.model_span), _at(dep.span_of("max_model_len")), _at(dep.launch_span)) == ((8, 11), (9, 19), (5, 6))


def test_a_value_of_words_whose_first_is_unknown_stays_unknown():
    (dep,) = read_path(str(FIX / "shell_cmd" / "arith-not-a-command.sh")).deployments
    rank = dep.settings["data_parallel_start_rank"]
    assert (rank.value, rank.resolved) == ("$START", False)


def test_values_of_an_engine_named_chart_block_without_a_model_are_a_launch():
    """The chart starts the engine with its default model: a launch at the block, its model left unknown."""
    result = read_path(str(FIX / "named" / "engine-block-values.yaml"))
    (dep,) = result.deployments
    assert (dep.engine, dep.model_resolved, _at(dep.launch_span)) == ("vllm", False, (7, 1))


def test_annotated_module_constants_feed_the_argv():
    (dep,) = read_path(str(FIX / "python" / "annotated_constant.py")).deployments
    assert (dep.engine, dep.model, dep.get("context_length")) == ("sglang", "Qwen/Qwen2.5-7B-Instruct", 8192)


def test_an_hcl_module_given_concat_of_a_local_list_and_a_literal_list():
    """Sample K3's mingfang shape: `args = concat(local.qwen, [...])`, `jsonencode({...})` of literals."""
    (dep,) = read_path(str(FIX / "hcl" / "module-args.tf")).deployments
    assert (dep.model, _at(dep.model_span), dep.engine_version, dep.gpu_count) == \
        ("Qwen/Qwen2.5-7B-Instruct", (5, 6), "0.10.1", 1)
    assert dep.get("speculative_config") == {"method": "ngram", "num_speculative_tokens": 2}
    assert (dep.get("max_model_len"), _at(dep.span_of("max_model_len"))) == (8192, (16, 27))


def test_an_image_given_many_flags_no_engine_release_has_is_not_that_engine():
    """Sample K4's llm-d-inference-sim: 8 wrong KV004 warnings before; now no launch. One typo in a custom build's
    argv keeps it vLLM (a KV004 for the typo)."""
    from kvlint.lint import LintOptions, lint

    path = FIX / "infer" / "simulator.yaml"
    (dep,) = read_path(str(path)).deployments
    assert dep.model == "Qwen/Qwen2.5-7B-Instruct"
    kv004 = [f for f in lint([str(path)], LintOptions()).findings if f.code == "KV004"]
    assert [f.span.line for f in kv004] == [31]


def test_a_wrapper_whose_model_is_its_callers_argument_is_a_launch_unless_an_image_runs_it(tmp_path):
    """`MODEL="${1:?usage}"; ... --model "$MODEL" "$@"`: a script a person runs with the model as its argument is a
    launch whose model is open (counting rule 8; sample K270's `serve_vllm.sh <model>`, measured: said, not read);
    the same script as an image's entry point hands its caller's model on (rule 5, sample K4's jcarlin): said."""
    (dep,) = read_path(str(FIX / "wrapped" / "vllm-serve-wrapper.sh")).deployments
    assert (dep.engine, dep.model_resolved) == ("vllm", False)
    text = (FIX / "wrapped" / "vllm-serve-wrapper.sh").read_text()
    (tmp_path / "entrypoint.sh").write_text(text)
    result = read_path(str(tmp_path / "entrypoint.sh"))
    assert result.deployments == []
    (note,) = result.findings
    assert note.code == "KV008" and "the model is this script's argument" in note.message


def test_a_unit_written_by_an_ansible_task_is_a_launch_and_its_wrapper_is_not():
    (dep,) = read_path(str(FIX / "ansible" / "unit-content.yaml")).deployments
    assert (dep.model, _at(dep.model_span), dep.get("max_model_len")) == ("Qwen/Qwen2.5-7B-Instruct", (9, 9), 8192)


def test_a_python_program_started_from_an_imported_engine_argv_is_not_silent():
    result = read_path(str(FIX / "python" / "imported_argv.py"))
    assert result.deployments == []
    (note,) = result.findings
    assert (note.code, _at(note.span)) == ("KV008", (10, 38)) and "VLLM_SERVER_ARGS" in note.message


def test_a_word_list_under_any_key_that_is_an_engine_command_is_the_launch():
    (dep,) = read_path(str(FIX / "structured" / "harness-command-template.yaml")).deployments
    assert (dep.model, _at(dep.model_span), dep.get("max_model_len"), _at(dep.launch_span)) == \
        ("Qwen/Qwen2.5-1.5B-Instruct", (11, 7), 4096, (7, 7))


def test_an_unknown_chart_s_model_key_in_any_model_spelling():
    (dep,) = read_path(str(FIX / "charts" / "unknown-model-spelling-values.yaml")).deployments
    assert (dep.model, _at(dep.model_span), dep.engine_version, dep.gpu_count) == \
        ("Qwen/Qwen2.5-7B-Instruct", (3, 16), "0.10.1", 1)


def test_a_compose_service_giving_serve_and_flags_to_an_image_whose_entry_point_is_the_cli():
    """Sample K5's shapes (`command: [serve, --model, X, ...]` on a vLLM build with `ENTRYPOINT ["vllm"]`)."""
    (dep,) = read_path(str(FIX / "compose" / "cli-entrypoint-serve.yml")).deployments
    assert (dep.engine, dep.model, _at(dep.model_span), dep.get("max_model_len")) == \
        ("vllm", "Qwen/Qwen2.5-7B-Instruct", (9, 9), 8192)


def test_a_workflow_deploying_an_engine_images_dockerfile_is_not_silent(tmp_path):
    """Sample K8's deploy-vllm.yml (silent at measurement): a reusable Cloud Run workflow given `image_repo:
    api-registry/vllm` and `dockerfile: Dockerfile.vllm`: the launch is that image's, whose command is not here, so
    the place is named (KV008 at the image repository)."""
    p = tmp_path / "deploy.yml"
    p.write_text("jobs:\n  deploy:\n    uses: ./.github/workflows/cloudrun-deploy.yml\n    with:\n"
                 "      image_repo: api-registry/vllm\n      dockerfile: Dockerfile.vllm\n")
    result = read_path(str(p))
    (note,) = result.findings
    assert result.deployments == [] and (note.code, _at(note.span)) == ("KV008", (5, 19))


def test_a_services_map_that_is_no_compose_files_has_its_command_strings_read(tmp_path):
    """A platform's app spec keyed `services:` (`run:`, `start_command:`: no `image:` or `build:` in any service) is
    not a compose file: its command strings are read as any YAML file's are (was KV008, "could not read"). A compose
    file whose services have images keeps compose's reading: a string under a key compose ignores is no launch."""
    spec = tmp_path / "app.yaml"
    spec.write_text("services:\n  llm:\n    run: vllm serve org/spec-model --max-model-len 4096\n"
                    "  web:\n    start_command: npm start\n")
    (d,) = read_path(str(spec)).deployments
    assert (d.engine, d.model, d.model_span.line, d.get("max_model_len")) == ("vllm", "org/spec-model", 3, 4096)
    compose = tmp_path / "docker-compose.yml"
    compose.write_text("services:\n  web:\n    image: nginx\n    labels:\n      note: vllm serve org/label-model\n")
    assert read_path(str(compose)).deployments == []


def test_per_gpu_argument_lists_of_a_model_catalogue_are_no_launches(tmp_path):
    """Sample K47's pods `models.json` (measured: 20 launches with no model): a catalogue's per-GPU entries hold
    vLLM flags under `args:` for a program to pick; with no container, image or pod around them the engine is not
    inferred from their flags. A Kustomize patch's named container handed the same flags still is."""
    catalogue = tmp_path / "models.json"
    catalogue.write_text('{"models": {"org/m": {"configs": [{"gpuCount": 2, "args": '
                         '["--tensor-parallel-size", "2", "--enable-auto-tool-choice", "--tool-call-parser", "hermes"], '
                         '"env": {"VLLM_USE_DEEP_GEMM": "1"}}]}}}')
    assert read_path(str(catalogue)).deployments == []
    patch = tmp_path / "patch.yaml"
    patch.write_text("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: llm\nspec:\n  template:\n    spec:\n"
                     "      containers:\n        - name: server\n          args: [--model, org/patched, "
                     "--enable-auto-tool-choice, --tool-call-parser, hermes]\n")
    (d,) = read_path(str(patch)).deployments
    assert (d.engine, d.model) == ("vllm", "org/patched")
    values = tmp_path / "values.yaml"  # sample K40's values: an inference service's args beside its GPU resources
    values.write_text("inferenceService:\n  storage:\n    storageUri: oci://quay.io/org/modelcar:granite\n"
                      "  args:\n    - --max-model-len=23000\n    - --gpu-memory-utilization=0.99\n"
                      "  resources:\n    limits:\n      nvidia.com/gpu: '1'\n")
    (d,) = read_path(str(values)).deployments
    assert (d.engine, d.get("max_model_len"), d.gpu_count) == ("vllm", 23000, 1)


def test_a_compose_command_is_the_arguments_of_the_built_images_entry_point(tmp_path):
    """Sample K47's SRE-agent compose (measured: silent): `build: .` of a Dockerfile whose `ENTRYPOINT ["vllm",
    "serve"]`, and `command: [openai/gpt-oss-20b, --host, ...]`: the command is the entry point's arguments, the
    launch at the command, its values in the compose file. A build from an engine image with no ENTRYPOINT of its own
    runs the engine image's; a build whose entry point is another program gives nothing."""
    (tmp_path / "Dockerfile").write_text('FROM nvidia/cuda:12.8.0-devel-ubuntu22.04\nRUN pip install vllm\n'
                                         'ENTRYPOINT ["vllm", "serve"]\nCMD ["org/default"]\n')
    compose = tmp_path / "docker-compose.yml"
    compose.write_text("services:\n  vllm:\n    build:\n      context: .\n    gpus: all\n"
                       '    command: ["org/built-model", "--max-model-len", "8192"]\n')
    (d,) = read_path(str(compose)).deployments
    assert (d.engine, d.model, _at(d.model_span), d.get("max_model_len"), d.launch_span.path) == \
        ("vllm", "org/built-model", (6, 15), 8192, str(compose))
    (tmp_path / "Dockerfile").write_text("FROM vllm/vllm-openai:v0.10.1\nRUN pip install extra\n")
    (d,) = read_path(str(compose)).deployments
    assert (d.model, d.engine_version) == ("org/built-model", "0.10.1")
    (tmp_path / "Dockerfile").write_text('FROM python:3.12\nENTRYPOINT ["python", "app.py"]\n')
    assert read_path(str(compose)).deployments == []


def test_shift_drops_positional_parameters_and_a_written_program_path_names_the_engine():
    result = read_path(str(FIX / "wrapped" / "pid-file-launcher.sh"))
    pid, two = result.deployments
    assert (pid.engine, pid.model, pid.model_span.line, pid.model_span.col) == ("vllm", "org/pid-model", 10, 32)
    assert pid.get("max_model_len") == 4096
    assert (two.model, two.get("port")) == ("org/shift-two", 8001)
    # `shift "$N"`: how many is not known, so "$@" is not either: not a launch of a guessed command (said instead)
    assert not any(d.model == "org/shift-unknown" for d in result.deployments)


def test_arguments_passed_as_one_word_are_read_as_meant_each_at_its_place():
    """Sample K56 (measured: KV008, no launch): `python3 -m sglang.launch_server "$args"` after `args=" --model-path
    $model_path ..."`. The shell passes one word (KV013 says so); the launch is read split, each value where the
    assignment writes it."""
    rules = Path(__file__).resolve().parent.parent / "fixtures" / "rules" / "KV013"
    sglang, vllm, _ = read_path(str(rules / "bad.sh")).deployments
    assert (sglang.engine, sglang.model, sglang.get("mem_fraction_static")) == ("sglang", "Qwen/Qwen2.5-7B-Instruct", 0.85)
    assert (sglang.settings["mem_fraction_static"].span.line, sglang.settings["mem_fraction_static"].span.col) == (6, 27)
    assert [(s.line, s.col) for s, _ in sglang.one_word_args] == [(7, 33)]
    assert (vllm.model, vllm.get("max_model_len"), vllm.settings["max_model_len"].span.line) == \
        ("Qwen/Qwen2.5-7B-Instruct", 8192, 8)
    good = read_path(str(rules / "good.sh")).deployments
    assert len(good) == 3 and not any(d.one_word_args for d in good)


def test_an_unknown_chart_s_storage_uri_beside_the_engine_image_is_its_model():
    (dep,) = read_path(str(FIX / "charts" / "unknown-chart-storage-uri.yaml")).deployments
    assert (dep.engine, dep.model, _at(dep.model_span), dep.gpu_count) == \
        ("vllm", "oci://quay.io/redhat-ai-services/modelcar-catalog:granite-3.0-8b-instruct", (9, 15), 1)


def test_an_image_named_for_the_engine_given_flags_the_engine_never_had_is_a_wrapper():
    """Sample K58 (measured: a KV204 "7 requested GPUs stay idle" for the engine's default TP 1, at line 0): the
    image's own program reads `--manifest`; the model and TP are its, open."""
    from kvlint.lint import LintOptions, lint

    path = FIX / "k8s" / "named-image-wrapper.yaml"
    (dep,) = read_path(str(path)).deployments
    assert (dep.engine, dep.model, _at(dep.launch_span), dep.unknown_flags) == ("sglang", None, (15, 20), ())
    assert "tp_size" not in dep.resolved_values() and dep.gpu_count == 8
    assert [f.code for f in lint([str(path)], LintOptions()).findings if f.severity >= 2] == []


def test_sglang_routers_launch_server_starts_the_engines_workers(tmp_path):
    """Sample K58 (measured: silent): `python -m sglang_router.launch_server --model-path M --dp-size N ...` starts
    SGLang's data-parallel workers (the launch) and a router (its `--router-*` flags left to it); `launch_router`
    alone starts no engine. In a Python f-string too."""
    sh = tmp_path / "serve.sh"
    sh.write_text("python -m sglang_router.launch_server --model-path org/m --dp-size 2 --tp-size 2 "
                  "--router-policy round_robin --mem-fraction-static 0.9\n"
                  "python -m sglang_router.launch_router --worker-urls http://a:30000 http://b:30000\n")
    (dep,) = read_path(str(sh)).deployments
    assert (dep.engine, dep.model, dep.get("dp_size"), dep.get("tp_size"), dep.unknown_flags) == \
        ("sglang", "org/m", 2, 2, ())
    py = tmp_path / "utils.py"
    py.write_text('import subprocess\n\ndef launch(m):\n    cmd = (f"python -m sglang_router.launch_server"\n'
                  '           f" --model-path {m} --dp-size 4")\n    return subprocess.Popen(cmd.split())\n')
    (dep,) = read_path(str(py)).deployments
    assert (dep.engine, dep.model_resolved, dep.get("dp_size"), _at(dep.model_span)) == ("sglang", False, 4, (5, 29))


def test_a_container_configured_by_variables_named_for_the_engine_is_its_launch():
    """Sample K58 (measured: silent): `VLLM_MODEL` and `VLLM_MAX_NUM_SEQS` on a GPU container of the repository's
    own image: vLLM's launch, each value at its entry. vLLM's own variables without a model name none."""
    (dep,) = read_path(str(FIX / "k8s" / "env-prefixed-worker.yaml")).deployments
    assert (dep.engine, dep.model, _at(dep.model_span), dep.get("max_num_seqs"), dep.gpu_count) == \
        ("vllm", "Qwen/Qwen2.5-0.5B-Instruct", (15, 22), 64, 1)


def test_paddleocrs_vlm_server_with_an_engine_backend_is_that_engines_launch(tmp_path):
    """Sample K59 (measured: silent): `paddleocr genai_server --model_name M --backend vllm` starts a vLLM server
    for M (its own flags left to it); without `--backend vllm|sglang` it starts none kvlint sizes."""
    p = tmp_path / "Dockerfile"
    p.write_text('FROM python:3.11\nCMD ["paddleocr", "genai_server", "--model_name", "PaddleOCR-VL-0.9B", '
                 '"--backend", "vllm", "--port", "8118"]\n')
    (dep,) = read_path(str(p)).deployments
    assert (dep.engine, dep.model, _at(dep.model_span), dep.get("port"), dep.unknown_flags) == \
        ("vllm", "PaddleOCR-VL-0.9B", (2, 52), 8118, ())
    p.write_text('FROM python:3.11\nCMD ["paddleocr", "genai_server", "--model_name", "PaddleOCR-VL-0.9B"]\n')
    assert read_path(str(p)).deployments == []


def test_paddlexs_own_genai_server_program_with_an_engine_backend_is_that_engines_launch():
    """Sample K251 (measured: said, not read): `"$VENV/bin/paddlex_genai_server" --model_name M --model_dir D
    --backend sglang --port P`, PaddleX's program for the same server: an SGLang launch of the model folder; without
    `--backend` it starts none kvlint sizes."""
    text = ('nohup "$VENV/bin/paddlex_genai_server" \\\n    --model_name PaddleOCR-VL-1.5-0.9B --model_dir /m/vl \\\n'
            '    --backend sglang --port 8118 &\n')
    (dep,) = read_path("serve.sh", text).deployments
    assert (dep.engine, dep.model, _at(dep.model_span), dep.get("port"), dep.unknown_flags) == \
        ("sglang", "/m/vl", (2, 52), 8118, ())
    assert read_path("serve.sh", text.replace("--backend sglang ", "")).deployments == []


def test_a_terminal_transcript_saved_as_a_script_runs_what_follows_the_prompt():
    """Sample K59 (measured: missed): a transcript kept as `.sh` with `$ vllm serve M` and `me@box:~$ python -m
    sglang.launch_server ...` prompt lines: each command after its prompt is a launch at its own place; a `$`
    that is an argument, or a word that only ends in `$`, is no prompt."""
    text = ("$ vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 8192\nINFO starting\n"
            "me@box:~$ python -m sglang.launch_server --model-path org/m --tp 2\n"
            "echo $ vllm serve org/x\nprice$ vllm serve org/y\n")
    deps = read_path("session.sh", text).deployments
    assert [(d.engine, d.model, _at(d.model_span)) for d in deps] == \
        [("vllm", "Qwen/Qwen2.5-7B-Instruct", (1, 14)), ("sglang", "org/m", (3, 55))]


def test_vllms_cli_called_from_inline_python_is_a_launch():
    """Sample K60 (measured: KV008 "no launch"): `python -c "from vllm.entrypoints.cli.main import main; main()" serve
    M`: the code calls vLLM's CLI, whose arguments are the words after the code; code that only imports the module,
    or a CLI command other than `serve`, starts no server."""
    code = '"from vllm.entrypoints.cli.main import main; main()"'
    text = (f"python3 -c {code} serve org/m --max-model-len 4096\n"
            "python -c 'import vllm.entrypoints.cli.main' serve org/x\n"
            f"python -c {code} bench latency --model org/y\n")
    (dep,) = read_path("run.sh", text).deployments
    assert (dep.engine, dep.model, _at(dep.model_span), dep.get("max_model_len")) == ("vllm", "org/m", (1, 71), 4096)


def test_a_python_file_that_does_not_parse_still_gives_its_command_strings():
    """Sample K62 (measured: KV008): a launcher with a syntax error (a missing comma, an empty `try:`) holds its
    command in a string run by `subprocess.Popen(..., shell=True)`: the string is read as shell, with a note that the
    file is not valid Python; a file that parses is read by the Python reader as before."""
    text = ("import subprocess\nprint('devices:' 1)\n"
            "cmd = 'CUDA_VISIBLE_DEVICES=0,1 python -m sglang.launch_server --model-path org/m --tp 2'\n"
            "subprocess.Popen(cmd, shell=True)\n")
    (dep,) = read_path("start_sglang.py", text).deployments
    assert (dep.engine, dep.model, _at(dep.model_span), dep.get("tp_size")) == ("sglang", "org/m", (3, 77), 2)
    assert any("not valid Python (SyntaxError at line 2)" in n for n in dep.notes)


def test_a_script_a_powershell_here_string_writes_is_read_as_shell():
    """Sample K65 (measured: KV008): `@" #!/bin/bash ... exec python -m vllm.entrypoints.openai.api_server --model
    "`${MODEL_NAME:-M}" ... "@ | Out-File docker\\entrypoint.sh`: the body is the script the image runs, its `` `$ ``
    escapes undone, every value at its place; a Dockerfile here-string beside it is no script."""
    text = ('$ACR = "acr"\n@"\n#!/bin/bash\nexec python -m vllm.entrypoints.openai.api_server \\\n'
            '  --model "`${MODEL_NAME:-org/m}" \\\n  --max-model-len "`${LEN:-8192}"\n"@ | Out-File -FilePath x.sh\n'
            "@'\nFROM vllm/vllm-openai:v0.11.0\nCMD vllm serve org/other\n'@ | Out-File Dockerfile\n")
    (dep,) = read_path("build.ps1", text).deployments
    assert (dep.engine, dep.model, _at(dep.model_span), dep.get("max_model_len")) == ("vllm", "org/m", (5, 11), 8192)


def test_a_dockerfile_exec_form_shell_script_keeps_each_values_place():
    """Sample K66 (measured: placed at the CMD line, a miss and a spurious launch): `CMD ["/bin/sh", "-c", "\\` over
    continued lines, with `\\"` escapes and non-ASCII text before the engine command: each character of the JSON
    string sits where the file has it, so the launch is at its command and the model at its value."""
    text = ('FROM vllm/vllm-openai:v0.11.0\nCMD ["/bin/sh", "-c", "\\\n  echo \\"1. 실행\\" && \\\n'
            '  python3 -m vllm.entrypoints.openai.api_server \\\n    --model /model \\\n    --port 8000"]\n')
    (dep,) = read_path("Dockerfile", text).deployments
    assert (dep.model, _at(dep.model_span), _at(dep.launch_span), dep.get("port")) == ("/model", (5, 13), (4, 3), 8000)


def test_an_entry_point_script_handed_a_model_and_engine_flags_passes_them_on():
    """Sample K67 (measured: KV008): `docker run --entrypoint /bin/bash IMAGE -c "/docker_entrypoint.sh /models/m
    --tensor-parallel-size 1 --kv-cache-dtype fp8 ..."`: the words after the script are a model and vLLM's own flags,
    the engine's arguments it passes on; a command after it (`bash -c ...`) is still run as before."""
    text = ('docker run -d --entrypoint /bin/bash --gpus all vllm/vllm-openai:v0.11.0 \\\n'
            '  -c "/docker_entrypoint.sh /models/m --tensor-parallel-size 1 --kv-cache-dtype fp8 --max-model-len 8192"\n'
            'docker run -d --gpus all org/img:1 /opt/entrypoint.sh vllm serve org/x --max-model-len 4096\n')
    first, second = read_path("run.sh", text).deployments
    assert (first.engine, first.model, _at(first.model_span), first.get("max_model_len")) == \
        ("vllm", "/models/m", (2, 29), 8192)
    assert (second.model, second.get("max_model_len")) == ("org/x", 4096)


def test_a_script_that_sizes_the_engine_for_its_callers_model_is_a_launch():
    """Sample K69 (measured: KV008 "the launch is where the script is called"): `MODEL="$1"; ARGS=(--model-path
    "$MODEL" --tp 1 --mem-fraction-static 0.80 ...); exec python -m sglang.launch_server "${ARGS[@]}" "$@"`: the
    script writes the engine's sizing, so it is the deployment, its model the caller's (open, counting rule 8); a
    script that only hands its arguments on (`exec vllm serve "$1" "$@"`) is one too when a person runs it (rule 8,
    sample K270), and a wrapper when an image runs it (rule 5: an entry point's name, a Dockerfile that runs it)."""
    sized = ('MODEL="$1"; shift\nARGS=(--model-path "$MODEL" --tp 1 --mem-fraction-static 0.80)\n'
             'exec python -m sglang.launch_server "${ARGS[@]}" "$@"\n')
    (dep,) = read_path("launch_sglang.sh", sized).deployments
    assert (dep.engine, dep.model_resolved, dep.get("mem_fraction_static")) == ("sglang", False, 0.8)
    (thin,) = read_path("serve.sh", 'MODEL="$1"; shift\nexec vllm serve "$MODEL" "$@"\n').deployments
    assert (thin.engine, thin.model_resolved) == ("vllm", False)
    entry = read_path("entrypoint.sh", 'MODEL="$1"; shift\nexec vllm serve "$MODEL" "$@"\n')
    assert entry.deployments == [] and [f.code for f in entry.findings] == ["KV008"]


def test_a_kubernetes_container_of_the_stock_image_given_nothing_serves_the_default_model():
    """Sample K70 (measured: KV008): `image: vllm/vllm-openai:latest`, no command, no args, `MODEL` in env: the
    entry point is `vllm serve` with no model, so vLLM serves its default (the variable is read by no vLLM code),
    placed at the image; a Kustomize patch (no selector) and SGLang's image (no server entry point) give none."""
    text = ("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: v}\nspec:\n  selector: {matchLabels: {a: v}}\n"
            "  template:\n    spec:\n      containers:\n      - name: v\n        image: {image}\n"
            "        env:\n        - name: MODEL\n          value: Qwen/Qwen2.5-1.5B-Instruct\n")
    (dep,) = read_path("d.yaml", text.replace("{image}", "vllm/vllm-openai:latest")).deployments
    assert (dep.model, _at(dep.model_span)) == ("Qwen/Qwen3-0.6B", (10, 16))
    assert "MODEL=Qwen/Qwen2.5-1.5B-Instruct in env: is read by no vLLM code" in dep.notes[0]
    patch = text.replace("  selector: {matchLabels: {a: v}}\n", "").replace("{image}", "vllm/vllm-openai:latest")
    assert read_path("d.yaml", patch).deployments == []
    assert read_path("d.yaml", text.replace("{image}", "lmsysorg/sglang:v0.5.2")).deployments == []


def test_a_terraform_template_s_directives_are_not_its_yaml():
    """Sample K72 (measured: KV001 "invalid YAML" and a miss): a `.tftpl` Deployment with `%{ for s in list ~}` ...
    `%{ endfor ~}` around a volume: the directives are Terraform's, blanked; the manifest they render is read."""
    text = ("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: v}\nspec:\n  template:\n    spec:\n"
            "      volumes:\n%{ for s in secrets ~}\n        - name: ${s}\n%{ endfor ~}\n      containers:\n"
            "        - name: v\n          image: vllm/vllm-openai:v0.11.0\n"
            "          args: [--model, '${model_id}', --max-model-len, '4096']\n")
    result = read_path("vllm.tftpl", text)
    assert [f.code for f in result.findings if f.code == "KV001"] == []
    (dep,) = result.deployments
    assert (dep.model, _at(dep.model_span), dep.get("max_model_len")) == ("${model_id}", (14, 27), 4096)


def test_a_manifest_envsubst_fills_is_read_without_its_placeholder_lines():
    """Sample K132 (measured: a KV001 error "invalid YAML" and a miss): a Deployment whose args list is followed by a
    line that is only `$EXTRA_VLLM_ARGS_YAML` (lines `envsubst` puts there before `kubectl apply`): the placeholder is
    blanked and the manifest read, the launch noting it; a YAML file broken otherwise keeps its KV001."""
    text = ("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: v}\nspec:\n  selector: {}\n  template:\n"
            "    spec:\n      containers:\n        - name: vllm\n          image: vllm/vllm-openai:v0.11.0\n"
            "          args:\n            - --model=$MODEL\n            - --max-model-len=8192\n"
            "$EXTRA_VLLM_ARGS_YAML\n          ports: [{containerPort: 8000}]\n")
    result = read_path("vllm.yaml", text)
    (dep,) = result.deployments
    assert [f.code for f in result.findings if f.code == "KV001"] == []
    assert (dep.model, dep.get("max_model_len")) == ("$MODEL", 8192)
    assert any("line 14 (`$EXTRA_VLLM_ARGS_YAML`) is a placeholder" in n for n in dep.notes)
    broken = read_path("vllm.yaml", text.replace("$EXTRA_VLLM_ARGS_YAML", "oops: [unclosed"))
    assert [f.code for f in broken.findings] == ["KV001"]


def test_a_script_template_is_read_as_the_script_it_renders():
    """Sample K124 (measured: a KV008 "could not read a launch"): `user_data.sh.tftpl`, a cloud-init script whose
    quoted here-document installs a systemd unit, `ExecStart=/usr/bin/docker run ... ${vllm_image} --model
    ${model_id} ...`: a template named or shebanged for a script is read as that script, here-documents and units
    with it; code's command-line reading took `ExecStart=...` for an assignment before the command `run`."""
    text = ("#!/usr/bin/env bash\nset -eu\ncat >/etc/systemd/system/v.service <<'UNIT'\n[Unit]\nDescription=v\n"
            "[Service]\nExecStart=/usr/bin/docker run --rm --gpus all --ipc=host \\\n  ${vllm_image} \\\n"
            "  --model ${model_id} \\\n  --max-model-len 8192 --gpu-memory-utilization 0.9\nUNIT\n")
    for name in ("user_data.sh.tftpl", "user_data.tpl"):
        (dep,) = read_path(name, text).deployments
        assert (dep.engine, dep.model, _at(dep.model_span), dep.get("max_model_len")) == \
            ("vllm", "${model_id}", (9, 11), 8192)
    assert read_path("values.yaml.tftpl", "model: ${m}\nengine: vllm\n").findings == []


def test_a_startup_script_template_is_no_images_entry_point():
    """Sample K118's `scripts/startup.sh.tpl` (a VM's startup script Terraform renders): `model_or_path=
    "${model_or_path}"` is filled in by the render, so its `vllm serve "$model_or_path"` is a launch whose model is
    open; the same script as `startup.sh`, named as an image's entry point, is the image (a KV008)."""
    text = '#!/bin/bash\nmodel_or_path="${model_or_path}"\nvllm serve "$model_or_path" --max-model-len 4096 &\n'
    (dep,) = read_path("startup.sh.tpl", text).deployments
    assert (dep.model, dep.get("max_model_len")) == ("$model_or_path", 4096)
    result = read_path("startup.sh", text)
    assert result.deployments == [] and [f.code for f in result.findings] == ["KV008"]


def test_a_build_named_for_the_engine_given_its_own_programs_options_is_no_launch():
    """Sample K72 (measured: a spurious launch and a KV004 error "SGLang rejects --model_path"): `docker run
    sglang-sanic-rag --model_path M --data_path ./data --retriever_model X --renew_db`, an application image that
    uses SGLang in-process: its options are mostly no SGLang release's, so its entry point is that program. A build
    named for the engine given the engine's own flags is still read as the engine."""
    app = ("docker run --gpus all sglang-sanic-rag --model_path org/m --data_path ./data --port 30000 "
           "--single_process --retriever_model org/r --renew_db\n")
    assert read_path("run.sh", app).deployments == []
    (dep,) = read_path("run.sh", "docker run --gpus all sglang-spark:1 --model-path org/m --tp 2 "
                                 "--mem-fraction-static 0.8\n").deployments
    assert (dep.engine, dep.model) == ("sglang", "org/m")


def test_a_placeholder_spelled_as_its_variables_name_is_no_value():
    """Sample K73 (measured: a KV007 error "--port port: not an integer"): a template job's `model_name="model_name"`
    and `port="port"`, for its user to fill in, are placeholders: unresolved, never judged; a real value stays."""
    text = 'model_name="model_name"\nport="port"\nlen=4096\nvllm serve $model_name --port $port --max-model-len $len\n'
    (dep,) = read_path("job.sh", text).deployments
    assert (dep.model_resolved, dep.settings["port"].resolved, dep.get("max_model_len")) == (False, False, 4096)
    assert not [v for v in dep.invalid_values if v.flag == "--port"]
    # a program's name held in a variable of that name is a value: `python=python; $python -m ...` still runs
    (run,) = read_path("run.sh", "python=python\n$python -m vllm.entrypoints.openai.api_server --model org/m\n"
                       ).deployments
    assert run.model == "org/m"


def test_a_script_whose_model_is_its_argument_and_whose_sizing_it_defaults_is_a_launch():
    """Sample K84's start_vllm.sh: `model=$1` (short names mapped), `--tensor-parallel-size $size` with
    `size=${2:-8}`: the script writes the sizing (a default its caller may override), so it is a deployment whose
    model its caller names (rule 8), not a rule 5 wrapper; the wrapper above stays a KV008."""
    (dep,) = read_path(str(FIX / "wrapped" / "model-argument-sized.sh")).deployments
    assert (dep.engine, dep.model_resolved, dep.get("tensor_parallel_size")) == ("vllm", False, 8)
    assert _at(dep.span_of("tensor_parallel_size")) == (11, 28)


def test_an_envsubst_template_with_placeholders_in_flow_mappings_is_read():
    """Sample K88's `lws-ep.yaml-template` (KV001 x3, its launch missed): `labels: { part-of: ${NAME} }` is no YAML
    until rendered; the lines YAML fails on are read with `${NAME}` unbraced, the rest as written."""
    result = read_path(str(FIX / "k8s" / "envsubst-flow-labels.yaml-template"))
    assert [f.code for f in result.findings if f.severity.name == "ERROR"] == []
    (dep,) = result.deployments
    assert (dep.model, dep.model_resolved, dep.get("tensor_parallel_size"), dep.gpu_count) == \
        ("${MODEL_PATH}", False, 8, 8)
    assert _at(dep.model_span) == (19, 31)


def test_a_launcher_whose_model_is_the_environments_and_flags_its_callers_is_not_a_launch(tmp_path):
    """Sample K94's `sglang-launcher.sh`: `--model "$MODEL_NAME" "$@"` and nothing else; one that writes a flag of
    its own (`--tp 8`, or `${TP:-1}`) stays a launch whose model its caller names (rule 8)."""
    result = read_path(str(FIX / "wrapped" / "env-model-launcher.sh"))
    assert result.deployments == []
    (note,) = result.findings
    assert note.code == "KV008" and "writes no flag of its own" in note.message
    sized = (FIX / "wrapped" / "env-model-launcher.sh").read_text().replace('  "$@"', '  --tp-size "${TP:-8}" "$@"')
    (tmp_path / "serve.sh").write_text(sized)
    (d,) = read_path(str(tmp_path / "serve.sh")).deployments
    assert d.get("tp_size") == 8


def test_a_makefile_image_variable_named_for_an_engine_is_a_launch_of_its_own_command(tmp_path):
    """Sample K101 (measured: silent): `IMAGE ?= org/kimi-linear-vllm:latest` run by `docker run ... $(IMAGE)` with
    no arguments (the image's own CMD decides): the engine's launch, its model the image's own (left open, said);
    without GPUs it is a place named for the engine, said."""
    p = tmp_path / "Makefile"
    p.write_text("IMAGE ?= org/kimi-linear-vllm:latest\n\nrun:\n\tdocker run --gpus all -d $(IMAGE)\n")
    (dep,) = read_path(str(p)).deployments
    assert (dep.engine, dep.model_resolved, dep.image) == ("vllm", False, "org/kimi-linear-vllm:latest")
    assert any("is run with no command: its own command" in n for n in dep.notes)
    p.write_text("IMAGE ?= org/kimi-linear-vllm:latest\n\nrun:\n\tdocker run -d $(IMAGE)\n")
    result = read_path(str(p))
    assert result.deployments == [] and [(f.code, f.span.line) for f in result.findings] == [("KV008", 1)]


def test_a_unit_whose_interpreter_is_quoted_runs_its_whole_exec_start(tmp_path):
    """Sample K101 (measured: a KV008): `ExecStart=/usr/bin/env bash -lc 'exec "${VLLM_PYTHON:-...}" -m vllm...'`:
    the run key's value is the command (the quoted interpreter is no place to cut it), its `Environment=` set."""
    p = tmp_path / "vllm.service"
    p.write_text('[Service]\nEnvironment="MODEL_ID=org/m"\nEnvironment="LEN=8192"\n'
                 "ExecStart=/usr/bin/env bash -lc 'exec \"${VLLM_PYTHON:-%h/venv/bin/python}\" -m "
                 'vllm.entrypoints.openai.api_server --model "${MODEL_ID}" --max-model-len "${LEN}"\'\n')
    (dep,) = read_path(str(p)).deployments
    assert (dep.model, dep.get("max_model_len")) == ("org/m", 8192)


def test_a_programs_engine_command_that_reads_a_config_file_is_a_launch(tmp_path):
    """Sample K101 (measured: a KV008, "needs a model and names none"): `[python, -m, sglang.launch_server, *extra,
    --config, path]` names its model in the config file: a launch whose model is not in this file."""
    p = tmp_path / "launcher.py"
    p.write_text("import subprocess\n\n\ndef start(config_file_path, extra):\n"
                 "    command = ['python', '-m', 'sglang.launch_server']\n"
                 "    command.extend(['--config', config_file_path])\n"
                 "    subprocess.run(command)\n\n\nstart('./config.yaml', [])\n")
    (dep,) = read_path(str(p)).deployments
    assert (dep.engine, dep.model, dep.get("config")) == ("sglang", None, "./config.yaml")


def test_a_sagemaker_lmi_container_running_vllm_is_a_kv008_place(tmp_path):
    """Sample K103 (measured: silent): a SageMaker model whose LMI (DJL Serving) container runs vLLM through
    `OPTION_ENTRYPOINT: djl_python.lmi_vllm...` (or `OPTION_ROLLING_BATCH: vllm`), its model in `HF_MODEL_ID`: a
    place kvlint names, not a launch it reads yet."""
    p = tmp_path / "deploy.py"
    p.write_text("env = {\n    'HF_MODEL_ID': 'org/m',\n    'OPTION_ROLLING_BATCH': 'disable',\n"
                 "    'OPTION_ENTRYPOINT': 'djl_python.lmi_vllm.vllm_async_service',\n}\n"
                 "model = HuggingFaceModel(env=env, image_uri=uri)\n")
    result = read_path(str(p))
    (note,) = result.findings
    assert result.deployments == [] and (note.code, note.span.line) == ("KV008", 4)
    assert "SageMaker's LMI container" in note.message


def test_a_gpu_service_of_an_own_build_with_a_model_variable_is_said():
    """Sample K127 (measured: silent): a compose project named for vLLM whose service runs the repository's own
    build (`command: single`), reserves a GPU (`capabilities: [gpu]`) and sets `MODEL: ${MODEL:-/app/models/M}`: the
    launch is in the image, which kvlint does not see; one KV008 at the model, never passed over in silence."""
    text = ("name: ab-vllm\nservices:\n  qwen:\n    image: inference:0.27.1-cu129\n    build: {context: .}\n"
            "    environment:\n      MODEL: ${MODEL:-/app/models/Qwen3-27B-AWQ}\n    deploy:\n      resources:\n"
            "        reservations:\n          devices:\n            - driver: nvidia\n              capabilities: [gpu]\n"
            "    command: single\n")
    result = read_path("compose.yaml", text)
    (note,) = result.findings
    assert result.deployments == [] and (note.code, _at(note.span)) == ("KV008", (7, 23))
    assert "/app/models/Qwen3-27B-AWQ" in note.message
    assert read_path("compose.yaml", text.replace("capabilities: [gpu]", "capabilities: [utility]")).findings == []


def test_a_gpu_container_run_of_an_unnamed_image_with_a_model_variable_is_said():
    """Sample K135 (measured: silent): `docker run --gpus ... -e MODEL_PATH="$MODEL_PATH" --entrypoint bash "$IMAGE"
    /host/kit/start_server.sh` in a kit named for SGLang, the image and the script set elsewhere: one KV008 at the
    model variable; without GPUs (a client's container) nothing is said."""
    text = ('#!/bin/bash\n# the hy4-preview-sglang kit\ndocker run -d --gpus all \\\n'
            '    -v "$KIT:/host/hy4-preview-sglang:ro" \\\n    -e MODEL_PATH="$MODEL_PATH" \\\n'
            '    --entrypoint bash "$IMAGE" /host/hy4-preview-sglang/start_server.sh\n')
    result = read_path("launch.sh", text)
    (note,) = result.findings
    assert result.deployments == [] and (note.code, _at(note.span)) == ("KV008", (5, 5))
    assert "its model in MODEL_PATH" in note.message
    assert read_path("launch.sh", text.replace("--gpus all ", "")).findings == []


def test_ray_serve_llm_deployment_builders_are_places_and_a_conditional_option_is_no_image(tmp_path):
    """Sample K173's `build_llm_deployment(model_id=path, engine_config=conf)` under `from ray.serve.llm import ...`
    (silent at measurement): a Ray Serve LLM deployment whose model is built at run time is a place named (KV008).
    Sample K173's `docker run ... ${VLLM_ALLOW_LONG_MAX_MODEL_LEN:+-e VLLM_...=$VLLM_...} ... $IMAGE`: an option
    given only when a variable is set is not the image the note names."""
    p = tmp_path / "ray_deployments.py"
    p.write_text("from ray.serve.llm import build_llm_deployment\n\n\ndef build(path, conf):\n"
                 "    return build_llm_deployment(model_id=path, engine_config=conf)\n")
    result = read_path(str(p))
    assert result.deployments == [] and [(f.code, f.span.line, f.span.col) for f in result.findings] == \
        [("KV008", 5, 12)]
    assert "Ray Serve LLM deployment is configured here (build_llm_deployment" in result.findings[0].message
    s = tmp_path / "launch.sh"
    s.write_text('#!/bin/bash\ndocker run -d --gpus all \\\n  ${VLLM_ALLOW_LONG:+-e VLLM_ALLOW_LONG=$VLLM_ALLOW_LONG} \\\n'
                 '  "$SGLANG_IMAGE" $ARGS\n')
    (f,) = read_path(str(s)).findings
    assert f.code == "KV008" and "from $SGLANG_IMAGE," in f.message and f.span.line == 4


def test_a_key_choosing_the_engine_of_a_workload_on_gpus_is_not_silent():
    """Sample K184's NIM values: `model: {engine: vllm}` beside `nvidia.com/gpu: 2` runs vLLM under NVIDIA's
    wrapper, whose own keys kvlint does not read as a launch: one KV008 at the engine's name, not silence."""
    result = read_path(str(FIX / "named" / "nim-engine-values.yaml"))
    assert result.deployments == []
    (note,) = result.findings
    assert (note.code, _at(note.span), note.span.end_col) == ("KV008", (14, 15), 19)
    assert note.message.startswith("`engine: vllm` chooses the engine of a workload on GPUs")


def test_a_client_naming_the_engine_it_calls_is_no_place():
    """The same key in a client's settings, with no GPU request: a server elsewhere, nothing to say."""
    result = read_path(str(FIX / "named" / "client-engine-key.yaml"))
    assert (result.deployments, result.findings) == ([], [])


def test_an_environment_holding_engine_settings_under_their_flags_names_is_not_silent():
    """Sample K183's script writes a compose file whose image (a variable) turns MAX_MODEL_LEN and
    GPU_MEMORY_UTILIZATION into vLLM's flags: one KV008 at the first setting, naming every setting it saw."""
    result = read_path(str(FIX / "named" / "env-configured-heredoc.sh"))
    assert result.deployments == []
    (note,) = result.findings
    assert (note.code, _at(note.span)) == ("KV008", (14, 7))
    assert "(GPU_MEMORY_UTILIZATION, MAX_MODEL_LEN)" in note.message


def test_one_engine_setting_alone_is_no_evidence_of_a_container():
    result = read_path(str(FIX / "named" / "one-setting-workflow.yml"))
    assert (result.deployments, result.findings) == ([], [])


def test_a_platform_deploy_on_a_gpu_with_its_model_in_the_environment_is_not_silent():
    """Sample K189's Koyeb workflow (silent): `koyeb services create --instance-type gpu-nvidia-l40s --env
    MODEL=org/m --env-secret VLLM_API_KEY` deploys the repository's build, whose entry point holds the command: one
    KV008 at the model's variable. A deploy with no GPU in its command is not one."""
    result = read_path(str(FIX / "named" / "gpu-deploy-env.yml"))
    assert result.deployments == []
    (note,) = result.findings
    assert (note.code, _at(note.span)) == ("KV008", (15, 19))
    assert note.message.startswith("a service is deployed here on GPUs with its model in MODEL")


def test_a_build_named_for_the_engine_with_no_launch_is_said_as_a_build():
    """A compose service building `Dockerfile.vllm` (the Dockerfile not in the tree) is no launch: its KV008 says a
    build is run there, not that `Dockerfile.vllm` is an engine entry point."""
    text = "services:\n  a:\n    build:\n      context: .\n      dockerfile: Dockerfile.vllm\n    gpus: all\n"
    (note,) = read_path("/nonexistent/compose.yaml", text).findings
    assert (note.code, _at(note.span)) == ("KV008", (5, 19))
    assert note.message.startswith("a build of Dockerfile.vllm, named for an engine, is run here")


def test_a_compose_container_named_for_the_engine_with_no_launch_is_a_place():
    """Sample K236 (measured: silent): a GPU service `vllm-server` built from its folder's Dockerfile (not in the
    sample), `container_name: vllm-server`, no command: a KV008 at the container's name, said as a container."""
    text = ("services:\n  vllm-server:\n    build:\n      context: .\n    container_name: vllm-server\n"
            "    runtime: nvidia\n")
    (note,) = read_path("/nonexistent/docker-compose.yml", text).findings
    assert (note.code, _at(note.span)) == ("KV008", (5, 21))
    assert note.message.startswith("a container named vllm-server, for an engine, is run here")
    quiet = "services:\n  web:\n    image: nginx:1\n    container_name: web\n"
    assert read_path("/nonexistent/docker-compose.yml", quiet).findings == []


def test_a_container_run_of_a_build_named_for_an_engine_is_a_place():
    """`docker run -d ... myorg/vllm-server:latest` on no GPU with no model kvlint can read (its entry point is in
    the image): a KV008 at the image, not silence (on GPUs it is the launch of the image's own command, sample K243);
    a mount, a container name or an image of another program named beside it is no place (a container named for the
    engine is a place of its own: `--name vllm`)."""
    text = "#!/bin/bash\ndocker run -d -p 8000:8000 \\\n  -v /data:/data \\\n  myorg/vllm-server:latest\n"
    (dep,) = read_path("run.sh", text.replace("-d -p", "-d --gpus all -p")).deployments
    assert (dep.engine, dep.model_resolved, _at(dep.launch_span)) == ("vllm", False, (2, 1))
    result = read_path("run.sh", text)
    (note,) = result.findings
    assert (result.deployments, note.code, _at(note.span)) == ([], "KV008", (4, 3))
    assert "myorg/vllm-server:latest" in note.message
    quiet = ("#!/bin/bash\ndocker run -d --name web -v vllm-cache:/root/.cache \\\n"
             "  -e VLLM_MODE=org/vllm-x ubuntu:22.04 sleep 1\n")
    assert read_path("run.sh", quiet).findings == []


def test_a_powershell_container_run_on_a_gpu_device_with_its_model_in_the_environment_is_said():
    """Sample K242's Arc B70 launcher (measured: silent): PowerShell's backtick-continued `docker run --device
    /dev/dxg ... -e MODEL_NAME=$m ... -e VLLM_TARGET_DEVICE=xpu $image` of a build named for no engine: the GPU is
    the device node, the model an environment variable; kvlint reads no launch, so it says so there (KV008)."""
    text = ('$image = "org/qwen-arc:0.30.0"\ndocker run -d --name q `\n  --device /dev/dxg `\n'
            '  -e MODEL_NAME=$modelName `\n  -e VLLM_TARGET_DEVICE=xpu `\n  $image\n')
    result = read_path("start.ps1", text)
    assert result.deployments == []
    assert [(f.code, f.span.line, f.span.col) for f in result.findings] == [("KV008", 4, 3)]
    assert "on GPUs with its model in MODEL_NAME" in result.findings[0].message
    assert read_path("start.ps1", text.replace("--device /dev/dxg", "--cpus 4")).findings == []


def test_a_keys_value_is_the_command_of_an_ini_or_toml_line():
    """A pyproject's extra named `serve = ["vllm"]` is a key and a list of packages, not a program called `serve`
    (a KV008 "starts a server here" before); a supervisor line `command=python -m serving.start_server ...` is a
    repository's own server program, said at its place."""
    text = '[project]\nname = "x"\n[project.optional-dependencies]\nserve = ["vllm"]\n'
    assert read_path("pyproject.toml", text).findings == []
    sup = "[program:x]\ncommand=python -m serving.start_server --config x.yaml\n; runs vllm\n"
    (note,) = read_path("supervisord.conf", sup).findings
    assert (note.code, _at(note.span)) == ("KV008", (2, 19)) and note.message.startswith("`serving.start_server`")


def test_an_environment_of_engine_settings_that_names_no_engine_is_said():
    """Sample K248's ModelArts service (measured: silent): `cmd: bash /model/x/scripts/start.sh` with `envs:`
    `MAX_MODEL_LEN`, `MAX_NUM_SEQS`, `GPU_MEMORY_UTILIZATION`, and no engine named anywhere: three settings under the
    engine's flags' names, one only an engine has, are its configuration (KV008 at the first). Two, or three that any
    program may use, are not."""
    text = ('{"cmd": "bash /model/x/scripts/start.sh",\n "envs": {\n  "MAX_MODEL_LEN": "1048576",\n'
            '  "MAX_NUM_SEQS": "32",\n  "GPU_MEMORY_UTILIZATION": "0.94"\n }}\n')
    (note,) = read_path("service.json", text).findings
    assert (note.code, _at(note.span)) == ("KV008", (3, 4))
    assert read_path("service.json", text.replace('  "MAX_NUM_SEQS": "32",\n', "")).findings == []


def test_a_gpu_service_of_the_repositorys_own_build_in_a_file_naming_an_engine_is_said():
    """Sample K247's compose file (measured: silent, two launches): services built from `Dockerfile.fork` with a GPU
    reserved and `command: single`, an entry point mode that starts vLLM, named only in the file's comments. Said at
    the build (KV008); the same file without the GPU, or naming no engine, is no place."""
    text = ("# Qwen on one RTX 3090 with the vLLM fork\nx-q: &q\n  image: ghcr.io/o/q:latest\n  build:\n"
            "    context: .\n    dockerfile: Dockerfile.fork\nservices:\n  single:\n    <<: *q\n    command: single\n"
            "    deploy:\n      resources:\n        reservations:\n          devices:\n            - driver: nvidia\n"
            "              count: 1\n              capabilities: [gpu]\n")
    (note,) = read_path("docker-compose.yml", text).findings
    assert (note.code, _at(note.span)) == ("KV008", (4, 3)) and "own Dockerfile" in note.message
    assert read_path("docker-compose.yml", text.replace("capabilities: [gpu]", "capabilities: [utility]")).findings == []
    assert read_path("docker-compose.yml", text.replace("the vLLM fork", "a fork")).findings == []


def test_a_gpu_service_built_from_a_dockerfile_that_names_an_engine_is_said(tmp_path, monkeypatch):
    """Sample K250 (measured: silent): a compose file naming no engine builds `docker/Dockerfile` (context `..`),
    whose ENTRYPOINT is the repository's serve script and whose RUN imports vLLM, and reserves a GPU for it: said at
    the build. A Dockerfile that names an engine only in a comment says nothing, nor one outside the project."""
    monkeypatch.chdir(tmp_path)  # the project (its configuration marks it): a Dockerfile beyond it is never read
    (tmp_path / ".kvlint.yaml").write_text("{}\n")
    (tmp_path / "docker").mkdir()
    dockerfile = tmp_path / "docker" / "Dockerfile"
    dockerfile.write_text("FROM ghcr.io/o/base@sha256:1\n# the pinned vLLM build\n"
                          "RUN python3 -c 'from vllm.x import y'\nENTRYPOINT [\"/usr/local/bin/serve\"]\n")
    compose = tmp_path / "docker" / "compose.yaml"
    compose.write_text("services:\n  q:\n    build:\n      context: ..\n      dockerfile: docker/Dockerfile\n"
                       "    deploy:\n      resources:\n        reservations:\n          devices:\n"
                       "            - driver: nvidia\n              capabilities: [gpu]\n    command: [\"/model\"]\n")
    (note,) = read_path(str(compose)).findings
    assert (note.code, _at(note.span)) == ("KV008", (3, 5)) and "the Dockerfile it builds names an engine" in note.message
    outside = compose.read_text().replace("context: ..", "context: ../..")
    (tmp_path / "docker" / "far.yaml").write_text(outside)
    assert read_path(str(tmp_path / "docker" / "far.yaml")).findings == []
    dockerfile.write_text(dockerfile.read_text().replace("RUN python3 -c 'from vllm.x import y'\n", ""))
    assert read_path(str(compose)).findings == []


def test_a_sagemaker_model_s_container_environment_in_terraform_is_its_launch():
    """Sample K254 (measured: said, not read): `aws_sagemaker_model`'s `primary_container { image = ".../vllm-gemma-4:
    0.19.1-sagemaker" environment = { "SM_VLLM_MODEL" = "google/gemma-4-E4B-it" } }`: a build of vLLM configured by
    SageMaker's `SM_VLLM_*` variables, as a Nomad task's `env` map is read."""
    text = ('resource "aws_sagemaker_model" "m" {\n  primary_container {\n'
            '    image = "1.dkr.ecr.us-east-1.amazonaws.com/vllm-gemma-4:0.19.1-sagemaker"\n    environment = {\n'
            '      "SM_VLLM_MODEL" = "google/gemma-4-E4B-it"\n      "SM_VLLM_MAX_MODEL_LEN" = "8192"\n    }\n  }\n}\n')
    (d,) = read_path("sagemaker.tf", text).deployments
    assert (d.engine, d.model, _at(d.model_span), d.get("max_model_len")) == \
        ("vllm", "google/gemma-4-E4B-it", (5, 26), 8192)


def test_a_recipes_command_is_filled_from_its_defaults():
    """Sample K256's spark-vllm-docker recipe (measured: a wrong KV007 error, "not valid JSON"): `defaults:
    {max_model_len: 32768, tensor_parallel: 2, num_speculative_tokens: 4}` and a `command: |` whose `{name}` fields
    its runner fills from them: the launch is sized with the defaults, and a JSON value holding a field is the
    runner's to fill, never invalid JSON."""
    text = ("recipe_version: '1'\nmodel: /models/m\ncontainer: thor-x\ndefaults:\n  tensor_parallel: 2\n"
            "  max_model_len: 32768\n  k: 4\ncommand: |\n  vllm serve org/m \\\n      --max-model-len {max_model_len} \\\n"
            "      --speculative-config '{\"method\":\"mtp\",\"num_speculative_tokens\":{k}}' \\\n"
            "      --tensor-parallel-size {tensor_parallel}\n")
    (d,) = read_path("recipe.yaml", text).deployments
    assert (d.get("max_model_len"), d.get("tensor_parallel_size"), d.invalid_values) == (32768, 2, ())
    assert not d.settings["speculative_config"].resolved


def test_a_platforms_container_spec_spelling_dockers_cmd_hands_it_to_the_image():
    """Sample K259's Nosana job definition (measured: said, not read): `{"type": "container/run", "args": {"cmd":
    ["--model", M, "--max-model-len", "30000"], "gpu": true, "image": "docker.io/vllm/vllm-openai:v0.10.2"}}`: `cmd`
    is Docker's Cmd, the words the image's entry point is given."""
    text = ('{"ops": [{"type": "container/run", "id": "x", "args": {\n  "cmd": ["--model", "org/m",\n'
            '    "--max-model-len", "30000"],\n  "gpu": true,\n  "image": "docker.io/vllm/vllm-openai:v0.10.2"}}]}\n')
    (d,) = read_path("job.json", text).deployments
    assert (d.engine, d.model, _at(d.model_span), d.get("max_model_len"), d.engine_version) == \
        ("vllm", "org/m", (2, 22), 30000, "0.10.2")


def test_a_remote_exec_provisioners_inline_commands_are_read_as_a_script():
    """Sample K259 (measured: said, not read): `provisioner "remote-exec" { inline = ["docker run --gpus all ...
    --env \\"HF_TOKEN=${var.t}\\" -d vllm/vllm-openai:latest --model ${var.vllm_model} --port 8000"] }`: each string is
    a command the machine runs, at its place; Terraform's `${var.X}` a value the file leaves open."""
    text = ('resource "null_resource" "v" {\n  provisioner "remote-exec" {\n    inline = [\n'
            '      "docker run --gpus all --env \\"T=${var.t}\\" -d vllm/vllm-openai:latest --model org/m '
            '--max-model-len 4096 --port 8000"\n    ]\n    connection {\n      type = "ssh"\n    }\n  }\n}\n')
    (d,) = read_path("main.tf", text).deployments
    assert (d.engine, d.model, d.model_span.line, d.get("max_model_len")) == ("vllm", "org/m", 4, 4096)
