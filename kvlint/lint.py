"""The `kvlint check` pipeline: files -> deployments -> resolve -> budget -> rules -> suppress.

One direction, no back-and-forth: readers find launches, the resolve stage (kvlint.resolve) turns
each into a Resolved record (model, GPU, release, budget or the reason there is none; memoised for
the run: pre-commit runs one process over every file), the selected rules run on it and
suppressions apply. Every launch found leaves a LaunchStatus. Reporters only read the result.

Each file is checked on its own into a `FileOutcome` (`lint_file` does it for one file), and a `Run`
folds the outcomes into one `FileReport` per file, yielded in the order the files were walked (the
order of their path strings, the report's order), with `Totals` for the summary and exit code: the
text and GitHub reports are written from it as the files go by, the others from the whole
`LintResult` that `collect` keeps. Outcomes come serially, or with
`jobs > 1` in worker processes (forked after the parent has loaded every table, so each worker
starts warm) whose outcomes are folded in the same order. The one run-level decision a file cannot
make alone, which launch carries the once-per-run KV003 note, is made while folding: a file whose
launches qualify sends both versions of its findings. So the report is the same bytes whatever
`jobs` is. A file's text and parse tree are dropped once its findings are made; only the source
lines its findings point at are kept (code frames and baseline subjects read nothing else).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

from kvlint import launches, limits, suppress
from kvlint.config import Config, ConfigCache
from kvlint.deployment import launch_count
from kvlint.findings import Finding, Severity, short
from kvlint.launches.kinds import reads_bytes
from kvlint.launches.read import kv001, may_hold_launch
from kvlint.limits import LimitExceeded, file_limits
from kvlint.record import field, record, replace
from kvlint.registry import Context, get_rule, run_rules, selected_codes
from kvlint.resolve import Resolved, ResolveOptions, Resolver
from kvlint.sources.text import SourceError, decode, read_bytes, read_stdin
from kvlint.span import Span
from kvlint.status import CapacityTally, LaunchStatus
from kvlint.suppress import resolve_codes

if TYPE_CHECKING:
    from kvlint.baseline import Origin
    from kvlint.deployment import Deployment
    from kvlint.launches import ReadResult
    from kvlint.launches.discover import Listings

CONFIG_NAMES = {".kvlint.yaml", ".kvlint.yml", ".pre-commit-config.yaml", ".pre-commit-hooks.yaml"}
MIN_FILES_PER_JOB = 8  # below this many files per worker, forking costs more than it saves


@record
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


@record(frozen=False)
class LintResult:
    findings: list[Finding] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    deployments: int = 0
    passed_over: int = 0  # places that named an engine but gave no launch (the readers' KV008 findings)
    suppressed: int = 0
    unreadable: list[tuple[str, str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    # path -> the file's text with only the lines findings point at (the others empty): what code frames and
    # baseline subjects read, without keeping every file of a large run
    texts: dict[str, str] = field(default_factory=dict)
    configs: list[Config] = field(default_factory=list)
    launches: list[LaunchStatus] = field(default_factory=list)  # one per launch found, in file order
    no_gpu_noted: bool = False  # the once-per-run KV003 "no GPU product declared" was given
    origins: dict[Finding, Origin] = field(default_factory=dict)  # the launch a rule finding is about

    @property
    def severities(self) -> dict[Severity, int]:
        """Findings by severity, as `Totals` counts them for a streamed run."""
        out: dict[Severity, int] = {}
        for f in self.findings:
            out[f.severity] = out.get(f.severity, 0) + 1
        return out


# ---------------------------------------------------------------- one file


@record(frozen=False)
class Findings:
    """A file's findings after suppression, and what they need from the file."""

    kept: list[Finding] = field(default_factory=list)
    suppressed: int = 0
    origins: list[tuple[Finding, Origin]] = field(default_factory=list)
    per_run: list[Finding] = field(default_factory=list)  # kept, but folded into the run's one info (KV002)


