"""`kvlint models lock [PATHS]` and `--check`: the model configs a tree names, written to its kvlint.lock.

Every model reference of the launches under PATHS (and the other names a launch gives its model) is
resolved exactly: a local config.json or a `models:` override, the Hugging Face cache, a config kvlint
bundles, else the Hub through huggingface_hub (HF_ENDPOINT, HF_TOKEN honoured; bounded as for `--online`,
kvlint.models.hub). A stand-in (a sibling's config, a derived fine-tune) is never locked: the lock holds
what the model's own config says, or nothing. A config.json inside the project (a local path, a `models:`
mapping) is read as it is by `check` and never copied into the lock, where it would hide its next edit.
Only config.json and the quantization side files are
fetched, never weights. An entry already in the lock is kept as it is (a lock changes when asked: delete
the entry, or edit it, to have it resolved again); entries no launch names any more are dropped. The file
is written atomically (kvlint.baseline.write_atomic) and only when it changes. Format: kvlint.models.lock.

`--check` writes nothing and asks no one: exit 1 naming each model the tree names that the lock lacks and
each entry whose text was edited by hand, else 0 (the pre-commit hook `kvlint-lock`). A path that names no
model (no config beside it, no Hub id in it or beside it) is not lockable, and is listed, not counted.
Exit codes: 0 done, 1 a model could not be locked (or `--check` failed), 2 usage or an unreadable lock.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from kvlint.errors import KvlintError
from kvlint.record import record

if TYPE_CHECKING:
    from kvlint.config import Config
    from kvlint.deployment import ModelAlias
    from kvlint.models.lock import Lock, LockEntry
    from kvlint.models.spec import ModelSpec

SIDE_FILES = ("hf_quant_config.json", "quantize_config.json")


@record
class Named:
    """One model reference of the tree with the launch's other names for it, and where it was first seen."""

    ref: str
    aliases: tuple[ModelAlias, ...]
    path: str
    config: Config
    lock: str  # the kvlint.lock this launch reads (kvlint.resolve.lookups.lock_for_file)

    @property
    def alias_names(self) -> tuple[str, ...]:
        return tuple(a.name for a in self.aliases)


@click.command("lock")
@click.argument("paths", nargs=-1)
@click.option("--check", "check_only", is_flag=True,
              help="Write nothing: exit 1 if a model the tree names is not locked or an entry was edited by hand.")
def lock(paths: tuple[str, ...], check_only: bool) -> int:
    """Resolve every model the tree names and write kvlint.lock at the project root (never weights).

    The lock covers the models named under PATHS (default: the current folder); an entry no launch there
    names is dropped. A tree with a configuration in a subfolder has a lock beside each configuration, the
    one its files' launches read."""
    from kvlint.models.lockpath import LOCK_NAME, lock_dir

    targets = paths or (".",)
    named, missing = models_in(targets)
    if missing and not named:
        raise KvlintError(f"no such file or directory: {', '.join(missing)}")
    first = targets[0]
    default = os.path.join(lock_dir(first if os.path.isdir(first) else os.path.dirname(first) or "."), LOCK_NAME)
    groups: dict[str, list[Named]] = {}
    for item in named:
        groups.setdefault(item.lock, []).append(item)
    code = 0
    for where in sorted(groups) or [default]:
        old, shown = _old(where), _shown(where)
        items = groups.get(where, [])
        code = max(code, _check(items, old, shown) if check_only else _write(items, old, where, shown))
    return code


def _old(where: str) -> Lock | None:
    from kvlint.models.lock import LockError, load

    try:
        return load(where)
    except LockError as exc:
        raise KvlintError(f"{exc.message}: fix the line, or delete the file and run `kvlint models lock`") from None


def _shown(where: str) -> str:
    rel = os.path.relpath(where)
    return where if rel.startswith("..") else rel


