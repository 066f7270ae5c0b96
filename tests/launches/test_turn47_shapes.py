"""Shapes the turn-47 samples showed kvlint misreading, each read by a mechanism, not a case: every test writes the
shape small, with what it must give (and what it must not)."""

from __future__ import annotations

import pytest

from kvlint.findings import Severity
from kvlint.launches import read_path
from kvlint.launches.build import version_from_image
from kvlint.lint import LintOptions, lint
from tests.launches.shapes import write as _write


@pytest.mark.parametrize(("image", "release"), [
    ("vllm/vllm-openai:v0.8.5", "0.8.5"), ("vllm/vllm-openai-rocm:v0.26.0", "0.26.0"),
    ("vllm/vllm-openai-cpu:v0.21.0", "0.21.0"), ("vllm-rocm-gfx1151:v0.9.0", "0.9.0"),
    ("lmsysorg/sglang-rocm:v0.5.16-rocm720-mi35x-20260731", "0.5.16"),
    ("public.ecr.aws/q9t5s3a7/vllm-cpu-release-repo:v0.8.4", "0.8.4"),
    # images of their own, named after the engine they are built on: their tags version themselves
    ("sglang-qwen38-flash-next-sm120:v0.1.0-rc.9", None), ("nvcr.io/nvidia/ai-dynamo/sglang-runtime:0.8.1", None),
    ("registry.redhat.io/rhaiis/vllm-rocm-rhel9:3.2.5", None), ("aibrix/sglang-router:v0.1.6", None),
    ("quay.io/rh-aiservices-bu/vllm-cpu-openai-ubi9:0.3", None),
])
def test_only_the_engines_own_images_tag_its_release(image: str, release: str | None) -> None:
    """Turn 47's K482 (measured: a KV005 warning "SGLang 0.1.0 (pinned) ..."): a project's image built on SGLang,
    `sglang-qwen38-flash-next-sm120:v0.1.0-rc.9`, was read as SGLang 0.1.0 because its name starts with `sglang`.
    A repository carries the engine's release in its tag when it is the engine's image or that name with
    build-variant words (a platform, an architecture, a channel); any other word makes it an image of its own."""
    assert version_from_image(image) == release


def test_a_projects_own_engine_image_leaves_the_release_open(tmp_path):
    path = _write(tmp_path, "serve.sh", "IMAGE=${IMAGE:-sglang-qwen38-flash-next-sm120:v0.1.0-rc.9}\n"
                  "exec docker run --rm --gpus all --entrypoint sglang \"$IMAGE\" serve --model-path /models/q \\\n"
                  "  --tp 2 --cuda-graph-max-bs 32\n")
    (dep,) = read_path(path).deployments
    assert (dep.engine, dep.engine_version) == ("sglang", None)


def test_a_projects_own_engine_image_pins_no_release(tmp_path):
    """The same script checked: the removed flag is judged with the release open (an info), not on "SGLang 0.1.0"."""
    path = _write(tmp_path, "serve.sh", "IMAGE=${IMAGE:-sglang-qwen38-flash-next-sm120:v0.1.0-rc.9}\n"
                  "exec docker run --rm --gpus all --entrypoint sglang \"$IMAGE\" serve --model-path /models/q \\\n"
                  "  --tp 2 --cuda-graph-max-bs 32\n")
    (found,) = lint([path], LintOptions(select=("KV005",))).findings
    assert found.severity is Severity.INFO and "SGLang 0.1.0" not in found.message, found.message
    assert "pins no SGLang release" in found.message


_EXPERIMENT = """name: step-rate
deployment:
  application_name: bench
  model_id: org/small-model
  route_prefix: /
  engine:
    tensor_parallel_size: 2
    max_model_len: 10000
    gpu_memory_utilization: 0.95
    max_num_seqs: 128
  autoscaling:
    min_replicas: 1
    max_replicas: 4
  max_ongoing_requests: 8192
"""


