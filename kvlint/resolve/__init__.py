"""Stage 4, resolve: a Deployment, the configuration and the CLI options -> one frozen `Resolved` record.

The one place between the readers and the rules. `check`, `budget FILE`, `budget -- CMD`, `inspect`,
`verify` and `plan` all resolve through it, so they agree on the model, the GPU, the engine release,
the non-KV term and every number that follows. Nothing here writes back into the Deployment: an
engine's start-up refusal, notes and skip reasons travel in the Resolved record.

A `Resolver` memoises lookups and budgets across the launches of one run (pre-commit runs one
process over every changed file, and a repository repeats the same launch many times).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from kvlint.budget import Budget
from kvlint.deployment import AFTER_LOAD, CHART_KEY, Deployment, InvalidValue
from kvlint.engines import get_engine
from kvlint.errors import InvalidSettingError, KvlintError, NotModelledError
from kvlint.findings import short
from kvlint.flags.flag_values import is_placeholder, is_windows_path
from kvlint.gpus import lookup_gpu
from kvlint.record import replace
from kvlint.resolve import lookups
from kvlint.resolve.records import GpuLookup, ModelLookup, NonKv, OpenInput, Resolved, ResolveOptions, VersionLookup
from kvlint.resolve.sizing import BudgetCache, Outcome, Sizing, UnresolvedSetting, WhatIf
from kvlint.span import Span

if TYPE_CHECKING:
    from kvlint.config import Config
    from kvlint.engines.base import Engine
    from kvlint.models.spec import ModelSpec
    from kvlint.resolve.fork import EngineTree
    from kvlint.status import Sweep

__all__ = ["GpuLookup", "ModelLookup", "NonKv", "Resolved", "ResolveOptions", "Resolver", "VersionLookup"]

CONFIG_FACTS = ("num_kv_heads", "num_attention_heads", "max_len", "kv_lora_rank", "head_dim", "num_layers")


MODEL_LOOKUPS = 4096


class Resolver:
    """Resolves launches; lookups and budgets are memoised for the whole run."""

    def __init__(self, options: ResolveOptions | None = None):
        self.options = options or ResolveOptions()
        self.budgets = BudgetCache()
        self._models: dict[tuple[Any, ...], ModelLookup] = {}
        self._spans: dict[str, Mapping[str, Span]] = {}

    def resolve(self, dep: Deployment, config: Config) -> Resolved:
        engine = get_engine(dep.engine)
        unsized = engine.unsized_server(dep.server)
        if unsized is not None:
            return _unsized_server(dep, engine, config, self.options, unsized)
        model = self._model(dep, config)
        gpu = lookups.gpu_for(dep, config, self.options)
        version = lookups.version_for(dep, engine, config, self.options)
        settings, unresolved = lookups.resolved_settings(dep)
        settings = {**lookups.install_settings(dep, engine), **settings}
        base = Resolved(deployment=dep, engine=engine, model=model, gpu=gpu, version=version, settings=settings,
                        unresolved=unresolved, config_spans=self._config_spans(model.spec),
                        notes=tuple(n for n in (model.note, _weights_note(model)) if n),
                        engine_tree=_engine_tree(dep, engine))
        return self._over_candidates(base, config)

    # -------------------------------------------------------------- robust verdicts: every value of an open input

    def _over_candidates(self, base: Resolved, config: Config) -> Resolved:
        """The launch sized on every value of the one input the file leaves open but bounded (the releases a
        date-tagged image could be, the memory sizes of a card named without one); the rules then keep a verdict
        only where every value agrees (kvlint.registry.run_rules). The first value is the launch's own resolution;
        the budgets are the run's memo, so a value shared with another launch costs a lookup. An input bounded to one
        value (TP under one GPU) settles first, so another input left open (the release) is tried with it."""
        parallel = _parallel_candidates(base)
        if parallel is not None and len(parallel[1]) == 1:
            base = _replace(base, **parallel[1][0][1])
        opened = self._open_input(base)
        if opened is None:
            return self._sized(base, config)
        name, values, settle = opened
        if len(values) == 1:  # bounded to one value (TP under 1 GPU): nothing is open, the launch runs with it
            return self._sized(_replace(base, **values[0][1]), config)
        first = self._sized(_replace(base, **values[0][1]), config)
        alternatives = tuple(self._sized(_replace(base, **changes), config) for _, changes in values[1:])
        return _replace(first, open_input=OpenInput(name, tuple(v for v, _ in values), settle),
                        alternatives=alternatives)

    def _open_input(self, base: Resolved) -> tuple[str, list[tuple[str, dict[str, Any]]], str] | None:
        """The first open input of the launch with its values (each a change to the Resolved record), or None."""
        dep, version = base.deployment, base.version
        if dep.otherwise is not None:
            return _other_branch(base)
        if len(version.candidates) > 1:
            line = f", line {dep.image_span.line}" if dep.image_span is not None else ""
            values: list[tuple[str, dict[str, Any]]] = [(v, {"version": _replace_version(version, v)})
                                                        for v in version.candidates]
            settle = version.settle or f"pin a release tag on the image{line}"
            return (f"{base.engine.title} release", values, f"{version.why}: {settle}")
        if base.model.spec is None and len(base.model.candidates) > 1:
            line = f", line {dep.model_span.line}" if dep.model_span is not None else ""

            models = [(spec.model_id, {"model": replace(base.model, spec=spec, reason=None, candidates=())})
                      for spec in base.model.candidates]
            return ("model", models, f"the path {dep.model} names weights that {len(models)} publishers' conventions "
                                     f"derive differently: map it to its config.json under `models:` in .kvlint.yaml"
                                     f"{line}")
        parallel = _parallel_candidates(base)
        if parallel is not None:
            return parallel
        lengths = _length_candidates(base)
        if lengths is not None:
            return lengths
        if base.gpu.gpu is not None and base.gpu.source in ("manifest", "fleet", "config") and not self.options.gpu:
            cards = lookups.memory_variants(base.gpu.name, base.gpu.gpu)
            if len(cards) > 1:
                line = f", line {base.gpu.span.line}" if base.gpu.span is not None else ""
                values = [(g.id, {"gpu": _card(base.gpu, g)}) for g in cards]
                return ("GPU", values, f"{base.gpu.name!r} names no memory size: name the card with its memory{line}")
        return None

    # -------------------------------------------------------------- the budget, or why there is none

    def _sized(self, base: Resolved, config: Config) -> Resolved:
        dep, spec = base.deployment, base.model.spec
        why = _reader_block(base)
        if why is not None:
            kind = "older-value" if " a value of older releases " in why else "rejected-value"
            return _replace(base, skipped_because=why, skip_kind=kind)
        if spec is None:
            if base.model.conflict:
                return _replace(base, skipped_because=base.model.reason, skip_kind="model-conflict")
            return _replace(base, skipped_because=_model_skip(base), skip_kind=_model_kind(base.deployment))
        doubt = _length_doubt(base, spec)
        if doubt is not None:
            return _replace(base, skipped_because=doubt, skip_kind="model-length-unknown")
        sizing = self._sizing(base, spec, config)
        what_if = WhatIf(sizing, dict(base.settings), self.budgets)
        if base.gpu.known:
            return self._on_card(base, what_if)
        if base.gpu.name is not None and base.gpu.reason and _not_a_gpu(base.gpu.reason):
            return _replace(base, skipped_because=base.gpu.reason, skip_kind="not-a-gpu")
        return self._swept(base, what_if, dep)

    def _sizing(self, base: Resolved, spec: ModelSpec, config: Config) -> Sizing:
        non_kv, source = lookups.non_kv_setting(base.deployment.model, config, self.options)
        # the node count places ranks on nodes and sizes no GPU's pool: left open (a Ray cluster's, `$(LWS_GROUP_SIZE)`)
        # it is no input the memory model could ask for, and kept out of the budgets' key they share across launches
        unresolved = frozenset(base.unresolved) - {base.engine.setting("nodes")}
        return Sizing(engine=base.engine, model=spec, gpu=base.gpu.gpu, memory_bytes=base.gpu.memory_bytes,
                      version=base.version.version, non_kv_bytes=non_kv, non_kv_source=source,
                      calibrations=config.calibrations, unresolved=unresolved)

    def _on_card(self, base: Resolved, what_if: WhatIf) -> Resolved:
        outcome = what_if.outcome()
        fixed = _replace(base, what_if=what_if, on_release=what_if.on_release, non_kv=_non_kv(what_if.sizing, outcome),
                         notes=_calibration_notes(base, outcome))
        if outcome.budget is None:
            return _unsized(fixed, outcome)
        candidates = self._candidates(fixed, what_if)
        return _replace(fixed, budget=outcome.budget, candidates=candidates)

    def _swept(self, base: Resolved, what_if: WhatIf, dep: Deployment) -> Resolved:
        """No card known: the engine's check on every catalogue card (or on the file's candidates)."""
        from kvlint.resolve.sweep import sweep

        probe = what_if.outcome()  # on the default card: refusals and unresolved values show here
        if probe.error is not None and not _memory_error(probe.error):
            return _unsized(_replace(base, what_if=what_if), probe)
        load = declared_load(base)
        cards = self._candidate_cards(dep)
        scope = lookups.vendor_scope(dep) if not cards else None
        found: Sweep = sweep(what_if.sizing, dict(base.settings), self.budgets, load=load,
                             cards=cards or _vendor_cards(scope), candidates=bool(cards))
        if scope is not None:
            found = _scoped(found, scope)
        return _replace(base, what_if=what_if, sweep=found if not cards else None, candidates=found if cards else None,
                        non_kv=_non_kv(what_if.sizing, probe), picture=self._picture(base, what_if, found))

    def _picture(self, base: Resolved, what_if: WhatIf, found: Sweep) -> Budget | None:
        """The budget on the smallest card that starts the launch, else on the largest (why none does); the
        sweep computed it already and kept it (a cache hit)."""
        from kvlint.resolve.sweep import picture_card

        card = picture_card(found)
        if card is None:
            return None
        return self.budgets.get(what_if.sizing.on(lookup_gpu(card)), dict(base.settings)).budget

    def _candidates(self, base: Resolved, what_if: WhatIf) -> Sweep | None:
        cards = self._candidate_cards(base.deployment)
        if not cards or self.options.gpu:
            return None
        from kvlint.resolve.sweep import sweep

        return sweep(what_if.sizing, dict(base.settings), self.budgets, load=declared_load(base), cards=cards,
                     candidates=True)

    def _candidate_cards(self, dep: Deployment) -> list[Any]:
        """The catalogue cards among the file's candidate GPUs (two or more), deduplicated, in file order."""
        if len(dep.gpu_options) < 2:
            return []
        out: dict[str, Any] = {}
        for option in dep.gpu_options:
            gpu, _ = lookups.lookup_gpu_name(option.name)
            if gpu is not None:
                out.setdefault(gpu.id, gpu)
        return list(out.values()) if len(out) > 1 else []

    def on_card(self, r: Resolved, gpu: Any) -> Budget | None:
        """The budget of a resolved launch on another card (a sweep's card, to draw its picture)."""
        if not isinstance(r.what_if, WhatIf):
            return None
        return self.budgets.get(r.what_if.sizing.on(gpu), dict(r.settings)).budget

    # -------------------------------------------------------------- model and config.json spans

    def _model(self, dep: Deployment, config: Config) -> ModelLookup:
        key = (dep.model, dep.model_resolved, tuple((a.name, a.how) for a in dep.model_aliases),
               tuple(sorted(config.models.items())), config.root, lookups.lock_for(dep, config))
        if key not in self._models:
            if len(self._models) >= MODEL_LOOKUPS:  # per folder and reference: bounded, memory stays flat
                self._models.clear()
            self._models[key] = lookups.model_for(dep, config, self.options)
        return self._models[key]

    def _config_spans(self, spec: ModelSpec | None) -> Mapping[str, Span]:
        """config.json key -> span, for configs the user owns (a local file); read once per config."""
        if spec is None:
            return {}
        if spec.source not in self._spans:
            self._spans[spec.source] = _find_keys(spec)
        return self._spans[spec.source]