def models_in(paths: tuple[str, ...]) -> tuple[list[Named], list[str]]:
    """Every distinct model reference of the launches under `paths` (with its other names), in order of sight."""
    from kvlint.config import ConfigCache
    from kvlint.launches import iter_files, read_path
    from kvlint.lint import CONFIG_NAMES
    from kvlint.resolve.lookups import lock_for_file

    configs = ConfigCache()
    seen: dict[tuple[str, tuple[str, ...], str], Named] = {}
    missing = []
    for path, reason in iter_files(paths):
        if reason == "no such file or directory":
            missing.append(path)
        if reason is not None or os.path.basename(path) in CONFIG_NAMES:
            continue
        config = configs.for_file(path)
        if config.excluded(path):
            continue
        try:
            deployments = read_path(path, variables=config.variables or None).deployments
        except Exception:  # noqa: BLE001 - a reader bug costs this file's models (check says why), not the lock
            continue
        for dep in deployments:
            if not dep.model or not (dep.model_resolved or dep.model_aliases):
                continue
            ref = dep.model if dep.model_resolved else ""
            where = lock_for_file(path, config)
            key = (ref, tuple(a.name for a in dep.model_aliases), where)
            seen.setdefault(key, Named(ref, dep.model_aliases, path, config, where))
    return list(seen.values()), missing


# ---------------------------------------------------------------- --check


def _check(named: list[Named], old: Lock | None, shown: str) -> int:
    from kvlint.models.lockpath import LOCK_NAME

    problems = []
    for item in named:
        entry = old.find(item.ref, item.alias_names) if old is not None else None
        if entry is None and _lockable(item):
            problems.append(f"missing  {_label(item)} (named in {item.path}): not in {shown}")
    for entry in old.entries if old is not None else ():
        if entry.edited:
            problems.append(f"edited   {entry.id} ({shown}:{entry.line}): its text is not what `kvlint models lock` "
                            f"wrote (the digest differs)")
    for line in problems:
        click.echo(line)
    if problems:
        click.echo(f"{LOCK_NAME} is not up to date: run `kvlint models lock` and commit {shown}")
        return 1
    click.echo(f"{shown}: every model the tree names is locked ({len(old.entries) if old else 0} entries)")
    return 0


def _lockable(item: Named) -> bool:
    """A reference the lock could hold: a Hub id (here or among the launch's other names), or one that
    resolves offline now (a config outside the project, a bundled model by its path's name). A config.json in
    the project itself is read as it is, never locked (a copy would hide its next edit)."""
    spec = _offline_spec(item)[0]
    if spec is not None and _in_project(spec, item):
        return False
    return bool(_hub_ids(item)) or spec is not None


def _in_project(spec: ModelSpec, item: Named) -> str | None:
    """The config file a local or `models:` spec was read from, when it lies under the lock's folder."""
    from kvlint.models.resolve import source_kind

    kind = source_kind(spec)
    if kind not in ("local", "override"):
        return None
    path = os.path.abspath(spec.source[len("override:"):] if kind == "override" else spec.source)
    root = os.path.dirname(os.path.abspath(item.lock))
    return path if path.startswith(root + os.sep) else None


def _label(item: Named) -> str:
    from kvlint.findings import short

    return short(item.ref or (item.alias_names[0] if item.alias_names else "?"))


# ---------------------------------------------------------------- writing


