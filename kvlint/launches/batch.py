"""Windows batch files (`*.bat`, `*.cmd`): the engine command lines, with `^` continuations and `set NAME=value`.

A caret at the end of a line continues the command as a backslash does in a shell, and `%NAME%` (or `!NAME!`,
delayed expansion) reads a variable as `$NAME` does; both are rewritten at the same length (`%NAME%` as `${NAME}`),
so the text goes to `run_script` at the file's own offsets and every value keeps its line and column. `set
NAME=value` and `set "NAME=value"` are the variables the command lines see (the last one written wins, as cmd runs
them in order); `rem` and `::` lines, and `@echo off`, are not commands.
"""

from __future__ import annotations

from kvlint.deployment import Deployment
from kvlint.launches import ReadResult
from kvlint.launches.rewrite import mapped, substitute
from kvlint.lazyre import lazy

_SET = lazy(r'(?im)^[ \t]*@?set[ \t]+(?:/[a-z][ \t]+)?"?([A-Za-z_][A-Za-z0-9_]*)=([^"\r\n]*)"?[ \t]*$')
_COMMENT = lazy(r"(?im)^[ \t]*@?(?:rem\b|::|echo[ \t]+off\b).*$")
_REF = lazy(r"%([A-Za-z_][A-Za-z0-9_]*)%|!([A-Za-z_][A-Za-z0-9_]*)!")  # `!NAME!`: delayed expansion


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
    env = {m.group(1): m.group(2) for m in _SET.finditer(text) if "%%" not in m.group(2)}
    lines = []
    for line in text.split("\n"):
        if _COMMENT.match(line) or _SET.match(line):
            line = " " * len(line)
        stripped = line.rstrip()
        lines.append(stripped[:-1] + "\\" + line[len(stripped):] if stripped.endswith("^") else line)
    script, offsets = substitute("\n".join(lines), _REF, lambda m: "${" + (m.group(1) or m.group(2)) + "}")
    launches, _, notes = run_script(mapped(path, text, script, offsets), env)
    ctx = LaunchContext(notes=tuple(notes))
    return [d for d in (finish(path, f, ctx, ManifestGpu()) for f in launches) if is_launch(d)]
