"""General kinds found missing or misread on held-out sample D (issues L and N), each with a fixture under
tests/fixtures/launches/kinds2 whose launches, models and value positions are pinned here: comment-only
backtick substitutions on continuation lines, `NAME=value` lists as an `env:`."""

from __future__ import annotations

from pathlib import Path

from kvlint.launches import read_path

FIX = Path(__file__).resolve().parent.parent / "fixtures" / "launches" / "kinds2"


def _at(span):
    return (span.line, span.col)


def _deps(name: str):
    result = read_path(str(FIX / name))
    assert not [f for f in result.findings if f.severity >= 2], result.findings
    return result.deployments


def test_a_comment_only_backtick_substitution_is_no_word():
    """`` `# note` \\ `` expands to nothing: it is neither the model nor a flag's value (it was read as the model)."""
    (d,) = _deps("tick-comments.sh")
    assert (d.model, _at(d.model_span)) == ("./checkpoints/org-model", (4, 13))
    assert d.get("quantization") == "awq" and _at(d.settings["quantization"].span) == (7, 20)
    assert d.get("max_model_len") == 4096 and _at(d.settings["max_model_len"].span) == (10, 21)
    assert d.unknown_flags == ()


def test_a_list_of_name_value_strings_is_the_env_of_the_commands():
    """dstack's `env:` list: `- MODEL_ID=org/x` resolves `$MODEL_ID`; a bare `- CONTEXT` comes from whoever runs
    it, so `$CONTEXT` stays unresolved (never a guess)."""
    (d,) = _deps("dstack-env.dstack.yml")
    assert (d.engine, d.model, d.model_resolved, _at(d.model_span)) == ("sglang", "org/env-list-model", True, (13, 26))
    context = d.settings["context_length"]
    assert (context.value, context.resolved, _at(context.span)) == ("$CONTEXT", False, (14, 30))


def test_a_notes_file_is_walked_and_read_from_its_commands_only():
    """`vllm.txt` holds what its author runs: each command from after its prompt through its continuations, with
    its environment prefix; the client code after it is not read. requirements.txt (`vllm==`) and a notes file
    that only names an image give nothing. A README's shell block is walked too since turn 16 (kvlint.launches.
    markdown: the held-out samples' runbooks), read from the block only."""
    from kvlint.launches import iter_files

    walked = sorted(Path(p).name for p, why in iter_files([str(FIX / "notes-repo")]) if why is None)
    assert walked == ["README.md", "images.txt", "requirements.txt", "vllm.txt"]
    (readme,) = _deps("notes-repo/README.md")
    assert (readme.model, _at(readme.model_span)) == ("org/readme-example", (4, 12))
    deps = _deps("notes-repo/vllm.txt")
    assert [(d.engine, d.model, _at(d.model_span)) for d in deps] == [
        ("vllm", "org/notes-model", (3, 37)), ("sglang", "org/prompted", (7, 61)), ("vllm", "org/venv-prompt", (8, 21))]
    assert deps[0].get("tensor_parallel_size") == 2 and _at(deps[0].settings["tensor_parallel_size"].span) == (4, 26)
    assert deps[0].get("max_model_len") == 8192 and deps[1].get("tp_size") == 2
    for quiet in ("requirements.txt", "images.txt"):
        result = read_path(str(FIX / "notes-repo" / quiet))
        assert (result.deployments, result.findings) == ([], []), quiet


def test_a_kserve_predictor_with_only_an_engine_model_format_is_a_launch():
    """`modelFormat: {name: vLLM}` + `storageUri`, its ServingRuntime in another file: a launch on the stored
    model with the resources' GPUs (was silence); the display name identifies a path that names nothing, as
    a weak hint. Another model format (sklearn) is no launch."""
    from kvlint.lint import LintOptions, lint

    (d,) = _deps("isvc-format-only.yaml")
    assert (d.engine, d.model, _at(d.model_span)) == ("vllm", "pvc://models-claim/weights/current", (13, 19))
    assert d.gpu_count == 2 and _at(d.gpu_count_span) == (16, 27)
    assert any("ServingRuntime small-chat-runtime" in n for n in d.notes)
    assert [(a.name, a.how) for a in d.model_aliases][:1] == [("Qwen/Qwen2.5-7B-Instruct", "display-name")]
    (status,) = lint([str(FIX / "isvc-format-only.yaml")], LintOptions(gpu="L40S")).launches
    assert status.capacity == "evaluated"


