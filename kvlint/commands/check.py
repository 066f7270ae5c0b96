"""`kvlint check`: the pre-commit hook and CI gate. Exit codes are the contract CI relies on.

0: nothing at or above --fail-on; 1: findings at or above it; 2: usage or configuration error;
3: an input could not be read at all. --exit-zero keeps 0 for findings (upload pipelines).
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from kvlint.commands import write
from kvlint.commands.options import Option, click_options, parse_plain

if TYPE_CHECKING:
    from kvlint.findings import Severity
    from kvlint.lint import LintOptions, LintResult, Run
    from kvlint.report.shape import Shown

FORMATS = ("text", "concise", "json", "sarif", "github", "gitlab", "junit", "html")
SEVERITIES = ("error", "warning", "info")


def _codes(values: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(c.strip() for v in values for c in v.split(",") if c.strip())


def use_color(output: str | None) -> bool:
    if output or os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
        return False
    return bool(os.environ.get("FORCE_COLOR")) or sys.stdout.isatty()


OPTIONS = (
    Option(("--format",), "fmt", "choice", choices=FORMATS,
           help="Report format (default: github when GITHUB_ACTIONS=true, else text)."),
    Option(("--gpu",), "gpu", help="GPU for every deployment (overrides the manifest), e.g. H100-SXM-80GB."),
    Option(("--gpu-memory",), "gpu_memory", help="GPU memory total, e.g. 81559MiB or 79.19GiB."),
    Option(("--engine-version",), "engine_version",
           help="Engine version when the image tag does not say, e.g. 0.33.0."),
    Option(("--config",), "config_path", "path", help="Configuration file (skips discovery)."),
    Option(("--select",), "select", "multiple",
           help="Rules to run (codes, prefixes like KV1, or names; comma-separated)."),
    Option(("--ignore",), "ignore", "multiple", help="Rules not to run."),
    Option(("--fail-on",), "fail_on", "choice", choices=SEVERITIES,
           help="Lowest severity that fails (default error)."),
    Option(("--min-severity",), "min_severity", "choice", choices=SEVERITIES,
           help="Lowest severity shown in the report (default info); what fails is still --fail-on."),
    Option(("--statistics",), "statistics", "flag",
           help="Print the number of findings per rule instead of the findings (text, concise or json)."),
    Option(("--online",), "online", "flag", help="Fetch config.json from the Hugging Face Hub when not cached."),
    Option(("--exit-zero",), "exit_zero", "flag", help="Exit 0 even with findings (for report-upload steps)."),
    Option(("--show-unused-suppressions",), "show_unused_suppressions", "flag",
           help="Report kvlint comments that suppress nothing (KV006)."),
    Option(("--output", "-o"), "output", "output", help="Write the report to a file."),
    Option(("--baseline",), "baseline_path", "path",
           help="Report only findings not in this baseline file (default: `baseline:` in .kvlint.yaml)."),
    Option(("--write-baseline",), "write_path", "path",
           help="Record the current findings in this baseline file (entries of fixed findings drop out)."),
    Option(("--show-unused-baseline",), "show_unused_baseline", "flag",
           help="List baseline entries that no longer match a finding."),
    Option(("--jobs", "-j"), "jobs", "count",
           help="Worker processes checking files (default: the usable cores; 1 checks in this process). "
                "The report is the same for any value."),
)


def parse(argv: list[str]) -> dict[str, Any] | None:
    """`run`'s parameters for the arguments after `check`, read without click, or None when click must
    read them (help, an error, anything unusual): see kvlint.commands.options."""
    return parse_plain(OPTIONS, argv, "paths")


def __getattr__(name: str) -> Any:
    """`command`, the click command, made on first use (the plain path never imports click)."""
    if name != "command":
        raise AttributeError(name)
    import click

    @click.command("check")
    @click.argument("paths", nargs=-1)
    @click_options(OPTIONS)
    def command(**params: Any) -> int:
        """Lint deployment files (Helm values, Kubernetes manifests, launch scripts); `-` reads stdin."""
        return run(**params)

    globals()["command"] = command
    return command


def default_format() -> str:
    """github under GitHub Actions (annotations on the pull request with no flag to remember), else text."""
    return "github" if os.environ.get("GITHUB_ACTIONS") == "true" else "text"


def run(paths: tuple[str, ...], fmt: str | None, gpu: str | None, gpu_memory: str | None, engine_version: str | None,
        config_path: str | None, select: tuple[str, ...], ignore: tuple[str, ...], fail_on: str | None,
        online: bool, exit_zero: bool, show_unused_suppressions: bool, output: str | None,
        baseline_path: str | None, write_path: str | None, show_unused_baseline: bool, jobs: int | None,
        min_severity: str | None = None, statistics: bool = False) -> int:
    """Check `paths` and write the report: the exit code, 0 to 3 (see the module's doc)."""
    from kvlint.errors import KvlintError
    from kvlint.findings import Severity
    from kvlint.lint import LintOptions, Run, collect, default_jobs, exit_code, fail_threshold
    from kvlint.registry import selected_codes
    from kvlint.report import render, render_chunks, stream_chunks, streams

    fmt = fmt or default_format()
    if statistics and fmt not in ("text", "concise", "json"):
        raise KvlintError(f"--statistics prints a table or JSON: use it with --format text, concise or json, "
                          f"not {fmt}")
    least = Severity.parse(min_severity or "info")
    if engine_version and not re.fullmatch(r"v?\d+(\.\d+){0,3}([.+-][\w.+-]*)?", engine_version):
        raise KvlintError(f"--engine-version {engine_version!r} is not a version number (e.g. 0.33.0)")
    if config_path and not os.path.isfile(config_path):
        raise KvlintError(f"configuration file not found: {config_path}")
    if gpu and not gpu_memory:
        from kvlint.gpus import lookup_gpu  # a typo here would otherwise pass silently as KV003 on every file

        lookup_gpu(gpu)
    select_codes, ignore_codes = _codes(select), _codes(ignore)
    selected_codes(select_codes or None, ignore_codes)  # unknown codes: exit 2 before any work
    options = LintOptions(gpu=gpu, gpu_memory=gpu_memory, engine_version=engine_version, config=config_path,
                          select=select_codes or None, ignore=ignore_codes, online=online,
                          show_unused_suppressions=show_unused_suppressions)
    run = Run(list(paths) or ["."], options, jobs=jobs or default_jobs())
    if (output is None and streams(fmt) and not statistics
            and not (baseline_path or write_path or any(c.baseline for c in run.configs))):
        _echo(stream_chunks(fmt, _shown(run, least), color=use_color(output)))  # memory flat in the number of files
        notes = run.totals.notes + _hidden_note(run.totals.severities, least)
        return _finish(notes, exit_code(run.totals, fail_threshold(fail_on, run.totals), exit_zero))
    result = collect(run)
    _baseline(result, options, baseline_path, write_path, show_unused_baseline)
    code = exit_code(result, fail_threshold(fail_on, result), exit_zero)
    notes = result.notes + _hidden_note(result.severities, least)
    result.findings = [f for f in result.findings if f.severity >= least]  # --min-severity: shown, not failed
    if statistics:
        from kvlint.report.shape import statistics as table

        _echo([table(result.findings, fmt)])
    elif output:
        from kvlint.baseline import write_atomic

        write_atomic(output, render(fmt, result, color=False))
    else:
        _echo(render_chunks(fmt, result, color=use_color(output)))
    return _finish(notes, code)


def _shown(run: Run, least: Severity) -> Run | Shown:
    """The run as --min-severity shows it (the shaping module only when a threshold is given)."""
    from kvlint.findings import Severity

    if least <= Severity.INFO:
        return run
    from kvlint.report.shape import Shown

    return Shown(run, least)


def _hidden_note(severities: dict[Severity, int], least: Severity) -> list[str]:
    from kvlint.report.text import plural

    count = sum(n for sev, n in severities.items() if sev < least)

    return [f"{plural(count, 'finding')} below --min-severity not shown"] if count else []


def _finish(notes: list[str], code: int) -> int:
    from kvlint.printable import printable
    from kvlint.redact import redact_text

    for note in notes:
        write(sys.stderr, printable(redact_text(f"kvlint: note: {note}")) + "\n")
    return code


def _echo(pieces: Iterable[str], size: int = 1 << 16) -> None:
    """Write the report as it is made, in blocks of about `size` characters (one write per finding would cost
    a system call each; the whole report at once, memory in proportion to the run)."""
    block: list[str] = []
    held = 0
    for piece in pieces:
        block.append(piece)
        held += len(piece)
        if held >= size:
            write(sys.stdout, "".join(block))
            block, held = [], 0
    if block:
        write(sys.stdout, "".join(block))


def _baseline(result: LintResult, options: LintOptions, given: str | None, write_path: str | None,
              show_unused: bool) -> None:
    """Write and/or apply baselines: the findings they hold leave the report (and the exit code), with a note."""
    from kvlint import baseline
    from kvlint.registry import all_rules, selected_codes
    from kvlint.report.text import plural

    if write_path:
        not_run = frozenset(r.code for r in all_rules()) - selected_codes(options.select, options.ignore)
        held = baseline.write(write_path, result.findings, result, result.files, keep_codes=not_run)
        result.notes.append(f"wrote {plural(held, 'finding')} to the baseline {write_path}")
    paths = [write_path] if write_path else [given] if given else [c.baseline for c in result.configs if c.baseline]
    if not paths:
        return
    loaded = [baseline.load(p) for p in dict.fromkeys(paths)]
    outcome = baseline.apply(result.findings, result, loaded, result.files)
    result.findings = outcome.kept
    if outcome.matched:
        where = ", ".join(b.path for b in loaded)
        result.notes.append(f"{plural(outcome.matched, 'finding')} in the baseline ({where}) not reported")
    if show_unused:
        result.notes.extend(f"{b.path}: unused baseline entry{f' (x{n})' if n > 1 else ''}: {baseline.describe(e)}"
                            for b, e, n in outcome.unused)
