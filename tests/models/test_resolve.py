"""resolve_model: reference forms, the real Hugging Face cache layout, overrides, and the fallback order."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from kvlint.errors import UnknownModelError
from kvlint.models.resolve import candidate_ids, clear_cache, resolve_model, source_kind, split_revision

TINY = {
    "architectures": ["LlamaForCausalLM"],
    "model_type": "llama",
    "num_hidden_layers": 3,
    "hidden_size": 256,
    "num_attention_heads": 4,
    "num_key_value_heads": 2,
    "intermediate_size": 512,
    "vocab_size": 1000,
    "max_position_embeddings": 4096,
    "torch_dtype": "bfloat16",
}
SNAPSHOT = "0123456789abcdef0123456789abcdef01234567"


@pytest.fixture(autouse=True)
def _fresh():
    clear_cache()
    yield
    clear_cache()


def make_hub_cache(root: Path, repo_id: str, config: dict, extra: dict | None = None) -> Path:
    """The folder layout huggingface_hub writes: models--org--name/{refs/main, snapshots/<sha>/...}."""
    repo = root / ("models--" + repo_id.replace("/", "--"))
    snap = repo / "snapshots" / SNAPSHOT
    snap.mkdir(parents=True)
    (snap / "config.json").write_text(json.dumps(config))
    for name, content in (extra or {}).items():
        (snap / name).write_text(json.dumps(content))
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text(SNAPSHOT)
    return snap


@pytest.mark.parametrize(
    ("ref", "ids"),
    [
        ("hf://org/name", ["org/name"]),
        ("org/name", ["org/name"]),
        ("s3://bucket/weights/Qwen/Qwen3-8B/", ["Qwen/Qwen3-8B"]),
        ("pvc://model-store/meta-llama/Llama-3.1-8B-Instruct", ["meta-llama/Llama-3.1-8B-Instruct"]),
        ("/models/Org/Name", ["Org/Name"]),
        ("https://huggingface.co/meta-llama/Llama-3.3-70B-Instruct/commit/abc", ["meta-llama/Llama-3.3-70B-Instruct"]),
        ("name-only", []),
    ],
)
def test_candidate_ids(ref, ids):
    assert candidate_ids(ref) == ids


def test_split_revision():
    assert split_revision("org/name@v1.0") == ("org/name", "v1.0")
    assert split_revision("org/name") == ("org/name", None)
    assert split_revision("s3://user@bucket/org/name") == ("s3://user@bucket/org/name", None)


@pytest.mark.parametrize(
    ("ref", "model_id", "kind"),
    [
        ("Qwen/Qwen3-8B", "Qwen/Qwen3-8B", "bundled"),
        ("qwen/qwen3-8b", "Qwen/Qwen3-8B", "bundled"),
        ("hf://Qwen/Qwen3-32B", "Qwen/Qwen3-32B", "bundled"),
        ("Qwen/Qwen3-32B@main", "Qwen/Qwen3-32B", "bundled"),
        ("s3://bucket/models/meta-llama/Llama-3.1-8B-Instruct/", "meta-llama/Llama-3.1-8B-Instruct", "bundled"),
        ("pvc://store/deepseek-ai/DeepSeek-V3", "deepseek-ai/DeepSeek-V3", "bundled"),
        ("/models/google/gemma-3-27b-it", "google/gemma-3-27b-it", "path-name"),
        ("/mnt/weights/Llama-3.1-8B-Instruct", "meta-llama/Llama-3.1-8B-Instruct", "path-name"),
    ],
)
def test_bundled_registry_reference_forms(ref, model_id, kind):
    """Remote store URLs name the id; a local path that is not on disk says the id was read from the path."""
    spec = resolve_model(ref)
    assert spec.model_id == model_id and source_kind(spec) == kind, spec.source
    assert f"bundled:{model_id}" in spec.source


def test_aliases_say_so_in_the_source():
    spec = resolve_model("NousResearch/Meta-Llama-3-8B-Instruct")
    assert spec.model_id == "meta-llama/Meta-Llama-3-8B" and "by alias" in spec.source
    chat = resolve_model("google/gemma-2-27b")  # registry has only the -it variant
    assert chat.model_id == "google/gemma-2-27b-it" and "by alias" in chat.source


def test_quantized_variants_are_not_aliased_to_unquantized_configs():
    with pytest.raises(UnknownModelError):
        resolve_model("someone/Qwen2.5-72B-Instruct-AWQ")  # no convention of that publisher: unknown, not bf16
    qwen_awq = resolve_model("Qwen/Qwen2.5-72B-Instruct-AWQ")  # Qwen's own: AutoAWQ's block on the bundled base
    assert qwen_awq.source.startswith("derived:") and qwen_awq.quant is not None and qwen_awq.quant.bits == 4
    for ref in ("RedHatAI/Meta-Llama-3.1-8B-Instruct-FP8", "neuralmagic/Llama-3.1-8B-Instruct-FP8"):
        spec = resolve_model(ref)  # derived: the base's shapes with the publisher's fp8 block, never bf16
        assert spec.source.startswith("derived:") and spec.quant is not None and spec.quant.method == "fp8"


def test_unknown_model_says_how_to_fix_in_one_line():
    with pytest.raises(UnknownModelError) as info:
        resolve_model("someone/never-published-7b")
    text = str(info.value)
    assert "\n" not in text and "someone/never-published-7b" in text
    for hint in ("config.json", "models:", ".kvlint.yaml", "Hugging Face cache", "--online"):
        assert hint in text


def test_online_without_network_falls_back_cleanly():
    """HF_HUB_OFFLINE=1 (conftest) makes the Hub call fail: a clean UnknownModelError, no traceback."""
    with pytest.raises(UnknownModelError):
        resolve_model("someone/never-published-7b", online=True)
    assert resolve_model("Qwen/Qwen3-8B", online=True).source.startswith("bundled:")


def test_hf_cache_layout_is_found_offline(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    snap = make_hub_cache(tmp_path, "acme/tiny-llama", TINY)
    spec = resolve_model("acme/tiny-llama")
    assert spec.source.startswith("hf-cache:") and str(snap) in spec.source
    assert (spec.num_layers, spec.num_kv_heads, spec.head_dim) == (3, 2, 64)
    assert resolve_model(f"acme/tiny-llama@{SNAPSHOT}").num_layers == 3


def test_hf_cache_wins_over_the_registry_and_reads_the_side_file(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path))
    side = {"quantization": {"quant_algo": "FP8", "kv_cache_quant_algo": "FP8", "exclude_modules": ["lm_head"]}}
    make_hub_cache(tmp_path, "Qwen/Qwen3-8B", {**TINY, "num_hidden_layers": 5}, {"hf_quant_config.json": side})
    spec = resolve_model("Qwen/Qwen3-8B")
    assert spec.num_layers == 5 and spec.source.startswith("hf-cache:")
    assert spec.quant.method == "modelopt" and spec.quant.kv_cache_dtype == "fp8"


def test_hf_home_is_honoured(tmp_path, monkeypatch):
    monkeypatch.delenv("HF_HUB_CACHE", raising=False)
    monkeypatch.delenv("HUGGINGFACE_HUB_CACHE", raising=False)
    monkeypatch.setenv("HF_HOME", str(tmp_path))
    make_hub_cache(tmp_path / "hub", "acme/tiny-llama", TINY)
    assert resolve_model("acme/tiny-llama").source.startswith("hf-cache:")


def test_local_paths_and_overrides(tmp_path):
    folder = tmp_path / "ckpt"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps(TINY))
    assert resolve_model(str(folder)).num_layers == 3
    assert resolve_model(str(folder / "config.json")).num_layers == 3
    assert resolve_model("ckpt", base_dir=tmp_path).num_layers == 3
    spec = resolve_model("internal/secret-model", overrides={"Internal/Secret-Model": "ckpt/config.json"}, base_dir=tmp_path)
    assert spec.source.startswith("override:") and spec.num_layers == 3
    with pytest.raises(UnknownModelError, match="kvlint.yaml"):
        resolve_model("internal/secret-model", overrides={"internal/secret-model": "missing/"}, base_dir=tmp_path)


def test_unreadable_local_config_is_a_clean_error(tmp_path):
    (tmp_path / "config.json").write_text("{not json")
    with pytest.raises(UnknownModelError, match="cannot read"):
        resolve_model(str(tmp_path))


def test_memoised_per_process():
    assert resolve_model("Qwen/Qwen3-8B") is resolve_model("Qwen/Qwen3-8B")


def test_bundled_resolution_does_not_import_huggingface_hub(tmp_path):
    code = (
        "import sys, time\n"
        "t = time.process_time()\n"
        "from kvlint.models.resolve import resolve_model\n"
        "spec = resolve_model('meta-llama/Llama-3.1-8B-Instruct')\n"
        "assert spec.source.startswith('bundled:'), spec.source\n"
        "assert 'huggingface_hub' not in sys.modules\n"
        "assert 'jsonschema' not in sys.modules\n"
        "print(time.process_time() - t)\n"
    )
    env = {**os.environ, "HF_HUB_CACHE": str(tmp_path), "HF_HUB_OFFLINE": "1"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=False)
    assert out.returncode == 0, out.stderr
    assert float(out.stdout.strip()) < 1.0  # CPU seconds: the imports and one bundled config, with a wide margin


def test_one_model_object_for_every_folder_that_names_it(tmp_path, monkeypatch):
    """The memory model's caches key by the spec object: a model named in many folders is one object."""
    import kvlint.models.resolve as mr

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    mr.clear_cache()
    specs = [mr.resolve_model("Qwen/Qwen3-8B", base_dir=tmp_path / f"c{i}") for i in range(3)]
    assert specs[0] is specs[1] is specs[2]
    assert mr._known.cache_info().misses == 1


