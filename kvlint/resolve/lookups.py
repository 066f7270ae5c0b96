"""Model, GPU and engine-version lookups: one set of defaults for every command.

Precedence, the same wherever a launch is sized:
- model: the project's kvlint.lock (by the reference or the launch's other names for it), then the reference
  as written (local path, `models:` overrides, HF cache, the Hub with --online, the bundled registry) and
  the launch's other names for it (served name, env var, path, KServe `name:`), which must agree;
- GPU: --gpu, else the product the manifest declares, else the fleet map (`node-labels:` for the
  launch's node selection, then the first `gpus:` glob), else `gpu:`, else the command's own
  fallback (only `budget -- CMD` has one), else none: the launch is sized against the catalogue;
  --gpu-memory / `gpu-memory:` give the total beside or instead of a name;
- engine version: the image tag, else --engine-version, else `engine-version:`, else the engine's
  default release.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from kvlint.errors import KvlintError
from kvlint.findings import short
from kvlint.resolve.records import GpuLookup, ModelLookup, ResolveOptions, VersionLookup
from kvlint.sizes import GIB

if TYPE_CHECKING:
    from kvlint.config import Config
    from kvlint.deployment import Deployment
    from kvlint.engines.base import Engine
    from kvlint.gpus import Gpu

MODEL_FIX = ("run `kvlint models lock` to record its config in the repository's kvlint.lock (`kvlint models pull`: "
             "this machine's cache only), or map it under `models:` in .kvlint.yaml")


def lookup_model(ref: str, config: Config, options: ResolveOptions, aliases: tuple[Any, ...] = (),
                 lock_at: str | None = None) -> ModelLookup:
    """The model's config for a reference and the launch's other names for it (the reason when none has one):
    the project's kvlint.lock first (`lock_at`; by default the one of the configuration's folder), then the
    resolution order of kvlint.models.resolve."""
    from kvlint.models.resolve import resolve_model, source_kind

    locked = _from_lock(ref, aliases, lock_at or lock_path(config))
    if locked is not None and (locked.spec is not None or locked.reason):
        return locked
    note = locked.note if locked is not None else None
    try:
        spec = resolve_model(ref, online=options.online, overrides=config.models or None, base_dir=config.root,
                             aliases=aliases)
    except KvlintError as exc:
        from kvlint.models.resolve import ModelConflict

        return ModelLookup(None, str(exc) if isinstance(exc, ModelConflict) else exc.message, note=note,
                           conflict=isinstance(exc, ModelConflict))
    except OSError as exc:  # a 300-character name, an unreadable HF cache: this machine cannot look it up
        return ModelLookup(None, f"{short(ref)} cannot be looked up on this machine ({exc.strerror or exc}); give "
                                 "a Hub id or a readable local path, or map it under `models:`")
    except Exception as exc:  # noqa: BLE001 - a resolver bug degrades to KV002, not a crash
        return ModelLookup(None, f"internal error ({type(exc).__name__}: {exc}); please report it")
    return ModelLookup(spec, None, source_kind(spec), note=note)


def lock_path(config: Config) -> str:
    """The kvlint.lock of the project a configuration belongs to (kvlint.models.lock.lock_dir)."""
    import os

    from kvlint.models.lock import LOCK_NAME, lock_dir

    return os.path.join(lock_dir(config.root), LOCK_NAME)


def _from_lock(ref: str, aliases: tuple[Any, ...], path: str) -> ModelLookup | None:
    """The lock's entry for the reference or another name of the model (None: the lock has none, or there is
    no lock); a lock that cannot be read is a note for the run and resolution goes on without it."""
    from kvlint.models.lock import LockError, load, spec_of

    try:
        lock = load(path)
    except LockError as exc:
        return ModelLookup(None, None, note=f"{exc.message}: the lock is ignored (run `kvlint models lock` again)")
    entry = lock.find(ref, tuple(a.name for a in aliases)) if lock is not None else None
    if entry is None:
        return None
    try:
        return ModelLookup(spec_of(entry), None, "lock")
    except KvlintError as exc:
        return ModelLookup(None, f"{lock.path}:{entry.line}: {exc.message}" if lock else exc.message)


def model_for(dep: Deployment, config: Config, options: ResolveOptions) -> ModelLookup:
    if not dep.model:
        return ModelLookup(None, "no model reference found in the launch")
    if not dep.model_resolved:
        found = _by_alias(dep, config, options)  # s3://${bucket}/models/org--name: the tail still names it
        if found is not None:
            return found
        from kvlint.flags.flag_values import is_placeholder

        kind = "a placeholder the deploy tooling replaces" if is_placeholder(dep.model) else \
            "an unresolved expression (variable or template)"
        return ModelLookup(None, f"the reference {dep.model} is {kind}")
    return lookup_model(dep.model, config, options, dep.model_aliases, lock_for(dep, config))


def lock_for(dep: Deployment, config: Config) -> str:
    """The lock a launch reads: its configuration's folder's, else its own file's project's."""
    return lock_for_file(dep.path, config)


def lock_for_file(path: str, config: Config) -> str:
    """The lock of a file's launches (`kvlint models lock` writes each model to the lock its launches read)."""
    if config.path:
        return lock_path(config)
    from kvlint.models.lock import lock_path_for

    return lock_path_for(path)