@record(frozen=False)
class FileOutcome:
    """What one file adds to a run. `noted` is the file's findings when one of its launches carries the run's
    KV003 note (`qualifies`), `plain` when an earlier file already carried it or none qualifies."""

    path: str
    linted: bool = False
    deployments: int = 0
    passed_over: int = 0
    launches: list[LaunchStatus] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    unreadable: list[tuple[str, str]] = field(default_factory=list)
    plain: Findings = field(default_factory=Findings)
    noted: Findings | None = None
    qualifies: bool = False
    lines: dict[int, str] = field(default_factory=dict)  # line -> text, for the lines the findings point at
    pending: list[_Launch] = field(default_factory=list)  # launches checked so far (dropped once folded in)
    merged: list[str] = field(default_factory=list)  # the --config files its launches merged (real paths)
    config_alone: str | None = None  # its real path when its launches are a vLLM --config file's read alone


@record(frozen=False)
class _Launch:
    """One launch's rule findings (annotations applied) and, for the first qualifying launch, the KV003 note."""

    dep: Deployment
    kept: list[Finding]
    annotated: int
    note: Finding | None = None
    origins: dict[int, Any] = field(default_factory=dict)  # id(finding) -> its baseline Origin, made once


def lint_file(path: str, config: Config, options: LintOptions, resolver: Resolver) -> FileOutcome:
    """Check one file within its time budget (kvlint.limits); never raises for bad input."""

    out = FileOutcome(path)
    with file_limits():  # one budget for the file's read, renewed once for its rules (kvlint.limits)
        try:
            _lint_file(path, config, options, resolver, out)
        except LimitExceeded as exc:  # what the launches checked so far left stays; their findings go
            out.plain = _partial(out.pending, noted=False)
            out.noted = _partial(out.pending, noted=True) if out.qualifies else None
            if "KV001" in _codes(config, options, path):
                for found in (out.plain, out.noted):
                    if found is not None:
                        found.kept.append(kv001(path, exc.reason))
    out.pending = []
    return out


def _read_text(path: str, options: LintOptions) -> str | None:
    """The text, read within the size cap; None for what the reader must refuse (it says why as KV001)."""
    if path == "-" and options.stdin_text is not None:
        return options.stdin_text

    try:
        if path == "-":
            return decode(read_stdin())
        return decode(read_bytes(path), bytes_ok=reads_bytes(path))
    except SourceError:  # over the cap, binary, not UTF-8 (where the format wants it), not a regular file
        return None


PASSED_OVER = "KV008"  # a reader's "an engine is named here but no launch was read" (kvlint.launches.named)


def _lint_file(path: str, config: Config, options: LintOptions, resolver: Resolver, out: FileOutcome) -> None:
    text, read = _read(path, config, options, out)
    if read is None or read.skipped:
        return
    out.linted = True
    limits.renew()  # the rules' own allowance: many launches must not be cut short by the read's work
    out.passed_over = sum(1 for f in read.findings if f.code == PASSED_OVER)
    codes = _codes(config, options, path)
    readers = [_reseverity(f, config) for f in read.findings if f.code in codes]
    launches = out.pending
    for dep in read.deployments:
        launches.append(_deployment_findings(dep, config, codes, resolver, out))
    out.deployments += launch_count(read.deployments)  # one command's configurations count once
    _config_files(read.deployments, out)

    directives = suppress.scan(text) if text else []
    # KV006: malformed or misplaced suppressions always (when the rule runs), unused ones when asked
    unused: tuple[str, ...] = ("invalid", "unused") if options.show_unused_suppressions else ("invalid",)
    unused = unused if "KV006" in codes else ()
    out.plain = _suppressed(path, readers, launches, directives, unused, noted=False)
    if out.qualifies:
        out.noted = _suppressed(path, readers, launches, directives, unused, noted=True)
    if text:
        out.lines = _lines_for(text, path, out)


def _config_files(deps: list[Deployment], out: FileOutcome) -> None:
    """The --config files this file's launches merged, and whether the file is one read alone (every launch of
    it is the file's own settings): the run reads such a file only inside the launch that names it."""
    own = [d.config_file is not None and d.config_file == os.path.realpath(d.path) for d in deps]
    out.merged = [d.config_file for d, alone in zip(deps, own, strict=True) if d.config_file and not alone]
    if deps and all(own):
        out.config_alone = deps[0].config_file


