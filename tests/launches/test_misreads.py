"""Launches a reviewer found misread on real files, each fixed at its reader's mechanism: the fixtures in
tests/fixtures/launches/misreads/ are small files written for these tests, shaped like the real ones."""

from __future__ import annotations

from pathlib import Path

from kvlint.launches import read_path
from kvlint.lint import LintOptions, lint

FIX = Path(__file__).resolve().parent.parent / "fixtures" / "launches" / "misreads"


def _launches(name: str):
    return read_path(str(FIX / name)).deployments


def _findings(name: str) -> list[tuple[str, int, str]]:
    result = lint([str(FIX / name)], LintOptions())
    return [(f.code, f.span.line if f.span else 0, f.message) for f in result.findings]


def _at(span) -> tuple[int, int]:
    return (span.line, span.col)


def test_colon_builtin_default_assignment_sets_the_variable():
    (d,) = _launches("colon-default.sh")
    assert (d.model, d.model_resolved, _at(d.model_span)) == ("Qwen/Qwen3-VL-2B", True, (4, 12))
    port = d.settings["port"]
    assert (port.value, port.resolved, _at(port.span)) == (8000, True, (4, 31))  # `echo "${PORT:=8000}"` too
    assert not [f for f in _findings("colon-default.sh") if f[0] == "KV002"]


def test_unquoted_heredoc_sees_the_scripts_variables_a_quoted_one_does_not():
    unquoted, quoted = _launches("heredoc-vars.sh")
    assert (unquoted.model, unquoted.model_resolved, _at(unquoted.model_span)) == ("Qwen/Qwen3.5-9B", True, (4, 12))
    assert unquoted.get("max_model_len") == 8192
    assert (quoted.model, quoted.model_resolved, _at(quoted.model_span)) == ("$VLLM_MODEL", False, (7, 12))
    kv002 = [f for f in _findings("heredoc-vars.sh") if f[0] == "KV002" and "unresolved expression" in f[2]]
    assert [f[1] for f in kv002] == [7]


def test_trailing_expansion_after_flags_is_extra_arguments_not_the_model():
    named, unnamed, passed, first, plain = _launches("trailing-args.sh")
    for d, line in ((named, 2), (passed, 4)):
        assert (d.model, d.model_resolved, _at(d.model_span)) == ("Qwen/Qwen2.5-7B-Instruct", True, (line, 20))
    assert any("read as extra arguments" in n for n in named.notes)
    assert (unnamed.model, unnamed.model_resolved, _at(unnamed.model_span)) == ("$EXTRA_ARGS", False, (3, 58))
    assert (first.model, _at(first.model_span)) == ("Qwen/Qwen2.5-3B-Instruct", (5, 12))  # directly after serve
    assert (plain.model, plain.model_resolved, _at(plain.model_span)) == ("$MODEL", False, (6, 12))
    (k8s,) = _launches("template-kwargs.yaml")
    assert (k8s.model, k8s.model_resolved, _at(k8s.model_span)) == ("Qwen/Qwen2.5-7B-Instruct", True, (12, 30))
    assert k8s.get("max_model_len") == 8192
    for name, lines in (("trailing-args.sh", [3, 6]), ("template-kwargs.yaml", [])):
        unresolved = [f[1] for f in _findings(name) if f[0] == "KV002" and "unresolved expression" in f[2]]
        assert unresolved == lines


