"""A script that starts a Ray node before the engine: the engine's ranks run on the Ray cluster, so this host's
CUDA_VISIBLE_DEVICES does not count the launch's GPUs (a reviewer's table row: KV204 said PP 2 had 1 GPU)."""

from pathlib import Path

from kvlint.launches import read_path
from kvlint.lint import LintOptions, lint

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "launches" / "ray" / "head_and_pp.sh"


def test_the_launch_after_ray_start_does_not_take_this_hosts_devices():
    [dep] = read_path(str(FIXTURE)).deployments
    assert dep.model == "Qwen/Qwen2.5-7B-Instruct" and dep.model_span is not None and dep.model_span.line == 4
    assert dep.gpu_count is None and any("Ray cluster started at line 3" in n for n in dep.notes)
    assert not [f for f in lint([str(FIXTURE)], LintOptions()).findings if f.code == "KV204"]


def test_without_ray_start_the_devices_count(tmp_path):
    script = tmp_path / "s.sh"
    script.write_text(FIXTURE.read_text().replace("ray start --head --port 6379\n", ""))
    [dep] = read_path(str(script)).deployments
    assert dep.gpu_count == 1
    [f] = [f for f in lint([str(script)], LintOptions()).findings if f.code == "KV204"]
    assert str(f.severity) == "error"


def test_llm_configs_under_any_key_of_a_serve_apps_args():
    """Sample G: a Serve config whose P/D builder takes `prefill_config` and `decode_config` (two LLMConfigs, no
    `llm_configs` list) gave no launch and no note. An LLMConfig is a map with a model_loading_config, wherever
    the application's args hold it."""
    from pathlib import Path

    from kvlint.launches import read_path

    path = Path(__file__).resolve().parent.parent / "fixtures" / "launches" / "ray" / "pd-serve.yaml"
    prefill, decode = read_path(str(path)).deployments
    assert (prefill.model, prefill.get("max_model_len"), prefill.get("tensor_parallel_size")) == (
        "Qwen/Qwen2.5-7B-Instruct", 8192, 2)
    assert (decode.get("max_model_len"), decode.get("tensor_parallel_size")) == (16384, 1)
    assert (prefill.model_span.line, decode.settings["max_model_len"].span.line) == (10, 19)
