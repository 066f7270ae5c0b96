"""The architectures a release refuses by name: the edges of vLLM's own table, and the schema it is kept in."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from kvlint.engines import get_engine

DATA = Path(__file__).resolve().parents[2] / "kvlint" / "data"


def test_the_table_matches_its_schema():
    jsonschema.validate(json.loads((DATA / "architectures.json").read_text()),
                        json.loads((DATA / "architectures.schema.json").read_text()))


@pytest.mark.parametrize(("version", "refused"), [("0.10.2", False), ("0.10.1.1", False), ("v0.11.0", True),
                                                  ("0.33.0+cu128", True), ("1.0", True), ("nightly", False)])
def test_mllama_is_refused_after_its_last_release_only(version, refused):
    gone = get_engine("vllm").retired_architecture("MllamaForConditionalGeneration", version)
    assert (gone is not None) is refused
    if gone is not None:
        assert gone.last_release == "0.10.2" and gone.plugin is None


def test_a_plugin_move_counts_only_from_the_release_the_table_was_read_from():
    vllm = get_engine("vllm")
    assert vllm.retired_architecture("BartForConditionalGeneration", "0.8.5") is None
    moved = vllm.retired_architecture("BartForConditionalGeneration", "0.33.0")
    assert moved is not None and moved.plugin is not None and moved.plugin.startswith("https://")


def test_served_classes_and_sglang_are_never_refused():
    assert get_engine("vllm").retired_architecture("LlamaForCausalLM", "0.33.0") is None
    assert get_engine("sglang").retired_architecture("MllamaForConditionalGeneration", "0.5.23") is None


def test_falcons_old_class_names_the_class_current_checkpoints_use():
    gone = get_engine("vllm").retired_architecture("RWForCausalLM", "0.29.0")
    assert gone is not None and gone.resaved_as == "FalconForCausalLM"


@pytest.mark.parametrize("engine", ["vllm", "sglang"])
def test_deepseek_v4_is_refused_as_not_modelled_not_sized(engine):
    """DeepSeek-V4's packed pools (SWA ring, c4/c128 compressed KV and their state pools, indexer: SGLang 0.5.23
    DSV4PoolConfigurator) are not kvlint's MLA cell; kvlint gave a confident 70,516 B/token before. It now refuses
    the architecture by name, on both engines."""
    from kvlint.errors import NotModelledError
    from kvlint.memory import compute_budget
    from kvlint.models.resolve import from_registry

    spec = from_registry("deepseek-ai/DeepSeek-V4-Pro")
    assert spec is not None and spec.architecture == "DeepseekV4ForCausalLM"
    with pytest.raises(NotModelledError, match="DeepseekV4ForCausalLM is not modelled: DeepSeek-V4 caches"):
        compute_budget(engine, spec, {"tp_size": 8}, None, gpu_memory_bytes=143771 * 2**20)


def test_not_modelled_table_names_only_that_architecture():
    from kvlint.engines.architectures import not_modelled

    assert not_modelled("DeepseekV4ForCausalLM") is not None
    assert not_modelled("DeepseekV3ForCausalLM") is None


def _bundled_architectures() -> dict[str, list[str]]:
    from kvlint.models.resolve import from_registry, registry_ids

    found: dict[str, list[str]] = {}
    for model_id in registry_ids():
        spec = from_registry(model_id)
        assert spec is not None
        found.setdefault(spec.architecture, []).append(model_id)
    return found


def test_every_bundled_config_names_its_architecture():
    """The class is what both engines dispatch on (vLLM's registry, SGLang's EntryClass) and what kvlint's
    not-modelled table and output head are keyed by: a trimmed config must keep `architectures`."""
    from kvlint.models.resolve import load_registry_entry, registry_ids

    for model_id in registry_ids():
        entry = load_registry_entry(model_id.replace("/", "--") + ".json")
        names = entry["config"].get("architectures")
        assert isinstance(names, list) and names and all(isinstance(n, str) and n for n in names), model_id
    assert "" not in _bundled_architectures()


@pytest.mark.parametrize("architecture", sorted(_bundled_architectures()))
def test_each_bundled_architecture_is_sized_by_both_engines_or_refused_as_not_modelled(architecture):
    """Issue O item 5: an architecture is either sized (a pool, weights and a KV cell from both engines' budgets)
    or refused by name with the reason from architectures.json `not_modelled`, never half of each."""
    from kvlint.engines.architectures import not_modelled
    from kvlint.errors import NotModelledError
    from kvlint.memory import compute_budget
    from kvlint.models.resolve import from_registry

    model_id = _bundled_architectures()[architecture][0]
    spec = from_registry(model_id)
    reason = not_modelled(architecture)
    for engine in ("vllm", "sglang"):
        if reason is not None:
            with pytest.raises(NotModelledError) as refused:
                compute_budget(engine, spec, {"tp_size": 8}, None, gpu_memory_bytes=183 * 2**30)
            assert str(refused.value).startswith(f"{architecture} is not modelled: {reason}")
            continue
        budget = compute_budget(engine, spec, {"tp_size": 8}, None, gpu_memory_bytes=183 * 2**30)
        assert budget.weights_bytes > 0 and budget.kv_bytes_per_token > 0, (engine, model_id)
