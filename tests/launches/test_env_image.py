"""A custom engine image configured by its environment (kvlint.launches.env_launch): a container or chart values
whose image is a build named for the engine, no command, a model variable and a GPU request. Fixtures in
tests/fixtures/launches/envimage."""

from __future__ import annotations

from pathlib import Path

from kvlint.launches import read_path
from kvlint.launches.env_launch import named_engine

FIX = Path(__file__).resolve().parent.parent / "fixtures" / "launches" / "envimage"


def _at(span):
    return (span.line, span.col)


def test_kubernetes_container_env_is_the_launch():
    (d,) = read_path(str(FIX / "deployment.yaml")).deployments
    assert (d.engine, d.model, _at(d.model_span), d.gpu_count) == ("vllm", "org/env-model", (13, 22), 2)
    assert d.get("max_model_len") == 16384 and _at(d.settings["max_model_len"].span) == (15, 22)
    assert d.get("tensor_parallel_size") == 2 and _at(d.settings["tensor_parallel_size"].span) == (17, 22)
    assert d.image == "ghcr.io/org/foo-vllm-docker:latest" and d.unknown_flags == ()
    assert any("custom build of the engine" in n for n in d.notes)


def test_helm_values_env_map_is_the_launch():
    (d,) = read_path(str(FIX / "values.yaml")).deployments
    assert (d.engine, d.model, _at(d.model_span), d.gpu_count) == ("vllm", "org/values-env-model", (5, 15), 1)
    assert d.get("gpu_memory_utilization") == 0.9 and _at(d.settings["gpu_memory_utilization"].span) == (6, 27)
    assert d.get("max_model_len") == 8192 and _at(d.settings["max_model_len"].span) == (7, 18)


def test_no_gpu_request_or_an_official_image_is_not_read_from_env():
    no_gpu = "image: ghcr.io/org/foo-vllm:1\nenv:\n  MODEL: org/m\n"
    assert read_path("values.yaml", no_gpu).deployments == []
    assert named_engine("vllm/vllm-openai:v0.9.0") is None and named_engine("lmsysorg/sglang:latest") is None
    assert named_engine("ghcr.io/org/foo-vllm-docker:latest") == "vllm" and named_engine("org/web:1") is None


def test_an_image_named_for_a_program_around_the_engine_is_not_the_engine():
    """A router, simulator, benchmark or gateway named for the engine (`vllm-router`, `vllm-sim`, `sglang-router`)
    runs another program: its flags and environment are not the engine's (issue N: K4's simulator)."""
    for image in ("ghcr.io/org/vllm-router:1.0", "lmsysorg/sglang-router:latest", "team/vllm-sim:0.1",
                  "org/vllm_bench:2"):
        assert named_engine(image) is None, image
    assert named_engine("org/vllm-spark:latest") == "vllm"


def test_a_container_running_a_script_named_for_the_engine_reads_its_model_from_env(tmp_path):
    """Sample K105 (PolyRL): `command: ["bash", "launch_sglang.sh"]` in any image, `SGLANG_MODEL_NAME` in env, two
    GPUs: the launch, its parallelism left to the script (whose own default is --tp-size 2: no KV204 on 1)."""
    path = tmp_path / "deploy.yaml"
    path.write_text("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: rollout\nspec:\n  template:\n"
                    "    spec:\n      containers:\n      - name: rollout\n        image: org/rollout:v1\n"
                    "        command: [\"bash\", \"launch_sglang.sh\"]\n        env:\n"
                    "        - name: SGLANG_MODEL_NAME\n          value: \"Qwen/Qwen3-8B\"\n"
                    "        resources:\n          limits:\n            nvidia.com/gpu: \"2\"\n")
    (d,) = read_path(str(path)).deployments
    assert (d.engine, d.model, _at(d.model_span), d.gpu_count) == ("sglang", "Qwen/Qwen3-8B", (14, 18), 2)
    assert "tp_size" in d.settings and not d.settings["tp_size"].resolved
    plain = path.read_text().replace("launch_sglang.sh", "train.sh")
    path.write_text(plain)
    assert read_path(str(path)).deployments == []


def test_values_whose_own_engine_variables_name_model_and_flags_are_a_launch_without_a_gpu_request(tmp_path):
    """Sample K105 (a Vast.ai template): `image: vastai/vllm`, `VLLM_MODEL` and `VLLM_ARGS: --flags` in `env:`,
    its GPU chosen by the platform's filters: the engine's own variables say the launch."""
    path = tmp_path / "template.yml"
    path.write_text("name: smoke\nimage: vastai/vllm\ntag: latest\nenv:\n  OPEN_BUTTON_PORT: \"1111\"\n"
                    "  VLLM_MODEL: \"Qwen/Qwen2.5-0.5B-Instruct\"\n"
                    "  VLLM_ARGS: \"--enforce-eager --max-model-len 4096 --port 18000\"\n")
    (d,) = read_path(str(path)).deployments
    assert (d.engine, d.model, d.get("max_model_len"), _at(d.settings["max_model_len"].span)) == \
        ("vllm", "Qwen/Qwen2.5-0.5B-Instruct", 4096, (7, 14))


