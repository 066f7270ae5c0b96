"""The bundled registry: schema-valid, complete, and trimmed without losing any fact kvlint reads."""

from __future__ import annotations

import dataclasses
import json
import re
from importlib import resources
from pathlib import Path

import pytest

from kvlint.models.config import spec_from_config
from kvlint.models.resolve import from_registry, load_registry_entry, registry_ids
from kvlint.models.weights import count_params

REGISTRY = resources.files("kvlint.models").joinpath("registry")
SCHEMA = json.loads(resources.files("kvlint.data").joinpath("models.schema.json").read_text())


def validator(ref: str | None = None):
    jsonschema = pytest.importorskip("jsonschema")
    schema = SCHEMA if ref is None else {"$ref": f"#/$defs/{ref}", "$defs": SCHEMA["$defs"]}
    return jsonschema.Draft202012Validator(schema)


def entry_files() -> list[str]:
    return sorted(p.name for p in REGISTRY.iterdir() if p.name.endswith(".json") and "--" in p.name)


def test_schema_is_a_valid_schema():
    jsonschema = pytest.importorskip("jsonschema")
    jsonschema.Draft202012Validator.check_schema(SCHEMA)


def test_every_entry_matches_the_schema():
    check = validator()
    files = entry_files()
    assert len(files) >= 95
    for name in files:
        entry = load_registry_entry(name)
        errors = [e.message for e in check.iter_errors(entry)]
        assert not errors, (name, errors)
        assert name == entry["id"].replace("/", "--") + ".json"


def test_schema_rejects_a_broken_entry():
    check = validator()
    assert not check.is_valid({"id": "no-slash", "config": {}})
    assert not check.is_valid({"id": "a/b", "config": {"architectures": ["X"], "model_type": "x", "hidden_size": 8}})


def test_aliases_and_defaults_match_their_schemas_and_targets_exist():
    aliases = json.loads(REGISTRY.joinpath("aliases.json").read_text())
    assert validator("aliases").is_valid(aliases)
    assert validator("defaults").is_valid(json.loads(REGISTRY.joinpath("defaults.json").read_text()))
    known = {i.lower() for i in registry_ids()}
    for alias, target in aliases["aliases"].items():
        assert target.lower() in known, (alias, target)
        assert alias.lower() not in known, f"{alias} is itself bundled"


def shared_models(shared: Path):
    for config in sorted((shared / "models").glob("*/*/config.json")):
        yield f"{config.parent.parent.name}/{config.parent.name}", config.parent


def test_registry_covers_every_shared_model(shared_dir):
    bundled = set(registry_ids())
    missing = [model_id for model_id, _ in shared_models(shared_dir) if model_id not in bundled]
    assert not missing


def test_trimmed_config_gives_the_same_spec_as_the_full_one(shared_dir):
    for model_id, folder in shared_models(shared_dir):
        side = folder / "hf_quant_config.json"
        hf_quant = json.loads(side.read_text()) if side.is_file() else None
        full = spec_from_config(json.loads((folder / "config.json").read_text()), model_id, "full", hf_quant_config=hf_quant)
        bundled = from_registry(model_id)
        assert bundled is not None, model_id
        assert dataclasses.replace(bundled, source="full") == full, model_id
        assert (bundled.quant and bundled.quant.raw) == (full.quant and full.quant.raw), model_id
        assert count_params(bundled) == count_params(full), model_id


def test_modelopt_side_file_is_bundled_for_nvidia_fp8():
    entry = load_registry_entry("nvidia--Llama-3.1-70B-Instruct-FP8.json")
    assert entry["hf_quant_config"]["quantization"]["kv_cache_quant_algo"] == "FP8"
    spec = from_registry("nvidia/Llama-3.1-70B-Instruct-FP8")
    assert spec.quant.method == "modelopt" and spec.quant.kv_cache_dtype == "fp8"


def test_trimming_dropped_remote_code_and_tokenizer_keys():
    for name in entry_files():
        config = load_registry_entry(name)["config"]
        for key in ("auto_map", "bos_token_id", "eos_token_id", "_name_or_path", "transformers_version"):
            assert key not in config, (name, key)


