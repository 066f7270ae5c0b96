"""Every model reference a launch may write, resolved offline, each result pinned (issue O item 9).

tests/models/data/names.json maps a reference to what kvlint makes of it: the bundled, aliased, sibling or derived
config it resolves to (id, source, how it was found, the quantization and length a derived spec carries, the
length candidates of a stand-in, the weights-check mark) or the error a user reads; and the pieces of the
reference kvlint reads (Hub ids it may name, revision, path or store). The references are the 112 the shared corpus
writes, one name per re-host rule and fine-tune rule, and spellings of paths, URLs, cache folders and revisions.
Launches that name their model twice (a path and a served name, an env var, a KServe name) are in
tests/models/data/evidence.json.

Regenerate after an intended change with KVLINT_UPDATE_GOLDEN=1 and review the diff; a new reference is a new key.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from kvlint.deployment import ModelAlias
from kvlint.errors import KvlintError
from kvlint.models.resolve import (
    _is_local_path,
    _is_store_path,
    by_served_name,
    candidate_ids,
    clear_cache,
    resolve_model,
    source_kind,
    split_revision,
)

DATA = Path(__file__).parent / "data"
NAMES = DATA / "names.json"
EVIDENCE = DATA / "evidence.json"

# (reference, ((alias name, how), ...)): the launch's other names for its model
EVIDENCE_CASES: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = (
    ("/models/mine", (("Qwen/Qwen3-8B", "served-name"),)),
    ("/models/mine", (("qwen3-8b", "served-short"),)),
    ("/models/Qwen3-8B-FP8", (("qwen3-8b", "served-short"),)),
    ("/models/Qwen3-8B-FP8", (("Qwen/Qwen3-8B", "served-name"),)),
    ("/models/Qwen3-8B", (("Qwen/Qwen3-32B", "served-name"),)),
    ("/models/Qwen3-8B", (("Qwen/Qwen3-32B", "env:MODEL_ID"),)),
    ("/models/mine", (("Qwen/Qwen3-32B", "env:MODEL_ID"), ("Qwen/Qwen3-8B", "model-name"))),
    ("/models/mine", (("Qwen/Qwen3-32B", "env:MODEL_ID"), ("Qwen/Qwen3-32B", "key:modelName"))),
    ("s3://bucket/llama", (("meta-llama/Llama-3.1-8B-Instruct", "storageUri"),)),
    ("pvc://vol/x", (("nobody/none", "env:MODEL"), ("Qwen/Qwen3-4B", "path"))),
    ("/models/mine", (("nobody/none", "served-name"),)),
    ("/models/mine", (("opt-125m", "served-short"), ("Qwen/Qwen3-8B", "display-name"))),
    ("Qwen/Qwen3-8B", (("Qwen/Qwen3-32B", "env:MODEL_ID"),)),
    ("/models/Meta-Llama-3.1-8B-Instruct", (("meta-llama/Llama-3.1-8B-Instruct", "oci-tag"),)),
    ("/models/Qwen3-8B", (("Qwen/Qwen3-4B", "download-repo"),)),
    ("/models/Qwen3-8B", (("Qwen/Qwen3-4B", "oci-image"),)),
    ("/models/Qwen3-8B", (("Qwen/Qwen3-4B", "storageUri"),)),
    ("/models/Qwen3-8B", (("Qwen/Qwen3-4B", "key:modelId"),)),
    ("/models/Qwen3-8B", (("Qwen/Qwen3-4B", "model-name"),)),
    ("/models/Qwen3-8B", (("Qwen/Qwen3-4B", "path"),)),
    ("/models/Qwen3-8B", (("Qwen/Qwen3-4B", "something-else"),)),
    ("/models/mine", (("Qwen/Qwen3-4B", "key:modelId"),)),
    ("/models/mine", (("Qwen/Qwen3-4B", "something-else"),)),
    ("/models/mine", (("Qwen/Qwen3-4B", "download-repo"), ("Qwen/Qwen3-4B", "oci-image"))),
    ("/models/mine", (("Qwen/Qwen3-4B", "display-name"),)),
    ("/models/mine-AWQ", (("qwen3-8b", "served-short"),)),
    ("/models/mine-AWQ", (("Qwen/Qwen3-8B-AWQ", "served-name"),)),
    ("/models/mine", (("a" * 100 + "/b", "env:LONG"), ("Qwen/Qwen3-4B", "env:MODEL"))),
    ("/" + "d" * 90 + "/Qwen3-8B", (("Qwen/Qwen3-4B", "env:M"),)),
    ("s3://bucket/x", (("opt-125m", "served-short"), ("x/y", "served-short"), ("ab", "served-short"))),
)


def _spec(spec: Any) -> list[Any]:
    return [spec.model_id, spec.source, source_kind(spec), spec.derived_from, spec.length_unknown, spec.length_floor,
            [c.source for c in spec.length_candidates], spec.weights_unchecked,
            None if spec.quant is None else [spec.quant.method, spec.quant.bits, spec.quant.group_size],
            spec.max_len_vllm, spec.max_len_sglang, spec.num_layers]


def _resolved(ref: str, base: Path, aliases: tuple[ModelAlias, ...] = ()) -> list[Any]:
    try:
        return _spec(resolve_model(ref, base_dir=base, aliases=aliases))
    except KvlintError as exc:
        return ["error", type(exc).__name__, exc.message, getattr(exc, "hint", None)]


def name_row(ref: str, base: Path) -> dict[str, Any]:
    served = by_served_name(ref.rstrip("/").rsplit("/", 1)[-1])
    return {"resolved": _resolved(ref, base), "ids": candidate_ids(ref), "revision": list(split_revision(ref)),
            "path": [_is_local_path(ref), _is_store_path(ref)],
            "served": None if served is None else [served.model_id, served.source]}


def _compare(table: Path, got: dict[str, Any]) -> None:
    if os.environ.get("KVLINT_UPDATE_GOLDEN"):
        table.write_text(json.dumps(got, indent=1, sort_keys=True) + "\n")
    want = json.loads(table.read_text())
    differences = [f"{k!r}: pinned {want.get(k)} now {got.get(k)}" for k in sorted(want) if want.get(k) != got.get(k)]
    assert not differences, "\n".join(differences[:30])


PINNED = json.loads(NAMES.read_text()) if NAMES.exists() else {}


def test_the_table_is_updated_when_asked(tmp_path):
    if os.environ.get("KVLINT_UPDATE_GOLDEN"):
        clear_cache()
        _compare(NAMES, {ref: name_row(ref, tmp_path) for ref in sorted(PINNED)})


@pytest.mark.parametrize("ref", sorted(PINNED))
def test_each_reference_resolves_as_pinned(tmp_path, ref):
    """One case per reference: a change runs the references whose resolution reads its line."""
    clear_cache()
    assert name_row(ref, tmp_path) == PINNED[ref]


def test_names_given_twice_resolve_as_pinned(tmp_path):
    clear_cache()
    got = {f"{ref} | " + " | ".join(f"{n} ({h})" for n, h in aliases):
           _resolved(ref, tmp_path, tuple(ModelAlias(n, h) for n, h in aliases))
           for ref, aliases in EVIDENCE_CASES}
    _compare(EVIDENCE, got)


def test_the_table_shows_each_way_a_name_is_found():
    """Read, not only recorded: each source kind and the errors a user can act on are among the pinned rows."""
    rows = json.loads(NAMES.read_text())
    kinds = {row["resolved"][2] for row in rows.values() if row["resolved"][0] != "error"}
    assert {"bundled", "derived", "path-name"} <= kinds, kinds
    assert any(row["resolved"][4] for row in rows.values() if row["resolved"][0] != "error")  # a length doubt
    errors = [row["resolved"][2] for row in rows.values() if row["resolved"][0] == "error"]
    assert any("closest bundled" in e for e in errors) and any("not known offline" in e for e in errors)
    evidence = json.loads(EVIDENCE.read_text())
    assert any("two different models" in str(v) for v in evidence.values())