def test_a_kserve_predictor_whose_store_is_a_storage_spec_path_is_a_launch():
    """Sample K157 (silent at measurement): `storage: {key: <data connection>, path: org/name/}` in place of a
    storageUri, the runtime elsewhere: a launch on the mount the path fills, the path an alias that names the
    model, the predictor's GPUs."""
    (d,) = _deps("isvc-storage-spec.yaml")
    assert (d.engine, d.model, _at(d.model_span)) == ("vllm", "/mnt/models", (15, 15))
    assert [(a.name, a.how) for a in d.model_aliases][:1] == [("ibm-granite/granite-3.1-8b-instruct", "storageUri")]
    assert d.gpu_count == 1


def test_a_predictor_with_a_storage_spec_and_nothing_else_of_a_container_is_a_launch():
    """Sample K192 (silent at measurement): the predictor's `model:` holds `modelFormat`, `runtime` and `storage`
    and no key a container has (no resources): the walk asked only maps with such keys, so it was passed over."""
    (d,) = _deps("isvc-storage-no-resources.yaml")
    assert (d.engine, d.model, _at(d.model_span)) == ("vllm", "/mnt/models", (15, 15))


def test_a_serving_runtime_and_its_inference_service_in_one_file_are_one_launch():
    """Samples K95, K145, K155, K157: the runtime's container is the launch (its flags), the predictor that names
    it gives the model (its storage path) and the GPUs; a predictor whose runtime is not in the file stays a
    launch of its own."""
    runtime, other = _deps("isvc-with-runtime.yaml")
    assert (runtime.engine, runtime.model, runtime.get("max_model_len")) == ("vllm", "/mnt/models", 6144)
    assert runtime.model_aliases[0].name == "mistralai/Mistral-7B-Instruct-v0.3"
    assert runtime.gpu_count == 2 and _at(runtime.gpu_count_span) == (36, 27)
    assert (other.model, _at(other.model_span)) == ("s3://bucket/Qwen/Qwen2.5-7B-Instruct", (48, 19))


WRAPPED = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: sglang-chat
spec:
  selector: {matchLabels: {app: sglang-chat}}
  template:
    spec:
      containers:
      - name: server
        image: registry.example/org/serving:2026
        command: [python3, /opt/app/launch_fp8.py]
        args: [--model-path, /mnt/model, --tp-size, '8', --mem-fraction-static, '0.78', --served-model-name, chat,
               --own-profile, cp8]
        resources: {limits: {nvidia.com/gpu: 8}}
