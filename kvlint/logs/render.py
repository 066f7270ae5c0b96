"""Text rendering of a verify comparison: one side-by-side table, then the checks and notes."""

from __future__ import annotations

from typing import Any

from kvlint.logs.compare import Comparison, Row

MARK = {"pass": "ok", "fail": "FAIL", "n/a": "n/a"}


def _fmt(value: Any, unit: str) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:,.2f}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def _delta(row: Row) -> str:
    d = row.delta
    if d is None:
        return ""
    if row.logged:
        return f"{d:+,.2f} ({d / row.logged:+.1%})" if isinstance(d, float) else f"{d:+,} ({d / row.logged:+.1%})"
    return f"{d:+,.2f}" if isinstance(d, float) else f"{d:+,}"


def _table(rows: tuple[Row, ...]) -> list[str]:
    body = [(f"{r.name} ({r.unit})" if r.unit in ("GiB", "B") else r.name, _fmt(r.predicted, r.unit),
             _fmt(r.logged, r.unit), _delta(r)) for r in rows]
    head = ("quantity", "predicted", "logged", "delta")
    widths = [max(len(x[i]) for x in [head, *body]) for i in range(4)]
    line = "  ".join(f"{{:<{widths[0]}}}" if i == 0 else f"{{:>{widths[i]}}}" for i in range(4))
    return [line.format(*head), line.format(*("-" * w for w in widths))] + [line.format(*b) for b in body]


def render_text(result: Comparison, source: str = "") -> str:
    rec = result.record
    outcome = f", outcome {rec.outcome}" if rec.outcome else ""
    if rec.failure_kind:
        outcome += f" ({rec.failure_kind})"
    version = result.version or "(version not logged)"
    out = [f"{source}: {result.engine} {version}, model {result.model or '?'}{outcome}"]
    if result.rows:
        out += ["", "Prediction from GPU + flags vs the log (per rank):"] + _table(result.rows)
    if result.measured:
        out.append(f"measured non-KV: {result.measured.formula}")
    if result.pooled_rows:
        verdict = {True: "match", False: "MISMATCH", None: "nothing to compare"}[result.pooled_match]
        out += ["", f"Given the logged pool ({rec.available_kv_gib} GiB, +-0.005 GiB rounding): {verdict}"]
        out += _table(result.pooled_rows)
    if result.checks:
        out += ["", "Consistency checks:"]
        out += [f"  [{MARK[c.status]}] {c.name}: {c.detail}" for c in result.checks]
    if result.notes:
        out += [""] + [f"note: {n}" for n in result.notes]
    return "\n".join(out)
