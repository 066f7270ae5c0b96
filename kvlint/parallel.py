"""`kvlint check --jobs N`: files checked in N worker processes, their outcomes handed back in walk order.

Where the platform forks (Linux), the parent first loads what every worker needs (readers, flag
tables, the GPU catalogue, the model registry index, release records, rules) and forks afterwards,
so no worker pays for start-up and the tables exist once in memory (copy on write). Elsewhere the
workers are spawned and load them themselves.

Files go out in chunks, one chunk per worker at a time, the next to whichever worker is free (`_Pool`).
Each worker keeps one Resolver, so a model or a budget is resolved at most once per worker, and its
budget memo is shared (`_Shared`): the budgets and catalogue sweeps a worker computes go back with its
chunk's results, and the parent passes them to every other worker with its next chunk. A repository
repeats its launches across folders and a sweep is ~50 budgets, so without this every worker would size
what another already had (on a 1,000-file tree, 12% more instructions in all). A worker that dies (killed,
out of memory) or meets a bug ends quietly; the parent checks that chunk itself, so no file is lost
and a bug surfaces as it would in a serial run.

Workers return a FileOutcome per file (kvlint.lint); kvlint.lint folds them in walk order, so the
result, and every report, is the same as a serial run's. Budgets and sweeps are shared objects in a
worker (its resolver memoises them) and a repository repeats them across files, so each is sent once
per worker and referred to afterwards (`_Sender` / `_Receiver`): the parent holds one copy of each, not
one per launch, and a large run's memory stays flat.
"""

from __future__ import annotations

import contextlib
import io
import multiprocessing
import os
import pickle
import sys
from collections.abc import Iterator
from multiprocessing.connection import Connection, wait
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from kvlint.config import Config
    from kvlint.lint import FileOutcome, LintOptions
    from kvlint.resolve import Resolver
    from kvlint.resolve.sizing import BudgetCache

CHUNK_MAX = 32  # files per message: big enough to amortise the pickling, small enough to balance the load

_WORKER: tuple[LintOptions, Resolver, dict[tuple[str | None, str], Config], _Sender] | None = None


class _Sender:
    """Pickles outcomes in a worker; a string or a Budget / Sweep object already sent is sent as its number.

    Numbers are per worker and count up in the order objects were first sent; the parent reads a worker's
    messages in that order (its files come back in task order, and a worker takes tasks in order). The
    tables are bounded: past `limit` entries the next message starts new ones and says so (every file path
    is a new string, and a kept Budget outlives the memo that made it), so a worker's memory and the
    parent's stay flat over any number of files."""

    limit = 4096

    def __init__(self) -> None:
        from kvlint.budget import Budget
        from kvlint.status import Sweep

        self.shared = (Budget, Sweep)
        self.objects: dict[int, tuple[int, Any]] = {}  # id -> (number, object: kept so the id stays its own)
        self.strings: dict[str, int] = {}
        self.pid = os.getpid()

    def dumps(self, outcome: FileOutcome) -> tuple[int, bool, bytes]:
        fresh = len(self.strings) + len(self.objects) > self.limit
        if fresh:
            self.strings.clear()
            self.objects.clear()
        buf = io.BytesIO()
        pickler = pickle.Pickler(buf, protocol=pickle.HIGHEST_PROTOCOL)
        pickler.persistent_id = self._persistent_id  # type: ignore[method-assign]
        pickler.dump(outcome)
        return self.pid, fresh, buf.getvalue()

    def _persistent_id(self, obj: Any) -> Any:
        kind = type(obj)
        if kind is str:  # messages, fixes, GPU ids and names repeat across files: one string in the parent
            if len(obj) < 2:
                return None
            number = self.strings.get(obj)
            if number is not None:
                return number
            number = self.strings[obj] = len(self.strings)
            return ("s", number, obj.encode("utf-8", "surrogatepass"))  # bytes: not taken for a reference itself
        if kind not in self.shared:
            return None
        found = self.objects.get(id(obj))
        if found is not None:
            return ("o", found[0])
        number = len(self.objects)
        self.objects[id(obj)] = (number, obj)
        return ("o", number, pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL))