"""


def test_a_containers_own_launcher_handed_the_engines_flags_is_read_by_them():
    """Sample K159 (silent at measurement): a container whose command is the repository's own launcher
    (`python3 /opt/.../launch_fp8.py`) and whose args are SGLang's server flags, the file naming SGLang: read by its
    flags (kvlint.launches.byflags), as a script's is; the launcher's own option left to it. Without the engine
    named in the file, the flags alone do not make a launch."""
    (d,) = read_path("deployment.yaml", WRAPPED).deployments
    assert (d.engine, d.model, d.get("tp_size"), d.get("mem_fraction_static")) == ("sglang", "/mnt/model", 8, 0.78)
    assert d.unknown_flags == ()
    assert read_path("deployment.yaml", WRAPPED.replace("sglang-chat", "chat")).deployments == []


def test_a_compose_service_running_a_mounted_script_is_read_in_that_script():
    """`volumes: ./serve.vllm.sh:/serve.sh` + `command: ["/serve.sh"]`, the service an anchor alias: the launch
    is read in the repository's script with the service's environment, build base image and GPUs; each value
    keeps its place in the script. A mounted script missing from the checkout (samples K35, K44, K45) on an engine
    image is still that engine's launch, with no model guessed and TP/PP left to the script, placed at the command
    that runs the script."""
    d, other = _deps("compose-mount/docker-compose.yaml")
    assert (other.engine, other.name, other.model_resolved, _at(other.launch_span)) == ("vllm", "other", False, (26, 15))
    assert not other.settings["tensor_parallel_size"].resolved and any("not-in-checkout.sh" in n for n in other.notes)
    script = str(FIX / "compose-mount" / "serve.vllm.sh")
    assert (d.engine, d.name, d.image, d.model) == ("vllm", "openai-endpoint", "vllm/vllm-openai:v0.9.2", "Qwen/Qwen3-8B")
    assert (d.model_span.path, _at(d.model_span)) == (script, (4, 17))
    assert d.get("tensor_parallel_size") == 2 and _at(d.settings["tensor_parallel_size"].span) == (5, 26)
    assert d.get("max_model_len") == 8192 and d.settings["max_model_len"].span.path == script
    assert d.gpu_count == 2 and _at(d.gpu_count_span) == (20, 22)
    assert any("mounted from serve.vllm.sh" in n for n in d.notes)


def test_a_script_run_from_a_mounted_folder_is_read_in_the_service(tmp_path):
    """Sample K168's compose (`./config/vllm:/workspace/config/vllm:ro`, `entrypoint: [/bin/bash,
    /workspace/config/vllm/start-vllm.sh]`): the script under the mounted folder is the service's launch, read with
    the service's environment, each value at its place in the script; the script alone, whose model is only the
    environment's, is the image's entry point (a KV008), not a second launch. A compose variant named after its
    suffix (`docker-compose.yaml.qwen3`) is walked and read as a compose file."""
    from kvlint.launches import iter_files
    from kvlint.launches.kinds import kind_for

    folder = FIX / "compose-dir-mount"
    result = read_path(str(folder / "docker-compose.yml"))
    (d,) = result.deployments
    script = str(folder / "config" / "vllm" / "start-vllm.sh")
    assert (d.model, d.get("max_model_len"), d.settings["max_model_len"].span.path) == \
        ("/models/Qwen/Qwen3-8B", 8192, script)
    alone = read_path(script)
    assert alone.deployments == [] and [f.code for f in alone.findings] == ["KV008"]
    assert kind_for("docker-compose.yaml.qwen3").name == "yaml" and kind_for("values.yaml.prod") is None
    (tmp_path / "docker-compose.yaml.qwen3").write_text("services: {}\n")
    assert [p for p, why in iter_files([str(tmp_path)]) if why is None] == [str(tmp_path / "docker-compose.yaml.qwen3")]


def test_a_cpu_launch_is_not_swept_over_gpus():
    """`VLLM_TARGET_DEVICE=cpu`, `VLLM_CPU_KVCACHE_SPACE`, `--device cpu` or a CPU build of the image: the launch
    runs on CPU, so its status says so (not a GPU, not sized) instead of a KV108 sweep of the GPU catalogue; a
    GPU launch beside them is still swept."""
    from kvlint.lint import LintOptions, lint

    result = lint([str(FIX / "cpu.sh"), str(FIX / "cpu-image.sh")], LintOptions())
    kinds = [(s.span.line, s.skip_kind) for s in result.launches]
    assert kinds == [(2, "not-a-gpu"), (3, "not-a-gpu"), (4, None), (2, "not-a-gpu"), (4, "not-a-gpu")], kinds
    assert [(f.span.line, Path(f.span.path).name) for f in result.findings if f.code == "KV108"] == [(4, "cpu-image.sh")]
    (first,) = [d for d in _deps("cpu.sh") if d.model == "Qwen/Qwen3-1.7B"]
    assert first.gpu == "cpu" and any("VLLM_CPU_KVCACHE_SPACE=8" in n for n in first.notes)


def test_a_length_past_a_folder_named_models_config_is_a_warning_not_an_error():
    """`/models/Qwen2.5-7B-Instruct --max-model-len 131072`: the published config stands in for the folder's own,
    which may carry an added rope_scaling (Qwen's documented 128K edit): KV105 says so as a warning; the same
    length on the Hub id stays an error."""
    from kvlint.lint import LintOptions, lint

    path = FIX.parents[1] / "rules" / "KV105" / "bad.sh"
    got = {f.span.line: f.severity.name for f in lint([str(path)], LintOptions(select=("KV105",))).findings}
    assert got == {2: "ERROR", 3: "ERROR", 5: "WARNING", 7: "ERROR"}


def test_a_large_text_file_is_data_and_the_walk_passes_it_over(tmp_path):
    """A notes file is small; a 300 KiB `.txt` is data (a corpus, a log): not read, and no KV001 about a cap."""
    from kvlint.launches import iter_files

    (tmp_path / "corpus.txt").write_text("vllm serve org/x\n" + "the model said hello\n" * 16000)
    (tmp_path / "vllm.txt").write_text("vllm serve org/x\n")
    assert [Path(p).name for p, why in iter_files([str(tmp_path)]) if why is None] == ["vllm.txt"]


def test_a_named_data_txt_is_passed_over_not_an_error(tmp_path):
    """The hook names every changed .txt: one over the manifest size cap, or binary, is data (no KV001 error)."""
    big, binary = tmp_path / "corpus.txt", tmp_path / "blob.txt"
    big.write_text("the model said hello\n" * 300000)
    binary.write_bytes(b"vllm serve org/x\x00\x00")
    for path in (big, binary):
        result = read_path(str(path))
        assert (result.deployments, result.findings, result.skipped is not None) == ([], [], True), path


def test_a_mount_from_outside_the_project_is_not_read(tmp_path, monkeypatch):
    """A bind mount of a file beside the checkout (`../serve.sh`) or of the host's (`/etc/...`) is the host's, not
    the repository's: the launch in it is not read (the service stays a place kvlint names)."""
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (tmp_path / "serve.sh").write_text("#!/bin/sh\nvllm serve org/outside --max-model-len 4096\n")
    (repo / "inside.sh").write_text("#!/bin/sh\nvllm serve org/inside --max-model-len 4096\n")
    service = ('  {name}:\n    build: {{context: ., args: [BASE_IMAGE=vllm/vllm-openai:v0.9.2]}}\n'
               '    volumes: ["{host}:/serve.sh"]\n    entrypoint: ["/bin/bash", "-c"]\n    command: ["/serve.sh"]\n')
    (repo / "docker-compose.yaml").write_text("services:\n" + service.format(name="out", host="../serve.sh")
                                              + service.format(name="in", host="./inside.sh"))
    monkeypatch.chdir(repo)

    assert [d.model for d in read_path("docker-compose.yaml").deployments] == ["org/inside"]


def test_a_kserve_predictor_given_only_engine_arguments_is_placed_at_its_model_key():
    """Sample K5's agud97 InferenceService: `runtime:` in another file, only vLLM flags here. The launch (engine
    read from its flags) is at the predictor's `model:` key, so its KV002 has a line; its note names the runtime."""
    (d,) = _deps("isvc-args-only.yaml")
    assert (d.engine, d.model, _at(d.launch_span)) == ("vllm", None, (8, 5))
    assert d.get("tensor_parallel_size") == 2 and d.gpu_count == 2
    assert any("ServingRuntime vllm-openai-runtime" in n for n in d.notes)


def test_a_terraform_heredoc_handed_to_a_shells_c_is_its_script(tmp_path):
    """Sample K120's EKS deployment (measured: a KV008 only): `command = ["bash", "-c", <<-EOT ... vllm serve M
    --tensor-parallel-size 8 ... EOT]` in a `kubernetes_deployment`: the here-document is the container's script."""
    from kvlint.launches import read_path

    p = tmp_path / "model.tf"
    p.write_text('resource "kubernetes_deployment" "llm" {\n  spec {\n    containers = [{\n'
                 '      image = "vllm/vllm-openai:latest"\n      command = [\n        "bash",\n        "-c",\n'
                 "        <<-EOT\n        pip install vllm && \\\\\n"
                 "        vllm serve org/m --tensor-parallel-size 8\n        EOT\n      ]\n    }]\n  }\n}\n")
    (dep,) = read_path(str(p)).deployments
    assert (dep.model, dep.model_span.line, dep.get("tensor_parallel_size")) == ("org/m", 10, 8)


def test_a_mounted_script_run_by_a_shell_takes_the_services_command_as_its_arguments():
    """Sample K173's compose (`entrypoint: [/bin/bash, /scripts/start-qwen35.sh]`, `command: [MODEL, --flags]`,
    `./scripts:/scripts:ro`): the script's `exec vllm serve "$@"` serves the command's words, each at its place in
    the compose file, not an unresolved `$@`."""
    (d,) = read_path(str(FIX / "compose-script-args" / "docker-compose.yml")).deployments
    assert (d.model, _at(d.model_span), d.get("max_model_len")) == ("org/handed", (6, 9), 8192)
    assert d.model_span.path.endswith("docker-compose.yml")


def test_an_array_of_a_sourced_file_is_its_configuration_not_arguments_passed_through():
    """Sample K173's `serve-head.sh`: `source serve-common.sh` then `vllm serve "${ARGS[@]}" --node-rank 0`. The
    array's words are the sourced file's (each at its place there); when that file is not in the tree the array is
    still no caller's (bash exports no array), so the launch is read with its model unknown, not passed over as an
    entry point."""
    (head,) = read_path(str(FIX / "sourced-array" / "head.sh")).deployments
    assert (head.model, head.get("max_model_len"), head.get("port")) == ("org/sourced", 4096, 8000)
    assert head.model_span.path.endswith("common.sh") and _at(head.model_span) == (1, 7)
    (worker,) = read_path(str(FIX / "sourced-array" / "worker.sh")).deployments
    assert (worker.model, worker.model_resolved, _at(worker.model_span)) == ("$ARGS", False, (3, 17))


def test_a_command_string_read_again_beside_its_container_launch_is_one_launch():
    """Sample K194 (measured: a launch twice): a stray quote in a values file's `bash -c` script leaves the
    container's reading and the command string's at different lines; the same engine and model as the nearest
    container launch is that launch read again."""
    (d,) = _deps("values-stray-quote.yaml")
    assert d.engine == "vllm" and d.model.startswith("/data/org/model-1.5B")


def test_a_services_own_arguments_and_store_join_its_runtimes_launch(tmp_path):
    """Sample K226's KServe guide (a runtime and its service counted as two launches): the service's predictor gives
    `args: [--max-model-len=4096]` and a storageUri beside `runtime: r`, whose container passes
    `--model=/mnt/models`; KServe appends the service's arguments to the runtime's container and mounts the store
    there, so it is one launch: the runtime's flags, the service's, and the stored model at its place."""
    p = tmp_path / "pair.yaml"
    p.write_text("apiVersion: serving.kserve.io/v1alpha1\nkind: ServingRuntime\nmetadata:\n  name: r\nspec:\n"
                 "  containers:\n    - name: kserve-container\n      image: quay.io/modh/vllm:rhoai-2.20-cuda\n"
                 "      args: ['--port=8080', '--model=/mnt/models', '--tensor-parallel-size=1']\n"
                 "  supportedModelFormats:\n    - name: vLLM\n---\n"
                 "apiVersion: serving.kserve.io/v1beta1\nkind: InferenceService\nmetadata:\n  name: svc\nspec:\n"
                 "  predictor:\n    model:\n      modelFormat:\n        name: vLLM\n      runtime: r\n"
                 "      storageUri: 'hf://org/pair-model'\n      args: ['--max-model-len=4096']\n"
                 "      resources:\n        limits:\n          nvidia.com/gpu: '1'\n")
    (d,) = read_path(str(p)).deployments
    assert (d.model, _at(d.model_span), d.get("max_model_len"), d.get("tensor_parallel_size"), d.gpu_count) == \
        ("hf://org/pair-model", (23, 19), 4096, 1, 1)


PIECES = """#!/bin/bash
cat > /etc/systemd/system/vllm.service << EOT
[Unit]
Description=vLLM

[Service]
ExecStart=/bin/bash -c '/usr/bin/docker run --rm --name vllm \\\\
EOT

if [ "$USE_GPU" = "true" ]; then
  echo "    --gpus 2 \\\\" >> /etc/systemd/system/vllm.service
fi

cat >> /etc/systemd/system/vllm.service << EOT
    vllm/vllm-openai:v0.10.0 \\\\
    --model org/pieces-model \\\\
    --max-model-len 8192'
EOT
systemctl enable --now vllm
"""


def test_a_unit_a_script_writes_in_pieces_is_read_as_the_file_holds_it():
    """Sample K215's template (a miss): `cat > F << EOT` ends mid-command (`docker run ... \\\\`), an `echo ... >> F`
    adds a line, `cat >> F << EOT` writes the rest: the unit is the pieces joined, one launch, each value at the
    line of the piece that wrote it (the echoed `--gpus 2` at line 11); a piece written to another file is not joined.
    """
    (dep,) = read_path("setup.sh", PIECES).deployments
    assert (dep.model, dep.image, dep.get("max_model_len")) == ("org/pieces-model", "vllm/vllm-openai:v0.10.0", 8192)
    assert (_at(dep.model_span), dep.gpu_count, dep.gpu_count_span.line if dep.gpu_count_span else None) == \
        ((16, 13), 2, 11)
    apart = PIECES.replace("cat >> /etc/systemd/system/vllm.service", "cat >> /tmp/other")
    assert all(d.gpu_count is None for d in read_path("setup.sh", apart).deployments)


def test_a_predictor_whose_storage_uri_is_left_empty_is_a_launch_with_an_open_model(tmp_path):
    """Sample K234's kustomize base (measured: silent): an InferenceService of modelFormat vLLM on a runtime in
    another file, `storageUri: ''` for the overlays to set: a launch whose model is open, at that key."""
    p = tmp_path / "inference-service.yaml"
    p.write_text("apiVersion: serving.kserve.io/v1beta1\nkind: InferenceService\nmetadata:\n  name: vllm\nspec:\n"
                 "  predictor:\n    model:\n      modelFormat:\n        name: vLLM\n      runtime: vllm-runtime\n"
                 "      storageUri: ''\n")
    (d,) = read_path(str(p)).deployments
    assert (d.engine, d.model_resolved, d.model_span.line) == ("vllm", False, 11)
    p.write_text(p.read_text().replace("      storageUri: ''\n", ""))  # no store at all: no model to serve
    assert read_path(str(p)).deployments == []


def test_an_openshift_templates_runtime_and_service_are_one_deployment(tmp_path):
    """Sample K234's OpenShift Template: `objects:` holds a ServingRuntime and the InferenceService that runs on it
    (both named `${MODEL_NAME}`): one deployment, as when they are two documents of one file; they were two."""
    runtime = ("  - apiVersion: serving.kserve.io/v1alpha1\n    kind: ServingRuntime\n    metadata:\n"
               "      name: ${MODEL_NAME}\n    spec:\n      containers:\n        - args: ['--port=8080', "
               "'--model=/mnt/models']\n          command: [python, -m, vllm.entrypoints.openai.api_server]\n"
               "          image: quay.io/modh/vllm:rhoai-2.16-cuda\n          name: kserve-container\n")
    service = ("  - apiVersion: serving.kserve.io/v1beta1\n    kind: InferenceService\n    metadata:\n"
               "      name: ${MODEL_NAME}\n    spec:\n      predictor:\n        model:\n          modelFormat:\n"
               "            name: vLLM\n          runtime: ${MODEL_NAME}\n          storageUri: s3://b/m\n")
    p = tmp_path / "served_model.yaml"
    p.write_text("apiVersion: template.openshift.io/v1\nkind: Template\nmetadata:\n  name: t\nobjects:\n"
                 + runtime + service)
    (d,) = read_path(str(p)).deployments
    assert (d.engine, d.model, d.launch_span.line) == ("vllm", "s3://b/m", 13)


def test_an_engine_image_older_than_the_tables_run_bare_serves_its_default_model_left_open(tmp_path):
    """Sample K226's benchmark Deployment (a KV008): `vllm/vllm-openai:v0.6.3` on a GPU with no command, no arguments
    and an empty `env:` (a helper fills them at run time): the image's entry point still starts the server, on that
    release's default model, which kvlint's tables (read from later releases) do not hold: a launch whose model is
    open, said so; compose's bare service the same. A release the tables read serves its default (no change)."""
    p = tmp_path / "deployment.yaml"
    p.write_text("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: v\nspec:\n  selector:\n    matchLabels:\n"
                 "      app: v\n  template:\n    spec:\n      containers:\n        - name: vllm\n"
                 "          image: vllm/vllm-openai:v0.6.3\n          resources:\n            limits:\n"
                 "              nvidia.com/gpu: 1\n          env:\n")
    (d,) = read_path(str(p)).deployments
    assert (d.engine, d.model, d.model_resolved, d.model_span.line) == \
        ("vllm", "(the default model of vLLM 0.6.3)", False, 13)
    assert any("older than the releases kvlint's tables read" in n for n in d.notes)
    c = tmp_path / "compose.yaml"
    c.write_text("services:\n  vllm:\n    image: vllm/vllm-openai:v0.6.3\n    gpus: all\n")
    (e,) = read_path(str(c)).deployments
    assert (e.model_resolved, e.model_span.line) == (False, 3)
    c.write_text("services:\n  vllm:\n    image: vllm/vllm-openai:v0.11.0\n    gpus: all\n")
    (f,) = read_path(str(c)).deployments
    assert f.model_resolved and f.model
