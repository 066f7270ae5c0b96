"""Model, GPU and engine-version lookups: one set of defaults for every command.

Precedence, the same wherever a launch is sized:
- model: the project's kvlint.lock (by the reference or the launch's other names for it), then the reference
  as written (local path, `models:` overrides, HF cache, the Hub with --online, the bundled registry) and
  the launch's other names for it (served name, env var, path, KServe `name:`), which must agree;
- GPU: --gpu, else the product the manifest declares, else the fleet map (`node-labels:` for the
  launch's node selection, then the first `gpus:` glob), else `gpu:`, else the command's own
  fallback (only `budget -- CMD` has one), else none: the launch is sized against the catalogue;
  --gpu-memory / `gpu-memory:` give the total beside or instead of a name;
- engine version: the image tag, else --engine-version, else `engine-version:`, else what the project's lock or
  requirements pin for a launch through a project runner (`uv run`) or a host install (kvlint.resolve.project),
  else the engine's default release.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from kvlint.errors import KvlintError
from kvlint.findings import short
from kvlint.gpus import lookup_gpu
from kvlint.image_names import known_image
from kvlint.lazyre import lazy
from kvlint.models.lockpath import LOCK_NAME, lock_dir, lock_path_for
from kvlint.models.resolve import resolve_model, source_kind
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
    """The kvlint.lock of the project a configuration belongs to (kvlint.models.lockpath.lock_dir)."""
    import os


    return os.path.join(lock_dir(config.root), LOCK_NAME)


def _from_lock(ref: str, aliases: tuple[Any, ...], path: str) -> ModelLookup | None:
    """The lock's entry for the reference or another name of the model (None: the lock has none, or there is
    no lock); a lock that cannot be read is a note for the run and resolution goes on without it."""
    import os

    if not os.path.exists(path):  # most projects have none: the reader is not even imported
        return None
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
        from kvlint.deployment import NO_MODEL_HERE

        # the words a sourced file sets, or a build's entry point's own options (kvlint.launches.build)
        said = next((n for n in dep.notes if n.startswith(NO_MODEL_HERE)), None)
        return ModelLookup(None, said.removeprefix(NO_MODEL_HERE) if said else
                           "no model reference found in the launch")
    if not dep.model_resolved:
        found = _by_alias(dep, config, options)  # s3://${bucket}/models/org--name: the tail still names it
        if found is not None:
            return found
        from kvlint.flags.flag_values import is_placeholder

        if dep.model.startswith("(the ") and dep.model.endswith(")"):  # a launch's reader named what holds the model
            return ModelLookup(None, f"the model is not named in this file: {short(dep.model)}")
        if dep.model.startswith("--config "):  # kvlint.launches.config_link: a config file it could not read
            return ModelLookup(None, f"the model is in {short(dep.model.removeprefix('--config '))} "
                                     f"(`{short(dep.model)}`), a file "
                                     "kvlint could not read (not found beside this file, or no vLLM config)")
        kind = "a placeholder the deploy tooling replaces" if is_placeholder(dep.model) else \
            "an unresolved expression (variable or template)"
        return ModelLookup(None, f"the reference {short(dep.model)} is {kind}")
    found = lookup_model(dep.model, config, options, dep.model_aliases, lock_for(dep, config))
    if found.spec is None and not found.conflict:
        from kvlint.models.resolve import path_candidates

        candidates = path_candidates(dep.model)
        if candidates:
            return ModelLookup(None, found.reason, "path-name", note=found.note, candidates=candidates)
    return found


def lock_for(dep: Deployment, config: Config) -> str:
    """The lock a launch reads: its configuration's folder's, else its own file's project's."""
    return lock_for_file(dep.path, config)


def lock_for_file(path: str, config: Config) -> str:
    """The lock of a file's launches (`kvlint models lock` writes each model to the lock its launches read)."""
    if config.path:
        return lock_path(config)

    return lock_path_for(path)


def _by_alias(dep: Deployment, config: Config, options: ResolveOptions) -> ModelLookup | None:
    """The first literal other name of a model whose reference is an expression (a path's tail, a served name)."""
    from kvlint.models.resolve import by_served_name
    from kvlint.models.resolve import source_kind as source_kind_of

    named: ModelLookup | None = None
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
        if alias.how == "path" and named is None and found.reason:
            named = found  # the path's known text names the model (`.../models--org--name/snapshots/$REV`, K498)
    return named  # ... which kvlint does not know: said as that model's lookup, not as an unknown expression


_GENERIC_WORDS = frozenset({"nvidia", "amd", "gpu", "gpus", "cuda", "accelerator", "node", "nodes", "true", "yes",
                            "enabled", "present", "any", "all", "1", "com"})


def generic_gpu_word(name: str) -> bool:
    """A value that says "a GPU" and names no card (`accelerator: nvidia-gpu`, `gpu: "true"`, a label the user
    puts on their GPU nodes): the launch declares no product, so it is swept over the catalogue, not reported as
    an unknown card with a did-you-mean."""
    words = [w for w in re.split(r"[-_.\s/:=]+", name.lower()) if w]
    return bool(words) and all(w in _GENERIC_WORDS for w in words)


