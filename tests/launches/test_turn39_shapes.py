"""Shapes the turn-39 held-out samples (and the turn-38 leftovers) showed kvlint passing over or misreading, each read
by a mechanism, not a case."""

from __future__ import annotations

from kvlint.launches import read_path
from tests.launches.checked import checked as _checked


def test_a_plugin_server_module_in_an_indented_block_is_a_launch(tmp_path):
    """Turn 38's K346 (a design plan): `python -m vllm_omni.entrypoints.openai.serving_image --model Qwen/Qwen-Image`
    pasted as an indented (unfenced) block three times. Lines outside fences are read where they name an entry point;
    a plugin package's own server module (kvlint/data/plugins.json) is one, as in a fenced block. A module of a
    package the data does not list, or prose naming the module, is not."""
    path = tmp_path / "plan.md"
    path.write_text("# Plan\n\nUsage:\n\n    python -m vllm_omni.entrypoints.openai.serving_image \\\n"
                    "        --model Qwen/Qwen-Image --port 8091\n\nThe module `vllm_omni.entrypoints` serves it.\n\n"
                    "    python -m other_pkg.entrypoints.openai.serving_image --model Qwen/Qwen-Image\n")
    (dep,) = read_path(str(path)).deployments
    assert (dep.engine, dep.model) == ("vllm", "Qwen/Qwen-Image")
    assert dep.model_span is not None and (dep.model_span.line, dep.model_span.col) == (6, 17)


def test_a_container_spec_that_runs_its_own_script_is_not_the_images_default_launch(tmp_path):
    """K352 (a SkyShift Job): `spec: {image: vllm/vllm-openai:latest, run: "vllm serve M ..."}`. The `run:` script is
    what runs in the image, so the image does not also start on its default model: one launch, the command's. The
    same map with no command key still runs the image's default (a Kubernetes container with no command)."""
    path = tmp_path / "job.yaml"
    path.write_text("kind: Job\nmetadata:\n  name: vllm\nspec:\n  image: vllm/vllm-openai:latest\n  resources:\n"
                    "    L4: 1\n  run: |\n    vllm serve meta-llama/Llama-3.1-8B-Instruct --max_model_len 8000\n")
    (dep,) = read_path(str(path)).deployments
    assert dep.model == "meta-llama/Llama-3.1-8B-Instruct" and dep.launch_span is not None and dep.launch_span.line == 9
    path.write_text(path.read_text().split("  run:")[0])
    (stock,) = read_path(str(path)).deployments
    assert stock.model_span is not None and stock.model_span.line == 5  # the image's default model, at the image


def test_a_nix_instance_switched_off_with_enable_false_is_no_deployment(tmp_path):
    """K352 (a NixOS host): `services.vllm.instances = { a = { enable = false; model = ...; }; b = { enable = true;
    ... }; }`. NixOS spells the switch `enable`: an instance switched off is audited as an example, not deployed, as
    a chart entry's `enabled: false` is."""
    path = tmp_path / "configuration.nix"
    path.write_text('{ config, ... }: {\n  services.vllm.instances = {\n    off = {\n      enable = false;\n'
                    '      model = "Qwen/Qwen3-8B";\n      maxModelLen = 8192;\n    };\n    on = {\n      enable = true;\n'
                    '      model = "Qwen/Qwen3-14B";\n      maxModelLen = 16384;\n    };\n  };\n}\n')
    deps = read_path(str(path)).deployments
    assert [(d.model, d.disabled is not None) for d in deps] == [("Qwen/Qwen3-8B", True), ("Qwen/Qwen3-14B", False)]


def test_a_nix_list_item_in_parentheses_is_one_item(tmp_path):
    """K352 (NixOS modules): `cmd = [ "vllm" "serve" model "--port" (toString vllmPort) "--max-model-len" "32768"
    ... "--tool-call-parser" "hermes" ]`. An expression in parentheses is one item of a Nix list: the list stays one
    command, each flag with its own value (read apart before: `--port hermes`, a false KV007, and the model lost);
    `toString NAME` is NAME. The image's tag states the release (`rocm/vllm:rocm7.0.0_vllm_0.11.2_20251210`)."""
    path = tmp_path / "vllm.nix"
    path.write_text('{ ... }: let\n  vllmPort = 11322;\n  model = "Qwen/Qwen3-Coder-30B-A3B-Instruct-FP8";\n'
                    '  vllmImage = "rocm/vllm:rocm7.0.0_vllm_0.11.2_20251210";\nin {\n'
                    '  virtualisation.oci-containers.containers.vllm = {\n    image = vllmImage;\n    cmd = [\n'
                    '      "vllm"\n      "serve"\n      model\n      "--port"\n      (toString vllmPort)\n'
                    '      "--max-model-len"\n      "32768"\n      "--tool-call-parser"\n      "hermes"\n    ];\n  };\n}\n')
    (dep,) = read_path(str(path)).deployments
    assert (dep.model, dep.get("max_model_len"), dep.get("tool_call_parser")) == (
        "Qwen/Qwen3-Coder-30B-A3B-Instruct-FP8", 32768, "hermes")
    assert dep.model_span is not None and dep.model_span.line == 11
    assert not any(f["code"] == "KV007" for f in _checked(path))


