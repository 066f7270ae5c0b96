"""The rule catalogue: every module in kvlint.rules registers itself with the @rule decorator.

Discovery by import (pkgutil) means adding a rule is adding a file; tests check that the modules
found, the codes registered and the generated docs/rules.md agree, so the catalogue cannot drift.
"""

from __future__ import annotations

import functools
import importlib
import os
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

from kvlint.budget import Budget
from kvlint.deployment import Deployment, InvalidValue
from kvlint.errors import KvlintError
from kvlint.findings import Finding, Related, Severity
from kvlint.lazyre import lazy
from kvlint.record import field, record, replace
from kvlint.span import Span
from kvlint.status import Sweep

if TYPE_CHECKING:
    from kvlint.config import Config
    from kvlint.engines.base import Engine
    from kvlint.gpus import Gpu
    from kvlint.models.spec import ModelSpec
    from kvlint.resolve.fork import EngineTree
    from kvlint.resolve.records import Resolved

CODE_RE = lazy(r"^KV\d{3}$")
NAME_RE = lazy(r"^[a-z][a-z0-9]*(-[a-z0-9]+)*$")
DOC_SECTIONS = ("What it checks", "Why it matters", "Example", "Use instead", "Options")

# Where a rule's findings come from: its own check, or a pipeline stage it documents.
SOURCES = ("check", "reader", "resolve", "suppress")


@record
class RuleOption:
    """An option a rule takes from `rules:` in .kvlint.yaml (documented in the rule's docstring)."""

    name: str
    default: Any
    help: str
    type: str = "number"  # JSON Schema type of the value


@record
class Rule:
    code: str
    name: str
    severity: Severity
    summary: str
    docs: Mapping[str, str]  # section title -> markdown
    check: Callable[[Context], Iterable[Finding]] | None
    needs: tuple[str, ...] = ()  # "model", "gpu", "budget", "sweep": skipped when missing
    options: tuple[RuleOption, ...] = ()
    reads: tuple[str, ...] = ()  # setting roles (tp, max_len ...) the check reads: skipped when one is unresolved
    source: str = "check"
    module: str = ""

    @property
    def needs_model(self) -> bool:
        return "model" in self.needs or "budget" in self.needs

    def option_defaults(self) -> dict[str, Any]:
        return {o.name: o.default for o in self.options}

    def finding(self, ctx: Context | None, message: str, span: Span | None, *, related: Iterable[Related] = (),
                fix: str | None = None, estimated: bool = False, path: str = "", severity: Severity | None = None,
                **data: Any) -> Finding:
        """One finding of this rule, at the severity the configuration gives it.

        `severity` sets a finding's own level where the rule's cases differ (lowered where the rule is unsure,
        raised for its one serious case); a configured severity still wins.
        """
        configured = ctx is not None and (self.code in ctx.severities or
                                          (estimated and self.code in ctx.estimated_severities))
        if severity is None or configured:
            severity = ctx.severity_for(self, estimated) if ctx else self.severity
        where = path or (span.path if span else "") or (ctx.deployment.path if ctx else "")
        return Finding(code=self.code, name=self.name, severity=severity, message=message, span=span,
                       related=tuple(r for r in related if r is not None), fix=fix, estimated=estimated,
                       path=where, data=dict(data))


def _no_budget(changes: Mapping[str, Any]) -> Budget | None:
    return None