def lookup_gpu_name(name: str) -> tuple[Gpu | None, str | None]:
    """(card, None) or (None, why): an unknown name says so with close names."""

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
    if dep.gpu and not generic_gpu_word(dep.gpu):
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
    dated = _dated_build(dep.image, engine)
    if dated is not None:
        return dated
    newest = engine.release(None)
    if dep.image and _engine_image(dep.image, engine) and _latest_tag(dep.image):
        if "@" in dep.image.rsplit("/", 1)[-1]:  # `lmsysorg/sglang@sha256:...` (sample K114): one fixed build, of
            return VersionLookup(None, "default", newest, why=f"the image {short(dep.image)} is pinned by digest, "
                                                              "which names no release")  # whatever date
        if not known_image(dep.image):  # a third-party build's `latest` is whenever it was last built
            return VersionLookup(None, "default", newest, why=f"the image {short(dep.image)} is a third-party build "
                                                              "whose tag names no release")
        return VersionLookup(newest, "image-latest", newest, why=f"the image {short(dep.image)} is the newest release")
    if dep.image is None and dep.container is not None:
        return VersionLookup(None, "default", newest, why=f"it runs in the container {dep.container}, which the file "
                                                          "does not start: its image's release")
    if dep.image is None and dep.path.lower().endswith(".py"):  # a program the repository's image runs (sample
        built = _built_image(dep.path, engine, newest)  # K259: `CMD ["python3.11", "-u", "/handler.py"]` after `RUN
        if built is not None and built.version is not None:  # pip install vllm==0.7.3`): the release it installs
            return built
    host = dep.image is None and _host_script(dep.path)
    if host:
        built = _built_image(dep.path, engine, newest) or _script_install(dep.path, engine)
        if built is not None:
            return built
        stepped = _step_image(dep.path, engine.name)
        if stepped is not None:  # the script's job steps run in that image (pyxis): its release, not the host's
            why = f"its job steps run in the container image {short(stepped)}, whose release the file does not name"
            return _dated_build(stepped, engine) or VersionLookup(None, "default", newest, why=why)
        vendor = vendor_image(dep.path)
        checkout = source_checkout(dep.path, engine.name) or tree_environment(dep.program, engine.name)
        if vendor is not None:  # the file's commands are for that image: its build, a release the file does not say;
            # a checkout of the engine's source it puts first (sample K523: vllm-ascend and vllm trees on PYTHONPATH)
            # is the build whose parser decides the values
            return VersionLookup(None, "default", newest, why=f"it runs in {vendor}", fork=vendor_fork(dep.path) or "",
                                 build=checkout or "")
        if checkout is not None:  # a checkout of the engine's source: whichever commit it is, not today's release
            return VersionLookup(None, "default", newest, why=f"it runs the {engine.title} source tree {checkout}, "
                                                              "whose release the file does not say", build=checkout)
    if dep.image is None and not host and _runbook(dep.path) and (vendor := vendor_fork(dep.path)) is not None:
        # a runbook that installs a vendor's fork with its own parser runs that fork (sample K354: xFasterTransformer's
        # guide, `pip install vllm-xft`, then `--dtype bf16`, which the fork's parser takes)
        return VersionLookup(None, "default", newest, why=f"it runs in {vendor}", fork=vendor)
    if dep.image is None and (host or dep.runner is not None) and dep.runner != "uvx":  # uvx: a tool's own newest
        project = _project_release(dep, engine, newest)
        if project is not None:
            return project
    activated = activated_environment(dep.path, engine.name) if host else None
    if activated is not None:  # an environment made before this script ran: whenever its engine was installed
        return VersionLookup(None, "default", newest, why=f"it runs the {engine.title} of the environment it activates "
                                                          f"({activated}), whose release the file does not say")
    pinned_elsewhere = _repository_pin(dep, engine) if host else None
    if pinned_elsewhere is not None:
        return VersionLookup(None, "default", newest, why=pinned_elsewhere)
    own = _build_options(dep) if host else ()
    if own:  # the launch gives options no release has: the install it runs is a build that adds them
        shown = ", ".join(own[:3]) + (" ..." if len(own) > 3 else "")
        return VersionLookup(None, "default", newest, why=f"it passes {len(own)} options no {engine.title} release "
                                                          f"has ({shown}): it runs a build that adds them (a fork or "
                                                          "a plugin), whose release the file does not say")
    if host:
        return VersionLookup(newest, "host", newest, why="a script runs the release installed on the host: the newest "
                                                         "assumed")
    last = dep.image.rsplit("/", 1)[-1] if dep.image else ""
    if dep.image and _engine_image(dep.image, engine) and ":" in last and "@" not in last:
        return VersionLookup(None, "default", newest, why=f"the image {short(dep.image)} is a build whose tag names "
                                                          f"no {engine.title} release")
    return VersionLookup(None, "default", newest)