def test_an_image_tag_that_names_the_engine_release_states_it():
    """AMD's `rocm/vllm:rocm7.0.0_vllm_0.11.2_20251210` carries vLLM's release after the engine's name; the date beside
    it dated the image to a later release. An engine's name then a release, anywhere in a tag, is that release; a
    month-stamped NGC tag and a tag with no engine name are not read so."""
    from kvlint.launches.build import version_from_image

    assert version_from_image("rocm/vllm:rocm7.0.0_vllm_0.11.2_20251210") == "0.11.2"
    assert version_from_image("org/server:sglang-v0.4.6.post1") == "0.4.6.post1"
    assert version_from_image("nvcr.io/nvidia/vllm:25.11-py3") is None
    assert version_from_image("rocm/vllm:rocm6.4.1_20250909") is None


def test_an_org_document_source_block_is_read_as_a_runbooks(tmp_path):
    """K352 (a plan kept in Org mode): `#+begin_src bash` ... `podman run ... vllm serve M ...` ... `#+end_src`. The
    source blocks of an `.org` file are read as a Markdown runbook's code blocks, each value at its place; prose that
    names the command, and a commented block, are not."""
    path = tmp_path / "plan.org"
    path.write_text("* Plan\nWe run vllm serve on the spark.\n#+BEGIN_SRC bash :tangle run.sh\npodman run --rm "
                    "--device nvidia.com/gpu=all docker.io/vllm/vllm-openai:v0.11.0 \\\n"
                    "  vllm serve Qwen/Qwen3-8B --max-model-len 16384\n#+END_SRC\n")
    (dep,) = read_path(str(path)).deployments
    assert (dep.model, dep.get("max_model_len")) == ("Qwen/Qwen3-8B", 16384)
    assert dep.model_span is not None and (dep.model_span.line, dep.model_span.col) == (5, 14)
    from kvlint.launches import iter_files

    assert [p for p, skip in iter_files([str(tmp_path)]) if skip is None] == [str(path)]


def test_a_commands_list_opening_with_a_flag_is_the_images_arguments(tmp_path):
    """K350 (InferX function specs): `{"spec": {"image": "vllm-openai-upgraded:v.0.1", "commands": ["--model", M,
    "--max-model-len", "200"]}}`. A `commands` list whose first word is a flag is handed to the image's entry point,
    as Docker's `Cmd` is; a CI step's `commands:` list of command lines is not read so."""
    path = tmp_path / "fn.json"
    path.write_text('{"object": {"spec": {"image": "vllm-openai-upgraded:v.0.1",\n  "commands": ["--model",\n'
                    '   "openbmb/MiniCPM3-4B", "--max-model-len", "200"]}}}\n')
    (dep,) = read_path(str(path)).deployments
    assert (dep.engine, dep.model, dep.get("max_model_len")) == ("vllm", "openbmb/MiniCPM3-4B", 200)
    assert dep.model_span is not None and dep.model_span.line == 3
    ci = tmp_path / "pipeline.yml"
    ci.write_text("steps:\n  - label: build\n    image: vllm/vllm-openai:latest\n    commands:\n      - pip list\n")
    assert read_path(str(ci)).deployments == []


def test_chart_keys_prefixed_with_the_engine_in_camel_case_are_its_settings(tmp_path):
    """K349 (a custom chart's values): `vllmConfig: {vllmModel: M, vllmMaxNumBatchedTokens: 1024}` beside `image:
    {repository: vllm/vllm-openai}`. A key that is the engine's name then a capitalised word is that word's key (the
    `vllm_`, `vllm-` spellings already were): the model and the flag are read, each at its place."""
    path = tmp_path / "values.yaml"
    path.write_text('vllmConfig:\n  vllmModel: "mistralai/Mistral-7B-Instruct-v0.3"\n  vllmMaxNumBatchedTokens: 1024\n'
                    'pod:\n  image:\n    repository: vllm/vllm-openai\n    tag: "v0.6.4"\n')
    (dep,) = read_path(str(path)).deployments
    assert (dep.model, dep.get("max_num_batched_tokens")) == ("mistralai/Mistral-7B-Instruct-v0.3", 1024)
    assert dep.model_span is not None and (dep.model_span.line, dep.model_span.col) == (2, 14)
    from kvlint.launches.structured import unprefixed

    assert unprefixed("vllmModel") == ("vllm", "Model") and unprefixed("vllmserve")[0] is None
    assert unprefixed("VLLMConfig")[0] is None  # an upper-case run is an acronym, not the engine's prefix


