"""Models sized from a bundled relative: quantized re-hosts and fine-tunes named after a bundled base.

Quantized re-hosts: `RedHatAI/Llama-3.3-70B-Instruct-FP8-dynamic` is the bundled
`meta-llama/Llama-3.3-70B-Instruct` config plus the quantization block its publisher writes for that suffix.

Each rule in registry/variants.json names a publisher, a name suffix and an exemplar: a bundled real
config of that publisher and suffix whose quantization block (quantization_config and ModelOpt's
hf_quant_config) is what the derived spec carries, so no quantization is invented here. A name is
derived only when its base resolves to exactly one unquantized bundled model of the same name; a
different size, family or a second candidate means no derivation (never a guess across architectures).

Fine-tunes (issue M item 4): 17 real fine-tune/base pairs kept layers, heads, KV heads, head_dim and hidden size
and changed max_position_embeddings, rope_theta, dtype or vocab (+16). A name that carries a bundled unquantized
base between dashes (`lab/my-Qwen2.5-7B-sft`), or that a rule of registry/derivations.json names
(`DeepSeek-R1-Distill-Llama-70B` -> Llama-3.3-70B-Instruct), is sized with the base's shapes and marked derived;
its context length is a doubt: every length the family's bundled configs derive is carried as a candidate
(ModelSpec.length_candidates) unless the rule states the fine-tune's own. A name whose remainder says another
architecture (Nemotron, Minitron, pruned), format (AWQ, FP8, GGUF), modality or length (-2507, -1M) is never derived.
"""

from __future__ import annotations

import copy
import re
from functools import lru_cache
from typing import Any

from kvlint.data import REGISTRY_DIR, load_json
from kvlint.lazyre import lazy
from kvlint.models.config import spec_from_config
from kvlint.models.spec import LengthCandidate, ModelSpec
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
    except_bases: tuple[str, ...] = ()  # base names (full regex match) whose real re-hosts follow another block

    def base_name(self, repo_id: str) -> tuple[str, str] | None:
        """(org, base name) when `repo_id` is this publisher's name with this suffix."""
        org, _, name = repo_id.partition("/")
        if org.lower() not in {p.lower() for p in self.publishers} or not name.lower().endswith(self.suffix.lower()):
            return None
        base = name[: -len(self.suffix)]
        if any(re.fullmatch(pattern, base, flags=re.IGNORECASE) for pattern in self.except_bases):
            return None  # the publisher's real configs of this family differ from the rule's block: no guess
        return (org, base) if base else None


