"""Prediction against a real startup: the engine of `kvlint verify`.

Two predictions per log, both from compute_budget with the same engine version:
- full: from GPU + flags, the way `kvlint check` predicts (non-KV estimated or calibrated);
- given the logged pool (vLLM): kv_cache_memory_bytes set to the logged "Available KV cache memory",
  which isolates the exact part (cell, blocks, tokens, concurrency) from the one estimated term. The log
  rounds the pool to 0.01 GiB, so that prediction is a token range; the logged count must fall in it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from kvlint.budget import Budget
from kvlint.calibration.measure import Measurement, measure_non_kv
from kvlint.engines import get_engine
from kvlint.engines.base import LogView
from kvlint.errors import KvlintError
from kvlint.logs.checks import GIB_ROUNDING, Check, run_checks
from kvlint.logs.record import GIB, LogRecord
from kvlint.models.spec import FULL, MLA, ModelSpec
from kvlint.record import field, record, replace

# logged arguments that name the model or the server, not memory settings
_NOT_SETTINGS = {"model", "model_tag", "model_path", "tokenizer", "tokenizer_path", "host", "port", "api_key",
                 "served_model_name", "subparser", "dispatch_function"}


@record
class Row:
    name: str
    unit: str  # "GiB", "blocks", "tokens", "x", ""
    predicted: Any
    logged: Any

    @property
    def delta(self) -> float | None:
        if isinstance(self.predicted, (int, float)) and isinstance(self.logged, (int, float)):
            return self.predicted - self.logged
        return None


@record
class Comparison:
    record: LogRecord
    engine: str
    version: str | None
    model: str | None
    rows: tuple[Row, ...] = ()
    pooled_rows: tuple[Row, ...] = ()
    pooled_match: bool | None = None  # logged tokens inside the range given the logged pool
    checks: tuple[Check, ...] = ()
    measured: Measurement | None = None
    budget: Budget | None = field(default=None, repr=False)
    notes: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "version": 1, "engine": self.engine, "engine_version": self.version, "model": self.model,
            "logged": self.record.to_json(),
            "comparison": [_row_json(r) for r in self.rows],
            "given_logged_pool": {"rows": [_row_json(r) for r in self.pooled_rows], "tokens_match": self.pooled_match},
            "checks": [{"name": c.name, "status": c.status, "detail": c.detail} for c in self.checks],
            "measured_non_kv_bytes": self.measured.non_kv_bytes if self.measured else None,
            "measured_non_kv_formula": self.measured.formula if self.measured else None,
            "prediction": self.budget.to_json() if self.budget else None,
            "notes": list(self.notes),
        }


def _row_json(row: Row) -> dict[str, Any]:
    return {"quantity": row.name, "unit": row.unit, "predicted": row.predicted, "logged": row.logged,
            "delta": None if row.delta is None else round(row.delta, 4)}


def settings_from_log(record: LogRecord, engine: str) -> dict[str, Any]:
    """Memory settings as the engine resolved them: logged args, then the values its own lines state."""
    out = {k: v for k, v in record.args.items() if k not in _NOT_SETTINGS and v is not None}
    resolved = get_engine(engine).log.settings(record)
    for key, value in resolved.items():
        if value is not None:
            out.setdefault(key, value)
    return out


def uniform_full_attention(model: ModelSpec) -> bool:
    """The seed's identities hold when every layer stores full-length KV of one shape."""
    kinds = {(layer.kind, layer.num_kv_heads, layer.head_dim_k, layer.head_dim_v) for layer in model.layers}
    return len(kinds) == 1 and next(iter(kinds))[0] in (FULL, MLA)


def _gib(n: int | float | None) -> float | None:
    return None if n is None else round(n / GIB, 2)


def _log_view(record: LogRecord) -> LogView:
    """How this log's engine prints its pool (a log that names no engine reads as vLLM's)."""
    return get_engine(record.engine or "vllm").log


def _full_rows(record: LogRecord, b: Budget, measured: Measurement | None) -> tuple[Row, ...]:
    view = get_engine(b.engine).log
    rows = [
        Row("weights", "GiB", _gib(b.weights_bytes), view.weights_gib(record)),
        Row("non-KV", "GiB", _gib(b.non_kv_bytes), _gib(measured.non_kv_bytes) if measured else None),
        Row("KV pool", "GiB", _gib(b.kv_pool_bytes), _log_view(record).pool_gib(record)),
        Row("tokens", "tokens", b.kv_tokens, view.tokens(record)),
    ]
    if view.block_rows:
        rows.insert(0, Row("requested", "GiB", _gib(b.requested_bytes) if b.requested_bytes else None,
                           record.requested_memory_gib))
        rows.insert(4, Row("blocks", "blocks", b.num_blocks, record.num_gpu_blocks))
        rows.append(Row("concurrency", "x", round(b.max_concurrency, 2), record.max_concurrency))
    verdict = "starts" if b.fits_one_request and b.kv_pool_bytes > 0 else "refuses"
    logged = {"started": "starts", "failed": "refuses"}.get(record.outcome or "")
    rows.append(Row("verdict", "", verdict, logged))
    return tuple(rows)


