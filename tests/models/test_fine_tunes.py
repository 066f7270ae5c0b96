"""Fine-tunes sized with their bundled base's shapes, the length carried as candidates (issue M item 4).

Each way a name is derived has a positive case and a negative one: a re-architected (Nemotron, Minitron,
pruned), quantized, other-modality or re-released derivative is never derived by name.
"""

from __future__ import annotations

import json
from importlib import resources

import pytest

from kvlint.errors import UnknownModelError
from kvlint.models.derive import carry_length_doubt, derive_fine_tune, rules
from kvlint.models.resolve import clear_cache, from_registry, registry_ids, resolve_model, source_kind
from kvlint.models.weights import weights_bytes

SCHEMA = json.loads(resources.files("kvlint.data").joinpath("models.schema.json").read_text())
REGISTRY = resources.files("kvlint.models").joinpath("registry")


@pytest.fixture(autouse=True)
def _fresh():
    clear_cache()
    yield
    clear_cache()


def test_derivations_file_matches_its_schema_and_every_base_is_bundled():
    jsonschema = pytest.importorskip("jsonschema")
    data = json.loads(REGISTRY.joinpath("derivations.json").read_text())
    check = jsonschema.Draft202012Validator({"$ref": "#/$defs/derivations", "$defs": SCHEMA["$defs"]})
    assert not list(check.iter_errors(data))
    assert not check.is_valid({"rules": [{"pattern": "a/b", "base": "c/d", "why": "x"}]})  # a rule without a source
    bundled = {i.lower() for i in registry_ids()}
    for rule in rules():
        if "\\" not in rule["base"]:
            assert rule["base"].lower() in bundled, rule["base"]


@pytest.mark.parametrize(("name", "base"), [
    ("someone/Llama-3.1-8B-Instruct-finetuned", "meta-llama/Llama-3.1-8B-Instruct"),  # the longest base carried
    ("lab/my-Qwen2.5-7B-sft", "Qwen/Qwen2.5-7B"),
    ("deepseek-ai/DeepSeek-R1-Distill-Llama-70B", "meta-llama/Llama-3.3-70B-Instruct"),  # a rule: not carried literally
    ("Qwen/Qwen2.5-Coder-7B-Instruct", "Qwen/Qwen2.5-7B"),
    ("Qwen/Qwen3-Next-80B-A3B-Instruct", "Qwen/Qwen3-Next-80B-A3B-Thinking"),
    ("meta-llama/Llama-2-70b-chat-hf", "meta-llama/Llama-2-70b-hf"),
])
def test_a_fine_tune_is_sized_with_its_bases_shapes_and_marked_derived(name, base):
    spec = resolve_model(name)
    real = from_registry(base)
    assert source_kind(spec) == "derived" and spec.source == f"derived:{base}"
    assert spec.derived_from is not None and spec.derived_from.startswith(base + " (")
    assert spec.model_id == name and spec.layers == real.layers and spec.quant is None
    assert weights_bytes(spec) == weights_bytes(real)


@pytest.mark.parametrize("name", [
    "nvidia/Llama-3_3-Nemotron-Super-49B-v1",  # re-architected from Llama-3.3-70B (DeciLM blocks): never by name
    "nvidia/Llama-3.1-Nemotron-70B-Instruct-HF",
    "someone/Llama-3.1-8B-Instruct-Nemotron-distill",
    "nvidia/Llama-3.1-Minitron-8B-Width-Base",
    "someone/Qwen2.5-7B-Instruct-pruned-4B",
    "someone/Qwen2.5-7B-Instruct-AWQ",  # quantized: only a publisher's known convention derives it
    "someone/Llama-3.1-8B-Instruct-GGUF",
    "someone/Qwen2.5-7B-embedding",  # another head / modality
    "lmms-lab/llava-onevision-qwen2-7b-ov",  # a vision tower beside the Qwen2 decoder
    "Qwen/Qwen3-235B-A22B-Thinking-2507",  # a dated re-release: 262,144 positions against the base's 40,960
    "Qwen/Qwen3-8B-2507",  # a dated name no rule of derivations.json states
    "someone/Llama-3.1-8B-Instruct-1M",  # a context extension
    "someone/phi-4-mini-finetune",  # phi-4 names no size: never a carried base (Phi-4-mini is another model)
])
def test_a_re_architected_or_other_format_derivative_is_not_derived_by_name(name):
    assert derive_fine_tune(name) is None
    with pytest.raises(UnknownModelError):
        resolve_model(name)