def _vendor_cards(scope: tuple[str, str] | None) -> list[Any] | None:
    """The catalogue's whole cards of one vendor (None: every card)."""
    if scope is None:
        return None
    from kvlint.resolve.sweep import catalogue_cards

    return [g for g in catalogue_cards() if g.vendor == scope[0]] or None


def _scoped(found: Sweep, scope: tuple[str, str]) -> Sweep:
    return replace(found, scope=f"{scope[0].upper()} cards ({scope[1]})")


def declared_load(r: Resolved) -> int | None:
    """Concurrency the launch advertises: an explicit max_num_seqs / max_running_requests, or a serving or
    autoscaling target the reader found; the smaller when both (the engine runs no more than its
    max_num_seqs, the platform sends no more than its target). Engine defaults are not a declaration."""
    found = [n for n, _ in declarations(r.deployment, r.engine)]
    return min(found) if found else None


def declarations(dep: Deployment, engine: Engine) -> list[tuple[int, str]]:
    """(requests, where) of each concurrency declaration: the engine flag, then the serving target."""
    out: list[tuple[int, str]] = []
    written = dep.settings.get(engine.setting("max_seqs"))
    if written is not None and written.resolved and written.origin != "default" and isinstance(written.value, int) \
            and not isinstance(written.value, bool) and written.value > 0:
        out.append((written.value, "flag"))
    if dep.declared_load is not None and dep.declared_load.value > 0:
        out.append((dep.declared_load.value, "target"))
    return out