def test_a_jupytext_markdown_cell_block_is_read(tmp_path):
    """K349 (Docling's example, a notebook kept as a `.py` in Jupytext's percent format): `# %% [markdown]` then
    `# ```console` / `# vllm serve ibm-granite/granite-docling-258M \\` ... Each Markdown cell is read as a notebook's
    markdown cell is, its comment marks blanked, so every value keeps its column; the code cells and their comments are
    read as Python is (a commented command there is not a launch)."""
    path = tmp_path / "example.py"
    path.write_text("# %% [markdown]\n#\n# ### Start models with vllm\n#\n# ```console\n"
                    "# vllm serve ibm-granite/granite-docling-258M \\\n#   --max-num-seqs 512\n# ```\n# %%\n\n"
                    "import os\n# vllm serve not/this --max-num-seqs 4\nprint(os.name)\n")
    (dep,) = read_path(str(path)).deployments
    assert (dep.model, dep.get("max_num_seqs")) == ("ibm-granite/granite-docling-258M", 512)
    assert dep.model_span is not None and (dep.model_span.line, dep.model_span.col) == (6, 14)


def test_a_served_name_that_spells_out_the_paths_release_names_the_model(tmp_path):
    """K351 (a compose service): `--model-path /root/.cache/modelscope/hub/models/Qwen/Qwen3-4B-Instruct` served as
    `qwen3-4b-instruct-2507`. The folder's name is known only as another spelling of Qwen3-4B (40,960 positions); the
    served name is the path's name made exact, a published model of its own (262,144): it names the model, so
    `--context-length 131072` is no KV105. A served name that does not extend the path's name is still only a hint."""
    from kvlint.deployment import ModelAlias
    from kvlint.models.resolve import resolve_model

    path = "/root/.cache/modelscope/hub/models/Qwen/Qwen3-4B-Instruct"
    exact = resolve_model(path, aliases=(ModelAlias("qwen3-4b-instruct-2507", "served-short"),))
    assert exact.model_id == "Qwen/Qwen3-4B-Instruct-2507"
    other = resolve_model(path, aliases=(ModelAlias("my-assistant", "served-short"),))
    assert other.model_id == "Qwen/Qwen3-4B"
    compose = tmp_path / "docker-compose.yml"
    compose.write_text(f"services:\n  s:\n    image: lmsysorg/sglang:latest\n    command:\n      - python3\n      - -m\n"
                       f"      - sglang.launch_server\n      - --model-path\n      - {path}\n"
                       "      - --served-model-name\n      - qwen3-4b-instruct-2507\n      - --context-length\n"
                       '      - "131072"\n')
    assert not any(f["code"] == "KV105" for f in _checked(compose))


def test_a_wrapper_program_named_for_serving_the_engine_is_said_not_passed_over(tmp_path):
    """Turn 37's K328 (a Flox Deployment): `args: ["vllm-preflight && vllm-resolve-model && vllm-serve"]`, a program of
    the environment that runs `vllm serve` on its configured model. kvlint cannot read what the wrapper runs, so it
    says so at the program (KV008) rather than passing the file over; a file that only names `vllm-server` as a
    service is no such place."""
    path = tmp_path / "deployment.yaml"
    path.write_text("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: vllm\nspec:\n  template:\n    spec:\n"
                    "      containers:\n        - name: vllm\n          image: ghcr.io/flox/flox:latest\n"
                    "          command: [\"/bin/bash\", \"-c\"]\n          args:\n"
                    "            - vllm-preflight && vllm-serve\n")
    (said,) = [f for f in _checked(path) if f["code"] == "KV008"]
    assert (said["span"]["line"], said["span"]["col"]) == (13, 33)
    path.write_text(path.read_text().replace("vllm-preflight && vllm-serve", "curl http://vllm-server:8000/health"))
    assert not _checked(path)


