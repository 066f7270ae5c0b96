"""PowerShell scripts (*.ps1): the engine command lines, with backtick continuations and `$name = "value"`.

A backtick at the end of a line continues the command as a backslash does in a shell: it becomes one (the
same length), so the text goes to `run_script` at the file's own offsets and every value keeps its line and
column. Simple assignments (`$Model = "org/name"`, `$env:MODEL = "org/name"`) are the variables the command
lines see; `$env:NAME` reads as `$NAME` (positions looked up per character, so the shorter word keeps its place).
"""

from __future__ import annotations

from kvlint.deployment import Deployment
from kvlint.launches import ReadResult
from kvlint.launches.rewrite import mapped, substitute
from kvlint.lazyre import lazy

_ASSIGN = lazy(r"^[ \t]*\$(?:env:)?([A-Za-z_][A-Za-z0-9_]*)[ \t]*=[ \t]*[\"']?([^\"'\n]*)[\"']?[ \t]*$")
_ENV_REF = lazy(r"\$env:(?=[A-Za-z_])")


def read(path: str, text: str, _as_vllm_config: bool | None = None) -> ReadResult:
    """The reader protocol's entry (kvlint.launches.kinds)."""
    from kvlint.sources.comments import scan_comments

    return ReadResult(path, read_powershell(path, text), comments=scan_comments(text))


def read_powershell(path: str, text: str) -> list[Deployment]:
    from kvlint.launches.build import LaunchContext, ManifestGpu, finish
    from kvlint.launches.groups import is_launch
    from kvlint.launches.script import run_script

    env: dict[str, str] = {}
    lines = []
    for line in text.split("\n"):
        m = _ASSIGN.match(line)
        if m is not None:
            env[m.group(1)] = m.group(2)
            line = " " * len(line)
        lines.append(line[:-1] + "\\" if line.endswith("`") else line)
    script, offsets = substitute("\n".join(lines), _ENV_REF, lambda m: "$")
    launches, _, notes = run_script(mapped(path, text, script, offsets), env)
    ctx = LaunchContext(notes=tuple(notes))
    return [d for d in (finish(path, f, ctx, ManifestGpu()) for f in launches) if is_launch(d)]
