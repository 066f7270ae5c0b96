"""Shapes the turn-33 held-out samples showed kvlint passing over or misreading, each read by a mechanism, not a
case."""

from __future__ import annotations

from kvlint.launches import read_path


def _at(span):
    return (span.line, span.col) if span is not None else None


_MATRIX = """\
matrix:
  models:
    - id: q
      repo: org/q
  deployments:
    - id: small
      hardware: l4
      engine:
        name: vllm
        image: ghcr.io/example/vllm:v0.11.0
        arguments:
          - --model
          - /repository
          - --max-model-len
          - "65536"
          - --kv-cache-dtype
          - fp8
    - id: big
      engine:
        image: ghcr.io/example/vllm:v0.12.0
        arguments: [--model, org/big, --max-model-len, "8192", --tensor-parallel-size, "2"]
    - id: notes
      owner: team-a
"""


def test_each_item_of_a_deployment_matrix_with_an_argument_vector_is_a_launch():
    """Sample K273 (said only: KV008 "chart layout unknown"): a benchmarking tool's matrix lists deployments, each
    an engine image and an argument vector (flag, value, flag, value) under `arguments:`: one launch per item, with
    the item's own image and each value where it is written; an item with no arguments is none."""
    result = read_path("experiment.yaml", _MATRIX)
    deps = result.deployments
    assert [(d.engine, d.model, d.get("max_model_len"), d.image) for d in deps] == [
        ("vllm", "/repository", 65536, "ghcr.io/example/vllm:v0.11.0"),
        ("vllm", "org/big", 8192, "ghcr.io/example/vllm:v0.12.0")]
    assert deps[1].get("tensor_parallel_size") == 2
    assert _at(deps[0].model_span) == (13, 13)
    assert not [f for f in result.findings if f.code == "KV008"]


def test_an_argument_list_of_another_program_in_a_matrix_is_not_a_launch():
    """The same layout whose lists are a benchmark client's flags (`--model` and flags no engine has) gives none."""
    text = _MATRIX.replace("--max-model-len", "--num-prompts").replace("--kv-cache-dtype", "--request-rate") \
        .replace("--tensor-parallel-size", "--dataset-name").replace("ghcr.io/example/vllm", "ghcr.io/example/bench")
    assert read_path("experiment.yaml", text).deployments == []


def test_an_engine_command_inside_a_usage_synopsis_is_no_launch():
    """Samples K274 and K275 (measured: spurious launches, model `args...]`): `usage() { cat <<EOF ... run.sh start
    [model] [extra vllm serve args...]` names the engine inside an optional group `[ ... ]` of a usage line; the
    script's own command below it is the launch."""
    text = ("#!/bin/bash\nusage() {\n  cat <<'EOF'\nUsage:\n  manage.sh start [model] [extra vllm serve args...]\n"
            "  manage.sh [options] [-- extra vllm serve args...]\nEOF\n}\n"
            "manage.sh start [model] [extra vllm serve args...]\n"
            "vllm serve org/m --max-model-len 4096\n")
    (dep,) = read_path("manage.sh", text).deployments
    assert (dep.model, _at(dep.model_span)) == ("org/m", (10, 12))


_CLOUD_INIT = """\
#cloud-config
write_files:
  - path: /root/bootstrap.sh
    content: |
      #!/usr/bin/env bash
      set -euo pipefail
      cat >/etc/systemd/system/vllm.service <<'UNIT'
      [Unit]
      Description=vLLM
      [Service]
      ExecStart=/opt/vllm/.venv/bin/vllm serve org/m --port 8000 --max-model-len 8192
      Restart=always
      UNIT
      systemctl enable --now vllm.service
runcmd:
  - [bash, /root/bootstrap.sh]
"""


def test_a_unit_a_block_string_script_writes_by_here_document_is_read_at_its_place():
    """Sample K275 (measured: said only): a cloud-init `write_files` script (a YAML block string) writes a systemd
    unit with `cat > unit <<'UNIT'`; the shell skips the body when it reads the string, so the body is read as the
    script's own here-documents are, each value at its line and column in the file."""
    (dep,) = read_path("cloud-init.yaml", _CLOUD_INIT).deployments
    assert (dep.engine, dep.model, dep.get("max_model_len")) == ("vllm", "org/m", 8192)
    assert _at(dep.model_span) == (11, 48)
    assert _at(dep.settings["max_model_len"].span) == (11, 82)


