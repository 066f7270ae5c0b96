"""Other text files that start an engine from one line: supervisor / systemd / INI `command=` and
`ExecStart=`, a Procfile's `web: ...`, a TOML `cmd = "vllm serve ..."`.

A unit's or program's environment (systemd `Environment=`, supervisor `environment=`) is set before its command,
each value at its place, so `vllm serve $MODEL` reads the model there. A command that runs a script named for
starting the engine (`start_vllm.sh`) is that engine configured by the environment (kvlint.launches.env_launch):
the model from its model variable, or left unresolved to the `EnvironmentFile=` the unit reads.

Each line that names an engine entry point (kvlint.launches.named) is a command from the first character after
the `=`, `:` or quote that precedes it to the end of the line (or the closing quote), `\\`-continued and
indented continuation lines included; it goes to `run_script` at the file's offsets, so every value keeps its
line and column.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from kvlint.deployment import Deployment
from kvlint.launches import ReadResult
from kvlint.lazyre import lazy, lazy_built

if TYPE_CHECKING:
    from kvlint.span import Span

_ENTRY_NAMES = (r"\bvllm[ \t]+serve\b|\bsglang[ \t]+serve\b|\bsglang\.launch_server\b|\bvllm\.entrypoints\b"
                r"|\btrl[ \t]+vllm-serve\b|\btrl\.scripts\.vllm_serve\b")


def _entry_names() -> str:
    """The entry points a line may name, with each engine plugin's own server modules (`python -m
    vllm_omni.entrypoints.openai.serving_image`, turn 38's K346 design plan pasting it as an indented block): a
    plugin's module is read where the engine's is (kvlint.launches.argv.plugin_module)."""
    from kvlint.launches.argv import plugin_packages

    return "|".join([_ENTRY_NAMES, *(rf"\b{re.escape(name)}\.entrypoints\." for name in plugin_packages())])


_ENTRY = lazy_built(_entry_names)
_COMMENT_START = ("#", ";", "//")
_JOINED = lazy(r"(?<!\\)\n")  # a newline not escaped by `\\`: an indented continuation


def read(path: str, text: str, _as_vllm_config: bool | None = None) -> ReadResult:
    """The reader protocol's entry (kvlint.launches.kinds)."""
    from kvlint.sources.comments import scan_comments

    if _ENTRY.search(text) is None:
        # a unit's or program's command that starts the engine another way (`ExecStart=/usr/bin/docker run ...
        # vllm/vllm-openai ...`), else a script named for starting it, else an argument list
        found = read_lines(path, text, _commands(text, _RUN_LINE), prelude=True) if _RUN_LINE.search(text) else []
        found = found or _scripted(path, text) or _listed(path, text)
        if not found and path.endswith(".toml"):
            from kvlint.launches import toml_tables

            return toml_tables.read(path, text) or ReadResult(path)  # a harness's `[server]` table of settings
        return ReadResult(path, found, comments=scan_comments(text)) if found else ReadResult(path)
    found = read_lines(path, text) or _listed(path, text)
    if not found and path.endswith(".toml"):  # a command in a string value (`[services.sglang] command = "..."`)
        from kvlint.launches import toml_tables

        tabled = toml_tables.read(path, text, named=True)
        if tabled is not None:
            return tabled
    return ReadResult(path, found, comments=scan_comments(text))


def _listed(path: str, text: str) -> list[Deployment]:
    """A command written as a list of strings (TOML's `command = ["vllm", "serve", "/models/m", "--port",
    "8000"]`, sample K242's benchmark configs; an INI or `.conf` value the same): read as a program's literal
    argument list is (kvlint.launches.literals), each word at its place."""
    if "vllm" not in text and "sglang" not in text:
        return []
    from kvlint.launches.literals import launches_in

    return launches_in(path, text, hash_comments=True)


