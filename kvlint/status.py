"""Per-launch status: what `kvlint check` made of each engine launch, whether or not a rule fired.

A report that lists only findings hides the launches kvlint could not size; this record says, for
every launch found, which model and GPU were used (and where they came from), whether the capacity
rules ran, and if not the one reason a user can act on. Reporters (JSON `deployments`, the text
summary line, SARIF run properties, the HTML cards) read it; nothing writes back into it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kvlint.budget import Budget
from kvlint.span import Span

EVALUATED = "evaluated"
SKIPPED = "skipped"


@dataclass(frozen=True)
class CardVerdict:
    """One catalogue card (or one candidate the file offers) tried for a launch."""

    gpu: str  # catalogue id
    memory_bytes: int  # total as this engine sees it
    starts: bool  # vLLM: one request at max_model_len fits; SGLang: the pool holds the context
    holds_load: bool | None  # declared (or default) concurrency fits; None when nothing to hold


@dataclass(frozen=True)
class Sweep:
    """The launch sized against the GPU catalogue (no product declared) or against the file's candidates."""

    min_gpu_memory_bytes: int | None  # smallest per-GPU total at which the engine starts it; None: none does
    min_load_memory_bytes: int | None  # smallest at which it also holds its concurrency
    cards: tuple[CardVerdict, ...] = ()
    candidates: bool = False  # True: the cards are the file's own candidates, not the catalogue

    @property
    def passing(self) -> tuple[str, ...]:
        return tuple(c.gpu for c in self.cards if c.starts)

    @property
    def failing(self) -> tuple[str, ...]:
        return tuple(c.gpu for c in self.cards if not c.starts)


@dataclass(frozen=True)
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
    derived_from: str | None = None  # "Qwen/Qwen3-8B (fp8)" for a derived model
    engine_version: str | None = None
    kv_tokens: int | None = None
    max_concurrency: float | None = None
    fits_one_request: bool | None = None
    sweep: Sweep | None = None
    budget: Budget | None = None  # the memory picture (reports draw it); not part of the JSON
    model_max_len: int | None = None  # the model's derived maximum length for this engine (the HTML curve)

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
            "capacity": self.capacity, "skipped_because": self.skipped_because,
            "kv_tokens": self.kv_tokens, "max_concurrency": self.max_concurrency,
            "fits_one_request": self.fits_one_request,
            "min_gpu_memory_bytes": self.sweep.min_gpu_memory_bytes if self.sweep else None,
            "min_load_memory_bytes": self.sweep.min_load_memory_bytes if self.sweep else None,
            "passing_gpus": list(self.sweep.passing) if self.sweep else None,
            "failing_gpus": list(self.sweep.failing) if self.sweep else None,
        }
        return out
