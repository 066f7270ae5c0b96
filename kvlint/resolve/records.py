"""The records of the resolve stage: what a Deployment's references turned into, and why when they did not.

Every command that sizes a launch (check, budget, inspect, verify, plan) goes through the same lookups,
so the model, GPU, engine version and non-KV term a user sees are the same whichever command printed
them. Each lookup keeps its source ("bundled", "manifest", "image" ...) so a report can say where a
number came from, and its reason when it failed, so a skipped launch says what to fix.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from kvlint.budget import Budget
from kvlint.deployment import Deployment, InvalidValue
from kvlint.gpus import accelerator_kind
from kvlint.record import field, record
from kvlint.sizes import GIB
from kvlint.span import Span
from kvlint.status import EVALUATED, SKIPPED, LaunchStatus, Sweep

if TYPE_CHECKING:
    from kvlint.engines.base import Engine
    from kvlint.gpus import Gpu
    from kvlint.models.spec import ModelSpec
    from kvlint.resolve.fork import EngineTree


@record
class ResolveOptions:
    """What the command line says; the configuration and the manifest say the rest."""

    gpu: str | None = None  # --gpu: beats the manifest
    gpu_memory: str | None = None  # --gpu-memory: the total the engine sees, beats the catalogue's
    engine_version: str | None = None  # --engine-version: when the image tag does not say
    online: bool = False  # --online: the Hub may be asked
    non_kv_gib: float | None = None  # --non-kv-gib: beats calibration and configuration
    assume_gpu: str | None = None  # a command's own fallback card (`budget -- CMD`: H100) instead of a sweep
    sweep: bool = True  # with no GPU known, size the launch against the GPU catalogue


@record
class ModelLookup:
    spec: ModelSpec | None
    reason: str | None = None  # why there is no spec (KV002), in words a user can act on
    source: str | None = None  # lock | bundled | derived | hf-cache | local | override | hub | path-name | served-name
    note: str | None = None  # for the run's notes: a kvlint.lock that could not be read
    conflict: bool = False  # the launch's evidence names two different known models (the reason says where)
    # a path several publishers' conventions derive differently (/models/Qwen3.6-27B-FP8): each is a value of an
    # open input, and the verdicts they agree on are given (kvlint.models.resolve.path_candidates)
    candidates: tuple[ModelSpec, ...] = ()


@record
class GpuLookup:
    gpu: Gpu | None
    memory_bytes: int | None = None  # an explicit total (--gpu-memory, gpu-memory:) the engine sees
    source: str | None = None  # cli | manifest | fleet | config | assumed | None (nothing named)
    name: str | None = None  # as written where it came from
    span: Span | None = None
    reason: str | None = None  # KV003's words when a named product is not in the catalogue

    @property
    def known(self) -> bool:
        return self.gpu is not None or self.memory_bytes is not None

    @property
    def device_kind(self) -> str | None:
        """"tpu", "cpu", ... when the named device is not a GPU at all (nothing to declare instead)."""

        return accelerator_kind(self.name) if self.name and self.gpu is None else None

    @property
    def label(self) -> str | None:
        """The catalogue id, or a custom total as written."""
        if self.gpu is not None:
            return self.gpu.id
        return f"custom ({self.memory_bytes / GIB:.2f} GiB)" if self.memory_bytes is not None else self.name


@record
class VersionLookup:
    version: str | None  # as pinned; None: the engine's default release
    source: str  # image | image-date | image-latest | host | project | project-range | cli | config | default
    modelled: str  # the release the memory model follows
    candidates: tuple[str, ...] = ()  # a date-tagged build, a project's range: the releases it could behave as
    why: str = ""  # how the candidates were found ("rocm/sgl-dev:20250701 is a build of 2025-07-01"), or where the
    # project pins the release ("vLLM 0.8.5 from uv.lock:412")
    settle: str = ""  # what pins the release when candidates are open (default: a release tag on the image)
    fork: str = ""  # a vendor's fork with a parser of its own the launch runs (vllm-xft): it decides refused values
    build: str = ""  # a build of the engine's own source the launch runs (a checkout): its parser decides its choices

    @property
    def said(self) -> str | None:
        """The release modelled, in words, when it is not the one the image names (None when it is); a release
        the project's files pin says where (`vLLM 0.8.5 from uv.lock:412`)."""
        if self.source == "project":
            off = f": modelled as {self.modelled}" if self.version and self.modelled != self.version else ""
            return f"{self.why}{off}"
        if self.source in ("image-date", "project-range"):
            return f"{self.why}: modelled as {self.modelled}"
        if self.version and self.modelled != self.version:
            return f"{self.version} is not in kvlint's release table: modelled as {self.modelled}"
        return None