def test_a_program_named_for_the_engine_in_a_ci_step_is_read_by_its_flags():
    """Sample K275 (measured: said only): a composite action runs `./vllm-install/bin/vllm-server --model "$model"
    --max-model-len 512 ...` (a wrapper the build installs) in a `run: |` block: the words are vLLM's flags by its
    table, as a script's would be, in a script that also runs `python3 -c "` with an `import vllm` line (no Python
    program). A benchmark client's flags there stay none."""
    text = ("runs:\n  using: composite\n  steps:\n    - shell: bash\n      run: |\n        model=\"org/m\"\n"
            "        ./vllm-install/bin/python3 -c \"\n        import vllm\n        print(vllm.__version__)\n        \"\n"
            "        ./vllm-install/bin/vllm-server \\\n          --model \"$model\" \\\n          --port 8000 \\\n"
            "          --max-model-len 512 \\\n          --gpu-memory-utilization 0.5 &\n")
    (dep,) = read_path("action.yml", text).deployments
    assert (dep.engine, dep.model, dep.get("max_model_len"), _at(dep.model_span)) == ("vllm", "org/m", 512, (12, 19))
    client = text.replace("vllm-install/bin/vllm-server", "bench/bench_client").replace("--max-model-len 512",
                                                                                        "--num-prompts 512")
    assert read_path("action.yml", client).deployments == []


def test_values_whose_model_map_lists_one_engines_flags_beside_a_gpu_request_are_that_engines_launch():
    """Sample K276 (measured: silent): values of a chart kvlint has no adapter for, `model: {uri: ..., args:
    [--max-model-len=100000]}` beside `nvidia.com/gpu: 1`: the list is vLLM's by its table, so the values deploy vLLM
    on that model. Without the GPU request, or with flags no engine has, nothing is read."""
    text = ("model:\n  uri: hf://org/m\n  args:\n    - --max-model-len=100000\nresources:\n  limits:\n"
            "    nvidia.com/gpu: 1\n")
    (dep,) = read_path("values.yaml", text).deployments
    assert (dep.engine, dep.get("max_model_len"), dep.gpu_count) == ("vllm", 100000, 1)
    assert read_path("values.yaml", text.replace("resources:\n  limits:\n    nvidia.com/gpu: 1\n", "")).deployments == []
    assert read_path("values.yaml", text.replace("--max-model-len", "--learning-rate")).deployments == []


def test_a_runbook_applying_an_llminferenceservice_in_a_here_document_is_read_though_it_names_no_engine():
    """Sample K276 (measured: silent): a Markdown guide's ```bash block runs `oc apply -f - <<'EOF'` with a KServe
    LLMInferenceService (whose operator runs vLLM); the document never says "vllm"."""
    text = ("# Deploy\n\n```bash\noc apply -n ns -f - <<'EOF'\napiVersion: serving.kserve.io/v1alpha1\n"
            "kind: LLMInferenceService\nmetadata:\n  name: q\nspec:\n  model:\n    name: org/m\n    uri: hf://org/m\n"
            "  template:\n    containers:\n    - name: main\n      resources:\n        limits:\n"
            "          nvidia.com/gpu: \"1\"\nEOF\n```\n")
    (dep,) = read_path("guide.md", text).deployments
    assert (dep.engine, dep.gpu_count) == ("vllm", 1)
    assert dep.model_span is not None and dep.model_span.line in (11, 12)


