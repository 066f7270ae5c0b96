"""The engine-invocation finder on any text: launchers in front of the engine, new file kinds, heredocs,
Python, and what is said when a file names an engine but gives no launch. Fixtures in
tests/fixtures/launches/finder; every model and flag pinned to (line, col)."""

from __future__ import annotations

from pathlib import Path

from kvlint.launches import read_path
from tests.launches.test_docker_and_positional import _at
from tests.launches.test_docker_and_positional import _deps as positional_deps

FIX = Path(__file__).resolve().parent.parent / "fixtures" / "launches" / "finder"


def _deps(name: str):
    """The launches of a fixture under finder/, none of its reader findings an error."""
    return positional_deps("finder/" + name)


def test_launchers_in_front_of_the_engine_are_peeled():
    deps = _deps("wrappers.sh")
    got = [(d.engine, d.model, _at(d.model_span)) for d in deps]
    assert got == [
        ("vllm", "org/apptainer-exec", (3, 60)),
        ("vllm", "org/sif-run", (4, 65)),
        ("vllm", "org/hatch", (5, 31)),
        ("sglang", "org/conda", (6, 84)),
        ("vllm", "org/torchrun", (7, 86)),
        ("vllm", "org/mpi-uv", (8, 62)),
        ("vllm", "org/enroot", (9, 58)),
        ("vllm", "org/trl", (10, 24)),
        ("vllm", "org/trl-module", (11, 42)),
        ("vllm", "org/poetry-pixi", (12, 32)),
        ("sglang", "org/sif-named", (14, 40)),  # apptainer run of a .sif named for the engine, flags only
    ]
    assert _at(deps[0].settings["max_model_len"].span) == (3, 95)
    assert deps[1].engine_version == "0.8.5" and deps[1].get("tensor_parallel_size") == 2
    assert deps[3].get("tp_size") == 2 and _at(deps[3].settings["tp_size"].span) == (6, 99)


def test_an_unknown_launcher_handed_an_engine_command_after_its_own_options():
    """Sample K29's `./launch-cluster.sh --solo -t vllm-node ... exec vllm serve M ...` (measured: missed, said):
    a launcher kvlint does not know that runs the command it is given; a printer or a per-item template is not one."""
    result = read_path(str(FIX / "launcher-handed.sh"))
    got = [(d.engine, d.model, _at(d.model_span)) for d in result.deployments]
    # line 10 (sample K170's llama-swap wrapper): handed after a second launcher's `--`, past sixteen words
    assert got == [("vllm", "org/cluster-model", (4, 19)), ("sglang", "org/b", (6, 66)), ("vllm", "org/far", (10, 214))]
    first, second, _ = result.deployments
    assert _at(first.settings["max_model_len"].span) == (5, 19) and _at(second.settings["tp_size"].span) == (6, 77)
    assert any("options not read: --solo -t vllm-node --apply-mod mods/fix)" in n for n in first.notes)
    assert [(f.code, f.span.line) for f in result.findings] == [("KV008", 8), ("KV008", 9)]  # said, not read
    # the engine's own program before its command is no launcher (a template's two arms pasted: production-stack)
    assert read_path("run.sh", "/opt/venv/bin/vllm vllm serve org/x --port 1\n").deployments == []


def test_a_bare_launcher_word_handing_its_command_over_with_an_exec_verb():
    """Sample K240's recipe (measured: missed, said): `b12x-kcache exec vllm serve M ...`, a bare launcher name
    whose `exec` verb hands the engine command over, is that launch; the verb is not read as the shell's `exec`
    running the launcher's own words. A bare word before an engine command with no such verb stays prose."""
    (dep,) = read_path("run.sh", "b12x-kcache exec vllm serve org/m --max-model-len 4096\n").deployments
    assert (dep.engine, dep.model, _at(dep.model_span), dep.get("max_model_len")) == ("vllm", "org/m", (1, 29), 4096)
    assert read_path("notes.sh", "cli vllm serve org/m\n").deployments == []


def test_a_compound_named_program_handed_an_engine_command_runs_it():
    """Sample K261's supervisor README (measured: 9 launches missed, said): `standard-supervisor vllm serve M ...`,
    in a script or an exec-form CMD, is a program that runs the command it is handed (as `nohup` does), so the launch
    is that command; after options alone too. A plain word before it (`cli`) may be prose and stays none."""
    got = read_path("run.sh", "standard-supervisor vllm serve org/a --max-model-len 2048\n"
                              "with-retry --tries 3 python -m sglang.launch_server --model-path org/b --tp 2\n"
                              ).deployments
    assert [(d.engine, d.model, _at(d.model_span)) for d in got] == [("vllm", "org/a", (1, 32)),
                                                                     ("sglang", "org/b", (2, 66))]
    assert got[0].get("max_model_len") == 2048 and got[1].get("tp_size") == 2
    docker = read_path("Dockerfile", 'FROM vllm/vllm-openai:latest\nENTRYPOINT ["standard-supervisor"]\n'
                                     'CMD ["vllm", "serve", "org/d", "--port", "8080"]\n').deployments
    assert [(d.model, _at(d.model_span)) for d in docker] == [("org/d", (3, 24))]
    assert read_path("notes.sh", "cli vllm serve org/m\n").deployments == []


def test_an_exec_form_json_rejects_is_a_shell_command_to_docker():
    """Sample K31's RunPod Dockerfile (measured: missed, said as an image with no model): `CMD ["bash", "-c", "...
    [ \\$i -eq 300 ] ..."]` is not JSON (`\\$` is no escape), so Docker runs the text as a shell command whose first
    word is no program: a KV001 error where JSON stops, and the launch read as the array was meant."""
    result = read_path(str(FIX.parent.parent / "rules" / "KV001" / "bad-exec-form.dockerfile"))
    (d,) = result.deployments
    assert (d.engine, d.model, d.get("max_model_len")) == ("vllm", "Qwen/Qwen2.5-7B-Instruct", 8192)
    assert [(f.code, f.severity.name, _at(f.span)) for f in result.findings] == [("KV001", "ERROR", (9, 10))]
    assert "Docker runs the whole text as a shell command" in result.findings[0].message
    valid = read_path("Dockerfile", 'FROM x\nCMD ["bash", "-c", "vllm serve org/m; echo \\\\\\\\ok"]\n')
    assert valid.findings == [] and [d.model for d in valid.deployments] == ["org/m"]


def test_a_cloud_run_deploy_is_a_container_run_and_a_gpu_build_named_for_the_engine_reads_its_variables():
    """Sample K32's workflows (measured: silent): `gcloud run deploy --image ... --gpu 1 --gpu-type nvidia-l4` with
    `--args` (a comma list) or `--set-env-vars` for a build named for vLLM; `docker run --gpus 1 -e MODEL_NAME=...`
    of such a build the same. A client image named otherwise is none."""
    deps = read_path(str(FIX / "cloud-run.sh")).deployments
    got = [(d.engine, d.model, _at(d.model_span), d.get("max_model_len"), _at(d.settings["max_model_len"].span))
           for d in deps]
    assert got == [("vllm", "Qwen/Qwen3-8B", (5, 18), 16384, (5, 48)),
                   ("vllm", "/mnt/models/qwen-9b", (9, 30), 16384, (10, 33)),
                   ("vllm", "org/x", (12, 35), 8192, (12, 58))]
    assert [(d.gpu, d.gpu_count) for d in deps] == [("nvidia-l4", 1), ("nvidia-l4", 1), (None, 1)]
    assert _at(deps[0].gpu_span) == (6, 22) and deps[0].engine_version == "0.9.2"


def test_a_workflow_step_deploying_to_cloud_run_is_read(tmp_path):
    p = tmp_path / "deploy-vllm.yml"
    p.write_text("on: push\njobs:\n  deploy:\n    runs-on: ubuntu-latest\n    steps:\n      - run: |\n"
                 "          gcloud run deploy llm --image vllm/vllm-openai:v0.9.2 \\\n"
                 "            --args=--model,Qwen/Qwen3-8B --gpu 1 --gpu-type nvidia-l4\n")
    (d,) = read_path(str(p)).deployments
    assert (d.model, _at(d.model_span), d.gpu) == ("Qwen/Qwen3-8B", (8, 28), "nvidia-l4")


def test_a_help_probe_is_no_launch(tmp_path):
    """Sample K33's harness (measured: spurious): `subprocess.run([sys.executable, "-m", "vllm.entrypoints.cli.main",
    "serve", help_arg])` in `for help_arg in ("--help=all", "--help")` reads its options from the parser's help: the
    loop variable is its first value, and `--help` prints and exits, no server starts. In a script alike."""
    p = tmp_path / "launch_vllm.py"
    p.write_text("import subprocess, sys\n\ndef probe():\n    for help_arg in ('--help=all', '--help'):\n"
                 "        subprocess.run([sys.executable, '-m', 'vllm.entrypoints.cli.main', 'serve', help_arg])\n\n"
                 "def serve():\n    subprocess.Popen(['vllm', 'serve', 'org/real', '--port', '8000'])\n")
    assert [d.model for d in read_path(str(p)).deployments] == ["org/real"]
    script = read_path("run.sh", "vllm serve --help\nvllm serve org/m -h\nvllm serve org/real --port 1\n")
    assert [d.model for d in script.deployments] == ["org/real"]


def test_a_charts_model_map_naming_its_hub_id_hfid(tmp_path):
    """Sample K32's chart values (measured: said, KV008): `model: {hfId: "", maxModelLen: 256}` beside the vLLM image:
    `hfId` names the model (left empty: the install sets it), `maxModelLen` is its setting."""
    p = tmp_path / "values.yaml"
    p.write_text('image:\n  repository: vllm/vllm-openai\n  tag: latest\nmodel:\n  hfId: ""\n  dtype: float16\n'
                 "  maxModelLen: 256\nresources:\n  limits: {}\n")
    (d,) = read_path(str(p)).deployments
    assert (d.model, _at(d.model_span), d.get("max_model_len")) == ("<model_hfId>", (5, 9), 256)


def test_a_gpu_service_building_an_engine_image_with_its_own_entry_point_is_a_launch(tmp_path):
    """Sample K33's compose (measured: silent): `build: {context: .}` on all GPUs, no command, no environment, and a
    Dockerfile `FROM vllm/vllm-openai:latest` whose `ENTRYPOINT ["./entrypoint.sh"]` picks the model: a launch with
    its model unknown (KV002 placeholder). A service building the same without GPUs is none."""
    (tmp_path / "Dockerfile").write_text('FROM --platform=linux/amd64 vllm/vllm-openai:latest\n'
                                         'COPY entrypoint.sh /app/entrypoint.sh\nENTRYPOINT ["./entrypoint.sh"]\n')
    p = tmp_path / "docker-compose.yml"
    p.write_text("services:\n  vllm:\n    build:\n      context: .\n    deploy:\n      resources:\n"
                 "        reservations:\n          devices:\n            - driver: nvidia\n              count: all\n"
                 "              capabilities: [gpu]\n  ui:\n    build: .\n    ports: [\"80:80\"]\n")
    (d,) = read_path(str(p)).deployments
    assert (d.engine, d.model, d.model_resolved, _at(d.model_span)) == ("vllm", "<the image's model>", False, (4, 7))
    assert d.image == "vllm/vllm-openai:latest" and any("entry point starts vllm" in n for n in d.notes)


def test_the_stock_image_given_a_model_variable_serves_the_engines_default(tmp_path):
    """Sample K32's compose (measured: said, KV008): `image: vllm/vllm-openai:latest`, no command, `MODEL_NAME=...` in
    `environment:`: the image's entry point is `vllm serve` with no model, so vLLM serves its parser's default
    (Qwen/Qwen3-0.6B); the launch is that one, and KV011 warns at the variable no vLLM code reads."""
    p = tmp_path / "docker-compose.yml"
    p.write_text("services:\n  vllm:\n    image: vllm/vllm-openai:latest\n    environment:\n"
                 "      - MODEL_NAME=deepseek-ai/deepseek-coder-6.7b-base\n")
    result = read_path(str(p))
    (d,) = result.deployments
    assert (d.model, _at(d.model_span)) == ("Qwen/Qwen3-0.6B", (3, 12))
    (f,) = [f for f in result.findings if f.code == "KV011"]
    assert _at(f.span) == (5, 20) and "serves its default model Qwen/Qwen3-0.6B" in f.message


def test_the_stock_image_given_nothing_is_a_launch_of_the_engines_default(tmp_path):
    """Sample K61's compose (measured: KV008 "no launch"): `image: vllm/vllm-openai:v0.11.0` with GPUs and ports but
    no command, no entrypoint and no environment: the container runs `vllm serve` with no model, a launch of the
    default model, placed at the image; SGLang's image, whose entry point is no server, stays no launch."""
    p = tmp_path / "docker-compose.yml"
    p.write_text("services:\n  vllm:\n    image: vllm/vllm-openai:v0.11.0\n    ports: ['8000:8000']\n"
                 "  sgl:\n    image: lmsysorg/sglang:v0.5.2\n    ports: ['30000:30000']\n")
    (d,) = read_path(str(p)).deployments
    assert (d.engine, d.model, _at(d.model_span), d.name) == ("vllm", "Qwen/Qwen3-0.6B", (3, 12), "vllm")
    assert any("no command and no entrypoint" in n for n in d.notes)


def test_a_workflow_variable_with_a_literal_fallback_is_that_literal(tmp_path):
    """Sample K32's workflow env (`IMAGE_NAME: ${{ vars.VLLM_IMAGE_NAME || 'qwen3-4b-2507-vllm' }}`): a GitHub
    expression whose last operand is a literal is that literal when the repository sets no such variable; one whose
    last operand is another expression stays unknown."""
    p = tmp_path / "serve.yml"
    p.write_text("on: push\nenv:\n  MODEL: ${{ vars.MODEL || 'Qwen/Qwen3-8B' }}\n"
                 "  LEN: ${{ github.event_name == 'push' && '4096' || inputs.len }}\njobs:\n  serve:\n"
                 "    runs-on: gpu\n    steps:\n      - run: vllm serve $MODEL --max-model-len $LEN\n")
    (d,) = read_path(str(p)).deployments
    assert (d.model, d.model_resolved) == ("Qwen/Qwen3-8B", True)
    assert not d.settings["max_model_len"].resolved


def test_a_printed_command_array_is_not_a_second_launch():
    """Sample K35's wrapper (measured: counted twice): `printf "  %s \\n" "${DOCKER_CMD[@]}"` shows the command the
    array holds before `"${DOCKER_CMD[@]}"` runs it: one launch, where it runs."""
    text = ('DOCKER_CMD=(\n  docker run -d --gpus 1\n  vllm/vllm-openai:v0.9.2\n  --model org/m\n  --port 8000\n)\n'
            'printf "  %s \\\\\\n" "${DOCKER_CMD[@]}" | head -20\n"${DOCKER_CMD[@]}"\n')
    deps = read_path("run.sh", text).deployments
    assert [(d.model, d.launch_span.line if d.launch_span else None) for d in deps] == [("org/m", 2)]  # `docker run`


def test_an_argv_whose_first_word_is_computed_then_runs_the_engines_module(tmp_path):
    """Sample K34's manager (measured: said as an argument list built elsewhere): `[str((BASE_DIR / "venv" / "bin" /
    "python").resolve()), "-m", "vllm.entrypoints.openai.api_server", "--model", cfg.get("default_model", "org/m")]`
    is a Python running the engine's module, whatever computes the interpreter's path."""
    p = tmp_path / "vllm_manager.py"
    p.write_text("import subprocess\nfrom pathlib import Path\nBASE_DIR = Path(__file__).parent\n\n"
                 "def build(cfg):\n    cmd = [\n        str((BASE_DIR / 'venv' / 'bin' / 'python').resolve()),\n"
                 "        '-m', 'vllm.entrypoints.openai.api_server',\n"
                 "        '--model', cfg.get('default_model', 'Qwen/Qwen3.5-27B'),\n    ]\n"
                 "    return subprocess.Popen(cmd)\n")
    (d,) = read_path(str(p)).deployments
    assert (d.engine, d.model, _at(d.model_span)) == ("vllm", "Qwen/Qwen3.5-27B", (9, 20))


def test_a_ray_services_pods_of_a_build_named_for_the_engine_are_no_launch(tmp_path):
    """Sample K34's RayService (measured: spurious): its head and GPU workers run `org/ray-qwen-vllm:latest`, with
    `serveConfigV2` importing `serve_vllm:app`: the operator runs Ray in those pods, the engine starts in the Serve
    application (its launch is in that Python file), so the pods are said (KV008), not launches."""
    p = tmp_path / "ray-service.yaml"
    p.write_text("apiVersion: ray.io/v1\nkind: RayService\nmetadata:\n  name: llm\nspec:\n  serveConfigV2: |\n"
                 "    applications:\n      - import_path: serve_vllm:app\n  rayClusterConfig:\n"
                 "    workerGroupSpecs:\n      - groupName: gpu\n        template:\n          spec:\n"
                 "            containers:\n              - name: w\n                image: org/ray-qwen-vllm:latest\n"
                 "                resources:\n                  limits:\n                    nvidia.com/gpu: '1'\n")
    result = read_path(str(p))
    assert result.deployments == [] and [f.code for f in result.findings] == ["KV008"]


def test_model_dir_is_a_model_variable_of_an_image_named_for_the_engine(tmp_path):
    """Sample K34's compose (measured: missed): `image: local/vllm-2080ti:v0.1.15` on GPUs, configured by
    `MODEL_DIR=${MODEL_DIR:-/models/Qwen3.6-27B-GPTQ-Int4}`: MODEL_DIR names the model as MODEL_PATH does."""
    p = tmp_path / "docker-compose.yml"
    p.write_text("services:\n  vllm:\n    image: local/vllm-2080ti:v0.1.15\n    environment:\n"
                 "      - MODEL_DIR=${MODEL_DIR:-/models/Qwen3.6-27B-GPTQ-Int4}\n    gpus: all\n")
    (d,) = read_path(str(p)).deployments
    assert (d.engine, d.model, _at(d.model_span)) == ("vllm", "/models/Qwen3.6-27B-GPTQ-Int4", (5, 19))


def test_a_terraform_args_list_through_compact_with_switched_items(tmp_path):
    """Sample K36's GKE module (measured: said, KV008): `args = compact(["--model", var.model_id, ...,
    var.chunked ? "--enable-chunked-prefill" : "", var.spec ? jsonencode({...}) : ""])`: compact keeps the list's
    items; an item a variable switches on or off is never the positional model."""
    p = tmp_path / "kubernetes.tf"
    p.write_text('resource "kubernetes_deployment" "vllm" {\n  spec {\n    template {\n      spec {\n'
                 '        container {\n          image = "vllm/vllm-openai:v0.11.0"\n          args = compact([\n'
                 '            "--model",\n            "Qwen/Qwen3-32B",\n            "--max-model-len",\n'
                 '            tostring(var.max_model_len),\n'
                 '            var.chunked ? "--enable-chunked-prefill" : "",\n'
                 '            var.spec ? jsonencode({ "model" = var.draft }) : "",\n          ])\n'
                 '        }\n      }\n    }\n  }\n}\n')
    (d,) = read_path(str(p)).deployments
    assert (d.model, _at(d.model_span), d.engine_version) == ("Qwen/Qwen3-32B", (9, 14), "0.11.0")
    assert not d.settings["max_model_len"].resolved


def test_trl_server_flags_with_underscores_are_vllm_settings():
    trl, module = _deps("wrappers.sh")[7:9]
    assert trl.get("tensor_parallel_size") == 2 and _at(trl.settings["tensor_parallel_size"].span) == (10, 55)
    assert trl.get("max_model_len") == 32768 and _at(trl.settings["max_model_len"].span) == (10, 73)
    assert trl.unknown_flags == () and trl.invalid_values == ()
    assert module.get("data_parallel_size") == 2


def test_makefile_recipes_are_scripts_with_the_files_variables():
    serve, bench = _deps("Makefile")
    assert (serve.engine, serve.model, _at(serve.model_span)) == ("vllm", "org/make-model", (7, 13))
    assert serve.get("port") == 8000 and _at(serve.settings["port"].span) == (7, 29)  # at `$(PORT)`
    assert serve.get("max_model_len") == 16384 and _at(serve.settings["max_model_len"].span) == (8, 22)
    assert (bench.engine, bench.model, _at(bench.model_span)) == ("sglang", "org/make-sglang", (11, 47))
    assert bench.get("tp_size") == 4 and _at(bench.settings["tp_size"].span) == (11, 68)


def test_make_conditionals_are_alternatives_each_read_with_its_branchs_variables():
    result = read_path(str(FIX / "conditionals.mk"))
    got = [(d.engine, d.model, _at(d.model_span)) for d in result.deployments]
    assert got == [  # MODEL is set under `ifdef BIG` and `else`: a launch per model, each with its branch's LEN
        ("sglang", "org/big-model", (30, 46)), ("sglang", "org/small-model", (30, 46)),
        ("vllm", "org/big-model", (33, 11)), ("vllm", "org/small-model", (33, 11)),
        ("vllm", "${PROFILE_MODEL}", (38, 43)),
    ]
    big, small, hf = result.deployments[2:]
    assert (big.get("max_model_len"), small.get("max_model_len")) == (32768, 8192)
    assert _at(big.settings["max_model_len"].span) == (33, 20)  # `$(ARGS)`: `=` and `export ... +=` expanded
    assert big.get("tensor_parallel_size") == 2 and result.deployments[0].get("tp_size") == 2  # `override TP := 2`
    assert (big.engine_version, hf.engine_version) == ("0.9.2", "0.9.2")  # `IMAGE ?=`, `hf jobs run -- $(IMAGE)`
    # a `$(shell ...)` value is unresolved and says why; the hf-jobs launch differs by LEN only: one launch
    assert not hf.model_resolved and hf.get("max_model_len") == 8192
    assert any("make's $(shell ...) at line 10" in n for n in hf.notes)
    # the PROFILE branch runs the repository's own image with a model make computes: said at its place
    said = [(f.code, _at(f.span)) for f in result.findings]
    assert said == [("KV008", (27, 3))] and "docker run --name vllm-serve" in result.findings[0].message