def read_lines(path: str, text: str, commands: list[tuple[int, int]] | None = None,
               prelude: bool | None = None) -> list[Deployment]:
    """The launches of each command (start, end offsets; by default each line that names an entry point), after
    the unit's environment when `prelude` (by default: when the commands are the file's own lines)."""
    from kvlint.launches.build import LaunchContext, ManifestGpu, finish
    from kvlint.launches.groups import is_launch
    from kvlint.launches.script import run_script
    from kvlint.sources.text import LineIndex, Mapped

    index = LineIndex(text)
    out: list[Deployment] = []
    own = commands is None if prelude is None else prelude
    env, at = _prelude(_assignments(text) + _toml_vars(path, text)) if own else ("", [])
    for start, end in _commands(text) if commands is None else commands:
        # an INI value continued on indented lines is one command: its newlines are spaces (offsets unchanged)
        body, offsets = _json_kept(_JOINED.sub(" ", text[start:end]), list(range(start, end + 1)))
        body, offsets = _supervisor_env(body, offsets)
        m = Mapped(path, env + body, index=index, offsets=[*at, *offsets])
        launches, _, notes = run_script(m, {})
        ctx = LaunchContext(notes=tuple(notes))
        out.extend(d for d in (finish(path, f, ctx, ManifestGpu()) for f in launches) if is_launch(d))
    return out


# a word that is a JSON object written bare (`--speculative-config {"method":"mtp"}`), outside any quotes
_BARE_JSON = lazy(r'(?<![^\s=])\{"[^\s\'`$\\]*\}(?=\s|$)')


def _json_kept(body: str, offsets: list[int]) -> tuple[str, list[int]]:
    """The command with each bare JSON object word single-quoted (sample K114: a `vllm serve` line recorded from a
    process listing). A text file's or a unit's command is no POSIX shell script: a process listing prints the argv
    as it ran, and systemd keeps a quote inside a word, so `{"method":"mtp"}` is the JSON the engine reads, not the
    `{method:mtp}` a shell would leave. Offsets: the added quotes sit at the braces."""
    if '{"' not in body:
        return body, offsets
    out, where, last = [], [], 0
    for m in _BARE_JSON.finditer(body):
        if body.count("'", 0, m.start()) % 2 or body.count('"', 0, m.start()) % 2:
            continue  # inside a quoted string of the command: its quotes are the string's
        out += [body[last:m.start()], "'", m.group(), "'"]
        where += [*offsets[last:m.start()], offsets[m.start()], *offsets[m.start():m.end()], offsets[m.end() - 1]]
        last = m.end()
    if last == 0:
        return body, offsets
    return "".join(out) + body[last:], where + offsets[last:]


_SUPERVISOR_ENV = lazy(r"%\(ENV_([A-Za-z_]\w*)\)s")


def _supervisor_env(body: str, offsets: list[int]) -> tuple[str, list[int]]:
    """supervisord's `%(ENV_VLLM_MODEL)s` (a variable of the environment it was started with) as the shell's
    `${VLLM_MODEL}`, each character at its place (sample K140: the model was read as "%")."""
    if "%(ENV_" not in body:
        return body, offsets
    out, where, last = [], [], 0
    for m in _SUPERVISOR_ENV.finditer(body):
        name = m.start(1)
        out += [body[last:m.start()], "${", m.group(1), "}"]
        where += [*offsets[last:m.start()], offsets[m.start()], offsets[m.start() + 1], *offsets[name:m.end(1)],
                  offsets[m.end(1)]]
        last = m.end()
    return "".join(out) + body[last:], where + offsets[last:]


def _indented(text: str, at: int) -> bool:
    """An INI / supervisor value continued on the next line: it starts with a blank and holds more."""
    end = text.find("\n", at)
    line = text[at : len(text) if end < 0 else end]
    return line[:1] in (" ", "\t") and line.strip() != ""


# a unit's or a supervisor program's command (the command starts where `cmd` does)
_RUN_LINE = lazy(r"(?m)^[ \t]*(?:ExecStart|command)[ \t]*=[ \t]*[-@+!:]*(?P<cmd>\S)")