@record
class Context:
    """What a rule sees for one deployment (a view of its Resolved record plus the rule configuration);
    `what_if` recomputes the budget with changed settings."""

    deployment: Deployment
    model: ModelSpec | None = None
    gpu: Gpu | None = None
    budget: Budget | None = None
    what_if: Callable[[Mapping[str, Any]], Budget | None] = _no_budget
    options: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)  # code -> option values
    severities: Mapping[str, Severity] = field(default_factory=dict)  # code -> severity override
    estimated_severities: Mapping[str, Severity] = field(default_factory=dict)
    model_error: str | None = None
    gpu_error: str | None = None  # a named GPU product the catalogue does not know (KV003)
    device_kind: str | None = None  # the launch runs on a TPU, CPU, Gaudi or Neuron device, not a GPU
    pinned_version: str | None = None  # the release the image tag, CLI or config pins (None: default, or a host
    # install: the newest assumed, see version_source)
    version_source: str = "default"  # image | image-date | image-latest | host | cli | config | default
    version_why: str = ""  # how the release was found, or why it is open ("the script runs in the repository's image")
    version_fork: str = ""  # a vendor's fork with an argument parser of its own runs the launch (VersionLookup.fork)
    version_build: str = ""  # a build of the engine's source runs the launch (VersionLookup.build)
    refusal: InvalidValue | None = None  # the engine refuses these settings at start-up (KV007)
    sweep: Sweep | None = None  # sized against the catalogue: no GPU known (KV108)
    candidates: Sweep | None = None  # the file's own candidate GPUs, each tried (KV108)
    declared_load: int | None = None  # concurrency the deployment declares (KV103, KV108)
    config_spans: Mapping[str, Span] = field(default_factory=dict)  # config.json key -> span (local configs)
    unresolved: tuple[str, ...] = ()  # canonical names of settings left as expressions
    modelled_release: str | None = None  # "rocm/sgl-dev:20250701 is a build of 2025-07-01: modelled as 0.4.9"
    open_input: tuple[str, tuple[str, ...], str] | None = None  # (input, its values, what settles it)
    alternatives: tuple[Context, ...] = ()  # the launch on open_input's other values (run_rules keeps agreement)
    engine_tree: EngineTree | None = None  # the repository's own engine source tree (a fork), if any
    on_release: Callable[[str], Budget | None] = lambda version: None  # the budget on another release

    @property
    def engine(self) -> Engine:
        from kvlint.engines import get_engine

        return get_engine(self.deployment.engine)

    @property
    def release_open(self) -> bool:
        """The launch pins no engine release (no tag, no --engine-version, a host install): any could run it."""
        return self.version_source in ("default", "host")

    @classmethod
    def of(cls, r: Resolved, config: Config) -> Context:
        """The rules' view of one resolved launch under one configuration."""
        from kvlint.resolve import declared_load

        return cls(deployment=r.deployment, model=r.model.spec, gpu=r.gpu.gpu, budget=r.budget, what_if=r.what_if,
                   options=config.rule_options, severities=config.severities,
                   estimated_severities=config.estimated_severities,
                   model_error=r.model.reason, gpu_error=r.gpu.reason if r.gpu.name else None, refusal=r.refusal,
                   device_kind=r.gpu.device_kind,
                   pinned_version=r.version.version if r.version.source not in ("default", "host") else None,
                   version_source=r.version.source, version_why=r.version.why, version_fork=r.version.fork,
                   version_build=r.version.build,
                   sweep=r.sweep, candidates=r.candidates, declared_load=declared_load(r),
                   config_spans=r.config_spans, unresolved=r.unresolved, modelled_release=r.version.said,
                   open_input=(r.open_input.name, r.open_input.values, r.open_input.settle) if r.open_input else None,
                   alternatives=tuple(cls.of(a, config) for a in r.alternatives), engine_tree=r.engine_tree,
                   on_release=r.on_release)

    def option(self, rule: Rule, name: str) -> Any:
        return self.options.get(rule.code, {}).get(name, rule.option_defaults()[name])

    def severity_for(self, rule: Rule, estimated: bool) -> Severity:
        if estimated and rule.code in self.estimated_severities:
            return self.estimated_severities[rule.code]
        return self.severities.get(rule.code, rule.severity)


_RULES: dict[str, Rule] = {}


Check = Callable[[Context], Iterable[Finding]]


class RuleCheck:
    """A registered check: callable like the function it wraps, with its Rule at `.rule` (for findings)."""

    def __init__(self, fn: Check, rule: Rule):
        self.fn = fn
        self.rule = rule
        self.__doc__ = fn.__doc__

    def __call__(self, ctx: Context) -> Iterable[Finding]:
        return self.fn(ctx)


def rule(code: str, name: str, severity: Severity, summary: str, *, needs: tuple[str, ...] = (),
         options: tuple[RuleOption, ...] = (), source: str = "check",
         reads: tuple[str, ...] = ()) -> Callable[[Check], RuleCheck]:
    """Register the decorated check (docs come from the module docstring's fixed sections)."""

    def register(fn: Check) -> RuleCheck:
        module = importlib.import_module(fn.__module__)
        docs = parse_docs(module.__doc__ or "")
        made = Rule(code=code, name=name, severity=severity, summary=summary, docs=docs, check=None, needs=needs,
                    options=options, source=source, module=fn.__module__, reads=reads)
        wrapped = RuleCheck(fn, made)
        _RULES[code] = replace(made, check=wrapped)
        wrapped.rule = _RULES[code]
        return wrapped

    return register