def test_a_local_folder_still_wins_over_the_registry_in_its_own_folder(tmp_path, monkeypatch):
    import kvlint.models.resolve as mr

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    mr.clear_cache()
    shared = mr.resolve_model("Qwen/Qwen3-8B", base_dir=tmp_path)
    local = tmp_path / "here" / "Qwen" / "Qwen3-8B"
    local.mkdir(parents=True)
    (local / "config.json").write_text(json.dumps({
        "architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 512, "num_hidden_layers": 2,
        "num_attention_heads": 8, "num_key_value_heads": 2, "intermediate_size": 1024, "vocab_size": 1000,
        "max_position_embeddings": 2048, "torch_dtype": "bfloat16"}))
    mine = mr.resolve_model("Qwen/Qwen3-8B", base_dir=tmp_path / "here")
    assert mine is not shared and mine.num_layers == 2 and shared.num_layers == 36


def test_an_unknown_model_is_searched_for_once(tmp_path, monkeypatch):
    import kvlint.models.resolve as mr

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    mr.clear_cache()
    for i in range(3):
        with pytest.raises(mr.UnknownModelError, match="not known offline"):
            mr.resolve_model("nobody/Not-A-Model-7B", base_dir=tmp_path / f"c{i}")
    assert mr._known.cache_info().misses == 1


