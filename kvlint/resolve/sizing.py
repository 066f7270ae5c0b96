"""Budgets for one launch: the engine's memory model called with the non-KV term the user's setup implies.

One `Sizing` holds what is fixed for a launch (engine, model, card, release, the non-KV policy); a
`WhatIf` computes the budget for its settings and for changed ones (the levers a finding offers), so
every number a rule quotes, "Fits: -tp 2" included, is the engine's own arithmetic again. Budgets are
memoised across launches by their full inputs: a repository repeats the same launch many times.

Unresolved settings are left out of what the memory model sees; if it asks for one, the budget would
rest on a guessed default, so it is refused (`UnresolvedSetting`) and the capacity rules skip.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

from kvlint.budget import Budget
from kvlint.engines.base import resolved_int
from kvlint.errors import InvalidSettingError, KvlintError
from kvlint.record import field, record, replace

if TYPE_CHECKING:
    from kvlint.calibration.match import Match
    from kvlint.engines.base import Engine
    from kvlint.gpus import Gpu
    from kvlint.models.spec import ModelSpec



class UnresolvedSetting(KvlintError):
    """The memory model needs a setting the file leaves to its deploy tooling."""

    def __init__(self, names: tuple[str, ...]):
        super().__init__(f"needs {', '.join(names)}, left unresolved")
        self.names = names


class SettingsView(Mapping[str, Any]):
    """Resolved settings as the memory model reads them; asking for an unresolved one is recorded."""

    def __init__(self, values: Mapping[str, Any], unresolved: frozenset[str]):
        self._values = values
        self._unresolved = unresolved
        self.asked: set[str] = set()

    def __getitem__(self, key: str) -> Any:
        if key in self._unresolved and key not in self._values:
            self.asked.add(key)
        return self._values[key]

    def get(self, key: str, default: Any = None) -> Any:  # Mapping.get's answer without its try/except
        if key in self._unresolved and key not in self._values:
            self.asked.add(key)
        return self._values.get(key, default)

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)


@record
class Sizing:
    """What stays fixed while a launch's settings vary."""

    engine: Engine
    model: ModelSpec
    gpu: Gpu | None
    memory_bytes: int | None  # an explicit total the engine sees
    version: str | None
    non_kv_bytes: int | None  # --non-kv-gib or `non-kv-gib:` (None: calibration, else the estimate)
    non_kv_source: str  # "user" | "config" | "estimated"
    calibrations: tuple[Any, ...] = ()
    unresolved: frozenset[str] = frozenset()
    _cards: dict[tuple[int, int | None], Sizing] = field(default_factory=dict, init=False, compare=False, repr=False)

    def on(self, gpu: Gpu | None, memory_bytes: int | None = None) -> Sizing:
        """The same launch on another card (the catalogue sweep; memoised: a sweep asks ~50 times per launch)."""
        key = (id(gpu), memory_bytes)  # the memoised Sizing holds the card, so its id is not reused meanwhile
        found = self._cards.get(key)
        if found is None or found.gpu is not gpu:
            found = self._cards[key] = replace(self, gpu=gpu, memory_bytes=memory_bytes)
        return found

    def calibration(self, settings: Mapping[str, Any]) -> Match | None:
        """A calibration for (model, card, TP of these settings, engine, release): it beats `non-kv-gib:`."""
        if not self.calibrations or self.gpu is None or self.non_kv_source == "user":
            return None
        from kvlint.calibration.match import match

        tp = resolved_int(settings, self.engine.setting("tp"))
        return match(self.calibrations, self.model.model_id, self.gpu.id, tp, self.engine.name, self.version)


@record
class Outcome:
    budget: Budget | None
    error: KvlintError | None = None  # InvalidSettingError: the engine refuses; UnresolvedSetting; other
    calibration: Match | None = None


def compute(sizing: Sizing, settings: Mapping[str, Any]) -> Outcome:
    """One budget; the engine's refusal or a missing value comes back as the outcome's error, never raised."""
    found = sizing.calibration(settings)
    non_kv = found.non_kv_bytes if found is not None else sizing.non_kv_bytes
    # with nothing unresolved no read can be refused: the settings go to the memory model as they are (a budget
    # reads ~25 of them, and the view's Python-level get was ~100,000 calls of a 1,000-file run)
    view = SettingsView(settings, sizing.unresolved) if sizing.unresolved else None
    try:
        budget = sizing.engine.budget(sizing.model, settings if view is None else view, sizing.gpu,
                                      version=sizing.version, non_kv_bytes=non_kv, gpu_memory_bytes=sizing.memory_bytes)
    except KvlintError as exc:
        return Outcome(None, exc)
    if view is not None and view.asked:
        return Outcome(None, UnresolvedSetting(tuple(sorted(view.asked))))
    if found is not None:
        from kvlint.calibration.match import apply  # only with a matching calibration

        return Outcome(apply(budget, found), calibration=found)
    return Outcome(budget)


