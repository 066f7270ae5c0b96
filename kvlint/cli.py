"""The `kvlint` command: a thin click group whose subcommands live in kvlint.commands.

Subcommands are imported only when invoked, so `kvlint check` in pre-commit never pays for the
planner or the log parser (and jsonschema / huggingface_hub load only where a run needs them), and a
plain `kvlint check` command line is read without click at all (kvlint.commands.options).
"""

from __future__ import annotations

import contextlib
import importlib
import os
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, NoReturn

from kvlint.errors import KvlintError
from kvlint.redact import redact_text

if TYPE_CHECKING:
    import click

# name -> (module, attribute, one-line help)
COMMANDS = {
    "check": ("kvlint.commands.check", "command", "Lint deployment files (the pre-commit hook)."),
    "inspect": ("kvlint.commands.inspect", "command",
                "Show every engine instance found and where each setting came from."),
    "budget": ("kvlint.commands.budget", "command",
               "Show where every GiB of the GPU goes for one engine command line."),
    "verify": ("kvlint.commands.verify", "command", "Compare a prediction with a real engine startup log."),
    "plan": ("kvlint.commands.plan", "command", "Rank GPU / parallelism / precision options that hold a target."),
    "models": ("kvlint.commands.models", "group", "Model configs offline: `models lock` (kvlint.lock), `models pull`."),
    "rules": ("kvlint.commands.rules", "rules_command", "List the rule catalogue."),
    "rule": ("kvlint.commands.rules", "rule_command", "Show one rule's documentation."),
}


def entry(argv: list[str] | None = None) -> NoReturn:
    """The console script and `python -m kvlint`: `main`, then the process ends without the interpreter's
    teardown, which frees every module and object one by one: a sizeable part of a one-file run, and
    the part of a pre-commit hook no one waits for on purpose. What a normal exit does that matters still happens:
    atexit handlers run (multiprocessing's, logging's, any a caller registered) and stdout and stderr are
    flushed. With another thread alive, or on an interpreter without the atexit runner, the exit is the
    normal one (it joins threads)."""
    try:
        code = main(argv)
    except KeyboardInterrupt:  # a second Ctrl-C while the first was being reported
        code = INTERRUPTED
    _end(code)


def _end(code: int) -> NoReturn:
    import atexit

    threading = sys.modules.get("threading")
    run_exit_functions = getattr(atexit, "_run_exitfuncs", None)
    if run_exit_functions is None or (threading is not None and threading.active_count() > 1):
        sys.exit(code)
    run_exit_functions()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # a closed pipe or stream: nothing more can reach it
            stream.flush()
    os._exit(code)


def main(argv: list[str] | None = None) -> int:
    """Entry point: user errors become one line on stderr and exit 2 (3 for unreadable input).

    A plain `kvlint check ...` (the pre-commit hook's command line) runs without importing click;
    every other command line, and any `check` one that is not plain, goes through click.
    """
    args = sys.argv[1:] if argv is None else list(argv)
    _collect_less_often()
    return _guarded(lambda: _run(args))


GC_THRESHOLDS = (10_000, 10, 10)  # first generation: 10,000 net allocations, not 700


def _collect_less_often() -> None:
    """A run allocates its tables and records once and keeps them; the collector's default (a pass every
    700 net allocations) keeps walking them while they are not garbage: 1.4% of a one-file run's
    instructions. Reference cycles are still collected, less often. mypy sets 200,000; here that let a
    10,000-file run's parent grow from 36 to 60 MB, while 10,000 keeps it at 36 MB."""
    import gc

    if gc.get_threshold()[0] < GC_THRESHOLDS[0]:
        gc.set_threshold(*GC_THRESHOLDS)


def _run(args: list[str]) -> int:
    if args[:1] == ["check"]:
        from kvlint.commands import check

        params = check.parse(args[1:])
        if params is not None:
            _freeze_loaded()
            return check.run(**params)
    return _click_main(args)


def _freeze_loaded() -> None:
    """Move what is loaded so far (the modules, their tables and patterns: never garbage) out of the collector's
    walks: every later pass skips them (gc.freeze). Measured on the 1,000-file bench: 21 M instructions fewer
    (bench/speed.md, turns 45 and 46); forked workers also share those pages untouched."""
    import gc

    if gc.get_freeze_count() == 0:  # once a process (a test session calls main many times: its garbage stays free)
        gc.freeze()


def _click_main(args: list[str]) -> int:
    """The click group's run; click's own errors print as click prints them, exit 2."""
    import click

    try:
        rv = cli().main(args=args, prog_name="kvlint", standalone_mode=False)
    except click.exceptions.Abort as exc:
        if isinstance(exc.__context__, KeyboardInterrupt):  # click's own wrapping of Ctrl-C
            raise KeyboardInterrupt from None
        _say("kvlint: aborted")
        return 2
    except click.ClickException as exc:
        exc.show()
        return 2
    return int(rv or 0)


def _guarded(run: Callable[[], int]) -> int:
    """`run()`, with errors as one line on stderr: a KvlintError its own exit code, anything else 2."""
    try:
        return run()
    except KvlintError as exc:
        _say(redact_text(f"kvlint: error: {exc}"))
        return exc.exit_code
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:  # Ctrl-C: one line and the shell's 128 + SIGINT, never a traceback
        _say("kvlint: interrupted")
        return INTERRUPTED
    except Exception as exc:
        if os.environ.get("KVLINT_DEBUG"):
            raise
        said = redact_text(f"kvlint: internal error: {type(exc).__name__}: {exc}")
        _say(said + " (set KVLINT_DEBUG=1 for the traceback; please report it)")
        return 2


INTERRUPTED = 130


def _say(line: str) -> None:
    from kvlint.commands import write
    from kvlint.printable import printable

    write(sys.stderr, printable(line) + "\n")


def cli() -> click.Group:
    """The click group (made once): subcommands are imported only when invoked, so a run never pays for
    the planner or the log parser (and jsonschema / huggingface_hub load only where a run needs them)."""
    global _GROUP
    if _GROUP is None:
        _GROUP = _make_group()
    return _GROUP


_GROUP: click.Group | None = None


def _make_group() -> click.Group:
    import click

    from kvlint import __version__

    class LazyGroup(click.Group):
        def list_commands(self, ctx: click.Context) -> list[str]:
            return list(COMMANDS)

        def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
            if name not in COMMANDS:
                return None
            module, attr, _ = COMMANDS[name]
            command: click.Command = getattr(importlib.import_module(module), attr)
            return command

        def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
            rows = [(name, help_) for name, (_, _, help_) in COMMANDS.items()]
            with formatter.section("Commands"):
                formatter.write_dl(rows)

    @click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
    @click.version_option(__version__, prog_name="kvlint")
    def group() -> None:
        """kvlint: will this vLLM / SGLang deployment start, and how many requests does it hold?"""

    return group


if __name__ == "__main__":
    sys.exit(main())
