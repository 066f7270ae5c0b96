"""`kvlint check --jobs N` (kvlint.parallel): the report is the same bytes for any N, in every format.

The once-per-run KV003 note, the notes, launch statuses, code frames and baseline subjects are all
made while folding worker outcomes in walk order; these tests compare whole reports of a serial and a
parallel run on examples/ and on ../shared/corpus, and check that the parallel run really used workers.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
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


@pytest.fixture
def redone(monkeypatch):
    """The chunks the parent had to check itself because their worker was gone."""
    chunks: list[int] = []
    real = kvlint.parallel._Pool._redo

    def wrapper(self, index):
        chunks.append(index)
        return real(self, index)

    monkeypatch.setattr(kvlint.parallel._Pool, "_redo", wrapper)
    return chunks


def _report(tmp_path: Path, target: str, fmt: str, jobs: int) -> bytes:
    out = tmp_path / f"{fmt}-{jobs}.out"
    code = main(["check", target, "--format", fmt, "--jobs", str(jobs), "--exit-zero", "--output", str(out)])
    assert code == 0
    return out.read_bytes()


@pytest.mark.parametrize("fmt", FORMATS)
def test_examples_same_bytes_with_workers(tmp_path, counted, redone, monkeypatch, fmt):
    monkeypatch.setattr(kvlint.lint, "MIN_FILES_PER_JOB", 1)  # examples/ has too few files to fork for
    serial = _report(tmp_path, "examples/", fmt, 1)
    parallel = _report(tmp_path, "examples/", fmt, 2)
    assert counted == [2] and redone == []
    assert parallel == serial
    assert b"KV101" in serial  # the comparison is over a report with findings in it


@pytest.mark.parametrize("fmt", FORMATS)
def test_corpus_same_bytes_with_workers(tmp_path, counted, redone, shared_dir, fmt, monkeypatch):
    monkeypatch.setenv("KVLINT_FILE_SECONDS", "30")  # the subject is equality; test_lint_limits tests the budget
    corpus = str(shared_dir / "corpus")
    serial = _report(tmp_path, corpus, fmt, 1)
    for jobs in (2, 3):
        assert _report(tmp_path, corpus, fmt, jobs) == serial, jobs
    assert counted == [2, 3] and redone == []


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


# ---------------------------------------------------------------- what workers share, and workers that fail


def _launches(tmp_path: Path, count: int) -> None:
    """Files that repeat two launches with no GPU named: each one a catalogue sweep (~50 budgets)."""
    for i in range(count):
        model = "Qwen/Qwen3-8B" if i % 2 else "meta-llama/Llama-3.1-8B-Instruct"
        (tmp_path / f"d{i:02}.sh").write_text(f"vllm serve {model} --max-model-len 8192 --max-num-seqs 4\n")


def _outcomes(tmp_path: Path, resolver):
    from kvlint.config import Config
    from kvlint.lint import LintOptions, lint_file

    return [lint_file(str(p), Config(), LintOptions(), resolver) for p in sorted(tmp_path.iterdir())]


def test_a_worker_reuses_what_another_sized(tmp_path, monkeypatch):
    """Entries a worker computed reach another as they were: the second computes nothing, its outcomes are
    equal, and what it adopted it does not send on as its own."""
    import kvlint.resolve.sizing
    import kvlint.resolve.sweep
    from kvlint.resolve import Resolver

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    _launches(tmp_path, 4)
    first, second = Resolver(), Resolver()
    one, two = kvlint.parallel._Shared(first.budgets), kvlint.parallel._Shared(second.budgets)
    expected = _outcomes(tmp_path, first)
    blob = one.take()
    assert blob is not None and one.take() is None  # taken once
    outcomes, sweeps = __import__("pickle").loads(blob)
    assert len(sweeps) == 2  # one sweep per distinct launch

    def refuse(*args, **kwargs):
        raise AssertionError("sized again")

    two.adopt([blob])
    monkeypatch.setattr(kvlint.resolve.sizing, "compute", refuse)
    monkeypatch.setattr(kvlint.resolve.sweep, "_sweep", refuse)
    assert _outcomes(tmp_path, second) == expected
    assert two.take() is None


def test_an_unreadable_entry_is_skipped_not_fatal():
    from kvlint.resolve.sizing import BudgetCache

    shared = kvlint.parallel._Shared(BudgetCache())
    shared.adopt([b"not a pickle"])
    assert not shared.cache.outcomes and not shared.cache.sweeps


def test_adopted_entries_keep_the_memo_bounded():
    from kvlint.resolve.sizing import BudgetCache

    cache = BudgetCache(bound=32)
    cache.adopt([((i,), None) for i in range(100)], [((i,), None) for i in range(100)])  # type: ignore[misc]
    assert len(cache.outcomes) <= 32 and len(cache.sweeps) <= cache.sweep_bound == 2


def test_a_worker_that_dies_costs_time_not_files(tmp_path, counted, redone, monkeypatch):
    """A worker killed mid-run (out of memory, a signal): its chunk is checked in the parent, the report is whole."""
    monkeypatch.setattr(kvlint.lint, "MIN_FILES_PER_JOB", 1)
    _launches(tmp_path, 12)  # one file per chunk: 12 files are too few to batch for 2 workers
    serial = kvlint.lint.lint([str(tmp_path)], jobs=1)
    real = kvlint.parallel._check

    def dying(task):
        if task[0].endswith("d05.sh"):
            os._exit(1)
        return real(task)

    monkeypatch.setattr(kvlint.parallel, "_check", dying)  # inherited by the forked workers
    result = kvlint.lint.lint([str(tmp_path)], jobs=2)
    assert counted == [2] and redone == [5]  # d05's chunk, and only it
    assert result.findings == serial.findings and result.launches == serial.launches and len(result.launches) == 12


def test_a_bug_in_a_worker_surfaces_in_the_parent_without_a_worker_traceback(tmp_path, counted, monkeypatch, capfd):
    """A worker ends quietly; the parent checks the chunk itself and meets the bug as a serial run would."""
    monkeypatch.setattr(kvlint.lint, "MIN_FILES_PER_JOB", 1)
    _launches(tmp_path, 8)

    def broken(*args, **kwargs):
        raise RuntimeError("a bug")

    monkeypatch.setattr(kvlint.lint, "lint_file", broken)
    with pytest.raises(RuntimeError, match="a bug"):
        kvlint.lint.lint([str(tmp_path)], jobs=2)
    assert "Traceback" not in capfd.readouterr().err


def test_spawned_workers_give_the_same_report(tmp_path, counted, redone, monkeypatch):
    """Where the platform does not fork (macOS, Windows), workers start fresh and load the tables themselves."""
    import multiprocessing

    monkeypatch.setattr(kvlint.lint, "MIN_FILES_PER_JOB", 1)
    serial = _report(tmp_path, "examples/", "json", 1)
    monkeypatch.setattr(kvlint.parallel, "_context", lambda: multiprocessing.get_context("spawn"))
    assert _report(tmp_path, "examples/", "json", 2) == serial
    assert counted == [2] and redone == []  # the workers did the work


def test_a_run_stopped_early_stops_its_workers_at_once(tmp_path, monkeypatch):
    """The report's reader goes away (or Ctrl-C) after the first file: no worker is left running or waited on."""
    import time

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    _launches(tmp_path, 40)
    from kvlint.config import Config

    tasks = [kvlint.lint._Task(str(p), Config()) for p in sorted(tmp_path.iterdir())]
    made: list = []
    real = kvlint.parallel._Pool.__init__

    def keep(self, *args, **kwargs):
        real(self, *args, **kwargs)
        made.append(self)

    monkeypatch.setattr(kvlint.parallel._Pool, "__init__", keep)
    real_check = kvlint.parallel._check

    done = tmp_path.parent / f"{tmp_path.name}-done"
    done.mkdir()

    def slow_after_the_first_chunk(task):  # inherited by the forked workers
        if not task[0].endswith(("d00.sh", "d01.sh", "d02.sh", "d03.sh", "d04.sh")):
            time.sleep(0.5)
            (done / os.path.basename(task[0])).touch()  # a slow task finished
        return real_check(task)

    monkeypatch.setattr(kvlint.parallel, "_check", slow_after_the_first_chunk)
    outcomes = kvlint.parallel.lint_in_workers(tasks, kvlint.lint.LintOptions(), 2)
    assert next(outcomes).path == tasks[0].path
    outcomes.close()
    assert made and all(not w.process.is_alive() for w in made[0].workers)
    # work, not time: a close that waited would have let the chunk in hand finish (5 slow tasks); the workers
    # ended mid-chunk, and nothing finishes after close returns
    finished = len(list(done.iterdir()))
    assert finished < 5
    time.sleep(0.6)
    assert len(list(done.iterdir())) == finished