def test_a_make_variable_known_only_at_run_time_leaves_the_command_around_it():
    (d,) = _deps("runtime-part.mk")
    assert (d.engine, d.model, _at(d.model_span)) == ("sglang", "Qwen/Qwen2.5-7B-Instruct", (9, 65))
    assert d.get("tp_size") == 2 and _at(d.settings["tp_size"].span) == (9, 94)
    assert d.engine_version == "0.4.6.post1"  # `DOCKER_RUN = ... sglang:v0.4.6.post1` is an assignment, not a rule
    assert any("${DEVICES}" in n for n in d.notes)


def test_a_just_recipe_with_a_parameter_default_is_still_a_recipe():
    (d,) = read_path("Justfile", 'serve model="org/just-default":\n    vllm serve {{model}} --max-model-len 4096\n').deployments
    assert (d.model, d.get("max_model_len")) == ("org/just-default", 4096)


def test_make_branches_past_define_bodies_nesting_and_contradictions():
    text = ("define USAGE\nelse\nendif\n\tvllm serve org/in-define\nendef\n"
            "ifndef MODEL\nMODEL = org/default\nifdef MODEL\nserve-dead:\n\tvllm serve org/dead\nendif\nendif\n"
            "ifeq \"$(GPU)\" \"a100\"\nLEN := 32768\nendif\n"
            "serve:\n# a comment line among recipe lines ends nothing\n\tvllm serve $(MODEL) \\\n\t  --max-model-len $(LEN)\n")
    result = read_path("Makefile", text)
    deps = result.deployments
    # the define body is a value, not a recipe (its engine command is said at its place, never passed over); `ifdef MODEL` inside `ifndef MODEL` is never read; the recipe
    # outside every conditional is read both ways of `ifndef MODEL` (the model differs: two launches, a line that
    # continues over `\` at its columns) and of `ifeq`, whose arms differ by LEN only (one launch, the last arm's)
    assert [(d.model, _at(d.model_span)) for d in deps] == [("${MODEL}", (18, 13)), ("org/default", (18, 13))]
    assert [_at(d.settings["max_model_len"].span) for d in deps] == [(19, 20), (19, 20)]
    assert not deps[1].settings["max_model_len"].resolved
    assert [(f.code, _at(f.span)) for f in result.findings] == [("KV008", (4, 2))]
    assert "through `define USAGE`" in result.findings[0].message


def test_justfile_recipes_see_just_variables_and_prefix_assignments():
    first, second = _deps("Justfile")
    assert (first.model, _at(first.model_span)) == ("org/just-model", (4, 23))  # `{{model}}`
    assert first.get("tensor_parallel_size") == 2 and _at(first.settings["tensor_parallel_size"].span) == (4, 56)
    assert (second.model, second.get("max_model_len")) == ("org/just-env", 4096)


def test_powershell_backtick_continuations_and_variables():
    (d,) = _deps("run.ps1")
    assert (d.engine, d.engine_version, d.model, _at(d.model_span)) == ("vllm", "0.9.0", "org/ps-model", (6, 11))
    assert d.get("max_model_len") == 8192 and _at(d.settings["max_model_len"].span) == (7, 19)  # `$env:MAXLEN`


def test_python_argv_lists_command_strings_and_module_constants():
    deps = _deps("serve.py")
    got = [(d.engine, d.model, _at(d.model_span)) for d in deps]
    assert got == [("vllm", "org/py-list", (7, 35)), ("sglang", "org/default", (8, 82)),
                   ("vllm", "org/py-system", (9, 23)), ("vllm", "org/py-string", (10, 19))]
    listed = deps[0]
    assert listed.get("max_model_len") == 8192 and _at(listed.settings["max_model_len"].span) == (7, 69)
    assert listed.get("tensor_parallel_size") == 2 and _at(listed.settings["tensor_parallel_size"].span) == (7, 102)
    assert deps[1].get("tp_size") == 2 and deps[1].model_resolved  # MODEL = os.environ.get("MODEL", default)
    assert _at(deps[2].settings["gpu_memory_utilization"].span) == (9, 62)


def test_ray_serve_llm_config_and_dict_literal():
    call, literal = _deps("ray_serve.py")
    assert (call.engine, call.model, _at(call.model_span)) == ("vllm", "org/ray-model", (4, 68))
    assert call.served_model_name == "short-name" and (call.gpu, _at(call.gpu_span)) == ("A10G", (5, 23))
    assert call.get("tensor_parallel_size") == 2 and _at(call.settings["tensor_parallel_size"].span) == (6, 45)
    assert call.get("max_model_len") == 32768 and _at(call.settings["max_model_len"].span) == (6, 62)
    assert call.unknown_flags == () and _at(call.launch_span) == (3, 10)
    assert (literal.model, _at(literal.model_span), literal.get("max_model_len")) == ("org/ray-dict", (9, 43), 4096)


def test_ci_run_block_behind_nohup_hatch_run():
    (d,) = _deps("workflow.yml")
    # the workflow's `env:` feeds the run block: `${{ env.VLLM_MODEL }}` is its value, at the expression's place
    assert (d.engine, d.model, d.model_resolved, _at(d.model_span)) == ("vllm", "org/ci-model", True, (12, 41))
    assert d.get("max_model_len") == 8192 and _at(d.settings["max_model_len"].span) == (12, 79)


def test_heredoc_manifest_is_read_as_yaml_at_its_lines():
    (d,) = _deps("heredoc.sh")
    assert (d.model, _at(d.model_span), d.gpu_count, d.engine_version) == ("org/in-heredoc", (14, 29), 2, "0.9.0")
    assert d.get("max_model_len") == 8192 and d.settings["max_model_len"].span.line == 14


def test_heredoc_manifest_is_read_by_its_kind_without_an_engine_word():
    """An LLMInferenceService in a heredoc names no engine in lower case: its kind decides, as in a YAML file."""
    (d,) = _deps("heredoc-kserve.sh")
    assert (d.engine, d.model, _at(d.model_span)) == ("vllm", "hf://facebook/opt-125m", (14, 10))


def test_a_sourced_settings_file_gives_the_launch_its_values():
    """`source "${SCRIPT_DIR}/../config/serving.env"` (SCRIPT_DIR from `dirname "${BASH_SOURCE[0]}"`): its image,
    model, TP and length; the container started inside `CONTAINER_ID=$(docker run ...)` (sample G, yangyuxin-hub).
    A home or absolute path is not read (`~/.secrets.env`, `/etc/profile.d/site.sh`)."""
    (d,) = _deps("sourced/scripts/start_docker.sh")
    assert (d.engine, d.model, _at(d.model_span), d.image) == \
        ("vllm", "/mnt/models/Qwen2.5-7B-Instruct", (11, 13), "vllm/vllm-openai:v0.10.1")
    assert d.get("tensor_parallel_size") == 2 and _at(d.settings["tensor_parallel_size"].span) == (12, 28)
    assert d.get("max_model_len") == 16384 and d.engine_version == "0.10.1"
    assert any("line 7: 5 variables set by ../config/serving.env, which the script sources" in n for n in d.notes)
    (local,) = _deps("sourced/scripts/run_local.sh")  # `. "$(dirname "$0")/common.sh"`
    assert (local.model, local.model_resolved, _at(local.model_span)) == ("Qwen/Qwen2.5-7B-Instruct", True, (3, 12))


def test_the_repositorys_own_image_with_an_engine_entrypoint_takes_the_engines_arguments():
    """`docker build -t omni-server:latest .` then `docker run omni-server:latest MODEL --flags`: the Dockerfile's
    ENTRYPOINT is `vllm serve`; an image from a variable kvlint cannot resolve, when the folder builds one image
    whose entry point is the engine, is that image (sample G, kyr0/qwen3-omni-vllm-docker). An image whose entry
    point is the repository's own app is not a launch."""
    (built,) = _deps("local-build/build_and_run.sh")
    assert (built.engine, built.model, _at(built.model_span)) == ("vllm", "Qwen/Qwen2.5-7B-Instruct", (5, 45))
    assert built.get("tensor_parallel_size") == 1 and built.get("max_model_len") == 8192
    assert any("the script builds omni-server:latest from Dockerfile" in n for n in built.notes)
    (var,) = _deps("unresolved-image/run-omni.sh")
    assert (var.engine, var.model, var.model_resolved, _at(var.model_span)) == ("vllm", "$MODEL_REPO", False, (7, 12))
    assert var.get("max_model_len") == 4096 and var.get("tensor_parallel_size") == 1
    assert any("$IMAGE is not resolved here; the script's folder builds one image, Dockerfile" in n for n in var.notes)
    assert read_path(str(FIX / "not-engine-image" / "run-app.sh")).deployments == []


def test_a_function_called_from_another_function_is_followed():
    """`main() { ...; start_sglang "$MODEL_PATH" & }; main "$@"`: the inner call's launch, once (it was dropped with
    main's own body when main's call gave the same launch)."""
    (d,) = _deps("nested-functions-locals.sh")
    assert (d.engine, d.model, d.model_resolved, _at(d.launch_span)) == \
        ("sglang", "/models/Qwen2.5-0.5B-Instruct", True, (17, 10))
    assert d.get("context_length") == 8192 and _at(d.settings["context_length"].span) == (15, 29)
    # download_model's `local model_name` ends with its body: not an environment name of the model (it gave a
    # KV002 "two different models" warning)
    assert not any(a.how.startswith("env") for a in d.model_aliases)


def test_dockerfile_engine_entrypoint_without_model_is_the_image_not_a_launch():
    result = read_path(str(FIX / "Dockerfile.image"))
    assert result.deployments == []
    (note,) = result.findings
    assert (note.code, str(note.severity), note.span.line) == ("KV008", "info", 1)
    assert "no model" in note.message
    (d,) = _deps("Dockerfile.launch")
    assert (d.model, _at(d.model_span), d.get("max_model_len")) == ("org/docker-model", (3, 7), 4096)


def test_a_file_naming_an_engine_with_no_launch_gets_one_info_finding():
    result = read_path(str(FIX / "silent.sh"))
    assert result.deployments == []
    (note,) = result.findings
    assert (note.code, str(note.severity), _at(note.span)) == ("KV008", "info", (3, 45))  # not the comment on line 2
    assert "vllm.entrypoints" in note.message


def test_a_mention_in_a_comment_or_docstring_is_not_a_place():
    assert read_path(str(FIX / "readme-like.sh")).findings == []
    text = '"""Serve with\n   vllm serve org/m\n"""\nimport os\n'
    assert read_path("doc.py", text).findings == [] and read_path("doc.py", text).deployments == []


def test_a_long_string_a_program_assigns_is_a_place_but_a_docstring_is_not():
    """`config = f\"\"\"` opens a compose file the program writes: its `image:` line is where kvlint says what it
    could not read (it was taken for a docstring, and the file passed over in silence)."""
    text = ('"""Writes a compose file."""\n\n\ndef make(tag):\n    """Serve with\n    image: vllm/vllm-openai\n    """\n'
            '    config = f"""\\\nx-base: &base\n  image: vllm/vllm-openai:{tag}\n  ipc: host\n"""\n    return config\n')
    (note,) = read_path("gen.py", text).findings
    assert (note.code, note.span.line, note.span.col) == ("KV008", 10, 10)
    assert "vllm/vllm-openai:{tag}" in note.message


def test_rank_branches_of_one_multinode_script_are_one_launch():
    (d,) = _deps("multinode.sh")
    assert (d.engine, d.model, _at(d.model_span)) == ("sglang", "org/multi-node", (6, 47))
    assert d.gpu_count == 16 and d.get("tp_size") == 16  # 8 per node x --nodes 2
    assert any("2 launches of one deployment" in n and "line 9" in n for n in d.notes)


def test_headless_data_parallel_workers_fold_into_their_leader_but_replicas_do_not():
    leader, first, second = _deps("headless.sh")
    assert (leader.model, _at(leader.model_span), leader.get("data_parallel_size")) == ("org/dp-model", (4, 14), 4)
    assert "headless" not in leader.settings and any("launches of one deployment" in n for n in leader.notes)
    assert [(d.model, d.gpu_count) for d in (first, second)] == [("org/replica", 1), ("org/replica", 1)]


def test_grouping_asks_each_launch_once_whatever_the_group_size(monkeypatch):
    """A script repeating one command (with a role flag) a thousand times is one group: its leader is chosen
    once, not once per member (asked per launch, 900 launches made 650,000 role checks: a second of CPU)."""
    from kvlint.launches import groups

    asked = []
    real = groups._has_role
    monkeypatch.setattr(groups, "_has_role", lambda found: asked.append(1) or real(found))
    unit = "vllm serve org/m --headless --data-parallel-start-rank 1 -tp 2 &\n"
    deps = read_path("serve.sh", "vllm serve org/m -tp 2 &\n" + unit * 900).deployments
    assert len(deps) == 1 and len(asked) <= 901


def test_dockerfile_script_entrypoint_with_engine_flags_in_cmd_is_the_images_launch():
    (d,) = _deps("Dockerfile.script")
    assert (d.engine, d.model, _at(d.model_span)) == ("vllm", "/model", (5, 18))
    assert d.get("max_model_len") == 16384 and _at(d.settings["max_model_len"].span) == (5, 83)
    assert any("inferred from the flags" in n for n in d.notes)


def test_python_argv_built_in_a_function_with_parameter_defaults():
    text = ('import subprocess\n'
            'def launch(model: str = "org/fn-default", tp: int = 4):\n'
            '    cmd = ["vllm", "serve", model, "--tensor-parallel-size", str(tp)]\n'
            '    return subprocess.Popen(cmd)\n')
    (d,) = read_path("launch.py", text).deployments
    assert (d.model, d.model_resolved, _at(d.model_span)) == ("org/fn-default", True, (3, 29))
    assert d.get("tensor_parallel_size") == 4 and _at(d.settings["tensor_parallel_size"].span) == (3, 62)


def test_summary_and_json_count_the_places_passed_over(tmp_path, monkeypatch):
    import json

    from kvlint.cli import main
    from kvlint.lint import lint
    from kvlint.report.text import summary

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    for name in ("silent.sh", "Dockerfile.image", "readme-like.sh", "Dockerfile.launch"):
        (tmp_path / name).write_text((FIX / name).read_text())
    result = lint([str(tmp_path)])
    assert (result.passed_over, result.deployments) == (2, 1)
    assert "2 places named an engine but gave no launch" in summary(result)
    out = tmp_path / "report.json"
    main(["check", str(tmp_path), "--format", "json", "--exit-zero", "--output", str(out)])
    assert json.loads(out.read_text())["summary"]["passed_over"] == 2


def test_gitlab_script_list_and_buildkite_command_blocks():
    (gl,) = _deps("gitlab-ci.yml")
    # found at its place; `variables:` are the script's environment
    assert (gl.engine, gl.model, gl.model_resolved, _at(gl.model_span)) == ("vllm", "org/gitlab-model", True, (9, 18))
    assert gl.get("max_model_len") == 4096 and _at(gl.settings["max_model_len"].span) == (9, 41)
    (bk,) = _deps("buildkite.yml")
    assert (bk.engine, bk.model, _at(bk.model_span)) == ("sglang", "org/buildkite-model", (4, 58))
    assert bk.get("tp_size") == 2 and _at(bk.settings["tp_size"].span) == (4, 83)


def test_make_blank_lines_inside_a_recipe_and_double_dollar():
    text = "MODEL = org/m\n\nserve:\n\techo hi\n\n\tvllm serve $(MODEL) --max-model-len $$LEN\n"
    (d,) = read_path("Makefile", text).deployments
    assert (d.model, _at(d.model_span)) == ("org/m", (6, 13))
    setting = d.settings["max_model_len"]
    assert (setting.value, setting.resolved, _at(setting.span)) == ("$LEN", False, (6, 38))  # `$$LEN`: the shell's $LEN


def test_kserve_huggingfaceserver_with_the_vllm_backend():
    first, second = _deps("kserve-hf.sh")  # the huggingface backend is no engine kvlint sizes
    assert (first.engine, first.model, _at(first.model_span)) == ("vllm", "org/kserve-hf", (3, 60))
    assert first.served_model_name == "llama3" and _at(first.settings["served_model_name"].span) == (3, 42)
    assert first.get("max_model_len") == 8192 and first.unknown_flags == () and "backend" not in first.settings
    assert (second.model, _at(second.model_span), second.get("tensor_parallel_size")) == ("org/kserve-tp", (5, 41), 2)


def test_an_image_named_for_the_engine_in_values_without_a_launch_is_said():
    text = "servingRuntime:\n  image: kserve/vllmserver:v0.12.1\ninferenceService:\n  storageUri: s3://m/\n"
    result = read_path("values-runtime.yaml", text)
    assert result.deployments == []
    (note,) = result.findings
    assert (note.code, _at(note.span)) == ("KV008", (2, 10)) and "kserve/vllmserver:v0.12.1" in note.message


def test_supervisor_procfile_and_toml_command_lines():
    vllm, sglang = _deps("supervisord.conf")
    assert (vllm.model, _at(vllm.model_span)) == ("org/supervisor-model", (3, 34))
    assert _at(vllm.settings["max_model_len"].span) == (3, 71)
    assert vllm.get("gpu_memory_utilization") == 0.9 and _at(vllm.settings["gpu_memory_utilization"].span) == (4, 28)
    assert (sglang.model, sglang.get("tp_size"), _at(sglang.settings["tp_size"].span)) == ("org/supervisor-sglang", 2, (9, 8))
    (web,) = _deps("Procfile")
    assert (web.model, _at(web.model_span)) == ("org/procfile-model", (1, 17))
    (task,) = _deps("serve.toml")
    assert (task.model, _at(task.model_span), task.get("tensor_parallel_size")) == ("org/toml-model", (2, 19), 2)


def test_a_toml_command_written_as_a_list_of_strings_is_its_argv():
    """Sample K242's benchmark configs (measured: missed, one silent): `[server] command = ["vllm", "serve", M, ...]`
    and `["python3", "-m", "sglang.launch_server", "--model-path", M, ...]`, a comment among the items, a TOML
    literal string holding JSON: each word at its place, as a program's literal argument list is read."""
    text = ('[runtime]\nname = "vllm"\n[server]\ncommand = [\n  "vllm", "serve", "/models/Q-AWQ",\n'
            '  # the draft\n  "--max-model-len", "65536",\n'
            '  "--speculative-config", \'{"method": "mtp", "num_speculative_tokens": 7}\',\n]\n')
    (dep,) = read_path("vllm-q4.toml", text).deployments
    assert (dep.engine, dep.model, _at(dep.model_span), dep.get("max_model_len")) == ("vllm", "/models/Q-AWQ", (5, 21),
                                                                                       65536)
    assert dep.get("speculative_config") == {"method": "mtp", "num_speculative_tokens": 7}
    text = '[server]\ncommand = ["python3", "-m", "sglang.launch_server", "--model-path", "/m", "--tp", "2"]\n'
    (dep,) = read_path("sglang.toml", text).deployments
    assert (dep.engine, dep.model, dep.get("tp_size")) == ("sglang", "/m", 2)
    assert read_path("client.toml", '[client]\nbackend = "vllm"\nurls = ["http://a", "http://b"]\n').deployments == []


def test_node_commands_that_differ_in_their_bind_address_are_one_group_but_alternatives_are_not():
    """Each node of a multi-node group binds its own `--host`; with a role flag (`--node-rank`) that address
    does not split the group. Without one, two commands are two launches however alike (counting rule 4)."""
    group, first, second = _deps("node-hosts.sh")
    assert (group.model, _at(group.model_span), group.get("tp_size")) == ("org/pd-model", (2, 65), 16)
    assert any("2 launches of one deployment" in n and "line 4" in n for n in group.notes)
    assert [(d.model, _at(d.model_span)) for d in (first, second)] == [("org/alt", (7, 12)), ("org/alt", (8, 12))]


def test_an_images_init_process_runs_the_engine_it_is_given():
    """`ENTRYPOINT ["dumb-init", "--"]` + `CMD [..."vllm", "serve", ...]` is the image's default launch, and
    `tini -s -- gosu USER vllm serve ...` starts vLLM: init processes and privilege drops pass their argv on."""
    (image,) = _deps("Dockerfile.init")
    assert (image.engine, image.model, _at(image.model_span)) == ("vllm", "org/init-model", (5, 37))
    assert image.get("max_model_len") == 8192
    (script,) = _deps("init-wrappers.sh")
    assert (script.model, _at(script.model_span), script.get("max_model_len")) == ("org/tini-model", (2, 37), 4096)


def test_a_leader_that_alone_serves_the_api_folds_its_worker_branch():
    leader, first, second = _deps("leader-serves.sh")
    assert (leader.model, _at(leader.model_span)) == ("org/leader-model", (4, 50))
    assert any("2 launches of one deployment" in n and "line 7" in n for n in leader.notes)
    assert [(d.model, _at(d.model_span)) for d in (first, second)] == [("org/two-ports", (11, 46)),
                                                                       ("org/two-ports", (12, 46))]


