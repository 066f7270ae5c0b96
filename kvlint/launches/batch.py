"""Windows batch files (`*.bat`, `*.cmd`): the engine command lines, with `^` continuations and `set NAME=value`.

A caret at the end of a line continues the command as a backslash does in a shell, and `%NAME%` (or `!NAME!`,
delayed expansion) reads a variable as `$NAME` does; both are rewritten at the same length (`%NAME%` as `${NAME}`),
so the text goes to `run_script` at the file's own offsets and every value keeps its line and column. `set
NAME=value` and `set "NAME=value"` are the variables the command lines see (the last one written wins, as cmd runs
them in order); `rem` and `::` lines, and `@echo off`, are not commands. `%1` ... `%9`, `%~1` and `%*` are the
script's arguments (the shell's `$1`, `"$@"`): the caller's, never a literal value; `if "%NAME%"=="" set NAME=x` and
`if not defined NAME set NAME=x` give NAME a default the caller's value overrides, read as the shell's `${1:-x}`
is: the default, said in a note.
"""

from __future__ import annotations

import re

from kvlint.deployment import Deployment
from kvlint.launches import ReadResult
from kvlint.launches.rewrite import mapped, substitute
from kvlint.lazyre import lazy

_SET = lazy(r'(?im)^[ \t]*@?set[ \t]+(?:/[a-z][ \t]+)?"?([A-Za-z_][A-Za-z0-9_]*)=([^"\r\n]*)"?[ \t]*$')
_COMMENT = lazy(r"(?im)^[ \t]*@?(?:rem\b|::|echo[ \t]+off\b).*$")
_REF = lazy(r"%([A-Za-z_][A-Za-z0-9_]*)%|!([A-Za-z_][A-Za-z0-9_]*)!|%(?:~[a-z]*)?([0-9*])")  # `!NAME!`: delayed
_DEFAULT = lazy(r'(?im)^[ \t]*@?if[ \t]+(?:"%([A-Za-z_]\w*)%"[ \t]*==[ \t]*""|not[ \t]+defined[ \t]+([A-Za-z_]\w*))'
                r'[ \t]+set[ \t]+"?([A-Za-z_]\w*)=([^"\r\n]*)"?[ \t]*$')


def read(path: str, text: str, _as_vllm_config: bool | None = None) -> ReadResult:
    """The reader protocol's entry (kvlint.launches.kinds)."""
    from kvlint.sources.comments import scan_comments

    if "vllm" not in text.lower() and "sglang" not in text.lower():
        return ReadResult(path)
    return ReadResult(path, read_batch(path, text), comments=scan_comments(text))


def read_batch(path: str, text: str) -> list[Deployment]:
    from kvlint.launches.build import LaunchContext, ManifestGpu, finish
    from kvlint.launches.groups import is_launch
    from kvlint.launches.script import run_script

    text = text.replace("\r\n", "\n")
    env, defaults = _variables(text)
    lines = []
    for line in text.split("\n"):
        if _COMMENT.match(line) or _SET.match(line) or _DEFAULT.match(line):
            line = " " * len(line)
        stripped = line.rstrip()
        lines.append(stripped[:-1] + "\\" + line[len(stripped):] if stripped.endswith("^") else line)
    script, offsets = substitute("\n".join(lines), _REF, _shell_ref)
    launches, _, notes = run_script(mapped(path, text, script, offsets), env)
    ctx = LaunchContext(notes=tuple(defaults + notes))
    return [d for d in (finish(path, f, ctx, ManifestGpu()) for f in launches) if is_launch(d)]


def _shell_ref(m: re.Match[str]) -> str:
    """`%NAME%` / `!NAME!` as `${NAME}`; an argument `%1` / `%~1` as `${1}`, `%*` as `${@}`."""
    arg = m.group(3)
    return "${" + (m.group(1) or m.group(2) or ("@" if arg == "*" else arg)) + "}"


def _defaults(m: re.Match[str], env: dict[str, str]) -> bool:
    """Whether a defaulting `if` sets the name it tests, to a literal, while the name holds nothing the file wrote
    (unset, or only the caller's argument `%1`): a value the file set stays."""
    name = m.group(3)
    held = env.get(name)
    return (m.group(1) or m.group(2)) == name and "%" not in m.group(4) and (held is None or held.startswith("${"))


def _variables(text: str) -> tuple[dict[str, str], list[str]]:
    """`set` and defaulting `if ... set` lines in the file's order (the last plain `set` wins), and notes: a
    default is the value the file gives when the caller passes none (read as the shell's `${1:-x}` is)."""
    env: dict[str, str] = {}
    notes: list[str] = []
    for k, line in enumerate(text.split("\n"), 1):
        if (m := _SET.match(line)) is not None and "%%" not in m.group(2):
            env[m.group(1)] = _REF.sub(_shell_ref, m.group(2))
        elif (m := _DEFAULT.match(line)) is not None and _defaults(m, env):
            env[m.group(3)] = m.group(4)
            notes.append(f"line {k}: {m.group(3)} read as its default {m.group(4)!r}, the value when the caller "
                         "gives none")
    return env, notes