def _children(pid: int) -> list[int]:
    """Live (not zombie) processes whose parent is pid, from /proc."""
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as fh:
                    fields = fh.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if fields[0] != "Z" and int(fields[1]) == pid:
                out.append(int(entry))
    return out


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc; the forked workers are Linux's")
@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM, signal.SIGHUP])
def test_workers_end_with_a_killed_parent(tmp_path, sig):
    """parent-killed-orphans.sh: the forked workers kept the parent's ends of their own pipes, so a parent killed
    mid-run left them blocked forever. Polled, with a bound far above the few milliseconds it takes."""
    for i in range(1500):
        (tmp_path / f"f{i}.sh").write_text(f"#!/bin/sh\nvllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len {40000 + i}\n")
    proc = subprocess.Popen([sys.executable, "-m", "kvlint", "check", "-j2", str(tmp_path)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    workers: list[int] = []
    for _ in range(600):
        workers = _children(proc.pid)
        if len(workers) == 2 or proc.poll() is not None:
            break
        time.sleep(0.05)
    assert proc.poll() is None and len(workers) == 2, "the run ended before its workers could be seen"
    proc.send_signal(sig)
    proc.wait(timeout=60)
    for _ in range(400):
        if not any(_alive(w) for w in workers):
            break
        time.sleep(0.05)
    left = [w for w in workers if _alive(w)]
    for w in left:
        os.kill(w, signal.SIGKILL)
    assert left == []
