"""`kvlint inspect PATH...`: every engine instance found, where each setting came from, what was
defaulted and what could not be resolved: the readers' view, plus what the resolve stage (the one
`check` runs) made of the model, GPU and engine version. No rule runs."""

from __future__ import annotations

import json
from typing import Any

import click

from kvlint.deployment import Deployment
from kvlint.launches import ReadResult
from kvlint.resolve import Resolved
from kvlint.span import Span

Inspected = tuple[ReadResult, list[Resolved]]


@click.command("inspect")
@click.argument("paths", nargs=-1, required=True)
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
def command(paths: tuple[str, ...], fmt: str) -> int:
    """Show the engine instances in deployment files (folders are walked; `-` reads stdin).

    Exit codes as `kvlint check`'s: 3 when an input could not be read at all, 1 when a file is refused
    as KV001 (binary, over the size cap, not YAML), else 0.
    """
    from kvlint.config import ConfigCache
    from kvlint.errors import InputError
    from kvlint.launches import iter_files
    from kvlint.launches.discover import is_note
    from kvlint.printable import printable
    from kvlint.redact import redact_text
    from kvlint.resolve import Resolver

    resolver, configs = Resolver(), ConfigCache(None)
    results: list[Inspected] = []
    missing: list[str] = []
    unreadable = 0
    for path, reason in iter_files(paths):
        if reason is None:
            read = _read(path)
            unreadable += read.skipped is not None and read.skipped.startswith("internal error")
            config = configs.for_file(path)
            results.append((read, [resolver.resolve(d, config) for d in read.deployments]))
        elif reason == "no such file or directory":
            missing.append(path)
        else:
            unreadable += not is_note(reason)
            results.append((ReadResult(path, skipped=reason), []))
    if missing and not results:
        raise InputError(f"no such file or directory: {', '.join(missing)}")
    if fmt == "json":
        files = [file_json(r, res) for r, res in results]
        click.echo(redact_text(json.dumps({"files": files, "missing": missing}, indent=2, default=str)))
    else:
        for r, res in results:
            click.echo(printable(redact_text(file_text(r, res))))
        for m in missing:
            click.echo(printable(f"{m}: no such file or directory"))
    if missing or unreadable:
        return 3
    refused = any(f.code == "KV001" and str(f.severity) == "error" for r, _ in results for f in r.findings)
    return 1 if refused else 0


def _read(path: str) -> ReadResult:
    """read_path, with a reader bug costing this file only (as in `kvlint check`)."""
    from kvlint.launches import read_path

    try:
        return read_path(path)
    except Exception as exc:  # noqa: BLE001 - one file's reader bug must not hide the others
        return ReadResult(path, skipped=f"internal error while reading ({type(exc).__name__}: {exc}); please report it")


def _loc(span: Span | None, path: str = "") -> str:
    if span is None:
        return "-"
    return f"{span.line}:{span.col}" if span.path == path else f"{span.path}:{span.line}:{span.col}"


def file_text(r: ReadResult, resolved: list[Resolved]) -> str:
    from kvlint.report.text import plural

    head = f"skipped ({r.skipped})" if r.skipped else plural(len(r.deployments), "engine instance")
    lines = [f"{r.path}: {head}"]
    for f in r.findings:
        lines.append(f"  {f.code} {f.severity}: {f.message}" + (f" [{_loc(f.span, r.path)}]" if f.span else ""))
    for d, res in zip(r.deployments, resolved, strict=True):
        lines += _deployment_text(d, res, r.path)
    return "\n".join(lines)