def _parallel_candidates(base: Resolved) -> tuple[str, list[tuple[str, dict[str, Any]]], str] | None:
    """An unresolved tensor-parallel size bounded by the GPUs the instance requests: each divisor of the count
    (largest first, the usual choice), the other sizes as written. The launch is resolved with the value written
    into its Deployment too, so every rule reads the same size. One GPU leaves one size: the launch is sized on
    it, with nothing open (`--tensor-parallel-size $NUM_GPUS` under CUDA_VISIBLE_DEVICES="0")."""
    dep, engine = base.deployment, base.engine
    name = engine.setting("tp")
    written = dep.settings.get(name)
    if written is None or written.resolved or not dep.gpu_count or dep.gpu_count < 1 or dep.gpu_count > 64:
        return None

    values: list[tuple[str, dict[str, Any]]] = []
    for tp in sorted((d for d in range(1, dep.gpu_count + 1) if dep.gpu_count % d == 0), reverse=True):
        fixed = replace(written, value=tp, resolved=True)
        values.append((str(tp), {"deployment": replace(dep, settings={**dep.settings, name: fixed}),
                                 "settings": {**base.settings, name: tp},
                                 "unresolved": tuple(n for n in base.unresolved if n != name)}))
    if not values:
        return None
    line = f", line {written.span.line}" if written.span is not None else ""
    return (f"{engine.flag('tp')}", values,
            f"{engine.flag('tp')} is {written.raw or written.value!r}, bounded by the {dep.gpu_count} GPUs requested: "
            f"give it a value under `variables:` in .kvlint.yaml{line}")