def settings_items(settings: Mapping[str, Any]) -> tuple[tuple[str, str], ...]:
    return tuple(sorted([(k, repr(v)) for k, v in settings.items()]))


def _key(sizing: Sizing, settings: Mapping[str, Any],
         items: tuple[tuple[str, str], ...] | None = None) -> tuple[Any, ...]:
    gpu = sizing.gpu.id if sizing.gpu is not None else None
    # the derived lengths too: a stand-in config sized at each length its family may derive (resolve: robust
    # verdicts) keeps its source and id
    return (sizing.engine.name, sizing.model.source, sizing.model.model_id, sizing.model.max_len_vllm,
            sizing.model.max_len_sglang, gpu, sizing.memory_bytes,
            sizing.version, sizing.non_kv_bytes, sizing.non_kv_source, sizing.calibrations,
            sizing.unresolved, settings_items(settings) if items is None else items)


@record(frozen=False)
class BudgetCache:
    """Outcomes by their full inputs, shared by every launch of a run (and by the sweep's cards).

    `sweeps` holds whole catalogue sweeps by the same inputs (kvlint.resolve.sweep), so a launch repeated
    across a repository costs one lookup instead of ~50. Both are cleared when full (`bound` entries; a sweep
    holds ~50 outcomes' worth, so sweeps are bounded at a sixteenth), so a run over thousands of distinct
    launches keeps its memory flat. Keys are made of values only (names, numbers, the calibration records
    themselves), never of object ids, so an entry means the same in every process (kvlint.parallel hands a
    worker's entries to the others)."""

    outcomes: dict[tuple[Any, ...], Outcome] = field(default_factory=dict)
    sweeps: dict[tuple[Any, ...], Any] = field(default_factory=dict)
    bound: int = 4096

    @property
    def sweep_bound(self) -> int:
        return self.bound // 16

    def adopt(self, outcomes: Iterable[tuple[tuple[Any, ...], Outcome]],
              sweeps: Iterable[tuple[tuple[Any, ...], Any]]) -> None:
        """Entries computed elsewhere for the same inputs (another worker): stored as if computed here, within
        the same bounds. Stored with dict's own method, so a table that records its new entries does not
        record these as its own."""
        for table, bound, entries in ((self.outcomes, self.bound, outcomes), (self.sweeps, self.sweep_bound, sweeps)):
            for key, value in entries:
                if len(table) >= bound:
                    table.clear()
                dict.__setitem__(table, key, value)

    def get(self, sizing: Sizing, settings: Mapping[str, Any],
            items: tuple[tuple[str, str], ...] | None = None, keep: bool = True) -> Outcome:
        """`items`: settings_items(settings) when the caller asks for many cards with the same settings.
        `keep` False: computed but not stored (a sweep's cards and bisection points are used by that sweep,
        which is memoised whole: keeping them held ~1,300 budgets for 34 sweeps)."""
        key = _key(sizing, settings, items)
        found = self.outcomes.get(key)
        if found is None and not keep:
            return compute(sizing, settings)
        if found is None:
            if len(self.outcomes) >= self.bound:
                self.outcomes.clear()
            found = self.outcomes[key] = compute(sizing, settings)
        return found


@record
class WhatIf:
    """The budget of one launch with optional setting changes; a refused or failed one is None."""

    sizing: Sizing
    settings: Mapping[str, Any]
    cache: BudgetCache = field(compare=False)

    def __call__(self, changes: Mapping[str, Any]) -> Budget | None:
        return self.outcome(changes).budget

    def outcome(self, changes: Mapping[str, Any] | None = None) -> Outcome:
        return self.cache.get(self.sizing, {**self.settings, **(changes or {})})

    def on_release(self, version: str) -> Budget | None:
        """The same launch on another engine release (a launch that pins none could run any: KV101 asks)."""
        return self.cache.get(replace(self.sizing, version=version), dict(self.settings)).budget


def refused(outcome: Outcome) -> InvalidSettingError | None:
    return outcome.error if isinstance(outcome.error, InvalidSettingError) else None