def test_apptainer_options_before_the_image_are_peeled_with_their_values():
    exec_, run = _launches("apptainer.sh")
    assert (exec_.image, _at(exec_.image_span)) == ("vllm.sif", (3, 63))
    assert (exec_.model, _at(exec_.model_span), exec_.get("max_model_len")) == ("Qwen/Qwen2.5-7B-Instruct", (4, 14), 8192)
    assert (run.image, _at(run.image_span)) == ("vllm-openai_v0.9.0.sif", (5, 85))
    assert (run.model, _at(run.model_span), run.get("max_model_len")) == ("Qwen/Qwen2.5-3B-Instruct", (6, 11), 4096)
    (tpl,) = _launches("apptainer-template.sh")  # `{{ '--nv' if ... }}` before `--env`: an option, not the image
    assert (tpl.image, _at(tpl.image_span)) == ("{{ profile.cache_dir }}/images/vllm-openai_v0.9.0.sif", (5, 3))
    assert (tpl.model, _at(tpl.model_span)) == ("Qwen/Qwen2.5-7B-Instruct", (6, 11))
    for d in (exec_, run, tpl):
        assert d.unknown_flags == ()
    for name in ("apptainer.sh", "apptainer-template.sh"):
        assert not [f for f in _findings(name) if f[0] == "KV004"]


def test_container_options_table_matches_its_schema():
    import jsonschema

    from kvlint.data import load_json

    jsonschema.validate(load_json("container_options.json"), load_json("container_options.schema.json"))


def test_unreadable_config_file_leaves_model_and_parallel_sizes_open():
    (sh,) = _launches("missing-config.sh")
    assert (sh.model, sh.model_resolved, _at(sh.model_span)) == ("--config serve.yaml", False, (3, 21))
    assert sh.get("max_model_len") == 8192  # the command line's own settings stay
    for name in ("tensor_parallel_size", "pipeline_parallel_size", "data_parallel_size"):
        s = sh.settings[name]
        assert (s.resolved, _at(s.span)) == (False, (3, 21))
    assert any("--config serve.yaml is not next to this file" in n for n in sh.notes)
    (k8s,) = _launches("missing-config.yaml")
    assert (k8s.model_resolved, _at(k8s.model_span), k8s.gpu_count) == (False, (10, 45), 4)
    assert not k8s.settings["tensor_parallel_size"].resolved
    for name in ("missing-config.sh", "missing-config.yaml"):
        found = _findings(name)
        assert not [f for f in found if f[0] == "KV204" or "no model reference" in f[2]]


def test_llmisvc_parallelism_data_local_and_expert_are_the_launchs():
    (d,) = _launches("llmisvc-dp-ep.yaml")
    expect = {"data_parallel_size": (32, (10, 11)), "data_parallel_size_local": (8, (11, 16)),
              "enable_expert_parallel": (True, (12, 13)), "tensor_parallel_size": (1, (13, 13))}
    assert {k: (d.settings[k].value, _at(d.settings[k].span)) for k in expect} == expect
    assert d.gpu_count == 32  # 8 per pod x 32/8 pods
    assert not [f for f in _findings("llmisvc-dp-ep.yaml") if f[0] == "KV108" and "needs at least" in f[2]]


def test_llmisvc_dp_ep_corpus_file_is_sized_per_expert_parallel_rank(shared_dir):
    path = (shared_dir / "corpus/kserve__kserve/docs/samples/llmisvc/dp-ep/deepseek-r1-gpu-rdma-roce/"
            "llm-inference-service-dp-ep-deepseek-r1-gpu-deepep-ht.yaml")
    (d,) = read_path(str(path)).deployments
    assert (d.get("data_parallel_size"), d.get("data_parallel_size_local"), d.get("enable_expert_parallel")) == \
        (32, 8, True)
    errors = [f for f in lint([str(path)], LintOptions()).findings if f.severity.name == "ERROR"]
    assert errors == []


def test_node_affinity_key_naming_a_gpu_is_the_launchs_product():
    one, several = _launches("affinity-gpu-name.yaml")
    assert (one.gpu, _at(one.gpu_span), one.gpu_options) == ("Tesla-V100", (15, 19), ())  # NotIn [T4] is not it
    assert [(o.name, o.count, _at(o.span)) for o in several.gpu_options] == [
        ("NVIDIA-L4", 1, (36, 71)), ("NVIDIA-A10G", 1, (36, 82))]
    sweeps = [f for f in _findings("affinity-gpu-name.yaml") if f[0] == "KV108" and "no GPU declared" in f[2]]
    assert sweeps == []


