"""Every bundled config's parameter count against a published total, or marked unchecked (issue O item 6).

kvlint/models/registry/weights.json holds, for every bundled config, either the published total it is checked
against (`published`: the figure, the page or paper it is printed in, and how it applies) or the reason there is
none (`unchecked`): such a config's budget says "weights not checked against a published total". The rows of
../shared/models/PARAMS.tsv (the collection's own) are among the published ones.
"""

from __future__ import annotations

import json
from importlib import resources

import pytest

from kvlint.models.resolve import from_registry, registry_ids
from kvlint.models.weights import count_params, weights_bytes

TOTALS = json.loads(resources.files("kvlint.models").joinpath("registry", "weights.json").read_text())
TOLERANCE = 0.015  # every checked config's count is within 1.5 % of its published total
ACTIVE_TOLERANCE = 0.06  # vendors differ on counting the input embedding and the output head as active
GIB = 2**30
UNIT = {"M": 1e6, "B": 1e9, "T": 1e12}


def figure(text: str) -> float:
    """'8B (8.767B)' -> 8.767e9, '120B total ' -> 120e9, '1.04T' -> 1.04e12, '125M' -> 125e6: the most precise
    figure written."""
    text = text.strip()
    if "(" in text:
        text = text.split("(", 1)[1]
    number = text.rstrip(") ").split(" ", 1)[0]
    return float(number[:-1]) * UNIT[number[-1]]


def precise(text: str) -> bool:
    """A measured figure (a decimal point, or three digits or more), not a size name such as 3B or 10B."""
    number = text.strip().split(" ", 1)[0]
    return "." in number or len(number.rstrip("MBT")) >= 3


def test_figures_read_the_most_precise_number():
    assert figure("8B (8.767B)") == 8.767e9
    assert figure("120B total ") == 120e9
    assert figure("1.04T total ") == 1.04e12
    assert figure("125M") == 125e6
    assert precise("3.3B active") and precise("235B") and not precise("3B active") and not precise("10B")


def test_every_bundled_config_is_published_or_marked_exactly_once():
    published, unchecked = set(TOTALS["published"]), set(TOTALS["unchecked"])
    assert published | unchecked == set(registry_ids())
    assert not published & unchecked
    for model_id, row in TOTALS["published"].items():
        assert row["total"] and row["source"], model_id
    assert all(len(reason) > 10 for reason in TOTALS["unchecked"].values())


def test_totals_file_matches_its_schema():
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads(resources.files("kvlint.data").joinpath("models.schema.json").read_text())
    check = jsonschema.Draft202012Validator({"$ref": "#/$defs/weights", "$defs": schema["$defs"]})
    assert check.is_valid(TOTALS)
    assert not check.is_valid({**TOTALS, "published": {"a/b": {"total": "8B"}}})  # a total needs its source


def test_shared_params_rows_are_bundled(shared_dir):
    """The collection's PARAMS.tsv rows are in the bundle: as published totals, or marked where the row is only a
    size name more than 1.5 % off (Llama-2-7B: 7B for 6.74B)."""
    bundled = set(registry_ids())
    for line in (shared_dir / "models" / "PARAMS.tsv").read_text(encoding="utf-8").splitlines()[1:]:
        model_id = line.split("\t")[0]
        if model_id in bundled:
            assert model_id in TOTALS["published"] or model_id in TOTALS["unchecked"], model_id


