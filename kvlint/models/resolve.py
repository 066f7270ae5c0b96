"""Model reference -> ModelSpec, offline first.

Order: a local path -> the user's `models:` overrides -> the Hugging Face cache (no network) -> the
Hub (only when online) -> the bundled registry -> a quantized re-host derived from a bundled base
(kvlint.models.derive). A reference that is a path names its model by a Hub id inside it
(`/models/Org/Name`, an HF cache folder `models--Org--Name/snapshots/<sha>`) or by its last segment;
when such a path resolves to nothing, the other names the launch gives (`--served-model-name`, an
env var: Deployment.model_aliases) are tried in order. `ModelSpec.source` says which way won and
`source_kind` names it. huggingface_hub is imported only when a cache entry for the id exists on disk
or --online is given, so `kvlint check` on bundled models stays fast.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping, Sequence
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kvlint.data import REGISTRY_DIR, load_json
from kvlint.errors import UnknownModelError
from kvlint.findings import short as short_text
from kvlint.lazyre import lazy
from kvlint.models.config import spec_from_config
from kvlint.models.hub import HubMissing, HubUnreachable
from kvlint.models.spec import ModelSpec
from kvlint.record import replace

if TYPE_CHECKING:
    from kvlint.deployment import ModelAlias

REMOTE_SCHEMES = ("s3://", "gs://", "gcs://", "pvc://", "oci://", "azure://", "abfs://")
HUB_ID = lazy(r"^[A-Za-z0-9][\w.\-]*/[\w.\-]+$")
HF_CACHE_FOLDER = lazy(r"^models--([A-Za-z0-9][\w.\-]*?)--([\w.\-]+)$")
_NOT_IN_AN_ID = lazy(r"\s|[^/@\s]+:[^/@\s]+@")  # what no Hub id holds: blanks, a `user:password@`
HUB_URL = lazy(r"^https?://(?:www\.)?(?:huggingface\.co|hf\.co)/([\w.\-]+)/([\w.\-]+)", re.IGNORECASE)
# Folders a relative model path starts with, never a Hub org (kvlint.launches.facts reads paths with the same
# list, _GENERIC_DIRS; models sit before the readers, so it is kept here too and a test keeps them equal)
PATH_FOLDERS = frozenset({
    "models", "model", "data", "mnt", "weights", "checkpoints", "checkpoint", "ckpt", "tmp", "home", "root", "cache",
    ".cache", "hf", "huggingface", "hub", "output", "outputs", "workspace", "opt", "var", "srv", "snapshots", "local",
    "shared", "storage", "llm", "llms", "volume", "volumes", "app", "usr", "share"})
# Suffixes of chat/instruct variants that keep the base architecture (never quantization markers).
VARIANT_SUFFIXES = ("-instruct", "-chat", "-it", "-hf", "-chat-hf")
HOW_TO_FIX = (
    "give a local path to its config.json, map it under `models:` in .kvlint.yaml, "
    "download it into the Hugging Face cache, or pass --online"
)


def resolve_model(
    ref: str,
    *,
    online: bool = False,
    overrides: Mapping[str, str] | None = None,
    base_dir: str | os.PathLike[str] | None = None,
    aliases: Sequence[ModelAlias] = (),
) -> ModelSpec:
    """Find a config.json for `ref` and read it; raises UnknownModelError with how to fix it.

    `aliases` (Deployment.model_aliases) are other names the launch gives its model. For a reference that is a
    path or a store URL (no config.json of its own), the model is identified from all the evidence: the
    path's own name and each alias; the first that names a known model wins and the spec's source says which
    (`served-name:Qwen/Qwen3-8B`, `env:MODEL_ID:...`, `path:...`). When two name different known models,
    ModelConflict names both places instead of guessing. A served name is weaker evidence (WEAK_ALIASES): it
    is read only when nothing else names the model, and never against a path that names quantized weights.
    A Hub id, or a path with its own config.json,
    is the model whatever else the launch says.
    """
    if not isinstance(ref, str) or not ref.strip():
        raise UnknownModelError("empty model reference", HOW_TO_FIX)
    items = tuple(sorted((str(k), str(v)) for k, v in (overrides or {}).items()))
    base = str(base_dir) if base_dir is not None else os.getcwd()
    name = ref.strip()
    by_evidence = bool(aliases) and _is_store_path(name)
    try:
        own: ModelSpec | None = _resolve_cached(name, online, items, base, _hf_cache_dir())
    except UnknownModelError:
        if not by_evidence:
            raise
        own = None
    if own is not None and by_evidence and _BY_ALIAS in own.source and (sharper := _sharper(name, aliases, online,
                                                                                            items, base)):
        return sharper
    if own is not None and (not by_evidence or source_kind(own) in ("local", "override")):
        return own
    found = ([("the path's name " + short_text(name), own)] if own is not None else [])
    found += [(place_of(a), spec) for a in aliases
              if a.how not in WEAK_ALIASES and (spec := _alias_spec(a, online, items, base)) is not None]
    _no_conflict(found)
    if not found:  # only then a served name, and only one that fits what the path says of the weights
        found = [(place_of(a), spec) for a in aliases if a.how in WEAK_ALIASES
                 and (spec := _alias_spec(a, online, items, base)) is not None and hint_fits(name, spec)]
        _no_conflict(found)
    if not found:
        return _resolve_cached(name, online, items, base, _hf_cache_dir())  # raises again, with its reason
    return found[0][1]


_BY_ALIAS = "(by alias of "


def _sharper(path: str, aliases: Sequence[ModelAlias], online: bool, items: tuple[tuple[str, str], ...],
             base: str) -> ModelSpec | None:
    """The model a served name names when it is the path's own name made exact (sample K351: a folder
    `.../Qwen/Qwen3-4B-Instruct`, a name kvlint knows only as another spelling of Qwen3-4B, served as
    `qwen3-4b-instruct-2507`, a published model of its own with four times the context): the path abbreviates the
    release the served name spells out. Only a name the registry knows as such (not by another alias) counts."""
    tail = re.split(r"[/\\]+", path.rstrip("/\\"))[-1].lower()
    for alias in aliases:
        served = alias.name.rsplit("/", 1)[-1].lower()
        if alias.how in WEAK_ALIASES and len(served) > len(tail) + 1 and served.startswith(tail) \
                and served[len(tail)] in "-_.":
            spec = _alias_spec(alias, online, items, base)
            if spec is not None and _BY_ALIAS not in spec.source:
                return spec
    return None


# `--served-model-name` is the name the API answers to, not what the engine loads: never a conflict with the
# model the path or a download names, and a hint only when nothing stronger identifies it.
WEAK_ALIASES = ("served-name", "served-short", "display-name")
_QUANT_MARK = re.compile(r"(?i)(?:^|[-_.])(?:fp8|fp4|nvfp4|mxfp4|int4|int8|awq|gptq|w4a16|w8a8|w8a16|bnb|4bit|8bit"
                         r"|gguf|exl2|ggml|quantized)(?:$|[-_.])")


def hint_fits(path: str, spec: ModelSpec) -> bool:
    """A weak name fits a path unless the path's last segment names a quantized checkpoint and the name's
    model is not quantized: `/models/Qwen3.6-27B-FP8` served as `qwen3.6-27b` is FP8 weights, not BF16."""
    tail = re.split(r"[/\\]+", path.rstrip("/\\"))[-1]
    return spec.quant is not None or _QUANT_MARK.search(tail) is None


class ModelConflict(UnknownModelError):
    """The launch's evidence names two different known models (its path's name, a served name, a KServe
    `name:`...): kvlint does not guess which one the engine loads."""


def _alias_spec(alias: ModelAlias, online: bool, items: tuple[tuple[str, str], ...], base: str) -> ModelSpec | None:
    if alias.how == "served-short":
        return by_served_name(alias.name)
    try:
        spec = _resolve_cached(alias.name.strip(), online, items, base, _hf_cache_dir())
    except UnknownModelError:
        return None
    return replace(spec, source=f"{_alias_prefix(alias.how)}:{alias.name} ({spec.source})")


def _no_conflict(found: list[tuple[str, ModelSpec]]) -> None:
    """Two names are a conflict only when they lead to different configs: `/models/Qwen2.5-0.5B-Instruct` and
    `Qwen/Qwen2.5-0.5B-Instruct` both stand on Qwen/Qwen2.5-0.5B's config, and size the same whichever loads."""
    first: dict[ModelSpec, tuple[str, ModelSpec]] = {}
    for place, spec in found:
        first.setdefault(_sized_as(spec), (place, spec))
    if len(first) > 1:
        (pa, a), (pb, b) = list(first.values())[:2]
        raise ModelConflict(
            f"the launch names two different models: {a.model_id} ({pa}) and {b.model_id} ({pb}); kvlint does not "
            f"guess which one the engine loads",
            "make them agree, or map the path to its config.json under `models:` in .kvlint.yaml")


