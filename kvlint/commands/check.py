"""`kvlint check`: the pre-commit hook and CI gate. Exit codes are the contract CI relies on.

0: nothing at or above --fail-on; 1: findings at or above it; 2: usage or configuration error;
3: an input could not be read at all. --exit-zero keeps 0 for findings (upload pipelines).
"""

from __future__ import annotations

import os
import re
import sys

import click

FORMATS = ("text", "json", "sarif", "github")


def _codes(values: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(c.strip() for v in values for c in v.split(",") if c.strip())


def use_color(output: str | None) -> bool:
    if output or os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
        return False
    return bool(os.environ.get("FORCE_COLOR")) or sys.stdout.isatty()


@click.command("check")
@click.argument("paths", nargs=-1)
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="text", show_default=True)
@click.option("--gpu", help="GPU for every deployment (overrides the manifest), e.g. H100-SXM-80GB.")
@click.option("--gpu-memory", help="GPU memory total, e.g. 81559MiB or 79.19GiB.")
@click.option("--engine-version", help="Engine version when the image tag does not say, e.g. 0.33.0.")
@click.option("--config", "config_path", type=click.Path(dir_okay=False), help="Configuration file (skips discovery).")
@click.option("--select", multiple=True, help="Rules to run (codes, prefixes like KV1, or names; comma-separated).")
@click.option("--ignore", multiple=True, help="Rules not to run.")
@click.option("--fail-on", type=click.Choice(["error", "warning", "info"]), help="Lowest severity that fails (default error).")
@click.option("--online", is_flag=True, help="Fetch config.json from the Hugging Face Hub when not cached.")
@click.option("--exit-zero", is_flag=True, help="Exit 0 even with findings (for report-upload steps).")
@click.option("--show-unused-suppressions", is_flag=True, help="Report kvlint comments that suppress nothing (KV006).")
@click.option("--output", "-o", type=click.Path(dir_okay=False, writable=True), help="Write the report to a file.")
def command(paths, fmt, gpu, gpu_memory, engine_version, config_path, select, ignore, fail_on, online,
            exit_zero, show_unused_suppressions, output) -> int:
    """Lint deployment files (Helm values, Kubernetes manifests, launch scripts); `-` reads stdin."""
    from kvlint.errors import KvlintError
    from kvlint.lint import LintOptions, exit_code, fail_threshold, lint
    from kvlint.redact import redact_text
    from kvlint.registry import selected_codes
    from kvlint.report import render

    if engine_version and not re.fullmatch(r"v?\d+(\.\d+){0,3}([.+-][\w.+-]*)?", engine_version):
        raise KvlintError(f"--engine-version {engine_version!r} is not a version number (e.g. 0.33.0)")
    if config_path and not os.path.isfile(config_path):
        raise KvlintError(f"configuration file not found: {config_path}")
    select_codes, ignore_codes = _codes(select), _codes(ignore)
    selected_codes(select_codes or None, ignore_codes)  # unknown codes: exit 2 before any work
    options = LintOptions(gpu=gpu, gpu_memory=gpu_memory, engine_version=engine_version, config=config_path,
                          select=select_codes or None, ignore=ignore_codes, online=online,
                          show_unused_suppressions=show_unused_suppressions)
    result = lint(list(paths) or ["."], options)
    report = render(fmt, result, color=use_color(output))
    if output:
        with open(output, "w", encoding="utf-8") as fh:
            fh.write(report)
    else:
        click.echo(report, nl=False)
    for note in result.notes:
        click.echo(redact_text(f"kvlint: note: {note}"), err=True)
    return exit_code(result, fail_threshold(fail_on, result), exit_zero)