@pytest.mark.parametrize("model_id", registry_ids())
def test_bundled_parameter_count_is_within_1_5_percent_of_its_published_total(model_id):
    row = TOTALS["published"].get(model_id)
    if row is None:
        assert model_id in TOTALS["unchecked"]
        assert from_registry(model_id).weights_unchecked == TOTALS["unchecked"][model_id]
        return
    assert from_registry(model_id).weights_unchecked is None
    headline = row["total"]
    counts = count_params(from_registry(model_id))
    total = figure(headline.split("/")[0])
    assert abs(counts.total / total - 1) <= TOLERANCE, f"{counts.total / 1e9:.3f}B vs {headline}"
    if "active" in headline and precise(headline.split("/")[1]):
        active = figure(headline.split("/")[1])
        ways = (counts.active, counts.active + counts.embedding, counts.active - counts.lm_head)
        best = min(abs(way - active) for way in ways) / active
        assert best <= ACTIVE_TOLERANCE, f"active {counts.active / 1e9:.2f}B vs {headline}"


def test_qwen3_vl_counts_its_deepstack_mergers():
    """Qwen3-VL-8B: 8.767B measured from the checkpoint's tensors; the three DeepStack mergers (each the
    projector's shape: 4608 x 4608 + 4608 x 4096) and the 2304-row position table were missing (8.644B, -1.4 %)."""
    assert count_params(from_registry("Qwen/Qwen3-VL-8B-Instruct")).total == 8_767_048_560


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


def test_nemotron_h_ssm_state_defaults_to_float32_when_the_config_names_no_dtype():
    """Nemotron-H-56B-Base-8K's config names no mamba_ssm_cache_dtype: vLLM's NemotronHForCausalLMConfig (0.20+) and
    SGLang's mamba2_state_dtype keep the SSM state in float32. 16,900,096 B per request and layer at TP 1 is what
    vLLM 0.33's own NemotronHForCausalLM.get_mamba_state_shape/dtype_from_config give (MambaSpec.page_size_bytes,
    bench/conformance); kvlint had the bf16 8,511,488 (half)."""
    spec = from_registry("nvidia/Nemotron-H-56B-Base-8K")
    assert "mamba_ssm_cache_dtype" not in spec.raw
    assert {layer.state_bytes for layer in spec.layers if layer.kind == "mamba"} == {16_900_096}
    conv = (256 * 64 + 2 * 8 * 256) * 3 * 2  # (d_inner + 2 x groups x d_state) x (kernel - 1) at bf16
    assert conv + 256 * 64 * 256 * 4 == 16_900_096  # + heads x head_dim x d_state at float32


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


@pytest.mark.parametrize("engine", ["vllm", "sglang"])
def test_an_unchecked_config_says_so_in_its_budget(engine):
    from kvlint.memory import compute_budget

    says = "weights not checked against a published total (the report names the size only (14B, 4.5 % below the count))"
    budget = compute_budget(engine, from_registry("microsoft/phi-4"), {}, None, gpu_memory_bytes=81559 * 2**20)
    step = next(s for s in budget.steps if s.name == "weights per rank")
    assert step.formula.endswith("; " + says) and says in budget.notes
    checked = compute_budget(engine, from_registry("Qwen/Qwen3-8B"), {}, None, gpu_memory_bytes=81559 * 2**20)
    assert not any("published total" in s.formula for s in checked.steps) and not checked.notes
    given = compute_budget(engine, from_registry("microsoft/phi-4"), {}, None, gpu_memory_bytes=81559 * 2**20,
                           weights_bytes=30 * GIB)
    assert not any("published total" in n for n in given.notes)


def test_check_notes_an_unchecked_config_and_a_derived_one(tmp_path):
    from click.testing import CliRunner

    from kvlint.cli import cli

    (tmp_path / "serve.sh").write_text("vllm serve microsoft/phi-4\nvllm serve Qwen/Qwen3-8B\n")
    result = CliRunner().invoke(cli(), ["check", "--exit-zero", str(tmp_path)])
    notes = [line for line in result.output.splitlines() if "published total" in line]
    assert notes == ["kvlint: note: microsoft/phi-4: weights not checked against a published total (the report "
                     "names the size only (14B, 4.5 % below the count))"]
    assert from_registry("RedHatAI/phi-4-FP8-dynamic").weights_unchecked == TOTALS["unchecked"]["microsoft/phi-4"]