def _deployment_text(d: Deployment, res: Resolved, path: str) -> list[str]:
    from kvlint.launches.defaults import defaulted, substitution

    version = f" {d.engine_version}" if d.engine_version else ""
    served = f" (served as {d.served_model_name})" if d.served_model_name else ""
    name = f" {d.name}" if d.name else ""
    known = f"[{res.model.source}]" if res.model.spec is not None else "[unresolved]" if not d.model_resolved \
        else "[unknown offline]"
    count = d.gpu_count if d.gpu_count is not None else "?"
    lines = [f"  - {d.engine}{version}{name} at {_loc(d.launch_span or d.model_span, path)}",
             f"    model: {d.model}{served} {known}  ({_loc(d.model_span, path)})",
             f"    gpus: {d.gpu or '?'} x {count}  (product {_loc(d.gpu_span, path)}, count "
             f"{_loc(d.gpu_count_span, path)})",
             f"    resolved: gpu {res.status().gpu or '-'} ({res.status().gpu_source or 'none declared'}), engine "
             f"{res.version.modelled} ({res.version.source}), capacity "
             + ("evaluated" if res.evaluated else f"skipped: {res.skipped_because}")]
    substituted = substitution(res.version.version, res.version.modelled)
    if substituted:
        lines.append(f"    release: {substituted} (defaults below are {res.version.modelled}'s)")
    for n, s in d.settings.items():
        flag = f" [{s.flag}]" if s.flag else ""
        mark = "" if s.resolved else " [unresolved]"
        lines.append(f"    {n} = {s.value!r}{mark}{flag}  ({_loc(s.span, path)}, {s.origin})")
    for n, value in defaulted(d, res.version.modelled).items():
        lines.append(f"    {n} = {value!r}  ({d.engine} {res.version.modelled} default)")
    for u in d.unknown_flags:
        mean = f", did you mean {u.suggestion}" if u.suggestion else ""
        lines.append(f"    unknown flag {u.flag} ({u.reason}{mean})  ({_loc(u.span, path)})")
    lines += [f"    note: {note}" for note in d.notes]
    return lines


def _span_json(span: Span | None) -> dict[str, int] | None:
    if span is None:
        return None
    return {"line": span.line, "col": span.col, "end_line": span.end_line, "end_col": span.end_col}


def file_json(r: ReadResult, resolved: list[Resolved]) -> dict[str, Any]:
    from kvlint.report.paths import report_path

    return {
        "path": report_path(r.path),  # as `check --format json` names it: relative, normalised
        "skipped": r.skipped,
        "findings": [{"code": f.code, "severity": str(f.severity), "message": f.message, "span": _span_json(f.span)}
                     for f in r.findings],
        "deployments": [_deployment_json(d, res) for d, res in zip(r.deployments, resolved, strict=True)],
    }


def _deployment_json(d: Deployment, res: Resolved) -> dict[str, Any]:
    from kvlint.launches.defaults import defaulted, substitution

    status = res.status()
    return {
        "engine": d.engine, "engine_version": d.engine_version, "name": d.name,
        "launch": _span_json(d.launch_span),
        "model": d.model, "model_resolved": res.model.spec is not None, "model_literal": d.model_resolved,
        "model_source": res.model.source, "model_error": res.model.reason, "model_span": _span_json(d.model_span),
        "served_model_name": d.served_model_name,
        "gpu": d.gpu, "gpu_span": _span_json(d.gpu_span), "gpu_count": d.gpu_count,
        "gpu_count_span": _span_json(d.gpu_count_span),
        "resolved": {"gpu": status.gpu, "gpu_source": status.gpu_source, "gpu_error": res.gpu.reason,
                     "engine_version": status.engine_version, "modelled_release": res.version.modelled,
                     "version_source": res.version.source,
                     "release_substituted": substitution(res.version.version, res.version.modelled),
                     "capacity": status.capacity,
                     "skipped_because": status.skipped_because},
        "settings": {n: {"value": s.value, "raw": s.raw, "flag": s.flag, "resolved": s.resolved, "origin": s.origin,
                         "span": _span_json(s.span)} for n, s in d.settings.items()},
        "defaults": defaulted(d, res.version.modelled),
        "unresolved": {n: s.raw or s.value for n, s in d.settings.items() if not s.resolved},
        "unknown_flags": [{"flag": u.flag, "reason": u.reason, "suggestion": u.suggestion, "span": _span_json(u.span)}
                          for u in d.unknown_flags],
        "ignore_codes": list(d.ignore_codes),
        "notes": list(d.notes),
    }