def test_a_local_build_of_an_engine_given_only_its_flags_runs_the_engine():
    """`docker run sglang:my-build --model-path X ...`: a locally tagged image that carries SGLang, given only
    SGLang's flags, starts SGLang (flags cannot be a command); lmsysorg/sglang starts no server, so its launch is
    read as meant with the image kept for KV014."""
    d, published = _deps("local-image.sh")
    assert (d.engine, d.model, _at(d.model_span), d.no_server_image) == ("sglang", "org/local-build", (4, 16), None)
    assert d.get("mem_fraction_static") == 0.85 and any("carries it" in n for n in d.notes)
    assert published.no_server_image is not None and published.no_server_image[1] == "lmsysorg/sglang:v0.5.4"


# Never silent (sample F): a launch whose engine command kvlint cannot see, in a file that names the engine only
# in a comment or a port name, is said once; an import of an engine module is not a launch.
OWN_CHART_VALUES = """app: llama-90b
modelName: meta-llama/Llama-3.2-90B-Vision-Instruct
service:
  ports:
    - name: http-sglang
resources:
  limits:
    nvidia.com/gpu: "8"
extraArgs: {}
# https://github.com/sgl-project/sglang/blob/main/docs/backend/server_arguments.md
"""

OWN_WRAPPER_JOB = """#!/bin/bash
#SBATCH --gres=gpu:1
MODEL="Qwen/Qwen2.5-7B-Instruct"
echo "--- Starting vLLM server ---"
python -m serving.start_server \\
    --config configs/serving.yaml --role "${ROLE}" &
python -m serving.healthcheck --url http://localhost:8000
"""


def test_own_chart_values_with_a_model_and_gpus_in_a_file_naming_the_engine_are_said_once():
    result = read_path("values.yaml", OWN_CHART_VALUES)
    assert result.deployments == []
    [note] = result.findings
    assert (note.code, str(note.severity), _at(note.span)) == ("KV008", "info", (2, 12))
    assert "meta-llama/Llama-3.2-90B-Vision-Instruct" in note.message
    # no engine named anywhere, or no GPU request: a model catalogue / client config, not a launch: nothing said
    assert read_path("values.yaml", OWN_CHART_VALUES.replace("sglang", "web")).findings == []
    assert read_path("values.yaml", OWN_CHART_VALUES.replace('nvidia.com/gpu: "8"', "cpu: 2")).findings == []


def test_own_server_wrapper_in_a_job_naming_the_engine_is_said_once():
    result = read_path("bench.sbatch", OWN_WRAPPER_JOB)
    assert result.deployments == []
    [note] = result.findings
    assert (note.code, _at(note.span)) == ("KV008", (5, 11)) and "serving.start_server" in note.message
    # the echo is prose, the health check is no server: without the wrapper line nothing is said
    text = OWN_WRAPPER_JOB.replace("serving.start_server", "serving.prepare")
    assert read_path("bench.sbatch", text).findings == []


def test_an_import_of_an_engine_module_is_not_a_place():
    text = ("import os\nfrom vllm.engine.async_llm_engine import AsyncLLMEngine\n"
            "from vllm.entrypoints.openai.serving_chat import OpenAIServingChat\n"
            "engine = AsyncLLMEngine.from_engine_args(args)\n")
    assert read_path("app.py", text).findings == [] and read_path("app.py", text).deployments == []
    # the module run as a program is still a place
    assert read_path("app.py", 'cmd = "python -m vllm.entrypoints.openai.api_server"\n').findings


def test_make_call_of_a_define_is_read_once_per_call_with_its_arguments():
    """`$(call serve,MODEL,NAME,FLAGS)` of a canned recipe (sample K5's leo-dcfa Makefile): one launch per call, the
    body's words where the define writes them, the model and flags where the call writes them; a variable whose
    value holds quotes is pasted as make pastes it (its JSON is one word, not a KV007)."""
    small, spec = _deps("canned-recipe.mk")
    assert (small.model, _at(small.model_span)) == ("org/small-model", (15, 15))
    assert small.get("max_model_len") == 8192 and _at(small.settings["max_model_len"].span) == (15, 53)
    assert small.get("tensor_parallel_size") == 2 and small.engine_version == "0.11.0"
    assert (_at(small.launch_span)[0], small.launch_span.end_line) == (8, 10)  # `docker run` to the image, in the define
    assert (spec.model, _at(spec.model_span)) == ("org/spec-model", (18, 15))
    assert spec.invalid_values == () and spec.get("max_model_len") == 4096
    assert "speculative_config" in spec.settings


def test_argument_lists_written_as_literals_in_other_languages_are_launches():
    """Pulumi in TypeScript and a Go launcher: each bracketed run of strings and names that the engine's argv reader
    takes is a launch, a name resolved by the file's own binding, each word at its place; the image and the GPU
    count come from the object the list sits in. A block comment, a list of engine names and a client are none."""
    (ts,) = _deps("programs/pulumi.ts")
    assert (ts.engine, ts.model, _at(ts.model_span)) == ("vllm", "Qwen/Qwen2.5-7B-Instruct", (14, 29))
    assert ts.get("max_model_len") == 16384 and _at(ts.settings["max_model_len"].span) == (14, 58)
    assert ts.engine_version == "0.9.2" and ts.gpu_count == 2
    assert ts.settings["tensor_parallel_size"].resolved is False  # `${tp}`: the program's, not the file's
    (go,) = _deps("programs/launcher.go")
    assert (go.engine, go.model, go.get("tp_size")) == ("sglang", "meta-llama/Llama-3.1-8B-Instruct", 4)
    assert _at(go.model_span) == (7, 79) and _at(ts.launch_span) == (14, 17)
    quiet = read_path(str(FIX / "programs" / "client.js"))
    assert (quiet.deployments, quiet.findings) == ([], [])


def test_terraform_ecs_container_definitions_are_read_as_literal_lists():
    """Sample K7's aws-ia ECS blueprints (read after their measurement): `command = [...]` is the image's
    arguments, `image = local.container_image` resolved by the locals, the GPU count from the resource
    requirement and the card from the instance type; a Neuron build is a Neuron launch, not swept over GPUs."""
    (gpu,) = _deps("programs/ecs.tf")
    assert (gpu.engine, gpu.model, _at(gpu.model_span)) == ("vllm", "unsloth/Meta-Llama-3.1-8B-Instruct", (13, 30))
    assert gpu.engine_version == "0.10.2" and gpu.get("tensor_parallel_size") == 4
    assert (gpu.gpu, gpu.gpu_count, _at(gpu.gpu_count_span)) == ("g5.12xlarge", 4, (16, 17))
    (neuron,) = _deps("programs/neuron.tf")
    assert neuron.gpu == "neuron" and neuron.get("tensor_parallel_size") == 2


def test_a_kubernetes_manifest_in_a_terraform_here_document_is_read_with_the_modules_variables():
    """Sample K7's gpu-on-eks `kubectl_manifest` (read after its measurement): the here-document is the manifest, at
    its own lines; `${var.X}` takes the module's variable default from its folder's .tf files."""
    (dep,) = _deps("tf-manifest/vllm.tf")
    assert (dep.engine, dep.engine_version, dep.model) == ("vllm", "0.9.2", "Qwen/Qwen2.5-7B-Instruct")
    assert dep.model_span.line == 19 and _at(dep.settings["max_model_len"].span) == (21, 13)
    assert dep.gpu_count == 1


def test_a_shell_script_in_a_terraform_here_document_is_read_as_the_script_it_is():
    """Sample K44's OpenStack module (measured: KV008 only): `user_data = <<EOS` is a boot script that writes a systemd
    unit whose `ExecStart=` runs the server; a GCE `metadata_startup_script` runs one directly. Each body is read as
    a script at its own lines, `${var.X}` the module's default, `$${X}` the shell's own; a file's text that only
    names the engine (a `local_file` README) is no script."""
    unit, startup = _deps("tf-user-data/main.tf")
    assert (unit.engine, unit.model, _at(unit.model_span)) == ("vllm", "Qwen/Qwen2.5-7B-Instruct", (14, 59))
    assert unit.get("max_model_len") == 8192 and not unit.settings["tensor_parallel_size"].resolved
    assert (startup.engine, startup.model, startup.model_resolved, startup.model_span.line) == \
        ("sglang", "${var.sglang_model}", False, 22)
    assert startup.get("tp_size") == 2


def test_a_nomad_task_whose_arguments_are_one_template_placeholder_is_a_launch_on_its_constrained_card():
    """Sample K7's ai4-papi job (read after its measurement): `args = ${VLLM_ARGS}` is the launch with its model
    open (counting rule 8), the card from the device's `${device.model}` constraint; the service tags are no argv."""
    (dep,) = read_path(str(FIX / "programs" / "job.nomad")).deployments
    assert (dep.engine, dep.model, dep.model_resolved, _at(dep.model_span)) == ("vllm", "${VLLM_ARGS}", False, (11, 17))
    assert (dep.gpu, _at(dep.gpu_span), dep.gpu_count) == ("Tesla T4", (18, 26), 1)


def test_an_images_entry_point_script_handed_a_command_runs_it(tmp_path):
    """Sample K6's laguna compose: `entrypoint: [/opt/nvidia/nvidia_entrypoint.sh, bash, -c]` and the script as
    the command: the entry-point script runs what it is given, so the engine command inside is the launch. An
    entry-point script given only flags is still the image (no launch read through it)."""
    p = tmp_path / "docker-compose.yml"
    p.write_text(
        "services:\n"
        "  s:\n"
        "    image: lmsysorg/sglang:latest-runtime\n"
        '    entrypoint: ["/opt/nvidia/nvidia_entrypoint.sh", "bash", "-c"]\n'
        "    command:\n"
        "      - >\n"
        "        pip install distro &&\n"
        "        sglang serve --model-path org/laguna --tp 1\n")
    (dep,) = read_path(str(p)).deployments
    assert (dep.engine, dep.model, _at(dep.model_span)) == ("sglang", "org/laguna", (8, 35))
    q = tmp_path / "run.sh"
    q.write_text("./docker-entrypoint.sh --model org/x\n")
    assert read_path(str(q)).deployments == []


def test_powershell_start_process_runs_its_argument_list():
    """Sample K6's JCoder launcher (read after its measurement): `Start-Process PROG -ArgumentList @(...)` over
    several lines, one string, or a comma list is the command `PROG args...`, each word at its place."""
    arr, one, listed = _deps("start-process.ps1")
    assert (arr.model, _at(arr.model_span), arr.get("max_model_len")) == ("org/array-model", (4, 17), 32768)
    assert (one.model, _at(one.model_span), one.get("port")) == ("org/string-model", (7, 115), 8001)
    assert (listed.engine, listed.model, listed.get("tp_size")) == ("sglang", "org/list-model", 2)


def test_a_compose_script_sees_the_containers_environment_at_its_own_lines(tmp_path):
    """Sample K6's ROCm SGLang compose (read after its measurement): `environment:` sets the model with a nested
    default, the `bash -c` script assembles CMD_ARGS from `$${VAR}` (compose's escape for the container's shell)
    and execs the server: the model is the environment's, and each word keeps its line in the script."""
    p = tmp_path / "docker-compose.yml"
    p.write_text(
        "services:\n"
        "  s:\n"
        "    image: lmsysorg/sglang:v0.5.2\n"
        "    environment:\n"
        "      - SGLANG_MODEL_PATH=${SGLANG_MODEL_PATH:-${MODEL_NAME:-org/nested}}\n"
        "      - LEN=${LEN:-8192}\n"
        '    entrypoint: ["/bin/bash", "-c"]\n'
        "    command:\n"
        "      - |\n"
        '        CMD_ARGS="--model-path $${SGLANG_MODEL_PATH}"\n'
        '        CMD_ARGS="$$CMD_ARGS --context-length $${LEN}"\n'
        "        exec python3 -m sglang.launch_server $$CMD_ARGS\n")
    (dep,) = read_path(str(p)).deployments
    assert (dep.engine, dep.model, dep.get("context_length")) == ("sglang", "org/nested", 8192)
    # the model is where CMD_ARGS carries it into the command (its first assignment, or the line re-expanding it)
    assert dep.model_span.line in (10, 11) and (dep.settings["context_length"].span.line, dep.launch_span.line) == \
        (11, 12)


def test_a_compose_service_that_builds_the_repositorys_dockerfile_runs_its_cmd_with_the_services_environment():
    """Sample K6's ml-serving-platform (read after its measurement, silent before): `build: {dockerfile:
    Dockerfile.vllm}` and `environment: MODEL_NAME=...`: the image's CMD is the launch, with the service's model
    over the file's ENV default and the service's GPUs, placed at `build:`. A build whose Dockerfile is absent
    gives nothing."""
    (dep,) = read_path(str(FIX / "compose-build" / "docker-compose.gpu.yml")).deployments
    assert (dep.engine, dep.model, dep.get("max_model_len"), dep.gpu_count) == ("vllm", "org/service-model", 4096, 2)
    assert dep.launch_span.line == 5 and dep.model_span.path.endswith("Dockerfile.vllm")


def test_a_jinja_templates_two_top_level_arms_are_two_launches(tmp_path):
    """Sample K7's athanor compose template (read after its measurement): `{% if instances %}` a loop of services
    `{{ instance.name }}:` (a placeholder key, not a YAML flow map) `{% else %}` a legacy single service: both
    arms start the engine, each a launch at its own lines (counting rule 4)."""
    p = tmp_path / "docker-compose.yml.j2"
    p.write_text(
        "{% if vllm_instances | length > 0 %}\n"
        "services:\n"
        "{% for instance in vllm_instances %}\n"
        "  {{ instance.name }}:\n"
        "    image: vllm/vllm-openai:v0.9.2\n"
        "    command:\n"
        "      - --model\n"
        "      - {{ instance.model }}\n"
        "{% endfor %}\n"
        "{% else %}\n"
        "services:\n"
        "  vllm:\n"
        "    image: vllm/vllm-openai:v0.9.2\n"
        "    command: [--model, org/legacy, --max-model-len, '4096']\n"
        "{% endif %}\n")
    loop, legacy = read_path(str(p)).deployments
    assert (loop.model, loop.model_resolved, loop.model_span.line) == ("{{ instance.model }}", False, 8)
    assert (legacy.model, legacy.model_span.line, legacy.get("max_model_len")) == ("org/legacy", 14, 4096)


def test_more_launchers_in_front_of_the_engine_are_peeled():
    """pipx run, nerdctl, a remote `ssh HOST "..."`, pm2 (a command line, or a program and its `--` arguments),
    accelerate launch -m, beside the launchers read before (uvx, ray job submit, kubectl run, tmux, screen, sudo,
    env -i, podman): one launch a line, each model where it is written."""
    deps = _deps("launchers-more.sh")
    got = [(d.model, _at(d.model_span)[0]) for d in deps]
    assert got == [("org/uvx", 3), ("org/pipx", 4), ("org/climain", 5), ("org/rayjob", 6), ("org/kubectlrun", 7),
                   ("org/nerdctl", 8), ("org/ssh", 9), ("org/tmux", 10), ("org/screen", 11), ("org/pm2", 12),
                   ("org/sudo", 13), ("org/envi", 14), ("org/podman", 15), ("org/accel", 16), ("org/pm2-args", 17),
                   ("org/ssh-words", 18), ("org/pm2-options-first", 19)]
    assert deps[6].get("tensor_parallel_size") == 2 and _at(deps[6].model_span) == (9, 26)
    assert deps[14].get("port") == 8001
    # pm2's own options before the command line (sample K31, measured: missed), each with its value by pm2's table
    assert _at(deps[16].model_span) == (19, 43) and deps[16].get("max_model_len") == 16384


def test_a_podman_quadlet_unit_is_the_podman_run_it_stands_for():
    """`[Container]` Image= + Exec= (+ AddDevice=, Environment=): the image run with those arguments, each value at
    its own line in the unit."""
    (dep,) = _deps("vllm.container")
    assert (dep.engine, dep.engine_version, dep.model, _at(dep.model_span)) == \
        ("vllm", "0.9.2", "Qwen/Qwen2.5-7B-Instruct", (7, 14))
    assert dep.get("max_model_len") == 8192 and _at(dep.settings["max_model_len"].span) == (7, 55)


def test_an_ansible_docker_container_task_with_a_flag_string_is_a_launch():
    """The docker_container module splits a `command:` string into the image's arguments as a shell would; a
    playbook (a YAML list) has its containers read as a manifest's are, not only its command strings."""
    flags, listed = _deps("docker-container-playbook.yml")
    assert (flags.model, _at(flags.model_span), flags.get("max_model_len")) == \
        ("Qwen/Qwen2.5-7B-Instruct", (8, 27), 8192)
    assert (listed.engine, listed.get("tp_size")) == ("sglang", 2)


def test_a_compose_override_takes_the_image_and_gpus_of_its_base_file():
    """An override file (`docker-compose.override.yml`, or `-f base -f prod`) gives only the command: compose merges
    it onto the same service of the base file beside it, so the launch runs the base's image (its release) with the
    base's GPUs, not the newest release on no GPU."""
    (dep,) = read_path(str(FIX / "compose-override" / "docker-compose.override.yml")).deployments
    assert (dep.model, dep.engine_version, dep.gpu_count) == ("Qwen/Qwen2.5-14B-Instruct", "0.9.2", 1)
    assert dep.model_span.path.endswith("override.yml") and dep.image_span.path.endswith("/docker-compose.yml")


def test_a_workflow_deploying_the_repositorys_dockerfile_runs_its_launch():
    """Sample K8's Cloud Run deploy (read after its measurement): `dockerfile: Dockerfile.vllm` names the image it
    builds (found from the repository's root) and `--gpu=1 --gpu-type=nvidia-l4` where it runs: the Dockerfile's
    launch on that card, placed at the `dockerfile:` value."""
    (dep,) = read_path(str(FIX / "built-workflow" / ".github" / "workflows" / "deploy.yml")).deployments
    assert (dep.model, dep.engine_version, dep.get("max_model_len")) == ("Qwen/Qwen2.5-7B-Instruct", "0.9.2", 8192)
    assert (dep.gpu, dep.gpu_count, _at(dep.launch_span)) == ("nvidia-l4", 1, (9, 19))


def test_a_workflow_that_only_builds_the_repositorys_dockerfile_runs_no_launch():
    """Sample K241's image build workflow (measured: a spurious launch): a matrix of Dockerfiles handed to a
    build-and-push action runs none of them, so the Dockerfile's launch is not the workflow's, and nothing is
    passed over there either (the Dockerfile's own launch is read where it is)."""
    res = read_path(str(FIX / "built-only" / ".github" / "workflows" / "build.yml"))
    assert (res.deployments, res.findings) == ([], [])
    (dep,) = read_path(str(FIX / "built-only" / "docker" / "app-vllm.Dockerfile")).deployments
    assert dep.model == "Qwen/Qwen2.5-7B-Instruct"


def test_a_helper_handed_a_shell_script_and_a_program_looked_up_on_the_path_are_read(tmp_path):
    """Sample K10's Kavora pair (silent at measurement): `VLLM_BIN="${VLLM_BIN:-$(command -v vllm || true)}"` is the
    vllm program, and a sourced helper handed `bash -lc "exec ... $VLLM_BIN serve ..."` runs that script: a
    function called twice gives two launches. A command that prints its arguments (`echo bash -c ...`) is none."""
    p = tmp_path / "pair.sh"
    p.write_text('#!/bin/bash\nsource lib.sh\nVLLM_BIN="${VLLM_BIN:-$(command -v vllm || true)}"\n'
                 'start() {\n  start_with_pid_file "$1" bash -lc "exec \\"$VLLM_BIN\\" serve org/m --port $2"\n}\n'
                 'start a.pid 8000\nstart b.pid 8001\necho bash -c "vllm serve org/printed"\n')
    deps = read_path(str(p)).deployments
    assert [(d.model, d.get("port")) for d in deps] == [("org/m", 8000), ("org/m", 8001)]


def test_a_function_a_loop_calls_is_one_launch_whatever_the_loop_passes(tmp_path):
    """Sample K44's benchmark sweep (measured: two launches for one command): `start_server "$NS" 0` in one `for`
    loop and `start_server "$NS" 1` in another restart one server command with other settings: one launch. Two
    calls outside any loop (two replicas) stay two."""
    p = tmp_path / "sweep.sh"
    p.write_text('#!/bin/bash\nstart_server() {\n  vllm serve org/m --max-num-seqs "$1" --port 8080 &\n}\n'
                 'for NS in 2 3 4; do\n  start_server "$NS" 0\n  pkill -f "vllm serve"\ndone\n'
                 'while read -r NS; do start_server 8 1; done < sizes.txt\n')
    (dep,) = read_path(str(p)).deployments
    assert (dep.model, dep.launch_span.line) == ("org/m", 3)
    p.write_text('#!/bin/bash\nstart() {\n  vllm serve org/m --port "$1" &\n}\nstart 8000\nstart 8001\n'
                 'for i in 1; do :; done\n')
    assert [d.get("port") for d in read_path(str(p)).deployments] == [8000, 8001]
    # sample K172: one loop body calling it with a command and with that command plus options is two commands
    p.write_text('#!/bin/bash\nrun() {\n  bash -c "$1" &\n}\nfor b in a c; do\n  base="vllm serve org/m --port 1"\n'
                 '  run "$base"\n  run "$base --enforce-eager"\ndone\n')
    assert [d.get("enforce_eager") for d in read_path(str(p)).deployments] == [None, True]


