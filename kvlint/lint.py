"""The `kvlint check` pipeline: files -> deployments -> resolve -> budget -> rules -> suppress.

One direction, no back-and-forth: readers find launches, the resolve stage (kvlint.resolve) turns
each into a Resolved record (model, GPU, release, budget or the reason there is none; memoised for
the run: pre-commit runs one process over every file), the selected rules run on it and
suppressions apply. Every launch found leaves a LaunchStatus. Reporters only read the result.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from kvlint import limits
from kvlint.config import Config, ConfigCache
from kvlint.deployment import Deployment
from kvlint.findings import Finding, Severity
from kvlint.registry import Context, get_rule, run_rules, selected_codes
from kvlint.resolve import Resolved, ResolveOptions, Resolver
from kvlint.status import LaunchStatus

if TYPE_CHECKING:
    from kvlint.launches import ReadResult

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

    def resolve_options(self) -> ResolveOptions:
        return ResolveOptions(gpu=self.gpu, gpu_memory=self.gpu_memory, engine_version=self.engine_version,
                              online=self.online)


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
    launches: list[LaunchStatus] = field(default_factory=list)  # one per launch found, in file order
    no_gpu_noted: bool = False  # the once-per-run KV003 "no GPU product declared" was given
    origins: dict[Finding, Deployment] = field(default_factory=dict)  # the launch a rule finding is about


def lint(paths: list[str], options: LintOptions = LintOptions()) -> LintResult:
    """Check every deployment file under paths; never raises for bad input (only for bad config)."""
    from kvlint.launches import iter_files
    from kvlint.launches.discover import is_note
    from kvlint.launches.read import kv001
    from kvlint.limits import LimitExceeded, file_limits

    configs = ConfigCache(options.config)
    resolver = Resolver(options.resolve_options())
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

    text, read = _read(path, config, options, result)
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


def _read(path: str, config: Config, options: LintOptions,
          result: LintResult) -> tuple[str | None, ReadResult | None]:
    """The file's text and what the readers found in it; (None, None) when it cannot be read at all.

    The configuration supplies values for variables the repository leaves to its deploy tooling
    (`variables:`) and names YAML files to read as vLLM --config files (`vllm-config-files:`).
    """
    from kvlint.launches import read_path

    try:
        text = _read_text(path, options)
    except OSError as exc:
        result.unreadable.append((path, f"cannot read: {exc.strerror or exc}"))
        return None, None
    try:
        as_config = True if path != "-" and config.is_vllm_config(path) else None
        return text, read_path(path, text, variables=config.variables or None, as_vllm_config=as_config)
    except Exception as exc:  # noqa: BLE001 - a reader bug must not crash the hook; the file counts as unread
        why = f"internal error while reading ({type(exc).__name__}: {exc}); please report it"
        result.unreadable.append((path, why))
        return text, None


def _deployment_findings(dep: Deployment, config: Config, codes: frozenset[str], resolver: Resolver,
                         result: LintResult) -> list[Finding]:
    limits.check()
    result.deployments += 1
    resolved = resolver.resolve(dep, config)
    result.launches.append(resolved.status())
    result.notes.extend(resolved.notes)
    ctx = Context.of(resolved, config)
    fired = _run_guarded(ctx, codes, result) + _no_gpu_note(resolved, ctx, codes, result)
    kept = [f for f in fired if not _annotated(f, dep)]
    result.suppressed += len(fired) - len(kept)
    result.origins.update((f, dep) for f in kept)
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


def _no_gpu_note(r: Resolved, ctx: Context, codes: frozenset[str], result: LintResult) -> list[Finding]:
    """KV003 as one info per run: launches with no GPU product named are sized against the catalogue."""
    if result.no_gpu_noted or "KV003" not in codes or r.gpu.name is not None or r.gpu.known or not r.evaluated:
        return []
    result.no_gpu_noted = True
    dep = r.deployment
    return [get_rule("KV003").finding(
        ctx, "no GPU product declared: launches without one are sized against the GPU catalogue (KV108) "
        "instead of the card they will run on (noted once per run)", dep.gpu_count_span or dep.launch_span,
        fix="declare the fleet once in .kvlint.yaml (`gpu:`, `gpus:` per path, `node-labels:`), a "
            "nvidia.com/gpu.product node selector, or --gpu", severity=Severity.INFO)]


def _unused(path: str, unused: Iterable[Any]) -> list[Finding]:
    from kvlint.span import Span

    rule = get_rule("KV006")
    return [rule.finding(None, f"suppression `{d.text}` is unused or invalid: {why}",
                         Span(path, d.line, d.col, d.line, d.col + len(d.text)), path=path)
            for d, why in unused]


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