def parse_docs(text: str) -> dict[str, str]:
    """Split a rule docstring on its `## Section` headings."""
    sections: dict[str, str] = {}
    current = None
    lines: list[str] = []
    for line in text.strip().splitlines():
        if line.startswith("## "):
            if current:
                sections[current] = "\n".join(lines).strip()
            current, lines = line[3:].strip(), []
        elif current:
            lines.append(line)
    if current:
        sections[current] = "\n".join(lines).strip()
    return sections


def _load() -> None:
    if _RULES:
        return
    import kvlint.rules as package

    for name in _rule_modules(package.__path__):
        if not name.startswith("_"):
            importlib.import_module(f"{package.__name__}.{name}")


def _rule_modules(folders: Iterable[str]) -> list[str]:
    """The modules and packages in the rules folders, sorted. Why not pkgutil.iter_modules: it imports
    inspect (with ast, dis and tokenize), a visible part of a one-file run, to tell a module's name from a
    file's."""
    names: set[str] = set()
    for folder in folders:
        try:
            entries = os.listdir(folder)
        except OSError:
            continue
        for entry in entries:
            if entry.endswith(".py") and entry[:-3].isidentifier() and entry != "__init__.py":
                names.add(entry[:-3])
            elif entry.isidentifier() and os.path.isfile(os.path.join(folder, entry, "__init__.py")):
                names.add(entry)
    return sorted(names)


def all_rules() -> list[Rule]:
    _load()
    return [_RULES[c] for c in sorted(_RULES)]


def get_rule(code_or_name: str) -> Rule:
    """A rule by code (KV101, kv101) or name; KvlintError with close names otherwise."""
    _load()
    key = code_or_name.strip()
    found = _RULES.get(key.upper()) or next((r for r in _RULES.values() if r.name == key.lower()), None)
    if found:
        return found
    from kvlint.suggest import close_matches

    names = [r.name for r in _RULES.values()] + list(_RULES)
    close = close_matches(key, names, n=3)
    hint = f"did you mean {', '.join(close)}?" if close else "see `kvlint rules`"
    raise KvlintError(f"unknown rule {code_or_name!r}", hint)


def expand_selector(selector: str) -> set[str]:
    """Codes matched by a code, a code prefix (KV1, KV10) or a rule name; 'ALL' matches all."""
    _load()
    key = selector.strip()
    if key.upper() == "ALL":
        return set(_RULES)
    if re.fullmatch(r"(?i)kv\d{0,3}", key):
        codes = {c for c in _RULES if c.startswith(key.upper())}
        if codes:
            return codes
    return {get_rule(key).code}


def selected_codes(select: Iterable[str] | None, ignore: Iterable[str] | None) -> frozenset[str]:
    """Rules that run: select (default all) minus ignore."""
    chosen: set[str] = set()
    for sel in select or ["ALL"]:
        chosen |= expand_selector(sel)
    for ign in ignore or []:
        chosen -= expand_selector(ign)
    return frozenset(chosen)


def with_options(ctx: Context, **changes: Any) -> Context:
    return replace(ctx, **changes)


def run_rules(ctx: Context, codes: Iterable[str]) -> Iterator[Finding]:
    """Run the selected checks whose needs the context satisfies and whose settings are resolved; with an input
    left open (ctx.alternatives), on every value of it, keeping each verdict only where all values agree."""
    codes = _in_order(codes if isinstance(codes, frozenset) else frozenset(codes))
    if ctx.open_input is not None and ctx.alternatives:
        found: Iterable[Finding] = _agreed(ctx, codes)
    else:
        found = (_said(f, ctx) for f in _run(ctx, codes))
    yield from (_disabled(f, ctx.deployment.disabled, ctx.deployment.disabled_why) for f in found)


@functools.lru_cache(maxsize=64)
def _in_order(codes: frozenset[str]) -> tuple[str, ...]:
    """The codes in code order, sorted once per selection (every launch of a run asks with the same one)."""
    return tuple(sorted(codes))


def _disabled(f: Finding, off: Span | None, why: str = "") -> Finding:
    """A launch whose own entry says `enabled: false` is not deployed as written (a chart's default example):
    what its rules find is an info saying so, never a warning or an error a reviewer must act on."""
    if off is None or f.severity is Severity.INFO:
        return f
    said = why.format(line=off.line) if why else f"its entry says enabled: false at line {off.line}"
    words = f" [not deployed: {said}]"
    return replace(f, severity=Severity.INFO, message=f.message + words,
                   data={**f.data, "disabled_at": off.line, "severity_if_enabled": f.severity.name.lower()})