def test_calls_of_a_function_that_stops_its_own_server_are_one_launch(tmp_path):
    """Sample K242's benchmark (measured: four launches for one, and a wrong KV007): `run_cfg A "" 8192` then three
    calls with `3`, each call's body ending in `docker stop "$name"`: one server restarted with other settings, one
    launch (the first call's). `[ -n "$k" ] && SPEC=(...)` with k empty sets nothing, so no broken JSON is read.
    A function that leaves its server running gives a launch per call (two replicas), as before."""
    p = tmp_path / "bench.sh"
    body = ('#!/bin/bash\nrun_cfg () {{\n  local label="$1" k="$2" batched="$3"\n  local SPEC=()\n'
            '  [ -n "$k" ] && SPEC=(--speculative-config "{{\\"method\\":\\"mtp\\",\\"num_speculative_tokens\\":${{k}}}}")\n'
            '  docker run -d --name "bench-$label" --gpus all vllm/vllm-openai:v0.9.2 --model org/m \\\n'
            '    --max-num-batched-tokens "$batched" "${{SPEC[@]}}"\n{stop}}}\n'
            'run_cfg A "" 8192\nrun_cfg B 3 8192\nrun_cfg C 3 32768\n')
    p.write_text(body.format(stop='  docker stop "bench-$label"\n'))
    (dep,) = read_path(str(p)).deployments
    assert (dep.launch_span.line, dep.get("max_num_batched_tokens"), dep.get("speculative_config")) == (6, 8192, None)
    p.write_text(body.format(stop=""))
    deps = read_path(str(p)).deployments
    assert [(d.get("max_num_batched_tokens"), d.get("speculative_config") is None) for d in deps] == [
        (8192, True), (8192, False), (32768, False)]
    assert deps[1].get("speculative_config") == {"method": "mtp", "num_speculative_tokens": 3}


def test_a_unit_running_a_script_named_for_the_engine_is_not_silent(tmp_path):
    """Sample K10's supervisord program and systemd unit (silent at measurement): each runs a repository script
    named for starting vLLM (`start_vllm.sh`, `run_vllm.sh`) that is not in the tree: the place is named (KV008)."""
    p = tmp_path / "vllm.service"
    p.write_text("[Unit]\nDescription=vLLM Service\n[Service]\nExecStart=/opt/vllm/bin/run_vllm.sh\n")
    result = read_path(str(p))
    assert result.deployments == [] and [(f.code, f.span.line) for f in result.findings] == [("KV008", 4)]


def test_a_kubernetes_container_of_a_build_named_for_the_engine_given_arguments_is_a_launch(tmp_path):
    """Sample K10's podman kube Pod (read after its measurement): `image: localhost/rca-vllm:latest` given only
    arguments (a positional model, vLLM flags) runs the engine, as compose and docker run read such a build; a
    program around the engine (`org/vllm-chat-ui`) given arguments is not."""
    p = tmp_path / "pod.yaml"
    p.write_text("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n"
                 "    - name: a\n      image: localhost/rca-vllm:latest\n"
                 "      args: [/models/llama-1b, --max-model-len, '4096']\n"
                 "    - name: b\n      image: org/vllm-chat-ui:1\n      args: [--port, '3000']\n")
    (dep,) = read_path(str(p)).deployments
    assert (dep.engine, dep.model, dep.get("max_model_len")) == ("vllm", "/models/llama-1b", 4096)


def test_an_entrypoint_with_a_default_command_the_caller_may_replace_serves_its_default(tmp_path):
    """Sample K11's sglang-docker entrypoint (read after its measurement): `CMD="python -m sglang.launch_server
    --model-path X ..."; if [ $# -gt 0 ]; then CMD="$@"; fi; exec $CMD`: with no arguments the image serves its
    default, so that is the launch (the caller's override stands aside, with a note)."""
    p = tmp_path / "entrypoint.sh"
    p.write_text('#!/bin/bash\nCMD="python -m sglang.launch_server --model-path org/default --port 30000"\n'
                 'if [ $# -gt 0 ]; then\n    CMD="$@"\nfi\nexec $CMD\n')
    (dep,) = read_path(str(p)).deployments
    assert (dep.engine, dep.model, dep.get("port")) == ("sglang", "org/default", 30000)


def test_a_gpu_service_built_from_an_engine_dockerfile_and_configured_by_its_variables_is_a_launch():
    """Sample K10's AquiLLM production compose (read after its measurement): `build: {dockerfile:
    deploy/docker/vllm/Dockerfile}` with a GPU reservation and `VLLM_MODEL`, `VLLM_MAX_MODEL_LEN`, ... is an
    environment-configured vLLM build; `VLLM_TRUST_REMOTE_CODE=1` turns the switch on (its `1` is no model). A client
    service built from a folder named for vLLM, with no GPU, is none."""
    (dep,) = read_path(str(FIX / "compose-envbuild" / "docker-compose.yml")).deployments
    assert (dep.engine, dep.model, dep.get("max_model_len"), dep.get("gpu_memory_utilization")) == \
        ("vllm", "Qwen/Qwen2.5-7B-Instruct", 4096, 0.5)
    assert dep.settings["trust_remote_code"].value is True and _at(dep.model_span) == (14, 20)


def test_a_command_line_kept_in_a_variable_keeps_each_values_place(tmp_path):
    """Sample K11's entrypoint: `CMD="python -m sglang.launch_server --model-path X --flag ..."; exec $CMD`: each
    flag and value points where the string writes it, not at `$CMD`."""
    p = tmp_path / "run.sh"
    p.write_text('#!/bin/bash\nCMD="python -m sglang.launch_server --model-path org/m --context-length 4096"\n'
                 'exec $CMD\n')
    (dep,) = read_path(str(p)).deployments
    assert _at(dep.model_span) == (2, 50) and _at(dep.settings["context_length"].span) == (2, 73)


def test_a_proxy_started_beside_the_engine_is_not_the_engine(tmp_path):
    """Sample K12's Modal wrapper (measured: a second launch and seven KV004 warnings): `["python", "wrapper.py",
    "--backend-url", ..., "--model", M, "--B-init", ...]` is a proxy in front of the server (many flags no vLLM
    release has), not a vLLM argument list; the `vllm serve` list beside it is the one launch."""
    p = tmp_path / "app.py"
    p.write_text("import subprocess\nMODEL = 'Qwen/Qwen2.5-3B-Instruct'\n"
                 "vllm_cmd = ['vllm', 'serve', MODEL, '--max-model-len', '4096']\n"
                 "wrapper_cmd = ['python', '/root/vllm_wrapper.py', '--port', '9000', '--backend-url', 'http://x',\n"
                 "               '--model', MODEL, '--B-init', '16', '--B-min', '1', '--trace-prefix', 'X']\n"
                 "subprocess.Popen(vllm_cmd)\nsubprocess.Popen(wrapper_cmd)\n")
    (dep,) = read_path(str(p)).deployments
    assert (dep.model, dep.get("max_model_len"), dep.model_span.line) == ("Qwen/Qwen2.5-3B-Instruct", 4096, 3)


def test_a_whole_float_in_chart_values_reaches_the_command_as_helm_prints_it(tmp_path):
    """Sample K12's chart (measured: a KV007 error on `--max-model-len -1.0`): a template prints a whole float as an
    integer (`maxModelLen: -1.0` renders `-1`, vLLM's "derive it"), so the value is read as -1."""
    p = tmp_path / "values.yaml"
    p.write_text("image:\n  repository: vllm/vllm-openai\n  tag: v0.11.0\nmodelName: Qwen/Qwen2.5-7B-Instruct\n"
                 "maxModelLen: -1.0\n")
    (dep,) = read_path(str(p)).deployments
    assert dep.invalid_values == () and dep.settings["max_model_len"].raw == "-1"


def test_a_windows_batch_file_is_read_with_its_variables_and_carets():
    """Sample K13's `.bat` launcher (silent: not walked): `set "NAME=value"`, `%NAME%` and `^` continuations read as
    the shell's, each value at its place."""
    (dep,) = _deps("start.bat")
    assert (dep.engine, dep.engine_version, dep.model) == ("vllm", "0.9.2", "Qwen/Qwen2.5-7B-Instruct")
    assert dep.get("max_model_len") == 8192 and _at(dep.settings["max_model_len"].span) == (9, 19)


def test_a_gpu_service_built_on_an_engine_image_is_that_engines_launch():
    """Samples K10/K11 (measured: KV008 only): `build.args` naming an engine image (`SGLANG_BASE_IMAGE:
    lmsysorg/sglang:...`, `BASE=vllm/vllm-openai:...`) on a GPU service with no command is the engine's build;
    its model is left to `env_file:` (unresolved, at that entry) and `VLLM_MAX_MODEL_LEN` is its length. The same
    build without a GPU, and a GPU build on another base, are none."""
    deps = read_path(str(FIX / "compose-basebuild" / "docker-compose.yml")).deployments
    assert [(d.name, d.engine) for d in deps] == [("kimi", "sglang"), ("llm", "vllm")]
    kimi, llm = deps
    assert _at(kimi.model_span) == (12, 9) and llm.get("max_model_len") == 40960
    assert not kimi.model_resolved and not llm.model_resolved


def test_a_units_environment_is_set_before_its_command():
    """systemd `Environment=` (quoted and bare assignments) is set before `ExecStart=`: `${MODEL}` and `$LEN` read
    the unit's values (a value shown where the command uses it, as in any script)."""
    (dep,) = read_path(str(FIX / "units" / "direct.service")).deployments
    assert (dep.model, dep.get("max_model_len")) == ("Qwen/Qwen2.5-7B-Instruct", 8192)
    assert _at(dep.model_span) == (5, 31) and _at(dep.settings["max_model_len"].span) == (5, 56)


def test_a_unit_running_a_script_named_for_the_engine_is_configured_by_its_environment():
    """Sample K10 (measured: KV008 only, and silent): supervisor `command=.../start_vllm.sh` with
    `environment=VLLM_MODEL=...,VLLM_MAX_MODEL_LEN="65536"` is vLLM with that model and length; a unit running
    `run_vllm.sh` with only an `EnvironmentFile=` is vLLM whose model is left there; another script is none."""
    (sup,) = read_path(str(FIX / "units" / "supervisor.conf")).deployments
    assert (sup.engine, sup.model, sup.get("max_model_len")) == ("vllm", "google/gemma-3-27b-it", 65536)
    assert _at(sup.model_span) == (4, 24)
    (unit,) = read_path(str(FIX / "units" / "envfile.service")).deployments
    assert unit.engine == "vllm" and not unit.model_resolved and _at(unit.model_span) == (3, 18)
    assert read_path(str(FIX / "units" / "other.service")).deployments == []


def test_a_startup_script_that_runs_the_container_is_a_launch(tmp_path):
    """Sample K15's GCE startup script (measured: KV008, read as an image's entry point by its name): it runs
    `docker run IMAGE --model "$MODEL_NAME"` itself, with MODEL_NAME set by the script (`$(get_metadata ...)`), so
    it is the launch, its model left open; a `startup.sh` that only runs the engine with the environment's model
    stays the image's entry point."""
    p = tmp_path / "startup.sh"
    p.write_text('#!/bin/bash\nMODEL_NAME=$(get_metadata "model-name" "org/m")\n'
                 'docker run --gpus all vllm/vllm-openai:v0.10.1 --model "$MODEL_NAME" --max-model-len 4096\n')
    (dep,) = read_path(str(p)).deployments
    assert (dep.image, dep.model_resolved, dep.get("max_model_len")) == ("vllm/vllm-openai:v0.10.1", False, 4096)
    q = tmp_path / "inner" / "startup.sh"
    q.parent.mkdir()
    q.write_text('#!/bin/bash\nexec vllm serve "$MODEL" --max-model-len 4096\n')
    assert read_path(str(q)).deployments == []


def test_a_unit_running_a_script_of_the_tree_leaves_the_launch_to_the_script(tmp_path):
    """Sample K12's unit (counted 0: the launch is the script it runs, in the same repository): a unit whose
    script is in the tree gives no second launch; the script gives the one."""
    (tmp_path / "systemd").mkdir()
    (tmp_path / "scripts").mkdir()
    unit = tmp_path / "systemd" / "vllm.service"
    unit.write_text("[Service]\nEnvironmentFile=/etc/llm.env\nExecStart=/opt/app/scripts/start_vllm.sh\n")
    (tmp_path / "scripts" / "start_vllm.sh").write_text('#!/bin/bash\nexec vllm serve "${MODEL_PATH:?}"\n')
    assert read_path(str(unit)).deployments == []


def test_a_gpu_container_of_an_engine_build_with_no_command_serves_its_own_model(tmp_path):
    """Samples K15/K17 (measured: silent but for KV008): a Deployment running a repository's own build named for
    vLLM on a GPU, with no command or args, is a vLLM launch whose model is built into the image (left open, at
    the image); the same build with no GPU, and a router image, are none."""
    p = tmp_path / "deploy.yaml"
    p.write_text("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: a}\nspec:\n  template:\n    spec:\n"
                 "      containers:\n      - name: vllm\n        image: org/vllm-gptoss:20260812\n"
                 "        resources: {limits: {nvidia.com/gpu: 1}}\n"
                 "      - name: cpu\n        image: org/vllm-gptoss:20260812\n        resources: {limits: {cpu: 2}}\n"
                 "      - name: router\n        image: org/vllm-router:1\n        resources: {limits: {nvidia.com/gpu: 1}}\n")
    (dep,) = read_path(str(p)).deployments
    assert (dep.engine, dep.model_resolved, _at(dep.model_span), dep.gpu_count) == ("vllm", False, (9, 16), 1)


def test_a_units_command_that_runs_the_engine_image_is_read():
    """Sample K17's unit (measured: KV008): `ExecStart=/usr/bin/docker run ... vllm/vllm-openai:v0.10.1 MODEL
    --max-model-len N`, continued over lines, is the launch, its values at their places."""
    (dep,) = read_path(str(FIX / "units" / "docker.service")).deployments
    assert (dep.image, dep.model, _at(dep.model_span)) == ("vllm/vllm-openai:v0.10.1", "Qwen/Qwen2.5-7B-Instruct", (7, 5))
    assert dep.get("max_model_len") == 32768


def test_an_unknown_array_among_docker_options_is_more_options(tmp_path):
    """Sample K17's rootless podman script (measured: KV008): `"${CACHE_ARGS[@]}"` (set in a branch kvlint does not
    follow) between `--device` and `-p` is more options, not the image; the image after them starts the launch.
    An unknown word followed by an engine flag stays the image (nothing to read)."""
    p = tmp_path / "run.sh"
    p.write_text('podman run --rm --device /dev/kfd "${CACHE_ARGS[@]}" -p 8000:8000 \\\n'
                 '  docker.io/org/vllm-radiance:0.5.8 /model --max-model-len 4096\n'
                 'docker run --rm "$IMAGE" --model org/m\n')
    (dep,) = read_path(str(p)).deployments
    assert (dep.image, dep.model, dep.get("max_model_len")) == ("docker.io/org/vllm-radiance:0.5.8", "/model", 4096)


def test_a_folded_script_in_a_compose_list_keeps_each_values_line(tmp_path):
    """Sample K17 (measured: the launch placed at the `>-` line, 5 lines above its command): a folded script
    item of `entrypoint: [sh, -c, >- ...]` keeps each word at its own line and column."""
    p = tmp_path / "compose.yaml"
    p.write_text("services:\n  llm:\n    image: lmsysorg/sglang:v0.5.4\n    entrypoint:\n      - sh\n      - -c\n"
                 "      - >-\n        set -e;\n        exec python3 -m sglang.launch_server --model-path /model\n"
                 "        --context-length 8192 --port 30000\n")
    (dep,) = read_path(str(p)).deployments
    assert _at(dep.model_span) == (9, 59) and _at(dep.settings["context_length"].span) == (10, 26)


def test_a_terraform_local_list_of_flags_with_calls_is_the_launch():
    """Sample K17's Terraform (measured: KV008): `vllm_base_args = ["--model", local.path, ..., "--gpu-memory-
    utilization", tostring(var.x), ...]`, which `args = local.vllm_args` takes through concat(): a call is one item
    of the list, and the flags say vLLM; the model is left open at its place."""
    (dep,) = read_path(str(FIX.parent / "hcl" / "args-local.tf")).deployments
    assert (dep.engine, dep.model_resolved, _at(dep.model_span)) == ("vllm", False, (6, 16))
    assert dep.get("max_model_len") == 16384 and not dep.settings["gpu_memory_utilization"].resolved


def test_a_powershell_function_that_runs_docker_with_a_splatted_array(tmp_path):
    """Sample K16's PowerShell (measured: KV008): an indented `$runArgs = @(...)` (not a plain assignment), splatted
    as `@runArgs` into `Invoke-Docker`, a function whose body runs `& $docker @DockerArgs`: a `docker run` whose
    `bash -lc` string starts SGLang with the param default model."""
    p = tmp_path / "start.ps1"
    p.write_text('param([string]$Model = "Qwen/Qwen2.5-0.5B-Instruct")\n$docker = "docker.exe"\n'
                 "function Invoke-Docker {\n    param([string[]]$DockerArgs)\n    & $docker @DockerArgs\n}\n"
                 'if ($true) {\n    $runArgs = @(\n        "run", "-d", "--gpus", "all",\n'
                 '        "lmsysorg/sglang:v0.5.4",\n        "bash", "-lc",\n'
                 '        "python3 -m sglang.launch_server --model-path $Model --context-length 8192"\n    )\n'
                 "    Invoke-Docker @runArgs\n}\n")
    (dep,) = read_path(str(p)).deployments
    assert (dep.engine, dep.model, dep.image, dep.get("context_length")) == \
        ("sglang", "Qwen/Qwen2.5-0.5B-Instruct", "lmsysorg/sglang:v0.5.4", 8192)


def test_each_arm_that_starts_another_engine_is_a_launch(tmp_path):
    """Sample K16's launcher (measured: KV008): `case "$RUNTIME"` arms set the entry point and the argument arrays
    of one `docker run` after `esac` (SGLang, vLLM, llama.cpp): the two arms that start an engine are one launch
    each, read with their own arrays; an `if`/`else` choosing the engine's command string is two as well."""
    p = tmp_path / "run-model.sh"
    p.write_text('case "$RUNTIME" in\n  sglang)\n    ep=(--entrypoint python3)\n'
                 '    args=(-m sglang.launch_server --model-path "$MODEL_ID" --context-length 8192)\n    ;;\n'
                 '  vllm)\n    ep=(--entrypoint bash)\n'
                 "    args=(-c 'exec python3 \"$@\"' x -m vllm.entrypoints.openai.api_server --model \"$MODEL_ID\")\n"
                 '    ;;\n  llamacpp)\n    ep=(--entrypoint sh)\n    args=(-c \'exec /app/llama-server "$@"\' x)\n'
                 '    ;;\nesac\nexec docker run --rm "${ep[@]}" --gpus all "$IMAGE" "${args[@]}"\n')
    assert sorted(d.engine for d in read_path(str(p)).deployments) == ["sglang", "vllm"]
    q = tmp_path / "start.sh"
    q.write_text('if [ "$ENGINE" = sglang ]; then\n'
                 '  CMD="python3 -m sglang.launch_server --model-path org/m --context-length 8192"\nelse\n'
                 '  CMD="vllm serve org/m --max-model-len 8192"\nfi\nexec $CMD\n')
    deps = read_path(str(q)).deployments
    assert sorted((d.engine, _at(d.model_span)[0]) for d in deps) == [("sglang", 2), ("vllm", 4)]


def test_make_pastes_a_variable_inside_single_quotes(tmp_path):
    """Sample K18's Makefile (measured: two wrong KV204 errors): `--gpus '"device=$(GPU_IDS_TP2)"'` is make's
    expansion before the shell reads the line, so the container sees devices 0,1 (2 GPUs for -tp 2)."""
    p = tmp_path / "Makefile"
    p.write_text("IDS := 0,1\nIMAGE := vllm/vllm-openai:v0.10.1\n\nrun:\n"
                 "\tdocker run -d --gpus '\"device=$(IDS)\"' $(IMAGE) /model --tensor-parallel-size 2\n")
    (dep,) = read_path(str(p)).deployments
    assert (dep.gpu_count, dep.get("tensor_parallel_size")) == (2, 2)


def test_a_batch_files_delayed_expansion_is_a_variable(tmp_path):
    """Sample K18's `.bat` (measured: three wrong KV007 errors on `--port !PORT!`): `!NAME!` under
    `setlocal enabledelayedexpansion` reads a variable as `%NAME%` does, not a literal."""
    p = tmp_path / "start.bat"
    p.write_text("@echo off\nsetlocal enabledelayedexpansion\nset PORT=8001\n"
                 'wsl -- bash -c "python -m vllm.entrypoints.openai.api_server --model org/m --port !PORT! '
                 '--max-model-len !MAX_LEN!"\n')
    (dep,) = read_path(str(p)).deployments
    assert dep.get("port") == 8001 and not dep.settings["max_model_len"].resolved and dep.invalid_values == ()