def _build_options(dep: Deployment) -> tuple[str, ...]:
    """The options of no release a host launch gives (kvlint.deployment.build_options), or a sibling launch's of
    the same install (the script's, kvlint.launches.shellfile): the install is the build that adds them, so a
    verdict that rests on the release (KV005) is open."""
    from kvlint.deployment import build_options

    return build_options(dep) or dep.build_options


def _repository_pin(dep: Deployment, engine: Engine) -> str | None:
    """Why a host script with a removed flag may not meet the newest release: its repository pins the engine's image
    elsewhere (kvlint.resolve.repository), the image the script may run in. Asked only when a flag was removed, so
    the repository is read only for the launches whose verdict depends on it."""
    if not any(u.reason == "removed" for u in dep.unknown_flags):
        return None
    from kvlint.resolve.repository import repository_pins

    pins = repository_pins(dep.path, engine.name)
    if not pins:
        return None
    (image, where), more = pins[0], len(pins) - 1
    also = f" and {more} more" if more else ""
    return f"its repository pins {short(image)} at {where}{also}, an image the script may run in"



def _project_release(dep: Deployment, engine: Engine, newest: str) -> VersionLookup | None:
    """The release the project's own files decide (kvlint.resolve.project): a lock's entry or an `==` pin is the
    release, with its file and line; a launch through a project runner (`uv run`) whose project pins none is open
    over the releases its declared range allows (every era's when none), never the newest assumed; a host install
    with a range the newest release is outside of is open over the range. None: the host's newest stands."""
    from kvlint.resolve.project import RUNNER_LOCKS, project_release, releases_within

    found = project_release(dep.path, engine.name, dep.runner)
    title, package = engine.title, engine.name
    pin = found.pinned
    if pin is not None and pin.version:
        return VersionLookup(pin.version, "project", _modelled(engine, pin.version),
                             why=f"{title} {pin.version} from {pin.where}")
    locks = RUNNER_LOCKS.get(dep.runner, ()) if dep.runner else ()
    lock = locks[0] if locks else "lock"
    settle = (f"commit the project's {lock}, or pin {package}==X in its requirements" if dep.runner else
              f"pin {package}==X in the project's requirements")
    if len(found.pins) > 1:  # a lock with forked resolutions (one per platform or Python): each is a candidate
        values = tuple(sorted({p.version for p in found.pins if p.version}, key=_release_key, reverse=True))
        said = ", ".join(f"{p.version} ({p.where})" for p in found.pins)
        return VersionLookup(values[0], "project-range", _modelled(engine, values[0]), candidates=values,
                             why=f"the project's lock holds {title} {said}", settle=settle)
    spec = ",".join(r.spec for r in found.ranges if r.spec)
    if dep.runner is None and (not spec or _allows(spec, newest)):
        return None  # a host install of today takes the newest release its requirements allow
    from kvlint.memory.versions import documented

    values, nearest = releases_within(spec, documented(engine.name), engine.era_releases())
    if spec:
        where = ", ".join(f"{r.where} allows {package}{r.spec}" for r in found.ranges if r.spec)
        why = f"{where}" + (", older than kvlint's release tables (the nearest modelled)" if nearest else "")
    elif found.folder is None:
        why = (f"`{dep.runner} run` runs the {title} of the project's environment, and no project file "
               f"(pyproject.toml, {lock}, requirements*.txt) is above the file")
    elif found.locks_read:
        why = (f"`{dep.runner} run` runs the project's environment, and its {found.locks_read[0]} does not name "
               f"{package}")
    else:
        why = f"`{dep.runner} run` runs the project's environment, and no {lock} in it pins {package}"
    return VersionLookup(values[0], "project-range", _modelled(engine, values[0]), candidates=values, why=why,
                         settle=settle)


def _allows(spec: str, version: str) -> bool:
    from kvlint.resolve.project import allows

    return allows(spec, version)


def _release_key(version: str | None) -> tuple[int, ...]:
    import re

    return tuple(int(p) for p in re.findall(r"\d+", version or "")[:4])


def _built_image(path: str, engine: Engine, newest: str) -> VersionLookup | None:
    """A script the repository's own image runs (kvlint.resolve.built): the release of its one FROM when that is the
    engine's image with a release tag, else open (two images, a base that is not the engine's, an untagged one)."""
    from kvlint.resolve.built import images_running

    images = images_running(path)
    if not images:
        return None
    first = images[0]
    pinned = dict(first.pinned).get(engine.name) if len(images) == 1 else None
    if pinned is not None:  # the build installs the release (`RUN pip install vllm==0.6.3` on a CUDA base)
        return VersionLookup(pinned, "project", _modelled(engine, pinned),
                             why=f"{engine.title} {pinned} from {first.dockerfile}, the image that runs the script")
    if len(images) == 1 and first.base and _engine_image(first.base, engine) and not _latest_tag(first.base):
        dated = _dated_build(first.base, engine)
        if dated is not None:
            return dated
    built = " or ".join(f"{i.dockerfile} builds" for i in images[:2]) + (" or others" if len(images) > 2 else "")
    return VersionLookup(None, "default", newest, why=f"it runs in the image {built}")


