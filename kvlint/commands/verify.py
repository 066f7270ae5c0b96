"""`kvlint verify LOG`: put a prediction next to what the engine actually logged at startup.

The log is the source of truth for what it shows (model, logged args, GPU total); a command line after
`--` or a manifest fills what it does not. --calibrate stores the measured non-KV term in .kvlint.yaml
so later checks of this deployment are exact.
"""

from __future__ import annotations

import json
import shlex
from typing import TYPE_CHECKING, Any

import click

from kvlint.errors import InputError, KvlintError
from kvlint.sizes import GIB

if TYPE_CHECKING:
    from kvlint.config import Config
    from kvlint.deployment import Deployment
    from kvlint.gpus import Gpu
    from kvlint.logs.compare import Comparison
    from kvlint.logs.record import LogRecord
    from kvlint.models.spec import ModelSpec


@click.command("verify")
@click.argument("log")
@click.argument("command_line", nargs=-1, type=click.UNPROCESSED)
@click.option("--manifest", type=click.Path(dir_okay=False), help="Deployment file the log came from.")
@click.option("--gpu", help="GPU the log ran on, e.g. H100 (when the log does not say).")
@click.option("--gpu-memory", help="GPU memory total as the engine saw it, e.g. 79.19GiB or 81559MiB.")
@click.option("--model", "model_ref", help="Model id or path when the log names a local folder.")
@click.option("--engine-version", help="Engine version when the log does not print it.")
@click.option("--non-kv-gib", type=float, help="Non-KV memory per rank instead of the estimate.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--report", type=click.Path(dir_okay=False, writable=True), help="Write the comparison as JSON.")
@click.option("--calibrate", is_flag=True, help="Store the measured non-KV memory in .kvlint.yaml.")
def command(log: str, command_line: tuple[str, ...], manifest: str | None, gpu: str | None, gpu_memory: str | None,
            model_ref: str | None, engine_version: str | None, non_kv_gib: float | None, fmt: str, report: str | None,
            calibrate: bool) -> int:
    """Compare a prediction with a real engine startup LOG (`-` reads stdin).

    Settings the log does not print can follow `--` as the engine command line, or come from --manifest.
    """
    from kvlint.logs import parse_log
    from kvlint.logs.compare import compare
    from kvlint.logs.render import render_text
    from kvlint.printable import printable
    from kvlint.redact import redact_text

    record = parse_log(_read(log))
    if record.engine is None and not command_line and not manifest:
        raise KvlintError(f"{log}: no vLLM or SGLang startup lines found")
    target = _target(record, list(command_line), manifest, model_ref, gpu, engine_version)
    config = _config(manifest)
    spec, note = _spec(target["model"], config)
    gpu_obj, total = _gpu(target["gpu"], gpu_memory, record, target["engine"])
    base = _config_dir(manifest)
    non_kv, source, cal_note = _non_kv(non_kv_gib, spec, gpu_obj, target, config)
    result = compare(record, spec, target["settings"], gpu_obj, engine=target["engine"], version=target["version"],
                     gpu_memory_bytes=total, non_kv_bytes=non_kv, non_kv_source=source)
    for extra in (cal_note, note):
        if extra:
            result = _with_note(result, extra)
    payload = result.to_json()
    if report:
        _write(report, redact_text(json.dumps(payload, indent=2)) + "\n")
    shown = json.dumps(payload, indent=2) if fmt == "json" else render_text(result, source=log)
    click.echo(printable(redact_text(shown)))
    if calibrate:
        click.echo(_calibrate(result, spec, gpu_obj, target, log, base), err=fmt == "json")
    return 0


LOG_MAX_BYTES = 32 * 1024 * 1024  # start-up logs are kilobytes; the parser reads ~4 MiB/s


def _read(path: str) -> str:
    """The log, bounded before it is read: a regular file or stdin, at most LOG_MAX_BYTES."""
    from kvlint.sources.text import SourceError, read_bytes, read_stdin

    try:
        data = read_stdin(LOG_MAX_BYTES) if path == "-" else read_bytes(path, LOG_MAX_BYTES)
    except OSError as exc:
        raise InputError(f"{path}: cannot read the log: {exc.strerror}") from None
    except SourceError as exc:
        raise InputError(f"{path}: {exc.reason.replace('for manifests', 'for logs')}",
                         "pass the start-up part of the log (e.g. `head -c 30M`)") from None
    if len(data) > LOG_MAX_BYTES:
        raise InputError(f"{path}: over the {LOG_MAX_BYTES // 2**20} MiB size cap for logs; not read",
                         "pass the start-up part of the log (e.g. `head -c 30M`)")
    return data.decode("utf-8", errors="replace")


def _write(path: str, text: str) -> None:
    try:
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text)
    except OSError as exc:
        raise InputError(f"{path}: cannot write the report: {exc.strerror}") from None


def _target(record: LogRecord, command_line: list[str], manifest: str | None, model_ref: str | None, gpu: str | None,
            version: str | None) -> dict[str, Any]:
    """engine, version, model, gpu name and settings: flags given > manifest > what the log printed."""
    from kvlint.logs.compare import settings_from_log

    engine = record.engine or "vllm"
    settings: dict[str, Any] = {}
    model, gpu_name = record.model, gpu or record.gpu_hint
    if manifest:
        dep = _deployment(manifest, record)
        engine, model = dep.engine, dep.model or model
        settings.update(dep.settings)
        gpu_name = gpu or dep.gpu or gpu_name
        version = version or dep.engine_version
    if command_line:
        engine, cli_model, cli_settings = _parse_command(command_line)
        settings.update(cli_settings)
        model = cli_model or model
    logged = settings_from_log(record, engine) if record.engine in (None, engine) else {}
    merged = {**logged, **settings}
    return {"engine": engine, "version": version or record.engine_version, "model": model_ref or model,
            "gpu": gpu_name, "settings": merged}