def _sized_as(spec: ModelSpec) -> ModelSpec:
    """The config's facts without the names it was reached by, nor what is uncertain about those names (the
    lengths a stand-in's siblings derive): two names that stand on one config are one model to size."""
    return replace(spec, model_id="", source="", derived_from=None, length_unknown=None, length_floor=None,
                   length_candidates=())


def place_of(alias: ModelAlias) -> str:
    """Where an alias was read, in the words of the file: `--served-model-name X, line 4`."""
    how = alias.how
    what = {"served-name": "--served-model-name", "served-short": "--served-model-name", "path": "the path",
            "storageUri": "storageUri", "model-name": "the model's name:", "download-repo": "the download repo",
            "oci-tag": "the OCI image tag", "oci-image": "the OCI image",
            "display-name": "the display name"}.get(how)
    if what is None:
        what = f"env {how[len('env:'):]}" if how.startswith("env:") else \
            f"the key {how[len('key:'):]}" if how.startswith("key:") else how
    line = f", line {alias.span.line}" if alias.span is not None else ""
    return f"{what} {short_text(alias.name)}{line}"


def _alias_prefix(how: str) -> str:
    """served-name | env:VAR | path | model-name (KServe `name:`, a chart key), as the source prefix."""
    if how.startswith("key:"):
        return "model-name"
    return how if how in ("served-name", "path", "model-name") or how.startswith("env:") else "alias"