def test_an_entry_point_handing_on_its_arguments_with_no_model_is_the_image(tmp_path):
    """K353 (an nginx-fronted SGLang image's `entrypoint.sh`): `python3 -m sglang.launch_server --host 0.0.0.0 --port
    8081 $@ &`. The script is an image's entry point (its name says so) and the model comes with the arguments the
    image is run with: the image, not a launch (counting rule 5), said by a KV008 info at the command. The same
    command in a script nothing names as an entry point stays a launch with its model open."""
    path = tmp_path / "entrypoint.sh"
    path.write_text("#!/bin/bash\nldconfig || true\npython3 -m sglang.launch_server --host 0.0.0.0 --port 8081 $@ &\n"
                    "exec nginx -g 'daemon off;'\n")
    result = read_path(str(path))
    assert result.deployments == []
    (said,) = [f for f in _checked(path) if f["code"] == "KV008"]
    assert said["span"]["line"] == 3
    other = tmp_path / "serve.sh"
    other.write_text(path.read_text())
    assert len(read_path(str(other)).deployments) == 1


def test_a_recipe_naming_its_model_by_hub_reads_it(tmp_path):
    """K353 (a deployment tool's recipe): `model: {huggingface: "nvidia/Kimi-K2.5-NVFP4"}` beside `engine: {llm:
    {sglang: {image: lmsysorg/sglang:v0.5.9}}}`. `model.huggingface` names the model as `model.hfId` does: the launch
    is read at it (a KV008 "no model key" before)."""
    path = tmp_path / "recipe.yaml"
    path.write_text('model:\n  huggingface: "nvidia/Kimi-K2.5-NVFP4"\n\nengine:\n  llm:\n    tensor_parallel_size: 4\n'
                    '    sglang:\n      image: "lmsysorg/sglang:v0.5.9"\n')
    (dep,) = read_path(str(path)).deployments
    assert (dep.engine, dep.model) == ("sglang", "nvidia/Kimi-K2.5-NVFP4")
    assert dep.model_span is not None and (dep.model_span.line, dep.model_span.col) == (2, 16)


def test_mpirun_programs_after_a_colon_are_not_the_engines_options(tmp_path):
    """K354 (xFasterTransformer's guide): `mpirun -n 1 numactl --all -C 0-47 -m 0 python -m
    vllm.entrypoints.openai.api_server --model M ... : -n 1 numactl --all -C 48-95 -m 1 python -m
    vllm.entrypoints.slave ...`. mpirun's `:` starts its next program: the engine's words end there (read past it,
    numactl's `--all` was a false "vLLM rejects --all" error)."""
    path = tmp_path / "run.sh"
    path.write_text("OMP_NUM_THREADS=48 mpirun \\\n  -n 1 numactl --all -C 0-47 -m 0 \\\n"
                    "    python -m vllm.entrypoints.openai.api_server --model Qwen/Qwen2-7B-Instruct --port 8000 \\\n"
                    "  : -n 1 numactl --all -C 48-95 -m 1 \\\n    python -m vllm.entrypoints.slave --model Qwen/Qwen2-7B-Instruct\n")
    (dep,) = read_path(str(path)).deployments
    assert dep.model == "Qwen/Qwen2-7B-Instruct" and not dep.unknown_flags
    assert not any(f["code"] == "KV004" for f in _checked(path))


def test_a_runbook_that_installs_a_vendor_fork_runs_it(tmp_path):
    """K354 (xFasterTransformer's `vllm-xft.md`): `pip install vllm-xft`, then `export $(python -c 'import
    xfastertransformer as xft; ...')` and `python -m vllm.entrypoints.openai.api_server ... --dtype bf16`. A runbook's
    commands run on a host with what the runbook installs, as a script's do: the fork's own parser takes `bf16`, so
    stock vLLM's refusal is an info naming the fork, not an error."""
    path = tmp_path / "vllm-xft.md"
    path.write_text("# vLLM-xFT\n```bash\npip install vllm-xft\n```\n```shell\n"
                    "export $(python -c 'import xfastertransformer as xft; print(xft.get_env())')\n"
                    "python -m vllm.entrypoints.openai.api_server --model Qwen/Qwen2-7B-Instruct --dtype bf16\n```\n")
    said = [f for f in _checked(path) if f["code"] == "KV007"]
    assert said and all(f["severity"] == "info" and "vllm-xft" in f["message"] for f in said)


def test_a_code_span_a_colon_introduces_at_the_end_of_its_line_is_a_command(tmp_path):
    """K355 (a README): "- Deploy DeepAnalyze-8B via vllm: `vllm serve DeepAnalyze-8B`", three times. A span the
    line's colon introduces and that ends the line is a command the runbook gives, when it names what it serves; a
    span inside a sentence, or one naming only the program, stays prose."""
    path = tmp_path / "README.md"
    path.write_text("# Demo\n\n- Deploy DeepAnalyze-8B via vllm: `vllm serve DeepAnalyze-8B`\n"
                    "- We use `vllm serve DeepAnalyze-8B` in the cloud too.\n- The command is: `vllm serve`\n")
    (dep,) = read_path(str(path)).deployments
    assert dep.model == "DeepAnalyze-8B" and dep.model_span is not None and dep.model_span.line == 3