def test_a_rule_can_state_the_fine_tunes_own_length():
    """Phi-4-reasoning: phi-4's shapes, 32,768 positions (phi-4: 16,384), no doubt left."""
    spec = resolve_model("microsoft/Phi-4-reasoning")
    assert spec.max_len_vllm == 32768 and spec.length_unknown is None
    assert from_registry("microsoft/phi-4").max_len_vllm == 16384


def test_a_fine_tune_carries_its_familys_lengths_as_candidates():
    """Qwen2.5 bases derive 32,768 or 131,072 positions, the Instruct models 32,768 or 131,072: a fine-tune
    named after Qwen2.5-7B may have either, so both are candidates and the spec says why."""
    spec = resolve_model("lab/my-Qwen2.5-7B-sft")
    lengths = {c.max_len_vllm for c in spec.length_candidates}
    assert lengths == {32768, 131072}
    assert spec.length_floor == 32768 and spec.length_unknown is not None
    assert spec.length_unknown.startswith("lab/my-Qwen2.5-7B-sft is named after Qwen/Qwen2.5-7B, which stands in")
    assert "131,072 (Qwen/Qwen2.5-7B, " in spec.length_unknown and " or 32,768 (Qwen/Qwen2.5-0.5B, " in spec.length_unknown
    assert spec.length_candidates[0].source == "Qwen/Qwen2.5-7B"  # the stand-in's own first


def test_a_family_whose_relatives_agree_has_no_doubt():
    """Llama-3.1 8B/70B/405B, base and Instruct: 131,072 everywhere."""
    spec = resolve_model("someone/Llama-3.1-8B-Instruct-finetuned")
    assert spec.length_unknown is None and spec.length_candidates == () and spec.max_len_vllm == 131072


@pytest.mark.parametrize("name", ["Qwen/Qwen2.5-0.5B-Instruct", "Qwen/Qwen2.5-1.5B-Instruct",
                                  "Qwen/Qwen2.5-3B-Instruct", "Qwen/Qwen2.5-14B-Instruct"])
def test_qwen25_instruct_sizes_carry_their_candidate_lengths(name):
    """Refused before as "model-length-unknown" with nothing to go on: the -Instruct config is not bundled and the
    family's Instruct configs differ (7B/72B 32,768, 32B 131,072). The candidates are the base's own length and
    the lengths of the bundled Instruct relatives, so a verdict that holds for each can be given."""
    spec = resolve_model(name)
    own = {c.source: c.max_len_vllm for c in spec.length_candidates}
    assert own["Qwen/Qwen2.5-7B-Instruct"] == 32768 and own["Qwen/Qwen2.5-32B-Instruct"] == 131072
    assert spec.length_candidates[0].source == name.removesuffix("-Instruct")
    assert spec.length_floor == min(own.values()) and spec.length_unknown is not None
    assert all(c.max_len_sglang > 0 for c in spec.length_candidates)


def test_carry_length_doubt_leaves_a_spec_alone_when_every_candidate_agrees():
    spec = from_registry("meta-llama/Llama-3.1-8B")
    assert carry_length_doubt(spec, "meta-llama/Llama-3.1-8B-Instruct-x", "meta-llama/Llama-3.1-8B") is spec