def _read(path: str, config: Config, options: LintOptions,
          out: FileOutcome) -> tuple[str | None, ReadResult | None]:
    """The file's text and what the readers found in it; (None, None) when it cannot be read at all.

    The configuration supplies values for variables the repository leaves to its deploy tooling
    (`variables:`) and names YAML files to read as vLLM --config files (`vllm-config-files:`).
    """

    try:
        text = _read_text(path, options)
    except OSError as exc:
        out.unreadable.append((path, f"cannot read: {exc.strerror or exc}"))
        return None, None
    try:
        as_config = True if path != "-" and config.is_vllm_config(path) else None
        if text is not None and as_config is None and not may_hold_launch(text):
            return text, launches.ReadResult(path)  # no word a launch is written with: one scan, no parse
        return text, launches.read_path(path, text, variables=config.variables or None, as_vllm_config=as_config)
    except Exception as exc:  # noqa: BLE001 - a reader bug must not crash the hook; the file counts as unread
        why = f"internal error while reading ({type(exc).__name__}: {exc}); please report it"
        out.unreadable.append((path, why))
        return text, None


def _deployment_findings(dep: Deployment, config: Config, codes: frozenset[str], resolver: Resolver,
                         out: FileOutcome) -> _Launch:
    limits.check()
    resolved = resolver.resolve(dep, config)
    out.launches.append(resolved.status())
    out.notes.extend(resolved.notes)
    ctx = Context.of(resolved, config)
    fired = _run_guarded(ctx, codes, out.notes)
    kept = [f for f in fired if not _annotated(f, dep)]
    note = None
    if not out.qualifies and _qualifies(resolved, codes):
        out.qualifies = True
        note = _no_gpu_note(resolved, ctx)
    return _Launch(dep, kept, len(fired) - len(kept), note)


def _partial(launches: list[_Launch], *, noted: bool) -> Findings:
    """Annotation counts and origins of the launches checked before the file ran out of time (their findings
    are dropped with the file's)."""
    out = Findings()
    for launch in launches:
        out.origins.extend(_origins(_annotate(launch, noted, out)))
    return out


def _annotate(launch: _Launch, noted: bool, out: Findings) -> tuple[list[Finding], _Launch]:
    """A launch's findings left by its annotations (`kvlint.io/ignore`), the KV003 note included when `noted`."""
    kept = launch.kept
    out.suppressed += launch.annotated
    if noted and launch.note is not None:
        if _annotated(launch.note, launch.dep):
            out.suppressed += 1
        else:
            kept = kept + [launch.note]
    return kept, launch


def _origins(pair: tuple[list[Finding], _Launch]) -> list[tuple[Finding, Origin]]:
    kept, launch = pair
    if not kept:
        return []
    import kvlint.baseline as baseline  # not `from ... import` in a function: that asks for `__path__` every call

    made = launch.origins  # a file with the run's KV003 note is reported twice (with and without it): one Origin each
    out = []
    for f in kept:
        origin = made.get(id(f))
        if origin is None:
            origin = made[id(f)] = baseline.Origin.of(f, launch.dep)
        out.append((f, origin))
    return out


def _suppressed(path: str, readers: list[Finding], launches: list[_Launch], directives: list[Any],
                unused: tuple[str, ...],
                *, noted: bool) -> Findings:
    """The file's findings after annotations and inline suppressions, with or without the run's KV003 note."""

    out = Findings()
    found = list(readers)
    for launch in launches:
        pair = _annotate(launch, noted, out)
        found += pair[0]
        out.origins.extend(_origins(pair))
    outcome = suppress.apply(found, directives)
    out.suppressed += len(outcome.suppressed)
    out.kept = [f for f in outcome.kept if not f.data.get("per_run")]
    out.per_run = [f for f in outcome.kept if f.data.get("per_run")]
    out.kept.extend(_unused(path, [entry for kind in unused for entry in getattr(outcome, kind)]))
    return out