def test_a_dockerfile_entrypoint_written_by_cat_with_the_redirection_after_the_here_document_is_read():
    """Sample K277 (measured: said only): `RUN cat <<'EOF' > /usr/local/bin/start.sh` (the redirection after the
    here-document) writes the script `ENTRYPOINT` runs: its command is the image's default launch."""
    text = ("FROM vllm/vllm-openai:v0.10.0\nRUN cat <<'EOF' > /usr/local/bin/start.sh\n#!/bin/bash\n"
            "exec python3 -m vllm.entrypoints.openai.api_server \\\n    --model org/m \\\n    --max-model-len 4096\nEOF\n"
            "RUN chmod +x /usr/local/bin/start.sh\nENTRYPOINT [\"/usr/local/bin/start.sh\"]\n")
    (dep,) = read_path("Dockerfile", text).deployments
    assert (dep.model, dep.get("max_model_len"), _at(dep.model_span)) == ("org/m", 4096, (5, 13))


def test_a_runbooks_python_blocks_lose_only_the_lines_that_are_no_python():
    """Sample K276 (measured: missed): a runbook's ```python blocks include a `docker pull` and a line with a
    placeholder (`region = <your-region>`) beside the one naming the engine's image; read together, one such line
    failed the whole program. The failing lines are dropped, the rest read: the argument list handed to the
    platform's runtime is vLLM's launch, at its place."""
    text = ("# Deploy\n\n```python\ndocker pull vllm/vllm-openai:v0.5.3\n```\n\n```python\n"
            "image = \"<region>.ocir.io/t/vllm-openai:v0.5.3\"\nregion = <your-region>\n```\n\n```python\n"
            "cmd = [\"--model\", \"org/m\", \"--tensor-parallel-size\", \"8\", \"--max-model-len\", \"1200\"]\n"
            "rt = Runtime().with_image(image).with_cmd(cmd)\n```\n")
    (dep,) = read_path("guide.md", text).deployments
    assert (dep.model, dep.get("tensor_parallel_size"), _at(dep.model_span)) == ("org/m", 8, (13, 20))


def test_a_sentence_that_opens_with_the_engines_command_is_prose():
    """Sample K279 (measured: a spurious launch, model `KV`): a note's line `vllm serve KV cache does not seem to
    persist properly.`: a sentence's words after the command and no option; the engine's parser takes one
    positional. Command lines beside it stay launches."""
    text = ("# note\n\nvllm serve KV cache does not seem to persist properly.\n\nvllm serve org/m --port 8000\n\n"
            "vllm serve Qwen/Qwen3-8B\n")
    assert [d.model for d in read_path("note.md", text).deployments] == ["org/m", "Qwen/Qwen3-8B"]


def test_the_callers_of_many_functions_are_found_from_one_index_of_the_files_calls():
    """Sample K279 (measured: KV001 "took over 1 s of CPU", the launch missed): a 4,000-line program whose argv
    builder has many callers; each function's call sites were found by walking the whole tree again. The index is
    made once per tree and gives the same calls, in source order."""
    import ast

    from kvlint.launches.pycalls import call_sites

    tree = ast.parse("def f(a):\n    pass\n\nclass C:\n    def g(self):\n        self.f(2)\n\nf(1)\nh(f(3))\n")
    fn = tree.body[0]
    assert [c.lineno for c in call_sites(tree, fn)] == [6, 8, 9]
    assert call_sites(tree, fn) == call_sites(tree, fn)


def test_a_program_word_a_function_named_for_the_engine_finds_is_the_engines_cli():
    """Sample K274 (measured: said only): `executable = resolve_vllm_binary(...)` then `argv = [executable, "serve",
    "--config", path, "--port", str(port)]` run by a helper: the engine's CLI given its config file, a launch at the
    list (its model in the config the program writes). A name bound to another function's result is not."""
    text = ("import subprocess\n\ndef resolve_vllm_binary(x):\n    return x\n\ndef start(cfg, port):\n"
            "    executable = resolve_vllm_binary('vllm')\n"
            "    argv = [executable, 'serve', '--config', str(cfg), '--port', str(port)]\n"
            "    subprocess.Popen(argv)\n")
    (dep,) = read_path("server.py", text).deployments
    assert (dep.engine, _at(dep.launch_span)) == ("vllm", (8, 13))
    assert read_path("server.py", text.replace("resolve_vllm_binary('vllm')", "find_tool('x')")).deployments == []


