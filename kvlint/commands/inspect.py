"""`kvlint inspect PATH...`: every engine instance found, where each setting came from, what was
defaulted and what could not be resolved. The reader's view, before any rule runs."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from kvlint.launches import ReadResult


@click.command("inspect")
@click.argument("paths", nargs=-1, required=True)
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
def command(paths: tuple[str, ...], fmt: str) -> int:
    """Show the engine instances in deployment files (folders are walked; `-` reads stdin).

    Exit codes as `kvlint check`'s: 3 when an input could not be read at all, 1 when a file is refused
    as KV001 (binary, over the size cap, not YAML), else 0.
    """
    from kvlint.errors import InputError
    from kvlint.launches import iter_files
    from kvlint.launches.discover import is_note
    from kvlint.redact import redact_text

    results, missing, unreadable = [], [], 0
    for path, reason in iter_files(paths):
        if reason is None:
            result = _read(path)
            unreadable += result.skipped is not None and result.skipped.startswith("internal error")
            results.append(result)
        elif reason == "no such file or directory":
            missing.append(path)
        else:
            unreadable += not is_note(reason)
            results.append(_skipped(path, reason))
    if missing and not results:
        raise InputError(f"no such file or directory: {', '.join(missing)}")
    if fmt == "json":
        click.echo(redact_text(json.dumps({"files": [file_json(r) for r in results], "missing": missing}, indent=2,
                                          default=str)))
    else:
        for r in results:
            click.echo(redact_text(file_text(r)))
        for m in missing:
            click.echo(f"{m}: no such file or directory")
    if missing or unreadable:
        return 3
    return 1 if any(f.code == "KV001" and str(f.severity) == "error" for r in results for f in r.findings) else 0


def _read(path: str) -> ReadResult:
    """read_path, with a reader bug costing this file only (as in `kvlint check`)."""
    from kvlint.launches import read_path

    try:
        return read_path(path)
    except Exception as exc:  # noqa: BLE001 - one file's reader bug must not hide the others
        return _skipped(path, f"internal error while reading ({type(exc).__name__}: {exc}); please report it")


def _skipped(path: str, reason: str):
    from kvlint.launches import ReadResult

    return ReadResult(path, skipped=reason)


def _loc(span, path: str = "") -> str:
    if span is None:
        return "-"
    return f"{span.line}:{span.col}" if span.path == path else f"{span.path}:{span.line}:{span.col}"


def file_text(r) -> str:
    from kvlint.launches.defaults import defaulted

    lines = [f"{r.path}: " + (f"skipped ({r.skipped})" if r.skipped else f"{len(r.deployments)} engine instance(s)")]
    for f in r.findings:
        lines.append(f"  {f.code} {f.severity}: {f.message}" + (f" [{_loc(f.span, r.path)}]" if f.span else ""))
    for d in r.deployments:
        version = f" {d.engine_version}" if d.engine_version else ""
        served = f" (served as {d.served_model_name})" if d.served_model_name else ""
        name = f" {d.name}" if d.name else ""
        lines.append(f"  - {d.engine}{version}{name} at {_loc(d.launch_span or d.model_span, r.path)}")
        lines.append(f"    model: {d.model}{served}" + ("" if d.model_resolved else " [unresolved]") + f"  ({_loc(d.model_span, r.path)})")
        gpu_count = d.gpu_count if d.gpu_count is not None else "?"
        lines.append(f"    gpus: {d.gpu or '?'} x {gpu_count}  (product {_loc(d.gpu_span, r.path)}, count {_loc(d.gpu_count_span, r.path)})")
        for name, s in d.settings.items():
            flag = f" [{s.flag}]" if s.flag else ""
            mark = "" if s.resolved else " [unresolved]"
            lines.append(f"    {name} = {s.value!r}{mark}{flag}  ({_loc(s.span, r.path)}, {s.origin})")
        for name, value in defaulted(d).items():
            lines.append(f"    {name} = {value!r}  (engine default)")
        for u in d.unknown_flags:
            lines.append(f"    unknown flag {u.flag} ({u.reason}{', did you mean ' + u.suggestion if u.suggestion else ''})  ({_loc(u.span, r.path)})")
        for note in d.notes:
            lines.append(f"    note: {note}")
    return "\n".join(lines)


def _span_json(span):
    return None if span is None else {"line": span.line, "col": span.col, "end_line": span.end_line, "end_col": span.end_col}


def file_json(r) -> dict:
    from kvlint.launches.defaults import defaulted

    return {
        "path": r.path,
        "skipped": r.skipped,
        "findings": [{"code": f.code, "severity": str(f.severity), "message": f.message, "span": _span_json(f.span)} for f in r.findings],
        "deployments": [
            {
                "engine": d.engine, "engine_version": d.engine_version, "name": d.name,
                "launch": _span_json(d.launch_span),
                "model": d.model, "model_resolved": d.model_resolved, "model_span": _span_json(d.model_span),
                "served_model_name": d.served_model_name,
                "gpu": d.gpu, "gpu_span": _span_json(d.gpu_span), "gpu_count": d.gpu_count, "gpu_count_span": _span_json(d.gpu_count_span),
                "settings": {n: {"value": s.value, "raw": s.raw, "flag": s.flag, "resolved": s.resolved, "origin": s.origin, "span": _span_json(s.span)} for n, s in d.settings.items()},
                "defaults": defaulted(d),
                "unresolved": {n: s.raw or s.value for n, s in d.settings.items() if not s.resolved},
                "unknown_flags": [{"flag": u.flag, "reason": u.reason, "suggestion": u.suggestion, "span": _span_json(u.span)} for u in d.unknown_flags],
                "ignore_codes": list(d.ignore_codes),
                "notes": list(d.notes),
            }
            for d in r.deployments
        ],
    }