def test_gaudi_accelerator_is_the_launchs_device_not_a_gpu_sweep():
    (values,) = _launches("gaudi-values.yaml")
    assert (values.gpu, _at(values.gpu_span)) == ("intel-gaudi", (5, 9))
    (pod,) = _launches("gaudi-resource.yaml")
    assert (pod.gpu, _at(pod.gpu_span)) == ("habana.ai/gaudi", (9, 43))
    for name in ("gaudi-values.yaml", "gaudi-resource.yaml"):
        found = _findings(name)
        assert not [f for f in found if f[0] == "KV108"]
        assert [f[0] for f in found if "not a GPU" in f[2]] == ["KV003"]


def test_srun_options_are_read_by_sruns_own_table(tmp_path):
    """Sample K20's isambard job (measured: KV008, no launch): `srun --nodes=... --cpus-per-task 72
    --ntasks-per-node 1 vllm serve $MODEL_PATH` took `1` as the program; srun's documented table decides which
    options take a value (`--ntasks-per-node 1`), and a switch (`-l`, `--exact`) takes none."""
    p = tmp_path / "job.sh"
    p.write_text("#!/bin/bash\n#SBATCH --gpus=4\nMODEL=Qwen/Qwen2.5-7B-Instruct\n"
                 "srun --nodes=1 --cpus-per-task 72 --ntasks-per-node 1 -l --exact \\\n"
                 "    vllm serve $MODEL --tensor_parallel_size=4 &\n")
    (dep,) = read_path(str(p)).deployments
    assert (dep.model, dep.model_span.line, dep.get("tensor_parallel_size"), dep.gpu_count) == \
        ("Qwen/Qwen2.5-7B-Instruct", 5, 4, 4)


def test_llmisvc_prefill_pool_is_placed_at_its_own_section(tmp_path):
    """Sample K40's prefill/decode LLMInferenceService (measured: both launches at the model's `uri`, so the prefill
    pool was not found where it is written): the prefill pool is a launch at its `prefill:` key, its model the
    spec's; the decode launch stays at the model."""
    p = tmp_path / "llmisvc-pd.yaml"
    main = ("      containers:\n      - name: main\n        resources:\n          limits:\n"
            "            nvidia.com/gpu: \"1\"\n")
    p.write_text("apiVersion: serving.kserve.io/v1alpha1\nkind: LLMInferenceService\nmetadata:\n  name: pd\nspec:\n"
                 "  model:\n    uri: hf://org/pd-model\n  template:\n" + main.replace("      ", "    ", 1) +
                 "  prefill:\n    replicas: 2\n    template:\n" + main)
    decode, prefill = read_path(str(p)).deployments
    assert (decode.name, _at(decode.launch_span), _at(decode.model_span)) == ("pd/decode", (7, 10), (7, 10))
    assert (prefill.name, _at(prefill.launch_span), _at(prefill.model_span)) == ("pd/prefill", (14, 3), (7, 10))


def test_a_flags_list_under_any_arguments_key_is_its_engines_launch(tmp_path):
    """Sample K40's OCI blueprint (measured: KV008, no launch): `recipe_container_command_args: [--port, 8000,
    --model, /models, --tensor-parallel-size, 2, --gpu-memory-utilization, 0.90, ...]`, the image a build whose name
    says no engine: the list carries a model flag and flags only vLLM takes, so it is vLLM's launch. A list of flags
    no engine owns (`--model` and `--port` alone) stays unread."""
    p = tmp_path / "recipe.json"
    p.write_text('{\n  "recipe_id": "vllm_inference",\n  "recipe_container_command_args": [\n'
                 '    "--port", "8000",\n    "--model", "/models/org-model",\n    "--tensor-parallel-size", "2",\n'
                 '    "--gpu-memory-utilization", "0.90"\n  ]\n}\n')
    (d,) = read_path(str(p)).deployments
    assert (d.engine, d.model, _at(d.model_span), d.get("tensor_parallel_size")) == \
        ("vllm", "/models/org-model", (5, 16), 2)
    q = tmp_path / "client.json"
    q.write_text('{"client": "vllm", "client_args": ["--model", "org/m", "--port", "8000"]}\n')
    assert read_path(str(q)).deployments == []