_SPCS = """\
spec:
  containers:
    - name: llm
      image: {{ llm_image }}
      resources:
        limits:
          nvidia.com/gpu: 4
      env:
        MODEL: org/m
        TENSOR_PARALLEL_SIZE: 4
        GPU_MEMORY_UTILIZATION: 0.95
        MAX_MODEL_LEN: 75000
    - name: ui
      image: {{ ui_image }}
      env:
        MODEL: org/m
"""


def test_a_gpu_container_whose_variables_spell_one_engines_flags_is_that_engines_launch():
    """Sample K277 (measured: missed): a Snowpark Container Services spec, its image a template placeholder, its
    `env:` a map of `MODEL` and variables spelled as vLLM's flags with no prefix, on 4 GPUs: the image's entry point
    starts vLLM with them. The UI container beside it (no GPU, no flag variables) is none; without the GPUs, none."""
    (dep,) = read_path("spec.yml", _SPCS).deployments
    assert (dep.engine, dep.model, dep.get("max_model_len"), dep.gpu_count) == ("vllm", "org/m", 75000, 4)
    assert _at(dep.model_span) == (9, 16)
    assert read_path("spec.yml", _SPCS.replace("nvidia.com/gpu: 4", "cpu: 4")).deployments == []


def test_variables_both_engines_spell_alike_name_neither():
    from kvlint.launches.env_launch import spelled_engine

    assert spelled_engine(["MODEL", "MAX_MODEL_LEN", "GPU_MEMORY_UTILIZATION"]) == "vllm"
    assert spelled_engine(["MODEL_PATH", "CONTEXT_LENGTH", "MEM_FRACTION_STATIC"]) == "sglang"
    assert spelled_engine(["MODEL", "TENSOR_PARALLEL_SIZE", "PORT"]) is None
    assert spelled_engine(["MAX_MODEL_LEN", "GPU_MEMORY_UTILIZATION"]) is None  # no model variable


def test_a_lone_dash_after_a_commented_launch_line_cuts_nothing():
    """A property test's case (KV012 warning on `vllm serve #x` then a line `-`): only an option line (`--flag`,
    `-e`) after a comment is a piece the comment cut off; a lone `-` or `--` is a command of its own."""
    from kvlint.launches.read import read_one

    for text in ("vllm serve #containers:\n-\n", "vllm serve org/m  # note\n--\n"):
        assert not [f for f in read_one("x.sh", text).findings if f.code == "KV012"]
    cut = read_one("x.sh", "vllm serve org/m \\\n  # the port\n  --port 8000\n")
    assert [f.code for f in cut.findings if f.code == "KV012"] == ["KV012"]


def test_a_manifest_a_script_applies_from_an_unquoted_here_document_is_read_with_the_scripts_variables():
    """Sample K283 (measured: said only): `cat <<EOF_APPLY | oc apply -f -` with a Deployment whose container runs
    `--model "${MODEL_ID}"`, a line that is only `${IMAGE_PULL_SECRETS_YAML}` (whole lines `envsubst`-style), and
    `MODEL_ID="${MODEL_ID:-org/m}"` set above: the manifest is read as its template, the model the script's."""
    text = ('MODEL_ID="${MODEL_ID:-org/m}"\nPULL=""\ncat <<EOF_APPLY | oc apply -f -\napiVersion: apps/v1\n'
            "kind: Deployment\nmetadata:\n  name: v\nspec:\n  selector: {}\n  template:\n    spec:\n${PULL}\n"
            "      containers:\n        - name: vllm\n          image: vllm/vllm-openai:v0.11.0\n"
            "          command: [/bin/bash, -lc]\n          args:\n            - |\n"
            '              exec vllm serve "${MODEL_ID}" --max-model-len 4096\nEOF_APPLY\n')
    (dep,) = read_path("deploy.sh", text).deployments
    assert (dep.model, dep.get("max_model_len"), dep.model_span.line) == ("org/m", 4096, 19)
    quoted = text.replace("cat <<EOF_APPLY", "cat <<'EOF_APPLY'")  # the shell fills nothing: the model stays open
    assert [d.model_resolved for d in read_path("deploy.sh", quoted).deployments] == [False]