def test_compose_spelled_entrypoint_and_command_are_one_argv(tmp_path):
    """K356 (a Tinfoil confidential-VM config): `containers: [{name: whisper, image: ..., entrypoint: ["vllm",
    "serve"], command: [MODEL, "--gpu-memory-utilization", "0.10"]}]`. The entry point runs with the command as its
    arguments, as `docker run --entrypoint` runs them: a launch (missed before)."""
    path = tmp_path / "tinfoil-config.yml"
    path.write_text('containers:\n  - name: "whisper"\n    image: "ghcr.io/org/models@sha256:00"\n    gpus: all\n'
                    '    entrypoint: ["vllm", "serve"]\n    command:\n      [\n        "openai/whisper-large-v3-turbo",\n'
                    '        "--gpu-memory-utilization",\n        "0.10",\n      ]\n')
    (dep,) = read_path(str(path)).deployments
    assert (dep.model, dep.get("gpu_memory_utilization")) == ("openai/whisper-large-v3-turbo", 0.10)
    assert dep.model_span is not None and dep.model_span.line == 8


def test_a_plugin_option_near_a_stock_one_is_the_plugins_to_settle(tmp_path):
    """K356: `vllm serve M --omni --log-stats` (vLLM-Omni's option, beside stock `--disable-log-stats`). The launch
    runs the plugin its switch names, which adds options: the near spelling is an info naming both, not the error a
    stock launch gets."""
    path = tmp_path / "serve.sh"
    path.write_text("#!/bin/bash\nvllm serve Qwen/Qwen3-8B --omni --log-stats\n")
    (said,) = [f for f in _checked(path) if f["code"] == "KV004" and f["data"]["flag"] == "--log-stats"]
    assert said["severity"] == "info" and "vllm-omni" in said["message"] and "--disable-log-stats" in said["message"]
    path.write_text("#!/bin/bash\nvllm serve Qwen/Qwen3-8B --log-stats\n")
    (stock,) = [f for f in _checked(path) if f["code"] == "KV004"]
    assert stock["severity"] == "error"
    # in the repository's own image (it can carry the plugin) the switch still decides; in vLLM's stock image it cannot
    compose = tmp_path / "docker-compose.yml"
    for image, severity in (("ghcr.io/org/models-omni:1", "info"), ("vllm/vllm-openai:v0.11.0", "error")):
        compose.write_text(f"services:\n  tts:\n    image: {image}\n    command: [\"vllm\", \"serve\", \"Qwen/Qwen3-8B\", "
                           "\"--omni\", \"--log-stats\"]\n")
        (got,) = [f for f in _checked(compose) if f["code"] == "KV004" and f["data"]["flag"] == "--log-stats"]
        assert got["severity"] == severity, image


def test_no_break_spaces_of_a_pasted_page_are_blanks_in_a_document(tmp_path):
    """K356 (an article pasted from a web editor): `python3\\u00a0-m\\u00a0sglang.launch_server\\u00a0...` in a code
    block. In a document a no-break space is the blank its reader sees: the command is read, each value at its column.
    In a script it stays one word with the flag (KV004 names the character)."""
    path = tmp_path / "article.md"
    path.write_text("```\npython3\u00a0-m\u00a0sglang.launch_server\u00a0--model-path\u00a0Qwen/Qwen3-8B\u00a0--tp\u00a02\n```\n")
    (dep,) = read_path(str(path)).deployments
    assert (dep.model, dep.get("tp_size")) == ("Qwen/Qwen3-8B", 2)
    assert dep.model_span is not None and (dep.model_span.line, dep.model_span.col) == (2, 46)


def test_a_quarto_document_is_walked_and_read_as_markdown(tmp_path):
    """K356 (a Quarto blog post, `index.qmd`): its code blocks are Markdown's; `.qmd` and `.rmd` were not walked."""
    path = tmp_path / "index.qmd"
    path.write_text("---\ntitle: spec decode\n---\n\n```shell\nvllm serve Qwen/Qwen3-32B --max-model-len 5000\n```\n")
    from kvlint.launches import iter_files

    assert [p for p, skip in iter_files([str(tmp_path)]) if skip is None] == [str(path)]
    (dep,) = read_path(str(path)).deployments
    assert (dep.model, dep.get("max_model_len")) == ("Qwen/Qwen3-32B", 5000)


