"""The `kvlint check` pipeline: files -> deployments -> resolve -> budget -> rules -> suppress.

One direction, no back-and-forth: readers find launches, this module resolves model and GPU once
per distinct reference (memoised; pre-commit runs one process over every file), asks the engines
for a Budget, runs the selected rules and applies suppressions. Reporters only read the result.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from kvlint import limits
from kvlint.config import Config, ConfigCache
from kvlint.deployment import Deployment, InvalidValue
from kvlint.errors import InvalidSettingError, KvlintError
from kvlint.findings import Finding, Severity
from kvlint.registry import Context, get_rule, run_rules, selected_codes

GIB = 2**30
CONFIG_NAMES = {".kvlint.yaml", ".kvlint.yml", ".pre-commit-config.yaml", ".pre-commit-hooks.yaml"}


@dataclass(frozen=True)
class LintOptions:
    gpu: str | None = None
    gpu_memory: str | None = None
    engine_version: str | None = None
    config: str | None = None
    select: tuple[str, ...] | None = None
    ignore: tuple[str, ...] = ()
    online: bool = False
    show_unused_suppressions: bool = False
    stdin_text: str | None = None  # the text of "-"


@dataclass
class LintResult:
    findings: list[Finding] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    deployments: int = 0
    suppressed: int = 0
    unreadable: list[tuple[str, str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    texts: dict[str, str] = field(default_factory=dict)
    configs: list[Config] = field(default_factory=list)


def lint(paths: list[str], options: LintOptions = LintOptions()) -> LintResult:
    """Check every deployment file under paths; never raises for bad input (only for bad config)."""
    from kvlint.launches import iter_files
    from kvlint.launches.discover import is_note
    from kvlint.launches.read import kv001
    from kvlint.limits import LimitExceeded, file_limits

    configs = ConfigCache(options.config)
    resolver = Resolver(options)
    result = LintResult()
    for path in paths:  # a broken configuration is an error even when no file is linted
        if path != "-" and os.path.exists(path):
            configs.for_file(os.path.join(path, "-") if os.path.isdir(path) else path)
    files = [("-", None)] if list(paths) == ["-"] else iter_files(paths)
    for path, skip in files:
        if skip is not None:
            if is_note(skip):
                result.notes.append(f"{path}: {skip}")
            else:
                result.unreadable.append((path, skip))
            continue
        if os.path.basename(path) in CONFIG_NAMES:
            continue
        config = configs.for_file(path)
        if path != "-" and config.excluded(path):
            continue
        with file_limits():  # one budget for the file: its read and its rules (kvlint.limits)
            try:
                _lint_file(path, config, options, resolver, result)
            except LimitExceeded as exc:
                if "KV001" in _codes(config, options, path):
                    result.findings.append(kv001(path, exc.reason))
    result.findings = sorted(dict.fromkeys(result.findings), key=lambda f: f.sort_key)  # same span twice: once
    result.configs = configs.loaded()
    result.notes = sorted(set(result.notes) | {n for c in result.configs for n in c.notes})
    return result


def _read_text(path: str, options: LintOptions) -> str | None:
    """The text, read within the size cap; None for what the reader must refuse (it says why as KV001)."""
    if path == "-" and options.stdin_text is not None:
        return options.stdin_text
    from kvlint.sources.text import SourceError, decode, read_bytes, read_stdin

    try:
        return decode(read_stdin() if path == "-" else read_bytes(path))
    except SourceError:  # over the cap, binary, not UTF-8, not a regular file
        return None


def _lint_file(path: str, config: Config, options: LintOptions, resolver: Resolver, result: LintResult) -> None:
    from kvlint import suppress

    text, read = _read(path, options, result)
    if read is None or read.skipped:
        return
    result.files.append(path)
    if text is not None:
        result.texts[path] = text
    codes = _codes(config, options, path)
    found = [_reseverity(f, config) for f in read.findings if f.code in codes]
    for dep in read.deployments:
        found += _deployment_findings(dep, config, codes, resolver, result)
    outcome = suppress.apply(found, suppress.scan(text) if text else [])
    result.suppressed += len(outcome.suppressed)
    result.findings.extend(outcome.kept)
    if options.show_unused_suppressions and "KV006" in codes:
        result.findings.extend(_unused(path, outcome.unused))


def _read(path: str, options: LintOptions, result: LintResult):
    """The file's text and what the readers found in it; (None, None) when it cannot be read at all."""
    from kvlint.launches import read_path

    try:
        text = _read_text(path, options)
    except OSError as exc:
        result.unreadable.append((path, f"cannot read: {exc.strerror or exc}"))
        return None, None
    try:
        return text, read_path(path, text)
    except Exception as exc:  # noqa: BLE001 - a reader bug must not crash the hook; the file counts as unread
        result.unreadable.append((path, f"internal error while reading ({type(exc).__name__}: {exc}); please report it"))
        return text, None


