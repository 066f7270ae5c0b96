"""Quantized re-hosts derived from a bundled base: checked against every real config we bundle."""

from __future__ import annotations

import json
import re
from importlib import resources

import pytest

from kvlint.errors import UnknownModelError
from kvlint.models.derive import derive, variants
from kvlint.models.resolve import from_registry, registry_ids, resolve_model, source_kind
from kvlint.models.weights import weights_bytes


def kv_bytes_per_token(spec) -> int:
    per_elem = 1 if spec.quant and spec.quant.kv_cache_dtype == "fp8" else 2
    return sum(layer.num_kv_heads * (layer.head_dim_k + layer.head_dim_v) for layer in spec.layers) * per_elem


def pairs():
    """Every bundled real variant that a rule would also derive from another bundled (base) config."""
    out = []
    for model_id in registry_ids():
        derived = derive(model_id, exclude=model_id)
        if derived is not None:
            out.append((model_id, derived))
    return out


def test_there_are_pairs_to_check_and_three_use_another_models_exemplar():
    found = {model_id for model_id, _ in pairs()}
    assert len(found) >= 10, sorted(found)
    exemplars = {rule.exemplar for rule in variants()}
    assert len(found - exemplars) >= 3  # Qwen3-8B/30B-A3B/235B-A22B-FP8 derived with Qwen3-32B-FP8's block


@pytest.mark.parametrize(("model_id", "derived"), pairs(), ids=[p[0] for p in pairs()])
def test_derived_spec_equals_the_real_one(model_id, derived):
    real = from_registry(model_id)
    assert derived.model_id == model_id and derived.derived_from and source_kind(derived) == "derived"
    assert kv_bytes_per_token(derived) == kv_bytes_per_token(real)
    assert [(layer.kind, layer.window) for layer in derived.layers] == [(layer.kind, layer.window) for layer in real.layers]
    assert (derived.quant.method, derived.quant.bits, derived.quant.group_size, derived.quant.kv_cache_dtype) == (
        real.quant.method, real.quant.bits, real.quant.group_size, real.quant.kv_cache_dtype)
    assert derived.max_len_vllm == real.max_len_vllm
    assert abs(weights_bytes(derived) / weights_bytes(real) - 1) < 0.01


@pytest.mark.parametrize(
    ("name", "base", "method", "bits"),
    [
        ("RedHatAI/Llama-3.3-70B-Instruct-FP8-dynamic", "meta-llama/Llama-3.3-70B-Instruct", "compressed-tensors", 8),
        ("RedHatAI/Qwen2.5-7B-Instruct-fp8-dynamic", "Qwen/Qwen2.5-7B-Instruct", "compressed-tensors", 8),
        ("hugging-quants/Meta-Llama-3.1-70B-Instruct-AWQ-INT4", "meta-llama/Llama-3.1-70B-Instruct", "awq", 4),
        ("Qwen/Qwen2.5-14B-Instruct-GPTQ-Int4", "Qwen/Qwen2.5-14B", "gptq", 4),
        ("neuralmagic/Llama-3.2-11B-Vision-Instruct-FP8-dynamic", "meta-llama/Llama-3.2-11B-Vision-Instruct",
         "compressed-tensors", 8),
    ],
)
def test_corpus_names_resolve_as_derived_and_say_from_what(name, base, method, bits):
    spec = resolve_model(name)
    assert spec.source == f"derived:{base}" and spec.derived_from.startswith(base)
    assert (spec.quant.method, spec.quant.bits) == (method, bits)
    assert spec.num_layers == from_registry(base).num_layers
    assert weights_bytes(spec) < 0.6 * weights_bytes(from_registry(base))


@pytest.mark.parametrize(
    "name",
    [
        "RedHatAI/Llama-3.3-71B-Instruct-FP8-dynamic",  # no such size bundled: never the 70B
        "RedHatAI/Meta-Llama-3.1-8B-Instruct-FP8-KV",  # a suffix this publisher has no convention for
        "someone/Llama-3.3-70B-Instruct-FP8-dynamic",  # not a publisher with that convention
        "Qwen/Qwen3-235B-A22B-Thinking-2507-FP8",  # no rule states its 2507 base: not the older 235B
        "RedHatAI/Qwen3-8B-FP8-FP8-dynamic",  # the base would itself be quantized
    ],
)
def test_no_guess_across_models(name):
    assert derive(name) is None
    with pytest.raises(UnknownModelError):
        resolve_model(name)