def _is_local_path(ref: str) -> bool:
    """A filesystem path rather than a Hub id, URL or remote store reference (`models/Qwen3-8B`, relative
    under a folder no Hub org is named, is a path)."""
    if ref.lower().startswith(("hf://", "http://", "https://") + REMOTE_SCHEMES):
        return False
    if HUB_ID.match(ref):
        return ref.split("/", 1)[0].lower() in PATH_FOLDERS
    return ref.startswith(("/", ".", "~")) or "\\" in ref or "/" not in ref


def source_kind(spec: ModelSpec) -> str:
    """How the spec was found, for the per-launch status: lock (kvlint.lock), bundled, derived, hf-cache, local,
    override, hub, path-name (a Hub id read from a path), served-name, env-name or model-name (another name
    the launch gives: a served name, an env var, KServe's `name:` beside the URI)."""
    src = spec.source
    for prefix, kind in (("lock:", "lock"), ("model-name:", "model-name"), ("served-name:", "served-name"),
                         ("env:", "env-name"), ("path:", "path-name"), ("alias:", "served-name"),
                         ("derived:", "derived"), ("bundled:", "bundled"), ("hf-cache:", "hf-cache"),
                         ("override:", "override"), ("hub:", "hub")):
        if src.startswith(prefix):
            return kind
    return "local"


@lru_cache(maxsize=512)
def _resolve_cached(ref: str, online: bool, overrides: tuple[tuple[str, str], ...], base: str, cache: str) -> ModelSpec:
    name, revision = split_revision(ref)
    local = _local_config(name, Path(base))
    if local is not None:
        return _load_file(local, name, str(local))
    found = _from_overrides(name, dict(overrides), Path(base))
    if found is not None:
        return found
    spec, why = _known(ref, online, cache)
    if spec is None:
        raise UnknownModelError(why, HOW_TO_FIX)
    return spec


@lru_cache(maxsize=512)
def _known(ref: str, online: bool, cache: str) -> tuple[ModelSpec | None, str]:
    """The Hub cache's or the registry's spec for a name, or why there is none.

    Kept apart from the folder-dependent part above so a model named in a thousand folders is one object
    resolved once (the memory model's caches key by it), and an unknown one is searched for once."""
    name, revision = split_revision(ref)
    unreachable = None
    for repo_id in candidate_ids(name):
        try:
            spec = _from_hf(repo_id, revision, Path(cache), online)
        except HubUnreachable as exc:
            unreachable, spec = str(exc), None
        if spec is not None:
            return _label_path(spec, name), ""
    spec = from_registry(name)
    if spec is not None:
        return _label_path(spec, name), ""
    hub = f" and the Hub is unreachable ({unreachable})" if unreachable else ""
    return None, f"model {ref!r} is not known offline{hub}{_closest(name)}"