def test_a_serving_deployments_engine_map_is_its_launch(tmp_path):
    """Turn 47's K480 (silent): a harness's experiment config names the model beside an `engine:` map of vLLM-only
    option keys and the deployment's replicas and their autoscaling. The engine map's keys name the engine (as keys
    beside the model do); the replicas say it is a server (an offline run has none)."""
    (dep,) = read_path(_write(tmp_path, "experiment.yaml", _EXPERIMENT)).deployments
    assert (dep.engine, dep.model, dep.get("tensor_parallel_size"), dep.get("max_model_len")) == \
        ("vllm", "org/small-model", 2, 10000)


def test_an_offline_runs_engine_map_is_not_a_launch(tmp_path):
    """The same keys with no replica, autoscaling or route: an evaluation's in-process engine settings."""
    offline = "\n".join(line for line in _EXPERIMENT.splitlines()
                        if not any(w in line for w in ("route_prefix", "autoscaling", "replicas", "ongoing")))
    assert read_path(_write(tmp_path, "eval.yaml", offline + "\n")).deployments == []


_BENTO = '''import bentoml
MODEL_ID = "org/bento-model"


@bentoml.service(resources={"gpu": 1})
class VLLM:
    @bentoml.on_startup
    async def init_engine(self):
        import vllm.entrypoints.openai.api_server as vllm_api_server
        from vllm.entrypoints.openai.cli_args import make_arg_parser
        from vllm.utils import FlexibleArgumentParser

        args = make_arg_parser(FlexibleArgumentParser()).parse_args(["--max-model-len", "8192", "-tp", "2"])
        args.model = MODEL_ID
        self.engine = await self.stack.enter_async_context(vllm_api_server.build_async_engine_client(args))
        self.vllm_config = await self.engine.get_vllm_config()
        await vllm_api_server.init_app_state(self.engine, self.vllm_config, app.state, args)
'''


def test_a_host_framework_running_the_servers_start_up_steps_is_a_launch(tmp_path):
    """Turn 47's K487 (silent): a BentoML service parses `vllm serve`'s own arguments, then runs the API server's
    start-up steps on its own app (`build_async_engine_client(args)`, `init_app_state(...)`) instead of `run_server`:
    the OpenAI server on those arguments, placed where the engine starts. Parsing alone starts nothing."""
    (dep,) = read_path(_write(tmp_path, "service.py", _BENTO)).deployments
    assert (dep.engine, dep.launch_span.line, dep.get("max_model_len"), dep.get("tensor_parallel_size")) == \
        ("vllm", 15, 8192, 2)
    parsed_only = _BENTO.split("        self.engine")[0]
    assert read_path(_write(tmp_path, "parse.py", parsed_only)).deployments == []


_RUNPY = """import runpy
import sys


def main():
    argv = [
        "vllm.entrypoints.openai.api_server",
        "--model",
        "org/runpy-model",
        "--tensor-parallel-size",
        "2",
    ]
    sys.argv = argv
    runpy.run_module("vllm.entrypoints.openai.api_server", run_name="__main__")
"""


def test_sys_argv_set_to_a_named_list_runs_the_engines_module_on_it(tmp_path):
    """Turn 47's K489 (read by its flags at the list, "a program kvlint does not know", and counted at the wrong
    place): `argv = [module, --flags ...]` then `sys.argv = argv` and `runpy.run_module(module)` is `python -m module`
    on those words, as the list written in the assignment is (sample K217)."""
    (dep,) = read_path(_write(tmp_path, "launch.py", _RUNPY)).deployments
    assert (dep.engine, dep.model, dep.get("tensor_parallel_size"), dep.launch_span.line) == \
        ("vllm", "org/runpy-model", 2, 13)
    assert not any("does not know" in note for note in dep.notes)


def test_an_engine_named_image_asked_a_switch_alone_serves_nothing(tmp_path):
    """Turn 47's K489 (a launch counted with no model): `docker run vllm-moet-recipes:v024 --list` asks the image's
    entry point for its list and exits; the same image given a recipe is its launch, and an entry point's own options
    with values (sample K304: `-m /models/main -p 8009`) still are."""
    text = ("docker run --rm vllm-moet-recipes:v024 --list\n"
            "docker run --rm --gpus all vllm-moet-recipes:v024 glm/recipe-a\n"
            "docker run --rm --gpus all open-audio-llm/vllm-serving -m /models/main -p 8009\n")
    found = read_path(_write(tmp_path, "run.sh", text)).deployments
    assert [d.launch_span.line for d in found] == [2, 3]