@lru_cache(maxsize=1)
def variants() -> tuple[Variant, ...]:
    rows = load_json("variants.json", REGISTRY_DIR)["variants"]
    return tuple(
        Variant(tuple(r["publishers"]), r["suffix"], r["base_org"], r["scheme"], r.get("exemplar"),
                tuple(r["keep_ignore"]) if "keep_ignore" in r else None, r.get("convention"), r.get("source", ""),
                tuple(r.get("except_bases", ())))
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
        from kvlint.models.resolve import with_weights_check

        spec = with_weights_check(replace(spec, derived_from=label), base_entry["id"])
        if not how:
            return spec
        return carry_length_doubt(spec, "/".join(parts), base_entry["id"])  # the base stood in as a sibling
    return derive_fine_tune(repo_id) if exclude is None else None


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
    else:  # a bundled model of that name, or a fine-tune a rule of derivations.json names (under its own org)
        known = registry_ids() + alias_ids()
        candidates = [i for i in known if i.split("/", 1)[1].lower() == name.lower()] + \
            (rule_ids_named(name) if exclude is None else []) or [f"{org}/{name}"]
    found: dict[str, tuple[dict[str, Any], str]] = {}
    for candidate in candidates:
        hit = lookup_registry(candidate)
        by_rule = _by_rule(candidate) if hit is None and exclude is None else None
        if by_rule is not None:  # a base of derivations.json (Qwen3-Next-80B-A3B-Instruct from its -Thinking sibling)
            found[by_rule[0]["id"]] = (by_rule[0], f", {candidate}: {by_rule[1]}")
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


# ---------------------------------------------------------------- the length a stand-in cannot know

SIZE = r"\d+(?:\.\d+)?[bm]"
VARIANT_ENDINGS = ("-instruct", "-chat-hf", "-chat", "-it", "-hf")


def carry_length_doubt(spec: ModelSpec, wanted: str, found: str, *, fine_tune: bool = False) -> ModelSpec:
    """`found`'s config stands in for `wanted` (a sibling -Instruct, or a fine-tune named after it): shapes agree,
    the context length need not. The candidates are the lengths `found` and its bundled relatives derive
    (fine-tune: the whole family; sibling: the family's members of wanted's kind); when they differ, the spec
    carries them all and says so, and a verdict is given only where every candidate gives it."""
    candidates = _relatives_lengths(spec, wanted.lower(), found.lower(), fine_tune)
    distinct = sorted({(c.max_len_vllm, c.max_len_sglang) for c in candidates})
    if len(distinct) <= 1:
        return spec
    base = _bundled_spelling(found)
    how = f"is named after {base}, which stands in for it" if fine_tune else \
        f"is not bundled and {base} stands in for it"
    why = f"{wanted} {how}; this family's bundled configs differ in context length: {_grouped(candidates)}"
    return replace(spec, length_unknown=why, length_floor=min(v for v, _ in distinct),
                   length_candidates=tuple(candidates))


def _grouped(candidates: list[LengthCandidate]) -> str:
    """`131,072 (Qwen/Qwen2.5-14B, ...) or 32,768 (Qwen/Qwen2.5-7B-Instruct, ...)`, in the candidates' order."""
    groups: dict[int, list[str]] = {}
    for c in candidates:
        groups.setdefault(c.max_len_vllm, []).append(c.source)
    return " or ".join(f"{length:,} ({', '.join(ids)})" for length, ids in groups.items())


def _relatives_lengths(spec: ModelSpec, wanted: str, found: str, fine_tune: bool) -> list[LengthCandidate]:
    """The stand-in's own lengths, then each bundled relative's (same org and family, any size)."""
    from kvlint.models.resolve import lookup_registry, registry_ids

    own = LengthCandidate(spec.max_len_vllm, spec.max_len_sglang, _bundled_spelling(found))
    family, _ = _family(found)
    if family is None:
        return [own]
    want_variant = _ending(wanted) is not None
    out = [own]
    for model_id in sorted(registry_ids()):
        key = model_id.lower()
        if key == found or not _member(key, family):
            continue
        if not fine_tune and (_ending(key) is not None) != want_variant:
            continue
        hit = lookup_registry(model_id)
        if hit is None or _is_quantized(hit[0]):
            continue
        relative = spec_from_config(hit[0]["config"], model_id, f"bundled:{model_id}")
        out.append(LengthCandidate(relative.max_len_vllm, relative.max_len_sglang, model_id))
    return out


def _member(key: str, family: str) -> bool:
    """`qwen/qwen2.5-` + a size and at most a variant ending (`14b`, `7b-instruct`, `7b-chat-hf`)."""
    return key.startswith(family) and _SIZED_MEMBER.fullmatch(key[len(family):]) is not None


def _bundled_spelling(key: str) -> str:
    from kvlint.models.resolve import registry_ids

    return next((i for i in registry_ids() if i.lower() == key), key)


def _ending(key: str) -> str | None:
    return next((e for e in VARIANT_ENDINGS if key.endswith(e)), None)


def _family(key: str) -> tuple[str | None, str]:
    """(`org/family-` prefix, size) of `qwen/qwen2.5-14b[-instruct]`; None when the name has no trailing size."""
    ending = _ending(key)
    base = key[: -len(ending)] if ending else key
    match = _SIZED_FAMILY.fullmatch(base)
    return (match.group(1), match.group(2)) if match else (None, "")


# ---------------------------------------------------------------- fine-tunes named after a bundled base

# A fine-tune keeps its base's shapes (17 real pairs compared, issue M); a name with one of these words outside the
# base it carries is another architecture or another checkpoint format, and is never derived by name.
NOT_A_FINE_TUNE = ("nemotron", "minitron", "prun", "puzzle", "distill-to", "moe", "upscal", "merge", "franken",
                   "awq", "gptq", "gguf", "fp8", "fp4", "nvfp4", "mxfp4", "int4", "int8", "w4a16", "w8a8", "w8a16",
                   "w4a8", "bnb", "4bit", "8bit", "exl2", "mlx", "quant", "vl", "vision", "embed", "rerank",
                   "reward", "rm", "lora", "adapter", "draft", "eagle", "medusa", "mtp", "onnx", "tts", "audio",
                   "long", "yarn", "ctx", "context", "1m", "llava", "vila", "ov", "clip", "siglip", "omni", "image",
                   "video", "ocr", "speech")
# A dated or numbered re-release after the base (`Qwen3-235B-A22B-Instruct-2507`: 262,144 positions against the
# base's 40,960) or a context tag (`-128k`) is retrained for another length that no bundled relative shows.
RE_RELEASE = r"(^|[-_])(\d{4}|\d+k)($|[-_])"
# compiled once: each asked per unknown model and bundled relative (a search per word was ~60 pattern lookups)
_OTHER_THAN_A_FINE_TUNE = lazy(r"(?:^|[-_.])(?:" + "|".join(re.escape(w) for w in NOT_A_FINE_TUNE) + ")|" + RE_RELEASE)
_SIZED_MEMBER = lazy(SIZE + r"(-[a-z]+(-hf)?)?")
_SIZED_FAMILY = lazy(rf"(.*?[-_])({SIZE})")


@lru_cache(maxsize=1)
def rules() -> tuple[dict[str, Any], ...]:
    """registry/derivations.json: names that do not carry their base literally, each rule with its source."""
    return tuple(load_json("derivations.json", REGISTRY_DIR)["rules"])


def derive_fine_tune(repo_id: str) -> ModelSpec | None:
    """`org/...-Qwen2.5-7B-...`: the one unquantized bundled base whose name the id carries (or a rule of
    derivations.json names), with its shapes, marked derived, and the family's lengths as candidates (unless the
    rule states the fine-tune's own length)."""
    rule = _by_rule(repo_id)
    hit = (rule[0], rule[1]) if rule is not None else _carried_base(repo_id)
    if hit is None:
        return None
    entry, why = hit
    spec = spec_from_config(entry["config"], repo_id, f"derived:{entry['id']}")
    from kvlint.models.resolve import with_weights_check

    spec = with_weights_check(replace(spec, derived_from=f"{entry['id']} ({why})"), entry["id"])
    if rule is not None and rule[2]:
        return spec
    return carry_length_doubt(spec, repo_id, entry["id"], fine_tune=True)


def _by_rule(repo_id: str) -> tuple[dict[str, Any], str, bool] | None:
    """(base entry, why, whether the rule states the fine-tune's own length) of the rule matching the id."""
    from kvlint.models.resolve import lookup_registry

    for rule in rules():
        match = re.fullmatch(rule["pattern"], repo_id, flags=re.IGNORECASE)
        if match is None:
            continue
        hit = lookup_registry(match.expand(rule["base"]))
        if hit is not None and not _is_quantized(hit[0]):
            positions = rule.get("max_position_embeddings")
            return _with_length(hit[0], positions), rule["why"], positions is not None
    return None


def rule_ids_named(name: str) -> list[str]:
    """The Hub ids a rule of derivations.json derives whose name (the part after the org) is `name`: a re-host's
    base or a path's last segment (`/models/DeepSeek/DeepSeek-R1-Distill-Llama-70B`) names the fine-tune by its
    name alone, under another org or none. Only a rule whose org is written literally is read so."""
    out = []
    for rule in rules():
        org = rule["pattern"].split("/", 1)[0].replace("\\.", ".")
        if re.fullmatch(r"[\w.\-]+", org) and re.fullmatch(rule["pattern"], f"{org}/{name}", flags=re.IGNORECASE):
            out.append(f"{org}/{name}")
    return out


def _with_length(entry: dict[str, Any], positions: int | None) -> dict[str, Any]:
    """The base entry with the fine-tune's own max_position_embeddings, when a rule states it (with its source)."""
    if positions is None:
        return entry
    out = copy.deepcopy(entry)
    text = out["config"].get("text_config") if isinstance(out["config"].get("text_config"), dict) else out["config"]
    text["max_position_embeddings"] = positions
    return out


def _carried_base(repo_id: str) -> tuple[dict[str, Any], str] | None:
    """The longest bundled base name with a size (`Llama-3.1-8B`) that the id's name carries between dashes."""
    from kvlint.models.resolve import alias_ids, lookup_registry, registry_ids

    name = repo_id.split("/", 1)[-1].lower()
    known_names, sized = _known_bases(tuple(registry_ids() + alias_ids()))
    if name in known_names:
        return None  # a bundled model's own name under another org or path: a copy, matched (or not) by name only
    found: dict[str, tuple[int, dict[str, Any]]] = {}
    for known, base in sized:
        at = _bounded_find(name, base)
        if at < 0:
            continue
        rest = (name[:at] + "-" + name[at + len(base):]).lower()
        if _not_a_fine_tune(rest):
            return None  # a re-architected, quantized, other-modality or re-released derivative: never by name
        hit = lookup_registry(known)
        if hit is None or _is_quantized(hit[0]):
            continue
        found.setdefault(hit[0]["id"], (len(base), hit[0]))
    if not found:
        return None
    longest = max(n for n, _ in found.values())
    best = [entry for n, entry in found.values() if n == longest]
    if len(best) > 1 and not _same_shapes(best):
        return None
    return best[0], "fine-tune named after it"


def _not_a_fine_tune(rest: str) -> bool:
    """The name outside the base it carries says another architecture, format, modality or length."""
    return _OTHER_THAN_A_FINE_TUNE.search(rest) is not None


@lru_cache(maxsize=2)
def _known_bases(known_ids: tuple[str, ...]) -> tuple[frozenset[str], tuple[tuple[str, str], ...]]:
    """The bundled names (lower case) and the (id, name) of those with a size: the same for every id asked about,
    so made once, not once per unknown model (two searches per bundled id)."""
    bases = [(known, known.split("/", 1)[1].lower()) for known in known_ids]
    sized = tuple((known, base) for known, base in bases
                  if re.search(rf"(^|-){SIZE}($|-)", base) or re.search(rf"-{SIZE}-", f"-{base}-"))
    return frozenset(base for _, base in bases), sized


def _bounded_find(name: str, base: str) -> int:
    """Where `base` occurs in `name` with a dash, underscore or slash before it (or the start) and a dash,
    underscore or the end after it, else -1. A scan, not a pattern per base: compiling one for each of the
    registry's names cost more than the scans."""
    at = name.find(base)
    while at >= 0:
        end = at + len(base)
        if (at == 0 or name[at - 1] in "-_/") and (end == len(name) or name[end] in "-_" or name[end:] == "\n"):
            return at
        at = name.find(base, at + 1)
    return -1