def load_generator():
    import importlib.util

    path = Path(__file__).resolve().parents[2] / "scripts" / "refresh_registry.py"
    spec = importlib.util.spec_from_file_location("refresh_registry", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_registry_is_exactly_what_the_generator_writes(shared_dir):
    """Stale data would mean the bundled facts drifted from the collected configs."""
    gen = load_generator()
    found = gen.provenance(shared_dir / "models")
    for model_id, folder in shared_models(shared_dir):
        expected = gen.render(gen.entry(folder, model_id, found.get(model_id)))
        assert REGISTRY.joinpath(model_id.replace("/", "--") + ".json").read_text() == expected, model_id
    assert found["deepseek-ai/DeepSeek-V3"]["confidence"] == "exact"


def sources_rows() -> dict[str, dict[str, str]]:
    lines = REGISTRY.joinpath("SOURCES.tsv").read_text().splitlines()
    header = lines[0].split("\t")
    return {cells[0]: dict(zip(header, cells, strict=False)) for cells in (line.split("\t") for line in lines[1:])}


def test_every_bundled_model_builds_a_spec_and_a_parameter_count():
    for model_id in registry_ids():
        spec = from_registry(model_id)
        assert spec is not None and spec.model_id == model_id
        assert spec.num_layers == len(spec.layers) > 0, model_id
        assert spec.max_len_vllm > 0 and spec.max_len_sglang > 0, model_id
        assert count_params(spec).total > 0, model_id


def test_sources_table_names_where_every_bundled_config_was_found():
    """One SOURCES.tsv row per bundled model, and the entry's provenance is that row's."""
    rows = sources_rows()
    assert set(rows) == set(registry_ids())
    for model_id, row in rows.items():
        assert row["repo_where_found"] and row["path_in_that_repo"], model_id
        assert row["confidence"] in ("exact", "derived"), model_id
        entry = load_registry_entry(model_id.replace("/", "--") + ".json")
        assert entry["provenance"]["repo_where_found"] == row["repo_where_found"], model_id


def test_bundled_configs_are_already_trimmed():
    """Entries collected outside ../shared cannot be re-trimmed in CI; they must at least be trim-stable."""
    gen = load_generator()
    for name in entry_files():
        config = load_registry_entry(name)["config"]
        assert gen.trim(config) == config, name


def test_generator_refuses_one_model_in_two_folders(tmp_path):
    gen = load_generator()
    for root in ("a", "b"):
        folder = tmp_path / root / "org" / "model"
        folder.mkdir(parents=True)
        (folder / "config.json").write_text("{}")
    with pytest.raises(SystemExit, match="org/model"):
        gen.collect([tmp_path / "a", tmp_path / "b"])


def test_generator_merges_sources_tables_in_first_table_columns(tmp_path):
    gen = load_generator()
    header = "hub_id\trepo_where_found\tpath_in_that_repo\tcommit\tconfidence\tnotes"
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "a" / "SOURCES.tsv").write_text(f"{header}\nz/m\tr1\tp1\tc1\texact\t\nx/unused\tr\tp\tc\texact\t\n")
    (tmp_path / "b" / "SOURCES.tsv").write_text(f"{header}\na/m\tr2\tp2\tc2\tderived\tnote\n")
    table = gen.sources_table([tmp_path / "a", tmp_path / "b"], {"z/m", "a/m"})
    assert table.splitlines() == [header, "a/m\tr2\tp2\tc2\tderived\tnote", "z/m\tr1\tp1\tc1\texact\t"]


# Models added from /tmp/extra-models (see registry/SOURCES.tsv). Expected values are computed by hand
# from the config values read in the source: bf16 KV bytes per token = 2 (K and V) x layers x kv_heads
# x head_dim x 2 bytes, summed over every decoder layer (sliding layers included: a token's cell is the
# same size, only how long it is kept differs).
ADDED = [
    # model id, layers, kv heads, head_dim, bf16 bytes per token, quant method, vLLM max length
    ("Qwen/Qwen2.5-VL-3B-Instruct", 36, 2, 128, 36_864, None, 128_000),  # 2048 / 16 heads = 128
    ("openai-community/gpt2", 12, 12, 64, 36_864, None, 1_024),  # n_embd 768 / n_head 12; n_positions
    ("google/gemma-3-1b-it", 26, 1, 256, 26_624, None, 32_768),  # head_dim 256 explicit
    ("Qwen/Qwen2-0.5B-Instruct", 24, 2, 64, 12_288, None, 32_768),  # 896 / 14 heads = 64
    ("Qwen/Qwen2.5-0.5B", 24, 2, 64, 12_288, None, 32_768),  # 896 / 14 heads = 64
    ("intfloat/e5-mistral-7b-instruct", 32, 8, 128, 131_072, None, 32_768),  # 4096 / 32 heads
    ("codellama/CodeLlama-13b-hf", 40, 40, 128, 819_200, None, 16_384),  # MHA, 5120 / 40 heads
    ("google/gemma-2b", 18, 1, 256, 18_432, None, 8_192),  # multi-query, head_dim 256 explicit
    # longrope: vLLM defaults to original_max_position_embeddings (engines.md 1.1 step 7)
    ("microsoft/Phi-3.5-mini-instruct", 32, 32, 96, 393_216, None, 4_096),  # 3072 / 32 heads
    ("microsoft/Phi-3-mini-128k-instruct", 32, 32, 96, 393_216, None, 4_096),
    ("facebook/opt-125m", 12, 12, 64, 36_864, None, 2_048),  # MHA, 768 / 12 heads; learned positions
    ("facebook/opt-6.7b", 32, 32, 128, 524_288, None, 2_048),  # MHA, 4096 / 32 heads
    # Mllama: 40 text layers (8 of them cross-attention), 8 kv heads, 4096 / 32 heads; text_config's length
    ("meta-llama/Llama-3.2-11B-Vision-Instruct", 40, 8, 128, 163_840, None, 131_072),
]


