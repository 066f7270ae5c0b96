"""Per-launch status: what `kvlint check` made of each engine launch, whether or not a rule fired.

A report that lists only findings hides the launches kvlint could not size; this record says, for
every launch found, which model and GPU were used (and where they came from), whether the capacity
rules ran, and if not the one reason a user can act on. Reporters (JSON `deployments`, the text
summary line, SARIF run properties, the HTML cards) read it; nothing writes back into it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from kvlint.budget import Budget
from kvlint.record import record
from kvlint.span import Span

EVALUATED = "evaluated"
SKIPPED = "skipped"


@record
class CardVerdict:
    """One catalogue card (or one candidate the file offers) tried for a launch."""

    gpu: str  # catalogue id
    memory_bytes: int  # total as this engine sees it
    starts: bool  # vLLM: one request at max_model_len fits; SGLang: the pool holds the context
    holds_load: bool | None  # declared concurrency fits; None when none is declared
    memory_class: int = 0  # the card's marketing GB (80 for an H100 80GB): how the verdicts are grouped


@record
class Sweep:
    """The launch sized against the GPU catalogue (no product declared) or against the file's candidates."""

    min_gpu_memory_bytes: int | None  # smallest per-GPU total at which the engine starts it; None: none does
    min_load_memory_bytes: int | None  # smallest at which it also holds its concurrency
    cards: tuple[CardVerdict, ...] = ()
    candidates: bool = False  # True: the cards are the file's own candidates, not the catalogue
    scope: str = ""  # the catalogue narrowed by what the file says of the vendor ("AMD cards (the image ... is ROCm)")

    @property
    def passing(self) -> tuple[str, ...]:
        return tuple([c.gpu for c in self.cards if c.starts])  # a list: a generator resumes once per card

    @property
    def failing(self) -> tuple[str, ...]:
        return tuple([c.gpu for c in self.cards if not c.starts])


@record
class LaunchStatus:
    path: str
    span: Span | None  # the launch
    engine: str
    name: str
    model: str | None  # as written
    model_source: str | None  # "bundled" | "derived" | "hf-cache" | "local" | "override" | "hub" | ... | None
    gpu: str | None  # catalogue id used (or the product as written when unknown)
    gpu_source: str | None  # "manifest" | "config" | "cli" | "fleet" | "catalogue" | None
    capacity: str  # EVALUATED | SKIPPED
    skipped_because: str | None = None  # one actionable sentence
    skip_kind: str | None = None  # no-model | unresolved-model | unknown-model | ... (kvlint.resolve.records)
    derived_from: str | None = None  # "Qwen/Qwen3-8B (fp8)" for a derived model
    engine_version: str | None = None
    kv_tokens: int | None = None
    max_concurrency: float | None = None
    fits_one_request: bool | None = None
    sweep: Sweep | None = None
    budget: Budget | None = None  # the memory picture (reports draw it); not part of the JSON
    unresolved: tuple[str, ...] = ()  # settings left as expressions (rules reading them were skipped)
    model_max_len: int | None = None  # the model's derived maximum length for this engine (the HTML curve)
    seqs_declared: bool = True  # max_num_seqs (SGLang max_running_requests) is set, not the engine's default
    modelled_release: str | None = None  # the release the memory model followed, when not the image's own
    open_input: str | None = None  # an input left open, its values and what settles it (verdicts on every value)
    one_of_arms: bool = False  # one configuration of a command its `if` / `case` / `for` arms give several: with
    # the others at its place, one launch (Deployment.one_of_arms)

    def to_json(self) -> dict[str, Any]:
        """The `deployments[]` entry of the JSON report (documented in data/report.schema.json)."""
        span = self.span
        out: dict[str, Any] = {
            "path": self.path,
            "span": None if span is None else {"line": span.line, "col": span.col, "end_line": span.end_line,
                                               "end_col": span.end_col},
            "engine": self.engine, "engine_version": self.engine_version, "name": self.name,
            "model": self.model, "model_source": self.model_source, "derived_from": self.derived_from,
            "gpu": self.gpu, "gpu_source": self.gpu_source,
            "capacity": self.capacity, "skipped_because": self.skipped_because, "skip_kind": self.skip_kind,
            "kv_tokens": self.kv_tokens, "max_concurrency": self.max_concurrency,
            "fits_one_request": self.fits_one_request,
            "min_gpu_memory_bytes": self.sweep.min_gpu_memory_bytes if self.sweep else None,
            "min_load_memory_bytes": self.sweep.min_load_memory_bytes if self.sweep else None,
            "passing_gpus": list(self.sweep.passing) if self.sweep else None,
            "failing_gpus": list(self.sweep.failing) if self.sweep else None,
            "unresolved_settings": list(self.unresolved),
            "modelled_release": self.modelled_release,
            "open_input": self.open_input,
            "one_of_arms": self.one_of_arms,
        }
        return out