def _deployment_findings(dep: Deployment, config: Config, codes: frozenset[str], resolver: Resolver,
                         result: LintResult) -> list[Finding]:
    limits.check()
    result.deployments += 1
    ctx = resolver.context(dep, config)
    result.notes.extend(resolver.notes.pop(id(dep), []))
    fired = _run_guarded(ctx, codes, result)
    kept = [f for f in fired if not _annotated(f, dep)]
    result.suppressed += len(fired) - len(kept)
    return kept


def _run_guarded(ctx: Context, codes: frozenset[str], result: LintResult) -> list[Finding]:
    """Rules one at a time: a bug in one rule costs that rule's findings and a note, never the run."""
    fired: list[Finding] = []
    for code in sorted(codes):
        try:
            fired.extend(run_rules(ctx, {code}))
        except Exception as exc:  # noqa: BLE001 - a pre-commit hook must not crash on a rule bug
            result.notes.append(f"{ctx.deployment.path}: internal error in {code} ({type(exc).__name__}: {exc}); "
                                f"please report it")
    return fired


def _codes(config: Config, options: LintOptions, path: str) -> frozenset[str]:
    select = options.select if options.select is not None else config.select
    ignore = tuple(config.ignore) + tuple(options.ignore)
    return selected_codes(select, ignore) - config.ignored_here(path)


def _annotated(f: Finding, dep: Deployment) -> bool:
    from kvlint.suppress import resolve_codes

    if not dep.ignore_codes:
        return False
    codes, _ = resolve_codes(",".join(dep.ignore_codes))
    return f.code in codes


def _reseverity(f: Finding, config: Config) -> Finding:
    sev = (config.estimated_severities if f.estimated else {}).get(f.code) or config.severities.get(f.code)
    return replace(f, severity=sev) if sev and sev is not f.severity else f


def _unused(path: str, unused) -> list[Finding]:
    from kvlint.span import Span

    rule = get_rule("KV006")
    return [rule.finding(None, f"suppression `{d.text}` is unused or invalid: {why}",
                         Span(path, d.line, d.col, d.line, d.col + len(d.text)), path=path)
            for d, why in unused]


class Resolver:
    """Model, GPU and budget lookups, memoised across files (one process sees the whole commit)."""

    def __init__(self, options: LintOptions):
        self.options = options
        self._models: dict[tuple, Any] = {}
        self._gpus: dict[str, Any] = {}
        self.notes: dict[int, list[str]] = {}

    def context(self, dep: Deployment, config: Config) -> Context:
        model, model_error = self.model(dep, config)
        gpu, gpu_error, memory = self.gpu(dep, config)
        base = Context(deployment=dep, model=model, gpu=gpu, model_error=model_error, gpu_error=gpu_error,
                       options=config.rule_options, severities=config.severities,
                       estimated_severities=config.estimated_severities)
        if model is None or (gpu is None and memory is None) or dep.invalid_values:
            return base  # a refused value (KV007) stops the engine before any memory is sized
        what_if = _WhatIf(self, dep, config, model, gpu, memory)
        budget = what_if({})
        if what_if.invalid is not None:
            return replace(base, deployment=replace(dep, invalid_values=(_invalid(dep, what_if.invalid),)))
        return replace(base, budget=budget, what_if=what_if)

    def model(self, dep: Deployment, config: Config) -> tuple[Any, str | None]:
        if not dep.model:
            return None, "no model reference found in the launch"
        if not dep.model_resolved:
            return None, f"the reference {dep.model} is an unresolved expression (variable or template)"
        key = (dep.model, tuple(sorted(config.models.items())), config.root)
        if key not in self._models:
            from kvlint.models.resolve import resolve_model

            try:
                self._models[key] = (resolve_model(dep.model, online=self.options.online,
                                                   overrides=config.models or None, base_dir=config.root), None)
            except KvlintError as exc:
                self._models[key] = (None, exc.message)
            except OSError as exc:  # a 300-character name, an unreadable HF cache: this machine cannot look it up
                self._models[key] = (None, f"the reference cannot be looked up on this machine ({exc.strerror or exc})"
                                           "; give a Hub id or a readable local path, or map it under `models:`")
            except Exception as exc:  # noqa: BLE001 - a resolver bug degrades to KV002, not a crash
                self._models[key] = (None, f"internal error ({type(exc).__name__}: {exc}); please report it")
        return self._models[key]

    def gpu(self, dep: Deployment, config: Config) -> tuple[Any, str | None, int | None]:
        memory_text = self.options.gpu_memory or config.gpu_memory
        memory = _memory(memory_text) if memory_text else None
        name = self.options.gpu or dep.gpu or config.gpu
        if not name:
            if memory is not None:
                return None, None, memory
            return None, "no GPU product declared", None
        if name not in self._gpus:
            from kvlint.gpus import lookup_gpu

            try:
                self._gpus[name] = (lookup_gpu(name), None)
            except KvlintError as exc:
                said = str(exc)
                self._gpus[name] = (None, said if name in said else f"GPU {name!r}: {said}")
            except Exception as exc:  # noqa: BLE001 - a catalogue bug degrades to KV003, not a crash
                self._gpus[name] = (None, f"GPU {name!r}: internal error ({type(exc).__name__}: {exc})")
        gpu, error = self._gpus[name]
        return gpu, (None if memory is not None else error), memory

    def version(self, dep: Deployment, config: Config) -> str | None:
        return dep.engine_version or self.options.engine_version or config.engine_versions.get(dep.engine)