def _write(named: list[Named], old: Lock | None, where: str, shown: str) -> int:
    from kvlint.baseline import write_atomic
    from kvlint.models.lock import render

    entries: dict[str, LockEntry] = {}
    counts = {"added": 0, "kept": 0, "failed": 0, "skipped": 0, "project": 0}
    for item in named:
        status, entry, line = _lock_one(item, old)
        counts[status] = counts.get(status, 0) + 1
        click.echo(line)
        if entry is not None and status == "failed":  # an edited entry that cannot be resolved again stays as is
            entries.setdefault(entry.id.lower(), entry)
        elif entry is not None:
            entries[entry.id.lower()] = _merged(entries.get(entry.id.lower()), entry, item)
    dropped = [e for e in (old.entries if old is not None else ()) if e.id.lower() not in entries]
    for entry in dropped:
        click.echo(f"dropped  {entry.id} (no launch names it)")
    text = render(entries.values())
    current = Path(where).read_text(encoding="utf-8") if old is not None else None
    changed = text != current
    if changed and (entries or old is not None):
        write_atomic(where, text)
    state = ("wrote" if changed else "unchanged") if (entries or old is not None) else "nothing to write to"
    click.echo(f"{state} {shown}: {counts['added']} added, {counts['kept']} kept, {len(dropped)} dropped, "
               f"{counts['failed']} failed" + (f", {counts['skipped']} not lockable" if counts["skipped"] else "")
               + (f", {counts['project']} read from the project" if counts["project"] else ""))
    return 1 if counts["failed"] else 0


def _merged(have: LockEntry | None, entry: LockEntry, item: Named) -> LockEntry:
    """Two references of one model share its entry, with both names."""
    from kvlint.models.lock import digest_of, names_of
    from kvlint.record import replace

    base = have or entry
    names = names_of([*base.names, *([item.ref] if item.ref else [])])
    if names == base.names:
        return base
    merged = replace(base, names=names)
    return replace(merged, digest=digest_of(merged))


def _lock_one(item: Named, old: Lock | None) -> tuple[str, LockEntry | None, str]:
    """("added" | "kept" | "failed" | "skipped" | "project", the entry, the progress line) for one reference."""
    known = old.find(item.ref, item.alias_names) if old is not None else None
    if known is not None and not known.edited:
        return "kept", known, f"kept     {_label(item)} -> {known.id} ({_where(known)})"
    spec, why = _offline_spec(item)
    own = _in_project(spec, item) if spec is not None else None
    if own is not None:
        return "project", None, f"project  {_label(item)}: its config is in the project ({_shown(own)}), read as it is"
    entry = _exact(spec) if spec is not None else None
    if entry is None:
        entry, hub_why = _from_hub(item)
        why = hub_why or why
    if entry is None:
        if not _hub_ids(item) and spec is None:
            return "skipped", None, (f"skipped  {_label(item)}: a path that names no model (no config.json beside "
                                     f"it, no Hub id in it or beside it): map it under `models:` or name it with "
                                     f"--served-model-name")
        stand_in = f" (offline kvlint only has a stand-in: {spec.source})" if spec is not None else ""
        kept = "; its edited entry is kept as it is" if known is not None else ""
        return "failed", known, f"failed   {_label(item)}: {why}{stand_in}{kept}"
    again = " (the edited entry resolved again)" if known is not None else ""
    return "added", entry, f"added    {_label(item)} -> {entry.id} ({_where(entry)}){again}"


def _where(entry: LockEntry) -> str:
    return f"{entry.source}, revision {entry.revision[:12]}" if entry.revision else entry.source


def _offline_spec(item: Named) -> tuple[ModelSpec | None, str]:
    from kvlint.models.resolve import resolve_model

    if not item.ref:
        return None, "the reference is an expression"
    try:
        return resolve_model(item.ref, overrides=item.config.models or None, base_dir=item.config.root,
                             aliases=item.aliases), ""
    except KvlintError as exc:
        return None, exc.message
    except OSError as exc:
        return None, f"cannot be looked up on this machine ({exc.strerror or exc})"


def _hub_ids(item: Named) -> list[tuple[str, str | None]]:
    """(Hub id, revision) the reference names (`org/name`, `hf://`, a Hub URL), then the launch's other names
    that are Hub ids (served name, env var, storage URI, the id inside a path)."""
    from kvlint.models.resolve import HUB_ID, HUB_URL, candidate_ids, split_revision

    out: list[tuple[str, str | None]] = []
    for name in ([item.ref] if item.ref else []) + list(item.alias_names):
        base, revision = split_revision(name.strip())
        plain = base[len("hf://"):] if base.lower().startswith("hf://") else base
        if HUB_ID.match(plain) or HUB_URL.match(plain):
            out += [(i, revision) for i in candidate_ids(base)]
    return list(dict.fromkeys(out))