SKIP_WORDS = {
    "no-model": "no model reference", "unresolved-model": "unresolved model reference",
    "unknown-model": "model unknown offline", "model-path": "model given as a bare local path",
    "rejected-value": "flag value the engine rejects",
    "older-value": "older release's value kvlint does not size",
    "refused": "settings the engine refuses", "unresolved-setting": "unresolved setting",
    "not-a-gpu": "not a GPU", "model-length-unknown": "model's context length unknown offline",
    "error": "memory model error", "model-conflict": "model named as two different models",
    "no-kv-cache": "not an LLM server, no KV cache",
}


class CapacityTally:
    """The summary's launch counts, added a launch at a time (a streamed run keeps these, not the statuses)."""

    def __init__(self) -> None:
        self.configurations = self.evaluated = self.against_catalogue = 0
        self.skipped_by: dict[str, int] = {}
        self.alone = 0  # launches that are not one of a command's configurations
        self.arms: set[tuple[str, Span | None, str]] = set()  # the commands whose arms give several

    @property
    def launches(self) -> int:
        return self.alone + len(self.arms)

    def add(self, s: LaunchStatus) -> None:
        self.configurations += 1
        if s.one_of_arms:
            self.arms.add((s.path, s.span, s.engine))
        else:
            self.alone += 1
        if s.capacity == SKIPPED:
            kind = s.skip_kind or "error"
            self.skipped_by[kind] = self.skipped_by.get(kind, 0) + 1
        if s.capacity == EVALUATED:
            self.evaluated += 1
            self.against_catalogue += s.gpu_source in ("catalogue", "candidates")

    def summary(self) -> dict[str, Any]:
        return {"launches": self.launches, "configurations": self.configurations, "evaluated": self.evaluated,
                "against_catalogue": self.against_catalogue, "skipped": self.configurations - self.evaluated,
                "skipped_by": dict(sorted(self.skipped_by.items()))}


def capacity_summary(launches: Iterable[LaunchStatus] | CapacityTally) -> dict[str, Any]:
    """Counts for the report's summary: launches sized (on a declared GPU or the catalogue) and skipped, by kind."""
    if isinstance(launches, CapacityTally):
        return launches.summary()
    tally = CapacityTally()
    for s in launches:
        tally.add(s)
    return tally.summary()


def capacity_line(launches: Iterable[LaunchStatus] | CapacityTally) -> str:
    """`14 launches: 11 sized (3 against the GPU catalogue), 3 skipped (2 unresolved model reference, ...)`; when a
    command's arms give it several configurations, `1 launch in 3 configurations: 3 sized`."""
    c = capacity_summary(launches)
    if not c["launches"]:
        return "No engine launches found."
    line = f"{c['launches']} launch{'es' if c['launches'] != 1 else ''}"
    if c["configurations"] != c["launches"]:
        line += f" in {c['configurations']} configurations"
    line += f": {c['evaluated']} sized"
    if c["against_catalogue"]:
        line += f" ({c['against_catalogue']} against the GPU catalogue)"
    if c["skipped"]:
        kinds = sorted(c["skipped_by"].items(), key=lambda kv: (-kv[1], kv[0]))
        line += f", {c['skipped']} skipped (" + ", ".join(f"{n} {SKIP_WORDS.get(k, k)}" for k, n in kinds) + ")"
    return line + "."