def _parse_command(words: list[str]) -> tuple[str, str | None, dict[str, Any]]:
    from kvlint.launches.argv import detect, parse
    from kvlint.span import Token

    if len(words) == 1:
        words = shlex.split(words[0])
    tokens = [Token(w) for w in words]
    found = detect(tokens)
    if not found:
        raise KvlintError("the command after `--` is not a vllm serve / sglang launch command line")
    engine, start = found
    parsed = parse(engine, tokens[start:])
    if parsed.errors:
        raise KvlintError(f"the command line does not parse: {parsed.errors[0]}")
    if parsed.invalid:
        bad = parsed.invalid[0]
        raise KvlintError(f"{engine} rejects {bad.flag} {bad.raw}: {bad.reason}")
    model = parsed.model.value if parsed.model is not None else None
    return engine, model, dict(parsed.settings)


def _deployment(path: str, record: LogRecord) -> Deployment:
    from kvlint.launches import read_path

    result = read_path(path)
    if not result.deployments:
        why = result.skipped or (result.findings[0].message if result.findings else "no engine launch found")
        raise KvlintError(f"{path}: {why}")
    same = [d for d in result.deployments if record.model and d.model == record.model]
    return (same or result.deployments)[0]


def _config(manifest: str | None) -> Config:
    """The configuration `check` would use for the manifest (or for the current folder)."""
    from kvlint.config import ConfigCache

    return ConfigCache(None).for_file(manifest or "-")


def _spec(ref: str | None, config: Config) -> tuple[ModelSpec | None, str]:
    """The model as the resolve stage finds it for `check` (overrides, HF cache, registry, derived)."""
    from kvlint.resolve import ResolveOptions
    from kvlint.resolve.lookups import lookup_model

    if not ref:
        return None, "the log does not name the model; pass --model"
    found = lookup_model(ref, config, ResolveOptions())
    if found.spec is None:
        return None, f"model {ref!r} not resolvable offline ({found.reason}); pass --model with a known id"
    return found.spec, ""


def _gpu(name: str | None, memory: str | None, record: LogRecord, engine: str) -> tuple[Gpu | None, int | None]:
    """(Gpu or None, total bytes the engine saw): an explicit --gpu-memory beats the log's total.

    A GPU the user named must resolve; one only hinted at by the log is used when the catalogue knows it.
    """
    from kvlint.engines import get_engine
    from kvlint.gpus import parse_memory_size
    from kvlint.resolve.lookups import lookup_gpu_name

    gpu_obj = None
    if name:
        gpu_obj, reason = lookup_gpu_name(name)
        if gpu_obj is None and name != record.gpu_hint:
            raise KvlintError(reason or f"unknown GPU {name!r}")
    if memory:
        return gpu_obj, parse_memory_size(memory)
    if get_engine(engine).log.prints_total_memory and record.total_gpu_memory_gib:
        return gpu_obj, int(round(record.total_gpu_memory_gib * GIB))
    return gpu_obj, None


def _config_dir(manifest: str | None) -> str:
    """Where the deployment's .kvlint.yaml is looked for: the manifest's folder (what `check` uses), else here."""
    import os

    return os.path.dirname(os.path.abspath(manifest)) if manifest else "."


def _non_kv(non_kv_gib: float | None, spec: ModelSpec | None, gpu_obj: Gpu | None, target: dict[str, Any],
            config: Config) -> tuple[int | None, str | None, str | None]:
    """(bytes, source, note): --non-kv-gib ("user"), else a calibration from the configuration `check` reads
    ("calibrated", with a note when it was measured on another release), else (None, None, None): the estimate."""
    if non_kv_gib is not None:
        return int(round(non_kv_gib * GIB)), "user", None
    if spec is None or gpu_obj is None or not config.calibrations:
        return None, None, None
    from kvlint.calibration.match import match

    found = match(config.calibrations, spec.model_id, gpu_obj.id, _tp(target), target["engine"], target["version"])
    if found is None:
        return None, None, None
    return found.non_kv_bytes, "calibrated", found.note()


def _tp(target: dict[str, Any]) -> int:
    from kvlint.engines import get_engine
    from kvlint.engines.base import resolved_int

    return resolved_int(target["settings"], get_engine(target["engine"]).setting("tp"))


def _with_note(result: Comparison, note: str) -> Comparison:
    from kvlint.record import replace

    return replace(result, notes=(note,) + result.notes)


def _calibrate(result: Comparison, spec: ModelSpec | None, gpu_obj: Gpu | None, target: dict[str, Any], log: str,
               base: str = ".") -> str:
    from kvlint.calibration.entry import Calibration
    from kvlint.calibration.store import save

    if result.measured is None:
        raise KvlintError("cannot calibrate: " + next((n for n in result.notes if n.startswith("non-KV")),
                                                      "the log does not show the memory lines needed"))
    if spec is None:
        raise KvlintError("cannot calibrate: the model is unknown; pass --model")
    if gpu_obj is None:
        raise KvlintError("cannot calibrate: name the GPU with --gpu (calibrations are per GPU type)")
    version = (result.record.engine_version or result.version or "").removeprefix("v")
    entry = Calibration(model=spec.model_id, gpu=gpu_obj.id, tp=_tp(target), engine=target["engine"],
                        engine_version=version, non_kv_gib=round(result.measured.calibration / 2**30, 3),
                        source_log=log)
    path = save(entry, base)
    return (f"calibrated: non-KV {entry.non_kv_gib} GiB per rank for {entry.model} on {entry.gpu} TP={entry.tp} "
            f"{entry.engine} {entry.engine_version} -> {path}")
