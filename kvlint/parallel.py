"""`kvlint check --jobs N`: files checked in N worker processes, their outcomes handed back in walk order.

Where the platform forks (Linux), the parent first loads what every worker needs (readers, flag
tables, the GPU catalogue, the model registry index, release records, rules) and forks afterwards,
so no worker pays for start-up and the tables exist once in memory (copy on write). Elsewhere the
workers are spawned and load them themselves. Each worker keeps one Resolver for the files it is
given, so a model or a budget is resolved at most once per worker; files go out in contiguous
chunks, so a folder's launches, which repeat one another, mostly meet the same worker's memo.

Workers return a FileOutcome per file (kvlint.lint); kvlint.lint folds them in walk order, so the
result, and every report, is the same as a serial run's. Budgets and sweeps are shared objects in a
worker (its resolver memoises them) and a repository repeats them across files, so each is sent once
per worker and referred to afterwards (`_Sender` / `_Receiver`): the parent holds one copy of each, not
one per launch, and a large run's memory stays flat.
"""

from __future__ import annotations

import io
import multiprocessing
import os
import pickle
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from kvlint.config import Config
    from kvlint.lint import FileOutcome, LintOptions
    from kvlint.resolve import Resolver

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
    from kvlint.flags.flag_table import flag_table
    from kvlint.gpus import all_gpus
    from kvlint.launches import compose, helm, k8s, shellfile, skypilot, vllm_config  # noqa: F401
    from kvlint.memory.nonkv import coefficients
    from kvlint.memory.versions import sglang_version, vllm_version
    from kvlint.models.resolve import alias_ids, lookup_registry
    from kvlint.registry import all_rules

    for engine in all_engines():
        flag_table(engine.name)
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


def _context() -> Any:
    """fork where it is safe and cheap (Linux); spawn elsewhere (macOS and Windows default to it)."""
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("fork" if sys.platform.startswith("linux") and "fork" in methods else "spawn")


def lint_in_workers(tasks: list[Any], options: LintOptions, jobs: int) -> Iterator[FileOutcome]:
    """Each task's FileOutcome, in the order of `tasks` (objects with .path and .config)."""
    ctx = _context()
    if ctx.get_start_method() == "fork":
        warm()
    chunk = max(1, min(CHUNK_MAX, len(tasks) // (jobs * 4)))
    receiver = _Receiver()
    with ctx.Pool(jobs, initializer=_start, initargs=(options,)) as pool:
        for data in pool.imap(_check, [(t.path, t.config) for t in tasks], chunksize=chunk):
            yield receiver.loads(data)