def _oversized(path: Path) -> None:
    """A config.json of 8 MiB, sparse where the file system allows (config-json-no-size-cap.sh used 2 GB)."""
    with open(path, "wb") as fh:
        fh.write(b'{"a": "')
        fh.truncate(8 * 2**20)


def test_an_oversized_config_is_refused_without_reading_it_all(tmp_path, monkeypatch):
    folder = tmp_path / "ckpt"
    folder.mkdir()
    _oversized(folder / "config.json")
    with pytest.raises(UnknownModelError, match="larger than 4 MiB"):
        resolve_model("org/x", overrides={"org/x": "ckpt"}, base_dir=tmp_path)
    with pytest.raises(UnknownModelError, match="larger than 4 MiB"):
        resolve_model(str(folder))
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    snap = make_hub_cache(tmp_path / "hub", "acme/huge-config", TINY)
    _oversized(snap / "config.json")
    with pytest.raises(UnknownModelError, match="larger than 4 MiB"):
        resolve_model("acme/huge-config")


def test_a_config_under_the_working_folder_is_named_relative_to_it(tmp_path, monkeypatch):
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "config.json").write_text("{not json")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(UnknownModelError) as caught:
        resolve_model("org/x", overrides={"org/x": "m"}, base_dir=tmp_path)
    assert "cannot read m/config.json" in str(caught.value) and str(tmp_path) not in str(caught.value)
