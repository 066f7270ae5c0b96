"""Model reference -> ModelSpec, offline first.

Order: a local path -> the user's `models:` overrides -> the Hugging Face cache (no network) -> the
Hub (only when online) -> the bundled registry. huggingface_hub is imported only when a cache entry
for the id exists on disk or --online is given, so `kvlint check` on bundled models stays fast.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

from kvlint.data import REGISTRY_DIR, load_json
from kvlint.errors import UnknownModelError
from kvlint.models.config import spec_from_config
from kvlint.models.spec import ModelSpec

REMOTE_SCHEMES = ("s3://", "gs://", "gcs://", "pvc://", "oci://", "azure://", "abfs://")
HUB_ID = re.compile(r"^[A-Za-z0-9][\w.\-]*/[\w.\-]+$")
HUB_URL = re.compile(r"^https?://(?:www\.)?(?:huggingface\.co|hf\.co)/([\w.\-]+)/([\w.\-]+)", re.IGNORECASE)
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
) -> ModelSpec:
    """Find a config.json for `ref` and read it; raises UnknownModelError with how to fix it."""
    if not isinstance(ref, str) or not ref.strip():
        raise UnknownModelError("empty model reference", HOW_TO_FIX)
    items = tuple(sorted((str(k), str(v)) for k, v in (overrides or {}).items()))
    base = str(base_dir) if base_dir is not None else os.getcwd()
    return _resolve_cached(ref.strip(), online, items, base, _hf_cache_dir())


@lru_cache(maxsize=512)
def _resolve_cached(ref: str, online: bool, overrides: tuple[tuple[str, str], ...], base: str, cache: str) -> ModelSpec:
    name, revision = split_revision(ref)
    local = _local_config(name, Path(base))
    if local is not None:
        return _load_file(local, name, str(local))
    found = _from_overrides(name, dict(overrides), Path(base))
    if found is not None:
        return found
    for repo_id in candidate_ids(name):
        spec = _from_hf(repo_id, revision, Path(cache), online)
        if spec is not None:
            return spec
    spec = from_registry(name)
    if spec is not None:
        return spec
    raise UnknownModelError(f"model {ref!r} is not known offline", HOW_TO_FIX)


def clear_cache() -> None:
    """Forget memoised resolutions (tests that change the HF cache or files between calls)."""
    _resolve_cached.cache_clear()


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
    return [f"{parts[-2]}/{parts[-1]}"] if len(parts) >= 2 else []


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


def _read_json(path: Path, model_id: str) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise UnknownModelError(f"{model_id}: cannot read {path}: {exc}", HOW_TO_FIX) from None
    if not isinstance(data, dict):
        raise UnknownModelError(f"{model_id}: {path} is not a JSON object", HOW_TO_FIX)
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
    folder = _cached_repo_dir(cache, repo_id)
    if folder is None and not online:
        return None
    cached_id = folder.name[len("models--") :].replace("--", "/") if folder is not None else repo_id
    path = _hf_download(cached_id, "config.json", revision, cache, local_only=not online)
    if path is None:
        return None
    side = _hf_download(cached_id, "hf_quant_config.json", revision, cache, local_only=True)
    hf_quant = _read_json(side, cached_id) if side is not None else None
    source = f"hf-cache:{path}" if folder is not None else f"hub:{cached_id}"
    return spec_from_config(_read_json(path, cached_id), cached_id, source, hf_quant_config=hf_quant)


def _hf_download(repo_id: str, filename: str, revision: str | None, cache: Path, *, local_only: bool) -> Path | None:
    """hf_hub_download without network unless asked; any miss (not cached, gated, offline) is None."""
    try:
        from huggingface_hub import hf_hub_download
    except ImportError:  # pragma: no cover - a declared dependency
        return None
    try:
        path = hf_hub_download(
            repo_id, filename, revision=revision, cache_dir=str(cache), local_files_only=local_only
        )
    except Exception:  # noqa: BLE001 - every hub failure means "not resolvable here", never a crash
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
    return sorted(load_registry_entry(name)["id"] for name in _registry_index().values())


def load_registry_entry(file_name: str) -> dict[str, Any]:
    return load_json(file_name, REGISTRY_DIR)


def from_registry(name: str) -> ModelSpec | None:
    """A bundled config for the id (or a path's tail), directly or by alias."""
    for repo_id in candidate_ids(name) or [name]:
        hit = _registry_lookup(repo_id)
        if hit is not None:
            file_name, how = hit
            entry = load_registry_entry(file_name)
            source = f"bundled:{entry['id']}" + (f" (by alias of {repo_id})" if how else "")
            return spec_from_config(entry["config"], entry["id"], source, hf_quant_config=entry.get("hf_quant_config"))
    return _by_last_segment(name)


def _by_last_segment(name: str) -> ModelSpec | None:
    """`/models/Llama-3.1-8B-Instruct`: a path whose last segment names exactly one bundled model."""
    tail = re.split(r"[/\\]+", name.rstrip("/\\"))[-1].lower()
    hits = [key for key in _registry_index() if key.split("/", 1)[1] == tail]
    if len(hits) != 1:
        return None
    entry = load_registry_entry(_registry_index()[hits[0]])
    source = f"bundled:{entry['id']} (by path name {name})"
    return spec_from_config(entry["config"], entry["id"], source, hf_quant_config=entry.get("hf_quant_config"))


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


def _variants(key: str) -> list[str]:
    """The base id of an -Instruct/-chat variant, or the variant of a base id (same architecture)."""
    out = []
    for suffix in VARIANT_SUFFIXES:
        if key.endswith(suffix):
            out.append(key[: -len(suffix)])
        out.append(key + suffix)
    return out
