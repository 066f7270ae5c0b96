"""`kvlint check --jobs N` (kvlint.parallel): the report is the same bytes for any N, in every format.

The once-per-run KV003 note, the notes, launch statuses, code frames and baseline subjects are all
made while folding worker outcomes in walk order; these tests compare whole reports of a serial and a
parallel run on examples/ and on ../shared/corpus, and check that the parallel run really used workers.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import kvlint.lint
import kvlint.parallel
from kvlint.cli import main

REPO = Path(__file__).resolve().parent.parent
FORMATS = ("text", "json", "sarif", "github")


@pytest.fixture
def counted(monkeypatch):
    """Counts the runs that went through worker processes (the real pool; only the call is counted)."""
    calls: list[int] = []
    real = kvlint.parallel.lint_in_workers

    def wrapper(tasks, options, jobs):
        calls.append(jobs)
        yield from real(tasks, options, jobs)

    monkeypatch.setattr(kvlint.parallel, "lint_in_workers", wrapper)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.chdir(REPO)
    return calls


def _report(tmp_path: Path, target: str, fmt: str, jobs: int) -> bytes:
    out = tmp_path / f"{fmt}-{jobs}.out"
    code = main(["check", target, "--format", fmt, "--jobs", str(jobs), "--exit-zero", "--output", str(out)])
    assert code == 0
    return out.read_bytes()


@pytest.mark.parametrize("fmt", FORMATS)
def test_examples_same_bytes_with_workers(tmp_path, counted, monkeypatch, fmt):
    monkeypatch.setattr(kvlint.lint, "MIN_FILES_PER_JOB", 1)  # examples/ has too few files to fork for
    serial = _report(tmp_path, "examples/", fmt, 1)
    parallel = _report(tmp_path, "examples/", fmt, 2)
    assert counted == [2]
    assert parallel == serial
    assert b"KV101" in serial  # the comparison is over a report with findings in it


@pytest.mark.parametrize("fmt", FORMATS)
def test_corpus_same_bytes_with_workers(tmp_path, counted, shared_dir, fmt):
    corpus = str(shared_dir / "corpus")
    serial = _report(tmp_path, corpus, fmt, 1)
    for jobs in (2, 3):
        assert _report(tmp_path, corpus, fmt, jobs) == serial, jobs
    assert counted == [2, 3]


def test_kv003_note_once_whichever_worker_meets_it(tmp_path, counted, monkeypatch):
    """Launches with no GPU named in many files: one KV003 note, on the first such launch in walk order."""
    monkeypatch.setattr(kvlint.lint, "MIN_FILES_PER_JOB", 1)
    for i in range(12):
        (tmp_path / f"d{i:02}.sh").write_text("vllm serve Qwen/Qwen3-8B --max-num-seqs 4\n")
    result = kvlint.lint.lint([str(tmp_path)], jobs=2)
    notes = [f for f in result.findings if f.code == "KV003"]
    assert counted == [2]
    assert len(notes) == 1 and notes[0].span is not None and notes[0].span.path.endswith("d00.sh")
    assert result.no_gpu_noted and len(result.launches) == 12


def test_few_files_stay_in_process(tmp_path, counted):
    (tmp_path / "a.sh").write_text("vllm serve Qwen/Qwen3-8B\n")
    result = kvlint.lint.lint([str(tmp_path)], jobs=4)
    assert counted == [] and result.deployments == 1


def test_default_jobs_is_the_usable_cores():
    assert 1 <= kvlint.lint.default_jobs() <= (os.cpu_count() or 1)


def test_shared_tables_restart_without_changing_the_report(tmp_path, counted, shared_dir, monkeypatch):
    """Workers start new string/object tables past a bound (memory flat over any number of files); the
    parent follows, and the report is still the serial run's bytes."""
    monkeypatch.setattr(kvlint.parallel._Sender, "limit", 5)  # a reset every few files
    corpus = str(shared_dir / "corpus")
    serial = _report(tmp_path, corpus, "json", 1)
    assert _report(tmp_path, corpus, "json", 2) == serial
    assert counted == [2]


def test_sender_resets_past_its_limit():
    sender = kvlint.parallel._Sender()
    sender.limit = 2
    receiver = kvlint.parallel._Receiver()
    outcome = kvlint.lint.FileOutcome("a/b.yaml", notes=["one note", "two notes", "three notes"])
    flags, sizes = [], []
    for _ in range(3):
        message = sender.dumps(outcome)
        flags.append(message[1])
        sizes.append(len(sender.strings))
        assert receiver.loads(message) == outcome
    assert flags == [False, True, True] and sizes[0] > 2  # the tables restarted: one message's worth each time
    assert sizes == [sizes[0]] * 3 and len(receiver.strings[sender.pid]) == sizes[0]