@pytest.mark.parametrize("model_id,layers,kv_heads,head_dim,cell,method,max_len", ADDED, ids=[a[0] for a in ADDED])
def test_added_model_kv_cell_and_quantization(model_id, layers, kv_heads, head_dim, cell, method, max_len):
    assert len(sources_rows()[model_id]["commit"]) == 40, "added models cite the exact commit"
    spec = from_registry(model_id)
    assert spec is not None and spec.source == f"bundled:{model_id}"
    assert (spec.num_layers, spec.num_kv_heads, spec.head_dim) == (layers, kv_heads, head_dim)
    assert sum(l.num_kv_heads * (l.head_dim_k + l.head_dim_v) * 2 for l in spec.layers) == cell
    assert cell == 2 * layers * kv_heads * head_dim * 2
    assert (spec.quant.method if spec.quant else None) == method
    assert spec.max_len_vllm == max_len


def test_gpt2_ties_its_head_by_class_default():
    """gpt2's config.json has no tie_word_embeddings; GPT2Config's default (true) is in defaults.json."""
    spec = from_registry("openai-community/gpt2")
    assert spec.tie_word_embeddings and count_params(spec).lm_head == 0


def test_gemma3_1b_keeps_its_five_to_one_sliding_pattern():
    spec = from_registry("google/gemma-3-1b-it")
    kinds = [layer.kind for layer in spec.layers]
    assert kinds[:6] == ["sliding"] * 5 + ["full"] and kinds.count("full") == 4
    assert {layer.window for layer in spec.layers if layer.kind == "sliding"} == {512}


@pytest.mark.parametrize("model_id", ["microsoft/Phi-3.5-mini-instruct", "microsoft/Phi-3-mini-128k-instruct"])
def test_longrope_phi3_default_lengths_differ_by_engine(model_id):
    """vLLM starts a longrope model at original_max_position_embeddings; SGLang reads max_position_embeddings."""
    spec = from_registry(model_id)
    assert (spec.max_len_vllm, spec.max_len_key) == (4_096, "original_max_position_embeddings")
    assert spec.max_len_sglang == 131_072


def test_rows_from_github_repositories_cite_a_full_commit():
    """A config found in a public repository is cited by owner/name, path and the 40-hex commit it was read at."""
    github = re.compile(r"[A-Za-z0-9][\w.-]*/[\w.-]+")
    for model_id, row in sources_rows().items():
        if github.fullmatch(row["repo_where_found"]):
            assert re.fullmatch(r"[0-9a-f]{40}", row["commit"]), model_id


@pytest.mark.parametrize("model_id, total, layer", [
    # embed 50272 x 768 + positions (2048 + 2) x 768 + 12 x (q/k/v/o 4 x (768^2 + 768) + fc1 768 x 3072 + 3072
    # + fc2 3072 x 768 + 768 + two biased LayerNorms 4 x 768) + final LayerNorm 2 x 768
    ("facebook/opt-125m", 125_239_296, 7_087_872),
    # 205,914,112 + 2050 x 4096 + 32 x 201,379,840 + 8,192
    ("facebook/opt-6.7b", 6_658_473_984, 201_379_840),
])
def test_opt_counts_biased_two_matrix_mlp_learned_positions_and_a_tied_head(model_id, total, layer):
    """OPT: fc1/fc2 (no gate), a bias on every projection, and lm_head tied by OPTConfig's inherited default."""
    counts = count_params(from_registry(model_id))
    assert counts.lm_head == 0 and {p.total for p in counts.layers} == {layer}
    assert counts.total == total


def test_mllama_vision_tower_counts_global_layers_tile_tables_and_projector():
    """32 local + 8 global layers of width 1280 (MLP 5120), patch 14 at 560 px, 9 x 4 tile position rows,
    and the 7680 -> 4096 projector: 40 x 19,677,440 + 752,640 + 2,048,000 + 73,866,240 + 31,461,376."""
    spec = from_registry("meta-llama/Llama-3.2-11B-Vision-Instruct")
    assert spec.is_multimodal and spec.architecture == "MllamaForConditionalGeneration"
    assert spec.vision_params == 895_225_856
    assert not spec.tie_word_embeddings and count_params(spec).lm_head == 128_256 * 4096
