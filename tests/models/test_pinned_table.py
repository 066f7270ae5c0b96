"""Every bundled config's derived facts, parameter counts and weight bytes per rank, pinned in one table.

tests/models/data/pinned.json holds, for each bundled config, what kvlint derives from it: the spec (layers, heads,
head widths, lengths for both engines, MoE, MLA, quantization), its parameter counts and the weight bytes one GPU
holds over a grid of launches (TP 1-16, PP 2-3 by stage, expert parallel, attention DP placement, dtypes, online
fp8 and bitsandbytes, MTP weights, mxfp4 backends) and vLLM's RoPE tables. A change to any figure a user reads
shows here as a named difference. The table is not only a snapshot: every checked config's pinned total is within
1.5 % of the published total in kvlint/models/registry/weights.json, and the weight bytes obey the relations any
correct count obeys (more ranks never hold more, PP stages add up to the whole, fp8 below bf16).

Regenerate after an intended change with KVLINT_UPDATE_GOLDEN=1 and review the diff.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from kvlint.models.resolve import from_registry, registry_ids
from kvlint.models.spec import ModelSpec
from kvlint.models.weights import (
    MXFP4_BACKENDS,
    Placement,
    count_params,
    mxfp4_layout_bytes,
    rope_cache_bytes,
    weights_bytes,
)

TABLE = Path(__file__).parent / "data" / "pinned.json"
TOTALS = json.loads((Path(__file__).resolve().parents[2] / "kvlint/models/registry/weights.json").read_text())

# (name, keyword arguments of weights_bytes); pp settings are skipped where the model has fewer layers.
GRID: tuple[tuple[str, dict[str, Any]], ...] = (
    ("tp1", {}),
    ("tp2", {"tp": 2}),
    ("tp3", {"tp": 3}),
    ("tp8", {"tp": 8}),
    ("tp16", {"tp": 16}),
    ("pp2", {"pp": 2}),
    ("pp2.0", {"pp": 2, "pp_rank": 0}),
    ("pp2.1", {"pp": 2, "pp_rank": 1}),
    ("pp3.1", {"pp": 3, "pp_rank": 1}),
    ("tp2pp3", {"tp": 2, "pp": 3}),
    ("ep8", {"tp": 8, "ep": 8}),
    ("ep3", {"ep": 3}),
    ("fp16", {"dtype": "float16"}),
    ("fp32", {"dtype": "float32"}),
    ("fp8", {"quantization": "fp8"}),
    ("bnb", {"quantization": "bitsandbytes"}),
    ("mtp", {"tp": 2, "mtp": True}),
    ("dp-attn", {"tp": 8, "ep": 4, "placement": Placement(attn_tp=2, head_tp=4, dense_tp=1, shared_tp=1)}),
    ("eplb", {"tp": 4, "ep": 4, "placement": Placement(expert_tp=2, redundant_experts=3)}),
)
MXFP4_GRID: tuple[tuple[str, dict[str, Any]], ...] = (
    ("tp1", {}),
    ("tp2", {"tp": 2}),
    ("ep4", {"ep": 4}),
    ("pp2.1", {"pp": 2, "pp_rank": 1}),
)


def _runs(items: list[str]) -> list[str]:
    """Run-length form of a per-layer list: ['full(8,128,128) x 28', ...]."""
    out: list[list[Any]] = []
    for item in items:
        if out and out[-1][0] == item:
            out[-1][1] += 1
        else:
            out.append([item, 1])
    return [f"{item} x {n}" for item, n in out]


def _layer(layer: Any) -> str:
    return (f"{layer.kind}({layer.num_kv_heads},{layer.head_dim_k},{layer.head_dim_v}"
            f"{',w' + str(layer.window) if layer.window else ''}{',s' + str(layer.state_bytes) if layer.state_bytes else ''})")


SECTIONS = ("spec", "params", "weights-split", "weights-other", "rope-mxfp4")
SPLIT = ("tp1", "tp2", "tp3", "tp8", "tp16", "pp2", "pp2.0", "pp2.1", "pp3.1", "tp2pp3")


def facts(spec: ModelSpec, section: str) -> dict[str, Any]:
    """What kvlint derives from one config, in a form a reviewer reads: one section of the table."""
    if section == "spec":
        moe = spec.moe
        return {
            "spec": [spec.architecture, spec.model_type, spec.num_layers, spec.hidden_size, spec.num_attention_heads,
                     spec.num_kv_heads, spec.head_dim, spec.v_head_dim, spec.intermediate_size, spec.vocab_size,
                     spec.tie_word_embeddings, spec.dtype, spec.sliding_window, spec.is_multimodal,
                     spec.vision_params, spec.text_config_key],
            "lengths": [spec.max_len_vllm, spec.max_len_key, spec.max_len_sglang, spec.max_len_key_sglang,
                        spec.max_len_vllm_legacy],
            "mtp": [spec.num_mtp_layers, spec.mtp_unknown, spec.mtp_shares_embeddings],
            "layers": _runs([_layer(layer) for layer in spec.layers]),
            "mla": None if spec.mla is None else [
                spec.mla.kv_lora_rank, spec.mla.qk_rope_head_dim, spec.mla.qk_nope_head_dim, spec.mla.v_head_dim,
                spec.mla.q_lora_rank, spec.mla.index_head_dim, spec.mla.index_topk],
            "moe": None if moe is None else [
                moe.num_experts, moe.experts_per_token, moe.moe_intermediate_size, moe.num_shared_experts,
                moe.shared_intermediate_size, moe.first_dense_layers, moe.layer_freq, moe.dense_intermediate_size,
                _runs(["E" if i in moe.moe_layer_ids else "d" for i in range(spec.num_layers)])],
            "quant": None if spec.quant is None else [spec.quant.method, spec.quant.bits, spec.quant.group_size,
                                                      spec.quant.kv_cache_dtype, list(spec.quant.ignored)],
        }
    if section == "params":
        counts = count_params(spec)
        return {"params": {"total": counts.total, "embedding": counts.embedding, "lm_head": counts.lm_head,
                           "attention": counts.attention, "mlp": counts.mlp, "moe": counts.moe, "norms": counts.norms,
                           "vision": counts.vision, "mtp": counts.mtp, "active": counts.active}}
    if section.startswith("weights"):
        names = [name for name, _ in GRID if (name in SPLIT) == (section == "weights-split")]
        return {f"weights {name}": weights_bytes(spec, **kw) for name, kw in GRID
                if name in names and kw.get("pp", 1) <= spec.num_layers}
    row: dict[str, Any] = {"rope": [rope_cache_bytes(spec), rope_cache_bytes(spec, "float32"),
                                    rope_cache_bytes(spec, "float16")]}
    if spec.quant is not None and spec.quant.method == "mxfp4":
        row["mxfp4"] = {f"{backend} {name}": mxfp4_layout_bytes(spec, backend, **kw)
                        for backend in MXFP4_BACKENDS for name, kw in MXFP4_GRID}
    else:
        row["mxfp4"] = mxfp4_layout_bytes(spec, "marlin", tp=2)
    return row


def table(sections: tuple[str, ...] = SECTIONS) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for model_id in sorted(registry_ids()):
        spec = from_registry(model_id)
        out[model_id] = {k: v for section in sections for k, v in facts(spec, section).items()}
    return json.loads(json.dumps(out))


def test_update_the_table_when_asked():
    if os.environ.get("KVLINT_UPDATE_GOLDEN"):
        TABLE.parent.mkdir(exist_ok=True)
        TABLE.write_text(json.dumps(table(), indent=0, sort_keys=True) + "\n")
    assert set(json.loads(TABLE.read_text())) == set(registry_ids())


PINNED = json.loads(TABLE.read_text()) if TABLE.exists() else {}
MODELS = sorted(PINNED)


def _check(section: str, model_id: str) -> None:
    got = json.loads(json.dumps(facts(from_registry(model_id), section)))
    differences = [f"{model_id} {key}: pinned {PINNED[model_id].get(key)} now {value}"
                   for key, value in sorted(got.items()) if PINNED[model_id].get(key) != value]
    assert not differences, "\n".join(differences)


# One test per section and model: a change runs the cheapest cases that read its line (a family's own code runs
# only for that family's configs, so only their cases are picked).
@pytest.mark.parametrize("model_id", MODELS)
def test_pinned_spec_facts(model_id):
    """Layers and their KV shapes, heads, head widths, both engines' lengths and keys, MoE, MLA, quantization."""
    _check("spec", model_id)