def vendor_image(path: str) -> str | None:
    """The vendor serving image whose launcher the script runs (kvlint/data/vendor_launchers.json: its program with
    an option only it takes), or None; the file is read once per run, at most 256 KiB."""
    if path in ("", "-"):
        return None
    return _vendor_image(path)


def _script_install(path: str, engine: Engine) -> VersionLookup | None:
    """The release a host script installs itself by an exact pin (`pip install vllm==0.7.3 xformers==...`, sample
    K434's setup script, the launch in a script it writes after): the release it then runs, with the line."""
    found = _script_pin(path, engine.name) if path not in ("", "-") else None
    if found is None:
        return None
    version, line = found
    return VersionLookup(version, "project", _modelled(engine, version),
                         why=f"{engine.title} {version} from the script's own install, line {line}")


@functools.lru_cache(maxsize=256)
def _script_pin(path: str, engine: str) -> tuple[str, int] | None:
    """(release, line) of the script's own exact pin of `engine`, once per script (asked for each of its launches)."""
    from kvlint.builds import pinned_release

    text = _script_text(path)
    if text is None or "==" not in text:  # most scripts pin nothing: no lower-cased copy, no joined lines made
        return None
    found = pinned_release(text, engine)
    return (found[0], text.count("\n", 0, found[1]) + 1) if found is not None else None


@functools.lru_cache(maxsize=256)
def _step_image(path: str, engine: str) -> str | None:
    """The engine image a host script runs its job steps in (`srun --container-image="$CONTAINER"`, NVIDIA's pyxis,
    with `CONTAINER=.../sglang:nightly-dev-20251121-....sqsh`, sample K457), or starts a container from to run its
    commands in later (`docker run -d --name $NAME ... "$IMAGE" sleep infinity`, then `docker exec $NAME bash -lc
    ...`, sample K512 over ssh), for a launch the reader did not tie to it (a command built in a here-document and
    run in the step or the container): that image's release is the one the launch meets, never the host's own
    install. Read once per script."""
    text = _script_text(path) if path not in ("", "-") else None
    if text is None:
        return None
    if "--container-image" in text:
        words = [m.group(1) for m in _CONTAINER_IMAGE.finditer(text)]
    elif " exec " in text and " run " in text:
        words = [w for line in _RUN_LINE.findall(text) for w in _IMAGE_WORD.findall(line)]
    else:
        return None
    images = (_assigned_value(text, word) for word in words)
    return next((image for image in images if engine in image.lower() and "/" in image), None)


_CONTAINER_IMAGE = lazy(r"--container-image[= ]+[\"']?([^\s\"']+)")
_RUN_LINE = lazy(r"(?:docker|podman)[ \t]+run\b[^\n]*")  # a container started (its image among the words)
_IMAGE_WORD = lazy(r"(?<![\w=-])[\"']?(\$\{?[A-Za-z_]\w*\}?|[\w.-]+(?:/[\w.-]+)+:[\w.-]+)[\"']?(?![\w=])")


def _assigned_value(text: str, word: str) -> str:
    """A `$NAME` / `${NAME}` word's value as the script assigns it (its first assignment, the default of a
    `NAME="${NAME:-default}"` one), else the word."""
    m = re.fullmatch(r"\$\{?([A-Za-z_]\w*)\}?", word)
    if m is None:
        return word
    found = re.search(rf"(?m)^[ \t]*(?:export[ \t]+)?{m.group(1)}=[\"']?([^\s\"']+)", text)
    if found is None:
        return word
    value = found.group(1)
    defaulted = re.fullmatch(r"\$\{\w+:?-([^}\s]+)\}", value)
    return defaulted.group(1) if defaulted is not None else value


@functools.lru_cache(maxsize=4)
def _script_text(path: str) -> str | None:
    """The first 256 KiB of a script, read once for every question asked of it (its launches are resolved one after
    another, so a few kept are enough: a pin, an activated environment and a job step's image ask the same text)."""
    try:
        with open(path, "rb") as handle:
            return handle.read(256 * 1024).decode("utf-8", "replace")
    except OSError:
        return None


def vendor_fork(path: str) -> str | None:
    """The vendor's fork the script runs when that fork parses arguments its own way (kvlint/data/vendor_launchers.json
    `own_parser`: vllm-xft reads `--dtype bf16`), or None."""
    return _vendor_build(path)[1] if path not in ("", "-") else None


def _vendor_image(path: str) -> str | None:
    return _vendor_build(path)[0]