def _label_path(spec: ModelSpec, name: str) -> ModelSpec:
    """A Hub id read out of a path says so: `path:/models/Org/Name (bundled:Org/Name)`."""
    if not _is_local_path(name) or spec.source.startswith("path:"):
        return spec
    return replace(spec, source=f"path:{name} ({spec.source})")


@lru_cache(maxsize=256)
def _closest(name: str) -> str:
    """`; closest bundled: a, b` for a Hub-id-shaped name with near bundled names (KV002's message; memoised:
    a repository names the same unknown model in many files)."""
    ids = candidate_ids(name)
    if not ids:
        return ""
    from kvlint.suggest import close_matches  # only for a model the registry does not know

    known = registry_ids() + alias_ids()
    by_lower = {k.lower(): k for k in known}
    close = close_matches(ids[0].lower(), by_lower, n=3, cutoff=0.75)
    return f"; closest bundled: {', '.join(by_lower[c] for c in close)}" if close else ""


def clear_cache() -> None:
    """Forget memoised resolutions (tests that change the HF cache or files between calls)."""
    _resolve_cached.cache_clear()
    _known.cache_clear()
    _closest.cache_clear()
    _segment_derivations.cache_clear()


# ---------------------------------------------------------------- reference forms


def split_revision(ref: str) -> tuple[str, str | None]:
    """`org/name@rev` -> (`org/name`, `rev`); an `@` inside a URL's authority is not a revision."""
    head, sep, tail = ref.rpartition("@")
    if sep and head and tail and "/" not in tail and ":" not in tail:
        return head, tail
    return ref, None


def candidate_ids(name: str) -> list[str]:
    """Hub ids a reference may name: `hf://org/name`, `org/name`, or a path's last two segments."""
    stripped = name[len("hf://") :] if name.lower().startswith("hf://") else name
    if HUB_ID.match(stripped):
        return [stripped]
    url = HUB_URL.match(stripped)
    if url:
        return [f"{url.group(1)}/{url.group(2)}"]
    parts = [p for p in re.split(r"[/\\]+", stripped.split("://", 1)[-1]) if p]
    cached = [p for p in parts if HF_CACHE_FOLDER.match(p)]
    if cached:  # .../hub/models--Org--Name[/snapshots/<sha>]
        org, model = HF_CACHE_FOLDER.match(cached[-1]).groups()  # type: ignore[union-attr]
        return [f"{org}/{model}"]
    tail = f"{parts[-2]}/{parts[-1]}" if len(parts) >= 2 else ""
    # a path's last two segments are a Hub id only when shaped as one: never words, a `user:password@` or blanks (a
    # mangled `args:` scalar holding `s3://KEY:SECRET@b ... - --model - org/m`, fuzz seed 109, became a model id that
    # printed the secret with its scheme cut off)
    return [tail] if tail and not _NOT_IN_AN_ID.search(tail) else []


def _local_config(name: str, base: Path) -> Path | None:
    if name.lower().startswith(("hf://",) + REMOTE_SCHEMES):
        return None
    path = Path(os.path.expanduser(name))
    if not path.is_absolute():
        path = base / path
    if path.is_dir() and (path / "config.json").is_file():
        return path / "config.json"
    if path.is_file() and path.name.endswith(".json"):
        return path
    return None


def _from_overrides(name: str, overrides: dict[str, str], base: Path) -> ModelSpec | None:
    wanted = {name.lower(), *(c.lower() for c in candidate_ids(name))}
    for model_id, target in overrides.items():
        if model_id.lower() in wanted:
            path = _local_config(target, base)
            if path is None:
                raise UnknownModelError(
                    f"models: entry for {model_id!r} points to {target!r}, which has no config.json",
                    "fix the path in .kvlint.yaml",
                )
            return _load_file(path, model_id, f"override:{path}")
    return None


def _load_file(path: Path, model_id: str, source: str) -> ModelSpec:
    cfg = _read_json(path, model_id)
    side = path.parent / "hf_quant_config.json"
    hf_quant = _read_json(side, model_id) if side.is_file() else None
    return spec_from_config(cfg, model_id, source, hf_quant_config=hf_quant)


MAX_CONFIG_BYTES = 4 * 2**20  # real config.json files are under 100 KB; a 2 GB one took 4.1 GiB and 37 s


