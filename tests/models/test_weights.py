"""count_params / weights_bytes against published parameter counts, the seed chapters and vLLM logs."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kvlint.errors import KvlintError
from kvlint.models.config import spec_from_config
from kvlint.models.weights import count_params, pp_layer_range, rope_cache_bytes, weights_bytes

GIB = 2**30


def load(shared: Path, model_id: str):
    folder = shared / "models" / model_id
    side = folder / "hf_quant_config.json"
    hf_quant = json.loads(side.read_text()) if side.is_file() else None
    return spec_from_config(json.loads((folder / "config.json").read_text()), model_id, str(folder), hf_quant_config=hf_quant)


def parse_billions(text: str) -> tuple[float, float]:
    """'3B (3.21B)' -> (3.21e9, 1%); '8B' -> (8e9, few percent); '671B' -> (671e9, 1%); '5.1B' -> 1% or half a digit.

    Marketing sizes of one or two digits ("8B", "14B") are names, not measurements (Qwen3-14B has
    14.8B parameters by its own card), so they get 6%; figures of three digits or with a decimal
    point are compared to 1%, or half a unit of their last digit when that is looser ("2.4B").
    """
    text = text.strip()
    precise = re.search(r"\(([\d.]+)B\)", text)
    figure = precise.group(1) if precise else re.match(r"([\d.]+)", text).group(1)
    scale = 1e12 if text.strip().startswith(figure + "T") else 1e9
    value = float(figure) * scale
    if "." in figure:
        half_digit = 0.5 * 10 ** -len(figure.split(".")[1]) / float(figure)
        return value, max(0.01, half_digit + 0.001)
    digits = len(figure.rstrip("0")) if scale == 1e9 else 1
    return value, 0.01 if len(figure) >= 3 else (0.06 if digits <= 2 else 0.01)


def params_rows(shared: Path):
    rows = []
    for line in (shared / "models" / "PARAMS.tsv").read_text().splitlines()[1:]:
        hub_id, headline = line.split("\t")[:2]
        if (shared / "models" / hub_id / "config.json").is_file():
            rows.append((hub_id, headline))
    return rows


def test_parse_billions_precision_rules():
    assert parse_billions("1B (1.23B)") == (1.23e9, 0.01)
    assert parse_billions("8B") == (8e9, 0.06)
    assert parse_billions("671B total / 37B active") == (671e9, 0.01)
    assert parse_billions("1T total / 32B active")[0] == 1e12


def test_published_parameter_counts(shared_dir):
    rows = params_rows(shared_dir)
    assert len(rows) >= 30
    failures = []
    for hub_id, headline in rows:
        counts = count_params(load(shared_dir, hub_id))
        total, tol = parse_billions(headline.split("/")[0])
        if abs(counts.total - total) / total > tol:
            failures.append(f"{hub_id}: total {counts.total / 1e9:.3f}B vs {headline}")
        if "active" in headline:
            active, _ = parse_billions(headline.split("/")[1])
            # vendors differ on counting the input embedding as active (OpenAI: no; Qwen, Meta: yes)
            best = min(abs(counts.active - active), abs(counts.active + counts.embedding - active)) / active
            if best > 0.06:
                failures.append(f"{hub_id}: active {counts.active / 1e9:.3f}B vs {headline}")
    assert not failures, failures


@pytest.mark.parametrize(
    ("model_id", "billions"),
    [("meta-llama/Meta-Llama-3-8B", 8.03), ("meta-llama/Meta-Llama-3-70B", 70.6), ("Qwen/Qwen3-32B", 32.8)],
)
def test_seed_recomputed_counts_to_three_digits(shared_dir, model_id, billions):
    assert round(count_params(load(shared_dir, model_id)).total / 1e9, 2 if billions < 10 else 1) == billions


def test_llama3_8b_exact_count_and_bf16_bytes(shared_dir):
    spec = load(shared_dir, "meta-llama/Meta-Llama-3-8B")
    assert count_params(spec).total == 8_030_261_248
    assert round(weights_bytes(spec) / GIB, 2) == 14.96  # seed: "Weights load: 14.96 GiB"


def test_qwen3_32b_bf16_is_about_61_gib(shared_dir):
    assert round(weights_bytes(load(shared_dir, "Qwen/Qwen3-32B")) / GIB) == 61


def test_deepseek_v3_counts_without_and_with_mtp(shared_dir):
    """README: 671B main model + 14B MTP module = 685B in the checkpoint; `total` excludes MTP."""
    counts = count_params(load(shared_dir, "deepseek-ai/DeepSeek-V3"))
    assert abs(counts.total / 671e9 - 1) < 0.01
    assert abs(counts.total_with_mtp / 685e9 - 1) < 0.01
    assert 12e9 < counts.mtp < 15e9


def test_gpt_oss_120b_matches_openai_figures(shared_dir):
    counts = count_params(load(shared_dir, "openai/gpt-oss-120b"))
    assert abs(counts.total / 116.83e9 - 1) < 0.002  # card: 116.83B total
    assert abs(counts.active / 5.13e9 - 1) < 0.005  # card: 5.13B active (embedding lookup excluded)


# vLLM "Model loading took X GiB" lines from real startup logs (../shared/logs/cases.json).
LOG_LOADED = {"tolerance": 0.015}
LOG_SKIPPED = {
    "google/gemma-3-4b-it": "vLLM's figure also holds two 131072-position RoPE caches",
    "openai/gpt-oss-120b": "mxfp4 kernels pad the expert weights on Hopper",
}


def log_cases(shared: Path):
    cases = json.loads((shared / "logs" / "cases.json").read_text())
    for case in cases:
        model = case.get("hf_model_id") or ""
        if case.get("engine") != "vllm" or not case.get("model_loading_gib") or model in LOG_SKIPPED:
            continue
        if (shared / "models" / model / "config.json").is_file() and (case.get("pp") or 1) == 1:
            yield case


def test_weights_match_vllm_model_loading_logs(shared_dir):
    checked, failures = 0, []
    for case in log_cases(shared_dir):
        spec = load(shared_dir, case["hf_model_id"])
        dtype = "float32" if str(case.get("dtype")).startswith("float32") else None
        got = (weights_bytes(spec, tp=case.get("tp") or 1, dtype=dtype) + rope_cache_bytes(spec, dtype)) / GIB
        checked += 1
        if abs(got / case["model_loading_gib"] - 1) > LOG_LOADED["tolerance"]:
            failures.append(f"{case['id']}: {got:.2f} GiB vs logged {case['model_loading_gib']}")
    assert checked >= 12
    assert not failures, failures


def test_awq_int4_packing_bytes(shared_dir):
    """AWQ int4, group 128: 0.5 B + fp16 scale (2/128) + packed zero (0.5/128) per linear weight."""
    spec = load(shared_dir, "PatronusAI/Llama-3.1-70B-Instruct-AWQ-INT4")
    counts = count_params(spec)
    linear = counts.total - counts.embedding - counts.lm_head - counts.norms
    expected = linear * (0.5 + 2.5 / 128) + (counts.embedding + counts.lm_head + counts.norms) * 2
    assert weights_bytes(spec) == pytest.approx(expected, rel=1e-6)
    assert 36 < weights_bytes(spec) / GIB < 38


def test_online_fp8_keeps_embeddings_in_bf16(shared_dir):
    spec = load(shared_dir, "meta-llama/Llama-3.1-8B-Instruct")
    counts = count_params(spec)
    linear = counts.total - counts.embedding - counts.lm_head - counts.norms
    expected = linear * 1 + (counts.embedding + counts.lm_head + counts.norms) * 2
    assert weights_bytes(spec, quantization="fp8") == pytest.approx(expected, rel=1e-6)


def test_modelopt_fp8_side_file_halves_the_weights(shared_dir):
    fp8 = weights_bytes(load(shared_dir, "nvidia/Llama-3.1-70B-Instruct-FP8"))
    bf16 = weights_bytes(load(shared_dir, "meta-llama/Llama-3.1-70B-Instruct"))
    assert 0.5 < fp8 / bf16 < 0.52


def test_tp_splits_and_replicates_kv_heads(shared_dir):
    spec = load(shared_dir, "meta-llama/Llama-3.1-70B-Instruct")  # 8 KV heads
    one = weights_bytes(spec)
    assert weights_bytes(spec, tp=8) == pytest.approx(one / 8, rel=1e-3)
    # tp=16 > 8 KV heads: each rank keeps a whole KV head, so more than 1/16 of the weights
    assert weights_bytes(spec, tp=16) > one / 16 * 1.005


def test_pp_split_follows_vllm_and_puts_embedding_first_head_last(shared_dir):
    spec = load(shared_dir, "meta-llama/Meta-Llama-3-8B")
    stages = [weights_bytes(spec, pp=3, pp_rank=r) for r in range(3)]
    assert [len(pp_layer_range(32, 3, r)) for r in range(3)] == [11, 11, 10]
    assert weights_bytes(spec, pp=3) == max(stages)
    assert sum(stages) == pytest.approx(weights_bytes(spec), rel=1e-9)


def test_ep_divides_experts_only(shared_dir):
    spec = load(shared_dir, "Qwen/Qwen3-30B-A3B")
    counts = count_params(spec)
    experts = sum(l.experts for l in counts.layers)
    drop = weights_bytes(spec, tp=2) - weights_bytes(spec, tp=2, ep=4)
    assert drop == pytest.approx(experts * 2 * (1 / 2 - 1 / 4), rel=1e-6)


@given(st.integers(min_value=1, max_value=200), st.integers(min_value=1, max_value=16))
def test_pp_ranges_cover_every_layer_once(layers, pp):
    if pp > layers:
        return
    ranges = [pp_layer_range(layers, pp, r) for r in range(pp)]
    assert [i for r in ranges for i in r] == list(range(layers))
    assert len(ranges[-1]) == layers // pp  # the last stage never takes a remainder layer


def test_bad_parallel_sizes_raise_kvlint_error(shared_dir):
    spec = load(shared_dir, "Qwen/Qwen3-8B")
    for kwargs in ({"tp": 0}, {"pp": 2, "pp_rank": 2}, {"pp": 64}, {"dtype": "int3"}, {"quantization": "awq"}):
        with pytest.raises(KvlintError):
            weights_bytes(spec, **kwargs)


def test_quantization_flag_matching_the_checkpoint_changes_nothing(shared_dir):
    awq = load(shared_dir, "LDCC/Qwen2.5-72B-Instruct-ko-AWQ")
    assert weights_bytes(awq, quantization="awq_marlin") == weights_bytes(awq)
    plain = load(shared_dir, "Qwen/Qwen2.5-7B-Instruct")
    bnb = weights_bytes(plain, quantization="bitsandbytes")
    assert 0.3 < bnb / weights_bytes(plain) < 0.4


def test_deepseek_fp8_prices_mla_down_projections_as_fp8(shared_dir):
    spec = load(shared_dir, "deepseek-ai/DeepSeek-V3")
    counts = count_params(spec)
    kept = counts.embedding + counts.lm_head + counts.norms  # bf16 in the checkpoint
    linear = counts.total - kept
    expected = linear * (1 + 4 / 128**2) + kept * 2
    assert weights_bytes(spec) == pytest.approx(expected, rel=1e-6)


def test_llama4_scout_load_includes_a_2_5_gib_rope_table(shared_dir):
    """vLLM logged 53.12 GiB at tp=4: 50.6 GiB of weights + 10,485,760 x 128 x 2 B of cos/sin."""
    spec = load(shared_dir, "meta-llama/Llama-4-Scout-17B-16E-Instruct")
    assert rope_cache_bytes(spec) == 10_485_760 * 128 * 2
    total = (weights_bytes(spec, tp=4) + rope_cache_bytes(spec)) / GIB
    assert abs(total / 53.12 - 1) < 0.005


def test_qwen3_next_tp2_load_matches_its_log(shared_dir):
    """Log vllm-2xh200-qwen3-next-80b-a3b-tp2-v0102 (the Instruct sibling, same shapes): 74.2812 GiB per GPU."""
    spec = load(shared_dir, "Qwen/Qwen3-Next-80B-A3B-Thinking")
    total = (weights_bytes(spec, tp=2) + rope_cache_bytes(spec)) / GIB
    assert abs(total / 74.2812 - 1) < 0.01


def _gpt_oss_expert(inter: int, hidden: int, scale_rows: tuple[int, int] = (0, 0), bias_bytes: int = 2) -> float:
    """One gpt-oss expert as vLLM allocates it: w13 (2*inter x hidden) and w2 (hidden x inter) at 0.5 B, one e8m0
    scale per 32, w13/w2 biases; `scale_rows` adds a second (swizzled, padded) scale copy of that many rows."""
    weights = 3 * inter * hidden / 2 + 3 * inter * hidden / 32
    kept = scale_rows[0] * (hidden // 32) + scale_rows[1] * (inter // 32)
    return weights + kept + (2 * inter + hidden) * bias_bytes


@pytest.mark.parametrize("backend, inter, hidden, rows, bias", [
    ("marlin", 2944, 3072, (0, 0), 2),  # round_up(2880, 128), round_up(2880, 256)
    ("triton", 2880, 2880, (5888, 3072), 4),  # scales kept twice, swizzled rows padded to 256; fp32 biases
    ("flashinfer", 3072, 3072, (0, 0), 2),  # round_up(., 256) both
])
def test_mxfp4_backend_layouts_of_gpt_oss(shared_dir, backend, inter, hidden, rows, bias):
    from kvlint.models.weights import mxfp4_layout_bytes

    spec = load(shared_dir, "openai/gpt-oss-120b")
    extra = 36 * 128 * (_gpt_oss_expert(inter, hidden, rows, bias) - _gpt_oss_expert(2880, 2880))
    assert mxfp4_layout_bytes(spec, backend) == int(extra)
    assert mxfp4_layout_bytes(spec, "checkpoint") == 0
    assert mxfp4_layout_bytes(load(shared_dir, "meta-llama/Llama-3.1-8B-Instruct"), backend) == 0


def test_mxfp4_layouts_land_on_the_logged_loads(shared_dir):
    """gpt-oss-120b on one H100: 65.97 GiB logged by vLLM 0.10.1 (Marlin: torch 2.7.1 predates triton_kernels),
    64.38 GiB in the llm-d notes (Triton); the checkpoint layout alone is 60.7 GiB."""
    from kvlint.models.weights import mxfp4_layout_bytes

    spec = load(shared_dir, "openai/gpt-oss-120b")
    base = weights_bytes(spec) + rope_cache_bytes(spec)
    assert abs((base + mxfp4_layout_bytes(spec, "marlin")) / GIB - 65.97) < 0.15
    assert abs((base + mxfp4_layout_bytes(spec, "triton")) / GIB - 64.38) < 0.15
    assert base / GIB < 61


def test_mxfp4_layout_splits_like_the_experts(shared_dir):
    from kvlint.models.weights import WeightsError, mxfp4_layout_bytes

    spec = load(shared_dir, "openai/gpt-oss-120b")
    per_rank = 36 * 128 * (_gpt_oss_expert(1536, 3072) - _gpt_oss_expert(1440, 2880))  # 1440 -> 1536 (128)
    assert mxfp4_layout_bytes(spec, "marlin", tp=2) == int(per_rank)
    assert mxfp4_layout_bytes(spec, "marlin", pp=2, pp_rank=1) == mxfp4_layout_bytes(spec, "marlin") // 2
    with pytest.raises(WeightsError):
        mxfp4_layout_bytes(spec, "cutlass")


def _mistral_7b(architecture: str, **extra) -> dict:
    return {"architectures": [architecture], "model_type": "mistral", "hidden_size": 4096, "intermediate_size": 14336,
            "num_attention_heads": 32, "num_hidden_layers": 32, "num_key_value_heads": 8, "vocab_size": 32000,
            "tie_word_embeddings": False, "torch_dtype": "float16", **extra}


def test_an_embedding_architecture_has_no_lm_head():
    """intfloat/e5-mistral-7b-instruct is a MistralModel: vLLM runs a base-model class as a pooling model, built
    without its ParallelLMHead, and SGLang's MistralModel is LlamaModel + a pooler; the checkpoint ships no head.
    7,110,660,096 is the exact count MTEB lists for Zeta-Alpha-E5-Mistral (the same shapes); kvlint gave 7.242B
    (+1.8 %), the count of a MistralForCausalLM with its 32000 x 4096 head."""
    from kvlint.models.resolve import from_registry

    e5 = count_params(from_registry("intfloat/e5-mistral-7b-instruct"))
    assert (e5.total, e5.lm_head, e5.score) == (7_110_660_096, 0, 0)
    causal = spec_from_config(_mistral_7b("MistralForCausalLM"), "m/causal", "test")
    embed = spec_from_config(_mistral_7b("MistralModel"), "m/embed", "test")
    assert count_params(causal).total - count_params(embed).total == 32000 * 4096
    head_bytes = 32000 * 4096 * 2  # float16
    assert weights_bytes(causal) - weights_bytes(embed) == head_bytes
    assert weights_bytes(causal, tp=2) - weights_bytes(embed, tp=2) == head_bytes // 2
    # the last PP stage holds no head at all: not even the copy of the embedding a tied head gets there
    assert weights_bytes(causal, pp=2, pp_rank=1) - weights_bytes(embed, pp=2, pp_rank=1) == head_bytes
    assert weights_bytes(causal, pp=2, pp_rank=0) == weights_bytes(embed, pp=2, pp_rank=0)
    tied = spec_from_config(_mistral_7b("MistralModel", tie_word_embeddings=True), "m/tied", "test")
    assert weights_bytes(tied, pp=2, pp_rank=1) == weights_bytes(embed, pp=2, pp_rank=1)


def test_a_classifier_keeps_a_score_of_hidden_by_labels_in_place_of_the_lm_head():
    """vLLM's as_seq_cls_model: a ReplicatedLinear(hidden, num_labels, bias=False) on every rank, no lm_head."""
    causal = spec_from_config(_mistral_7b("MistralForCausalLM"), "m/causal", "test")
    labels = spec_from_config(_mistral_7b("MistralForSequenceClassification", id2label={"0": "a", "1": "b", "2": "c"}),
                              "m/cls", "test")
    two = spec_from_config(_mistral_7b("MistralForSequenceClassification"), "m/cls2", "test")
    assert count_params(labels).score == 3 * 4096 and count_params(two).score == 2 * 4096
    assert count_params(causal).total - count_params(labels).total == 32000 * 4096 - 3 * 4096
    assert weights_bytes(causal, tp=4) - weights_bytes(labels, tp=4) == 32000 * 4096 * 2 // 4 - 3 * 4096 * 2


@pytest.mark.parametrize(("architecture", "head"), [
    ("Qwen3ForCausalLM", "lm_head"), ("Gemma3ForConditionalGeneration", "lm_head"), ("GPT2LMHeadModel", "lm_head"),
    ("InternLM2ChatModel", "lm_head"), ("", "lm_head"), ("SomethingNew", "lm_head"),
    ("MistralModel", "none"), ("Qwen3Model", "none"), ("LlamaEmbeddingModel", "none"),
    ("Qwen2ForRewardModel", "none"), ("Qwen2ForSequenceClassification", "score"),
    ("BertForTokenClassification", "score"),
])
def test_output_head_follows_the_architecture_suffix_in_vllms_order(architecture, head):
    """vLLM's _SUFFIX_TO_DEFAULTS, first match: `ChatModel` and `LMHeadModel` generate before the catch-all
    `Model` (pooling); a name matching nothing is run as a generator."""
    from kvlint.models.outputs import output_head

    assert output_head(architecture) == head
