"""A command's options as one table, parsed by click, or without click when the command line is plain.

Why: `kvlint check` is started once per pre-commit batch, and importing click is a visible part of a
one-file run. The options of `check` are declared once, here as data; click builds the
real command from the table (help, errors, every edge of its parsing), and `parse_plain` reads the
command lines pre-commit and CI actually write (known options, valid values) to the same parameters
click would give. Anything else (help, a typo, a bad value, a value that looks like an option, a
path click would refuse) makes `parse_plain` return None, and click parses it, so every error message
is click's. tests/commands/test_options.py checks both parsers agree, case by case.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from kvlint.record import record

# kinds: "text" (a string), "choice" (one of `choices`), "flag" (True when given), "multiple" (every
# value, a tuple), "path" (a file name: not a directory), "output" (a path that must be writable),
# "count" (an integer >= 1)
KINDS = ("text", "choice", "flag", "multiple", "path", "output", "count")


@record
class Option:
    """One option: its names (long first), the parameter it fills, how its value is read, its help."""

    names: tuple[str, ...]
    dest: str
    kind: str = "text"
    help: str | None = None
    choices: tuple[str, ...] = ()
    default: str | None = None


def parse_plain(options: tuple[Option, ...], argv: list[str], arguments: str) -> dict[str, Any] | None:
    """The parameters click would pass for `argv`, or None when click must parse it (see the module's doc).

    The rules are click's: options and arguments in any order, `--name=value` or `--name value`,
    `-xVALUE` or `-x VALUE` for a short name, the last value wins unless the option is multiple,
    everything after `--` an argument. `arguments` names the parameter that collects the rest.
    """
    by_name = {name: option for option in options for name in option.names}
    params: dict[str, Any] = {o.dest: _initial(o) for o in options}
    rest: list[str] = []
    args = iter(argv)
    for arg in args:
        if arg == "--":
            rest.extend(args)
            break
        if not arg.startswith("-") or arg == "-":
            rest.append(arg)
            continue
        name, value = _split(arg, by_name)
        option = by_name.get(name)
        if option is None:
            return None
        if option.kind == "flag":
            if value is not None:
                return None
            params[option.dest] = True
            continue
        if value is None:
            value = next(args, None)
            if value is None or value.startswith("-"):
                return None
        read = _read(option, value)
        if read is None:
            return None
        params[option.dest] = params[option.dest] + (read,) if option.kind == "multiple" else read
    params[arguments] = tuple(rest)
    return params


def _initial(option: Option) -> Any:
    return () if option.kind == "multiple" else False if option.kind == "flag" else option.default


def _split(arg: str, by_name: dict[str, Option]) -> tuple[str, str | None]:
    """(option name, attached value or None): `--name=value`, `-xVALUE`, or a bare name."""
    if arg.startswith("--"):
        name, eq, value = arg.partition("=")
        return name, value if eq else None
    if len(arg) > 2 and arg[:2] in by_name and by_name[arg[:2]].kind != "flag":
        return arg[:2], arg[2:]
    return arg, None


def _read(option: Option, value: str) -> Any:
    """The converted value, or None where click would refuse it (or might: then click decides)."""
    if option.kind == "choice":
        return value if value in option.choices else None
    if option.kind == "count":
        try:
            number = int(value)
        except ValueError:
            return None
        return number if number >= 1 else None
    if option.kind in ("path", "output"):
        if not value or os.path.isdir(value):
            return None
        if option.kind == "output" and os.path.exists(value) and not os.access(value, os.W_OK):
            return None
    return value


def click_options(options: tuple[Option, ...]) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorate a click command function with the table's options, in table order."""
    import click

    def decorate(function: Callable[..., Any]) -> Callable[..., Any]:
        for option in reversed(options):
            declare = click.option(*option.names, option.dest, help=option.help, **_click_kind(click, option))
            function = declare(function)
        return function

    return decorate


def _click_kind(click: Any, option: Option) -> dict[str, Any]:
    """The click keyword arguments for the option's kind."""
    kinds: dict[str, dict[str, Any]] = {
        "text": {},
        "choice": {"type": click.Choice(option.choices)},
        "flag": {"is_flag": True},
        "multiple": {"multiple": True},
        "path": {"type": click.Path(dir_okay=False)},
        "output": {"type": click.Path(dir_okay=False, writable=True)},
        "count": {"type": click.IntRange(min=1)},
    }
    extra = kinds[option.kind]
    if option.default is not None:
        extra = {**extra, "default": option.default, "show_default": True}
    return extra