def _lines_for(text: str, path: str, out: FileOutcome) -> dict[int, str]:
    """The lines of this file its own findings point at (their span's file, or the file of the launch they are
    about: the HTML card of a launch frames its findings with its file's lines); the run reads again the
    lines other files' findings point at."""
    wanted = {n for found in (out.plain, out.noted) if found is not None for n in _wanted_lines(found, path)}
    if not wanted:
        return {}
    lines = text.splitlines()
    return {n: lines[n - 1] for n in wanted if 1 <= n <= len(lines)}


def _wanted_lines(found: Findings, path: str) -> set[int]:
    origin = {id(f): o.path for f, o in found.origins}
    return {f.span.line for f in found.kept if f.span is not None
            and (f.span.path == path or origin.get(id(f)) == path)}


def _run_guarded(ctx: Context, codes: frozenset[str], notes: list[str]) -> list[Finding]:
    """The selected rules in code order; a bug in one rule costs that rule's findings and a note, never the run.

    One pass runs them all (run_rules takes the codes in sorted order); only when a rule raises are they run
    again one at a time, which gives the same findings, the failing rule's aside."""
    try:
        return list(run_rules(ctx, codes))
    except Exception:  # noqa: BLE001 - a pre-commit hook must not crash on a rule bug
        pass
    fired: list[Finding] = []
    for code in sorted(codes):
        try:
            fired.extend(run_rules(ctx, {code}))
        except Exception as exc:  # noqa: BLE001 - a pre-commit hook must not crash on a rule bug
            notes.append(f"{ctx.deployment.path}: internal error in {code} ({type(exc).__name__}: {exc}); "
                         f"please report it")
    return fired


def _codes(config: Config, options: LintOptions, path: str) -> frozenset[str]:
    select = options.select if options.select is not None else config.select
    ignore = tuple(config.ignore) + tuple(options.ignore)
    return selected_codes(select, ignore) - config.ignored_here(path)


def _annotated(f: Finding, dep: Deployment) -> bool:
    if not dep.ignore_codes:
        return False
    codes, _ = resolve_codes(",".join(dep.ignore_codes))
    return f.code in codes


def _reseverity(f: Finding, config: Config) -> Finding:
    sev = (config.estimated_severities if f.estimated else {}).get(f.code) or config.severities.get(f.code)
    return replace(f, severity=sev) if sev and sev is not f.severity else f


def _qualifies(r: Resolved, codes: frozenset[str]) -> bool:
    """A launch that would carry the run's KV003 note if no launch before it had: no GPU product named."""
    return "KV003" in codes and r.gpu.name is None and not r.gpu.known and r.evaluated


def _no_gpu_note(r: Resolved, ctx: Context) -> Finding:
    """KV003 as one info per run: launches with no GPU product named are sized against the catalogue."""
    dep = r.deployment
    return get_rule("KV003").finding(
        ctx, "no GPU product declared: launches without one are sized against the GPU catalogue (KV108) "
        "instead of the card they will run on (noted once per run)", dep.gpu_count_span or dep.launch_span,
        fix="declare the fleet once in .kvlint.yaml (`gpu:`, `gpus:` per path, `node-labels:`), a "
            "nvidia.com/gpu.product node selector, or --gpu", severity=Severity.INFO)


PER_RUN_NAMED = 8  # models the run's KV002 info names; the others are counted


def per_run(unknown: list[Finding]) -> list[Finding]:
    """KV002 as one info per run: every launch whose model is not known offline, folded into one finding at the
    first such launch (walk order, so the same for any --jobs) naming the models (sorted, each once, at most
    PER_RUN_NAMED) and the one command that records them all. Each launch's status still says it was skipped."""
    if not unknown:
        return []

    models = sorted({short(str(f.data.get("model") or "?"), 60) for f in unknown},  # Hub ids first, then paths
                    key=lambda m: (m.startswith(("/", ".", "~")) or "://" in m, m.lower(), m))
    named = ", ".join(models[:PER_RUN_NAMED]) + (f" and {len(models) - PER_RUN_NAMED} more"
                                                 if len(models) > PER_RUN_NAMED else "")
    first = unknown[0]
    launches = f"{len(unknown)} launch{'es' if len(unknown) != 1 else ''}"
    return [get_rule("KV002").finding(
        None, f"{len(models)} model{'s' if len(models) != 1 else ''} not known offline, so {launches} "
        f"{'is' if len(unknown) == 1 else 'are'} not sized: {named} (noted once per run)", first.span,
        fix="run `kvlint models lock` once where the Hub is reachable and commit kvlint.lock: every later run "
            "sizes them offline; a path that names no model: map it under `models:` in .kvlint.yaml or name it "
            "with --served-model-name", path=first.path, severity=Severity.INFO, models=models)]


