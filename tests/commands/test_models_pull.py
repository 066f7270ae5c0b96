"""`kvlint models pull` against a stand-in Hub on 127.0.0.1 (HF_ENDPOINT), run as a real subprocess so
huggingface_hub reads HF_HUB_OFFLINE=0 and the endpoint at import, as it does for a user."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest

from kvlint.models.resolve import clear_cache, resolve_model, source_kind
from tests.models.hubstandin import StandInHub, closed_port, require_loopback

TINY = {
    "architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 256, "num_attention_heads": 4,
    "num_key_value_heads": 2, "num_hidden_layers": 3, "intermediate_size": 512, "vocab_size": 1000,
    "max_position_embeddings": 4096, "torch_dtype": "bfloat16",
}
TOKEN = "hf_standInTokenForTests0123456789"


def run(args, env, cwd, timeout=60):
    started = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "kvlint", *args], capture_output=True, text=True, env=env,
                          cwd=cwd, timeout=timeout)
    return proc.returncode, proc.stdout, proc.stderr, time.monotonic() - started


@pytest.fixture
def tree(tmp_path):
    require_loopback()
    (tmp_path / ".git").mkdir()
    deploy = tmp_path / "deploy"
    deploy.mkdir()
    (deploy / "serve.sh").write_text("vllm serve acme/tiny-llama --max-model-len 2048\n")
    return tmp_path


def env_for(tmp_path, endpoint, token=None):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HF_", "HUGGINGFACE_"))}
    env.update(HF_ENDPOINT=endpoint, HF_HUB_OFFLINE="0", HF_HOME=str(tmp_path / "hf-home"),
               HF_HUB_CACHE=str(tmp_path / "hf-cache"), HF_HUB_DISABLE_TELEMETRY="1", HF_HUB_DISABLE_XET="1")
    if token:
        env["HF_TOKEN"] = token
    return env


def test_pull_fetches_config_and_check_then_resolves_offline(tree, monkeypatch):
    quant = json.dumps({"quantization": {"quant_algo": "FP8"}}).encode()
    with StandInHub({"acme/tiny-llama": {"config.json": json.dumps(TINY).encode(),
                                         "hf_quant_config.json": quant, "model.safetensors": b"w" * 64}}) as hub:
        code, out, err, _ = run(["models", "pull", "deploy"], env_for(tree, hub.endpoint), tree)
    assert code == 0, (out, err)
    assert "pulled  acme/tiny-llama (config.json, hf_quant_config.json)" in out
    assert "1 model(s): 1 pulled, 0 already known offline, 0 failed" in out
    fetched = {path.rsplit("/", 1)[-1] for _, path, _ in hub.requests}
    assert fetched == {"config.json", "hf_quant_config.json", "quantize_config.json"}  # never the weights
    monkeypatch.setenv("HF_HUB_CACHE", str(tree / "hf-cache"))
    clear_cache()
    spec = resolve_model("acme/tiny-llama")  # offline: the test session runs with HF_HUB_OFFLINE=1
    assert source_kind(spec) == "hf-cache" and spec.num_layers == 3 and spec.quant.method == "modelopt"
    clear_cache()


def test_token_is_sent_and_never_printed(tree):
    with StandInHub({"acme/tiny-llama": {"config.json": json.dumps(TINY).encode()}}) as hub:
        code, out, err, _ = run(["models", "pull", "deploy"], env_for(tree, hub.endpoint, TOKEN), tree)
    assert code == 0, (out, err)
    assert hub.requests and all(auth == f"Bearer {TOKEN}" for _, _, auth in hub.requests)
    assert TOKEN not in out and TOKEN not in err


def test_missing_model_is_one_clear_line_and_exit_1(tree):
    (tree / "deploy" / "other.sh").write_text("vllm serve acme/never-published-7b\n")
    with StandInHub({"acme/tiny-llama": {"config.json": json.dumps(TINY).encode()}}) as hub:
        code, out, err, _ = run(["models", "pull", "deploy"], env_for(tree, hub.endpoint, TOKEN), tree)
    assert code == 1
    lines = [line for line in out.splitlines() if "never-published" in line]
    assert lines == ["failed  acme/never-published-7b: acme/never-published-7b: no such model on the Hub "
                     "(or it is private and no valid HF_TOKEN is set)"]
    assert "1 pulled, 0 already known offline, 1 failed" in out and TOKEN not in out + err


def test_known_models_need_no_hub(tree):
    (tree / "deploy" / "serve.sh").write_text("vllm serve Qwen/Qwen3-8B\n")
    code, out, _, _ = run(["models", "pull", "deploy"], env_for(tree, f"http://127.0.0.1:{closed_port()}"), tree)
    assert code == 0 and "known   Qwen/Qwen3-8B (bundled:Qwen/Qwen3-8B)" in out


def test_unreachable_endpoint_fails_fast_with_one_note(tree):
    (tree / "deploy" / "more.sh").write_text("vllm serve acme/a-7b\nvllm serve acme/b-7b\nvllm serve acme/c-7b\n")
    code, out, err, _ = run(["models", "pull", "deploy"], env_for(tree, f"http://127.0.0.1:{closed_port()}"),
                                  tree, timeout=30)
    assert code == 1  # fast because nothing is retried: one refused connection, then every model fails at once
    assert err.count("Hugging Face Hub is unreachable") == 1 and "Retry" not in err
    assert out.count("failed  ") == 4 and "4 failed" in out


def test_usage_error_exit_2(tree):
    code, _, err, _ = run(["models", "pull", "--no-such-option"], env_for(tree, "http://127.0.0.1:9"), tree)
    assert code == 2 and "no-such-option" in err
