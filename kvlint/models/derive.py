"""Quantized re-hosts of bundled models: `RedHatAI/Llama-3.3-70B-Instruct-FP8-dynamic` is the bundled
`meta-llama/Llama-3.3-70B-Instruct` config plus the quantization block its publisher writes for that suffix.

Each rule in registry/variants.json names a publisher, a name suffix and an exemplar: a bundled real
config of that publisher and suffix whose quantization block (quantization_config and ModelOpt's
hf_quant_config) is what the derived spec carries, so no quantization is invented here. A name is
derived only when its base resolves to exactly one unquantized bundled model of the same name; a
different size, family or a second candidate means no derivation (never a guess across architectures).
"""

from __future__ import annotations

import copy
from functools import lru_cache
from typing import Any

from kvlint.data import REGISTRY_DIR, load_json
from kvlint.models.config import spec_from_config
from kvlint.models.spec import ModelSpec
from kvlint.record import field, record, replace

IGNORE_KEYS = ("ignore", "modules_to_not_convert", "exclude_modules", "ignored_layers")


@record
class Variant:
    publishers: tuple[str, ...]
    suffix: str
    base_org: str  # "same" | "any"
    scheme: str
    exemplar: str | None  # a bundled real config of this convention, or None with `convention`
    keep_ignore: tuple[str, ...] | None = None
    convention: dict[str, Any] | None = field(default=None, compare=False, hash=False)
    source: str = ""  # where the convention's block is written (the publisher's own quantization tool)

    def base_name(self, repo_id: str) -> tuple[str, str] | None:
        """(org, base name) when `repo_id` is this publisher's name with this suffix."""
        org, _, name = repo_id.partition("/")
        if org.lower() not in {p.lower() for p in self.publishers} or not name.lower().endswith(self.suffix.lower()):
            return None
        base = name[: -len(self.suffix)]
        return (org, base) if base else None


@lru_cache(maxsize=1)
def variants() -> tuple[Variant, ...]:
    rows = load_json("variants.json", REGISTRY_DIR)["variants"]
    return tuple(
        Variant(tuple(r["publishers"]), r["suffix"], r["base_org"], r["scheme"], r.get("exemplar"),
                tuple(r["keep_ignore"]) if "keep_ignore" in r else None, r.get("convention"), r.get("source", ""))
        for r in rows
    )


def derive(repo_id: str, *, exclude: str | None = None) -> ModelSpec | None:
    """The derived spec of a known publisher's quantized name, or None. `exclude` leaves one bundled id
    out of the base and exemplar search (the derived-versus-real test derives a bundled variant anew)."""

    for rule in variants():
        parts = rule.base_name(repo_id)
        if parts is None:
            continue
        base = _base_entry(rule, *parts, exclude=exclude)
        block = _block(rule)
        if base is None or block is None:
            continue
        base_entry, how = base
        cfg, side = _with_quantization(base_entry["config"], block, rule)
        spec = spec_from_config(cfg, repo_id, f"derived:{base_entry['id']}", hf_quant_config=side)
        label = f"{base_entry['id']}{how} ({rule.scheme})"
        spec = replace(spec, derived_from=label)
        if not how:
            return spec
        from kvlint.models.resolve import with_length_doubt  # the base was found as a sibling (-Instruct)

        return with_length_doubt(spec, "/".join(parts), base_entry["id"])
    return None


def _block(rule: Variant) -> dict[str, Any] | None:
    """The registry entry whose quantization block a derived spec carries: the exemplar's, or the convention."""
    from kvlint.models.resolve import lookup_registry

    if rule.exemplar is not None:
        found = lookup_registry(rule.exemplar)
        return found[0] if found is not None else None
    return {"config": rule.convention} if rule.convention else None


def _base_entry(rule: Variant, org: str, name: str, *, exclude: str | None) -> tuple[dict[str, Any], str] | None:
    """The one unquantized bundled base of that name (directly, by alias or -Instruct sibling)."""
    from kvlint.models.resolve import alias_ids, lookup_registry, registry_ids

    if rule.base_org == "same":
        candidates = [f"{org}/{name}"]
    else:
        known = registry_ids() + alias_ids()
        candidates = [i for i in known if i.split("/", 1)[1].lower() == name.lower()] or [f"{org}/{name}"]
    found: dict[str, tuple[dict[str, Any], str]] = {}
    for candidate in candidates:
        hit = lookup_registry(candidate)
        if hit is None or hit[0]["id"].lower() == (exclude or "").lower():
            continue
        entry, by_alias = hit
        found[entry["id"]] = (entry, f", by alias of {candidate}" if by_alias else "")
    if not found or (len(found) > 1 and not _same_shapes([e for e, _ in found.values()])):
        return None  # two different models of that name: never a guess
    exact = [k for k in found if k.split("/", 1)[1].lower() == name.lower()]
    entry, how = found[exact[0] if exact else sorted(found)[0]]
    if _is_quantized(entry):
        return None  # never stack a second quantization on a quantized checkpoint
    return entry, (f" [{how[2:]}]" if how else "")


SHAPE_KEYS = ("architectures", "hidden_size", "intermediate_size", "num_hidden_layers", "num_attention_heads",
              "num_key_value_heads", "head_dim", "vocab_size", "tie_word_embeddings", "torch_dtype")


def _same_shapes(entries: list[dict[str, Any]]) -> bool:
    """Bundled copies of one model under two names (a renamed repository): the same shapes, key by key."""
    shapes = {tuple(repr(e["config"].get(k)) for k in SHAPE_KEYS) for e in entries}
    return len(shapes) == 1 and not any(_is_quantized(e) for e in entries)


def _is_quantized(entry: dict[str, Any]) -> bool:
    cfg = entry["config"]
    text = cfg.get("text_config") if isinstance(cfg.get("text_config"), dict) else {}
    return bool(cfg.get("quantization_config") or text.get("quantization_config") or entry.get("hf_quant_config"))


def _with_quantization(
    base: dict[str, Any], exemplar: dict[str, Any], rule: Variant
) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """The base config carrying the exemplar's quantization block (its model-specific ignore entries dropped)."""
    cfg = copy.deepcopy(base)
    quant = copy.deepcopy(exemplar["config"].get("quantization_config"))
    side = copy.deepcopy(exemplar.get("hf_quant_config"))
    if isinstance(quant, dict):
        cfg["quantization_config"] = _keep(quant, rule.keep_ignore)
    if isinstance(side, dict) and isinstance(side.get("quantization"), dict):
        side["quantization"] = _keep(side["quantization"], rule.keep_ignore)
    return cfg, side


def _keep(block: dict[str, Any], keep: tuple[str, ...] | None) -> dict[str, Any]:
    if keep is None:
        return block
    for key in IGNORE_KEYS:
        if isinstance(block.get(key), list):
            block[key] = [p for p in block[key] if p in keep]
    return block