def test_a_compose_reference_compose_cannot_interpolate_is_an_error(tmp_path):
    """Sample K40's compose (a project renamed by search and replace: `${Quantum Documents_VLLM_ARGS}`): compose
    refuses a `${` whose name holds a space (invalid interpolation format), so the file starts nothing: one KV001
    error, at the first such reference. `$${X Y}` is an escaped `$`, and `${A:-x y}` a default with a space: fine."""
    from kvlint.lint import LintOptions, lint

    p = tmp_path / "docker-compose.yml"
    p.write_text("services:\n  vllm:\n    image: vllm/vllm-openai:v0.11.0\n    environment:\n"
                 "      - NOTE=$${not a ref} ${OK:-a default with spaces}\n"
                 "    command: --model org/m --port 8000 ${Quantum Documents_VLLM_ARGS}\n"
                 "    ports:\n      - '${Quantum Documents_PORT}:8000'\n")
    errors = [(f.code, _at(f.span)) for f in lint([str(p)], LintOptions()).findings if f.severity.name == "ERROR"]
    assert errors == [("KV001", (6, 40))]
    p.write_text(p.read_text().replace("Quantum Documents", "QUANTUM_DOCUMENTS"))
    assert [f for f in lint([str(p)], LintOptions()).findings if f.code == "KV001"] == []


def test_a_flag_value_a_variable_set_empty_gives_is_unresolved_not_invalid(tmp_path):
    """Sample K43's SGLang launcher (measured: four KV007 errors, "--port: not an integer"): `PORT_OVERRIDE=""`,
    `PORT="$PORT_OVERRIDE"` only when it is non-empty, the real values from `eval "$(read_config)"`: a quoted
    expansion that comes out empty is a placeholder kvlint cannot see filled, so the value is unresolved, never a
    value the engine rejects. A literal `""` is still the empty string."""
    from kvlint.lint import LintOptions, lint

    p = tmp_path / "start.sh"
    p.write_text('#!/bin/bash\nPORT_OVERRIDE=""\neval "$(read_config)"\nif [[ -n "$PORT_OVERRIDE" ]]; then\n'
                 '    PORT="$PORT_OVERRIDE"\nfi\nCMD=(python -m sglang.launch_server --model-path org/m --port "$PORT")\n'
                 '"${CMD[@]}"\n')
    (d,) = read_path(str(p)).deployments
    assert not d.settings["port"].resolved and d.settings["port"].raw == "$PORT"
    assert [f for f in lint([str(p)], LintOptions()).findings if f.code == "KV007"] == []
    q = tmp_path / "literal.sh"
    q.write_text('#!/bin/bash\npython -m sglang.launch_server --model-path org/m --port ""\n')
    assert [f.code for f in lint([str(q)], LintOptions()).findings if f.code == "KV007"] == ["KV007"]


def test_a_quoted_engine_program_path_in_a_workflow_step_is_read(tmp_path):
    """Sample K42's composite action (measured: silent): `setsid nohup "$WORKDIR/venv/bin/vllm" serve "$M" ...` in a
    step's `run: |`: the program's path is quoted, so the string was never asked whether it launches."""
    p = tmp_path / "action.yml"
    p.write_text('name: setup-vllm\nruns:\n  using: composite\n  steps:\n    - name: Start\n      shell: bash\n'
                 '      run: |\n        HF_HUB_OFFLINE=1 setsid nohup "$WORKDIR/venv/bin/vllm" serve org/action-model \\\n'
                 '          --max-model-len 8192 &\n')
    (d,) = read_path(str(p)).deployments
    assert (d.model, _at(d.model_span), d.get("max_model_len")) == ("org/action-model", (8, 70), 8192)