def test_nix_shells_and_rendered_templates_are_walked_and_read(tmp_path):
    """Sample K18 (measured: both silent, not walked): a `shell.nix` whose shellHook function runs `podman run ...
    vllm serve`, and a Terraform `templatefile()` `.tpl` of production-stack values; a chart's `_helpers.tpl` (Go
    template definitions) gives nothing."""
    from kvlint.launches import iter_files

    (tmp_path / "shell.nix").write_text("pkgs.mkShell {\n  shellHook = ''\n    serve() {\n"
                                        "      exec podman run --rm nvcr.io/nvidia/vllm:25.09-py3 \\\n"
                                        '        vllm serve "Qwen/Qwen2.5-1.5B-Instruct" --max-model-len 4096\n'
                                        "    }\n  '';\n}\n")
    (tmp_path / "values.tpl").write_text("# rendered by Terraform\nservingEngineSpec:\n  modelSpec:\n"
                                         '  - name: "tiny"\n    repository: "vllm/vllm-openai"\n    tag: "v0.10.1"\n'
                                         '    modelURL: "${model_path}"\n    requestGPU: 1\n')
    (tmp_path / "_helpers.tpl").write_text('{{- define "vllm.name" -}}vllm{{- end }}\n')
    walked = sorted(Path(p).name for p, r in iter_files([str(tmp_path)]) if r is None)
    assert walked == ["_helpers.tpl", "shell.nix", "values.tpl"]
    (nix,) = read_path(str(tmp_path / "shell.nix")).deployments
    assert (nix.model, nix.get("max_model_len")) == ("Qwen/Qwen2.5-1.5B-Instruct", 4096)
    assert [d.engine for d in read_path(str(tmp_path / "values.tpl")).deployments] == ["vllm"]
    assert read_path(str(tmp_path / "_helpers.tpl")).deployments == []


def test_an_engine_build_started_by_its_own_script_is_configured_by_its_environment(tmp_path):
    """Sample K19 (measured: KV008): a GPU container of a build named for vLLM whose command is only its start
    script (`command: ["/entrypoint.sh"]`) and whose `env:` holds MODEL_ID and VLLM_MAX_MODEL_LEN: the script
    starts vLLM from that environment, as the image's entry point would."""
    p = tmp_path / "deploy.yaml"
    p.write_text("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: a}\nspec:\n  template:\n    spec:\n"
                 "      containers:\n      - name: vllm\n        image: registry.example/org-vllm-opt:1\n"
                 '        command: ["/entrypoint.sh"]\n        env:\n        - {name: VLLM_MAX_MODEL_LEN, value: "2048"}\n'
                 '        - {name: MODEL_ID, value: "facebook/opt-125m"}\n'
                 "        resources: {limits: {nvidia.com/gpu: 1}}\n")
    (dep,) = read_path(str(p)).deployments
    assert (dep.model, dep.get("max_model_len")) == ("facebook/opt-125m", 2048)


def test_an_llmd_role_running_the_inference_simulator_is_no_launch(tmp_path):
    """Sample K20 (measured: two spurious launches): llm-d modelservice values whose decode and prefill containers run
    `ghcr.io/llm-d/llm-d-inference-sim` with `modelCommand: imageDefault`: a simulator, not vLLM."""
    p = tmp_path / "values.yaml"
    p.write_text('modelArtifacts:\n  uri: "hf://meta-llama/Llama-3.2-1B"\naccelerator:\n  type: cpu\n'
                 "decode:\n  containers:\n  - name: sim\n    image: ghcr.io/llm-d/llm-d-inference-sim:v0.6.1\n"
                 "    modelCommand: imageDefault\n  - name: vllm\n    image: ghcr.io/llm-d/llm-d-cuda:v0.4.0\n"
                 "    modelCommand: vllmServe\n")
    assert [d.image for d in read_path(str(p)).deployments] == ["ghcr.io/llm-d/llm-d-cuda:v0.4.0"]


def test_a_platforms_deployment_configured_by_engine_variables(tmp_path):
    """Sample K20 (measured: silent): an Azure ML managedOnlineDeployment whose `environment_variables` hold
    MODEL_NAME and `VLLM_ARGS: --flags` (the image a placeholder registry path) on a GPU `instance_type`: vLLM
    configured by its environment, on the instance's card. A client's MODEL_NAME beside a base URL is none."""
    p = tmp_path / "deployment.yml"
    p.write_text("name: current\nenvironment_variables:\n  MODEL_NAME: meta-llama/Llama-3.1-8B-Instruct\n"
                 '  VLLM_ARGS: "--max-model-len 8192"\nenvironment:\n  image: xxxx.azurecr.io/azureml/x\n'
                 "instance_type: Standard_NC24ads_A100_v4\ninstance_count: 1\n")
    (dep,) = read_path(str(p)).deployments
    assert (dep.engine, dep.model, dep.get("max_model_len"), dep.gpu_count) == \
        ("vllm", "meta-llama/Llama-3.1-8B-Instruct", 8192, 1)
    q = tmp_path / "client.yml"
    q.write_text("environment_variables:\n  MODEL_NAME: org/m\n  VLLM_BASE_URL: http://x:8000/v1\n"
                 "instance_type: Standard_NC24ads_A100_v4\n")
    assert read_path(str(q)).deployments == []
    # sample K23 (measured: silent): the same on an instance type the catalogue has no card for (a CPU VM): the
    # engine's own variables make it a launch all the same, its GPU left unknown
    p.write_text(p.read_text().replace("Standard_NC24ads_A100_v4", "Standard_D48a_v4"))
    (dep,) = read_path(str(p)).deployments
    assert (dep.engine, dep.model, dep.gpu_count) == ("vllm", "meta-llama/Llama-3.1-8B-Instruct", None)


def test_a_compose_build_named_for_the_engine_given_its_arguments(tmp_path):
    """Sample K21 (measured: KV008): a service with no image that builds `Dockerfile_vllm` (not in the tree) and is
    given `command: [--model, X, --port, N]`: the build named for vLLM runs vLLM with those arguments."""
    p = tmp_path / "docker-compose.yml"
    p.write_text("services:\n  stt:\n    build:\n      context: .\n      dockerfile: Dockerfile_vllm\n"
                 "    command:\n      - --model\n      - openai/whisper-large-v3-turbo\n      - --port\n      - '9089'\n")
    (dep,) = read_path(str(p)).deployments
    assert (dep.engine, dep.model) == ("vllm", "openai/whisper-large-v3-turbo")


def test_an_entry_script_the_dockerfile_writes_itself_is_the_images_launch(tmp_path):
    """Sample K20's Containerfile (measured: silent): `RUN <<'X'` writes `/usr/local/bin/serve` with `cat > ... <<'SH'`,
    whose body execs `vllm serve` with a fixed model, and `ENTRYPOINT ["/usr/local/bin/serve"]` runs it: the launch
    is that command, at its lines, with the image's ENV; a script written but not the entry point is none."""
    body = ("FROM vllm/vllm-openai:v0.10.1\nENV LEN=4096\nRUN <<'INSTALL'\ncat > /usr/local/bin/serve <<'SH'\n"
            "#!/usr/bin/env bash\nexec vllm serve \"Qwen/Qwen2.5-7B-Instruct\" \\\n    --max-model-len \"$LEN\" \"$@\"\n"
            "SH\nchmod 0555 /usr/local/bin/serve\nINSTALL\n")
    p = tmp_path / "Containerfile"
    p.write_text(body + 'ENTRYPOINT ["/usr/local/bin/serve"]\n')
    (d,) = read_path(str(p)).deployments
    assert (d.engine, d.engine_version, d.model, _at(d.model_span), d.get("max_model_len")) == \
        ("vllm", "0.10.1", "Qwen/Qwen2.5-7B-Instruct", (6, 18), 4096)
    p.write_text(body + 'ENTRYPOINT ["/usr/local/bin/other"]\n')
    assert read_path(str(p)).deployments == []


def test_an_entry_script_written_by_a_copy_here_document_is_the_images_launch(tmp_path):
    """Sample K44's Dockerfile (measured: "this image starts the engine with no model"): BuildKit's `COPY
    --chmod=755 <<'SCRIPT' /entrypoint.sh` writes the entry point, whose body execs the server on a defaulted
    model (`${MODEL_DIR:-/model}`) and passes `"$@"` on: the launch is that command, at its lines."""
    body = ("FROM nvidia/cuda:12.4.1-runtime-ubuntu22.04\nRUN pip install vllm==0.6.3\n"
            "COPY --chmod=755 <<'SCRIPT' /entrypoint.sh\n#!/bin/bash\nMODEL_DIR=\"${MODEL_DIR:-/model}\"\n"
            "exec python3 -m vllm.entrypoints.openai.api_server \\\n    --model \"${MODEL_DIR}\" \\\n"
            "    --max-model-len 2048 \"$@\"\nSCRIPT\n")
    p = tmp_path / "Dockerfile.vllm"
    p.write_text(body + 'ENTRYPOINT ["/entrypoint.sh"]\n')
    (d,) = read_path(str(p)).deployments
    assert (d.model, d.model_span.line, d.launch_span.line, d.get("max_model_len")) == ("/model", 7, 6, 2048)
    p.write_text(body + 'ENTRYPOINT ["/other.sh"]\n')
    assert read_path(str(p)).deployments == []


def test_a_start_script_a_dockerfile_echoes_is_the_images_launch(tmp_path):
    """Sample K120's Dockerfile (measured: "this image starts the engine with no model"): `RUN echo '#!/bin/bash\\n\\
    ...' > /app/start_server.sh` writes the script over continued lines (echo's `\\n` the newlines, `\\\\` the
    script's own continuations) and `CMD ["/bin/bash", "/app/start_server.sh"]` runs it: the launch is its command,
    each value at the Dockerfile line that wrote it; `>>` adds to the file; a script run by another path is none."""
    body = ("FROM nvidia/cuda:12.1.0-devel-ubuntu22.04\nRUN pip install 'sglang[all]==0.4.6'\nWORKDIR /app\n"
            "RUN echo '#!/bin/bash\\n\\\nMODEL=${MODEL_NAME:-\"facebook/opt-125m\"}\\n\\\n"
            "python -m sglang.launch_server \\\\\\n\\\n    --model-path $MODEL \\\\\\n\\\n"
            "    --context-length 1024\\n\\\n' > /app/start_server.sh && chmod +x /app/start_server.sh\n"
            "RUN echo \"    --tp-size 2\" >> /extra.sh\n")
    p = tmp_path / "Dockerfile.sglang"
    p.write_text(body + 'CMD ["/bin/bash", "/app/start_server.sh"]\n')
    (d,) = read_path(str(p)).deployments
    assert (d.engine, d.model, d.launch_span.line, _at(d.model_span)) == ("sglang", "facebook/opt-125m", 6, (7, 18))
    assert d.get("context_length") == 1024 and _at(d.settings["context_length"].span) == (8, 22)
    p.write_text(body + 'CMD ["./start_server.sh"]\n')
    assert [d.model for d in read_path(str(p)).deployments] == ["facebook/opt-125m"]
    p.write_text(body + 'CMD ["/bin/bash", "/app/other.sh"]\n')
    assert read_path(str(p)).deployments == []


def test_echo_and_printf_writes_decode_as_the_file_gets_them():
    """`>` starts a file and `>>` adds to it; printf's `'%s\\n' LINE...` prints a line per argument; `echo -E`
    keeps its backslashes; an echo printed to the build log writes nothing."""
    from kvlint.launches.echo_writes import echo_writes

    got = echo_writes("RUN echo \"#!/bin/sh\" > /s.sh && echo 'vllm serve m' >> /s.sh\n"
                      "RUN printf '%s\\n' a 'b c' > /p.sh; echo -E 'x\\ny' > /e.sh; echo done\n")
    assert {k: v for k, (v, _) in got.items()} == \
        {"/s.sh": "#!/bin/sh\nvllm serve m\n", "/p.sh": "a\nb c\n", "/e.sh": "x\\ny\n"}
    text, offsets = got["/s.sh"]
    assert len(offsets) == len(text) and offsets[text.index("vllm")] == 38


def test_a_folded_compose_script_with_escapes_and_expansions_keeps_each_words_line(tmp_path):
    """Sample K20's dspark compose (measured: the launch at the `- >` line, 7 lines above the command): a folded
    `bash -lc` script mixing compose's `$$` escape with `${VAR:-default}` expansions keeps each word at its line; the
    model is the default's own text."""
    p = tmp_path / "docker-compose.yml"
    p.write_text(
        "services:\n  s:\n    image: vllm/vllm-openai:v0.10.1\n    command:\n      - bash\n      - -lc\n      - >\n"
        '        export PATH="/usr/local/cuda/bin:$${PATH:-}";\n'
        "        exec vllm serve ${MODEL:-org/folded}\n"
        "        --max-model-len ${LEN:-8192}\n"
        "        --max-num-seqs $$(( ${SEQS:-6} * 2 ))\n")
    (dep,) = read_path(str(p)).deployments
    assert (dep.model, _at(dep.model_span), dep.launch_span.line) == ("org/folded", (9, 34), 9)
    assert (dep.get("max_model_len"), dep.settings["max_model_len"].span.line) == (8192, 10)


def test_a_compose_service_merging_anothers_command_is_its_own_launch_at_its_own_lines(tmp_path):
    """Sample K22's XPU compose (measured: the merged service's launch at the anchor's line, 30 lines above it):
    `vllm-2: {<<: *vllm}` runs the anchor's command; its launch is placed at the service, its values stay at the
    anchor's lines, and a note says where the command comes from."""
    p = tmp_path / "docker-compose.yml"
    p.write_text("services:\n  vllm: &vllm\n    image: vllm/vllm-openai:v0.10.1\n    command:\n"
                 "      - --model=Qwen/Qwen2.5-7B-Instruct\n      - --max-model-len=8192\n"
                 "  vllm-2:\n    <<: *vllm\n    container_name: second\n")
    first, second = read_path(str(p)).deployments
    assert (first.launch_span.line, second.launch_span.line, second.model_span.line) == (5, 8, 5)
    assert any("merged from line 5" in n for n in second.notes)


def test_a_nix_oci_container_is_read_from_its_space_separated_command_list(tmp_path):
    """Sample K23's NixOS desktop module (measured: KV008, no launch): `virtualisation.oci-containers.containers.vllm
    = { image = cfg.image; cmd = [ "--model" cfg.model "--max-model-len" "80000" ]; }` with `cfg = { model = ...;
    image = ...; }`: the list's items are separated by spaces and `cfg.model` is bound by its attribute; the
    container runtime's `extraOptions = [ "--ipc=host" ]` is not the engine's command."""
    p = tmp_path / "vllm.nix"
    p.write_text('{ pkgs, ... }:\nlet\n  cfg = {\n    model = "Qwen/Qwen2.5-7B-Instruct";\n'
                 '    image = "vllm/vllm-openai:v0.10.1";\n  };\nin {\n  virtualisation.oci-containers.containers = {\n'
                 '    vllm = {\n      extraOptions = [\n        "--ipc=host"\n        "--device=nvidia.com/gpu=all"\n'
                 '      ];\n      cmd = [\n        "--model" cfg.model\n        "--max-model-len" "8192"  # comment\n'
                 '      ];\n      image = cfg.image;\n    };\n  };\n}\n')
    (d,) = read_path(str(p)).deployments
    assert (d.engine, d.engine_version, d.model, _at(d.model_span), d.get("max_model_len")) == \
        ("vllm", "0.10.1", "Qwen/Qwen2.5-7B-Instruct", (15, 19), 8192)


def test_a_nix_containers_mounts_naming_the_engine_are_not_its_command(tmp_path):
    """Sample K38's NixOS module (measured: a second, spurious launch whose model was a mount): `volumes = [
    "/home/root/.cache/vllm:/root/.cache/vllm" ... ]` beside the vLLM image names the engine, but a container's
    mounts, ports and devices are never its arguments; the `cmd` list is the one launch."""
    p = tmp_path / "configuration.nix"
    p.write_text('{\n  virtualisation.oci-containers.containers = {\n    vllm = {\n'
                 '      image = "vllm/vllm-openai:v0.11.0";\n      volumes = [\n'
                 '        "/home/root/.cache/huggingface:/root/.cache/huggingface"\n'
                 '        "/home/root/.cache/vllm:/root/.cache/vllm"\n      ];\n'
                 '      devices = [ "nvidia.com/gpu=all" "/dev/vllm0" ];\n'
                 '      cmd = [\n        "org/nix-model"\n        "--max-model-len" "8192"\n      ];\n    };\n  };\n}\n')
    (d,) = read_path(str(p)).deployments
    assert (d.engine, d.model, _at(d.model_span), d.get("max_model_len")) == ("vllm", "org/nix-model", (11, 10), 8192)


def test_the_cpu_release_image_runs_the_server_given_flags(tmp_path):
    """Sample K38's podman run (measured: silent): vLLM's CPU release image on ECR
    (`public.ecr.aws/q9t5s3a7/vllm-cpu-release-repo`) is built from the vllm-openai stage of the CPU Dockerfile,
    whose entry point is the server, so flags after it are the engine's."""
    p = tmp_path / "run.sh"
    p.write_text("podman run --rm \\\n  -p 8000:8000 \\\n  public.ecr.aws/q9t5s3a7/vllm-cpu-release-repo:v0.8.4 \\\n"
                 "  --model=org/cpu-model \\\n  --dtype=bfloat16 \\\n")
    (d,) = read_path(str(p)).deployments
    assert (d.engine, d.model, _at(d.model_span), d.engine_version, d.get("dtype")) == \
        ("vllm", "org/cpu-model", (4, 11), "0.8.4", "bfloat16")


def test_a_manifest_written_in_a_yaml_string_is_read_at_its_lines(tmp_path):
    """Sample K39's llm-d ReplicaSet (measured: KV008, no launch): the vLLM container is written in an annotation's
    block string (`dual-pod.llm-d.ai/server-patch: |`) that a controller applies; a ConfigMap's `values.yaml: |`
    is the same shape. The string is read as YAML, each value at its line and column in the file; a string that
    is not YAML (a script) or names no engine is left to the other readers."""
    p = tmp_path / "rs.yaml"
    p.write_text("apiVersion: apps/v1\nkind: ReplicaSet\nspec:\n  template:\n    metadata:\n      annotations:\n"
                 "        example.com/server-patch: |\n          spec:\n            containers:\n"
                 "            - name: server\n              image: vllm/vllm-openai:v0.11.0\n"
                 "              command:\n              - vllm\n              - serve\n"
                 "              - --model=org/patched-model\n              - --max-model-len=32768\n"
                 "        example.com/note: |\n          image: not yaml vllm\n          : [\n"
                 "    spec:\n      containers:\n      - name: requester\n        image: example/requester:1\n")
    (d,) = read_path(str(p)).deployments
    assert (d.engine, d.model, _at(d.model_span), d.engine_version) == ("vllm", "org/patched-model", (15, 25), "0.11.0")
    assert d.get("max_model_len") == 32768 and _at(d.settings["max_model_len"].span) == (16, 33)


def test_a_command_comments_cut_in_pieces_is_read_as_meant_and_said(tmp_path):
    """Sample K39's systemd-run script (measured: KV008, no launch): `exec docker run ... --network host  # why \\`,
    then more option lines, another such comment, and the image with `serve MODEL`: the shell ends the command at
    the first comment, so docker runs with no image and fails. Every piece is joined back (the launch as meant,
    each value at its place) and KV012 says where the shell cuts it."""
    p = tmp_path / "serve.sh"
    p.write_text("#!/bin/bash\nexec docker run --rm \\\n  --network host   # required: host networking \\\n"
                 "  --shm-size=32g \\\n  --ipc host   # required: shared memory \\\n  --gpus all \\\n"
                 "  --entrypoint vllm \\\n  vllm/vllm-openai:v0.11.0 \\\n  serve org/cut-model \\\n"
                 "    --max-model-len 8192\n")
    result = read_path(str(p))
    (d,) = result.deployments
    assert (d.model, _at(d.model_span), d.get("max_model_len"), d.gpu_count) == ("org/cut-model", (9, 9), 8192, None)
    (cut,) = [f for f in result.findings if f.code == "KV012"]
    assert (_at(cut.span), cut.related[0].span.line) == ((4, 3), 3) and "read the launch as it was meant" in cut.message


def test_continuations_written_backslash_blank_are_read_as_meant_and_said(tmp_path):
    """Sample K117 (measured: a KV002 warning "empty model reference"): every line of the command ends in `\\ `, so
    the shell ends it at the first line with a one-blank argument; the launch is read as meant (no blank model) and
    KV012 says where the shell ends it. A `\\` last on its line still continues."""
    p = tmp_path / "serve.sh"
    p.write_text("python -m vllm.entrypoints.openai.api_server \\ \n--model org/m \\ \n--port 8000 \\ \n"
                 "--max-model-len 4096\n")
    result = read_path(str(p))
    (d,) = result.deployments
    assert (d.model, _at(d.model_span), d.get("max_model_len")) == ("org/m", (2, 9), 4096)
    (cut,) = [f for f in result.findings if f.code == "KV012"]
    assert (_at(cut.span), _at(cut.related[0].span)) == ((2, 1), (1, 46)) and "escapes the blank" in cut.message
    p.write_text(p.read_text().replace("\\ \n", "\\\n"))
    result = read_path(str(p))
    assert [d.get("max_model_len") for d in result.deployments] == [4096]
    assert not [f for f in result.findings if f.code == "KV012"]