def _commands(text: str, names: re.Pattern[str] = _ENTRY) -> list[tuple[int, int]]:
    """(start, end) offsets of each command a line holds (a line `names` matches: an entry point, or a run key)."""
    found: list[tuple[int, int]] = []
    line_start = 0
    while line_start < len(text):
        line_end = text.find("\n", line_start)
        line_end = len(text) if line_end < 0 else line_end
        line = text[line_start:line_end]
        m = names.search(line)
        if m is not None and not line.lstrip().startswith(_COMMENT_START):
            # a run key's value is the whole command (`ExecStart=/usr/bin/env bash -lc 'exec "$PY" -m vllm...'`,
            # sample K101: its quoted interpreter is no cut); any other line starts after its last `=`, `:` or quote
            run = m if "cmd" in m.re.groupindex else _RUN_LINE.match(line)
            cut = run.start("cmd") - 1 if run is not None else max(line.rfind(c, 0, m.start()) for c in "=:\"'")
            quote = line[cut] if cut >= 0 and line[cut] in "\"'" else ""
            start = line_start + cut + 1
            end = line_end
            while end < len(text) and (text[line_start:end].rstrip().endswith("\\") or _indented(text, end + 1)):
                nxt = text.find("\n", end + 1)
                end = len(text) if nxt < 0 else nxt
            close = text.find(quote, start, end) if quote else -1
            found.append((start, close if close >= 0 else end))
            line_start = end + 1
            continue
        line_start = line_end + 1
    return found


_ENV_KEY = lazy(r"(?m)^[ \t]*(?P<key>Environment|environment)[ \t]*=[ \t]*(.*?)[ \t]*$")
_ENV_FILE_KEY = lazy(r"(?m)^[ \t]*EnvironmentFile[ \t]*=[ \t]*-?(.*?)[ \t]*$")
_RUN_KEY = lazy(r"(?m)^[ \t]*(?:ExecStart|command)[ \t]*=[ \t]*(.*?)[ \t]*$")
_ASSIGNMENT = lazy(r'"(?P<q>[A-Za-z_]\w*=[^"]*)"|(?P<w>[A-Za-z_]\w*=(?:"[^"]*"|\'[^\']*\'|[^\s,"\']*)+)')
# systemd's `Environment=` separates assignments by blanks only: a comma is the value's (`CUDA_VISIBLE_DEVICES=0,1`,
# sample K423: read as one GPU, a KV204 error); supervisor's `environment=` separates them by commas
_UNIT_ASSIGNMENT = lazy(r'"(?P<q>[A-Za-z_]\w*=[^"]*)"|(?P<w>[A-Za-z_]\w*=(?:"[^"]*"|\'[^\']*\'|[^\s"\']*)+)')


def _assignments(text: str) -> list[tuple[str, int, str, int]]:
    """(name, its offset, value, its offset) of each variable a unit (`Environment="A=1" B=2`) or a supervisor
    program (`environment=A=1,B="x"`) sets; a value's surrounding quotes are not part of it."""
    out: list[tuple[str, int, str, int]] = []
    for line in _ENV_KEY.finditer(text):
        pattern = _UNIT_ASSIGNMENT if line.group("key") == "Environment" else _ASSIGNMENT
        for m in pattern.finditer(line.group(2)):
            word = m.group("q") or m.group("w")
            at = line.start(2) + (m.start("q") if m.group("q") else m.start("w"))
            name, _, value = word.partition("=")
            skip = 1 if value[:1] in "\"'" and value[-1:] == value[:1] and len(value) > 1 else 0
            out.append((name, at, value[skip : len(value) - skip], at + len(name) + 1 + skip))
    return out


# a TOML key written as an environment variable, given a string (`VLLM_MODEL = "meta-llama/..."`)
_TOML_VAR = lazy(r"""(?m)^[ \t]*(?P<name>[A-Z][A-Z0-9_]*)[ \t]*=[ \t]*"""
                 r"""(?P<q>["'])(?P<value>[^"'\n\\]*)(?P=q)[ \t]*(?:#.*)?$""")


def _toml_vars(path: str, text: str) -> list[tuple[str, int, str, int]]:
    """The variables a TOML file sets for the commands it holds: an upper-case key given a string. Flox's
    `[vars]`, pixi's `[activation.env]`, fly.toml's `[env]`, mise's `[env]` all spell the environment this way,
    and no TOML format names an ordinary setting in capitals, so the table's name need not be known (sample K328:
    a Flox service `vllm serve $VLLM_MODEL` with `VLLM_MODEL` set under `[vars]`)."""
    if not path.endswith(".toml"):
        return []
    return [(m.group("name"), m.start("name"), m.group("value"), m.start("value")) for m in _TOML_VAR.finditer(text)]