def test_a_placeholder_among_docker_run_options_is_more_options_not_the_image():
    """Sample K282 (measured: a spurious launch, its image `<VLLM_ENV_AS_-e_FLAGS>`): a template script's `docker run
    ... <VLLM_ENV_AS_-e_FLAGS> -v ... --entrypoint sleep "$IMAGE" infinity`: the placeholder stands for options,
    and the container runs `sleep`."""
    text = ('IMAGE=<IMAGE>\ndocker run -d --name c --device /dev/kfd <VLLM_ENV_AS_-e_FLAGS> -v /h:/root/.cache '
            '--entrypoint sleep "$IMAGE" infinity\ndocker exec c pkill -f "vllm serve"\n')
    assert read_path("stage.sh", text).deployments == []


def test_an_engine_image_nested_in_values_takes_its_own_sections_model_and_switch():
    """Sample K282 (measured: a spurious launch, model `gpt-4o-mini`): a vLLM runtime image under
    `nemoGuardrails.contentSafety.runtime` beside `modelPath:`, a client's `LLM_MODEL` under `secrets:`, and
    `nemoGuardrails.enabled: false`: the launch's model is its section's, and the switched-off section disables it."""
    text = ("secrets:\n  LLM_BASE_URL: http://vllm:8000/v1\n  LLM_MODEL: gpt-4o-mini\nnemoGuardrails:\n"
            "  enabled: false\n  contentSafety:\n    deploy: true\n    modelPath: org/safety-8b\n    runtime:\n"
            "      image: registry.redhat.io/rhaiis/vllm-cuda-rhel9:3.2\n    gpu:\n      count: 1\n"
            "resources:\n  limits:\n    nvidia.com/gpu: 1\n")
    (dep,) = read_path("values.yaml", text).deployments
    assert dep.model == "org/safety-8b" and dep.disabled is not None and dep.disabled.line == 5


def test_a_runbook_command_whose_engine_is_on_a_continuation_line_is_read():
    """Sample K282 (measured: silent): an indented runbook block `docker exec -d CTR bash -lc \\` then
    `"vllm serve openai/gpt-oss-20b \\ ...`: the entry point is on the second line of the command."""
    text = ("# Serve\n\n2. Launch it:\n\n       docker exec -d ctr bash -lc \\\n"
            "         \"vllm serve org/m \\\n          --tensor-parallel-size 1 \\\n          --port 8000\"\n")
    (dep,) = read_path("CLAUDE.md", text).deployments
    assert (dep.model, dep.get("tensor_parallel_size"), dep.model_span.line) == ("org/m", 1, 6)


def test_a_containers_model_path_with_a_template_placeholder_is_its_positional_model():
    """Sample K282 (measured: said only): an llm-d ModelService's decode and prefill containers, no image (the base
    config gives it), args `['/model-cache/{{ .ModelPath }}', --tensor-parallel-size, '8', ...]`: the placeholder
    path is the positional model, the flags vLLM's: one launch per role."""
    text = ("apiVersion: llm-d.ai/v1alpha1\nkind: ModelService\nmetadata:\n  name: m\nspec:\n  decode:\n"
            "    containers:\n    - name: vllm\n      args:\n      - '/model-cache/{{ .ModelPath }}'\n"
            "      - --tensor-parallel-size\n      - '8'\n      - --max-model-len\n      - '100000'\n  prefill:\n"
            "    containers:\n    - name: vllm\n      args:\n      - '/model-cache/{{ .ModelPath }}'\n"
            "      - --tensor-parallel-size\n      - '8'\n      - --max-model-len\n      - '100000'\n")
    deps = read_path("ms.yaml", text).deployments
    assert [(d.engine, d.get("tensor_parallel_size")) for d in deps] == [("vllm", 8), ("vllm", 8)]