def test_a_backslash_blank_before_a_comment_is_read_as_meant_too(tmp_path):
    """Sample K167's runbook (measured: a KV002 warning "empty model reference" and a KV012): `--max-model-len 2048 \\
    # <- raised`: the `\\` escapes a blank, the comment ends the line, and the shell ends the command with a
    one-blank argument; read as meant, as with no comment (no blank model), the cut said."""
    p = tmp_path / "serve.sh"
    p.write_text("python -m vllm.entrypoints.openai.api_server \\\n  --model org/m \\\n"
                 "  --max-model-len 2048 \\  # raised\n  --gpu-memory-utilization 0.85 \\  # lowered\n"
                 "  --max-num-seqs 16\n")
    result = read_path(str(p))
    (d,) = result.deployments
    assert (d.model, d.get("max_model_len"), d.get("gpu_memory_utilization"), d.get("max_num_seqs")) == \
        ("org/m", 2048, 0.85, 16)
    assert [f.code for f in result.findings if f.severity >= 2] == ["KV012"]


def test_a_program_handed_the_engines_arguments_in_one_option_starts_that_engine(tmp_path):
    """Sample K121 (passed over in silence): `sml advanced --framework sglang --framework-args "--model-path M \\
    --dp-size 4"`, a cluster tool that submits the server: SGLang's launch with those arguments, each in place; the
    same value without the model is no launch."""
    p = tmp_path / "launch.sh"
    p.write_text('sml advanced \\\n  --framework sglang \\\n  --framework-args "--model-path org/m \\\n'
                 '    --dp-size 4 \\\n    --context-length 4096"\n')
    (d,) = read_path(str(p)).deployments
    assert (d.engine, d.model, _at(d.model_span), d.get("dp_size"), d.get("context_length")) == \
        ("sglang", "org/m", (3, 34), 4, 4096)
    p.write_text('sml advanced --framework sglang --framework-args "--dp-size 4 --context-length 4096"\n')
    assert read_path(str(p)).deployments == []


def test_a_build_path_with_a_variable_is_the_one_folder_of_the_tree_it_fits(tmp_path):
    """Sample K41's compose (measured: silent): `build: ./vllm/${MODEL_DIR}` on GPUs with no command; the variable
    is set elsewhere, and ./vllm holds one folder with a Dockerfile, whose CMD is the launch (at `build:`). Two
    folders that fit leave the build unread (no choice is made for the user)."""
    (tmp_path / "vllm" / "gemma").mkdir(parents=True)
    (tmp_path / "vllm" / "gemma" / "Dockerfile").write_text(
        'FROM vllm/vllm-openai:v0.11.0\nENTRYPOINT ["python3", "-m", "vllm.entrypoints.openai.api_server"]\n'
        'CMD ["--model", "org/built-model", "--max-model-len", "4096"]\n')
    compose = tmp_path / "docker-compose.yaml"
    compose.write_text("services:\n  llm:\n    build: ./vllm/${MODEL_DIR}\n    deploy:\n      resources:\n"
                       "        reservations:\n          devices:\n            - driver: nvidia\n"
                       "              count: 1\n              capabilities: [gpu]\n")
    (d,) = read_path(str(compose)).deployments
    assert (d.model, d.get("max_model_len"), _at(d.launch_span), d.gpu_count) == ("org/built-model", 4096, (3, 12), 1)
    assert any("is set elsewhere: the one build here it fits" in n for n in d.notes)
    (tmp_path / "vllm" / "qwen").mkdir()
    (tmp_path / "vllm" / "qwen" / "Dockerfile").write_text((tmp_path / "vllm" / "gemma" / "Dockerfile").read_text())
    assert read_path(str(compose)).deployments == []


def test_a_local_cpu_build_of_vllm_runs_the_server_given_flags(tmp_path):
    """Sample K41's compose (measured: the CPU profile's service missed): `vllm-cpu:local`, built by
    `docker build -f docker/Dockerfile.cpu`, whose last stage's entry point is `vllm serve`: its flags are the
    engine's."""
    p = tmp_path / "compose.yaml"
    p.write_text('services:\n  cpu:\n    image: ${VLLM_CPU_IMAGE:-vllm-cpu:local}\n    command:\n'
                 '      - "--model"\n      - "${VLLM_MODEL:-org/cpu-model}"\n      - "--max-model-len"\n      - "8192"\n')
    (d,) = read_path(str(p)).deployments
    assert (d.engine, d.model, _at(d.model_span), d.get("max_model_len")) == ("vllm", "org/cpu-model", (6, 9), 8192)


def test_a_python_program_a_script_writes_by_heredoc_is_read_as_python(tmp_path):
    """Sample K36's setup script (measured: one of its two launchers missed): `cat > quick_start.py << 'EOF'` writes
    a Python program whose `subprocess` list starts SGLang; the body is read as Python at its own lines. A shell
    script the same file writes, which runs `python -c` with `import` lines of its own, stays a shell script."""
    p = tmp_path / "setup.sh"
    p.write_text("#!/bin/bash\ncat > run.sh << 'EOF'\n#!/bin/bash\npython3 -c '\nimport torch\nprint(1)'\n"
                 "python -m sglang.launch_server --model-path org/shell-model --port 8000\nEOF\n"
                 "cat > quick_start.py << 'EOF'\nimport subprocess\nimport sys\n\ndef main():\n"
                 "    cmd = [sys.executable, '-m', 'sglang.launch_server', '--model-path', 'org/py-model', '--tp', '2']\n"
                 "    subprocess.run(cmd)\nEOF\n")
    shell, python = read_path(str(p)).deployments
    assert (shell.model, _at(shell.model_span)) == ("org/shell-model", (7, 45))
    assert (python.model, _at(python.model_span), python.get("tp_size")) == ("org/py-model", (14, 75), 2)


def test_a_program_that_starts_the_engine_with_its_own_model_is_a_launch(tmp_path):
    """Sample K23's MinerU compose (measured: silent): `entrypoint: mineru-sglang-server` with `command: --host ...
    --port 30000` starts SGLang with MinerU's own model and hands it the rest: a launch whose model the file does
    not name, its SGLang flags read as SGLang's."""
    p = tmp_path / "docker-compose.yaml"
    p.write_text("services:\n  mineru:\n    image: example/mineru:v2.1.9\n    entrypoint: mineru-sglang-server\n"
                 "    command:\n      --host 0.0.0.0\n      --port 30000\n      --tp-size 2\n")
    (d,) = read_path(str(p)).deployments
    assert (d.engine, d.model, d.get("tp_size"), d.launch_span.line) == ("sglang", None, 2, 4)
    assert any("mineru-sglang-server wrapper starts sglang" in n for n in d.notes)


def test_a_program_that_is_vllm_serve_with_a_package_registered_takes_a_positional_model(tmp_path):
    """Sample K228 (measured: a KV008): Qwen3-ASR's `qwen-asr-serve "$MODEL" --max-model-len 4096 ...` is `vllm serve`
    with the package's model classes registered: its positional model and vLLM's flags, each at its place."""
    p = tmp_path / "serve_vllm.sh"
    p.write_text('MODEL=${MODEL:-outputs/full-1.7b/final}\nexec qwen-asr-serve "$MODEL" \\\n'
                 "  --gpu-memory-utilization 0.5 \\\n  --max-model-len 4096\n")
    (d,) = read_path(str(p)).deployments
    assert (d.engine, d.model, d.get("max_model_len"), _at(d.model_span)) == ("vllm", "outputs/full-1.7b/final", 4096,
                                                                             (2, 21))


def test_a_gpu_service_built_from_a_folder_named_for_the_engine_with_a_model_variable(tmp_path):
    """Sample K24's benchmark compose (measured: silent): `build: ./vllm` / `./vllm-awq` / `./sglang` on a GPU
    reservation (merged from an anchor), configured by `MODEL_NAME` / `MODEL_PATH`: each is that engine's launch with
    that model. A GPU build named otherwise (`./ollama`), or one with no model variable, is none."""
    p = tmp_path / "docker-compose.yaml"
    p.write_text("x-gpu: &gpu\n  deploy:\n    resources:\n      reservations:\n        devices:\n"
                 "          - driver: nvidia\n            count: 1\n            capabilities: [gpu]\nservices:\n"
                 "  a:\n    build: ./vllm-awq\n    environment:\n      - MODEL_NAME=Qwen/Qwen2.5-7B-Instruct-AWQ\n"
                 "    <<: *gpu\n  b:\n    build: ./sglang\n    environment:\n      - MODEL_PATH=Qwen/Qwen2.5-7B-Instruct\n"
                 "    <<: *gpu\n  c:\n    build: ./ollama\n    environment:\n      - MODEL_NAME=qwen2.5\n    <<: *gpu\n"
                 "  d:\n    build: ./vllm\n    environment:\n      - PORT=8000\n    <<: *gpu\n")
    got = [(d.engine, d.model, d.model_span.line) for d in read_path(str(p)).deployments]
    assert got == [("vllm", "Qwen/Qwen2.5-7B-Instruct-AWQ", 13), ("sglang", "Qwen/Qwen2.5-7B-Instruct", 18)]


def test_a_gpu_service_building_a_dockerfile_named_for_the_engine_with_the_engines_model_variable(tmp_path):
    """Sample K28's compose (measured: missed): `build: {context: ., dockerfile: Dockerfile.vllm}` on a GPU, given
    `VLLM_MODEL=${VLLM_MODEL:-org/name}`: the engine's name before a model variable is still a model variable."""
    p = tmp_path / "docker-compose.yml"
    p.write_text("services:\n  inference:\n    build:\n      context: .\n      dockerfile: Dockerfile.vllm\n"
                 "    environment:\n      - VLLM_MODEL=${VLLM_MODEL:-meta-llama/Llama-3-8B-Instruct}\n"
                 "    deploy:\n      resources:\n        reservations:\n          devices:\n"
                 "            - driver: nvidia\n              count: all\n              capabilities: [gpu]\n")
    (d,) = read_path(str(p)).deployments
    assert (d.engine, d.model, _at(d.model_span)) == ("vllm", "meta-llama/Llama-3-8B-Instruct", (7, 20))


def test_a_controllers_instances_each_naming_its_engine_with_an_argument_list(tmp_path):
    """Sample K29's kvcached controller config (measured: silent): `instances:` items, each `model:`, `engine: vllm` /
    `engine: sglang` and `engine_args: ["--gpu-memory-utilization 0.5", "--port=12346"]`: one launch per item, of
    the engine it names, its arguments split as the controller's shell does. An item naming no engine is none."""
    p = tmp_path / "example-config.yaml"
    p.write_text("router:\n  router_port: 8080\ninstances:\n  - name: a\n    model: org/vllm-model\n    engine: vllm\n"
                 "    engine_args:\n      - \"--gpu-memory-utilization 0.5\"\n      - \"--port=12346\"\n"
                 "  - name: b\n    model: org/sglang-model\n    engine: sglang\n    engine_args:\n"
                 "      - \"--mem-fraction-static 0.6\"\n      - \"--trust-remote-code\"\n"
                 "  - name: c\n    model: org/other\n    engine_args:\n      - \"--port=1\"\n")
    a, b = read_path(str(p)).deployments
    assert (a.engine, a.model, _at(a.model_span), a.get("gpu_memory_utilization")) == ("vllm", "org/vllm-model", (5, 12), 0.5)
    assert _at(a.settings["gpu_memory_utilization"].span) == (8, 35)
    assert (b.engine, b.model, b.get("mem_fraction_static")) == ("sglang", "org/sglang-model", 0.6)


def test_a_python_program_written_in_a_yaml_block_is_read_as_python(tmp_path):
    """Sample K25's ModalApp objects (measured: both missed): `spec.source: |` holds a Modal program whose function
    runs `subprocess.Popen(["vllm", "serve", MODEL_NAME, ...])` on `gpu="L40S"`: read as a .py file is, each value at
    its place in the YAML; a block that only mentions vLLM in prose is none."""
    p = tmp_path / "modalapps.yaml"
    p.write_text('apiVersion: modal.internal.io/v1alpha1\nkind: ModalApp\nspec:\n  source: |\n    import subprocess\n'
                 '    import modal\n    MODEL_NAME = "Qwen/Qwen2.5-7B-Instruct"\n    app = modal.App("x")\n\n'
                 '    @app.function(gpu="L40S")\n    @modal.web_server(port=8000)\n    def serve():\n'
                 '        cmd = ["vllm", "serve", MODEL_NAME, "--max-model-len", "8192"]\n'
                 '        subprocess.Popen(cmd)\n  notes: |\n    import nothing; vllm is mentioned here\n')
    (d,) = read_path(str(p)).deployments
    assert (d.model, d.get("max_model_len"), d.gpu, _at(d.settings["max_model_len"].span)) == \
        ("Qwen/Qwen2.5-7B-Instruct", 8192, "L40S", (13, 65))


def test_a_container_file_named_for_the_engine_in_a_partly_unknown_path(tmp_path):
    """Sample K27's Slurm job (measured: silent): `sif_path="${HOME}/sif/vllm-openai-v0.10.1.1.sif"` then `singularity
    run --nv -B /x "$sif_path" --model M --port P`: where the file is is known at run time only, what it is named is
    written here, so its runscript is vLLM's; exported alike."""
    p = tmp_path / "job.sh"
    p.write_text('sif_path="${HOME}/sif/vllm-openai-v0.10.1.1.sif"\nmodel_name="openai/gpt-oss-20b"\n'
                 'singularity run --nv -B /home/appli "$sif_path" --model "$model_name" --port 8000\n')
    (d,) = read_path(str(p)).deployments
    assert (d.engine, d.model, d.model_span.line) == ("vllm", "openai/gpt-oss-20b", 3)
    p.write_text(p.read_text().replace("sif_path=", "export sif_path="))
    assert [d.model for d in read_path(str(p)).deployments] == ["openai/gpt-oss-20b"]


def test_a_process_started_from_a_list_an_engine_named_function_builds_is_never_passed_over(tmp_path):
    """Sample K26's Modal server (measured: silent): `command = vllm_command()` (imported) then
    `subprocess.Popen(command)`: the argument list is built elsewhere; one KV008 info at the call that builds it."""
    p = tmp_path / "modal_vllm.py"
    p.write_text("import subprocess\nfrom .launch import vllm_command\n\n\ndef start():\n    command = vllm_command()\n"
                 "    subprocess.Popen(command)\n")
    result = read_path(str(p))
    assert result.deployments == [] and [(f.code, _at(f.span)) for f in result.findings] == [("KV008", (6, 15))]


def test_a_systemd_unit_a_script_installs_by_heredoc_is_read_as_a_unit(tmp_path):
    """Sample K27's installer (measured: missed): `cat > /etc/systemd/system/vllm.service << EOF` with `[Service]` and
    `ExecStart=$VENV_PATH/bin/vllm serve MODEL --max-model-len 65536`: the unit's command is the launch, at its line."""
    p = tmp_path / "setup.sh"
    p.write_text("#!/bin/bash\nVENV_PATH=/opt/venv\ncat > /etc/systemd/system/vllm.service << EOF\n[Unit]\n"
                 "Description=vLLM\n[Service]\nExecStart=$VENV_PATH/bin/vllm serve Qwen/Qwen2.5-7B-Instruct "
                 "--max-model-len 65536\n[Install]\nWantedBy=multi-user.target\nEOF\nsystemctl enable vllm\n")
    (d,) = read_path(str(p)).deployments
    assert (d.model, d.model_span.line, d.get("max_model_len")) == ("Qwen/Qwen2.5-7B-Instruct", 7, 65536)


def test_a_command_a_program_only_prints_or_logs_is_a_suggestion_not_a_launch(tmp_path):
    """A helper that prints `f"run: vllm serve {m} ..."` or logs it tells a person what to run; the same string given
    to `os.system` starts the engine. The printed one is never passed over either (a KV008 info)."""
    p = tmp_path / "hint.py"
    p.write_text('import os\nm = "org/m"\nprint(f"run: vllm serve {m} --max-model-len 8192")\n'
                 'logger.info("vllm serve %s", m)\n')
    result = read_path(str(p))
    assert result.deployments == [] and [f.code for f in result.findings] == ["KV008"]
    p.write_text('import os\nm = "org/m"\nos.system(f"vllm serve {m} --max-model-len 8192")\n')
    assert [d.model for d in read_path(str(p)).deployments] == ["org/m"]


def test_an_unquoted_here_document_is_read_as_the_script_the_shell_writes(tmp_path):
    """Sample K51's bootstrap (measured: KV008 only): a function writes `launch_vllm.sh` with `cat > ... <<EOF`
    whose body escapes the written script's own references (`\\${MODEL:-${VLLM_MODEL}}`, `\\\\` continuations) and
    names the engine only through the writer's `${VLLM_IMAGE}`: read as written, the writer's values filled in,
    each value at its place in the file."""
    p = tmp_path / "bootstrap.sh"
    p.write_text('#!/bin/bash\nVLLM_IMAGE="vllm/vllm-openai:v0.19.1"\nVLLM_MODEL="org/boot-model"\nwrite() {\n'
                 '  cat > /opt/launch.sh <<EOF\n#!/usr/bin/env bash\nMODEL="\\${MODEL:-${VLLM_MODEL}}"\n'
                 'docker run --gpus all \\\\\n  "${VLLM_IMAGE}" \\\\\n  --model "\\${MODEL}" \\\\\n'
                 '  --max-model-len 8192\nEOF\n}\nwrite\n')
    (d,) = read_path(str(p)).deployments
    assert (d.model, d.engine_version, d.get("max_model_len")) == ("org/boot-model", "0.19.1", 8192)
    assert d.model_span.line == 10 and d.settings["max_model_len"].span.line == 11


def test_a_worker_rank_a_here_document_sends_is_part_of_the_heads_deployment(tmp_path):
    """Sample K39's cluster script, read further once unquoted here-documents are read as written: `ssh w bash -s
    <<EOF` sends the worker's `--node-rank 1` command (with parser flags only its branch adds), the script then starts
    the head with `--node-rank 0`: one deployment (rule 2). A prefill and a decode role stay two (rule 3)."""
    p = tmp_path / "start_cluster.sh"
    p.write_text('#!/bin/bash\nMODEL="org/multi"\nssh w bash -s <<EOF\n'
                 'python3 -m sglang.launch_server --model-path ${MODEL} --tp 2 --nnodes 2 --node-rank 1 \\\\\n'
                 '  --dist-init-addr 10.0.0.1:5000 --reasoning-parser gpt-oss\nEOF\n'
                 'python3 -m sglang.launch_server --model-path "$MODEL" --tp 2 --nnodes 2 --node-rank 0 '
                 '--dist-init-addr 10.0.0.1:5000\n')
    (d,) = read_path(str(p)).deployments
    assert (d.model, d.get("node_rank"), d.launch_span.line) == ("org/multi", 0, 7)


def test_a_list_of_shell_fragments_joined_into_one_command():
    """`" ".join(["docker run -d", "--gpus all", IMAGE, "--model", args.model, ...])`: one command line, each value
    at its item; `args` is the program's parsed options (a function returning parse_args(), an annotated parameter),
    so the model is the option's default. A list of sentences naming an engine runs nothing."""
    (d,) = _deps("fragments.py")
    assert (d.engine, d.model, _at(d.model_span)) == ("vllm", "org/fragment-model", (18, 9))
    assert (d.get("max_model_len"), _at(d.settings["max_model_len"].span)) == (8192, (19, 26))
    assert d.image == "vllm/vllm-openai:v0.6.4"


def test_a_server_started_by_docker_exec_in_a_container_the_script_ran_runs_on_its_image():
    """`docker run -d --name N IMAGE sleep inf`, then `docker exec N bash -c "...launch_server..."`: the launch runs
    on IMAGE (its release pins SGLang 0.5.2, so a flag later releases dropped is no error) and the container's GPUs;
    the idle container is no "unread" place. A container the script did not start keeps the host's view."""
    result = read_path(str(FIX / "exec-in-container.sh"))
    first, second = result.deployments
    assert (first.model, first.image, first.engine_version) == \
        ("org/exec-model", "registry.example.com/vendor/sglang:v0.5.2-build7", "0.5.2")
    assert first.gpu_count == 2 and first.gpu_count_span is not None and first.gpu_count_span.line == 5
    assert (second.model, second.image) == ("org/elsewhere", None)
    assert [f.code for f in result.findings if f.code == "KV008"] == []


def test_a_ray_serve_config_built_from_names_and_environment_defaults():
    """`LLMConfig(model_loading_config=model_loading_config, ...)`: the dict the program binds to the name (with the
    keys it adds), each value a program helper's environment default (`get_env_or_default("MODEL_ID", "org/m")`); a
    switch given a bool the program read as "true" is the bare flag; a `model_source` defaulting to "" leaves the
    id as the model (sample K74's Ray deploy, silent)."""
    (d,) = _deps("ray_serve_names.py")
    assert (d.engine, d.model, _at(d.model_span)) == ("vllm", "org/ray-names-model", (21, 41))
    assert (d.get("tensor_parallel_size"), d.get("max_model_len"), d.get("trust_remote_code")) == (2, 8192, True)
    assert (d.gpu, _at(d.gpu_span)) == ("L4", (26, 26))


def test_a_ray_serve_config_kvlint_cannot_read_is_said():
    text = ("from ray.serve.llm import LLMConfig\nfrom cfg import loading\n\n"
            "llm = LLMConfig(model_loading_config=loading(), engine_kwargs={'tensor_parallel_size': 2})\n")
    (note,) = read_path("app.py", text).findings
    assert (note.code, note.span.line, note.span.col) == ("KV008", 4, 7)


