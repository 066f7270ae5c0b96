"""The bundled registry: schema-valid, complete, and trimmed without losing any fact kvlint reads."""

from __future__ import annotations

import dataclasses
import json
from importlib import resources
from pathlib import Path

import pytest

from kvlint.models.config import spec_from_config
from kvlint.models.weights import count_params
from kvlint.models.resolve import from_registry, load_registry_entry, registry_ids

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
