"""Model resolution at its edges (issue O item 9): the config size cap to the byte, the HF cache's folder spelling and
environment precedence, paths that name a cached id, and the messages a user reads."""

from __future__ import annotations

import json
import os

import pytest

from kvlint.errors import UnknownModelError
from kvlint.models import resolve as mr
from kvlint.models.resolve import MAX_CONFIG_BYTES, resolve_model, shown_path, source_kind
from tests.models.test_resolve import SNAPSHOT, TINY, make_hub_cache


@pytest.fixture(autouse=True)
def _fresh():
    mr.clear_cache()
    yield
    mr.clear_cache()


def _padded(path, size: int) -> None:
    text = json.dumps(TINY)
    path.write_text(text + " " * (size - len(text)))


def test_a_config_of_exactly_the_cap_is_read_one_byte_more_is_not(tmp_path):
    (tmp_path / "a").mkdir()
    _padded(tmp_path / "a" / "config.json", MAX_CONFIG_BYTES)
    assert resolve_model(str(tmp_path / "a")).num_layers == 3
    (tmp_path / "b").mkdir()
    _padded(tmp_path / "b" / "config.json", MAX_CONFIG_BYTES + 1)
    with pytest.raises(UnknownModelError, match=r"is larger than 4 MiB, not a model config \(real ones are under "
                                                r"100 KB\); not read"):
        resolve_model(str(tmp_path / "b"))


@pytest.mark.parametrize(("text", "says"), [
    ("[1, 2]", "is not a JSON object"), ("\"x\"", "is not a JSON object"), ("{", "cannot read"),
    ("\xff", "cannot read"), ("1" * 5000, "cannot read"),
])
def test_a_config_that_is_not_an_object_names_the_file(tmp_path, text, says):
    (tmp_path / "config.json").write_bytes(text.encode("latin-1"))
    with pytest.raises(UnknownModelError) as caught:
        resolve_model(str(tmp_path / "config.json"))
    assert says in caught.value.message and "config.json" in caught.value.message
    assert caught.value.hint == mr.HOW_TO_FIX


def test_a_folder_without_config_json_and_a_non_json_file_are_not_local_configs(tmp_path):
    (tmp_path / "empty").mkdir()
    (tmp_path / "notes.txt").write_text(json.dumps(TINY))
    for ref in (str(tmp_path / "empty"), str(tmp_path / "notes.txt")):
        with pytest.raises(UnknownModelError, match="not known offline"):
            resolve_model(ref)


def test_the_cache_folder_is_matched_whatever_its_case_and_keeps_its_spelling(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path))
    make_hub_cache(tmp_path, "ACME/Tiny-Llama", TINY)
    spec = resolve_model("acme/tiny-llama")
    assert spec.model_id == "ACME/Tiny-Llama" and source_kind(spec) == "hf-cache"
    assert resolve_model(f"acme/tiny-llama@{SNAPSHOT}").num_layers == 3
    with pytest.raises(UnknownModelError):
        resolve_model("acme/tiny-llama@" + "f" * 40)  # a revision the cache does not hold
    path = resolve_model("/models/ACME/Tiny-Llama")
    assert path.source.startswith("path:/models/ACME/Tiny-Llama (hf-cache:") and source_kind(path) == "path-name"


@pytest.mark.parametrize(("env", "where"), [
    ({"HF_HUB_CACHE": "a", "HUGGINGFACE_HUB_CACHE": "b", "HF_HOME": "c", "XDG_CACHE_HOME": "d"}, "a"),
    ({"HUGGINGFACE_HUB_CACHE": "b", "HF_HOME": "c", "XDG_CACHE_HOME": "d"}, "b"),
    ({"HF_HOME": "c", "XDG_CACHE_HOME": "d"}, "c/hub"),
    ({"XDG_CACHE_HOME": "d"}, "d/huggingface/hub"),
    ({"HF_HUB_CACHE": "", "HF_HOME": "c"}, "c/hub"),
])
def test_the_cache_folder_follows_huggingface_hubs_variables(tmp_path, monkeypatch, env, where):
    for var in ("HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE", "HF_HOME", "XDG_CACHE_HOME"):
        monkeypatch.delenv(var, raising=False)
    for var, value in env.items():
        monkeypatch.setenv(var, str(tmp_path / value) if value else "")
    assert mr._hf_cache_dir() == str(tmp_path / where)


def test_without_any_variable_the_cache_is_under_the_home_folder(monkeypatch, tmp_path):
    for var in ("HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE", "HF_HOME", "XDG_CACHE_HOME"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert mr._hf_cache_dir() == str(tmp_path / ".cache" / "huggingface" / "hub")


def test_a_path_is_shown_relative_below_the_working_folder_only(tmp_path, monkeypatch):
    (tmp_path / "w").mkdir()
    monkeypatch.chdir(tmp_path / "w")
    assert shown_path(tmp_path / "w" / "m" / "config.json") == os.path.join("m", "config.json")
    assert shown_path(tmp_path / "wx" / "config.json") == str(tmp_path / "wx" / "config.json")
    assert shown_path("/etc/x.json") == "/etc/x.json"


def test_a_quantization_side_file_beside_a_local_config_is_read(tmp_path):
    (tmp_path / "config.json").write_text(json.dumps(TINY))
    (tmp_path / "hf_quant_config.json").write_text(json.dumps({"quantization": {"quant_algo": "NVFP4",
                                                                                "group_size": 16}}))
    spec = resolve_model(str(tmp_path))
    assert (spec.quant.method, spec.quant.bits, spec.quant.group_size) == ("modelopt", 4, 16)
    (tmp_path / "hf_quant_config.json").write_text("[]")
    mr.clear_cache()
    with pytest.raises(UnknownModelError, match="hf_quant_config.json is not a JSON object"):
        resolve_model(str(tmp_path))


def test_the_closest_bundled_names_are_offered_for_a_hub_id_only():
    with pytest.raises(UnknownModelError) as caught:
        resolve_model("Qwen/Qwen3-9B")
    assert caught.value.message.endswith("; closest bundled: Qwen/Qwen3.5-9B, Qwen/Qwen3-8B, Qwen/Qwen3-4B")
    with pytest.raises(UnknownModelError) as caught:
        resolve_model("zzzz")
    assert caught.value.message == "model 'zzzz' is not known offline"
    with pytest.raises(UnknownModelError, match="empty model reference"):
        resolve_model("   ")