def test_a_container_run_under_an_engines_name_from_an_unread_image_is_said():
    """A CI step `docker run -d --name vllm-ci ... vllm-inference:ci-test` (the repository's own build, its Dockerfile
    not in sight): a KV008 at the container's name, not silence (sample K76's smoke test)."""
    text = ("jobs:\n  smoke:\n    steps:\n      - run: |\n          docker run -d \\\n            --name vllm-ci \\\n"
            "            -p 8000:8000 \\\n            vllm-inference:ci-test\n          curl localhost:8000/health\n")
    result = read_path("ci.yaml", text)
    (note,) = result.findings
    assert (note.code, note.span.line, note.span.col) == ("KV008", 6, 20) and "vllm-ci" in note.message
    assert read_path("ok.sh", "docker run -d --name web nginx:1\n").findings == []


def test_a_python_argv_running_the_engine_image_after_many_docker_options():
    """The image is the 13th word of a `docker run` argument list (its options first): still a launch, the model at
    its item (sample K74's start_system.py, where only the first six words were looked at)."""
    text = ('import os\n\n\ndef start():\n    cmd = [\n        "docker", "run", "-d", "--name", "ocr", "--gpus", "all",\n'
            '        "-p", "8000:8000", "-v", f"{os.path.expanduser(\'~/.cache\')}:/root/.cache",\n'
            '        "vllm/vllm-openai:v0.10.1", "--model", "org/ocr-model", "--max-model-len", "4096",\n    ]\n'
            '    run_command(cmd, shell=False)\n')
    (d,) = read_path("start.py", text).deployments
    assert (d.model, _at(d.model_span), d.engine_version, d.get("max_model_len")) == \
        ("org/ocr-model", (8, 49), "0.10.1", 4096)


def test_engine_args_handed_to_vllms_own_api_server_in_a_program_are_a_launch():
    """Sample K78's start_vllm.py: `AsyncEngineArgs(model=args.model, tensor_parallel_size=...)` then `run_server(
    engine_args, ...)` from vllm.entrypoints.openai.api_server: the server `vllm serve` with those flags starts.
    Engine arguments for in-process use start no server."""
    text = ("import argparse, asyncio, os\n\n\ndef main():\n    parser = argparse.ArgumentParser()\n"
            "    parser.add_argument('--model', default=os.getenv('VLLM_MODEL', 'org/served-model'))\n"
            "    args = parser.parse_args()\n"
            "    from vllm.entrypoints.openai.api_server import run_server\n"
            "    from vllm.engine.arg_utils import AsyncEngineArgs\n"
            "    engine_args = AsyncEngineArgs(model=args.model, tensor_parallel_size=2, enforce_eager=True)\n"
            "    asyncio.run(run_server(engine_args, host='0.0.0.0', port=8000))\n")
    (d,) = read_path("start.py", text).deployments
    assert (d.model, _at(d.model_span), d.get("tensor_parallel_size"), d.get("enforce_eager")) == \
        ("org/served-model", (10, 41), 2, True)
    assert d.launch_span.line == 11  # where the server starts
    library = text.replace("from vllm.entrypoints.openai.api_server import run_server", "from vllm import AsyncLLMEngine")
    library = library.replace("run_server(engine_args, host='0.0.0.0', port=8000)", "serve(engine_args)")
    assert read_path("lib.py", library).deployments == []


def test_server_args_handed_to_sglangs_own_launch_server_in_a_program_are_a_launch():
    """Sample K85's serve_sglang.py: `ServerArgs(model_path=args.model, mem_fraction_static=...)` then
    `launch_server(server_args)` from sglang.srt.entrypoints.http_server: the server `sglang.launch_server` with those
    flags starts (each engine's IN_PROCESS_SERVER fact). `sgl.Engine(...)` in process starts none."""
    text = ("import argparse\n\nfrom sglang.srt.entrypoints.http_server import launch_server\n"
            "from sglang.srt.server_args import ServerArgs\n\n\ndef main():\n"
            "    parser = argparse.ArgumentParser()\n"
            "    parser.add_argument('model', nargs='?', default='org/sglang-served')\n"
            "    args = parser.parse_args()\n"
            "    server_args = ServerArgs(model_path=args.model, tp_size=2, mem_fraction_static=0.8,\n"
            "                             enable_metrics=True, quantization=args.quant or None)\n"
            "    launch_server(server_args)\n")
    text = text.replace("    args = parser.parse_args()\n", "    parser.add_argument('--quant', default='')\n"
                        "    args = parser.parse_args()\n")
    (d,) = read_path("serve.py", text).deployments
    assert (d.engine, d.model, _at(d.model_span)) == ("sglang", "org/sglang-served", (12, 41))
    assert (d.get("tp_size"), d.get("mem_fraction_static"), d.launch_span.line) == (2, 0.8, 14)
    # `args.quant or None` with an empty default gives nothing: the class's default, not `--quantization ""`
    # (the sample's wrong KV007 error)
    assert "quantization" not in d.settings and d.invalid_values == ()
    library = text.replace("from sglang.srt.entrypoints.http_server import launch_server\n", "import sglang as sgl\n")
    library = library.replace("launch_server(server_args)", "sgl.Engine(server_args=server_args)")
    assert read_path("lib.py", library).deployments == []


def test_the_engines_cli_run_in_process_on_a_set_argv_is_a_launch():
    """Sample K132's vllm_server.py (measured: missed): `sys.argv = [sys.argv[0]] + ["serve", model_path] + args` then
    `main()` of `vllm.entrypoints.cli.main`: `vllm serve` with those words, placed at the assignment."""
    text = ("import sys\nfrom vllm.entrypoints.cli.main import main as vllm_main\n\n\ndef main():\n"
            "    model_path = '/models/qwen'\n    args = sys.argv[1:]\n"
            "    sys.argv = [sys.argv[0]] + ['serve', model_path] + args\n    vllm_main()\n")
    (d,) = read_path("vllm_server.py", text).deployments
    assert (d.engine, d.model, d.launch_span.line) == ("vllm", "/models/qwen", 8)


def test_a_helper_of_the_engines_package_that_starts_its_server_is_a_launch():
    """Sample K134 (measured: silent): `popen_launch_server("org/guard", base_url, other_args=["--chat-template",
    "chatml-llava", "--tp", "2"])` of `sglang.test.test_utils` runs `python -m sglang.launch_server --model-path M`
    with those arguments; a function of that name from elsewhere is not the engine's."""
    text = ("from sglang.test.test_utils import popen_launch_server\n\n"
            "proc = popen_launch_server('org/guard', 'http://127.0.0.1:10000', timeout=600,\n"
            "                           other_args=['--chat-template', 'chatml-llava', '--tp', '2'])\n")
    (d,) = read_path("server.py", text).deployments
    assert (d.engine, d.model, _at(d.model_span), d.get("tp_size")) == ("sglang", "org/guard", (3, 29), 2)
    other = text.replace("sglang.test.test_utils", "mytools.proc")
    assert read_path("server.py", other).deployments == []


def test_uv_run_with_a_module_runs_it_as_python_m():
    """Sample K131 (measured: a KV008): `uv run -m sglang.launch_server --model-path $model_path --tp 2` (uv's
    `--module`) starts the module as `python -m` does; `uv run --module`, and uv's options before it, too."""
    text = ("model_path=/models/Qwen2.5-VL-7B-Instruct\nuv run -m sglang.launch_server --model-path $model_path --tp 2\n"
            "uv run --with hf_transfer --module vllm.entrypoints.openai.api_server --model org/m\n")
    got = [(d.engine, d.model, d.runner) for d in read_path("serve.sh", text).deployments]
    assert got == [("sglang", "/models/Qwen2.5-VL-7B-Instruct", "uv"), ("vllm", "org/m", "uv")]


def test_an_argument_list_the_engines_own_parser_reads_for_its_server_is_a_launch():
    """Sample K128's vllm_server.py (measured: a KV008): `make_arg_parser(FlexibleArgumentParser()).parse_args([MODEL,
    "--max-model-len", "32768", ...])` then `uvloop.run(run_server(args))` runs `vllm serve` without its CLI; SGLang's
    `prepare_server_args([...])` + `launch_server` likewise. A list parsed for another purpose is no launch."""
    text = ("import os\nMODEL = os.environ.get('OCR_MODEL', '/root/models/ocr')\n\nif __name__ == '__main__':\n"
            "    from vllm.entrypoints.openai.api_server import run_server\n"
            "    from vllm.entrypoints.openai.cli_args import make_arg_parser\n"
            "    parser = make_arg_parser(FlexibleArgumentParser())\n"
            "    args = parser.parse_args([MODEL, '--max-model-len', '32768', '--port', '10000'])\n"
            "    uvloop.run(run_server(args))\n")
    (d,) = read_path("vllm_server.py", text).deployments
    assert (d.engine, d.model, _at(d.model_span), d.get("max_model_len"), d.launch_span.line) == \
        ("vllm", "/root/models/ocr", (8, 31), 32768, 8)
    sgl = ("from sglang.srt.entrypoints.http_server import launch_server\nfrom sglang.srt.server_args import "
           "prepare_server_args\n\nargs = prepare_server_args(['--model-path', 'org/m', '--tp', '2'])\n"
           "launch_server(args)\n")
    (s_,) = read_path("serve.py", sgl).deployments
    assert (s_.engine, s_.model, s_.get("tp_size")) == ("sglang", "org/m", 2)
    assert read_path("vllm_server.py", text.replace("uvloop.run(run_server(args))", "print(args)")
                     .replace("import run_server", "import build_app")).deployments == []


def test_a_compose_file_named_for_the_engine_handing_a_model_to_its_own_image_is_said(tmp_path):
    """Sample K80's `docker-compose-vllm.yml`: services of the repository's own image run `./start_server.sh` with
    `MODEL_NAME=org/m` (the image's entry point starts vLLM out of sight): a KV008 at the model, not silence; the
    same file under a name that is not the engine's stays quiet (a client's settings are no place)."""
    text = ("services:\n  model_server_0:\n    image: shop_model_server:latest\n    environment:\n"
            "      - PORT=8000\n      - MODEL_NAME=org/own-image-model\n    command: ./start_server.sh\n")
    (tmp_path / "docker-compose-vllm.yml").write_text(text)
    (tmp_path / "docker-compose.yml").write_text(text)
    (note,) = read_path(str(tmp_path / "docker-compose-vllm.yml")).findings
    assert (note.code, note.span.line, note.span.col) == ("KV008", 6, 20) and "org/own-image-model" in note.message
    assert read_path(str(tmp_path / "docker-compose.yml")).findings == []


def test_a_shell_option_between_dash_c_and_its_command_string():
    """`bash -c -i "vllm serve M ..."` (sample K82's README): bash takes the first operand after its options as the
    command string, so `-i` is an option, not the command."""
    text = 'docker run --gpus all -it --rm vllm-node \\\n  bash -c -i "vllm serve org/dash-i --port 8000"\n'
    (d,) = read_path("run.sh", text).deployments
    assert (d.model, _at(d.model_span), d.image) == ("org/dash-i", (2, 26), "vllm-node")


def test_a_server_started_by_docker_exec_in_a_container_started_elsewhere_pins_no_release(tmp_path):
    """Sample K83's `docker exec -it openmanus-rl bash -c '... vllm serve M --device cuda'`: the container is not the
    script's, so its release is its image's, which the file does not say (not the host's newest): a removed flag is
    an info that says the release decides, not an error."""
    from kvlint.findings import Severity
    from kvlint.lint import LintOptions, lint

    path = tmp_path / "serve.sh"
    path.write_text("docker exec -it trainer-box bash -c '\nvllm serve org/exec-elsewhere \\\n  --device cuda\n'\n")
    (d,) = read_path(str(path)).deployments
    assert (d.model, d.container, d.image) == ("org/exec-elsewhere", "trainer-box", None)
    (f,) = [f for f in lint([str(path)], LintOptions()).findings if f.code == "KV005"]
    assert f.severity == Severity.INFO and "container trainer-box" in f.message


def test_a_llama_swap_cmd_block_is_one_command_over_its_lines():
    """llama-swap's config (sample K83's runbook): `models.NAME.cmd: |` is one command written over lines with no
    `\\`, which llama-swap joins; each model entry is a launch, each value at its place."""
    text = ('models:\n  "qwen3-4b":\n    proxy: "http://127.0.0.1:7000"\n    cmd: |\n      docker run --name qwen-vllm\n'
            '      --init --rm -p 7000:8080 --ipc=host\n      vllm/vllm-openai:v0.11.0\n'
            '      --model org/swap-model --max-model-len 8192\n    cmdStop: docker stop qwen-vllm\n'
            '  "local":\n    proxy: "http://127.0.0.1:7001"\n    cmd: |\n      /app/.venv/bin/vllm serve\n'
            '      org/swap-local\n      --port ${PORT}\n')
    first, second = read_path("config.yaml", text).deployments
    assert (first.model, _at(first.model_span), first.get("max_model_len"), first.image) == \
        ("org/swap-model", (8, 15), 8192, "vllm/vllm-openai:v0.11.0")
    assert (second.model, _at(second.model_span)) == ("org/swap-local", (14, 7))


def test_a_llama_swap_cmd_of_its_own_is_one_command_and_its_program_may_be_a_macro():
    """Sample K170's llama-swap README: an entry holding `cmd:` alone (the proxy is optional), whose program is a
    llama-swap macro (`${vllm}` then `serve` on the next line) and whose comment lines llama-swap leaves out; a bare
    `cmd: |` whose lines go on with flags is one command too. Taskfile's `cmd: |` of two commands is two lines."""
    text = ("models:\n  m:\n    cmd: |\n      vllm-wrapper serve\n      --listen :${PORT}\n      # the daemon\n"
            "      --\n      ${vllm}\n      serve\n      org/macro\n      --max-model-len 4096\n")
    (d,) = read_path("config.yaml", text).deployments
    assert (d.engine, d.model, _at(d.model_span), d.get("max_model_len")) == ("vllm", "org/macro", (10, 7), 4096)
    bare = "cmd: |\n  ${vllm}\n  serve\n  org/bare\n  --port 8000\n  --enable-sleep-mode\n"
    assert [d.model for d in read_path("snippet.yaml", bare).deployments] == ["org/bare"]
    task = "tasks:\n  up:\n    cmd: |\n      cd deploy\n      echo vllm\n      serve --port 1\n"
    assert read_path("Taskfile.yml", task).deployments == []


def test_one_argv_builder_called_with_a_known_and_an_unknown_value_is_one_launch():
    """Sample K86's server main.py: `_build_vllm_cmd(manifest, "127.0.0.1", state.vllm_port)` on the server path and
    `_build_vllm_cmd(manifest, "127.0.0.1", args.vllm_port)` (default 8001) on the CLI path: one command, not two
    launches; calls that resolve different values stay two."""
    text = ("import subprocess, sys\n\n\ndef build(host, port):\n"
            "    return [sys.executable, '-m', 'vllm.entrypoints.openai.api_server', '--model', 'org/built',\n"
            "            '--host', host, '--port', str(port)]\n\n\n"
            "def serve(state):\n    subprocess.Popen(build('127.0.0.1', state.vllm_port))\n\n\n"
            "def main():\n    subprocess.Popen(build('127.0.0.1', 8001))\n")
    (d,) = read_path("main.py", text).deployments
    assert (d.model, d.get("port")) == ("org/built", 8001)
    two = text.replace("build('127.0.0.1', state.vllm_port)", "build('127.0.0.1', 8002)")
    assert sorted(d.get("port") for d in read_path("main.py", two).deployments) == [8001, 8002]


def test_a_program_spawning_docker_with_its_arguments_in_a_list_of_their_own():
    """Sample K80's Electron main process: `const args = ['run', '--gpus', 'all', ..., 'vllm/vllm-openai:latest',
    '--model', M, ...]; spawn(command, args)` with `command = 'docker'` apart: the list is docker's arguments."""
    text = ("const { spawn } = require('child_process');\nconst command = 'docker';\nconst args = [\n"
            "  'run',\n  '--gpus', 'all',\n  '-p', '1229:8000',\n  'vllm/vllm-openai:v0.10.1',\n"
            "  '--model', 'org/spawned',\n  '--max_model_len', '8192'\n];\nconst child = spawn(command, args);\n")
    (d,) = read_path("main.ts", text).deployments
    assert (d.engine, d.model, _at(d.model_span), d.engine_version) == ("vllm", "org/spawned", (8, 15), "0.10.1")
    assert d.get("max_model_len") == 8192
    assert read_path("main.ts", text.replace("'vllm/vllm-openai:v0.10.1',\n", "'busybox',\n")).deployments == []


def test_a_container_the_docker_sdk_starts_is_a_launch_or_a_named_place():
    """Sample K88's docker_manager.py (silent): `client.containers.run(image=cfg['engine_image'], command=f"--model
    {cfg['model_name']} ...")`: an image the file does not name is a KV008 place at the call; an engine image
    written there is `docker run IMAGE COMMAND`."""
    text = ("import docker\n\n\ndef start_vllm_server(cfg):\n    client = docker.from_env()\n"
            "    return client.containers.run(\n        image=cfg['engine_image'],\n"
            "        command=f\"--model {cfg['model_name']} --port {cfg['port']}\",\n        detach=True)\n")
    result = read_path("manager.py", text)
    assert result.deployments == []
    (note,) = result.findings
    assert (note.code, _at(note.span)) == ("KV008", (6, 12)) and "Docker SDK" in note.message
    named = text.replace("cfg['engine_image']", "'vllm/vllm-openai:v0.10.1'").replace(
        "f\"--model {cfg['model_name']} --port {cfg['port']}\"", "['--model', 'org/sdk-run', '--max-model-len', '4096']")
    (d,) = read_path("manager.py", named).deployments
    assert (d.engine, d.model, d.engine_version, d.get("max_model_len")) == ("vllm", "org/sdk-run", "0.10.1", 4096)


def test_a_programs_sglang_command_with_no_model_is_a_place_not_a_launch():
    """Sample K87's RunPod worker: `command = [python3, -m, sglang.launch_server, --host, ...]` extended from the
    environment in a loop at run time: SGLang needs a model and the command names none, so it is no launch of its
    own (the found launch "sglang:None" was spurious), a KV008 place; vLLM's bare command serves its default."""
    text = ("import os, subprocess\n\n\ndef start():\n"
            "    command = ['python3', '-m', 'sglang.launch_server', '--host', '0.0.0.0']\n"
            "    for env_var, option in {'MODEL_NAME': '--model-path'}.items():\n"
            "        if os.getenv(env_var):\n            command.extend([option, os.getenv(env_var)])\n"
            "    subprocess.Popen(command)\n")
    result = read_path("engine.py", text)
    assert result.deployments == []
    (note,) = result.findings
    assert (note.code, note.span.line) == ("KV008", 5) and "SGLang needs a model" in note.message


def test_a_model_less_sglang_command_beside_a_launch_with_an_open_model_is_still_said():
    """The KV008 for a model-less SGLang command survives a second launch in the file whose model is open (the
    program's own argument, no image running it)."""
    text = ("import os, subprocess, sys\n\n\ndef start():\n"
            "    subprocess.Popen(['python3', '-m', 'sglang.launch_server', '--host', '0.0.0.0'])\n\n\n"
            "def other(model):\n    subprocess.Popen(['vllm', 'serve', sys.argv[1]])\n")
    result = read_path("engine.py", text)
    assert [f.code for f in result.findings] == ["KV008"] and result.findings[0].span.line == 5


def test_a_batch_files_arguments_are_the_callers_and_its_defaults_are_read(tmp_path):
    """Sample K97's `.bat` (measured: a wrong KV007 error on `--port %2`): `set PORT=%2` is the caller's argument,
    and `if "%PORT%"=="" set PORT=8000` its default, read as the shell's `${2:-8000}` is; a Windows path model
    (`outputs\\merged_model`) is a path, never a Hub id to look up."""
    from kvlint.lint import LintOptions, lint

    p = tmp_path / "start.bat"
    p.write_text('@echo off\r\nset MODEL=%1\r\nset PORT=%2\r\nset TP=%~3\r\n'
                 'if "%MODEL%"=="" set MODEL=outputs\\merged_model\r\nif not defined PORT set PORT=8000\r\n'
                 "python -m vllm.entrypoints.openai.api_server --model %MODEL% --port %PORT% -tp %TP% %*\r\n")
    (dep,) = read_path(str(p)).deployments
    assert (dep.model, dep.get("port"), dep.invalid_values) == ("outputs\\merged_model", 8000, ())
    assert not dep.settings["tensor_parallel_size"].resolved and dep.unknown_flags == ()
    assert any("default 'outputs\\\\merged_model'" in n for n in dep.notes)
    [status] = lint([str(p)], LintOptions()).launches
    assert status.skip_kind == "model-path"


def test_a_profiler_in_front_of_the_engine_is_peeled(tmp_path):
    """Sample K99 (measured: two launches missed, KV008 places): `nsys profile [options] CMD` runs the command
    under Nsight Systems, its verb a positional and its options after it (`-o out`, `--delay 60`, `--start-later`);
    `ncu [options] CMD` likewise."""
    p = tmp_path / "profile.sh"
    p.write_text("nsys profile --trace-fork-before-exec=true --cuda-graph-trace=node \\\n"
                 "    -o sglang.out --delay 60 --duration 70 --start-later \\\n"
                 "    python3 -m sglang.launch_server --model-path org/a --disable-radix-cache\n"
                 "ncu --set full -o prof -- vllm serve org/b --max-model-len 4096\n")
    got = [(d.engine, d.model) for d in read_path(str(p)).deployments]
    assert got == [("sglang", "org/a"), ("vllm", "org/b")]