def test_variant_rules_name_bundled_quantized_exemplars():
    data = json.loads(resources.files("kvlint.models").joinpath("registry/variants.json").read_text())
    assert len(data["variants"]) == len(variants())
    for rule in variants():
        if rule.exemplar is None:  # a convention: the block its publisher's tool writes, with where
            assert rule.convention and re.search(r"@[0-9a-f]{40}:", rule.source), rule.suffix
            continue
        exemplar = from_registry(rule.exemplar)
        assert exemplar is not None and exemplar.quant is not None, rule.exemplar
        assert rule.exemplar.split("/")[0] in rule.publishers and rule.exemplar.lower().endswith(rule.suffix.lower())


@pytest.mark.parametrize("name, base", [
    ("neuralmagic/Meta-Llama-3.1-70B-Instruct-FP8", "meta-llama/Llama-3.1-70B-Instruct"),
    ("neuralmagic/Meta-Llama-3.1-8B-Instruct-FP8", "meta-llama/Meta-Llama-3.1-8B-Instruct"),
    ("neuralmagic/gemma-2-9b-it-FP8", "google/gemma-2-9b-it"),
])
def test_autofp8_convention_keeps_the_base_shapes_and_lm_head_16_bit(name, base):
    from kvlint.models.weights import count_params

    spec, ref = resolve_model(name), from_registry(base)
    assert spec.source == f"derived:{base}" and "AutoFP8" in spec.derived_from
    assert (spec.quant.method, spec.quant.bits, spec.quant.ignored, spec.quant.kv_cache_dtype) == \
        ("fp8", 8, ("lm_head",), None)
    assert spec.layers == ref.layers  # KV bytes per token exactly the base's
    counts = count_params(ref)
    bf16 = weights_bytes(ref)
    # every linear weight at 1 byte; embeddings, norms and (untied) lm_head stay at 2 bytes
    assert 0.5 * bf16 < weights_bytes(spec) < 0.6 * bf16
    assert counts.total > 0


def test_meta_fp8_checkpoint_counts_fp8_weights_except_its_named_layers():
    """fbgemm_fp8 leaves layer 0's attention and two MLPs in bf16: the other 125 layers stay fp8."""
    fp8, bf16 = from_registry("meta-llama/Meta-Llama-3.1-405B-Instruct-FP8"), from_registry("meta-llama/Llama-3.1-405B")
    assert fp8.quant.method == "fbgemm_fp8" and fp8.quant.bits == 8
    assert 0.49 < weights_bytes(fp8) / weights_bytes(bf16) < 0.53


def test_a_path_segment_spelt_the_way_one_publisher_names_its_variants_is_derived():
    spec = resolve_model("/mnt/team/models/Qwen2.5-72B-Instruct-GPTQ-Int4")
    assert spec.source.startswith("path:") and "derived:Qwen/Qwen2.5-72B-Instruct" in spec.source
    assert (spec.quant.method, spec.quant.bits) == ("gptq", 4)
    with pytest.raises(UnknownModelError):
        resolve_model("/mnt/team/models/Qwen2.5-73B-Instruct-GPTQ-Int4")  # no such base: no guess


@pytest.mark.parametrize("name, bits, group, low, high", [
    ("RedHatAI/Meta-Llama-3.1-8B-Instruct-quantized.w8a8", 8, None, 0.5, 0.6),
    ("RedHatAI/Meta-Llama-3.1-8B-Instruct-quantized.w8a16", 8, None, 0.5, 0.6),
    ("neuralmagic/Meta-Llama-3.1-8B-Instruct-quantized.w4a16", 4, 128, 0.3, 0.4),
])
def test_compressed_tensors_presets_keep_the_base_shapes(name, bits, group, low, high):
    base = from_registry("meta-llama/Meta-Llama-3.1-8B-Instruct")
    spec = resolve_model(name)
    assert spec.source == "derived:meta-llama/Meta-Llama-3.1-8B-Instruct" and "compressed-tensors" in spec.derived_from
    assert (spec.quant.method, spec.quant.bits, spec.quant.group_size, spec.quant.ignored) == \
        ("compressed-tensors", bits, group, ("lm_head",))
    assert spec.layers == base.layers and spec.quant.kv_cache_dtype is None
    assert low * weights_bytes(base) < weights_bytes(spec) < high * weights_bytes(base)