def test_arguments_handed_to_an_engine_named_image_are_placed_at_the_image(tmp_path):
    """Turn 47's K493 (a launch with no place: its findings had no line): a Deployment's `image: vllm-neuron:latest`
    given `args:` of vLLM flags only, the model in the environment its entry point reads. The launch is at the image."""
    text = ("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: v\nspec:\n  template:\n    spec:\n"
            "      containers:\n      - name: vllm\n        image: vllm-neuron:latest\n        args:\n"
            "        - \"--max-model-len\"\n        - \"4096\"\n        - \"--tensor-parallel-size\"\n        - \"2\"\n"
            "        env:\n        - name: HF_MODEL_ID\n          value: org/neuron-model\n")
    (dep,) = read_path(_write(tmp_path, "deployment.yaml", text)).deployments
    assert dep.launch_span is not None and dep.launch_span.line == 10
    assert (dep.get("max_model_len"), dep.get("tensor_parallel_size")) == (4096, 2)


def test_a_build_tagged_with_the_engines_name_and_a_model_variable_is_a_launch(tmp_path):
    """Turn 47's K494 (said, KV008): a compose service builds `vllm-tt:latest` from `.`, maps Tenstorrent's device
    and sets `HF_MODEL` and `TT_METAL_RESET_DEVICES`: the build's entry point serves that model on a Tenstorrent card
    (a device kvlint does not size over GPUs). A service of the same build with no accelerator is not read."""
    text = ("services:\n  tt:\n    build:\n      context: .\n    image: vllm-tt:latest\n    devices:\n"
            "      - /dev/tenstorrent:/dev/tenstorrent\n    environment:\n      - HF_MODEL=${HF_MODEL:-Qwen/Qwen3-0.6B}\n"
            "      - TT_METAL_RESET_DEVICES=1\n")
    (dep,) = read_path(_write(tmp_path, "compose.yml", text)).deployments
    assert (dep.engine, dep.model, dep.gpu) == ("vllm", "Qwen/Qwen3-0.6B", "tenstorrent")
    plain = text.replace("    devices:\n      - /dev/tenstorrent:/dev/tenstorrent\n", "")
    assert read_path(_write(tmp_path, "plain.yml", plain)).deployments == []


def test_a_compose_service_without_a_services_key_is_read(tmp_path):
    """Turn 47's K497 (silent): a Markdown ```yaml block holding one compose service alone (`vllm-glm5: {image: ...,
    command: > /data/GLM-5-FP8 --tensor-parallel-size 8}`), the shape of a format-1 compose file too, whose launch
    had no place. Chart values whose image is a map, or with scalars at the top, are not services."""
    doc = ("# Deploy\n\n```yaml\nvllm-glm5:\n  image: vllm-glm5:cu130\n  devices:\n    - nvidia.com/gpu=all\n"
           "  command: >\n    /data/GLM-5-FP8\n    --tensor-parallel-size 8\n```\n")
    (dep,) = read_path(_write(tmp_path, "notes.md", doc)).deployments
    assert (dep.engine, dep.model, dep.get("tensor_parallel_size"), dep.launch_span.line) == \
        ("vllm", "/data/GLM-5-FP8", 8, 8)
    v1 = "vllm:\n  image: vllm/vllm-openai:v0.8.5\n  command: --model org/m --tensor-parallel-size 2\n"
    (old,) = read_path(_write(tmp_path, "docker-compose.yml", v1)).deployments
    assert (old.model, old.launch_span is not None) == ("org/m", True)
    values = "replicaCount: 1\nvllm:\n  image:\n    repository: vllm/vllm-openai\n  command: [--model, org/m]\n"
    from kvlint.launches.compose import is_compose
    from kvlint.sources.yaml import parse_yaml

    assert not is_compose(parse_yaml("values.yaml", values).docs[0])