def _invalid(dep: Deployment, exc: InvalidSettingError) -> InvalidValue:
    """The engine's start-up refusal, placed at the setting it names when the deployment wrote it."""
    s = dep.settings.get(exc.setting or "")
    if s is None:
        return InvalidValue("", "", dep.launch_span or dep.model_span, exc.message, exc.setting or "")
    raw = s.raw or (str(s.value) if not isinstance(s.value, bool) else "")
    return InvalidValue(s.flag or exc.setting or "", raw, s.span or s.flag_span or dep.launch_span, exc.reason,
                        s.name)


def _memory(text: str) -> int:
    from kvlint.gpus import parse_memory_size

    try:
        return parse_memory_size(text)
    except (KvlintError, ValueError) as exc:
        raise KvlintError(f"invalid GPU memory size {text!r}: {exc}") from None


class _WhatIf:
    """compute_budget for one deployment with optional setting changes, memoised by the changes.

    Non-KV memory: a calibration matching (model, GPU, TP of these settings, engine, version) beats the
    configured `non-kv-gib`, which beats the estimate (see kvlint.calibration.match for the matching rule).
    """

    def __init__(self, resolver: Resolver, dep: Deployment, config: Config, model, gpu, memory):
        self.resolver, self.dep, self.model, self.gpu, self.memory = resolver, dep, model, gpu, memory
        self.version = resolver.version(dep, config)
        self.calibrations = config.calibrations
        non_kv = config.non_kv_for(dep.model)
        self.non_kv = int(non_kv * GIB) if non_kv is not None else None
        self.settings = {name: s.value for name, s in dep.settings.items() if s.resolved}
        self._cache: dict[tuple, Any] = {}
        self.invalid: InvalidSettingError | None = None  # the engine refuses the deployment's own settings

    def __call__(self, changes: Mapping[str, Any]) -> Any:
        key = tuple(sorted(changes.items()))
        if key not in self._cache:
            self._cache[key] = self._compute(dict(self.settings, **changes), bool(changes))
        return self._cache[key]

    def _compute(self, settings: dict, hypothetical: bool) -> Any:
        from kvlint.memory import compute_budget

        try:
            found = self._calibration(settings)
            budget = compute_budget(self.dep.engine, self.model, settings, self.gpu, version=self.version,
                                    non_kv_bytes=found.non_kv_bytes if found else self.non_kv,
                                    gpu_memory_bytes=self.memory)
            if found is None:
                return budget
            if not hypothetical and found.note():
                self.resolver.notes.setdefault(id(self.dep), []).append(f"{self.dep.path}: {found.note()}")
            from kvlint.calibration.match import apply  # only with a matching calibration

            return apply(budget, found)
        except InvalidSettingError as exc:
            if not hypothetical:
                self.invalid = exc
            return None
        except Exception as exc:  # noqa: BLE001 - engine bugs must not crash a pre-commit run
            if not hypothetical:
                kind = "" if isinstance(exc, KvlintError) else f"internal error {type(exc).__name__}: "
                self.resolver.notes.setdefault(id(self.dep), []).append(
                    f"{self.dep.path}: capacity rules skipped for {self.dep.model}: {kind}{exc}")
            return None

    def _calibration(self, settings: Mapping[str, Any]):
        if not self.calibrations or self.gpu is None:
            return None
        from kvlint.calibration.match import match, settings_tp

        return match(self.calibrations, self.model.model_id, self.gpu.id, settings_tp(self.dep.engine, settings),
                     self.dep.engine, self.version)


def fail_threshold(options_fail_on: str | None, result: LintResult) -> Severity:
    """--fail-on, else the first configuration's fail-on, else error."""
    if options_fail_on:
        return Severity.parse(options_fail_on)
    for config in result.configs:
        if config.fail_on is not None:
            return config.fail_on
    return Severity.ERROR


def exit_code(result: LintResult, threshold: Severity, exit_zero: bool = False) -> int:
    """0 clean, 1 findings at or above the threshold, 3 an input could not be read."""
    if result.unreadable:
        return 3
    if exit_zero:
        return 0
    return 1 if any(f.severity >= threshold for f in result.findings) else 0