def _by_alias(dep: Deployment, config: Config, options: ResolveOptions) -> ModelLookup | None:
    """The first literal other name of a model whose reference is an expression (a path's tail, a served name)."""
    from kvlint.models.resolve import by_served_name
    from kvlint.models.resolve import source_kind as source_kind_of

    for alias in dep.model_aliases:
        if alias.how == "served-short":
            spec = by_served_name(alias.name)
            found = ModelLookup(spec, None) if spec is not None else ModelLookup(None, "")
        else:
            found = lookup_model(alias.name, config, options, lock_at=lock_for(dep, config))
        if found.spec is not None:
            kind = source_kind_of(found.spec) if alias.how == "served-short" or found.source == "lock" else \
                {"served-name": "served-name", "path": "path-name"}.get(alias.how, "env-name")
            return ModelLookup(found.spec, None, kind)
    return None


def lookup_gpu_name(name: str) -> tuple[Gpu | None, str | None]:
    """(card, None) or (None, why): an unknown name says so with close names."""
    from kvlint.gpus import lookup_gpu

    try:
        return lookup_gpu(name), None
    except KvlintError as exc:
        said = str(exc)
        return None, said if name in said else f"GPU {name!r}: {said}"
    except Exception as exc:  # noqa: BLE001 - a catalogue bug degrades to KV003, not a crash
        return None, f"GPU {name!r}: internal error ({type(exc).__name__}: {exc})"


def memory_total(config: Config, options: ResolveOptions) -> int | None:
    text = options.gpu_memory or config.gpu_memory
    if not text:
        return None
    from kvlint.gpus import parse_memory_size

    try:
        return parse_memory_size(text)
    except (KvlintError, ValueError) as exc:
        raise KvlintError(f"invalid GPU memory size {text!r}: {exc}") from None


def gpu_for(dep: Deployment, config: Config, options: ResolveOptions) -> GpuLookup:
    """The card a launch runs on, where that was said, or why none is known."""
    memory = memory_total(config, options)
    name, source, span = _named_gpu(dep, config, options)
    if name is None:
        return GpuLookup(None, memory, "cli" if memory is not None and options.gpu_memory else
                         ("config" if memory is not None else None))
    gpu, reason = lookup_gpu_name(name)
    return GpuLookup(gpu, memory, source, name, span, None if memory is not None else reason)


def _named_gpu(dep: Deployment, config: Config, options: ResolveOptions) -> tuple[str | None, str | None, Any]:
    if options.gpu:
        return options.gpu, "cli", None
    if dep.gpu:
        return dep.gpu, "manifest", dep.gpu_span
    labelled = config.gpu_for_labels((lab.key, lab.value) for lab in dep.node_labels)
    if labelled is not None:
        span = next((lab.span for lab in dep.node_labels if f"{lab.key}={lab.value}" == labelled[1]), None)
        return labelled[0], "fleet", span
    by_path = config.gpu_for_path(dep.path) if dep.path != "-" else None
    if by_path is not None:
        return by_path[0], "fleet", None
    if config.gpu:
        return config.gpu, "config", None
    if options.assume_gpu:
        return options.assume_gpu, "assumed", None
    return None, None, None


def version_for(dep: Deployment, engine: Engine, config: Config, options: ResolveOptions) -> VersionLookup:
    for version, source in ((dep.engine_version, "image"), (options.engine_version, "cli"),
                            (config.engine_versions.get(engine.name), "config")):
        if version:
            return VersionLookup(version, source, _modelled(engine, version))
    return VersionLookup(None, "default", engine.release(None))


def _modelled(engine: Engine, version: str) -> str:
    """The documented release the memory model maps `version` to (the version itself when unreadable)."""
    try:
        return engine.release(version)
    except KvlintError:
        return version


def non_kv_setting(dep_model: str | None, config: Config, options: ResolveOptions) -> tuple[int | None, str]:
    """(bytes, source) before any calibration: --non-kv-gib ("user"), `non-kv-gib:` ("config"), or the estimate."""
    if options.non_kv_gib is not None:
        return int(round(options.non_kv_gib * GIB)), "user"
    configured = config.non_kv_for(dep_model)
    if configured is not None:
        return int(configured * GIB), "config"
    return None, "estimated"


def resolved_settings(dep: Deployment) -> tuple[dict[str, Any], tuple[str, ...]]:
    """(canonical resolved values, names of unresolved ones) of a deployment's settings."""
    return dep.resolved_values(), tuple(sorted(name for name, s in dep.settings.items() if not s.resolved))


def expression_of(dep: Deployment, names: tuple[str, ...]) -> Mapping[str, str]:
    """The text as written of unresolved settings (for the skip reason)."""
    return {n: (dep.settings[n].raw or str(dep.settings[n].value)) for n in names if n in dep.settings}