@functools.lru_cache(maxsize=1024)
def _vendor_build(path: str) -> tuple[str | None, str | None]:
    """(the vendor build the script runs, that build again when it is a fork with a parser of its own)."""
    from kvlint.data import load_json

    text = _script_text(path)
    if text is None:
        return None, None
    for launcher in load_json("vendor_launchers.json")["launchers"]:
        program, option = re.escape(launcher["program"]), re.escape(launcher["option"])
        if re.search(rf"(?:^|[\s/\"'])({program})[\"']?(?:[ \t]+[^\n]*?)?[\s\"',]{option}(?:[=\s\"']|$)", text, re.M):
            return str(launcher["image"]), None
    for marked in load_json("vendor_launchers.json").get("environments", []):
        # a variable only that build reads, set by the script (`export PT_HPU_ENABLE_LAZY_COLLECTIVES=true`), or a
        # package only it ships, imported (`python -c 'import xfastertransformer as xft; ...'`)
        # ... or an option only its parser takes, passed (`--use-padding-aware-scheduling`: HabanaAI/vllm-fork's)
        prefix, module = marked.get("variable_prefix"), marked.get("module")
        if (prefix and re.search(rf"(?m)^[ \t]*(?:export[ \t]+)?{re.escape(prefix)}\w*=", text)) or (
                module and module in text and re.search(rf"\b(?:import|from)[ \t]+{re.escape(module)}\b", text)) \
                or any(o in text and re.search(rf"(?<![\w-]){re.escape(o)}(?![\w-])", text)
                       for o in marked.get("options", ())):
            image = str(marked["image"])
            return image, image if marked.get("own_parser") else None
    return None, None


def source_checkout(path: str, engine: str) -> str | None:
    """How a script runs the engine from a source tree instead of an installed release (`export PYTHONPATH=
    "${SGLANG_ROOT}/python:..."`, `pip install -e ../vllm`): the words that say so, or None. The file is read once
    per run, at most 256 KiB."""
    if path in ("", "-"):
        return None
    return _source_checkout(path, engine)


@functools.lru_cache(maxsize=1024)
def _source_checkout(path: str, engine: str) -> str | None:
    text = _script_text(path)
    if text is None:
        return None
    inside = _inside_checkout(text, engine) if "cd " in text else None
    if inside is not None:
        return inside
    if "PYTHONPATH" not in text and "install" not in text:
        return None
    for m in _PYTHONPATH.finditer(text):
        value = re.split(r"\$\{?PYTHONPATH", m.group(1))[0]  # `.../python${PYTHONPATH:+:${PYTHONPATH}}`: the old value
        tree = next((p for p in value.split(":") if _engine_tree_path(p, engine)), None)
        if tree is not None:
            return f"on PYTHONPATH ({tree})"
    for m in _EDITABLE.finditer(text):
        if _engine_tree_path(m.group(1), engine) or _package_folder(m.group(1), engine):
            return f"installed editable ({m.group(1)})"
        into = _cd_before(text, m.start()) if m.group(1).rstrip("/") in (".", "") else None
        if into is not None and _engine_tree_path(into, engine) and not _upstream_clone(text, m.start(), engine):
            return f"installed editable (the checkout {into})"  # `git clone .../vllm.git; cd vllm; pip install -e .`
            # of a fork (sample K322); a clone of the engine's own repository is its development build (K258)
    for m in _LOCAL_INSTALL.finditer(text):  # `pip install ./sglang/python[all]` of a cloned tree (sample K115)
        if _engine_tree_path(m.group(1).split("[", 1)[0], engine):
            return f"installed from {m.group(1)}"
    return None


def unreleased_install(path: str, engine: str) -> str | None:
    """How the file installs the engine from something no stock release is (a source tree, a git URL of a repository
    named for it, a pinned development or PR build: `sglang==0.5.6.post2.dev8005+pr.15207.g39d5bd5`), or None: such a
    build has the options its branch adds (samples K115's MiMo and MOSS-TTSD READMEs)."""
    if path in ("", "-"):
        return None
    return source_checkout(path, engine) or _unreleased_package(path, engine)


@functools.lru_cache(maxsize=1024)
def _unreleased_package(path: str, engine: str) -> str | None:
    text = _script_text(path)
    if text is None or "install" not in text:
        return None
    for m in _PIP_WORDS.finditer(text):
        for word in m.group(1).split():
            word = word.strip("\"'")
            git = re.search(r"git\+\S*?/([\w.-]+?)(?:\.git)?(?:[@#]|/?$)", word)
            if git is not None and git.group(1).lower() == engine:
                return f"installed from {word}"
            name, _, version = word.partition("==")
            if name.split("[", 1)[0].lower() == engine and re.search(r"\.dev\d|\+", version):
                return f"the development build {word}"
    return None


_PIP_WORDS = lazy(r"(?m)^[ \t]*(?:uv[ \t]+)?pip3?[ \t]+install[ \t]+([^\n]*)")