def _card(lookup: GpuLookup, gpu: Any) -> GpuLookup:
    return replace(lookup, gpu=gpu)


def _length_candidates(base: Resolved) -> tuple[str, list[tuple[str, dict[str, Any]]], str] | None:
    """A stand-in config whose family disagrees on the context length (kvlint.models.derive): each length the
    real model may derive is a value, so a verdict every length agrees on is given instead of a skip."""
    spec = base.model.spec
    if spec is None or len(spec.length_candidates) < 2 or _length_doubt(base, spec) is None:
        return None

    engine = base.engine
    by_length: dict[int, tuple[ModelSpec, list[str]]] = {}
    for c in spec.length_candidates:  # one value per length this engine derives, its sources named together
        real = replace(spec, max_len_vllm=c.max_len_vllm, max_len_sglang=c.max_len_sglang, length_unknown=None)
        by_length.setdefault(engine.derived_max_len(real), (real, []))[1].append(c.source)
    if len(by_length) < 2:
        return None
    values = [(f"{n:,} ({', '.join(sources)})", {"model": replace(base.model, spec=real)})
              for n, (real, sources) in by_length.items()]
    flag = engine.flag("max_len")
    return ("context length", values, f"{spec.length_unknown}: set {flag}, or `kvlint models lock` the real config")