def test_a_nixos_module_that_declares_its_options_is_a_template(tmp_path):
    """K356 (a NixOS module): `options.services.vllm.model = lib.mkOption { default = ...; }` and, under `config`,
    `cmd = [ "--model" cfg.model ... ]`. The module is a template its host configuration fills, as a Helm chart's
    template is (counting rule 7): no launch from `cfg.model`; a module that fixes its model is still one."""
    path = tmp_path / "vllm.nix"
    path.write_text('{ config, lib, ... }:\nlet cfg = config.services.vllm; in {\n  options.services.vllm = {\n'
                    '    model = lib.mkOption { type = lib.types.str; default = "Xenova/m"; };\n  };\n'
                    '  config = lib.mkIf cfg.enable {\n    virtualisation.oci-containers.containers.vllm = {\n'
                    '      image = "vllm/vllm-openai:latest";\n      cmd = [ "--model" cfg.model "--port" "8000" ];\n'
                    '    };\n  };\n}\n')
    assert read_path(str(path)).deployments == []
    path.write_text(path.read_text().replace('"--model" cfg.model', '"--model" "Qwen/Qwen3-8B"'))
    assert [d.model for d in read_path(str(path)).deployments] == ["Qwen/Qwen3-8B"]


def test_a_script_a_make_recipe_writes_with_echo_is_read(tmp_path):
    """K356 (a Makefile deploying to a GCE VM): `echo 'docker run -d --gpus all \\\\' >> startup_script.sh; \\` ...
    `echo "  --model /mnt/models/$(MODEL_PATH) \\\\" >> startup_script.sh; \\` then `gcloud compute instances create
    --metadata-from-file startup-script=startup_script.sh`. The written script runs on the VM: its command is a
    launch, each value at the recipe line that writes it, make's variables filled in."""
    path = tmp_path / "Makefile"
    path.write_text("MODEL_PATH ?= gemma-3-27b-it\n\ndeploy:\n"
                    "\techo '#!/bin/bash' > startup_script.sh; \\\n"
                    "\techo 'docker run -d --gpus all \\\\' >> startup_script.sh; \\\n"
                    "\techo '  vllm/vllm-openai:v0.11.0 \\\\' >> startup_script.sh; \\\n"
                    "\techo \"  --model /mnt/models/$(MODEL_PATH) \\\\\" >> startup_script.sh; \\\n"
                    "\techo '  --max-model-len 32768' >> startup_script.sh; \\\n"
                    "\tgcloud compute instances create vm --metadata-from-file startup-script=startup_script.sh\n")
    (dep,) = read_path(str(path)).deployments
    assert (dep.model, dep.get("max_model_len")) == ("/mnt/models/gemma-3-27b-it", 32768)
    assert dep.model_span is not None and dep.model_span.line == 7


def test_an_argument_list_whose_program_path_is_built_is_said(tmp_path):
    """K355 (a wrapper class): `return [sys.executable.removesuffix('/python') + '/vllm', 'serve', self.model_name,
    ...]`, run by a helper class elsewhere in the file. kvlint reads no launch from a list whose program is built at
    run time, but says so at the list (KV008) instead of passing the file over."""
    path = tmp_path / "wrapper.py"
    path.write_text("import sys\n\n\nclass W:\n    def args(self):\n        return [\n"
                    "            sys.executable.removesuffix('/python') + '/vllm',\n            'serve',\n"
                    "            self.model_name,\n        ]\n")
    (said,) = [f for f in _checked(path) if f["code"] == "KV008"]
    assert (said["span"]["line"], said["span"]["col"]) == (7, 13)


def test_a_nix_environment_of_engine_settings_is_said(tmp_path):
    """K352 (a NixOS host running a vendor's compose recipe): `settings = { MAX_MODEL_LEN = "1048576"; MAX_NUM_SEQS =
    "6"; VLLM_USE_FLASHINFER_SAMPLER = "1"; ... }`, the recipe's image turning them into the command. Nix's
    `KEY = "..."` is read as YAML's `KEY:` is: two engine settings make a KV008, never silence."""
    path = tmp_path / "host.nix"
    path.write_text('{ ... }: {\n  nixfleet.modules.dspark = {\n    enable = true;\n    settings = {\n'
                    '      VLLM_PORT = "8888";\n      MAX_MODEL_LEN = "1048576";\n      MAX_NUM_SEQS = "6";\n    };\n  };\n}\n')
    (said,) = [f for f in _checked(path) if f["code"] == "KV008"]
    assert said["span"]["line"] == 6