def _said(f: Finding, ctx: Context) -> Finding:
    """A finding names the release it was modelled on when that is not the image's own (reports print it)."""
    if not ctx.modelled_release or "modelled_release" in f.data:
        return f
    return replace(f, data={**f.data, "modelled_release": ctx.modelled_release})


def _agreed(ctx: Context, codes: tuple[str, ...]) -> Iterator[Finding]:
    """A finding every value of the open input gives stays as it is (the first value's words); one that only some
    give is an info naming the input that decides it and what would settle it, never a warning or an error."""
    assert ctx.open_input is not None
    name, values, settle = ctx.open_input
    runs = [{_key(f): f for f in _run(c, codes)} for c in (ctx, *ctx.alternatives)]
    seen: set[tuple[Any, ...]] = set()
    for found in runs:
        for key, f in found.items():
            if key in seen:
                continue
            seen.add(key)
            on = [v for v, have in zip(values, runs, strict=True) if key in have]
            if len(on) == len(values):
                differ = [v for v, have in zip(values, runs, strict=True) if _verdict(have[key]) != _verdict(f)]
                if not differ:
                    yield _figures_of_first(_said(f, ctx), [have[key] for have in runs], name, values, settle)
                    continue
                words = f" [the verdict differs on {name} {', '.join(differ)}: {settle}]"
                said = _said(f, ctx)
                yield replace(said, severity=Severity.INFO, message=f.message + words,
                              data={**said.data, "open_input": name, "differs_on": differ})
                continue
            off = [v for v in values if v not in on]
            words = f" [only on {name} {', '.join(on)}, not on {', '.join(off)}: {settle}]"
            said = _said(f, ctx)
            yield replace(said, severity=Severity.INFO, message=f.message + words,
                          data={**said.data, "open_input": name, "on": on, "off": off})


def _figures_of_first(f: Finding, each: list[Finding], name: str, values: tuple[str, ...], settle: str) -> Finding:
    """A verdict every value agrees on, whose words differ between the values (a length, a memory figure): the
    words are the first value's, so the finding says so and names the other values, never one value as the
    fact (a stand-in's 131,072 tokens for a model that may derive 32,768)."""
    if all(g.message == f.message for g in each):
        return f
    bare = [v.split(" (", 1)[0] for v in values]  # the settle words name each value's sources
    words = f" [figures for {name} {bare[0]}; the same verdict on {', '.join(bare[1:])}: {settle}]"
    return replace(f, message=f.message + words, data={**f.data, "open_input": name, "figures_for": values[0]})


def _verdict(f: Finding) -> tuple[Any, ...]:
    """What two values of an open input must share for their findings to agree: the severity and the cards or
    candidates named as passing or failing (the figures may differ; the verdict may not)."""
    return (f.severity, *(tuple(f.data.get(k) or ()) for k in ("passing", "failing", "short")))


def _key(f: Finding) -> tuple[Any, ...]:
    span = f.span
    return (f.code, span.line if span else None, span.col if span else None)


def _run(ctx: Context, codes: tuple[str, ...]) -> Iterator[Finding]:
    """The rules of `codes` (in code order) whose inputs the launch has."""
    _load()
    missing = _missing(ctx)
    unresolved = set(ctx.unresolved)
    engine = ctx.engine if unresolved else None  # asked once, not once per rule and role
    for code in codes:
        r = _RULES.get(code)
        if r is None or r.check is None or missing and r.needs and not missing.isdisjoint(r.needs):
            continue  # an input the rule needs is missing (one set test per rule, none when nothing is)
        if engine is not None and any(engine.setting(role) in unresolved for role in r.reads):
            continue  # never the engine default in place of a value the file leaves to its deploy tooling
        if r.reads and ctx.deployment.server is not None:
            continue  # the roles (tp, max_len ...) are the engine's own server's settings, not another server's
        yield from r.check(ctx)


def _missing(ctx: Context) -> frozenset[str]:
    """The inputs a rule may need (`needs=`) that this launch lacks."""
    have = (("model", ctx.model is not None), ("gpu", ctx.gpu is not None or ctx.budget is not None),
            ("budget", ctx.budget is not None), ("sweep", ctx.sweep is not None or ctx.candidates is not None))
    return frozenset([name for name, present in have if not present])