@functools.lru_cache(maxsize=1024)
@functools.lru_cache(maxsize=256)  # asked for each launch of a script: its text searched once
def activated_environment(path: str, engine: str) -> str | None:
    """The environment a script activates (`source ~/venv-sglang/bin/activate`, `conda activate serve`) when it
    does not install the engine itself: the release is whatever that environment holds (sample K59: a venv of
    SGLang 0.5.16, judged against today's 0.5.23), not the newest. None otherwise."""
    text = _script_text(path) if path not in ("", "-") else None
    if text is None or "activate" not in text:
        return None
    m = _ACTIVATE.search(text)
    if m is None or re.search(rf"(?m)^[ \t]*(?:uv[ \t]+)?pip3?[ \t]+install\b[^\n]*\b{re.escape(engine)}\b", text):
        return None
    return m.group("conda") or m.group("venv").removesuffix("/bin/activate")


# at a line's start or after `&&` / `;` (`cd /workspace/SpecForge && source .venv/bin/activate`, sample K439)
_ACTIVATE = lazy(r"(?m)(?:^|&&|;)[ \t]*(?:(?:source|\.)[ \t]+[\"']?(?P<venv>[^\s\"';]*/bin/activate)"
                 r"|(?:conda|mamba|micromamba)[ \t]+activate[ \t]+(?P<conda>[\w.-]+))")


def _package_folder(path: str, engine: str) -> bool:
    """An editable install of the folder the engine's repository keeps its package in (`pip install -e
    "python[all]"` from an SGLang checkout: its parser is python/sglang/srt/server_args.py), extras left out."""
    from kvlint.engines import get_engine

    last = path.strip("\"'").split("[", 1)[0].rstrip("/").rsplit("/", 1)[-1]
    folders = {src.split("/", 1)[0] for src in get_engine(engine).parser_sources if "/" in src}
    return bool(last) and last in folders - {engine}


_PYTHONPATH = lazy(r"(?m)^[ \t]*(?:export[ \t]+)?PYTHONPATH=[\"']?([^\s\"';]+)")
_LOCAL_INSTALL = lazy(r"(?m)^[ \t]*(?:uv[ \t]+)?pip3?[ \t]+install[ \t]+(?:[^\n]*[ \t])?[\"']?"
                      r"((?:\.{1,2}/|/|~/)[^\s\"';]+)")
_EDITABLE = lazy(r"(?m)^[ \t]*(?:uv[ \t]+)?pip3?[ \t]+install[ \t]+(?:[^\n]*[ \t])?(?:-e|--editable)[ \t]+"
                 r"[\"']?([^\s\"';]+)")


_CD = lazy(r"(?m)(?:^|&&|;)[ \t]*cd[ \t]+[\"']?([^\s\"';&|]+)")


def _upstream_clone(text: str, at: int, engine: str) -> bool:
    """Whether the last `git clone` before offset `at` clones the engine's own repository (`github.com/vllm-project/
    vllm`): its parser is the stock one at a development commit, so a fork's reading does not apply."""
    from kvlint.engines import get_engine

    clones = _CLONE.findall(text, 0, at)
    return bool(clones) and clones[-1].lower().removesuffix(".git").rstrip("/") == get_engine(engine).upstream


_CLONE = lazy(r"\bgit[ \t]+clone\b[^\n]*?(?:github\.com[/:])([\w.-]+/[\w.-]+)")


def _inside_checkout(text: str, engine: str) -> str | None:
    """The engine's checkout a script changes into and runs from, when the script finds it in place (`cd ~/sglang`,
    `cd "${SGLANG_REPO}"`, samples K397 and K402: forks' experiment scripts): the checkout it was set up in, a source
    build whose release the file does not say. A checkout the file clones itself and never installs is not one (its
    launch runs whatever is installed, sample K322's design); nor is a clone of the engine's own repository."""
    for m in _CD.finditer(text):
        if _engine_tree_path(m.group(1), engine) and not _CLONE.search(text, 0, m.start()):
            return f"{m.group(1)}, the checkout the script runs from"
    return None


def _cd_before(text: str, at: int) -> str | None:
    """The folder the last `cd` in the 20 lines before offset `at` changes to: where a `pip install -e .` installs
    from."""
    above = "\n".join(text[:at].split("\n")[-21:])
    found = _CD.findall(above)
    return found[-1] if found else None


def _engine_tree_path(path: str, engine: str) -> bool:
    """Whether a path is the engine's source tree: a part named exactly for the engine (`../sglang/python`,
    `third_party/vllm`), or a variable named for its checkout (`${SGLANG_ROOT}/python`, `$VLLM_SRC`); a folder
    that only carries the name (`compat/sglang_qwen35`, a shim) is not one, unless the engine's package folder is
    inside it (`$ROOT_DIR/_sglang/python`, sample K235: SGLang's repository keeps its package under python/)."""
    parts = [p for p in re.split(r"[/\\]+", path.strip("\"'")) if p]
    word = re.escape(engine.upper())
    if any(p.lower() == engine or re.fullmatch(rf"\$\{{?{word}_(?:ROOT|DIR|HOME|SRC|SOURCE|PATH|REPO)\}}?", p,
                                              re.IGNORECASE) for p in parts):
        return True
    from kvlint.engines import get_engine

    names = get_engine(engine).tree_names  # `sgl-pr/python`: SGLang's short name (sgl-project, rocm/sgl-dev)
    return any(any(n in a.lower() for n in names) and _package_folder(b, engine)
               for a, b in zip(parts, parts[1:], strict=False))


