"""The `kvlint` command: a thin click group whose subcommands live in kvlint.commands.

Subcommands are imported only when invoked, so `kvlint check` in pre-commit never pays for the
planner or the log parser (and jsonschema / huggingface_hub load only where a run needs them).
"""

from __future__ import annotations

import importlib
import os
import sys

import click

from kvlint import __version__
from kvlint.errors import KvlintError
from kvlint.redact import redact_text

# name -> (module, attribute, one-line help)
COMMANDS = {
    "check": ("kvlint.commands.check", "command", "Lint deployment files (the pre-commit hook)."),
    "inspect": ("kvlint.commands.inspect", "command",
                "Show every engine instance found and where each setting came from."),
    "budget": ("kvlint.commands.budget", "command",
               "Show where every GiB of the GPU goes for one engine command line."),
    "verify": ("kvlint.commands.verify", "command", "Compare a prediction with a real engine startup log."),
    "plan": ("kvlint.commands.plan", "command", "Rank GPU / parallelism / precision options that hold a target."),
    "models": ("kvlint.commands.models", "group", "Fetch the configs of models not known offline (`models pull`)."),
    "rules": ("kvlint.commands.rules", "rules_command", "List the rule catalogue."),
    "rule": ("kvlint.commands.rules", "rule_command", "Show one rule's documentation."),
}


class LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name not in COMMANDS:
            return None
        module, attr, _ = COMMANDS[name]
        return getattr(importlib.import_module(module), attr)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(name, help_) for name, (_, _, help_) in COMMANDS.items()]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="kvlint")
def cli() -> None:
    """kvlint: will this vLLM / SGLang deployment start, and how many requests does it hold?"""


def main(argv: list[str] | None = None) -> int:
    """Entry point: user errors become one line on stderr and exit 2 (3 for unreadable input)."""
    try:
        rv = cli.main(args=argv, prog_name="kvlint", standalone_mode=False)
    except KvlintError as exc:
        click.echo(redact_text(f"kvlint: error: {exc}"), err=True)
        return exc.exit_code
    except click.exceptions.Abort:
        click.echo("kvlint: aborted", err=True)
        return 2
    except click.ClickException as exc:
        exc.show()
        return 2
    except BrokenPipeError:
        return 0
    except Exception as exc:
        if os.environ.get("KVLINT_DEBUG"):
            raise
        said = redact_text(f"kvlint: internal error: {type(exc).__name__}: {exc}")
        click.echo(said + " (set KVLINT_DEBUG=1 for the traceback; please report it)", err=True)
        return 2
    return int(rv or 0)


if __name__ == "__main__":
    sys.exit(main())