def _prelude(assignments: list[tuple[str, int, str, int]]) -> tuple[str, list[int]]:
    """The assignments as shell lines (`NAME='VALUE'`) and, per character, its offset in the file: the name and
    value at their own places, the quotes and the newline at the value's start."""
    text: list[str] = []
    offsets: list[int] = []
    for name, name_at, value, value_at in assignments:
        if "'" in value:
            continue
        for part, at, written in ((name, name_at, True), ("='", value_at, False), (value, value_at, True),
                                  ("'\n", value_at, False)):
            text.append(part)
            offsets += [at + (k if written else 0) for k in range(len(part))]
    return "".join(text), offsets


def _scripted(path: str, text: str) -> list[Deployment]:
    """The launch of a unit or program whose command runs a script named for starting the engine, configured by
    its environment: the model variable it sets, or the `EnvironmentFile=` it reads (the model left unresolved
    there). Nothing without either: a bare script name says too little."""
    from kvlint.launches import env_launch
    from kvlint.launches.build import LaunchContext, ManifestGpu, finish
    from kvlint.launches.env import Field
    from kvlint.launches.named import engine_script
    from kvlint.launches.script import FoundLaunch
    from kvlint.sources.text import LineIndex, Mapped

    run = next(((m, e) for m in _RUN_KEY.finditer(text) if (e := engine_script(m.group(1).split()))), None)
    if run is None or _script_in_tree(path, run[0].group(1).split()):
        return []  # the script is read on its own: its launch is there, not a second one here
    whole = Mapped(path, text, index=LineIndex(text))
    engine = run[1]
    items = [(name, whole.span(n_at, n_at + len(name)), Field(value, whole.span(v_at, v_at + len(value))))
             for name, n_at, value, v_at in _assignments(text) + _toml_vars(path, text)]
    fields = env_launch.fields_from_env(engine, items)
    env_file = _ENV_FILE_KEY.search(text)
    if fields is None and env_file is not None:
        var = f"{engine.upper()}_MODEL"
        at = whole.span(env_file.start(1), env_file.end(1))
        fields = env_launch.fields_from_env(engine, [(var, at, Field(f"${{{var}}}", at, False, (var,))), *items])
    if fields is None:
        return []
    note = f"{run[0].group(1).split()[0]} is named for starting {engine}: its model and flags read from the environment"
    ctx = LaunchContext(notes=(note,))
    dep = finish(path, FoundLaunch(engine, tuple(fields), None, {}), ctx, ManifestGpu())
    return [dep if dep.launch_span is not None else _placed(dep, whole.span(run[0].start(1), run[0].end(1)))]


def _placed(dep: Deployment, span: Span) -> Deployment:
    from kvlint.record import replace

    return replace(dep, launch_span=span)


_LEVELS = 3  # folders above the unit looked at for the script it runs


def _script_in_tree(path: str, words: list[str]) -> bool:
    """Whether the script a unit runs is in the repository beside it: at its path relative to the unit
    (`%(here)s/../scripts/start_vllm.sh`), or by name in the unit's folder, a folder above it, or their
    `scripts/` and `bin/` folders (an absolute `ExecStart=/opt/app/scripts/start_vllm.sh` of the deployed tree)."""
    import os

    from kvlint.sidefile import folders_up

    folder = os.path.dirname(os.path.abspath(path)) if path not in ("", "-") else ""
    script = next((w for w in words if w.endswith((".sh", ".py", ".bash"))), "")
    if not folder or not script:
        return False
    script = script.replace("%(here)s", folder)
    if not os.path.isabs(script) and os.path.isfile(os.path.join(folder, script)):
        return True
    name = os.path.basename(script)
    return any(os.path.isfile(os.path.join(up, sub, name)) for up in folders_up(folder, _LEVELS)
               for sub in ("", "scripts", "bin"))