def test_a_runbooks_yaml_block_naming_an_engine_image_that_gives_no_launch_is_said():
    """Sample K282 (measured: silent): a guide's ```yaml Deployment of `vllm/vllm-openai:latest` given no arguments
    (a snippet with no selector): no launch is read, and the KV008 says where the engine's image is named."""
    from kvlint.launches.read import read_one

    text = ("# GPU nodes\n\n```yaml\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: v\nspec:\n"
            "  template:\n    spec:\n      containers:\n      - name: vllm\n        image: vllm/vllm-openai:latest\n```\n")
    result = read_one("guide.md", text)
    assert result.deployments == [] and [(f.code, f.span.line) for f in result.findings] == [("KV008", 13)]


def test_an_editors_placeholder_text_in_code_is_no_command():
    """Sample K283 (measured: a spurious launch, model `your-model`): a job form's `placeholder={"vllm serve
    your-model \\\\n --tensor-parallel-size 2"}`: text an empty editor shows. A template string beside it stays."""
    text = ('const preset = "vllm serve org/m --tensor-parallel-size 2";\n'
            '<CodeEditor placeholder={"vllm serve your-model \\\\\\n  --tensor-parallel-size 2"} />\n')
    assert [d.model for d in read_path("page.tsx", text).deployments] == ["org/m"]


def test_an_engine_images_argument_list_of_any_name_with_a_positional_model_is_its_launch():
    """Sample K280 (measured: said only, KV008): a cluster tool's JSON names a build of vLLM (`image:
    vllm-ds41f-kkref:...`) and `serve_args: ["/models", "--served-model-name", ..., "--max-model-len", "160000"]`:
    `vllm serve MODEL ...` handed to that image, its flags vLLM's or its fork's."""
    text = ('{\n  "container": {"name": "c", "image": "vllm-ds41f-kkref:01f1b874-r3",\n'
            '    "docker_run_args": ["--network=host", "--gpus=all"]},\n  "serve_args": [\n    "/models",\n'
            '    "--served-model-name", "ds",\n    "--max-model-len", "160000",\n    "--engram-config", "{}"\n  ]\n}\n')
    (dep,) = read_path("cluster.json", text).deployments
    assert (dep.engine, dep.model, dep.get("max_model_len"), _at(dep.model_span)) == ("vllm", "/models", 160000, (5, 5))
    other = text.replace("vllm-ds41f-kkref", "web-frontend")  # an image no engine's: the list is no launch
    assert read_path("cluster.json", other).deployments == []


def test_an_array_joined_into_a_wrap_string_keeps_an_element_the_run_fills():
    """Sample K285 (measured: said only): `wrap_cmds=(... "trl vllm-serve --model ${model} --port ${port}")`, the
    port an option the script requires at run time (`port=''` filled by its getopt loop), then `wrap_cmd=
    "${wrap_cmds[*]}"` and `sbatch --wrap="${wrap_cmd}"`: the join keeps the run's word, the launch is read."""
    text = ('model="org/m"\nport=\'\'\nwhile true; do\n  case "$1" in\n    --model) model="$2"; shift 2 ;;\n'
            '    --port) port="$2"; shift 2 ;;\n    --) shift; break ;;\n  esac\ndone\n'
            'wrap_cmds=(\n    \'source ~/.bashrc;\'\n    "trl vllm-serve --model ${model} --port ${port}"\n)\n'
            'wrap_cmd="${wrap_cmds[*]}"\nsbatch --gres=gpu:1 --wrap="${wrap_cmd}"\n')
    (dep,) = read_path("serve.sh", text).deployments
    assert (dep.engine, dep.model, dep.model_span.line) == ("vllm", "org/m", 12)


def test_a_required_variables_message_in_device_ids_is_no_device_list():
    """Sample K287 (measured: a KV204 warning, wrong: "1 requested GPU(s) stay idle"): compose `device_ids: [
    "${ACG_GPU_DEVICE:?set ACG_GPU_DEVICE to a CDI name, e.g. nvidia.com/gpu=MIG-...}"]`: the error message's comma
    splits nothing. Since turn 39 (K359: the same shape beside `--tensor-parallel-size 2`, a false KV204 error "the
    instance requests 1") a variable compose does not know is an unknown count, not one device. A default of `0,1` is
    two."""
    base = ("services:\n  v:\n    image: vllm/vllm-openai:v0.11.0\n    command: [--model, org/m]\n    deploy:\n"
            "      resources:\n        reservations:\n          devices:\n            - driver: nvidia\n"
            "              device_ids:\n                - {ids}\n")
    (one,) = read_path("compose.yml", base.format(ids='"${GPU:?set GPU to a CDI name, e.g. nvidia.com/gpu=0}"')) \
        .deployments
    (two,) = read_path("compose.yml", base.format(ids='"${GPUS:-0,1}"')).deployments
    assert (one.gpu_count, two.gpu_count) == (None, 2)