def _latest_tag(image: str) -> bool:
    """No tag, or a tag that follows the newest release (`latest`, `nightly` without a date)."""
    last = image.rsplit("/", 1)[-1].split("@", 1)[0]
    return ":" not in last or last.rsplit(":", 1)[1].lower() in ("latest", "nightly", "main", "stable")


def tree_environment(program: str | None, engine: str) -> str | None:
    """How a launch runs the engine of a virtual environment kept inside a folder named for the engine
    (`${HOME}/vllm-gfx908/.venv/bin/vllm`, sample K375: a checkout built for one GPU target), or None. Such a folder
    is a clone of the engine's source, built where it lies; an environment that is itself the folder
    (`~/venvs/vllm/bin/vllm`) holds an installed release."""
    # a default written in place (`${SGLANG:-${REPO:-$ROOT/sglang-official}/.venv/bin/sglang}`, sample K416): each
    # part without the braces that close the expressions around it
    parts = [p.rstrip("}") for p in (program or "").split("/") if p.rstrip("}")]
    if len(parts) < 4 or parts[-1] != engine or parts[-2] != "bin" or parts[-3] not in (".venv", "venv"):
        return None
    return f"with its own environment ({'/'.join(parts[:-3])})" if engine in parts[-4].lower() else None


def _host_script(path: str) -> bool:
    """A shell or batch script that runs the engine without a container: whatever release is installed."""
    import os

    name = os.path.basename(path).lower()
    return name.endswith((".sh", ".bash", ".zsh", ".slurm", ".sbatch", ".job")) or name in ("makefile", "justfile")


def _runbook(path: str) -> bool:
    """A document whose commands a person runs on a host (Markdown, reStructuredText, AsciiDoc, Org, notes): its
    release is the reader's (a document is read for years), but a vendor build it installs is the one it runs."""
    return path.lower().endswith((".md", ".markdown", ".mdx", ".qmd", ".rst", ".adoc", ".asciidoc", ".org", ".txt"))


_DATE = r"(?<!\d)(20\d\d)-?([01]\d)-?([0-3]\d)(?!\d)"
_DATE_TAG = lazy(_DATE)
_NAMED_RELEASE = lazy(r"v?(\d{1,4}\.\d{1,4}(?:\.\d{1,4})?(?:\.post\d{1,4})?)(?![\d.])")


def _dated_build(image: str | None, engine: Engine) -> VersionLookup | None:
    """An engine image tagged with a build date (`rocm/sgl-dev:20250701`, `vllm-openai:nightly-2025-09-01`): the
    documented releases that build could behave as, by date against the release table."""
    if not image or ":" not in image.rsplit("/", 1)[-1] or not _engine_image(image, engine):
        return None
    from kvlint.image_names import month_tag

    tag = image.rsplit(":", 1)[1]
    month = month_tag(image)
    if month is not None:  # NGC's `25.11-py3`: the build of that month (its end: the release it carried came before)
        return _by_date(image, engine, f"{month}-28", f"the image {short(image)} is a container release of {month}")
    named = _NAMED_RELEASE.match(tag)
    if named is not None and (_past_major(named.group(1), engine) or not _tags_releases(image, engine)):
        named = None  # `rhaiis/vllm-cuda-rhel9:3.0.0`: the vendor's product version, no release of the engine
    if named is not None:  # rocm/sgl-dev:v0.5.7-rocm700-mi35x-20260121: the tag names the release it builds
        return VersionLookup(named.group(1), "image", _modelled(engine, named.group(1)))
    m = _DATE_TAG.search(tag)
    if m is None:
        return None
    date = "-".join(m.groups())
    return _by_date(image, engine, date, f"the image {short(image)} is a build of {date}")


def _tags_releases(image: str, engine: Engine) -> bool:
    """Whether the image's tag numbers the engine's releases: the engine's own build (`rocm/sgl-dev`), its image or a
    build variant of it (kvlint.image_names.release_tagged), not a project's image named after it
    (`sglang-qwen38-flash-next-sm120:v0.1.0-rc.9`, turn 47's K482), whose tag numbers its own builds."""
    from kvlint.image_names import release_tagged

    repo = _repo(image)
    stems = (engine.name, *engine.facts.VERSION_TAGGED_IMAGES)
    return repo.startswith(engine.facts.BUILD_IMAGE_PREFIXES) or release_tagged(repo, stems)


def _repo(image: str) -> str:
    """An image reference's repository name, lower-cased, without its registry, path or tag (`rocm/sgl-dev:v0.5.7`
    -> `sgl-dev`)."""
    last = image.rsplit("/", 1)[-1]
    return (last.rsplit(":", 1)[0] if ":" in last else last).lower()


