"""Which calibration applies to a deployment, and how its budget is relabelled as calibrated.

Loaded by `kvlint check` only when the configuration holds calibration entries; it needs no log
parsing, so a calibrated check costs no more than an estimated one.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from kvlint.budget import Calibrated
from kvlint.calibration.entry import Calibration, deployment_key, entries, norm_version, target, version_key
from kvlint.errors import KvlintError
from kvlint.memory.common import GIB
from kvlint.record import record, replace

NON_KV_STEPS = ("non-KV", "pre-pool allocations")  # the step each engine's derivation names the given term


@record
class Match:
    """The calibration that applies to one deployment; exact when its engine version is the deployment's."""

    entry: Calibration
    exact: bool
    version: str  # the deployment's version it was matched against

    @property
    def non_kv_bytes(self) -> int:
        return int(round(self.entry.non_kv_gib * GIB))

    def describe(self) -> str:
        where = f" from {self.entry.source_log}" if self.entry.source_log else ""
        return f"calibrated{where} ({self.entry.engine} {self.entry.engine_version or '?'}, TP={self.entry.tp})"

    def note(self) -> str | None:
        """Why a calibration of another release still applies (None when the versions agree)."""
        if self.exact:
            return None
        got = self.entry.engine_version or "an unknown version"
        return (f"non-KV calibrated on {self.entry.engine} {got} applied to {self.entry.engine} {self.version} "
                f"(no calibration for that release; recalibrate with `kvlint verify LOG --calibrate`)")


def lookup(config: Mapping[str, Any] | None, model: str | None, gpu: str | None, tp: int | None,
           engine: str | None, version: str | None) -> int | None:
    """Calibrated non-KV bytes per rank for this deployment, or None.

    `gpu` may be any spelling the catalogue accepts (compared by catalogue id); model ids compare case- and
    separator-insensitively.
    With version None, the newest calibrated version for the rest of the key is used.
    """
    if not model or not gpu or not engine:
        return None
    want = deployment_key(model, gpu, tp, engine)
    found = [c for c in entries(config) if target(c)[:4] == want]
    if version is not None:
        found = [c for c in found if norm_version(c.engine_version) == norm_version(version)]
    if not found:
        return None
    best = max(found, key=lambda c: version_key(c.engine_version))
    return int(round(best.non_kv_gib * GIB))


def match(items: Iterable[Calibration], model: str | None, gpu: str | None, tp: int | None,
          engine: str | None, version: str | None) -> Match | None:
    """The calibration for (model, GPU, TP, engine, version), or None.

    Model id (ModelSpec.model_id), GPU (catalogue id) and TP and engine must all agree. Among those, the
    entry of the deployment's engine version wins (v-prefix, trailing .0 and build suffix ignored); else the
    newest calibrated version of that engine applies, not exact (the caller notes it). `version` None means
    the release kvlint models by default.
    """
    if not model or not gpu or not engine:
        return None
    want = deployment_key(model, gpu, tp, engine)
    found = [c for c in items if target(c)[:4] == want]
    if not found:
        return None
    version = version or default_version(engine)
    same = [c for c in found if norm_version(c.engine_version) == norm_version(version)]
    best = same[-1] if same else max(found, key=lambda c: version_key(c.engine_version))
    return Match(best, bool(same), str(version).removeprefix("v"))


def default_version(engine: str) -> str:
    """The release compute_budget models when a deployment does not say."""
    from kvlint.engines import get_engine

    try:
        return get_engine(engine).release(None)
    except (KvlintError, KeyError):
        return ""


def apply(budget: Any, found: Match) -> Any:
    """Relabel a budget computed with `non_kv_bytes=found.non_kv_bytes` as calibrated.

    compute_budget labels every given value "user"; a pool given outright ("not-needed") never used the
    non-KV term, so it stays as it is. The derivation step of the non-KV term names its source log.
    """
    if budget is None or budget.non_kv_source != "user":
        return budget
    how = found.describe()
    steps = tuple(replace(s, formula=how, estimated=False) if s.name in NON_KV_STEPS else s for s in budget.steps)
    return replace(budget, non_kv_source="calibrated", kv_pool_estimated=False, steps=steps,
                   calibration=Calibrated(found.entry, found.exact))