def test_a_container_run_given_the_engines_own_model_variable_is_a_launch_without_a_gpu_flag():
    """Sample K284 (measured: said only): `docker run --privileged -e SM_VLLM_MODEL=${model_id} -e
    SM_VLLM_TENSOR_PARALLEL_SIZE=... vllm-optimum-neuron:0.3.0` (an AWS Neuron build, no `--gpus`): the variables
    the engine's wrappers read, a model among them, are evidence of a server run. A client's variables are not."""
    text = ("#!/bin/bash\nmodel_id=${1:-org/m}\ndocker run -it -p 8080:8080 --privileged \\\n"
            "    -e SM_VLLM_MODEL=${model_id} \\\n    -e SM_VLLM_MAX_MODEL_LEN=4096 \\\n    vllm-optimum-neuron:0.3.0\n")
    (dep,) = read_path("serve.sh", text).deployments
    assert (dep.engine, dep.model, dep.get("max_model_len"), _at(dep.launch_span)) == ("vllm", "org/m", 4096, (3, 1))
    client = text.replace("SM_VLLM_MODEL", "OPENAI_MODEL").replace("SM_VLLM_MAX_MODEL_LEN", "OPENAI_MAX_TOKENS")
    assert read_path("serve.sh", client).deployments == []


def test_a_config_that_chooses_the_engine_by_a_keys_value_is_said():
    """Sample K276 (measured: silent): a benchmark harness's config, `base_config: {model: M, llm_server_type:
    [vllm, sglang], gpu: H100!}`: a tool starts each engine from it, which kvlint does not read; a KV008 says so at
    the value. A key whose value is no engine's name (`llm_server_type: custom`) says nothing."""
    from kvlint.launches.read import read_one

    text = "id: x\nbase_config:\n  model: org/m\n  llm_server_type:\n    - vllm\n    - sglang\n  gpu: H100!\n"
    result = read_one("config.yaml", text)
    assert result.deployments == [] and [(f.code, f.span.line) for f in result.findings] == [("KV008", 5)]
    assert read_one("config.yaml", text.replace("    - vllm\n    - sglang\n", "    - custom\n")).findings == []
    assert read_one("config.yaml", "model: org/m\nengine: vllm\n").findings == []  # one engine: a setting


def test_a_builders_list_called_only_with_its_callers_own_parameters_is_read_where_it_is():
    """Sample K274 (measured: placed 23 lines away, at a display helper's call): `build_serve_cmd(self, model,
    vllm_bin="vllm")` returns `[vllm_bin, "serve", model, ...]`; its one caller, `format_serve_cmd(self, model,
    vllm_bin="vllm")`, hands on its own parameters. No value comes from the call: the launch is the list, with the
    builder's own defaults. A caller that gives a value still places the launch at its call."""
    text = ("class C:\n    def build_serve_cmd(self, model, vllm_bin='vllm'):\n"
            "        return [vllm_bin, 'serve', model, '--max-model-len', '4096']\n\n"
            "    def format_serve_cmd(self, model, vllm_bin='vllm'):\n"
            "        return ' '.join(self.build_serve_cmd(model=model, vllm_bin=vllm_bin))\n")
    (dep,) = read_path("config.py", text).deployments
    assert (dep.engine, dep.launch_span.line, dep.get("max_model_len")) == ("vllm", 3, 4096)
    given = text + "\nC().build_serve_cmd('org/m')\n"
    (called,) = read_path("config.py", given).deployments
    assert (called.model, called.model_span.line) == ("org/m", 8)