def test_only_a_tilde_takes_modifiers_before_a_batch_argument(tmp_path):
    """`%~dp01` style modifiers follow a tilde; `%abc1` is no argument reference (cmd leaves it as written)."""
    p = tmp_path / "start.bat"
    p.write_text("@echo off\nset NAME=%abc1\n"
                 "python -m vllm.entrypoints.openai.api_server --model %~1 --served-model-name %NAME%\n")
    (dep,) = read_path(str(p)).deployments
    assert (dep.model_resolved, dep.get("served_model_name")) == (False, ["%abc1"])


def test_prefill_and_decode_roles_a_name_tells_apart_are_two_launches(tmp_path):
    """Sample K132's llm-d values (measured: one launch, the decode role folded into the prefill one as another
    node): `decode:` and `prefill:` LeaderWorkerSet roles whose containers run one command (the routing sidecar
    tells them apart) and differ in name (`vllm-worker-decode` / `vllm-worker-prefill`): two deployments (counting
    rule 3); the same command under two rank names stays one."""
    role = ("  {r}:\n    containers:\n    - name: vllm-worker-{r}\n      image: vllm/vllm-openai:v0.11.0\n"
            "      command: [/bin/sh, -c]\n      args:\n      - |\n        vllm serve org/m --data-parallel-size 16 "
            "--data-parallel-start-rank $START_RANK --port {p}\n      resources: {{limits: {{nvidia.com/gpu: 8}}}}\n")
    p = tmp_path / "values.yaml"
    p.write_text("multinode: true\nroles:\n" + role.format(r="decode", p=8200) + role.format(r="prefill", p=8000))
    assert sorted(d.name.rsplit("-", 1)[-1] for d in read_path(str(p)).deployments) == ["decode", "prefill"]
    p.write_text("multinode: true\nroles:\n" + role.format(r="a", p=8200) + role.format(r="b", p=8000))
    assert len(read_path(str(p)).deployments) == 1


def test_a_value_a_while_loop_computes_from_itself_is_known_only_when_it_runs(tmp_path):
    """Sample K175's SkyPilot neuron arm (a wrong KV204 error: `-tp 2 needs 2 GPUs`): `TP=1; while [ $((TP * 2)) -le
    $N ]; do TP=$((TP * 2)); done` runs as many times as its test says when the script runs, so TP is not the value
    one reading of the body gives; an assignment in a `for` body, or not from itself, is read as before."""
    p = tmp_path / "run.sh"
    p.write_text('#!/bin/bash\nTP=1\nwhile [ $(($TP * 2)) -le $GPUS ]; do\n  TP=$(($TP * 2))\ndone\n'
                 'vllm serve org/m --tensor-parallel-size $TP\n')
    (d,) = read_path(str(p)).deployments
    assert d.settings["tensor_parallel_size"].resolved is False and d.get("tensor_parallel_size") is None
    p.write_text('#!/bin/bash\nwhile read -r line; do\n  TP=2\ndone < f\nvllm serve org/m --tensor-parallel-size $TP\n')
    (e,) = read_path(str(p)).deployments
    assert e.get("tensor_parallel_size") == 2


def test_an_empty_default_the_caller_overrides_is_a_required_argument_not_a_value(tmp_path):
    """Sample K183's multi-node script (two wrong KV007 errors, "--nnodes: not an integer"): `NNODES=""` before a
    `case` whose arm takes `NNODES="$2"`: the script requires the value (it checks `-z`), so it is the caller's,
    not an empty word handed to the engine; a non-empty default still stands."""
    p = tmp_path / "run.sh"
    body = ('#!/bin/bash\nNNODES={d}\nwhile [[ $# -gt 0 ]]; do\n  case "$1" in\n    --nnodes) NNODES="$2"; shift 2 ;;\n'
            '  esac\ndone\nvllm serve org/m --nnodes "$NNODES" --node-rank 0\n')
    p.write_text(body.format(d='""'))
    (d,) = read_path(str(p)).deployments
    assert d.invalid_values == () and d.settings["nnodes"].resolved is False
    p.write_text(body.format(d="2"))
    (e,) = read_path(str(p)).deployments
    assert e.get("nnodes") == 2


def test_an_engine_command_past_sixteen_words_is_handed_only_through_a_launchers_double_dash():
    """A launcher's own options can be many (sample K170): past its first sixteen words an engine command is read
    only where the launcher hands it over with `--`, not anywhere in a long command line."""
    opts = " ".join(f"--p{k}" for k in range(12))
    (d,) = read_path("run.sh", f"runner --a 1 -- systemd-run {opts} -- vllm serve org/far2 --port 1\n").deployments
    assert d.model == "org/far2"
    assert read_path("run.sh", f"runner --a 1 {opts} vllm serve org/far3 --port 1\n").deployments == []


def test_a_platform_clis_endpoint_given_an_image_and_its_command_strings_is_a_container_run():
    """Sample K193 (measured: a miss, a KV008): `nebius ai endpoint create --image IMAGE --container-command "python3
    -m vllm.entrypoints.openai.api_server" --args "--model $MODEL_ID ..."` runs the image as `docker run
    --entrypoint` would, each word of the strings at its place. An image given no command or arguments is none."""
    (d,) = read_path(str(FIX / "platform-endpoint.sh")).deployments
    assert (d.engine, d.engine_version, d.model, _at(d.model_span)) == ("vllm", "0.18.0", "Qwen/Qwen3-0.6B", (8, 19))
    assert (d.get("max_model_len"), _at(d.settings["max_model_len"].span)) == (8192, (8, 60))


def test_a_program_given_before_its_list_of_arguments_is_the_command():
    """A Node launcher's `spawn('vllm', ['serve', M, ...])` (execFile, Deno's Command alike): the program is the
    call's first argument, the list its arguments, so the two together are the command line; a bound name
    (`spawn(VLLM, [...])`) reads through its binding, and a list with no flag still counts when the program
    names the engine."""
    text = ("const VLLM = 'vllm';\nconst a = spawn('vllm', ['serve', 'org/spawned', '--max-model-len', '8192']);\n"
            "const b = spawn(VLLM, ['serve', 'org/bound']);\n"
            "const c = spawn('python3', ['-m', 'sglang.launch_server', '--model-path', 'org/sg', '--tp', '2']);\n")
    found = read_path("server.js", text).deployments
    assert [(d.engine, d.model, _at(d.model_span)) for d in found] == [
        ("vllm", "org/spawned", (2, 36)), ("vllm", "org/bound", (3, 34)), ("sglang", "org/sg", (4, 76))]
    assert found[0].get("max_model_len") == 8192 and found[2].get("tp_size") == 2
    assert read_path("server.js", text.replace("'vllm', ['serve'", "'ls', ['serve'")).deployments[0].model \
        == "org/bound"


def test_a_command_built_on_a_process_builder_is_read_word_by_word():
    """Rust's `Command::new("vllm").arg("serve").arg(M)` and `.args([...])`, Deno's `new Deno.Command("vllm",
    { args: [...] })`: the program is the builder's argument and the words come from the calls and lists of the
    same statement; a builder of another program, or a statement that ends before its words, is no launch."""
    text = ('fn main() {\n    let m = "org/bound";\n'
            '    let a = Command::new("vllm").arg("serve").arg(m).arg("--max-model-len").arg("4096").spawn();\n'
            '    let b = Command::new("vllm").args(["serve", "org/listed", "--tensor-parallel-size", "2"]).spawn();\n'
            '    let c = Command::new("ls").arg("serve").arg("org/other").spawn();\n'
            '    let d = Command::new("vllm");\n    d.arg("org/later");\n}\n')
    found = read_path("main.rs", text).deployments
    assert [(d.model, _at(d.model_span)) for d in found] == [("org/bound", (3, 51)), ("org/listed", (4, 50))]
    assert found[0].get("max_model_len") == 4096 and found[1].get("tensor_parallel_size") == 2
    deno = 'const c = new Deno.Command("vllm", { args: ["serve", "org/deno", "--port", "8001"] });\n'
    (d,) = read_path("serve.ts", deno).deployments
    assert (d.model, d.get("port")) == ("org/deno", 8001)


def test_a_triton_vllm_backend_model_json_is_the_engine_s_arguments():
    """Triton's vLLM backend: `MODEL/1/model.json` holds the engine's arguments and `MODEL/config.pbtxt` says
    `backend: "vllm"`; the same file under a Python backend's config is no launch, and with no config.pbtxt beside
    it the engine's own keys decide. The folder walk reads it too."""
    from kvlint.launches import iter_files

    repo = FIX / "triton" / "model_repository"
    (d,) = read_path(str(repo / "qwen" / "1" / "model.json")).deployments
    assert (d.engine, d.model, _at(d.model_span), d.get("max_model_len")) == ("vllm", "Qwen/Qwen2.5-7B-Instruct",
                                                                              (2, 14), 8192)
    assert d.get("gpu_memory_utilization") == 0.5
    assert read_path(str(repo / "other" / "1" / "model.json")).deployments == []
    alone = (repo / "qwen" / "1" / "model.json").read_text()
    assert read_path("/nowhere/m/1/model.json", alone).deployments[0].model == "Qwen/Qwen2.5-7B-Instruct"
    assert read_path("/nowhere/m/model.json", alone).deployments == []
    walked = [p for p, skip in iter_files([str(repo)]) if skip is None]
    assert str(repo / "qwen" / "1" / "model.json") in walked


def test_a_bare_run_of_a_build_named_for_the_engine_on_gpus_is_its_own_commands_launch():
    """Sample K243's Paiton launchers (measured: missed, said): `docker run ... --device /dev/kfd --device /dev/dri
    ... ghcr.io/org/paiton-vllm-plugin:TAG` with no command: the image's own command serves a model chosen inside
    it. One launch on the image's engine, on the host's GPUs
    (AMD's device node), its model left open and said; a client image or no GPU gives none."""
    text = ("#!/bin/bash\nexec docker run --rm --network host \\\n  --device /dev/kfd --device /dev/dri \\\n"
            "  -v \"$T:/models/target:ro\" \\\n  ghcr.io/org/paiton-vllm-plugin:qwen38-rocm-20260918\n")
    (dep,) = read_path("run.sh", text).deployments
    assert (dep.engine, dep.model_resolved, _at(dep.launch_span), dep.gpu_count) == ("vllm", False, (2, 6), None)
    assert dep.model == "(the model the image's own command serves)"
    assert read_path("run.sh", text.replace("paiton-vllm-plugin", "vllm-chat-ui")).deployments == []
    assert read_path("run.sh", text.replace("--device /dev/kfd --device /dev/dri", "")).deployments == []


def test_an_image_left_to_a_sourced_file_handed_serve_and_a_model_runs_the_engines_cli():
    """Sample K243's MI300X launcher (measured: missed, said): `docker run ... "$IMAGE" "${ARGS[@]}"` with ARGS
    `serve "$MODEL_DIR" --served-model-name ... --max-model-len ...`, the image set by a sourced file: an entry point
    that is vLLM's CLI, handed its subcommand and a model; `serve --max-model-len 4096` alone says nothing."""
    text = ('#!/bin/bash\nsource /opt/app/env\nARGS=(\n  serve "$MODEL_DIR"\n  --max-model-len 8192\n'
            '  --gpu-memory-utilization 0.5\n)\ndocker run --device /dev/kfd "$IMAGE" "${ARGS[@]}"\n')
    (dep,) = read_path("serve.sh", text).deployments
    assert (dep.engine, dep.model, _at(dep.model_span), dep.get("max_model_len")) == ("vllm", "$MODEL_DIR", (4, 9),
                                                                                       8192)


def test_a_bare_run_of_the_repositorys_own_build_is_its_dockerfiles_default_command(tmp_path):
    """Sample K244's `run.ps1` (measured: missed, said): `docker run --gpus all -p 8000:8000 vllm-qwen:latest` beside
    the one Dockerfile, whose `ENTRYPOINT [... api_server]` and `CMD ["--model", "/model"]` it builds: the launch
    is that default command, placed at the run, its words in the Dockerfile. An image with a registry is not it."""
    (tmp_path / "Dockerfile").write_text('FROM vllm/vllm-openai:v0.9.2\nENTRYPOINT ["python3", "-m", '
                                         '"vllm.entrypoints.openai.api_server"]\nCMD ["--model", "/model", '
                                         '"--max-model-len", "8192"]\n')
    run = tmp_path / "run.ps1"
    run.write_text("docker run --gpus all -p 8000:8000 vllm-qwen:latest\n")
    (dep,) = read_path(str(run)).deployments
    assert (dep.model, _at(dep.model_span), dep.model_span.path.endswith("Dockerfile")) == ("/model", (3, 18), True)
    assert (_at(dep.launch_span), dep.launch_span.path, dep.get("max_model_len")) == ((1, 1), str(run), 8192)
    run.write_text("docker run --gpus all -p 8000:8000 ghcr.io/other/vllm-qwen:latest\n")
    (other,) = read_path(str(run)).deployments
    assert other.model_resolved is False  # not this Dockerfile's build: the image's own command, left open


def test_a_function_around_docker_defined_out_of_sight_runs_a_container():
    """Sample K244's R2 start script (measured: missed, said): `container_id=$(docker_cmd run --detach ... --gpus all
    "$R2_IMAGE" "${vllm_args[@]}")`, docker_cmd defined in a sourced lib.sh: a container run whose arguments (a model
    then vLLM's flags) make it vLLM's launch. `docker-compose run SERVICE` is no container run of an image."""
    text = ('#!/bin/bash\nsource "$D/lib.sh"\nvllm_args=(\n  "$CONTAINER_MODEL_DIR"\n  --tensor-parallel-size 8\n'
            '  --max-model-len 65536\n)\ncontainer_id=$(docker_cmd run --detach --gpus all "$R2_IMAGE" '
            '"${vllm_args[@]}")\n')
    (dep,) = read_path("start.sh", text).deployments
    assert (dep.engine, dep.model, dep.get("tensor_parallel_size")) == ("vllm", "$CONTAINER_MODEL_DIR", 8)
    assert read_path("up.sh", "docker-compose run vllm-serve --max-model-len 4096\n").deployments == []


def test_a_program_path_imported_from_the_repository_and_named_for_the_engine():
    """Sample K245's Windows launcher (measured: silent): `[str(VLLM_EXE), "serve", MODEL_PATH, ...]` with VLLM_EXE
    imported from a module of the repository, run by `subprocess.Popen(args)`: the engine's CLI."""
    text = ('"""Start the vllm server."""\nimport subprocess\nfrom _common import VLLM_EXE, MODEL_PATH\nargs = [\n'
            '    str(VLLM_EXE), "serve", '
            'MODEL_PATH,\n    "--max-model-len=65536",\n]\nsubprocess.Popen(args)\n')
    (dep,) = read_path("start.py", text).deployments
    assert (dep.engine, dep.model_resolved, dep.get("max_model_len")) == ("vllm", False, 65536)
    assert read_path("start.py", text.replace("VLLM_EXE", "TOOL_EXE")).deployments == []


def test_a_placeholder_goes_on_as_one_word_with_what_follows_it():
    """Sample K245's recipe (measured: missed, said): `-v <weights>:/weights:ro` and `-p 127.0.0.1:<port>:8000` in a
    Markdown block are one word each, not a redirection from `weights>`, so the container run is read."""
    text = ("```bash\ndocker run -d --name <container> --gpus all -p 127.0.0.1:<port>:8000 \\\n"
            "  -v <weights>:/weights:ro \\\n  vllm/vllm-openai:v0.9.2 \\\n  --model /weights --max-model-len 4096\n```\n")
    (dep,) = read_path("commands.md", text).deployments
    assert (dep.model, _at(dep.model_span), dep.get("max_model_len")) == ("/weights", (5, 11), 4096)


def test_a_here_document_never_closed_is_read_as_the_commands_it_was_meant_as():
    """Sample K245's start script (measured: missed, said): `cat >"${LOG_FILE}" <<EOF` and no `EOF` line after it, the
    server's `docker run` below: bash writes the lines into the log and runs none; kvlint reads them as the commands
    they were meant as and says the here-document is open (a note on the launch)."""
    text = ('#!/bin/bash\nM=org/m\ncat >"${LOG_FILE}" <<EOF\n\ndocker run -d --gpus all vllm/vllm-openai:v0.9.2 '
            '--model "$M" --max-model-len 4096\n')
    (dep,) = read_path("start.sh", text).deployments
    assert (dep.model, dep.get("max_model_len")) == ("org/m", 4096)
    assert any("here-document opened on the line before is never closed (no `EOF` line)" in n for n in dep.notes)
    (written,) = read_path("start.sh", text + "EOF\n").deployments  # closed: a file it writes, read as before
    assert not any("never closed" in n for n in written.notes)


def test_a_container_command_that_starts_with_a_flag_is_handed_to_the_images_entry_point():
    """Sample K246's Tinfoil config (measured: silent): `containers: [{name, image: ghcr.io/org/app@sha256:..., gpus:
    all, command: ["--model", "/m", "--tensor-parallel-size", "8", ...]}]`: no program starts with `--`, so the words
    go to the image's entry point as compose's `command` does, and vLLM's own flags make it vLLM's launch. A command
    that names a program is that program, as before."""
    text = ('containers:\n  - name: "kimi"\n    image: "ghcr.io/org/app@sha256:83ee7163"\n    gpus: all\n'
            '    command: ["--model", "/m", "--tensor-parallel-size", "8", "--decode-context-parallel-size", "8",\n'
            '      "--max-num-seqs", "48", "--enable-expert-parallel"]\n')
    (dep,) = read_path("tinfoil-config.yml", text).deployments
    assert (dep.engine, dep.model, _at(dep.model_span), dep.get("tensor_parallel_size")) == ("vllm", "/m", (5, 26), 8)
    assert read_path("tinfoil-config.yml", text.replace('["--model"', '["serve-app", "--model"')).deployments == []


def test_an_engine_run_on_an_array_a_sourced_file_sets_is_a_launch_whose_model_is_among_its_words():
    """Sample K242's FP8 launcher (measured: missed, said as passed-through arguments): `source /root/x.conf.sh` then
    `exec python -m sglang.launch_server "${SGLANG_ARGS[@]}"`, the array set by the sourced file (not in the
    repository): a launch whose words, the model among them, are that file's; `"$@"` stays an entry point's."""
    text = ('#!/bin/bash\nexport MODEL_PATH=/root/LLM/Qwen3.8-27B-FP8\nsource /root/sglang-v23.conf.sh\n'
            'exec python -m sglang.launch_server "${SGLANG_ARGS[@]}"\n')
    result = read_path("run-sglang.sh", text)
    (dep,) = result.deployments
    assert (dep.engine, dep.model) == ("sglang", None)
    assert any("the arguments are $SGLANG_ARGS, an array set by /root/sglang-v23.conf.sh" in n for n in dep.notes)
    passed = read_path("entry.sh", '#!/bin/bash\nexec python -m sglang.launch_server "$@"\n')
    assert passed.deployments == [] and [f.code for f in passed.findings] == ["KV008"]


def test_a_kubernetes_command_that_starts_with_a_flag_stays_a_command():
    """In a Kubernetes object `command:` replaces the image's entry point: `command: ["--model", ...]` runs a program
    named `--model` (the pod fails), so it is not read as the engine's arguments the way a platform's spec is."""
    text = ("apiVersion: v1\nkind: Pod\nspec:\n  containers:\n    - name: a\n      image: ghcr.io/org/app:1\n"
            '      command: ["--model", "/m", "--tensor-parallel-size", "8", "--max-num-seqs", "2"]\n')
    assert read_path("pod.yaml", text).deployments == []


def test_a_copy_of_trls_server_run_by_its_path_is_trls_server():
    """Sample K253 (measured: said, not read): `python verifiers/inference/vllm_serve.py --model "Qwen/Qwen2.5-7B"
    --tensor_parallel_size 4 ... --enable_prefix_caching True`, TRL's server vendored by an RL library: read as
    `trl.scripts.vllm_serve` (underscore flags, boolean values). A script of another name stays a program kvlint
    does not know."""
    text = ('python verifiers/inference/vllm_serve.py \\\n    --model "Qwen/Qwen2.5-7B" \\\n'
            '    --tensor_parallel_size 4 \\\n    --max_model_len 8192 \\\n    --enable_prefix_caching True\n')
    (d,) = read_path("serve.sh", text).deployments
    assert (d.engine, d.model, _at(d.model_span)) == ("vllm", "Qwen/Qwen2.5-7B", (2, 14))
    assert (d.get("tensor_parallel_size"), d.get("max_model_len"), d.unknown_flags) == (4, 8192, ())
    assert read_path("serve.sh", text.replace("vllm_serve.py", "serve_model.py")).deployments == []


def test_a_ray_cluster_a_function_starts_holds_the_engine_the_function_then_runs():
    """Sample K254 (a wrong KV204 error, "-tp 8 x -pp 2 needs 16 GPU(s) but the instance requests 8"): `run_rayhead()`
    runs `ray start --head` and then `run_vllm`, another function: the engine runs on the cluster, its node count
    open, as when both are written at the top level."""
    text = ('run_vllm() {\n    vllm serve org/m --tensor-parallel-size 8 --pipeline-parallel-size 2\n}\n'
            'run_rayhead() {\n    ray start --head --port=6379\n    run_vllm\n}\nrun_rayhead\n')
    (d,) = read_path("run.sh", text).deployments
    assert not d.settings["nnodes"].resolved and "Ray cluster started at line 5" in d.settings["nnodes"].raw
    (plain,) = read_path("run.sh", text.replace("    ray start --head --port=6379\n", "")).deployments
    assert "nnodes" not in plain.settings