BudgetFn = Callable[[Mapping[str, Any]], Budget]


def _pooled(record: LogRecord, settings: Mapping[str, Any], budget_fn: BudgetFn) -> tuple[tuple[Row, ...], bool | None]:
    """Predict with the logged pool, at its rounding bounds, and see whether the logged tokens fall inside."""
    avail = record.available_kv_bytes
    if avail is None or avail <= 0 or not _log_view(record).block_rows:
        return (), None
    bounds = []
    for pool in (avail - int(GIB_ROUNDING), avail, avail + int(GIB_ROUNDING)):
        bounds.append(budget_fn({**settings, "kv_cache_memory_bytes": max(pool, 1)}))
    lo, mid, hi = bounds
    rows = [
        Row("cell per token", "B", mid.kv_bytes_per_token, None),
        Row("blocks", "blocks", f"{lo.num_blocks:,}..{hi.num_blocks:,}", record.num_gpu_blocks),
        Row("tokens", "tokens", f"{lo.kv_tokens:,}..{hi.kv_tokens:,}", record.kv_tokens),
        Row("concurrency", "x", f"{lo.max_concurrency:.2f}..{hi.max_concurrency:.2f}", record.max_concurrency),
    ]
    checks = []
    if record.kv_tokens is not None:
        checks.append(lo.kv_tokens <= record.kv_tokens <= hi.kv_tokens)
    if record.num_gpu_blocks is not None and lo.num_blocks is not None and hi.num_blocks is not None:
        checks.append(lo.num_blocks <= record.num_gpu_blocks <= hi.num_blocks)
    if record.max_concurrency is not None:
        low, high = round(lo.max_concurrency, 2) - 0.01, round(hi.max_concurrency, 2) + 0.01
        checks.append(low <= record.max_concurrency <= high)
    return tuple(rows), (all(checks) if checks else None)


def _predict(budget_fn: BudgetFn, settings: Mapping[str, Any], non_kv_source: str | None,
             notes: list[str]) -> Budget | None:
    try:
        budget = budget_fn(settings)
    except KvlintError as exc:
        notes.append(f"no prediction: {exc}")
        return None
    notes.extend(budget.notes)
    return replace(budget, non_kv_source=non_kv_source) if non_kv_source else budget


def _measure(record: LogRecord, budget: Budget | None, gpu_memory_bytes: int | None,
             notes: list[str]) -> Measurement | None:
    try:
        return measure_non_kv(record, total_bytes=budget.gpu_memory_bytes if budget else gpu_memory_bytes,
                              requested_bytes=budget.requested_bytes if budget else None)
    except KvlintError as exc:
        notes.append(f"non-KV not measurable: {exc}")
        return None


def compare(record: LogRecord, model: ModelSpec | None, settings: Mapping[str, Any], gpu: Any, *,
            engine: str, version: str | None = None, gpu_memory_bytes: int | None = None,
            non_kv_bytes: int | None = None, non_kv_source: str | None = None) -> Comparison:
    """Predict for the logged deployment and line the numbers up with the log.

    non_kv_source relabels a given non_kv_bytes ("calibrated" when it came from .kvlint.yaml).
    """
    from kvlint.memory import compute_budget

    if model is None:
        return Comparison(record, engine, version, None, checks=tuple(run_checks(record, None, record.block_size)),
                          notes=("model config not found: only the log's own consistency was checked",))

    def budget_fn(s: Mapping[str, Any]) -> Budget:
        return compute_budget(engine, model, s, gpu, version=version, gpu_memory_bytes=gpu_memory_bytes,
                              non_kv_bytes=non_kv_bytes)

    notes: list[str] = []
    budget = _predict(budget_fn, settings, non_kv_source if non_kv_bytes is not None else None, notes)
    measured = _measure(record, budget, gpu_memory_bytes, notes)
    pooled_rows: tuple[Row, ...] = ()
    match: bool | None = None
    try:
        pooled_rows, match = _pooled(record, settings, budget_fn)
    except KvlintError as exc:
        notes.append(f"no prediction from the logged pool: {exc}")
    checks = run_checks(record, budget.kv_bytes_per_token if budget else None, budget.block_size if budget else None,
                        uniform=uniform_full_attention(model))
    return Comparison(record, engine, budget.engine_version if budget else version, model.model_id,
                      rows=_full_rows(record, budget, measured) if budget else (), pooled_rows=pooled_rows,
                      pooled_match=match, checks=tuple(checks), measured=measured, budget=budget,
                      notes=tuple(dict.fromkeys(notes)))