def shown_path(path: Path | str) -> str:
    """A path as a message shows it: relative to the working folder when it lies below it (a finding names the
    repository's files as the user does, not /home/someone/...), else as it is."""
    here = os.getcwd()
    full = os.path.abspath(path)
    return os.path.relpath(full, here) if full.startswith(here.rstrip(os.sep) + os.sep) else str(path)


def _reason(exc: BaseException) -> str:
    """An OSError's reason without the path it repeats; other errors as they say it."""
    return exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)


def _read_json(path: Path, model_id: str) -> dict[str, Any]:
    """A model's JSON file, read no further than MAX_CONFIG_BYTES (any source: `models:`, a path, the HF cache)."""
    try:
        with open(path, "rb") as fh:
            raw = fh.read(MAX_CONFIG_BYTES + 1)
        if len(raw) > MAX_CONFIG_BYTES:
            raise UnknownModelError(f"{model_id}: {shown_path(path)} is larger than {MAX_CONFIG_BYTES // 2**20} MiB, "
                                    "not a model config (real ones are under 100 KB); not read", HOW_TO_FIX)
        data = json.loads(raw.decode("utf-8"))
    except (OSError, ValueError, RecursionError) as exc:  # ValueError: bad JSON, UTF-8, a 5,001-digit integer
        raise UnknownModelError(f"{model_id}: cannot read {shown_path(path)}: {_reason(exc)}", HOW_TO_FIX) from None
    if not isinstance(data, dict):
        raise UnknownModelError(f"{model_id}: {shown_path(path)} is not a JSON object", HOW_TO_FIX)
    return data


# ---------------------------------------------------------------- Hugging Face cache and Hub


def _hf_cache_dir() -> str:
    """Where huggingface_hub keeps its cache, by the same environment variables it reads."""
    for var in ("HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE"):
        if os.environ.get(var):
            return os.path.expanduser(os.environ[var])
    if os.environ.get("HF_HOME"):
        return os.path.join(os.path.expanduser(os.environ["HF_HOME"]), "hub")
    xdg = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(xdg, "huggingface", "hub")


def _cached_repo_dir(cache: Path, repo_id: str) -> Path | None:
    """The cache folder of a repo, matched case-insensitively (Hub ids are case-insensitive)."""
    folder = "models--" + repo_id.replace("/", "--")
    exact = cache / folder
    if exact.is_dir():
        return exact
    if not cache.is_dir():
        return None
    return next((p for p in cache.iterdir() if p.name.lower() == folder.lower() and p.is_dir()), None)


def _from_hf(repo_id: str, revision: str | None, cache: Path, online: bool) -> ModelSpec | None:
    """The id's config from the HF cache, or (online) from the Hub through kvlint.models.hub's bounded
    requests; HubUnreachable when the Hub cannot be asked."""
    folder = _cached_repo_dir(cache, repo_id)
    if folder is None and not online:
        return None
    cached_id = folder.name[len("models--") :].replace("--", "/", 1) if folder is not None else repo_id
    path = _hf_download(cached_id, "config.json", revision, cache, local_only=True) if folder is not None else None
    if path is None and online:
        try:
            path = hub_download(cached_id, "config.json", revision, cache)
        except HubMissing:
            return None
    if path is None:
        return None
    side = _hf_download(cached_id, "hf_quant_config.json", revision, cache, local_only=True)
    hf_quant = _read_json(side, cached_id) if side is not None else None
    source = f"hf-cache:{path}" if folder is not None else f"hub:{cached_id}"
    return spec_from_config(_read_json(path, cached_id), cached_id, source, hf_quant_config=hf_quant)


def hub_download(repo_id: str, filename: str, revision: str | None, cache: Path) -> Path:
    """One file from the Hub into the cache (kvlint.models.hub: short timeouts, fail fast)."""
    from kvlint.models.hub import download

    return download(repo_id, filename, revision, cache)


def _hf_download(repo_id: str, filename: str, revision: str | None, cache: Path, *, local_only: bool) -> Path | None:
    """hf_hub_download from the cache only; any miss (not cached, unreadable) is None."""
    try:
        from huggingface_hub import hf_hub_download
    except ImportError:  # pragma: no cover - a declared dependency
        return None
    try:
        path = hf_hub_download(
            repo_id, filename, revision=revision, cache_dir=str(cache), local_files_only=local_only
        )
    except Exception:  # noqa: BLE001 - every cache miss means "not resolvable here", never a crash
        return None
    return Path(path)