def test_an_asciidoc_source_paragraph_and_a_named_attribute_are_listings(tmp_path):
    """K359 (course pages): `[source,bash]` followed by a paragraph, no `----` (AsciiDoc makes the paragraph the
    listing), and `[source,role="execute"]` over a `----` block (a named attribute is no language: the block is an
    unlabelled one, read as a shell's)."""
    path = tmp_path / "page.adoc"
    path.write_text('= Page\n\n[source,bash]\npython -m vllm.entrypoints.api_server --model "org/m-70b" \\\n'
                    '  --tensor-parallel-size 2\n\nProse after.\n\n[source,role="execute"]\n----\n'
                    "vllm serve org/other --max-model-len 4096\n----\n")
    deps = read_path(str(path)).deployments
    assert [(d.model, d.model_span.line if d.model_span else None) for d in deps] == [("org/m-70b", 4),
                                                                                     ("org/other", 11)]


def test_an_llminferenceservice_without_a_template_serves_its_model_with_vllm(tmp_path):
    """K359 (course pages applying `LLMInferenceService`s): one with `model: {uri, name}` and `servingRuntime` only
    (the controller's default vLLM configuration serves it), one whose template is written as a pod template
    (`template: {spec: {containers: [{name: main, env: [VLLM_ADDITIONAL_ARGS ...]}]}}`): both launches."""
    path = tmp_path / "llmisvc.yaml"
    path.write_text("apiVersion: serving.kserve.io/v1alpha1\nkind: LLMInferenceService\nmetadata:\n  name: a\nspec:\n"
                    "  model:\n    uri: s3://models/nemotron\n    name: nvidia/nemotron-4-8b-instruct\n"
                    '  servingRuntime: "vllm-cuda-runtime"\n---\n'
                    "apiVersion: serving.kserve.io/v1alpha1\nkind: LLMInferenceService\nmetadata:\n  name: b\nspec:\n"
                    "  model:\n    uri: hf://org/m\n  template:\n    spec:\n      containers:\n        - name: main\n"
                    "          env:\n            - name: VLLM_ADDITIONAL_ARGS\n"
                    '              value: "--max-model-len=8192"\n')
    first, second = read_path(str(path)).deployments
    assert first.model_span is not None and first.model_span.line == 7
    assert second.get("max_model_len") == 8192


def test_a_device_id_left_to_an_unknown_variable_is_an_unknown_count(tmp_path):
    """K359 (a compose service): `device_ids: ["${GPU_ID_deepseek:?error}"]` beside `--tensor-parallel-size 2  #
    split across the 2 GPUs`. The variable may hold `0,1`: the count is unknown, so no KV204 "the instance requests
    1" error (wrong at measurement)."""
    path = tmp_path / "compose.yml"
    path.write_text("services:\n  ds:\n    image: vllm/vllm-openai:latest\n    entrypoint: [\n"
                    '      "vllm", "serve", "deepseek-ai/DeepSeek-R1-Distill-Qwen-32B",\n'
                    '      "--tensor-parallel-size", "2" # split across the 2 GPUs\n    ]\n    deploy:\n      resources:\n'
                    "        reservations:\n          devices:\n            - driver: nvidia\n"
                    '              device_ids: ["${GPU_ID:?error}"]\n')
    assert not any(f["code"] == "KV204" for f in _checked(path))


def test_a_markdown_python_block_a_writefile_magic_heads_is_that_file(tmp_path):
    """K360 (a tutorial pasting its notebook's cells): ```` ```python ```` blocks headed `%%writefile
    {dir}/ubiops.yaml` (YAML) and `%%writefile {dir}/deployment.py` (the program, `subprocess.Popen([self.vllm_path,
    "serve", self.model_name, ...])` with `self.vllm_path = find_executable("vllm")`). The magic line is IPython's and
    the YAML block is no Python: the program is read, its launch found (the YAML's lines had failed the whole
    program)."""
    path = tmp_path / "tutorial.md"
    path.write_text("# T\n```python\n%%writefile {dir_name}/ubiops.yaml\napt:\n  packages:\n    - build-essential\n"
                    "    - python3-dev\n    - git\n    - curl\n```\n\n```python\n%%writefile {dir_name}/deployment.py\n"
                    "import os\nimport subprocess\n\n\nclass Deployment:\n    def __init__(self):\n"
                    '        self.model_name = os.getenv("MODEL_NAME", "meta-llama/Llama-3.2-1B-Instruct")\n'
                    "        self.proc = self.start()\n\n    def start(self):\n"
                    '        self.vllm_path = find_executable("vllm")\n'
                    '        return subprocess.Popen([self.vllm_path, "serve", self.model_name, "--max-log-len", "1000"])\n'
                    "```\n")
    (dep,) = read_path(str(path)).deployments
    assert dep.engine == "vllm" and dep.launch_span is not None and dep.launch_span.line == 25