def _past_major(version: str, engine: Engine) -> bool:
    """Whether a version's major number is past the newest release's (no release of the engine has it yet)."""
    newest = engine.release(None)
    return int(version.split(".", 1)[0]) > int(newest.split(".", 1)[0])


def _by_date(image: str, engine: Engine, date: str, why: str) -> VersionLookup | None:
    """The documented releases a build of `date` could behave as (kvlint.memory.versions.releases_around)."""
    from kvlint.memory.versions import release_on, releases_around

    found = releases_around(engine.name, date)
    if not found:
        return None
    if release_on(engine.name, date) is None:
        why += ", older than kvlint's release tables (the nearest modelled)"
    return VersionLookup(found[0], "image-date", found[0], candidates=found, why=why)


FORKS = ("gaudi", "hpu", "neuron", "tpu", "xpu", "ascend", "npu", "cpu", "habana")  # their own release numbers


def _engine_image(image: str, engine: Engine) -> bool:
    """The engine's own build (official, ROCm, dev): its tag speaks of the engine's releases. A hardware fork
    (`opea/vllm-gaudi:1.22.0`) numbers its own releases."""
    repo = _repo(image)
    if any(word in repo for word in FORKS):
        return False
    return engine.name in repo or repo.startswith(engine.facts.BUILD_IMAGE_PREFIXES)


def vendor_scope(dep: Deployment) -> tuple[str, str] | None:
    """(vendor, why) when the file says which vendor's cards run the launch without naming one: a ROCm image or an
    `amd.com/gpu` resource means AMD cards only (the catalogue sweep then tries those)."""
    image = dep.image or ""
    if "rocm" in image.lower():
        return "amd", f"the image {short(image)} is a ROCm build"
    if (dep.gpu or "").lower().startswith("amd.com/"):
        return "amd", f"the launch requests {dep.gpu}"
    repo = image.rsplit(":", 1)[0].lower() if ":" in image.rsplit("/", 1)[-1] else image.lower()
    tag = image.rsplit(":", 1)[1].lower() if repo != image.lower() else ""
    if repo.removeprefix("docker.io/") in CUDA_IMAGES and not any(w in tag for w in ("cpu", "xpu", "tpu", "hpu")):
        return "nvidia", f"the image {short(image)} is a CUDA build"
    return None


# compiled once (memory_variants runs per launch, its stem test per catalogue card)
_SAYS_MEMORY = lazy(r"\d\s*g", re.I)
_BARE_CARD = lazy(r"(?:nvidia|amd)?[-_ ]?(?:tesla[-_ ]?)?[a-z]{1,3}\d{2,4}[a-z]{0,3}", re.I)
_MEMORY_SUFFIX = lazy(r"\d+GB$")

CUDA_IMAGES = ("vllm/vllm-openai", "lmsysorg/sglang")  # the engines' own images, built for CUDA only (AMD: rocm/...)


def memory_variants(name: str | None, gpu: Gpu | None) -> list[Gpu]:
    """A card named without its memory (`A100`): the catalogue's cards of the same make and form that differ only
    in memory (A100-SXM-40GB, A100-SXM-80GB), the named one first; [] when the name says the memory or there is
    one size. GKE's `nvidia-tesla-*` labels name one size each, so they are not open."""
    lowered = name.lower() if name else ""
    if not name or gpu is None or gpu.mig_profile or lowered.startswith("nvidia-tesla-") or _SAYS_MEMORY.search(name):
        return []
    if not _BARE_CARD.fullmatch(name.strip()):
        return []
    stem = _MEMORY_SUFFIX.sub("", gpu.id)
    from kvlint.gpus import all_gpus

    others = [g for g in all_gpus() if not g.mig_profile and g.id != gpu.id and _MEMORY_SUFFIX.sub("", g.id) == stem]
    return [gpu, *sorted(others, key=lambda g: g.id)] if others else []


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


def install_settings(dep: Deployment, engine: Engine) -> dict[str, Any]:
    """What the install tells the memory model beside the flags: the engine's own container image ships its optional
    kernels (vLLM's image has FlashInfer, so 0.8-0.11 sample with it; a pip wheel lacks the extra and sorts), so an
    image of the engine sets `flashinfer_sampler`; without one the memory model takes the wheel's path."""
    if dep.image and _engine_image(dep.image, engine):
        return {"flashinfer_sampler": True}
    return {}


def resolved_settings(dep: Deployment) -> tuple[dict[str, Any], tuple[str, ...]]:
    """(canonical resolved values, names of unresolved ones) of a deployment's settings."""
    return dep.resolved_values(), tuple(sorted(name for name, s in dep.settings.items() if not s.resolved))


def expression_of(dep: Deployment, names: tuple[str, ...]) -> Mapping[str, str]:
    """The text as written of unresolved settings (for the skip reason)."""
    return {n: (dep.settings[n].raw or str(dep.settings[n].value)) for n in names if n in dep.settings}