def _exact(spec: ModelSpec) -> LockEntry | None:
    """The entry for a spec resolved offline from the model's own config (a file, the cache or the bundle);
    None for a stand-in (derived, a sibling's config with a length doubt)."""
    from kvlint.models.resolve import source_kind

    if spec.derived_from or spec.length_unknown:
        return None
    src, kind = spec.source, source_kind(spec)
    cached = re.search(r"hf-cache:(.+?[/\\]snapshots[/\\]([^/\\]+)[/\\]config\.json)", src)
    if cached:
        return _from_files(spec.model_id, Path(cached.group(1)), "hf-cache", cached.group(2))
    if "bundled:" in src:
        return _bundled(spec)
    override = re.search(r"override:(.+?)(?:\)|$)", src)
    if override:
        return _from_files(spec.model_id, Path(override.group(1)), "override", None)
    if kind == "local":
        return _from_files(spec.model_id, Path(src), "local", None)
    return None


def _bundled(spec: ModelSpec) -> LockEntry | None:
    from kvlint.data import REGISTRY_DIR
    from kvlint.models.lock import LockEntry, sha256_of

    file_name = spec.model_id.replace("/", "--", 1) + ".json"
    path = Path(REGISTRY_DIR) / file_name
    if not path.is_file():
        return None
    data = path.read_bytes()
    entry = json.loads(data)
    return LockEntry(id=str(entry["id"]), source="bundled", config=entry["config"],
                     files={f"registry/{file_name}": sha256_of(data)}, hf_quant_config=entry.get("hf_quant_config"))


def _from_files(model_id: str, config_path: Path, source: str, revision: str | None) -> LockEntry | None:
    """An entry from a config.json on disk and the quantization files beside it."""
    from kvlint.models.lock import LockEntry, sha256_of
    from kvlint.models.trim import trim

    try:
        data = config_path.read_bytes()
        cfg = json.loads(data)
    except (OSError, ValueError):
        return None
    if not isinstance(cfg, dict):
        return None
    files = {config_path.name if source != "local" else "config.json": sha256_of(data)}
    quant: dict[str, Any] | None = None
    for side in SIDE_FILES:
        found = config_path.parent / side
        if found.is_file():
            raw = found.read_bytes()
            files[side] = sha256_of(raw)
            if side == "hf_quant_config.json":
                try:
                    loaded = json.loads(raw)
                except ValueError:
                    loaded = None
                quant = loaded if isinstance(loaded, dict) else None
    return LockEntry(id=model_id, source=source, config=trim(cfg), revision=revision, files=files,
                     hf_quant_config=quant)


def _from_hub(item: Named) -> tuple[LockEntry | None, str]:
    """The first of the reference's Hub ids the Hub has (config.json and the quantization side files into the
    HF cache, never weights), with the commit it came from; else why not."""
    from kvlint.models.hub import HubMissing, HubUnreachable, download
    from kvlint.models.resolve import _hf_cache_dir

    reasons = []
    cache = Path(_hf_cache_dir())
    for repo_id, revision in _hub_ids(item):
        try:
            path = download(repo_id, "config.json", revision, cache)
            for side in SIDE_FILES:
                try:
                    download(repo_id, side, revision, cache)
                except HubMissing:
                    continue
        except HubMissing as exc:
            reasons.append(f"{repo_id}: {exc}")
            continue
        except HubUnreachable as exc:
            return None, f"the Hub is unreachable ({exc})"
        snapshot = path.parent.name if path.parent.parent.name == "snapshots" else None
        entry = _from_files(repo_id, path, "hub", snapshot)
        if entry is not None:
            return entry, ""
        reasons.append(f"{repo_id}: the config.json the Hub gave is not a JSON object")
    return None, "; ".join(reasons) if reasons else "names no Hugging Face model id"