@pytest.mark.parametrize("model_id", MODELS)
def test_pinned_parameter_counts(model_id):
    _check("params", model_id)


@pytest.mark.parametrize("model_id", MODELS)
def test_pinned_weights_per_rank_by_tp_and_pp(model_id):
    _check("weights-split", model_id)


@pytest.mark.parametrize("model_id", MODELS)
def test_pinned_weights_per_rank_by_dtype_scheme_ep_and_placement(model_id):
    _check("weights-other", model_id)


@pytest.mark.parametrize("model_id", MODELS)
def test_pinned_rope_tables_and_mxfp4_layouts(model_id):
    _check("rope-mxfp4", model_id)


TOLERANCE = 0.015


def _figure(text: str) -> float:
    text = text.strip()
    if "(" in text:
        text = text.split("(", 1)[1]
    number = text.rstrip(") ").split(" ", 1)[0]
    return float(number[:-1]) * {"M": 1e6, "B": 1e9, "T": 1e12}[number[-1]]


def test_the_pinned_totals_are_the_published_ones():
    """The table is checked, not only recorded: every config with a published total is within 1.5 % of it."""
    checked = 0
    for model_id, row in TOTALS["published"].items():
        total = _figure(row["total"].split("/")[0])
        assert abs(PINNED[model_id]["params"]["total"] / total - 1) <= TOLERANCE, model_id
        checked += 1
    assert checked >= 100


@pytest.mark.parametrize("model_id", MODELS)
def test_pinned_weights_obey_what_any_correct_count_obeys(model_id):
    row = PINNED[model_id]
    w, p = {k.split(" ", 1)[1]: v for k, v in row.items() if k.startswith("weights ")}, row["params"]
    assert w["tp1"] >= w["tp2"] >= w["tp8"] >= w["tp16"] > 0
    # (TP 3 is pinned, not related: most heads do not divide by 3; nor does TP 2 divide SmolLM2's 9 or 15 heads)
    assert w["tp2"] >= w["tp1"] / 2 or row["spec"][4] % 2
    assert w["fp32"] >= w["tp1"] >= w["fp8"] >= w["bnb"] or row["quant"] is not None
    assert w["fp16"] == w["tp1"] or row["spec"][11] not in ("bfloat16", "float16")
    if "pp2.0" in w:
        # each stage is whole bytes, floored: fractional-byte (fp4 / fp8-scale) stages may sum one byte short
        assert w["pp2"] == max(w["pp2.0"], w["pp2.1"]) and w["pp2.0"] + w["pp2.1"] >= w["tp1"] - 1
    assert p["total"] == p["embedding"] + p["lm_head"] + p["attention"] + p["mlp"] + p["moe"] + p["norms"] + \
        p["vision"]
    assert p["active"] <= p["total"] and (p["moe"] > 0) == (row["moe"] is not None)
    assert w["mtp"] >= w["tp2"] and (w["mtp"] > w["tp2"]) == (p["mtp"] > 0)