@record
class OpenInput:
    """An input the file leaves open but bounded: every value was evaluated (the first is the launch's own
    resolution); a verdict that differs between them names this input and what would settle it."""

    name: str  # "engine release" | "GPU"
    values: tuple[str, ...]
    settle: str  # "pin a release tag on the image (line 3)"

    def words(self) -> str:
        return f"{self.name} {' or '.join(self.values)} ({self.settle})"


@record
class NonKv:
    """The one estimated term, or what replaces it: --non-kv-gib, a calibration, or `non-kv-gib:`."""

    bytes: int | None  # None: the engine's estimate
    source: str  # estimated | user | calibrated | config
    note: str | None = None  # a calibration of another release, say
    how: str | None = None  # where a calibration came from ("calibrated from start.log (vllm 0.33.0, TP=2)")


@record
class Resolved:
    """One launch, resolved: the only input the rules and the per-launch status need."""

    deployment: Deployment
    engine: Engine
    model: ModelLookup
    gpu: GpuLookup
    version: VersionLookup
    settings: Mapping[str, Any]  # resolved canonical values (unresolved expressions left out)
    unresolved: tuple[str, ...] = ()  # canonical names of settings that are unresolved expressions
    blocking: tuple[str, ...] = ()  # unresolved settings the memory model needed: capacity rules skipped
    budget: Budget | None = None
    refusal: InvalidValue | None = None  # the engine refuses these settings at start-up (KV007)
    skipped_because: str | None = None  # why the capacity rules did not run (None when they did)
    skip_kind: str | None = None  # the reason's kind, for summaries (kvlint.status.SKIP_WORDS)
    non_kv: NonKv = NonKv(None, "estimated")
    sweep: Sweep | None = None  # sized against the catalogue (no GPU) or against the file's candidates
    candidates: Sweep | None = None  # the file's own candidate GPUs, each tried
    picture: Budget | None = None  # no card known: the budget on the smallest card that starts it (to draw)
    config_spans: Mapping[str, Span] = field(default_factory=dict)  # config.json key -> span (local configs)
    notes: tuple[str, ...] = ()
    open_input: OpenInput | None = None  # an input left open: the launch resolved on each of its values
    engine_tree: EngineTree | None = None  # the repository's own engine source (a fork), when a flag is unknown
    alternatives: tuple[Resolved, ...] = ()  # the launch on open_input.values[1:], in order
    what_if: Callable[[Mapping[str, Any]], Budget | None] = field(default=lambda changes: None, compare=False)
    on_release: Callable[[str], Budget | None] = field(default=lambda version: None, compare=False)

    @property
    def evaluated(self) -> bool:
        return self.budget is not None or self.sweep is not None or self.candidates is not None

    def status(self) -> LaunchStatus:
        """The per-launch status reports print (kvlint.status)."""
        dep, b = self.deployment, self.budget
        if self.gpu.known or (self.sweep is None and self.candidates is None):
            gpu_source = self.gpu.source  # also a named product the catalogue lacks (or a TPU): "manifest"
        else:
            gpu_source = "catalogue" if self.sweep is not None else "candidates"
        return LaunchStatus(
            path=dep.path, span=dep.launch_span or dep.model_span, engine=dep.engine, name=dep.name, model=dep.model,
            model_source=self.model.source, gpu=self.gpu.label, gpu_source=gpu_source,
            capacity=EVALUATED if self.evaluated else SKIPPED,
            skipped_because=None if self.evaluated else self.skipped_because,
            skip_kind=None if self.evaluated else self.skip_kind,
            derived_from=getattr(self.model.spec, "derived_from", None),
            engine_version=self.version.version or self.version.modelled,
            modelled_release=self.version.modelled if self.version.said else None,
            open_input=self.open_input.words() if self.open_input is not None else None,
            kv_tokens=b.kv_tokens if b else None, max_concurrency=round(b.max_concurrency, 2) if b else None,
            fits_one_request=b.fits_one_request if b else None, sweep=self.sweep or self.candidates,
            budget=b or self.picture, unresolved=self.unresolved,
            model_max_len=self.engine.derived_max_len(self.model.spec) if self.model.spec is not None else None,
            seqs_declared=self.engine.setting("max_seqs") in dep.settings, one_of_arms=dep.one_of_arms)