class _Receiver:
    """Unpickles outcomes in the parent, each worker's in the order it sent them."""

    def __init__(self) -> None:
        self.strings: dict[int, list[str]] = {}
        self.objects: dict[int, dict[int, Any]] = {}
        self._pid = 0

    def loads(self, message: tuple[int, bool, bytes]) -> FileOutcome:
        self._pid, fresh, data = message
        if fresh:  # the worker started new tables with this message
            self.strings.pop(self._pid, None)
            self.objects.pop(self._pid, None)
        unpickler = pickle.Unpickler(io.BytesIO(data))
        unpickler.persistent_load = self._persistent_load  # type: ignore[method-assign]
        outcome: FileOutcome = unpickler.load()
        return outcome

    def _persistent_load(self, ref: Any) -> Any:
        if type(ref) is int:
            return self.strings[self._pid][ref]
        if ref[0] == "s":
            text = ref[2].decode("utf-8", "surrogatepass")
            self.strings.setdefault(self._pid, []).append(text)
            return text
        objects = self.objects.setdefault(self._pid, {})
        if len(ref) == 3:
            objects[ref[1]] = pickle.loads(ref[2])
        return objects[ref[1]]


def warm() -> None:
    """Load, in this process, the modules and tables every file's check reads (forked workers inherit them)."""
    import kvlint.launches.read
    import kvlint.launches.yamlfile  # noqa: F401
    from kvlint import suppress  # noqa: F401
    from kvlint.engines import all_engines
    from kvlint.flags.flag_table import flag_table, servers
    from kvlint.gpus import all_gpus
    from kvlint.launches import compose, groups, helm, k8s, kinds, named, shellfile, skypilot, vllm_config  # noqa: F401
    from kvlint.memory.nonkv import coefficients
    from kvlint.memory.versions import sglang_version, vllm_version
    from kvlint.models.resolve import alias_ids, lookup_registry
    from kvlint.registry import all_rules

    for engine in all_engines():
        flag_table(engine.name)
        for server in servers(engine.name):  # read on every `sglang serve` launch (kvlint.flags.server)
            flag_table(engine.name, server)
        engine.release(None)
    all_gpus()
    vllm_version(None)
    sglang_version(None)
    coefficients()
    lookup_registry("meta-llama/Llama-3.1-8B-Instruct")  # builds the registry index
    alias_ids()
    all_rules()


def _start(options: LintOptions) -> None:
    global _WORKER
    from kvlint.resolve import Resolver

    _WORKER = (options, Resolver(options.resolve_options()), {}, _Sender())


def _check(task: tuple[str, Config]) -> tuple[int, bool, bytes]:
    from kvlint.lint import lint_file

    assert _WORKER is not None, "worker not started"
    options, resolver, configs, sender = _WORKER
    path, config = task
    config = configs.setdefault((config.path, config.root), config)  # one object per configuration per worker
    return sender.dumps(lint_file(path, config, options, resolver))


class _Journal(dict[Any, Any]):
    """A memo table that also lists what was computed into it since the last `take` (kvlint.resolve stores
    into it by subscript; entries adopted from other workers go in through dict's own method, unlisted)."""

    def __init__(self) -> None:
        super().__init__()
        self.fresh: list[tuple[Any, Any]] = []

    def __setitem__(self, key: Any, value: Any) -> None:
        dict.__setitem__(self, key, value)
        self.fresh.append((key, value))

    def take(self) -> list[tuple[Any, Any]]:
        fresh, self.fresh = self.fresh, []
        return fresh


