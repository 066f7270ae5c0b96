"""Names in paths and the other names a launch gives: HF cache folders, /models/Org/Name, aliases."""

from __future__ import annotations

import pytest

from kvlint.deployment import ModelAlias
from kvlint.errors import UnknownModelError
from kvlint.models.resolve import ModelConflict, candidate_ids, clear_cache, resolve_model, source_kind
from tests.models.test_resolve import TINY, make_hub_cache


@pytest.mark.parametrize(
    ("ref", "hub_id"),
    [
        ("/root/.cache/huggingface/hub/models--meta-llama--Meta-Llama-3.1-8B-Instruct", "meta-llama/Meta-Llama-3.1-8B-Instruct"),
        ("/data/hub/models--Qwen--Qwen3-8B/snapshots/0123abcd", "Qwen/Qwen3-8B"),
        ("s3://bucket/models/models--google--gemma-2-9b-it/", "google/gemma-2-9b-it"),
    ],
)
def test_hf_cache_folder_names_give_the_hub_id(ref, hub_id):
    assert candidate_ids(ref) == [hub_id]
    spec = resolve_model(ref)
    assert spec.model_id.lower().startswith(hub_id.split("/")[0].lower())
    assert source_kind(spec) in ("path-name", "bundled")


def test_a_cache_folder_path_is_labelled_as_read_from_the_path():
    ref = "/root/.cache/huggingface/hub/models--Qwen--Qwen3-8B/snapshots/abc"
    spec = resolve_model(ref)
    assert spec.model_id == "Qwen/Qwen3-8B" and spec.source == f"path:{ref} (bundled:Qwen/Qwen3-8B)"
    assert source_kind(spec) == "path-name"


def test_a_real_cache_folder_on_disk_is_read_as_a_local_config(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "elsewhere"))
    snap = make_hub_cache(tmp_path, "acme/tiny-llama", TINY)
    clear_cache()
    spec = resolve_model(str(snap))
    assert spec.num_layers == 3 and source_kind(spec) == "local"


@pytest.mark.parametrize(
    ("alias", "prefix", "kind"),
    [
        (ModelAlias("Qwen/Qwen3-8B", "served-name"), "served-name:Qwen/Qwen3-8B", "served-name"),
        (ModelAlias("Qwen/Qwen3-8B", "env:MODEL_ID"), "env:MODEL_ID:Qwen/Qwen3-8B", "env-name"),
    ],
)
def test_aliases_are_tried_for_a_local_path_that_does_not_resolve(alias, prefix, kind):
    spec = resolve_model("/mnt/models", aliases=(ModelAlias("not-a-model", "served-name"), alias))
    assert spec.model_id == "Qwen/Qwen3-8B" and spec.source.startswith(prefix) and source_kind(spec) == kind


def test_aliases_do_not_replace_a_hub_id_and_a_disagreeing_one_is_no_guess():
    with pytest.raises(UnknownModelError):
        resolve_model("acme/private-model", aliases=(ModelAlias("Qwen/Qwen3-8B", "served-name"),))
    with pytest.raises(ModelConflict):  # the path's name and a download's name are two models (test_identity)
        resolve_model("/models/Qwen3-8B", aliases=(ModelAlias("meta-llama/Llama-3.1-8B-Instruct", "env:MODEL_ID"),))
    spec = resolve_model("/models/Qwen3-8B", aliases=(ModelAlias("Qwen/Qwen3-8B", "served-name"),))
    assert spec.model_id == "Qwen/Qwen3-8B" and source_kind(spec) == "path-name"


def test_unknown_names_get_the_closest_bundled_names():
    with pytest.raises(UnknownModelError) as info:
        resolve_model("codellama/CodeLlama-70b-hf")
    assert "closest bundled: codellama/CodeLlama-7b-hf" in info.value.message
    with pytest.raises(UnknownModelError) as info:
        resolve_model("/var/mdl/YOUR-MODEL-PATH")
    assert "closest" not in info.value.message  # a bare path suggests nothing


def test_a_hub_id_of_another_org_is_never_matched_by_its_last_segment():
    """neuralmagic's FP8 405B is another checkpoint than Meta's bundled FP8 405B of the same name."""
    neural = resolve_model("hf://neuralmagic/Meta-Llama-3.1-405B-Instruct-FP8")  # derived (AutoFP8), not Meta's
    assert neural.source.startswith("derived:") and neural.quant.method == "fp8"
    assert resolve_model("meta-llama/Meta-Llama-3.1-405B-Instruct-FP8").quant.method == "fbgemm_fp8"


def test_a_short_served_name_resolves_a_path_to_the_one_bundled_model_of_that_name():
    spec = resolve_model("/data/", aliases=(ModelAlias("opt-125m", "served-short"),))
    assert spec.model_id == "facebook/opt-125m" and source_kind(spec) == "served-name"
    assert "by served name" in spec.source


@pytest.mark.parametrize("name", ["opt-125", "chat", "llama", "a/b c"])  # a prefix, generic words: no guess
def test_a_short_served_name_that_names_no_single_bundled_model_resolves_nothing(name):
    with pytest.raises(UnknownModelError):
        resolve_model("/data/", aliases=(ModelAlias(name, "served-short"),))


def test_a_sibling_stand_in_carries_the_familys_length_doubt():
    from kvlint.models.resolve import clear_cache, resolve_model

    clear_cache()
    qwen = resolve_model("Qwen/Qwen2.5-14B-Instruct")
    assert qwen.model_id == "Qwen/Qwen2.5-14B" and qwen.length_floor == 32768
    assert qwen.length_unknown is not None and "32,768 (Qwen/Qwen2.5-72B-Instruct, Qwen/Qwen2.5-7B-Instruct)" in qwen.length_unknown
    quantized = resolve_model("Qwen/Qwen2.5-14B-Instruct-GPTQ-Int4")  # derived from the same stand-in
    assert quantized.derived_from is not None and quantized.length_floor == 32768
    assert resolve_model("Qwen/Qwen2.5-7B-Instruct").length_unknown is None  # bundled itself
    assert resolve_model("meta-llama/Meta-Llama-3-8B-Instruct").length_unknown is None  # a curated alias
    assert resolve_model("google/gemma-7b-it").length_unknown is None  # no bundled pair says they differ


def test_a_path_named_like_an_alias_resolves_to_the_aliased_config():
    """`/home/u/llama/Meta-Llama-3.1-70B-Instruct`: no bundled id ends so, but the alias table maps that
    old name to meta-llama/Llama-3.1-70B-Instruct (the KV002 hint already offered it)."""
    from kvlint.models.resolve import clear_cache, resolve_model

    clear_cache()
    spec = resolve_model("/home/u/llama/Meta-Llama-3.1-70B-Instruct")
    assert spec.model_id == "meta-llama/Llama-3.1-70B-Instruct" and spec.source.startswith("path:")
    tuned = resolve_model("/home/u/llama/Meta-Llama-3.1-70B-Instruct-my-finetune")  # never the bundled config as is,
    assert "derived:" in tuned.source  # but a fine-tune named after it (M item 4)
    assert tuned.derived_from == "meta-llama/Llama-3.1-70B-Instruct (fine-tune named after it)"