def _other_branch(base: Resolved) -> tuple[str, list[tuple[str, dict[str, Any]]], str]:
    """The settings on the file's other branch, when a condition kvlint does not decide changes them (Deployment.
    otherwise): the launch as read, and with them (the deployment too, so a rule's span for a value is that branch's).
    """
    dep, engine = base.deployment, base.engine
    other = dep.otherwise or {}
    merged = replace(dep, settings=dict(other), otherwise=None, otherwise_why="")
    settings, unresolved = lookups.resolved_settings(merged)
    changed = {n for n in {*other, *dep.settings} if (n in other) != (n in dep.settings)
               or n in other and other[n].value != dep.settings[n].value}
    flags = ", ".join(sorted({(other.get(n) or dep.settings[n]).flag or n for n in changed}))
    branch = {"deployment": merged, "settings": {**lookups.install_settings(merged, engine), **settings},
              "unresolved": unresolved}
    return ("the file's branch", [("as read", {}), (f"otherwise ({flags})", branch)],
            f"{dep.otherwise_why}, which kvlint does not evaluate")


def _replace_version(v: VersionLookup, release: str) -> VersionLookup:
    return replace(v, version=release, modelled=release)


def _replace(r: Resolved, **changes: Any) -> Resolved:
    return replace(r, **changes)


def _reader_block(r: Resolved) -> str | None:
    """Why the readers' output cannot be sized at all (refused values come first: the engine exits)."""
    dep = r.deployment
    # a chart key's value (KV007: its template decides the option) is sized past unless the pool reads it
    refused = [bad for bad in dep.invalid_values if not _read_on_release(r, bad) and bad.origin != CHART_KEY]
    if refused:
        bad = refused[0]
        return f"{r.engine.title} rejects {bad.flag} {bad.raw}".rstrip() + f" ({bad.reason}): fix KV007 first"
    from kvlint.engines.registered import facts

    sizing = [bad for bad in dep.invalid_values if bad.setting in facts(dep.engine).KV_SETTINGS]
    if sizing:  # an older release's choice (`--kv-cache-dtype fp4_e2m1` on SGLang 0.5.9): it starts, but the
        bad = sizing[0]  # arithmetic kvlint runs is the newest release's, which has no such value to size with
        if bad.origin == CHART_KEY:
            return f"the chart's key gives {bad.flag} {bad.raw}, which {r.engine.title} refuses as written: not sized"
        return (f"{r.engine.title} {r.version.version} reads {bad.flag} {bad.raw}, a value of older releases whose "
                "pool arithmetic kvlint does not model: not sized")
    return None


def _read_on_release(r: Resolved, bad: InvalidValue) -> bool:
    """Whether the release the launch pins reads the value (an older reading: `--limit-mm-per-prompt image=5` on
    vLLM 0.5.5 to 0.9.2, sample K259's image installing 0.7.3): it starts, so it is sized, and KV007 says nothing."""
    from kvlint.flags.flag_table import earlier
    from kvlint.flags.flag_values import older_era

    era = older_era(r.deployment.engine, bad.flag or "", bad.raw, bad.reason)
    pinned = r.version.version
    if era is None or pinned is None:
        return False
    return not earlier(pinned, era[1]) and not earlier(era[2], pinned)