class _Shared:
    """A worker's budget memo, shared with the other workers through the parent: what this worker computes
    leaves with its chunk's results, what the others computed arrives with its next chunk. A repository
    repeats launches across folders, and a catalogue sweep is ~50 budgets: without this every worker
    would size every launch the others had already sized."""

    def __init__(self, cache: BudgetCache) -> None:
        self.cache = cache
        self.outcomes = cache.outcomes = _Journal()
        self.sweeps = cache.sweeps = _Journal()

    def take(self) -> bytes | None:
        """This worker's new entries since the last call, pickled (None: none, or none that pickles)."""
        entries = (self.outcomes.take(), self.sweeps.take())
        if not entries[0] and not entries[1]:
            return None
        try:
            return pickle.dumps(entries, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception:  # noqa: BLE001 - an entry that does not pickle is recomputed where it is needed
            return None

    def adopt(self, blobs: list[bytes]) -> None:
        for blob in blobs:
            try:
                outcomes, sweeps = pickle.loads(blob)
            except Exception:  # noqa: BLE001 - what does not load is computed here when needed
                continue
            self.cache.adopt(outcomes, sweeps)


def _serve(conn: Connection, options: LintOptions, inherited: tuple[Connection, ...] = (),
           parent: int = 0) -> None:
    """A worker: chunks of tasks in, their messages and the worker's new memo entries out, until None.

    Any failure ends the worker quietly; the parent then checks that chunk itself, so a bug surfaces
    there exactly as in a serial run, and a killed worker costs time, not files."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle; it stops the workers
    for other in inherited:  # forked: the parent's ends of every pipe, this worker's own among them
        other.close()
    _die_with(parent)
    try:
        _start(options)
        assert _WORKER is not None
        shared = _Shared(_WORKER[1].budgets)
        while (job := conn.recv()) is not None:
            index, tasks, blobs = job
            shared.adopt(blobs)
            messages = [_check(task) for task in tasks]
            conn.send((index, messages, shared.take()))
    except BaseException:  # noqa: BLE001 - reported by the parent redoing the chunk, never as a traceback here
        pass
    finally:
        conn.close()


def _die_with(parent: int) -> None:
    """End this worker when the parent process ends (Linux: the kernel's parent-death signal), so a parent
    killed by SIGKILL, SIGTERM or SIGHUP leaves no worker behind; if the parent is already gone, end now."""
    if not parent or not sys.platform.startswith("linux"):
        return
    import ctypes
    import signal

    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG
    if os.getppid() != parent:
        os._exit(0)


class _Worker:
    def __init__(self, ctx: Any, options: LintOptions, others: tuple[Connection, ...] = ()) -> None:
        self.conn, theirs = ctx.Pipe()
        # A forked child holds copies of the parent's pipe ends, its own included: with them open it never
        # reads end-of-file or a broken pipe when the parent dies, and blocks forever. It closes them first.
        # (Spawned children inherit none, and a Connection passed to one would be duplicated into it.)
        forked = ctx.get_start_method() == "fork"
        inherited = (self.conn, *others) if forked else ()
        self.process = ctx.Process(target=_serve, args=(theirs, options, inherited, os.getpid()), daemon=True)
        self.process.start()
        theirs.close()
        self.inbox: list[bytes] = []  # other workers' memo entries, sent with this worker's next chunk
        self.chunk: int | None = None  # the chunk it is working on

    def give(self, index: int, tasks: list[tuple[str, Config]]) -> None:
        self.chunk = index
        self.conn.send((index, tasks, self.inbox))
        self.inbox = []


class _Pool:
    """`jobs` worker processes, one chunk each at a time; results come back in chunk order.

    Chunk i goes to whichever worker is free, so a slow file does not hold the others back; the memo
    entries a worker returns go to every other worker with its next chunk."""

    def __init__(self, ctx: Any, options: LintOptions, jobs: int, chunks: list[list[tuple[str, Config]]]) -> None:
        self.options, self.chunks = options, chunks
        self.workers: list[_Worker] = []
        for _ in range(min(jobs, len(chunks))):
            self.workers.append(_Worker(ctx, options, tuple(w.conn for w in self.workers)))
        self.queued = iter(range(len(chunks)))
        self.done: dict[int, list[Any]] = {}  # chunk -> its messages (or, redone here, its outcomes)
        self.here: set[int] = set()
        self._resolver: Resolver | None = None

    def results(self) -> Iterator[tuple[bool, list[Any]]]:
        """(from a worker, items) per chunk, in chunk order: messages from a worker, else FileOutcomes."""
        for worker in list(self.workers):
            self._next(worker)
        for index in range(len(self.chunks)):
            while index not in self.done:
                self._collect(block=True)
            yield index not in self.here, self.done.pop(index)

    def poll(self) -> None:
        """Take what finished workers sent and give them their next chunk, without waiting: called between
        the files the parent folds, so no worker waits on the report."""
        self._collect(block=False)

    def _collect(self, block: bool) -> None:
        busy = [w.conn for w in self.workers if w.chunk is not None]
        if not busy:  # every worker gone: the rest is checked here
            index = next(self.queued, None)
            if index is not None:
                self._redo(index)
            return
        for conn in wait(busy, timeout=None if block else 0):
            worker = next(w for w in self.workers if w.conn is conn)
            self._receive(worker)

    def _receive(self, worker: _Worker) -> None:
        index = worker.chunk
        assert index is not None
        try:
            got, messages, blob = worker.conn.recv()
        except (EOFError, OSError):  # the worker died: its chunk is checked here, the others go on
            self.workers.remove(worker)
            worker.conn.close()
            self._redo(index)
            return
        self.done[got] = messages
        if blob is not None:
            for other in self.workers:
                if other is not worker:
                    other.inbox.append(blob)
        self._next(worker)

    def _next(self, worker: _Worker) -> None:
        index = next(self.queued, None)
        worker.chunk = None
        if index is not None:
            try:
                worker.give(index, self.chunks[index])
            except OSError:  # gone before it could take the chunk
                self.workers.remove(worker)
                self._redo(index)

    def _redo(self, index: int) -> None:
        from kvlint.lint import lint_file
        from kvlint.resolve import Resolver

        if self._resolver is None:
            self._resolver = Resolver(self.options.resolve_options())
        self.here.add(index)
        resolver = self._resolver
        self.done[index] = [lint_file(path, config, self.options, resolver) for path, config in self.chunks[index]]

    def close(self, finished: bool) -> None:
        """Finished: each worker is told to stop and given a second to; otherwise (Ctrl-C, a reader that went
        away mid-report) they are stopped at once, not after the chunk they are on."""
        for worker in self.workers:
            with contextlib.suppress(OSError):
                worker.conn.send(None)
        for worker in self.workers:
            worker.process.join(timeout=1 if finished else 0)
            if worker.process.is_alive():
                worker.process.terminate()
                worker.process.join()
            worker.conn.close()


def _context() -> Any:
    """fork where it is safe and cheap (Linux); spawn elsewhere (macOS and Windows default to it)."""
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("fork" if sys.platform.startswith("linux") and "fork" in methods else "spawn")


def lint_in_workers(tasks: list[Any], options: LintOptions, jobs: int) -> Iterator[FileOutcome]:
    """Each task's FileOutcome, in the order of `tasks` (objects with .path and .config)."""
    ctx = _context()
    if ctx.get_start_method() == "fork":
        warm()
    size = max(1, min(CHUNK_MAX, len(tasks) // (jobs * 4)))
    pairs = [(t.path, t.config) for t in tasks]
    pool = _Pool(ctx, options, jobs, [pairs[i:i + size] for i in range(0, len(pairs), size)])
    receiver, finished = _Receiver(), False
    try:
        for remote, items in pool.results():
            for item in items:
                yield receiver.loads(item) if remote else item
                pool.poll()
        finished = True
    finally:
        pool.close(finished)