def test_a_gpu_container_of_an_image_whose_tag_names_the_engine_is_configured_by_its_env(tmp_path):
    """Sample K123 (measured: a KV008 only): `image: richardxgf/amd:rocm7-vllm-001` with `MODEL` in `env:` and
    `amd.com/gpu: 8`, no command: the build's entry point starts vLLM from the environment, its parallelism the
    entry point's (open, so no KV204 "7 GPUs idle"). Without a GPU request the tag is no evidence."""
    from kvlint.launches import read_path

    p = tmp_path / "deploy.yaml"
    body = ("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: v\nspec:\n  template:\n    spec:\n"
            "      containers:\n      - name: v\n        image: docker.io/someone/amd:rocm7-vllm-001\n        env:\n"
            "        - name: MODEL\n          value: org/m\n{resources}")
    p.write_text(body.format(resources="        resources:\n          limits:\n            amd.com/gpu: 8\n"))
    (dep,) = read_path(str(p)).deployments
    assert (dep.engine, dep.model, dep.gpu_count) == ("vllm", "org/m", 8)
    assert dep.settings["tensor_parallel_size"].resolved is False
    p.write_text(body.format(resources=""))
    assert read_path(str(p)).deployments == []


def test_a_vendors_word_before_the_engines_prefix_is_the_same_convention(tmp_path):
    """Sample K175's guide: `docker run --gpus all -e SM_VLLM_MODEL=M -e SM_VLLM_TENSOR_PARALLEL_SIZE=8 ...
    vllm_env:v0.9.0`, an image built on SageMaker's convention (its entry point turns each `SM_VLLM_X` into `--x`):
    the model and the flags are read through the vendor's word as through `VLLM_`; a word that is no prefix of the
    engine's (`SM_MODEL`) is not: the run is then the image's own command, its model left open."""
    p = tmp_path / "guide.sh"
    run = ("docker run --gpus all \\\n  -e {model}=org/sm \\\n  -e SM_VLLM_TENSOR_PARALLEL_SIZE=2 \\\n"
           "  -e SM_VLLM_MAX_MODEL_LEN=32768 \\\n  vllm_env:v0.9.0\n")
    p.write_text(run.format(model="SM_VLLM_MODEL"))
    (d,) = read_path(str(p)).deployments
    assert (d.model, d.get("tensor_parallel_size"), d.get("max_model_len")) == ("org/sm", 2, 32768)
    assert d.settings["max_model_len"].span.line == 4
    p.write_text(run.format(model="SM_OTHER_MODEL"))
    # no model variable of the convention: the image's own command serves a model chosen inside it (sample K243)
    (d,) = read_path(str(p)).deployments
    assert (d.model_resolved, d.get("tensor_parallel_size")) == (False, None)


def test_a_hub_repo_id_variable_names_the_model_of_a_build_named_for_the_engine():
    """Sample K199's runbook: `docker run -d -e REPO_ID="org/m" --gpus device=1 ${ACR}/opencsghq/vllm:v0.24.0`, the
    image's entry point serving the Hub repository the variable names: a launch with that model (it was passed over
    in silence); the same run of a TGI build is none."""
    from kvlint.launches import read_path

    text = ('```bash\nACR=registry.example.com\ndocker run -d \\\n  -e ACCESS_TOKEN=xxx \\\n'
            '  -e REPO_ID="org/repo-model" \\\n  --gpus device=1 \\\n  ${ACR}/opencsghq/vllm:v0.24.0\n```\n')
    (d,) = read_path("README.md", text).deployments
    assert (d.engine, d.model, d.model_span.line, d.image) == ("vllm", "org/repo-model", 5,
                                                               "registry.example.com/opencsghq/vllm:v0.24.0")
    assert read_path("README.md", text.replace("/vllm:", "/tgi:")).deployments == []


def test_an_image_named_for_a_remote_engine_is_its_client():
    """Sample K207's runbook (a wrong KV004 error on `--yaml-config`): `docker run ... llamastack/distribution-remote-
    vllm:0.0.54 --yaml-config /root/my-run.yaml --port ...`, llama-stack's distribution that calls a vLLM served
    elsewhere: `remote` in an image's name says it is a client of the engine, as `client` and `router` do."""
    from kvlint.launches import read_path
    from kvlint.launches.images import build_named_engine

    text = ("```bash\nsudo docker run -it --net=host \\\n  llamastack/distribution-remote-vllm:0.0.54 \\\n"
            "  --yaml-config /root/my-run.yaml \\\n  --port 5001\n```\n")
    assert read_path("COMMANDS.md", text).deployments == []
    assert build_named_engine("llamastack/distribution-remote-vllm:0.0.54") is None
    assert build_named_engine("org/vllm-server:1.0") == "vllm"