def _unused(path: str, unused: Iterable[Any]) -> list[Finding]:
    rule = get_rule("KV006")
    return [rule.finding(None, f"suppression `{d.text}` is unused or invalid: {why}",
                         Span(path, d.line, d.col, d.line, d.col + len(d.text)), path=path)
            for d, why in unused]


# ---------------------------------------------------------------- the run


# A run holds one of these per walked file: slotted (a record would carry a __dict__ each), and plain
# classes rather than NamedTuples, whose string annotations typing compiles at start-up.
class _Skip:
    __slots__ = ("path", "reason")

    def __init__(self, path: str, reason: str) -> None:
        self.path, self.reason = path, reason


class _Task:
    __slots__ = ("path", "config")

    def __init__(self, path: str, config: Config) -> None:
        self.path, self.config = path, config


@record(frozen=False)
class Totals:
    """What a run's summary, notes and exit code need, counted as its files go by: a run that writes each
    file's findings as they are made (`kvlint check`'s text report) keeps these, not the findings."""

    files: list[str] = field(default_factory=list)
    deployments: int = 0
    passed_over: int = 0
    suppressed: int = 0
    severities: dict[Severity, int] = field(default_factory=dict)
    unreadable: list[tuple[str, str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    capacity: CapacityTally = field(default_factory=CapacityTally)
    configs: list[Config] = field(default_factory=list)

    @property
    def findings(self) -> int:
        return sum(self.severities.values())


@record(frozen=False)
class FileReport:
    """One file's part of the report, in walk order: its findings (by position, each once), the launches it
    holds and the source lines the findings point at, by file."""

    path: str
    findings: list[Finding]
    origins: dict[Finding, Origin]
    launches: list[LaunchStatus]
    lines: dict[int, str]


class Run:
    """A check of every deployment file under `paths`, file by file: `reports()` yields each file's report
    as soon as it is made (folding in walk order, serially or from workers), and `totals` is complete once
    it is exhausted. The walk happens first, so every configuration (`configs`) is known before any file is
    checked."""

    def __init__(self, paths: list[str], options: LintOptions = LintOptions(), jobs: int = 1) -> None:
        from kvlint.launches.discover import Listings

        listings = Listings()
        cache = ConfigCache(options.config, listings)
        for path in paths:  # a broken configuration is an error even when no file is linted
            if path != "-" and os.path.exists(path):
                cache.for_file(os.path.join(path, "-") if os.path.isdir(path) else path)
        self.items = list(_walk(paths, cache, listings))
        self.options, self.jobs, self.paths = options, jobs, paths
        self.configs = cache.loaded()
        self.totals = Totals(configs=self.configs)
        self.linted: set[str] = set()
        self.noted = False
        self.unknown: list[Finding] = []  # launches whose model is not known offline, in walk order
        self.run_findings: list[Finding] = []  # the run's own findings, after every file's (kvlint.lint.per_run)

    def reports(self) -> Iterator[FileReport]:
        """Each file's report in walk order. A vLLM --config file read alone is a launch only when no launch of the
        run merged it (`vllm serve --config it`: its values are checked and its findings made there); that is known
        at the walk's end, so from the first such file on the reports wait for it (rare: the order is kept)."""
        tasks = [i for i in self.items if isinstance(i, _Task)]
        outcomes = self._outcomes(tasks)
        merged: set[str] = set()
        waiting: list[FileOutcome | _Skip] = []
        for item in self.items:
            got = item if isinstance(item, _Skip) else next(outcomes)
            if isinstance(got, FileOutcome):
                merged.update(got.merged)
                if got.config_alone is not None and got.linted:  # a launch before it frames findings with its lines
                    self.linted.add(got.path)
            if waiting or (isinstance(got, FileOutcome) and got.config_alone is not None):
                waiting.append(got)
            elif (report := self._take(got, merged)) is not None:
                yield report
        for got in waiting:
            if (report := self._take(got, merged)) is not None:
                yield report
        self.run_findings = per_run(self.unknown)
        if self.run_findings:
            for f in self.run_findings:
                self.totals.severities[f.severity] = self.totals.severities.get(f.severity, 0) + 1
            yield FileReport("", list(self.run_findings), {}, [], {})
        self.totals.notes = sorted(set(self.totals.notes) | {n for c in self.configs for n in c.notes})

    def _outcomes(self, tasks: list[_Task]) -> Iterator[FileOutcome]:
        if self.jobs > 1 and len(tasks) >= 2 * MIN_FILES_PER_JOB and "-" not in self.paths:
            from kvlint.parallel import lint_in_workers

            return lint_in_workers(tasks, self.options, self.jobs)
        resolver = Resolver(self.options.resolve_options())
        return (lint_file(t.path, t.config, self.options, resolver) for t in tasks)

    def _take(self, got: FileOutcome | _Skip, merged: set[str]) -> FileReport | None:
        if isinstance(got, _Skip):
            self._skip(got)
            return None
        return self._fold(_merged_away(got) if got.config_alone in merged else got)

    def _skip(self, item: _Skip) -> None:
        from kvlint.launches.discover import is_note

        if is_note(item.reason):
            self.totals.notes.append(f"{item.path}: {item.reason}")
        else:
            self.totals.unreadable.append((item.path, item.reason))

    def _fold(self, out: FileOutcome) -> FileReport:
        """One file's outcome, in walk order; the first qualifying file carries the KV003 note."""
        found, t = out.plain, self.totals
        if out.qualifies and not self.noted and out.noted is not None:
            self.noted = True
            found = out.noted
        t.unreadable.extend(out.unreadable)
        if out.linted:
            t.files.append(out.path)
            self.linted.add(out.path)
        t.deployments += out.deployments
        t.passed_over += out.passed_over
        t.notes.extend(out.notes)
        t.suppressed += found.suppressed
        self.unknown.extend(found.per_run)
        for status in out.launches:
            t.capacity.add(status)
        kept = sorted(dict.fromkeys(found.kept), key=lambda f: f.sort_key)  # same span twice: once
        for f in kept:
            t.severities[f.severity] = t.severities.get(f.severity, 0) + 1
        return FileReport(out.path, kept, dict(found.origins), out.launches, out.lines if out.linted else {})

    def texts(self, report: FileReport) -> dict[str, str]:
        """The source lines one report's findings point at, by file, as `_texts` gives them for a whole run:
        this file's from its outcome, a linted file's other lines read again."""
        wanted = _wanted(report.findings, report.origins, self.linted)
        return {path: text for path, numbers in wanted.items()
                if (text := _text_of(self._have(path, numbers, report)))}

    def _have(self, path: str, numbers: set[int], report: FileReport) -> dict[int, str]:
        have = report.lines if path == report.path else {}
        return _reread(path, numbers, have, self.options) if not numbers <= have.keys() else have


def _merged_away(out: FileOutcome) -> FileOutcome:
    """A --config file another launch of the run merged: linted, with no launch or finding of its own."""
    note = f"{out.path}: read as the --config file of the launch that names it"
    return FileOutcome(out.path, linted=out.linted, notes=out.notes + [note], unreadable=out.unreadable)


def lint(paths: list[str], options: LintOptions = LintOptions(), jobs: int = 1) -> LintResult:
    """Check every deployment file under paths; never raises for bad input (only for bad config).

    `jobs` > 1 checks files in that many worker processes when there are enough of them; the result is
    the same as with 1."""
    return collect(Run(paths, options, jobs))


def collect(run: Run) -> LintResult:
    """Every file's report of a run kept, for the reports written whole (and baselines)."""
    options = run.options
    result = LintResult()
    lines: dict[str, dict[int, str]] = {}
    for report in run.reports():
        result.findings.extend(report.findings)
        result.origins.update(report.origins)
        result.launches.extend(report.launches)
        if report.path in run.linted:
            lines[report.path] = report.lines
    t = run.totals
    result.files, result.deployments, result.suppressed = t.files, t.deployments, t.suppressed
    result.passed_over = t.passed_over
    result.unreadable, result.notes, result.configs = t.unreadable, t.notes, run.configs
    result.no_gpu_noted = run.noted
    own = set(run.run_findings)  # the run's own findings come after every file's, as the streamed report has them
    result.findings = sorted(dict.fromkeys(f for f in result.findings if f not in own), key=lambda f: f.sort_key)
    result.findings += run.run_findings
    result.texts = _texts(result, lines, options)
    return result


def _walk(paths: list[str], configs: ConfigCache, listings: Listings | None = None) -> Iterator[_Skip | _Task]:
    """The files to check and the skipped paths, in the order of the walk (the order of the report); the
    walk keeps `listings` of the folders it is in, which `configs` reads."""
    from kvlint.launches import iter_files

    files = [("-", None)] if list(paths) == ["-"] else iter_files(paths, listings)
    for path, skip in files:
        if skip is not None:
            yield _Skip(path, skip)
            continue
        if os.path.basename(path) in CONFIG_NAMES:
            continue
        config = configs.for_file(path)
        if path != "-" and config.excluded(path):
            continue
        yield _Task(path, config)


def _texts(result: LintResult, lines: dict[str, dict[int, str]], options: LintOptions) -> dict[str, str]:
    """Each linted file's text reduced to the lines findings point at: a file another file's finding points
    into (a vLLM --config file named by a launch) is read again for those lines."""
    out: dict[str, str] = {}
    for path, numbers in _wanted(result.findings, result.origins, lines.keys()).items():
        have = lines[path]
        if not numbers <= have.keys():
            have = _reread(path, numbers, have, options)
        if text := _text_of(have):
            out[path] = text
    return out


def _wanted(findings: Iterable[Finding], origins: dict[Finding, Origin], linted: Iterable[str]) -> dict[str, set[int]]:
    """Line numbers by linted file: each finding's line, in its span's file and in the file of its launch."""
    known = set(linted)
    wanted: dict[str, set[int]] = {}
    for f in findings:
        if f.span is None:
            continue
        origin = origins.get(f)
        for path in (f.span.path, origin.path if origin is not None else None):
            if path in known:
                wanted.setdefault(path, set()).add(f.span.line)
    return wanted


def _text_of(have: dict[int, str]) -> str:
    """A file's text with only these lines (the others empty), as code frames index it."""
    return "\n".join([have.get(n, "") for n in range(1, max(have) + 1)]) + "\n" if have else ""


def _reread(path: str, numbers: set[int], have: dict[int, str], options: LintOptions) -> dict[int, str]:
    try:
        text = _read_text(path, options)
    except OSError:
        return have
    if not text:
        return have
    split = text.splitlines()
    return {**{n: split[n - 1] for n in numbers if 1 <= n <= len(split)}, **have}


def default_jobs() -> int:
    """The cores this process may run on (its affinity mask where the platform has one)."""
    affinity = getattr(os, "sched_getaffinity", None)
    if affinity is not None:
        try:
            return max(1, len(affinity(0)))
        except OSError:
            pass
    return max(1, os.cpu_count() or 1)


def fail_threshold(options_fail_on: str | None, result: LintResult | Totals) -> Severity:
    """--fail-on, else the first configuration's fail-on, else error."""
    if options_fail_on:
        return Severity.parse(options_fail_on)
    for config in result.configs:
        if config.fail_on is not None:
            return config.fail_on
    return Severity.ERROR


def exit_code(result: LintResult | Totals, threshold: Severity, exit_zero: bool = False) -> int:
    """0 clean, 1 findings at or above the threshold, 3 an input could not be read."""
    if result.unreadable:
        return 3
    if exit_zero:
        return 0
    return 1 if any(n and sev >= threshold for sev, n in result.severities.items()) else 0


__all__ = ["FileOutcome", "FileReport", "LintOptions", "LintResult", "Run", "Totals", "collect", "default_jobs",
           "exit_code", "fail_threshold", "lint", "lint_file"]
