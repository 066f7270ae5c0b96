"""`check`, `budget FILE` and `inspect` resolve every launch through one stage, so they must agree, launch by
launch, on the model, the GPU and the engine release used, and on every number they both print."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from kvlint.cli import cli
from kvlint.commands.budget import file_budgets
from kvlint.config import ConfigCache
from kvlint.launches import iter_files, read_path
from kvlint.report.paths import report_path
from kvlint.resolve import ResolveOptions, Resolver

REPO = Path(__file__).resolve().parent.parent


def _run(*args: str) -> dict:
    result = CliRunner().invoke(cli(), list(args), catch_exceptions=False)
    return json.loads(result.stdout)  # notes (e.g. weights not checked against a published total) go to stderr


def _budgets(root: Path) -> dict[tuple[str, int], dict]:
    """(path, index in file) -> what `budget FILE` shows for that launch (None when it cannot size it)."""
    configs, resolver, out = ConfigCache(None), Resolver(ResolveOptions()), {}
    for path, skip in iter_files([str(root)]):
        if skip is not None:
            continue
        read = read_path(path)
        for i, (_, shown, _) in enumerate(file_budgets(read.deployments, configs.for_file(path), resolver)):
            out[(report_path(path), i)] = None if shown is None else shown  # as the JSON reports name it
    return out


def _agree(root: Path) -> int:
    check = _run("check", "--format", "json", "--exit-zero", str(root))
    inspect = _run("inspect", "--format", "json", str(root))
    seen = [(f["path"], d) for f in inspect["files"] for d in f["deployments"]]
    assert len(seen) == len(check["deployments"]) > 0
    budgets = _budgets(root)
    index: dict[str, int] = {}
    compared = 0
    for status, (path, dep) in zip(check["deployments"], seen, strict=True):
        assert status["path"] == path and status["model"] == dep["model"]
        r = dep["resolved"]
        assert (status["model_source"], status["gpu"], status["gpu_source"], status["engine_version"]) == \
            (dep["model_source"], r["gpu"], r["gpu_source"], r["engine_version"]), path
        assert status["capacity"] == r["capacity"] and status["skipped_because"] == r["skipped_because"], path
        i = index[path] = index.get(path, -1) + 1
        shown = budgets[(path, i)]
        assert (shown is not None) == (status["capacity"] == "evaluated"), (path, status["skipped_because"])
        if shown is None:
            continue
        b = shown.budget
        assert b.engine_version == r["modelled_release"], path
        if status["gpu_source"] == "catalogue":  # drawn on the smallest card that starts it
            assert shown.sweep is not None and status["passing_gpus"] == list(shown.sweep.passing)
            assert status["min_gpu_memory_bytes"] == shown.sweep.min_gpu_memory_bytes
        else:
            assert (b.kv_tokens, round(b.max_concurrency, 2), b.fits_one_request) == \
                (status["kv_tokens"], status["max_concurrency"], status["fits_one_request"]), path
        compared += 1
    return compared


def test_check_budget_and_inspect_agree_on_the_examples():
    assert _agree(REPO / "examples") >= 10


def test_check_budget_and_inspect_agree_on_the_corpus(shared_dir):
    assert _agree(shared_dir / "corpus") >= 40