def test_a_command_pasted_between_single_backticks_over_lines_is_read(tmp_path):
    """K364 (a README): `` `docker run --runtime nvidia --gpus all \\`` ... ``vllm/vllm-openai:latest \\`` ...
    ``--model mistralai/Mistral-7B-v0.1` `` - one inline code span over seven lines, its lines' whole content: a
    pasted command, read as plain lines are (its image is the engine). A span inside a sentence is not opened."""
    path = tmp_path / "README.md"
    path.write_text("# Serve\n\n`docker run --runtime nvidia --gpus all \\\n    -p 8000:8000 \\\n"
                    "    vllm/vllm-openai:latest \\\n    --model mistralai/Mistral-7B-v0.1`\n")
    (dep,) = read_path(str(path)).deployments
    assert dep.model == "mistralai/Mistral-7B-v0.1" and dep.model_span is not None and dep.model_span.line == 6


def test_a_notebooks_bare_serve_line_is_the_engines_default_launch(tmp_path):
    """K364 (a notebook): `# facebook/opt-125m is the default model if no model is specified` then `!vllm serve`. As
    in a script, the engine started with no model and no flags serves its own default: a launch, said so."""
    import json

    path = tmp_path / "server.ipynb"
    cells = [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
              "source": ["# the default model\n", "!vllm serve"]}]
    path.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=1))
    (dep,) = read_path(str(path)).deployments
    assert dep.engine == "vllm" and any("default model" in n for n in dep.notes)


def test_a_script_file_handed_to_an_engine_named_build_is_a_program_it_runs(tmp_path):
    """K361 (a README): `docker run --gpus all ... vllm-triton-backend-$(id -un) /scripts/benchmark.py`. The build's
    name carries the engine, so words handed to it are read as the engine's; a script file as the first word is a
    program the image runs, never a model: no launch (one with model `/scripts/benchmark.py` before). The same image
    handed `-m vllm.entrypoints.openai.api_server --model M` is still a launch."""
    path = tmp_path / "run.sh"
    path.write_text("docker run --gpus all -it --rm -v $(pwd)/scripts:/scripts vllm-triton-backend:latest "
                    "/scripts/benchmark.py\n")
    assert read_path(str(path)).deployments == []
    path.write_text("docker run --gpus all vllm-triton-backend:latest -m vllm.entrypoints.openai.api_server "
                    "--model /models/granite\n")
    assert [d.model for d in read_path(str(path)).deployments] == ["/models/granite"]


def test_a_settings_map_naming_its_own_gpus_is_a_launch_of_the_engine_its_keys_spell(tmp_path):
    """K365 (a launcher tool's catalogue): `models: [{qwen-vl-4b-instruct: {model: M, gpus: [0],
    tensor-parallel-size: 1, gpu-memory-utilization: 0.90}}]`. A map of a model, keys only one engine's flags are
    spelled like, and the GPUs it runs on is a deployment of that engine, as the same map beside a values file's GPU
    request is (turn 29's K268). Without the GPUs (a settings file for anything) it is not."""
    path = tmp_path / "models.yaml"
    path.write_text("models:\n  - qwen-vl-4b-instruct:\n      model: Qwen/Qwen3-VL-4B-Instruct\n      gpus: [0]\n"
                    "      tensor-parallel-size: 1\n      gpu-memory-utilization: 0.90\n")
    (dep,) = read_path(str(path)).deployments
    assert (dep.engine, dep.model, dep.get("gpu_memory_utilization")) == ("vllm", "Qwen/Qwen3-VL-4B-Instruct", 0.90)
    path.write_text(path.read_text().replace("      gpus: [0]\n", ""))
    assert read_path(str(path)).deployments == []


def test_a_config_choosing_one_engine_beside_its_model_is_said_when_no_launch_is_read(tmp_path):
    """K366 (a benchmark harness's JSON): `{"framework": "vllm", "model": {"id": M}, "roles": {"server": {"serve_args":
    {...}}}}`. The harness starts the engine from it; kvlint reads no launch there, so it says so at the key that
    chooses the engine (KV008) rather than passing the file over. A thresholds file naming no model is not said."""
    path = tmp_path / "single.json"
    path.write_text('{\n  "framework": "vllm",\n  "model": {"id": "amd/Llama-3.1-70B-Instruct-FP8-KV"},\n'
                    '  "roles": {"server": {"serve_args": {"kv-cache-dtype": "fp8"}}}\n}\n')
    (said,) = [f for f in _checked(path) if f["code"] == "KV008"]
    assert said["span"]["line"] == 2 and "framework" in said["message"]
    path.write_text('{\n  "framework": "vllm",\n  "thresholds": {"ttft_ms": 100}\n}\n')
    assert not _checked(path)