# ---------------------------------------------------------------- bundled registry


@lru_cache(maxsize=1)
def _registry_index() -> dict[str, str]:
    """lower-case id -> file name of every bundled trimmed config."""
    index = {}
    for name in os.listdir(REGISTRY_DIR):
        if name.endswith(".json") and "--" in name:
            index[name[: -len(".json")].replace("--", "/", 1).lower()] = name
    return index


@lru_cache(maxsize=1)
def _aliases() -> dict[str, str]:
    return {k.lower(): v for k, v in load_json("aliases.json", REGISTRY_DIR)["aliases"].items()}


def registry_ids() -> list[str]:
    """Every bundled model id, as spelled on the Hub."""
    return list(_registry_ids())


@lru_cache(maxsize=1)
def _registry_ids() -> tuple[str, ...]:  # reads every bundled config: once per process, not once per unknown model
    return tuple(sorted(load_registry_entry(name)["id"] for name in _registry_index().values()))


def load_registry_entry(file_name: str) -> dict[str, Any]:
    return load_json(file_name, REGISTRY_DIR)


@lru_cache(maxsize=1)
def _unchecked_weights() -> dict[str, str]:
    return dict(load_json("weights.json", REGISTRY_DIR)["unchecked"])


def with_weights_check(spec: ModelSpec, bundled_id: str) -> ModelSpec:
    """The spec marked when its bundled config has no published total its weights were checked against
    (registry/weights.json `unchecked`; tests/models/test_published_weights.py checks the others within 1.5 %)."""
    reason = _unchecked_weights().get(bundled_id)
    return replace(spec, weights_unchecked=reason) if reason else spec


def alias_ids() -> list[str]:
    """Every id aliases.json maps to a bundled config, as spelled there."""
    return list(_alias_ids())


@lru_cache(maxsize=1)
def _alias_ids() -> tuple[str, ...]:
    return tuple(sorted(load_json("aliases.json", REGISTRY_DIR)["aliases"]))


def lookup_registry(repo_id: str) -> tuple[dict[str, Any], bool] | None:
    """(bundled entry, found by alias or sibling) for an id, or None."""
    hit = _registry_lookup(repo_id)
    if hit is None:
        return None
    file_name, by_alias = hit
    return load_registry_entry(file_name), by_alias


def from_registry(name: str) -> ModelSpec | None:
    """A bundled config for the id (or a path's tail), directly or by alias, or derived from a bundled base."""
    ids = candidate_ids(name) or [name]
    for repo_id in ids:
        hit = _registry_lookup(repo_id)
        if hit is not None:
            file_name, how = hit
            entry = load_registry_entry(file_name)
            source = f"bundled:{entry['id']}" + (f" (by alias of {repo_id})" if how else "")
            spec = spec_from_config(entry["config"], entry["id"], source, hf_quant_config=entry.get("hf_quant_config"))
            spec = with_weights_check(spec, entry["id"])
            return with_length_doubt(spec, repo_id, spec.model_id) if how else spec
    from kvlint.models.derive import derive  # only for a name not bundled as such

    for repo_id in ids:
        derived = derive(repo_id)
        if derived is not None:
            return derived
    return _by_last_segment(name) if _is_store_path(name) else None


def _is_store_path(name: str) -> bool:
    """A local path or a remote store URL (s3://, pvc://, ...), not a Hub id in any spelling."""
    if name.lower().startswith("hf://") or HUB_URL.match(name):
        return False
    return _is_local_path(name) or "://" in name


def _by_last_segment(name: str, how: str = "path") -> ModelSpec | None:
    """`/models/Llama-3.1-8B-Instruct`: a path whose last segment names exactly one bundled model. A Hub id
    of another org (`neuralmagic/Meta-Llama-3.1-405B-Instruct-FP8`) is another repo, never matched so."""
    tail = re.split(r"[/\\]+", name.rstrip("/\\"))[-1].lower()
    index = _registry_index()
    hits = [key for key in index if key.split("/", 1)[1] == tail]
    if not hits:  # a mirror's or an old name (Meta-Llama-3.1-70B-Instruct): the alias table names its config
        hits = sorted({target.lower() for alias, target in _aliases().items()
                       if alias.split("/", 1)[1] == tail and target.lower() in index})
    if len(hits) != 1:
        return _derived_by_last_segment(name, tail)
    entry = load_registry_entry(index[hits[0]])
    source = f"{how}:{name} (bundled:{entry['id']}, by {how.removesuffix('-name')} name)"
    return spec_from_config(entry["config"], entry["id"], source, hf_quant_config=entry.get("hf_quant_config"))


