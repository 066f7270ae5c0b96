"""Turn a vLLM or SGLang startup log into a LogRecord.

Three passes over the same text: messages line by line (keeping which worker printed each), errors on
the joined text (they wrap), and Markdown tables from benchmark write-ups. A field takes its value
from the highest-priority message that shows it; per-worker values collapse the way the engine
collapses them (see patterns.AGG). Nothing here raises on odd input: an unreadable log is a record
with no fields.
"""

from __future__ import annotations

import re
from collections import defaultdict
from typing import Any

from kvlint.logs import patterns as P
from kvlint.logs.lines import Line, is_rank0, split_lines
from kvlint.logs.pyrepr import parse_call_repr, parse_dict_repr
from kvlint.logs.record import FIELD_NAMES, LogRecord
from kvlint.record import record
from kvlint.redact import redact_text, redact_value


@record
class _Hit:
    priority: int
    line: int
    rank: str
    value: Any


def _convert(name: str, raw: str) -> Any:
    if name in P.STR_FIELDS:
        return raw
    if name in P.BOOL_FIELDS:
        return P.BOOL_FIELDS[name][raw.lower()]
    if name in P.INT_FIELDS:
        return int(raw.replace(",", ""))
    return float(raw)


def _collect_lines(lines: list[Line], hits: dict[str, list[_Hit]], votes: dict[str, int]) -> None:
    for line in lines:
        for priority in P.candidates(line.message.lower()):
            pat = P.LINE_PATTERNS[priority]
            m = pat.regex.search(line.message)
            if not m:
                continue
            if pat.engine:
                votes[pat.engine] += 1
            for name, raw in zip(pat.fields, m.groups(), strict=False):
                if name and raw is not None:
                    hits[name].append(_Hit(priority, line.number, line.rank, _convert(name, raw)))


def _pick(name: str, found: list[_Hit]) -> tuple[Any, dict[str, Any]]:
    """The engine-level value of one field, and its per-rank values when workers disagree."""
    best = min(h.priority for h in found)
    found = [h for h in found if h.priority == best]
    per_rank: dict[str, Any] = {}
    for h in found:
        per_rank.setdefault(h.rank, h.value)
    how = P.AGG.get(name, "rank0")
    if how == "min":
        value = min(per_rank.values())
    elif how == "sum":
        rank0 = [h.value for h in found if is_rank0(h.rank)] or [h.value for h in found]
        value = round(sum(rank0), 2)
    else:
        value = next((h.value for h in found if is_rank0(h.rank)), found[0].value)
    return value, (per_rank if len(per_rank) > 1 else {})


def _args(lines: list[Line], votes: dict[str, int]) -> dict[str, Any]:
    args: dict[str, Any] = {}
    for line in lines:
        for regex, kind, engine in P.ARGS_PATTERNS:
            m = regex.search(line.message)
            if m:
                votes[engine] += 3
                parsed = parse_dict_repr(m.group(1)) if kind == "dict" else parse_call_repr(m.group(1))
                args.update(parsed)
    return args


def _failure(joined: str, values: dict[str, Any], votes: dict[str, int]) -> tuple[str | None, str | None]:
    lowered = joined.lower()
    for kind, pat in P.FAILURES:
        m = pat.search(joined, lowered)
        if not m:
            continue
        for name, raw in zip(pat.fields, m.groups(), strict=False):
            if name and raw is not None and values.get(name) is None:
                values[name] = _convert(name, raw)
        if pat.engine:
            votes[pat.engine] += 1
        return kind, m.group(0)
    avail = values.get("available_kv_gib")
    if avail is not None and avail <= 0:
        return P.NEGATIVE_KIND, f"Available KV cache memory: {avail} GiB"
    for regex, kind in ((P.OOM, "cuda_oom"), (P.GENERIC_FAILURE, "other")):
        m = regex.search(joined)
        if m:
            end = joined.find(". ", m.end())
            return kind, joined[m.start(): end if end > 0 else m.start() + 200].strip()
    return None, None


