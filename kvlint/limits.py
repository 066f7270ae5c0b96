"""Per-file limits on a reader's work: a time budget and an allowance of text made by expansion.

A pre-commit hook that hangs on one odd file blocks a commit, so reading one file is bounded twice:
- time: `check()` raises LimitExceeded once the file's budget (FILE_SECONDS, or KVLINT_FILE_SECONDS
  in the environment; 0 turns it off) has run out;
- expansion: `spend(n)` charges n characters of text that variable expansion adds (`A=$A$A` doubles
  per line, Kubernetes `$(A)$(A)` too), raising once a file has made EXPANDED_CHARS of them.
`kvlint.launches.read` opens `file_limits()` around reading one file and turns LimitExceeded into a
KV001 finding for that file; the run goes on with the next one. Outside `file_limits()` both calls
do nothing, so library callers and other commands never see the exception.

Why cooperative checks rather than SIGALRM: a signal can only stop Python bytecode, not the C parts
(libyaml's composer, `re`), so those must be linear anyway, and it would fire anywhere: inside a
shared cache being filled (flag tables, model resolution), off the main thread not at all, on
Windows never, and it would take over a timer that a host (pytest-timeout, an embedding tool) may
own. Checks placed in the readers' loops stop at known safe points, behave the same on every
platform and thread, and cost a clock read per loop step (a few hundred nanoseconds).

The clock is the reading thread's CPU time, not the wall clock: a busy machine (a laptop compiling, a CI
runner with two jobs, kvlint's own --jobs workers) must not turn a file that takes 0.4 s into a KV001 and
change the report; a file that really spins is stopped after the same amount of work everywhere.
The garbage collector's passes are not the file's work and are refunded (through `gc.callbacks`): a
gen-2 pass walks every object the process holds, so its cost depends on what ran before (a long test
session, a big run), not on the file. And `kvlint check` gives a file's rules an allowance of their own
once its read is done (`renew()`): a real file with many launches (kubeai's model catalogue has 32, each
swept over releases) is not cut short by what its read spent, and a hostile file still stops within
twice the budget.

LimitExceeded derives from BaseException, as asyncio's CancelledError does, so a reader's
`except Exception` can never swallow it and go on with half a file.
"""

from __future__ import annotations

import gc
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from kvlint.record import record

FILE_SECONDS = 1.0  # far above what a real manifest takes; a hook must not hang on a generated file
EXPANDED_CHARS = 2_000_000  # text expansion may add per file (real files: a few kilobytes)
SECONDS_VARIABLE = "KVLINT_FILE_SECONDS"


class LimitExceeded(BaseException):
    """A file used up its time budget or its expansion allowance; `reason` says which, for KV001."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


@record(frozen=False)
class _Allowance:
    deadline: float  # time.thread_time() value; float("inf") when the time budget is off
    seconds: float
    chars: int
    chars_left: int
    checks: int = 0  # calls to check(): the clock is read on every CLOCK_EVERY-th
    gc_started: float = -1.0  # thread_time() when a collector pass began inside this allowance


CLOCK_EVERY = 8  # a check is a few microseconds of work apart; reading the CPU clock is a system call
_current: ContextVar[_Allowance | None] = ContextVar("kvlint_file_limits", default=None)


def file_seconds() -> float:
    """The per-file budget: KVLINT_FILE_SECONDS when set to a number (0 or less: no limit), else FILE_SECONDS."""
    text = os.environ.get(SECONDS_VARIABLE, "").strip()
    try:
        return float(text) if text else FILE_SECONDS
    except ValueError:
        return FILE_SECONDS


@contextmanager
def file_limits(seconds: float | None = None, expanded_chars: int = EXPANDED_CHARS) -> Iterator[None]:
    """Bound the work inside the block; nested blocks (a --config file read for a launch) share the outer one."""
    if _current.get() is not None:
        yield
        return
    budget = file_seconds() if seconds is None else seconds
    deadline = time.thread_time() + budget if budget > 0 else float("inf")
    token = _current.set(_Allowance(deadline, budget, expanded_chars, expanded_chars))
    try:
        yield
    finally:
        _current.reset(token)


def renew() -> None:
    """Start a fresh budget of the same size for the current file's next stage (its rules; see above)."""
    allowance = _current.get()
    if allowance is not None and allowance.seconds > 0:
        allowance.deadline = time.thread_time() + allowance.seconds


def _refund_collection(phase: str, _info: dict[str, int]) -> None:
    """gc.callbacks hook: move the deadline on by the collector's pass (process housekeeping, not the file)."""
    allowance = _current.get()
    if allowance is None:
        return
    if phase == "start":
        allowance.gc_started = time.thread_time()
    elif allowance.gc_started >= 0:
        allowance.deadline += time.thread_time() - allowance.gc_started
        allowance.gc_started = -1.0


if _refund_collection not in gc.callbacks:  # a module reload must not install it twice
    gc.callbacks.append(_refund_collection)


def check() -> None:
    """Raise LimitExceeded when the current file's time budget has run out (a no-op outside file_limits)."""
    allowance = _current.get()
    if allowance is None:
        return
    allowance.checks += 1
    if allowance.checks % CLOCK_EVERY == 0 and time.thread_time() > allowance.deadline:
        raise LimitExceeded(f"reading this file took over {allowance.seconds:g} s of CPU, kvlint's per-file time "
                            f"budget (generated or hostile input?); not read (set {SECONDS_VARIABLE} to allow more)")


def spend(chars: int) -> None:
    """Charge `chars` characters of expanded text to the current file; raise when its allowance is used up."""
    allowance = _current.get()
    if allowance is None or chars <= 0:
        return
    allowance.chars_left -= chars
    if allowance.chars_left < 0:
        raise LimitExceeded(f"variable expansion makes over {allowance.chars:,} characters of text in this file "
                            "(a value built from itself, line after line?); not read")