def test_the_rule_derived_base_serves_a_quantized_re_host():
    """Qwen/Qwen3-Next-80B-A3B-Instruct-FP8: Qwen's -FP8 block on the Instruct model a rule derives."""
    spec = resolve_model("Qwen/Qwen3-Next-80B-A3B-Instruct-FP8")
    assert spec.quant is not None and spec.quant.method == "fp8"
    assert spec.derived_from is not None and "Qwen3-Next-80B-A3B-Instruct" in spec.derived_from


def test_a_publishers_changed_convention_is_not_derived():
    """nvidia's Qwen3.6 NVFP4 re-hosts are mixed precision (FP8 attention, NVFP4 MLP) with a 16-bit KV cache: the
    -NVFP4 rule's block (pure NVFP4, fp8 KV) would be wrong, so they are refused rather than derived; the other
    families of the rule still derive."""
    from kvlint.models.derive import derive

    assert derive("nvidia/Qwen3.6-27B-NVFP4") is None and from_registry("nvidia/Qwen3.6-27B-NVFP4") is None
    assert derive("nvidia/Qwen3-32B-NVFP4") is not None


def test_a_quantized_re_host_of_a_rule_derived_fine_tune_is_derived_under_another_org():
    """neuralmagic/DeepSeek-R1-Distill-Llama-70B-FP8-dynamic (KubeAI's GH200 profile): the -FP8-dynamic rule takes
    any org's base, and the base is the fine-tune a rule of derivations.json derives under deepseek-ai; the base
    search asked only bundled names, so the launch was left unsized as "not known offline"."""
    spec = resolve_model("hf://neuralmagic/DeepSeek-R1-Distill-Llama-70B-FP8-dynamic")
    assert spec.quant is not None and spec.quant.method == "compressed-tensors"
    assert spec.source == "derived:meta-llama/Llama-3.3-70B-Instruct"
    assert spec.derived_from is not None and "deepseek-ai/DeepSeek-R1-Distill-Llama-70B" in spec.derived_from
    assert spec.layers == from_registry("meta-llama/Llama-3.3-70B-Instruct").layers


@pytest.mark.parametrize(("path", "model_id", "base"), [
    ("/map-vepfs/models/jiajun/DeepSeek/DeepSeek-R1-Distill-Llama-70B", "deepseek-ai/DeepSeek-R1-Distill-Llama-70B",
     "meta-llama/Llama-3.3-70B-Instruct"),  # KORGym: the folder names the fine-tune, its parent is not the org
    ("/models/Qwen2.5-Coder-7B-Instruct", "Qwen/Qwen2.5-Coder-7B-Instruct", "Qwen/Qwen2.5-7B"),
])
def test_a_path_whose_last_segment_names_a_rule_derived_fine_tune_is_sized_by_it(path, model_id, base):
    spec = resolve_model(path)
    assert spec.model_id == model_id and "by path name" in spec.source and f"derived:{base}" in spec.source


def test_a_qwen3_vl_thinking_edition_is_its_instruct_siblings_architecture():
    """/data/models/Qwen/Qwen3-VL-235B-A22B-Thinking: not bundled; the -Instruct edition is, and the one pair
    bundled in both editions (32B) is equal key by key."""
    thinking = from_registry("Qwen/Qwen3-VL-32B-Thinking")
    instruct = from_registry("Qwen/Qwen3-VL-32B-Instruct")
    assert (thinking.layers, thinking.max_len_vllm) == (instruct.layers, instruct.max_len_vllm)
    spec = resolve_model("/data/models/Qwen/Qwen3-VL-235B-A22B-Thinking")
    assert spec.model_id == "Qwen/Qwen3-VL-235B-A22B-Thinking" and "derived:Qwen/Qwen3-VL-235B-A22B-Instruct" in spec.source
    assert derive_fine_tune("Qwen/Qwen3-VL-235B-A22B-Thinking-1M") is None  # a context extension: not by this rule
