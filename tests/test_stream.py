"""The streamed report (kvlint.lint.Run, report.stream_chunks): the same bytes as the report made from the
whole result, with memory that does not keep the run's findings.

`kvlint check` writes text and GitHub reports to stdout as each file is checked, unless a baseline is in
play (it needs every finding); the other formats are documents written whole. Both paths must agree, on
the examples, on the corpus and with worker processes."""

from __future__ import annotations

from pathlib import Path

import pytest

import kvlint.lint
from kvlint.cli import main
from kvlint.lint import Run, collect, exit_code, fail_threshold
from kvlint.report import render, stream_chunks, streams

REPO = Path(__file__).resolve().parent.parent


def _both(target: str, fmt: str, jobs: int = 1) -> tuple[str, str]:
    whole = render(fmt, collect(Run([target], jobs=jobs)))
    streamed = "".join(stream_chunks(fmt, Run([target], jobs=jobs)))
    return whole, streamed


@pytest.fixture(autouse=True)
def _offline(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    # these tests compare two runs of the corpus; the per-file CPU budget is tested in test_lint_limits, and
    # a file near it on a slow runner must not make the two runs differ (it did once, in CI, on kubeai)
    monkeypatch.setenv("KVLINT_FILE_SECONDS", "30")
    monkeypatch.chdir(REPO)


@pytest.mark.parametrize("fmt", ["text", "github"])
def test_examples_stream_same_bytes(fmt):
    whole, streamed = _both("examples/", fmt)
    assert streamed == whole
    assert "KV101" in whole


@pytest.mark.parametrize("fmt", ["text", "github"])
def test_corpus_stream_same_bytes(shared_dir, fmt):
    whole, streamed = _both(str(shared_dir / "corpus"), fmt)
    assert streamed == whole
    assert whole.count("KV1") > 10


def test_stream_with_workers(shared_dir, monkeypatch):
    monkeypatch.setattr(kvlint.lint, "MIN_FILES_PER_JOB", 1)
    whole, _ = _both(str(shared_dir / "corpus"), "text")
    _, streamed = _both(str(shared_dir / "corpus"), "text", jobs=2)
    assert streamed == whole


def test_totals_agree_with_the_result(shared_dir):
    """Exit code, summary counts and notes come from the totals when the findings are not kept."""
    corpus = str(shared_dir / "corpus")
    result = collect(Run([corpus]))
    run = Run([corpus])
    for _ in run.reports():
        pass
    t = run.totals
    assert t.findings == len(result.findings) > 0
    assert (t.files, t.deployments, t.suppressed) == (result.files, result.deployments, result.suppressed)
    assert t.notes == result.notes and t.unreadable == result.unreadable
    assert t.capacity.summary()["launches"] == len(result.launches)
    for fail_on in ("error", "warning", "info"):
        assert exit_code(t, fail_threshold(fail_on, t)) == exit_code(result, fail_threshold(fail_on, result))


def test_reports_come_in_walk_order_and_are_released(tmp_path):
    """Each file's report is made when its turn comes: nothing is held back to the end of the run."""
    for name in ("b.yaml", "a/x.yaml", "a-c/y.yaml", "a.yaml"):
        path = tmp_path / name
        path.parent.mkdir(exist_ok=True)
        path.write_text((REPO / "examples/kubernetes/bad-deployment.yaml").read_text())
    run = Run([str(tmp_path)])
    seen = [Path(r.path).relative_to(tmp_path).as_posix() for r in run.reports()]
    assert seen == ["a-c/y.yaml", "a.yaml", "a/x.yaml", "b.yaml"]  # the order of the path strings
    assert run.totals.findings > 0


def test_check_streams_text_and_keeps_exit_code(shared_dir, capsys):
    corpus = str(shared_dir / "corpus")
    code = main(["check", corpus, "--jobs", "1"])
    out = capsys.readouterr().out
    assert code == 1 and out == render("text", collect(Run([corpus])))


def test_document_formats_do_not_stream():
    assert streams("text") and streams("github")
    assert not any(streams(f) for f in ("json", "sarif", "gitlab", "html"))


def test_a_file_report_is_not_kept_by_the_run(shared_dir):
    """Memory flat in the number of files: once written, a file's findings belong to nobody."""
    import gc
    import weakref

    run = Run([str(shared_dir / "corpus")])
    gone = [weakref.ref(report) for report in run.reports()]
    gc.collect()
    assert len(gone) > 50 and all(ref() is None for ref in gone)