def _model_skip(r: Resolved) -> str:
    dep, reason = r.deployment, r.model.reason or "model unknown"
    ref = short(dep.model or "")
    if not dep.model:
        return "no model reference found in the launch: kvlint needs the model to size it"
    if not dep.model_resolved:

        if is_placeholder(dep.model):
            return (f"the model is {ref}, a placeholder the deploy tooling replaces: kvlint sizes the launch "
                    f"once the file names the model")
        return (f"the model is {ref}, an unresolved expression: give its variable a value under "
                f"`variables:` in .kvlint.yaml")
    if _is_path(dep.model):
        return (f"the model is the path {ref}, with no config.json beside the manifest and no Hub id in "
                f"it: map it under `models:` in .kvlint.yaml, or name the model with --served-model-name")
    return f"model {ref} is not known offline: {lookups.MODEL_FIX}" if "not known offline" in reason \
        else f"model {ref}: {reason}"


def _is_path(ref: str) -> bool:
    return ref.startswith(("/", "./", "../", "~")) or is_windows_path(ref)


def _length_doubt(r: Resolved, spec: ModelSpec) -> str | None:
    """A sibling's config stands in for the model and the length rests on the real one's: say so, do not guess.

    With a length set at or below the shortest the family's configs allow, the stand-in sizes the launch
    exactly (shapes agree); left to the model, the engine derives it from a config kvlint does not have."""
    if spec.length_unknown is None:
        return None
    name = r.engine.setting("max_len")
    given = r.settings.get(name)
    if isinstance(given, int) and not isinstance(given, bool) and 0 < given <= (spec.length_floor or 0):
        return None
    flag = r.engine.flag("max_len")
    return (f"{spec.length_unknown}, and the launch leaves the length to the model: set {flag} (at most "
            f"{spec.length_floor:,} is exact with the stand-in) or `kvlint models pull` its config")


def _model_kind(dep: Deployment) -> str:
    if not dep.model:
        return "no-model"
    if not dep.model_resolved:
        return "unresolved-model"
    return "model-path" if _is_path(dep.model) else "unknown-model"


def _not_a_gpu(reason: str) -> bool:
    """A TPU, Gaudi, Neuron or CPU: kvlint sizes GPU memory only, so no card of the catalogue stands in."""
    return "not a GPU" in reason


def _memory_error(error: KvlintError) -> bool:
    """Errors a different card could avoid (they are what the sweep measures), not setting errors nor a model the
    weights model cannot load as asked (no card changes that: sweeping it read as "needs more than 4 TiB")."""
    from kvlint.models.weights import WeightsError

    return not isinstance(error, (InvalidSettingError, UnresolvedSetting, WeightsError, NotModelledError))


def _unsized(r: Resolved, outcome: Outcome) -> Resolved:
    """The budget failed: the engine refuses the settings (KV007), a needed value is unresolved, or a bug."""
    err = outcome.error
    if isinstance(err, InvalidSettingError):
        refusal = _refusal(r.deployment, err)
        return _replace(r, refusal=refusal, skip_kind="refused",
                        skipped_because=f"{r.engine.title} refuses these settings at start-up ({err.reason})")
    if isinstance(err, UnresolvedSetting):
        written = lookups.expression_of(r.deployment, err.names)
        said = ", ".join(f"{n} is {written.get(n, '?')!r}" for n in err.names)
        return _replace(r, blocking=err.names, skip_kind="unresolved-setting",
                        skipped_because=f"{said}, an unresolved expression the memory model needs: give it a value "
                                        f"under `variables:` in .kvlint.yaml")
    kind = "" if err is None or type(err) is KvlintError else f"{type(err).__name__}: "
    return _replace(r, skipped_because=f"the memory model failed: {kind}{err}", skip_kind="error",
                    notes=r.notes + (f"{r.deployment.path}: capacity rules skipped for {r.deployment.model}: "
                                     f"{kind}{err}",))


