"""The plain parser of `kvlint check` gives exactly click's parameters, or hands the line to click.

Every command line here goes through both: click (the check command built from the same table) and
kvlint.commands.options.parse_plain. Where the plain parser answers, click must accept the line and
give the same parameters; where click refuses a line, the plain parser must not answer. The lines a
pre-commit hook or CI job writes must be answered (else the fast path is dead code).
"""

from __future__ import annotations

import random

import click
import pytest

from kvlint.commands import check


def click_params(argv: list[str], tmp_path) -> dict | None:
    """click's parameters for `check argv`, or None when click refuses the line (or prints help)."""
    try:
        ctx = check.command.make_context("check", list(argv))
    except (click.exceptions.ClickException, click.exceptions.Exit):
        return None
    return dict(ctx.params)


COMMON = [
    [], ["examples"], ["a.yaml", "b.yaml"], ["--exit-zero", "."], ["--gpu", "L40S", "x.yaml"],
    ["--gpu=H100-SXM-80GB", "--fail-on", "warning", "x.yaml"], ["--format", "github", "--jobs", "2", "."],
    ["-j4", "-"], ["--select", "KV1", "--select=KV2,KV3", "--ignore", "KV301", "x"],
    ["x", "--online", "--show-unused-suppressions", "y"], ["--engine-version", "0.8.5", "--", "--odd-name"],
    ["--format=sarif", "-o", "report.sarif", "k8s/"], ["--gpu-memory", "81559MiB", "x.yaml"],
    ["--baseline", "base.json", "--show-unused-baseline", "x"], ["--write-baseline", "new.json", "x"],
    ["--statistics", "."], ["--min-severity", "warning", "--format", "concise", "x"], ["--format=junit", "."],
    ["--min-severity=error", "--fail-on", "info", "--statistics", "--format", "json", "x"],
]

ODD = [
    ["--help"], ["-h"], ["--jobs", "0"], ["--jobs", "two"], ["-j"], ["--format", "xml"], ["--format"],
    ["--gpu"], ["--online=yes"], ["--exit-zero=1", "x"], ["--unknown"], ["-x"], ["--form", "text"],
    ["--gpu", "--exit-zero"], ["--config", "."], ["--output", "."], ["--output", ""], ["--config="],
    ["--jobs= 3"], ["-j", "+2"], ["--fail-on", "Error"], ["--gpu=", "x"], ["-o=out.txt"], ["-", "--"],
    ["--", "-h"], ["--select", "-KV1"], ["--select=-KV1"], ["--jobs", "4_0"],
    ["--min-severity", "notice"], ["--min-severity"], ["--statistics=yes"],
]

WORDS = ["x.yaml", "-", "--", ".", "--exit-zero", "--online", "--gpu", "L40S", "--format", "text", "json",
         "--jobs", "-j", "3", "0", "-j2", "--select", "KV1", "--ignore=KV2", "--fail-on", "info", "--config",
         "cfg.yaml", "-o", "out", "--output=o2", "--engine-version", "0.9", "-h", "--bogus", "=", "-jx",
         "--statistics", "--min-severity", "warning", "concise", "junit"]


def random_lines(count: int) -> list[list[str]]:
    rng = random.Random(20261201)
    return [[rng.choice(WORDS) for _ in range(rng.randint(0, 6))] for _ in range(count)]


@pytest.mark.parametrize("argv", COMMON + ODD + random_lines(400), ids=repr)
def test_plain_parse_agrees_with_click(argv, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "cfg.yaml").write_text("gpu: L40S\n", encoding="utf-8")
    plain = check.parse(list(argv))
    if plain is not None:
        assert plain == click_params(argv, tmp_path)


@pytest.mark.parametrize("argv", COMMON, ids=repr)
def test_the_lines_hooks_and_ci_write_are_read_without_click(argv, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert check.parse(list(argv)) is not None
    assert click_params(argv, tmp_path) is not None


def test_click_refusals_are_left_to_click(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    refused = [argv for argv in ODD if click_params(argv, tmp_path) is None]
    assert len(refused) >= 15  # the ODD lines really are ones click refuses
    assert [argv for argv in refused if check.parse(list(argv)) is not None] == []


def test_unusual_but_valid_lines_still_reach_the_same_parameters(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert check.parse(["--select=-KV1"])["select"] == ("-KV1",)  # attached: click takes it as the value
    assert check.parse(["--select", "-KV1"]) is None  # detached: click decides
    assert check.parse(["-j", "+2"])["jobs"] == 2
    assert check.parse(["--gpu", "A", "--gpu", "B"])["gpu"] == "B"