def _tables(lines: list[Line]) -> dict[str, Any]:
    """Values from a Markdown table whose header names known quantities (first data row)."""
    out: dict[str, Any] = {}
    header: list[str] | None = None
    for line in lines:
        text = line.message
        if not text.startswith("|"):
            header = None
            continue
        cells = [c.strip() for c in text.strip("|").split("|")]
        if header is None:
            header = [c.lower() for c in cells] if any(c.lower() in P.TABLE_COLUMNS for c in cells) else None
            continue
        if all(re.fullmatch(r":?-+:?", c) for c in cells if c):
            continue
        for title, cell in zip(header, cells, strict=False):
            name = P.TABLE_COLUMNS.get(title)
            if name and name not in out:
                value = _table_value(name, cell)
                if value is not None:
                    out[name] = value
        header = None
    return out


def _table_value(name: str, cell: str) -> Any:
    if name == "outcome":
        return P.TABLE_STATUS.get(cell.lower())
    try:
        return _convert(name, cell.replace(",", ""))
    except ValueError:
        return None  # "N/A", "-", ...


def _engine(votes: dict[str, int], args: dict[str, Any]) -> str | None:
    if "model_path" in args or "mem_fraction_static" in args:
        return "sglang"
    if not votes:
        return None
    return max(sorted(votes), key=lambda e: votes[e])


def _model(args: dict[str, Any]) -> str | None:
    for key in ("model", "model_path", "model_tag"):
        value = args.get(key)
        if isinstance(value, str) and value:
            return value
    return None


def _outcome(values: dict[str, Any], failure_kind: str | None) -> str | None:
    if failure_kind:
        return "failed"
    if values.get("outcome"):
        return values["outcome"]
    started = ("kv_tokens", "max_concurrency", "num_gpu_blocks", "max_total_num_tokens")
    if any(values.get(k) is not None for k in started):
        return "started"
    avail = values.get("available_kv_gib")
    return "started" if avail is not None and avail > 0 else None


def _fill_from_args(values: dict[str, Any], args: dict[str, Any]) -> None:
    """SGLang prints mem_fraction_static only in server_args; take it (and context) from there."""
    for field in ("mem_fraction_static", "kv_cache_dtype"):
        if values.get(field) is None and isinstance(args.get(field), (int, float, str)):
            values[field] = args[field]
    if values.get("mem_fraction_static") is not None and not isinstance(values["mem_fraction_static"], float):
        try:
            values["mem_fraction_static"] = float(values["mem_fraction_static"])
        except (TypeError, ValueError):
            values["mem_fraction_static"] = None


def _line_values(lines: list[Line], votes: dict[str, int]) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    """Field values from the messages (then from tables), and per-rank values where workers disagree."""
    hits: dict[str, list[_Hit]] = defaultdict(list)
    _collect_lines(lines, hits, votes)
    values: dict[str, Any] = {}
    ranks: dict[str, dict[str, Any]] = defaultdict(dict)
    for name, found in hits.items():
        values[name], per_rank = _pick(name, found)
        for rank, value in per_rank.items():
            ranks[rank or "untagged"][name] = value
    table = _tables(lines)
    if table:
        votes["vllm"] += 1  # the tabulated quantities are vLLM's profiler terms
    for name, value in table.items():
        values.setdefault(name, value)
    graph_gb = values.pop("sglang_cuda_graph_gb", None)
    if values.get("cuda_graph_gib") is None and graph_gb is not None:
        values["cuda_graph_gib"] = graph_gb
    return values, dict(ranks)


def _tidy(values: dict[str, Any]) -> None:
    if isinstance(values.get("kv_cache_dtype"), str):
        values["kv_cache_dtype"] = values["kv_cache_dtype"].removeprefix("torch.")
    if values.get("gpu_hint"):
        values["gpu_hint"] = values["gpu_hint"].replace("_", " ")


def parse_log(text: str) -> LogRecord:
    """Parse one startup log (any mix of vLLM/SGLang decoration) into the fields it shows."""
    lines = split_lines(text)
    votes: dict[str, int] = defaultdict(int)
    values, ranks = _line_values(lines, votes)
    args = {k: redact_value(k, v) for k, v in _args(lines, votes).items()}  # api_key, hf_token: never kept
    _fill_from_args(values, args)
    kind, message = _failure(" ".join(line.message for line in lines), values, votes)
    message = redact_text(message) if message else message
    _tidy(values)
    values["outcome"] = _outcome(values, kind)
    known = {k: v for k, v in values.items() if k in FIELD_NAMES}
    return LogRecord(engine=_engine(votes, args), model=_model(args), args=args, failure_kind=kind,
                     failure_message=message, ranks=ranks, **known)
