"""kvlint.launches.ray_cluster: a Ray cluster launcher file's docker blocks (sample J's `run_options -e` shape)."""

from __future__ import annotations

from kvlint.launches import read_path
from kvlint.launches.ray_cluster import _words
from kvlint.sources.yaml import parse_yaml
from tests.launches.test_docker_and_positional import FIX, _at


def test_head_and_worker_running_one_engine_build_are_one_launch_read_from_run_options():
    result = read_path(str(FIX / "raycluster" / "docker-run-options.yaml"))
    (dep,) = result.deployments
    assert (dep.engine, dep.model, _at(dep.model_span)) == ("vllm", "Qwen/Qwen2.5-3B-Instruct", (14, 34))
    assert (dep.get("max_model_len"), dep.get("enable_prefix_caching")) == (8192, True)
    assert _at(dep.span_of("max_model_len")) == (15, 56)
    assert dep.image == "team-vllm:test"


def test_a_cluster_on_rays_own_image_starts_no_engine():
    assert read_path(str(FIX / "raycluster" / "ray-image.yaml")).deployments == []


def test_run_option_words_keep_their_columns_and_drop_their_quotes():
    yf = parse_yaml("x.yaml", "o:\n  - '-e \"A=b c\" --gpus all'\n")
    words = _words(yf.docs[0].get("o").items[0])
    assert [(w.text, w.span.col, w.span.end_col) for w in words] == \
        [("-e", 6, 8), ("A=b c", 10, 15), ("--gpus", 17, 23), ("all", 24, 27)]


def test_kuberay_pods_on_an_engine_image_run_ray_not_the_images_entry_point():
    """Sample K130 (measured: two spurious launches, one of the model "source ..."): a RayService whose head and
    worker containers use vllm/vllm-openai with no engine command: KubeRay starts `ray start` in them, so the image's
    entry point (which would serve its default model) is not what runs; an engine command in a pod stays a launch."""
    text = ("apiVersion: ray.io/v1\nkind: RayService\nmetadata: {name: r}\nspec:\n  rayClusterConfig:\n"
            "    headGroupSpec:\n      template:\n        spec:\n          containers:\n"
            "            - name: ray-head\n              image: vllm/vllm-openai:latest\n"
            "    workerGroupSpecs:\n      - groupName: w\n        template:\n          spec:\n            containers:\n"
            "              - name: ray-worker\n                image: vllm/vllm-openai:latest\n"
            "                command: [\"source /usr/local/gib/scripts/set_nccl_env.sh\"]\n"
            "                resources: {limits: {nvidia.com/gpu: 8}}\n")
    assert read_path("rayservice.yaml", text).deployments == []
    served = text.replace("image: vllm/vllm-openai:latest\n    workerGroupSpecs",
                          "image: vllm/vllm-openai:latest\n              command: [vllm, serve, org/m]\n"
                          "    workerGroupSpecs")
    assert [d.model for d in read_path("rayservice.yaml", served).deployments] == ["org/m"]


def test_a_ray_serve_program_in_a_configmap_is_read_as_python():
    """Sample K185: the program a RayCluster runs kept in a ConfigMap's `serve_app.py: |`, configuring `LLMConfig`
    (vLLM, never named) was passed over in silence; it is read as a .py file is, each value at its place here."""
    (d,) = read_path(str(FIX / "ray" / "configmap-llmconfig.yaml")).deployments
    assert (d.engine, d.model, _at(d.model_span)) == ("vllm", "Qwen/Qwen2.5-0.5B-Instruct", (14, 30))
    assert (d.get("max_model_len"), _at(d.settings["max_model_len"].span)) == (2048, (18, 30))