def by_served_name(name: str) -> ModelSpec | None:
    """`--served-model-name opt-125m` beside a model path: the one bundled model of that name under any org
    (two of that name, or none: no guess). Only ever a second name of a launch whose own reference is a path."""
    if "/" in name or not re.fullmatch(r"[\w.\-]{3,96}", name):
        return None
    return _by_last_segment(name, "served-name")


def _derived_by_last_segment(name: str, tail: str) -> ModelSpec | None:
    """`/models/Qwen2.5-72B-Instruct-GPTQ-Int4`: a segment spelt the way exactly one publisher names its
    quantized variants of a bundled base, or `/models/DeepSeek/DeepSeek-R1-Distill-Llama-70B`: the name of a
    fine-tune a rule of derivations.json derives (two different results, or none: no guess; path_candidates
    gives the several)."""
    found = _segment_derivations(name, tail)
    if len(found) != 1:
        return None
    spec = found[0]
    return replace(spec, source=f"path:{name} ({spec.source}, by path name)")


def path_candidates(ref: str) -> tuple[ModelSpec, ...]:
    """The models a path's last segment may name when several publishers' conventions derive it differently
    (`/models/Qwen3.6-27B-FP8`: Qwen's block FP8, nvidia's ModelOpt FP8, the AutoFP8 per-tensor FP8), each marked
    as read from the path; () when the segment names one model or none. The resolver sizes the launch on each
    and keeps the verdicts they agree on (kvlint.resolve: an open input)."""
    if not isinstance(ref, str) or not _is_store_path(ref.strip()):
        return ()
    name = ref.strip()
    tail = re.split(r"[/\\]+", name.rstrip("/\\"))[-1].lower()
    found = _segment_derivations(name, tail)
    if len(found) < 2:
        return ()
    return tuple(replace(s, source=f"path:{name} ({s.source}, by path name, as {s.model_id})") for s in found)


@lru_cache(maxsize=256)
def _segment_derivations(name: str, tail: str) -> tuple[ModelSpec, ...]:
    """Every distinct spec the segment derives: by a fine-tune rule, or as each publisher's quantized variant."""
    from kvlint.models.derive import derive, derive_fine_tune, rule_ids_named, variants

    segment = re.split(r"[/\\]+", name.rstrip("/\\"))[-1]
    found: dict[tuple[Any, ...], ModelSpec] = {}
    for repo_id in rule_ids_named(segment):
        spec = derive_fine_tune(repo_id)
        if spec is not None:
            found[(spec.source, spec.derived_from, spec.quant)] = spec
    for rule in variants():
        if not tail.endswith(rule.suffix.lower()):
            continue
        for publisher in rule.publishers:
            spec = derive(f"{publisher}/{segment}")
            if spec is not None:
                found[(spec.source, spec.derived_from, spec.quant)] = spec
    return tuple(found.values())


def _registry_lookup(repo_id: str) -> tuple[str, bool] | None:
    index, key = _registry_index(), repo_id.lower()
    if key in index:
        return index[key], False
    target = _aliases().get(key)
    if target is not None and target.lower() in index:
        return index[target.lower()], True
    for variant in _variants(key):
        if variant in index:
            return index[variant], True
    return None


def with_length_doubt(spec: ModelSpec, wanted: str, found: str) -> ModelSpec:
    """A sibling's config (`Qwen/Qwen2.5-14B` for `Qwen/Qwen2.5-14B-Instruct`) has the same shapes, but not
    always the same context length: where the family's bundled configs differ (Qwen2.5-7B 131,072 vs
    Qwen2.5-7B-Instruct 32,768), the spec carries each length as a candidate (kvlint.models.derive)."""
    if wanted.lower() == found.lower() or wanted.lower() in _aliases():
        return spec
    from kvlint.models.derive import carry_length_doubt  # the candidates each relative gives (M item 4)

    return carry_length_doubt(spec, wanted, found)


def _variants(key: str) -> list[str]:
    """The base id of an -Instruct/-chat variant, or the variant of a base id (same architecture)."""
    out = []
    for suffix in VARIANT_SUFFIXES:
        if key.endswith(suffix):
            out.append(key[: -len(suffix)])
        out.append(key + suffix)
    return out