def _refusal(dep: Deployment, exc: InvalidSettingError) -> InvalidValue:
    """The engine's start-up refusal, placed at the setting it names when the deployment wrote it."""
    s = dep.settings.get(exc.setting or "")
    late = AFTER_LOAD if exc.after_load else ""
    if s is None:
        return InvalidValue("", "", dep.launch_span or dep.model_span, exc.reason, exc.setting or "", late)
    raw = s.raw or (str(s.value) if not isinstance(s.value, bool) else "")
    # a key of a chart or an operator's object kvlint has no adapter for (`gpuMemoryUtilization: 85`, turn 37's
    # K329): its template or controller writes the flag, in a scale of its own maybe, so the refusal is its to say
    origin = late or (CHART_KEY if s.origin == CHART_KEY else "")
    return InvalidValue(s.flag or exc.setting or "", raw, s.span or s.flag_span or dep.launch_span, exc.reason,
                        s.name, origin)


def _non_kv(sizing: Sizing, outcome: Outcome) -> NonKv:
    if outcome.calibration is not None:
        found = outcome.calibration
        return NonKv(found.non_kv_bytes, "calibrated", found.note(), found.describe())
    return NonKv(sizing.non_kv_bytes, sizing.non_kv_source)


def _weights_note(model: ModelLookup) -> str | None:
    """A bundled config with no published total to check its weight count against says so in the run's notes."""
    spec = model.spec
    if spec is None or not spec.weights_unchecked:
        return None
    return f"{spec.model_id}: weights not checked against a published total ({spec.weights_unchecked})"


def _calibration_notes(r: Resolved, outcome: Outcome) -> tuple[str, ...]:
    note = outcome.calibration.note() if outcome.calibration is not None else None
    return r.notes + ((f"{r.deployment.path}: {note}",) if note else ())


def _find_keys(spec: ModelSpec) -> Mapping[str, Span]:
    """Spans of the config.json keys rules cite, when the config is a file the user owns."""
    import os
    import re

    kind, sep, rest = spec.source.partition(":")
    path = rest if sep and re.fullmatch(r"[a-z-]+", kind) else spec.source
    if sep and re.fullmatch(r"[a-z-]+", kind) and kind not in ("override", "local", "path", "file"):
        return {}
    path = os.path.join(path, "config.json") if os.path.isdir(path) else path
    keys = {k for k in (spec.field_name(f) for f in CONFIG_FACTS) if k}
    if not keys or not os.path.isfile(path):
        return {}
    found: dict[str, Span] = {}
    try:
        with open(path, encoding="utf-8") as fh:
            for number, line in enumerate(fh, start=1):
                for key in keys - set(found):
                    col = line.find(f'"{key}"')
                    if col >= 0:
                        found[key] = Span(path, number, col + 1, number, col + len(key) + 3)
    except (OSError, UnicodeDecodeError):
        return {}
    return found


def _engine_tree(dep: Deployment, engine: Engine) -> EngineTree | None:
    """The repository's own engine source (a fork), looked for only when a flag is unknown to every release or
    removed from the newest (a fork may keep what stock releases dropped), or a value is refused (a fork may take
    values stock releases do not: sample K220's `--mm-attention-backend fa2`)."""
    flags = tuple(u.flag for u in dep.unknown_flags if u.reason in ("unrecognized", "removed"))
    if not flags and not dep.invalid_values:
        return None
    from kvlint.resolve.fork import engine_tree

    return engine_tree(dep.path, engine.parser_sources, flags, command=engine.name)


def _unsized_server(dep: Deployment, engine: Engine, config: Config, options: ResolveOptions, why: str) -> Resolved:
    """A launch of a server with no KV cache (SGLang's diffusion server): its flags were read with that server's
    table (KV004 still says what it rejects) and its release is looked up, but no model or GPU is: nothing is
    sized, so no capacity rule runs and the model is no KV002; the status says why (skip kind "no-kv-cache")."""
    version = lookups.version_for(dep, engine, config, options)
    settings, unresolved = lookups.resolved_settings(dep)
    return Resolved(deployment=dep, engine=engine, model=ModelLookup(None), gpu=GpuLookup(None), version=version,
                    settings=settings, unresolved=unresolved, skipped_because=why, skip_kind="no-kv-cache")
