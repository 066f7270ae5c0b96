"""Every bundled config's parameter count against a published total (issue O item 6, M item 5).

The rows are ../shared/models/PARAMS.tsv (the collection's own) and kvlint/models/registry/PARAMS.tsv
(rows for configs bundled from elsewhere, each with the page it was read on). A bundled config without a
published figure is skipped with that reason, so the list of unchecked configs is visible in `-rs`.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kvlint.models.resolve import from_registry, registry_ids
from kvlint.models.weights import count_params, weights_bytes

REGISTRY_PARAMS = Path(__file__).resolve().parents[2] / "kvlint" / "models" / "registry" / "PARAMS.tsv"
SHARED_PARAMS = Path(__file__).resolve().parents[3] / "shared" / "models" / "PARAMS.tsv"
TOLERANCE = 0.015  # the bound on a measured total (three digits or more, or a decimal figure)
NAME_TOLERANCE = 0.06  # a two-digit size is a name, not a measurement (Qwen3-14B has 14.8B parameters by its card)
ACTIVE_TOLERANCE = 0.06  # vendors differ on counting the input embedding and the output head as active
GIB = 2**30


def _rows(path: Path) -> dict[str, tuple[str, str]]:
    if not path.is_file():
        return {}
    out = {}
    for line in path.read_text(encoding="utf-8").splitlines()[1:]:
        cells = line.split("\t")
        out[cells[0]] = (cells[1], cells[2])
    return out


def published() -> dict[str, tuple[str, str]]:
    return {**_rows(SHARED_PARAMS), **_rows(REGISTRY_PARAMS)}


def precise(text: str) -> bool:
    """A measured figure: written in parentheses, with a decimal point, or of three digits or more."""
    figure = text.split("(", 1)[1] if "(" in text else text
    figure = figure.strip().split("B", 1)[0].split("T", 1)[0]
    return "." in figure or len(figure.strip()) >= 3


def billions(text: str) -> float:
    """'8B (8.767B)' -> 8.767e9, '120B' -> 120e9, '1T' -> 1e12: the most precise figure written."""
    text = text.strip()
    if "(" in text:
        text = text.split("(", 1)[1]
    figure = text.split("B", 1)[0].split("T", 1)[0].strip()
    return float(figure) * (1e12 if text.startswith(figure + "T") else 1e9)


def test_precise_figures_and_names():
    assert precise("120B ") and precise("31.6B ") and precise("8B (8.767B)")
    assert not precise("14B") and not precise("27B")


def test_billions_reads_the_precise_figure():
    assert billions("8B (8.767B)") == 8.767e9
    assert billions("120B total ") == 120e9
    assert billions("1T total ") == 1e12


def test_registry_params_rows_name_bundled_configs_and_a_source():
    rows = _rows(REGISTRY_PARAMS)
    assert len(rows) >= 10
    bundled = set(registry_ids())
    for hub_id, (headline, source) in rows.items():
        assert hub_id in bundled, hub_id
        assert headline and source.startswith("https://"), hub_id


@pytest.mark.parametrize("model_id", registry_ids())
def test_bundled_parameter_count_matches_the_published_total(model_id):
    row = published().get(model_id)
    if row is None:
        pytest.skip(f"no published parameter count for {model_id} in PARAMS.tsv")
    headline = row[0]
    total_text = headline.split("/")[0]
    counts = count_params(from_registry(model_id))
    total, tolerance = billions(total_text), TOLERANCE if precise(total_text) else NAME_TOLERANCE
    assert abs(counts.total / total - 1) <= tolerance, f"{counts.total / 1e9:.2f}B vs {headline}"
    if "active" in headline and precise(headline.split("/")[1]):
        active = billions(headline.split("/")[1])
        ways = (counts.active, counts.active + counts.embedding, counts.active - counts.lm_head)
        best = min(abs(way - active) for way in ways) / active
        assert best <= ACTIVE_TOLERANCE, f"active {counts.active / 1e9:.2f}B vs {headline}"


def test_nemotron_3_super_fp8_weights_per_rank_at_tp8():
    """120B parameters, FP8 linear layers (norms, conv, router and embeddings 16-bit): about 14 GiB per rank at
    TP 8. Reading every block as attention + a 512-expert gated MoE at full width gave 174.6 GiB."""
    spec = from_registry("nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-FP8")
    assert 13.5 * GIB < weights_bytes(spec, tp=8) < 16 * GIB
    kinds = [layer.kind for layer in spec.layers]
    pattern = spec.raw["hybrid_override_pattern"]
    assert kinds.count("full") == pattern.count("*") and kinds.count("mamba") == pattern.count("M")
    assert spec.moe is not None and len(spec.moe.moe_layer_ids) == pattern.count("E")


def test_nemotron_h_mamba_state_and_block_counts():
    """Super: Mamba-2 mixers of 128 heads x 64, 8 groups x state 128, conv 4; conv state at bf16, SSM state at
    mamba_ssm_cache_dtype float32: (8192 + 2 x 8 x 128) x 3 x 2 + 128 x 64 x 128 x 4 bytes per request."""
    spec = from_registry("nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-FP8")
    mamba = [layer for layer in spec.layers if layer.kind == "mamba"]
    assert mamba and {layer.state_bytes for layer in mamba} == {(8192 + 2048) * 3 * 2 + 128 * 64 * 128 * 4}
    full = [layer for layer in spec.layers if layer.kind == "full"]
    assert {(layer.num_kv_heads, layer.head_dim_k) for layer in full} == {(2, 128)}
    nano = count_params(from_registry("nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16"))
    assert abs(nano.total / 31.6e9 - 1) < 0.01  # 23 Mamba-2, 23 MoE, 6 attention blocks


@pytest.mark.parametrize(("architecture", "says"), [
    ("GlmMoeDsaForCausalLM", "latent attention"),
    ("DeciLMForCausalLM", "block_configs"),
])
def test_an_architecture_kvlint_cannot_size_is_refused_with_the_reason(architecture, says):
    """One mechanism for every layout kvlint lacks (kvlint/data/architectures.json `not_modelled`): the config
    reads, the engine's budget refuses it by architecture with the reason (never a guessed size)."""
    from kvlint.errors import NotModelledError
    from kvlint.memory import compute_budget
    from kvlint.models.config import spec_from_config

    cfg = {"architectures": [architecture], "model_type": "x", "num_hidden_layers": 2, "hidden_size": 64,
           "num_attention_heads": 4, "vocab_size": 100}
    spec = spec_from_config(cfg, "org/model", "test")
    for engine in ("vllm", "sglang"):
        with pytest.raises(NotModelledError, match=f"{architecture} is not modelled: .*{says}"):
            compute_budget(engine, spec, {}, None, gpu_memory_bytes=81559 * 2**20)
    cfg["architectures"] = ["LlamaForCausalLM"]
    assert compute_budget("vllm", spec_from_config(cfg, "org/model", "test"), {}, None,
                          gpu_memory_bytes=81559 * 2**20) is not None
