"""Makefile, *.mk and Justfile recipes: each recipe line is a shell command, read by the script runner.

The recipe text is handed to `run_script` at the file's offsets (a recipe's leading tab and its `@`/`-`/`+`
prefixes become spaces, every other line becomes blank), so every value keeps its line and column. Make's
`$(VAR)` and Just's `{{var}}` become the shell's `${VAR}` (kvlint.launches.rewrite), and the file's own
variable assignments (`MODEL ?= org/name`, Just's `model := "org/name"`) are the variables the recipes see.
"""

from __future__ import annotations

import re

from kvlint.deployment import Deployment
from kvlint.launches import ReadResult
from kvlint.launches.rewrite import mapped, substitute
from kvlint.lazyre import lazy

_ASSIGN = lazy(r"^(?:export[ \t]+)?([A-Za-z_][A-Za-z0-9_]*)[ \t]*(?:\?|:|::|\+|!)?=[ \t]*(.*)$")
# make's $(VAR) and $$ (a `$` for the shell), Just's {{var}}
_VAR_REF = lazy(r"\$\$|\$\(([A-Za-z_][A-Za-z0-9_]*)\)|\{\{[ \t]*([A-Za-z_][A-Za-z0-9_]*)[ \t]*\}\}")
_RECIPE_PREFIX = "@-+"


def read(path: str, text: str, _as_vllm_config: bool | None = None) -> ReadResult:
    """The reader protocol's entry (kvlint.launches.kinds)."""
    from kvlint.sources.comments import scan_comments

    return ReadResult(path, read_recipes(path, text), comments=scan_comments(text))


def read_recipes(path: str, text: str) -> list[Deployment]:
    from kvlint.launches.build import LaunchContext, ManifestGpu, finish
    from kvlint.launches.groups import is_launch
    from kvlint.launches.script import run_script

    script, env = recipes(text)
    script, offsets = substitute(script, _VAR_REF, _shell_ref)
    launches, _, notes = run_script(mapped(path, text, script, offsets), env)
    ctx = LaunchContext(notes=tuple(notes))
    return [d for d in (finish(path, f, ctx, ManifestGpu()) for f in launches) if is_launch(d)]


def _shell_ref(m: re.Match[str]) -> str:
    return "$" if m.group(0) == "$$" else "${" + (m.group(1) or m.group(2)) + "}"


def recipes(text: str) -> tuple[str, dict[str, str]]:
    """(the recipes as one script at the file's offsets, the file's variable assignments)."""
    env: dict[str, str] = {}
    out: list[str] = []
    in_recipe = continued = False
    for line in text.split("\n"):
        body = line.rstrip()
        indented = line[:1] in ("\t", " ") and body.strip() != ""
        if not body.strip() and not continued:  # a blank line neither ends a recipe nor is part of one
            out.append(" " * len(line))
            continue
        if continued or (indented and in_recipe):
            out.append(_recipe_line(line) if not continued else line)
        else:
            in_recipe = _starts_recipe(body)
            m = _ASSIGN.match(body) if not in_recipe else None
            if m is not None:
                env[m.group(1)] = m.group(2).strip().strip("\"'")
            out.append(" " * len(line))
        continued = body.endswith("\\") and (continued or (indented and in_recipe))
    return "\n".join(out), env


def _starts_recipe(body: str) -> bool:
    """A rule line (`target: deps`, Just's `name arg:`), not an assignment (`A := b`, `A ::= b`)."""
    if not body or body[0] in " \t#" or re.match(r"^[^:=]*(::?=|\?=|\+=|!=)", body):
        return False
    head = body.split("#", 1)[0]
    return ":" in head and not head.lstrip().startswith(("export ", "set ", "alias "))


def _recipe_line(line: str) -> str:
    stripped = line.lstrip(" \t")
    lead = len(line) - len(stripped)
    k = 0
    while k < len(stripped) and stripped[k] in _RECIPE_PREFIX:
        k += 1
    return " " * (lead + k) + stripped[k:]