def test_a_manifest_an_ansible_task_writes_with_jinja_values_is_read(tmp_path):
    """Sample K43's Ansible role (measured: silent): `ansible.builtin.copy: content: |` writes a Deployment whose
    values are Jinja (`image: {{ vllm_image }}`, `--model={{ vllm_model }}`): the block is read as YAML with each
    expression an open value, at its line in the task file."""
    p = tmp_path / "main.yml"
    p.write_text("- name: Write the manifests\n  ansible.builtin.copy:\n    dest: /etc/lab/vllm.yaml\n    content: |\n"
                 "      apiVersion: apps/v1\n      kind: Deployment\n      metadata: {name: vllm}\n      spec:\n"
                 "        template:\n          spec:\n            containers:\n              - name: vllm\n"
                 "                image: {{ vllm_image }}\n                args:\n"
                 "                  - --model={{ vllm_model }}\n                  - --max-model-len=8192\n"
                 "                resources:\n                  limits: {nvidia.com/gpu: 1}\n")
    (d,) = read_path(str(p)).deployments
    assert (d.engine, d.model, _at(d.model_span), d.get("max_model_len"), d.gpu_count) == \
        ("vllm", "{{ vllm_model }}", (15, 29), 8192, 1)


def test_an_image_variable_known_in_part_is_named_by_what_is_known(tmp_path):
    """Sample K32's deploy workflow (measured: silent): `IMAGE_URI="${REGION}-docker.pkg.dev/${PROJECT_ID}/${REPO}/
    ${IMAGE_NAME}:${IMAGE_TAG}"` with IMAGE_NAME known (`qwen3-vllm`), then `gcloud "${deploy_args[@]}"` deploying it on
    a GPU with `VLLM_MODEL` in its environment: the image's known name says it carries vLLM, so the launch is read
    from its environment, as a literal image of that name is."""
    p = tmp_path / "deploy.sh"
    p.write_text('#!/bin/bash\nIMAGE_NAME=qwen3-vllm\nIMAGE_URI="${REGION}-docker.pkg.dev/${PROJECT_ID}/repo/${IMAGE_NAME}:latest"\n'
                 'deploy_args=(\n  run deploy svc\n  --image "${IMAGE_URI}"\n  --gpu 1\n  --gpu-type nvidia-l4\n'
                 '  --set-env-vars "VLLM_MODEL=org/cloud-model,VLLM_MAX_MODEL_LEN=4096"\n)\ngcloud "${deploy_args[@]}"\n')
    (d,) = read_path(str(p)).deployments
    assert (d.engine, d.model, d.get("max_model_len"), d.gpu) == ("vllm", "org/cloud-model", 4096, "nvidia-l4")
    assert d.image == "${REGION}-docker.pkg.dev/${PROJECT_ID}/repo/qwen3-vllm:latest"


def test_a_bare_json_word_of_a_recorded_command_is_the_json_the_engine_reads(tmp_path):
    """Sample K114's `vllm-serve-command.txt`, a process listing's one line (measured: a KV007 error "not valid JSON",
    as if a shell had stripped the quotes): a text file's command is no shell script, the argv ran as printed. The
    same words in a shell script keep the shell's reading and the error."""
    line = ("/usr/bin/python3 /usr/local/bin/vllm serve org/m --max-model-len 4096 "
            '--speculative-config {"method":"mtp","num_speculative_tokens":3} --port 8000\n')
    txt = tmp_path / "serve-command.txt"
    txt.write_text(line)
    (dep,) = read_path(str(txt)).deployments
    spec = dep.settings["speculative_config"]
    assert spec.value == {"method": "mtp", "num_speculative_tokens": 3} and not dep.invalid_values
    assert (spec.span.line, spec.span.col) == (1, line.index("{") + 1)
    sh = tmp_path / "serve.sh"
    sh.write_text(line)
    assert [f.code for f in lint([str(sh)], LintOptions(select=("KV007",))).findings] == ["KV007"]
