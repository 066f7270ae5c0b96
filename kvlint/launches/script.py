"""Running a shell script just far enough to find engine launches and the variables they see.

Assignments and `export` update a variable table as the script goes, prefixes (`exec`, `nohup`,
`env`, `srun ...`, `CUDA_VISIBLE_DEVICES=0,1`) are peeled off, `eval`/`sh -c` strings are read as
scripts of their own, and `docker run IMAGE ...` becomes the image's entry point. Nothing runs.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from kvlint import limits
from kvlint.deployment import Cut
from kvlint.engines import ENGINE_NAMES
from kvlint.flags.flag_values import is_unresolved
from kvlint.flags.launch import PY_OPTIONS
from kvlint.launches import cloud_run, wrappers
from kvlint.launches.argv import detect, wrapper_of
from kvlint.launches.docker_run import RUNNERS, is_run, runner_variable
from kvlint.launches.env import (
    SOURCED_ARRAY,
    Field,
    Partial,
    Positional,
    assigned_defaults,
    expand_word,
    with_supplied,
)
from kvlint.launches.oneword import split_joined
from kvlint.lazyre import lazy
from kvlint.record import field, record, replace
from kvlint.sources.shell import Word, tokenize
from kvlint.sources.text import Mapped
from kvlint.span import Span

if TYPE_CHECKING:
    from kvlint.deployment import Deployment
    from kvlint.launches.byflags import ByFlags

_ASSIGN = lazy(r"^([A-Za-z_][A-Za-z0-9_]*)\+?=")
_RESERVED = {"then", "do", "else", "elif", "if", "while", "until", "!", "{", "time"}
_PLAIN_PREFIX = {"exec", "nohup", "command", "builtin", "setsid", "unbuffer"}
# an image's init process runs its arguments as the command (`ENTRYPOINT ["dumb-init", "--"]`, `tini -s --`)
_INIT_PROCESSES = {"dumb-init", "tini", "tini-static", "catatonit"}
# an image's entry-point script (`/opt/nvidia/nvidia_entrypoint.sh`, `docker-entrypoint.sh`): given a command, it
# sets the environment up and runs the command (`exec "$@"`), so what follows is the launch
_ENTRY_SCRIPT = lazy(r"^(?:[\w.-]*[-_])?entrypoint(?:[-_.][\w.-]*)?\.sh$", re.IGNORECASE)
# image args that replace its entry point
# first words after an image that replace its entry point's arguments with a command of their own (a shell, a
# tool the image carries: `docker run IMAGE hf login --token T`, `... nvidia-smi`), never an engine's model
_NOT_ENGINE_ARGS = {"bash", "sh", "zsh", "dash", "python", "python3", "vllm", "sglang", "ray", "sleep", "exec", "hf",
                    "huggingface-cli", "pip", "pip3", "uv", "nvidia-smi", "ls", "cat", "echo", "curl", "wget", "env",
                    "git", "true", "tail", "jupyter", "torchrun", "accelerate", "deepspeed", "pytest", "make", "nsys",
                    "ncu", "timeout", "nohup", "tini", "time", "/bin/bash", "/bin/sh"}
# a script file as the image's first argument is a program it runs (`docker run IMAGE /scripts/benchmark.py`, sample
# K361), never a model
_SCRIPT_FILES = (".py", ".sh", ".bash")
MAX_DEPTH = 4  # eval / sh -c nesting read; deeper is not a real launch script
# setting names a template's placeholder is spelled as (`port="port"`); a program's (`python=python`) is a value
_SETTING_NAMES = frozenset({"port", "host", "model", "path", "token", "gpu", "gpus", "tp", "dtype", "revision"})
_USES_POSITIONAL = lazy(r"\$[@*]|\$\{[@*]\}")
# a terminal prompt a transcript saved as a script keeps before the command (`$ vllm serve M`, `me@box:~$ ...`):
# the shell would run a program named `$`; the writer ran what follows it
_PROMPT = lazy(r"^(?:\$|[^\s$]*[@:~\]][^\s$]*\$)$")


@record
class FoundLaunch:
    """An engine start found in argv: the flags after the entry point, and what surrounds it."""

    engine: str
    fields: tuple[Field, ...]
    entry_span: Span | None
    env: dict[str, str] = field(default_factory=dict)
    image: Field | None = None  # docker run IMAGE
    gpus: str | None = None  # "cuda:0,1" (CUDA_VISIBLE_DEVICES), "docker:all" (--gpus), "gres=gpu:8" (srun)
    gpus_span: Span | None = None
    notes: tuple[str, ...] = ()
    runtime_vars: tuple[tuple[str, str], ...] = ()  # variables assigned from run-time expressions
    wrapper: str | None = None  # a wrapper module taking the engine's flags plus its own (dynamo.vllm)
    nodes: str | None = None  # `srun -N/--nodes` value: a per-node GRES on the same line covers that many nodes
    name: str | None = None  # `docker run --name`
    mounts: tuple[tuple[str, str], ...] = ()  # `docker run -v HOST:CONTAINER`: model paths readable on the host
    left_to: str | None = None  # a program kvlint does not know, with options of its own that may set the engine's
    container_env: tuple[tuple[str, str], ...] | None = None  # `docker run -e`: all the engine's process sees
    runner: str | None = None  # `uv run`, `poetry run` ... in front: the project's lock decides the release
    program: str | None = None  # the engine's program as a path (`"${VENV}/bin/vllm"`, expanded): whose install it is
    cluster: str | None = None  # the engine runs on a Ray cluster this script joins: its node count is the cluster's
    joined: tuple[tuple[Span | None, str], ...] = ()  # words that hold several of the engine's arguments, passed
    # as one (`"$args"`): read split, as meant (kvlint.launches.oneword, KV013)
    overridable: tuple[str, ...] = ()  # flags whose value the script's caller may override (`--tp $TP`, `--tp) TP=$2`)
    otherwise: tuple[tuple[Field, ...], str] | None = None  # the launch's fields on the file's other branch, and
    # that branch's words (kvlint.launches.build.finish keeps the settings that differ)
    before_image: tuple[tuple[Span | None, str], ...] = ()  # the engine's flags written among `docker run`'s options,
    # before the image: docker exits on them (KV015); the launch is read without them
    no_server: Field | None = None  # a published image that starts no server, given only the engine's flags: they
    # are run as its program (KV014); read as the engine's launch, as meant (kvlint.launches.infer.no_server_launch)
    container: str | None = None  # `docker exec NAME`: a running container the file did not start (its image unknown)
    compose_cut: tuple[Span, str] | None = None  # where compose cuts a string command before the engine's (KV017)
    cut: Cut | None = None  # the shell ends the command before option lines meant for it (KV012)
    no_subcommand: Field | None = None  # the engine's CLI run with its server's flags but no subcommand (`vllm
    # --model M`): its parser rejects them (KV016); read as the server's launch, as meant
    no_main: Field | None = None  # the CLI's package run as a module (`python -m vllm serve M`): it has no
    # `__main__`, so Python exits (KV018); read as the server's launch, as meant
    beside: str | None = None  # started in the background, then the script runs another GPU program (`torchrun
    # main.py`, line 33): the job's GPUs are not all the engine's (kvlint.launches.script._beside)
    arm: bool = False  # one of the configurations the arms of an `if` / `case` / `for` give this command (_per_arm)


@record(frozen=False)
class _Shared:
    """What a script's function calls share, however deep: each body's tokens, and how many calls were read."""

    tokens: dict[int, tuple[list, list]] = field(default_factory=dict)
    calls: int = 0  # made by the script's own commands, however deep
    # made while a function's body is read where it stands: their own budget, so that the bodies a long CLI defines
    # (each calling helpers that call helpers) do not use up the calls of the dispatcher at its end (sample K503)
    defining_calls: int = 0
    text: str = ""  # the script as written (the files its here-documents write: shellfile.heredoc_files)


MAX_CALLS = 256  # function bodies read per script: calls nest (main -> start -> log), each read with its arguments


@record(frozen=False)
class _State:
    env: dict[str, str]
    launches: list[FoundLaunch] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    runtime: dict[str, str] = field(default_factory=dict)  # name -> why its value is only known at run time
    overridden: dict[str, int] = field(default_factory=dict)  # name -> line where its caller may override it
    positional: Positional | None = None  # $0 $1 ... when the script was started as `sh -c SCRIPT NAME ARGS`
    arrays: dict[str, tuple[Field, ...]] = field(default_factory=dict)  # `NAME=( ... )`: each word with its span
    optional: dict[str, list[str]] = field(default_factory=dict)  # NAME -> additions made only under a condition
    # (NAME, line) -> the words an `if` / `case` arm set the array to (the arm holds "@NAME": kvlint.launches.script
    # _per_arm reads a later command once per arm with them)
    arm_arrays: dict[tuple[str, int], tuple[Field, ...]] = field(default_factory=dict)
    conditional: int = 0  # inside this many `if` / `case` blocks
    loops: int = 0  # inside this many `for` / `while` / `until` bodies (a call there repeats one command)
    loop_kinds: list[str] = field(default_factory=list)  # the open loops' keywords, innermost last
    ray_started: int | None = None  # the line of a `ray start` before the launches: they run on that cluster
    named: tuple[str, ...] = ()  # the engines the script's text names (a command run through an unknown program)
    functions: dict[str, Mapped] = field(default_factory=dict)  # NAME -> its body, where it stands in the file
    defined: dict[str, list[FoundLaunch]] = field(default_factory=dict)  # launches read in a body where it stands
    called: set[str] = field(default_factory=set)  # functions the script calls (their bodies read per call)
    call_keys: dict[int, tuple] = field(default_factory=dict)  # id of a launch a call gave -> its argv's key
    arms: list[_Arms] = field(default_factory=list)  # the open `if` / `case` statements, innermost last
    closed: list[_Arms] = field(default_factory=list)  # closed ones whose arms set different values
    unsure: list[_Arms] = field(default_factory=list)  # closed `if`s with no `else` whose condition is undecided
    unread: list[tuple[Span, str, str]] = field(default_factory=list)  # (place, engine words, program) not read
    cuts: list[Cut] = field(default_factory=list)  # launches a comment cuts short (KV012)
    scopes: list[dict[str, str | None]] = field(default_factory=list)  # per function body read in place: what its
    # `local` names held before it (restored at its closing brace)
    locals: set[str] = field(default_factory=set)  # `local` / `declare` names of a function body being read
    shared: _Shared = field(default_factory=lambda: _Shared())  # one per script, with its function bodies' reads
    built: dict[str, str] = field(default_factory=dict)  # image tag -> the Dockerfile an earlier `docker build -t` used
    folders: dict[str, str] = field(default_factory=dict)  # NAME -> the folder it holds, relative to the script's
    # (`SCRIPT_DIR=$(dirname "$0")`: "."): where `source "$SCRIPT_DIR/config.sh"` looks (kvlint.launches.sourced)
    written: dict[str, str] = field(default_factory=dict)  # NAME -> its value as written, when part of it is unknown
    # (`SIF="${HOME}/sif/vllm-openai.sif"`): what a container file is named, though not where it is
    path: tuple[Fact, ...] = ()  # what the caller's `if` / `case` arms hold of variables where it called this body
    tested: list[_Tested] = field(default_factory=list)  # closed statements whose arms all test one variable
    gathered: set[str] = field(default_factory=set)  # arrays a loop fills with run-time words (`args+=("$1")`)
    # the script is run once with arguments a caller states (a compose service's command): an arm its values decide
    # against does not run, so its commands are no alternatives of the file (sample K254's Ray worker service)
    taken_only: bool = False
    produced: set[str] = field(default_factory=set)  # arrays `mapfile` fills with a program's output lines
    unsourced: list[str] = field(default_factory=list)  # files the script sources that kvlint cannot read
    array_loops: dict[str, int] = field(default_factory=dict)  # NAME -> the loop depth its `NAME=(...)` was made at
    defaulted: set[str] = field(default_factory=set)  # names holding a default the caller may override
    # (`V=${1:-base}`, `MODE=${MODE:-serve}`): a `case` on one still has alternatives (see _case_arm)
    background: set[int] = field(default_factory=set)  # ids of launches the script starts in the background (`&`)
    beside: str | None = None  # the first GPU program the script runs after one (see _beside)
    containers: dict[str, tuple[Field, tuple[str | None, Span | None]]] = field(default_factory=dict)  # `docker run
    # --name NAME IMAGE`: NAME -> (IMAGE, its GPUs), what a later `docker exec NAME CMD` runs in
    defining: bool = False  # reading a function's body where it stands, or a call made from one (_Shared)
    where: tuple[tuple[int, int], ...] = ()  # the caller's open `if` / `case` arms at the call (_arm_path)
    stopped: set[str] = field(default_factory=set)  # functions called before a command that stops servers (_stops)
    paths: dict[int, tuple[tuple[int, int], ...]] = field(default_factory=dict)  # id of a launch -> its _arm_path


def unread_in(m: Mapped, env: dict[str, str] | None = None, runtime: dict[str, str] | None = None,
              ) -> tuple[list[FoundLaunch], list[str], list[tuple], list[Cut]]:
    """run_script's launches and notes, the commands that run an engine's entry point but gave no launch:
    (place, the engine words, the program that ran them), and the launches a comment cuts short. `runtime`:
    variables the script starts with whose value is only known when it runs (name -> why: a Makefile's `$(shell
    ...)`), said as such at a launch."""
    state = _State(with_supplied(env or {}), named=engines_named(m.text), runtime=dict(runtime or {}))
    state.shared.text = m.text
    _read(m, state, 0)
    return state.launches, state.notes, state.unread, state.cuts


def run_script(m: Mapped, env: dict[str, str] | None = None, depth: int = 0,
               positional: Positional | None = None, written: dict[str, str] | None = None,
               taken_only: bool = False, cuts: list[Cut] | None = None, closed: list[_Arms] | None = None,
               named: tuple[str, ...] = ()) -> tuple[list[FoundLaunch], dict[str, str], list[str]]:
    """Launches in a script, the variables at its end, and notes about what was odd.

    `positional` are the words after the script of a `sh -c SCRIPT NAME ARGS...`: the first is $0,
    the rest are `"$@"`; None when they are not known (a script file run by whoever calls it). `written`: the
    calling script's values known only in part, as written (`BIN=$HOME/venv/bin/vllm`), which "$@" may hold.
    `cuts`: the caller's list the script's cut commands join (a `bash -c "..."` string cuts as a file does).
    `closed`: the caller's closed `if` / `case` statements, whose arms a command line given as one word reads
    (`tmux new-session "exec $CMD"` after a `case` that sets CMD per configuration, sample K408). `named`: the engines
    the calling script names, which a command string it runs is written for (`docker run ... IMAGE -lc 'python3
    launch_secure.py --model-path M --tp 2 ...'` in a script about SGLang, sample K466)."""
    own = engines_named(m.text)
    state = _State(with_supplied(env or {}), positional=positional, named=own + tuple(e for e in named if e not in own),
                   written=dict(written or {}), taken_only=taken_only, closed=list(closed or ()))
    if cuts is not None:
        state.cuts = cuts
    state.shared.text = m.text
    _read(m, state, depth)
    return state.launches, state.env, state.notes


def _read(m: Mapped, state: _State, depth: int, tokens: tuple[list, list] | None = None) -> None:
    positional = state.positional
    if positional and _looks_like_flag(positional[0].text) and _USES_POSITIONAL.search(m.text):
        state.notes.append(f"{positional[0].text} is the shell's $0 after `-c SCRIPT`, not one of \"$@\": the launch "
                           "never sees it (put `--` or `_` before the arguments)")
    commands, errors = tokens or tokenize(m)
    for off, msg in errors:
        line, col = m.at(off)
        state.notes.append(f"{m.path}:{line}:{col}: {msg}")
    prev_sep = ""
    pieces = _Pieces()
    bodies = {first: (name, start, end, last) for name, start, end, first, last in _functions(commands)}
    open_bodies: list[tuple[str, int, int]] = []  # (name, last command, launches before it)
    defining = state.defining
    for k, cmd in enumerate(commands):
        limits.check()
        if k in bodies:
            name, start, end, closing = bodies[k]
            state.functions[name] = m.view(m.path, m.text[start:end], range(start, end + 1))
            open_bodies.append((name, closing, len(state.launches)))
            state.scopes.append({})
        state.defining = defining or bool(open_bodies)
        _track_condition(cmd.words, cmd.sep, state, m)
        # an arm of a `case` whose subject the script fixes, and which it does not match; a command after `[ TEST ] &&`
        # (`||`) whose test the script decides against it
        decided = _decided(commands, k, prev_sep, m, state)
        runs = not _in_dead_arm(state) and decided is not False and not (state.taken_only and _in_aside(state))
        guarded = prev_sep in ("&&", "||") and decided is None  # a test the script decides guards nothing
        state.conditional += guarded
        blank = _blank_escaped(cmd.words, m)
        words = cmd.words[:-1] if blank else cmd.words  # `... \ ` at a line's end: the blank is no argument meant
        words = _past_blank(words) if prev_sep == "#" else words
        bare = _bare_end(commands, k, m)
        if prev_sep == "#" and _cut_piece(words, _continued(commands, k, m), m, state, depth, pieces):
            prev_sep = "#" if blank or bare else cmd.sep
            continue
        if blank and _continued(commands, k, m) and not pieces.joined:
            # `\` then a blank ends the command (the escape takes the blank, not the newline), option lines follow:
            # one command to its author, read as meant, the cut said (KV012)
            pieces.joined, pieces.cut_from, pieces.before = list(words), commands[k + 1].words, words
            pieces.blank = True
            prev_sep = "#"
            continue
        pieces.before, pieces.count = cmd.words, len(state.launches)
        if runs:
            _command(cmd.words, m, state, depth)
            for new in state.launches[pieces.count:]:
                state.paths.setdefault(id(new), _arm_path(state))
            if state.called and len(state.launches) == pieces.count and _stops(cmd.words, state):
                state.stopped.update(state.called)
            if depth == 0:
                _beside(cmd.words, cmd.sep, pieces.count, m, state)
            if len(state.launches) == pieces.count and _continued(commands, k, m) and \
                    (not bare or _runs_engine_or_container(cmd.words)):
                # the comment ends a command that launched nothing, and option lines follow: join them
                pieces.joined, pieces.cut_from = list(cmd.words), commands[k + 1].words
        state.conditional -= guarded
        pieces.bare = bare and runs
        prev_sep = "#" if pieces.bare else cmd.sep
        while open_bodies and open_bodies[-1][1] == k:
            name, _, before = open_bodies.pop()
            _leave_scope(state)
            state.defined[name] = state.launches[before:]
    state.defining = defining
    if depth == 0 and state.arrays:
        state.launches.extend(_array_commands(state))
    if depth == 0 and ("echo" in m.text or "printf" in m.text) and state.named:
        state.launches.extend(_written_scripts(commands, m, state))
    if state.called or (state.taken_only and state.defined):
        # a function's launches are those of its calls, with their arguments, not of its body alone; in a run with
        # stated arguments a function no taken path calls does not run at all
        uncalled = [name for name in state.defined if name not in state.called] if state.taken_only else []
        drop = {id(f) for name in (*state.called, *uncalled) for f in state.defined.get(name, [])}
        state.launches = _distinct_calls([f for f in state.launches if id(f) not in drop], state.call_keys)
        if depth == 0:
            state.launches = _exclusive_calls(state.launches, state)
    if depth == 0 and state.beside is not None:
        state.launches = [replace(f, beside=state.beside) if id(f) in state.background else f for f in state.launches]
    if depth == 0 and len(state.launches) > 1:
        from kvlint.launches.groups import one_per_deployment

        state.launches = one_per_deployment(state.launches)


# programs that take GPUs of their own: a training or serving run beside a server the job started in the background
_GPU_PROGRAMS = frozenset({"torchrun", "accelerate", "deepspeed", "python", "python3", "mpirun", "mpiexec",
                           "horovodrun", "llamafactory-cli", "trl", "ray"})
_IN_FRONT = frozenset({"nohup", "exec", "env", "time", "srun", "setsid", "stdbuf", "numactl", "uv", "conda"})


def _beside(words: tuple[Word, ...], sep: str, before: int, m: Mapped, state: _State) -> None:
    """Launches a command starts in the background (`vllm serve M &`, `nohup ... &`), and the first GPU program the
    script runs after one (`torchrun main.py`, `python train.py`): a job that does both shares its GPUs between
    them, so the cards beyond the engine's parallelism are not known to be idle (kvlint.rules KV204)."""
    if len(state.launches) > before:
        if sep == "&":
            state.background.update(id(f) for f in state.launches[before:])
        return
    if not state.background or state.beside is not None:
        return
    k = 0
    while k < len(words) and _ASSIGN.match(words[k].literal or _first_lit(words[k])):
        k += 1  # `CUDA_VISIBLE_DEVICES=1 python train.py`
    named = [((w.literal or "").rsplit("/", 1)[-1], w) for w in words[k : k + 8]]
    if not named:
        return
    # the program itself, or the one a launcher in front runs (`nohup python ...`, `srun -n 1 torchrun ...`)
    candidates = named if named[0][0] in _IN_FRONT else named[:1]
    found = next(((p, w) for p, w in candidates if p in _GPU_PROGRAMS or p.startswith("python3.")), None)
    if found is not None:
        state.beside = f"{found[0]} at line {m.at(found[1].start)[0]}"


@record(frozen=False)
class _Pieces:
    """A command the shell ends at a comment, as its option lines come (kvlint.launches.script._cut_piece)."""

    joined: list[Word] | None = None  # the pieces of a command that launched nothing, joined so far
    cut_from: tuple[Word, ...] = ()  # the first piece cut off
    before: tuple[Word, ...] = ()  # the previous command's words
    count: int = 0  # launches before the previous command ran
    blank: bool = False  # the cut is a `\\` escaping a trailing blank, not a comment
    bare: bool = False  # the cut is a line ending with no `\\` at all


def _cut_piece(words: tuple[Word, ...], continued: bool, m: Mapped, state: _State, depth: int,
               pieces: _Pieces) -> bool:
    """A command after one a comment ended (`... --network host  # why \\`, then `  --shm-size=32g \\`): True
    when it is a piece of a command being joined (read as meant once its last piece comes, KV012); a piece cut off
    a launch is noted and left to run as the shell runs it (False)."""
    if not words or not (_option_word(words[0]) or (pieces.bare and _cut_option(words[0]))):
        pieces.joined = None
        return False
    if pieces.joined is not None:
        pieces.joined.extend(words)
        if len(pieces.joined) > _MAX_JOINED:  # a generated file, not a command anyone cut by mistake
            pieces.joined = None
            return False
        if continued:
            return True
        before = len(state.launches)
        _command(tuple(pieces.joined), m, state, depth)
        if len(state.launches) > before:
            cut = _cut_short(m, pieces.cut_from, pieces.before, joined=True, blank=pieces.blank, bare=pieces.bare)
            state.cuts.append(cut)
            state.launches[-1] = replace(state.launches[-1], cut=cut)
        pieces.joined, pieces.before, pieces.count, pieces.blank = None, (), len(state.launches), False
        return True
    if state.launches and len(state.launches) > pieces.count:
        line, _ = m.at(words[0].start)
        note = (f"line {line}: flags after a line that ends the command (no `\\` at its end) are a separate command "
                "to the shell, not part of this launch") if pieces.bare else \
            (f"line {line}: flags after a commented-out line are a separate command to the shell, "
             "not part of this launch")
        cut = _cut_short(m, words, pieces.before, joined=False, bare=pieces.bare)
        state.launches[-1] = replace(state.launches[-1], notes=state.launches[-1].notes + (note,), cut=cut)
        state.cuts.append(cut)
    return False


_MAX_JOINED = 2048  # words of one command joined across comments: a real one has tens


def _continued(commands: list, k: int, m: Mapped) -> bool:
    """Whether command k ends at a comment, or at a `\\` that escapes a trailing blank instead of the newline, and the
    next command is option lines (`--shm-size=32g \\`): to the shell a command of its own, to its author the rest of
    command k."""
    ends = commands[k].sep == "#" or _blank_escaped(commands[k].words, m) or _bare_end(commands, k, m)
    if not ends or k + 1 >= len(commands) or not commands[k + 1].words:
        return False
    return _option_word(commands[k + 1].words[0])


def _bare_end(commands: list, k: int, m: Mapped) -> bool:
    """Whether command k ends at a newline with no `\\` and the next line is option lines (`  --model M` under
    `bash -c "python3 -m vllm.entrypoints.openai.api_server`, sample K290's compose script): the continuation its
    author meant and never wrote. The option line must be the very next line: a continued line then an empty one is
    a line a reader blanked (a merge-conflict marker kvlint reads past), and a README's next code block is another
    command, not a `\\` left out."""
    nxt = commands[k + 1] if k + 1 < len(commands) else None
    if commands[k].sep != "\n" or nxt is None or not nxt.words or not _cut_option(_past_blank(nxt.words)[0]):
        return False
    end = commands[k].words[-1].end
    return _NEXT_LINE.fullmatch(m.text, end, nxt.words[0].start) is not None


def _past_blank(words: tuple[Word, ...]) -> tuple[Word, ...]:
    """The words less a first one that is an escaped blank alone (`\\  --flag X`), when more follow."""
    return words[1:] if len(words) > 1 and words[0].literal in (" ", "\t") else words


def _cut_option(word: Word) -> bool:
    """An option line's first word, also after an escaped blank (`\\ --reasoning-parser X`: the `\\` written at
    the start of the next line instead of the end of this one, sample K295; the shell's word is ` --reasoning-parser`,
    a command not found)."""
    text = (word.literal or "").lstrip(" \t")
    return text.startswith("-") and text.lstrip("-")[:1].isalpha()


_NEXT_LINE = lazy(r"[ \t\r]*\n[ \t]*")  # the option line right below: not after a blank line, nor another block


def _runs_engine_or_container(words: tuple[Word, ...]) -> bool:
    """Whether a command's words name an engine or a container runner (`docker run --gpus all`), so that option lines
    right below it are its own, cut by a missing `\\`; a usage text's last line above an option list (sample K274's
    `... | latex_policy_v1` then `--model NAME  Hugging Face model`) names neither."""
    texts = [(w.literal or "").lower() for w in words]
    return any(t.rsplit("/", 1)[-1] in RUNNERS for t in texts[:3]) or \
        any(e in t for t in texts for e in ENGINE_NAMES)


def _option_word(word: Word) -> bool:
    """Whether a command's first word is an option (`--shm-size=32g`, `-e`), not a lone `-` or `--`."""
    text = word.literal or ""
    return text.startswith("-") and text.lstrip("-")[:1].isalpha()


def _blank_escaped(words: tuple[Word, ...], m: Mapped) -> bool:
    """Whether the command's last word is a `\\` and a blank at its line's end (sample K117: every continuation
    written `\\ `): the shell reads an argument of one blank there and ends the command at the newline."""
    if not words or words[-1].literal not in (" ", "\t"):
        return False
    end = words[-1].end
    # a comment after it too (`--max-model-len 2048 \  # <- raised`, sample K167's runbook): the blank is the
    # argument, the comment ends the line
    return m.text[end - 2:end] in ("\\ ", "\\\t") and m.text[end:end + 64].lstrip(" \t\r")[:1] in ("\n", "", "#")


def _cut_short(m: Mapped, cut: tuple[Word, ...], before: tuple[Word, ...], joined: bool, blank: bool = False,
               bare: bool = False) -> Cut:
    end = before[-1].end if before else cut[0].start
    line, _ = m.at(end)
    newline = m.text.rfind("\n", 0, cut[0].start)
    hash_at = -1 if blank or bare else m.text.find("#", end, newline if newline > end else len(m.text))
    slash = m.text.rfind("\\", 0, newline) if blank and newline > 0 else -1
    comment = m.span(hash_at, hash_at + 1) if hash_at >= 0 else m.span(slash, slash + 2) if slash >= 0 else \
        m.span(end, end)
    cut = tuple(w for w in cut if w.literal not in (" ", "\t")) or cut  # an escaped trailing blank is no word shown
    text = " ".join(m.text[w.start:w.end] for w in cut[:4]) + (" ..." if len(cut) > 4 else "")
    return Cut(comment, m.span(cut[0].start, cut[0].end), text, joined, blank, bare)


def _array_commands(state: _State) -> list[FoundLaunch]:
    """An array that holds a whole engine command (`cmd=( vllm serve "$MODEL" --tp 8 )`, grown by `cmd+=(...)`) is
    a launch however it is run: `"${cmd[@]}"` in a command the reader followed (then it is that launch already),
    `printf '%q ' "${cmd[@]}"` into a generated script, `exec`, a `nohup` of a file. Its words keep the places
    they were written at."""
    used = {f.span for launch in state.launches for f in launch.fields}
    inside = [sp for sp in used if sp is not None]
    entries = [launch.entry_span for launch in state.launches if launch.entry_span is not None]
    kept: list[tuple[str, tuple[Field, ...], FoundLaunch]] = []
    for name, words in state.arrays.items():
        # a followed command read it (its image, its model, or its engine command alone: `CMD=(vllm serve)`), or a
        # script one of its words holds (`bash -lc "..."`)
        if not words or any(w.span in used or _holds_any(w.span, inside) or
                            any(_holds_any(e, [w.span]) for e in entries if w.span is not None) for w in words):
            continue
        found = launch_in_argv(list(words), state.env)
        if found is not None:
            kept.append((name, tuple(words), found))
    out = []
    for name, words, found in kept:
        if _in_another_array(words, found, kept):
            continue  # `SERVE=(vllm serve M ...)` expanded in `cmd=(docker run ... "$IMAGE" "${SERVE[@]}")`: one launch
        note = f"the command is kept in the array {name}=( ... ) and run through its expansion \"${{{name}[@]}}\""
        optional = tuple(f"{added} is added to ${{{name}[@]}} only when a condition holds: read without it"
                         for added in state.optional.get(name, []))
        out.append(replace(found, notes=found.notes + (note, *optional)))
    return out


def _written_scripts(commands: list, m: Mapped, state: _State) -> list[FoundLaunch]:
    """A script kept in a variable (`INNER='#!/bin/bash ... exec vllm serve /model ...'`) that the file writes out
    (`echo "$INNER" > /tmp/inner.sh`, then mounted into a container as its entry point: sample K294's dual-GPU
    launcher): its launches, read where the script is written, each value at its place. A variable only printed to
    the terminal, or one run as a command (already read there), adds nothing."""
    seen = {f.entry_span for f in state.launches if f.entry_span is not None}
    out: list[FoundLaunch] = []
    for cmd in commands:
        for word in cmd.words if _ASSIGN.match(cmd.words[0].literal or "") else ():
            value = _assigned_script(word)
            if value is None or not _written_out(m.text, value[0]):
                continue
            name, text, offsets = value
            found, _, _ = run_script(m.view(m.path, text, offsets), state.env, 1)
            note = f"the script is kept in {name} and written to a file that the file runs (echo \"${name}\" > ...)"
            out += [replace(f, notes=f.notes + (note,)) for f in found if f.entry_span not in seen]
    return out


def _assigned_script(word: Word) -> tuple[str, str, list[int]] | None:
    """(name, text, offsets) of `NAME='...'` whose quoted value is a script of several lines naming an engine."""
    lits = word.parts
    head = lits[0].text if lits and lits[0].kind == "lit" and not lits[0].quoted else ""
    name, eq, rest = head.partition("=")
    if not eq or rest or len(lits) < 2 or not all(p.kind == "lit" for p in lits[1:]):
        return None
    text = "".join(p.text for p in lits[1:])
    if "\n" not in text or not engines_named(text) or len(text) > _MAX_WRITTEN:
        return None
    return name, text, [o for p in lits[1:] for o in p.offsets]


_MAX_WRITTEN = 64 * 1024  # a script kept in a variable: a few lines, not a file's worth


def _written_out(text: str, name: str) -> bool:
    """Whether the file writes `$name` to a file with echo or printf (`echo "$INNER" > /tmp/inner.sh`)."""
    return re.search(r"(?m)\b(?:echo|printf)\b[^\n;|&]*\$\{?" + re.escape(name) + r"\b\}?[^\n;|&]*>", text) is not None


def _in_another_array(words: tuple[Field, ...], found: FoundLaunch,
                      kept: list[tuple[str, tuple[Field, ...], FoundLaunch]]) -> bool:
    """Whether an array's engine command is expanded inside another array's command (sample K192: the serving
    command kept in `SERVE`, the `docker run` of each node in `cmd` around it): that command is the launch."""
    spans = {w.span for w in words if w.span is not None}
    return any(other is not found and len(other.fields) > len(words)
               and any(f.span in spans for f in other.fields) for _, _, other in kept)


def _holds_any(span: Span | None, spans: list[Span]) -> bool:
    """Whether a word's span holds one of the spans (a launch read from inside the word's string)."""
    if span is None:
        return False
    start, end = (span.line, span.col), (span.end_line, span.end_col)
    return any(sp.path == span.path and start <= (sp.line, sp.col) and (sp.end_line, sp.end_col) <= end
               for sp in spans)


def _looks_like_flag(zeroth: str) -> bool:
    """`--model` as $0 is an argument the author meant for "$@"; `--` and `_` are the usual placeholders."""
    return zeroth.startswith("-") and zeroth not in ("-", "--")


_LOOPS = ("for", "while", "until", "select")


def _track_condition(words: tuple[Word, ...], sep: str, state: _State, m: Mapped | None = None) -> None:
    """`if` / `case` open a block whose commands run only sometimes; `fi` / `esac` close it. The arms of an `if`
    (`then`, each `elif`, `else`) and of a `case` (each `pattern)`) are kept apart: what each assigns is a
    candidate value of its variables. A `case` whose subject the script fixes (`V=instruct; case "$V" in
    instruct) ...`) runs the first arm whose patterns match it, and only that one; a subject that is a default
    the caller may override (`V="${1:-base}"`) picks the arm whose assignments hold after the statement, and the
    other arms' commands are alternatives the caller can choose (each is a launch), read with their own
    assignments."""
    head = words[0].literal if words else None
    top = state.arms[-1] if state.arms else None
    if head in _LOOPS:
        state.loops += 1
        state.loop_kinds.append(head)
    elif head == "done" and state.loops > 0:
        state.loops -= 1
        if state.loop_kinds:
            state.loop_kinds.pop()
    if head in ("if", "case"):
        state.conditional += 1
        state.arms.append(_Arms(head, [{}] if head == "if" or sep == ")" else []))  # `case $X in a)` on one line
        state.arms[-1].positional = state.positional
        if head == "if":
            state.arms[-1].tests.append(_compared(words[1:]))
            _if_arm(state.arms[-1], _truth(words[1:], sep, m, state), state)
            _settle_arm(state.arms[-1], state)
        if head == "case" and len(words) > 2 and m is not None:
            state.arms[-1].subject_var = _lone_var(words[1])
            subject = _joined(words[1], m, state.env, state.positional)
            state.arms[-1].subject = subject.text if subject.resolved and "$" not in subject.text else None
            state.arms[-1].soft = _caller_may_set(words[1], state)
            if sep == ")" and len(words) > 3:
                _case_arm(state.arms[-1], [w.literal for w in words[3:]], state)
                _settle_arm(state.arms[-1], state)
    elif top is not None and (head in ("elif", "else") if top.kind == "if" else sep == ")"):
        if top.kind == "if":
            _end_aside(top, state)
        top.arms.append({})  # `elif`, `else`; a case's `chat)`, `a|b)`: the next arm
        top.has_else = top.has_else or head == "else"
        state.positional = top.positional  # an earlier arm's `set -- mtp` is not this arm's "$@" (sample K100)
        if top.kind == "if":
            top.tests.append(_compared(words[1:]) if head == "elif" else None)
            _if_arm(top, _truth(words[1:], sep, m, state) if head == "elif" else True, state)
        if top.kind == "case" and len(words) == 1:  # a pattern is one word (a body's `(cd x; cmd)` is not one)
            _case_arm(top, [*top.pending, words[0].literal], state)
        _settle_arm(top, state)
    elif top is not None and top.kind == "case" and sep == "|" and len(words) == 1:
        top.pending.append(words[0].literal)  # `a|b)`: the alternatives before the last
        return
    elif head in ("fi", "esac") and state.conditional > 0:
        state.conditional -= 1
        if top is not None and top.kind == ("if" if head == "fi" else "case"):
            _end_aside(top, state)
            _close(state.arms.pop(), state)
    if top is not None and top.kind == "case":
        top.pending = []


def _sure(state: _State) -> bool:
    """Whether the commands here run whenever the script does: each `if` around them is in the arm the script
    decides holds (no `case`, no `[ ... ] &&` guard), so what they add to a variable or an array is added."""
    return state.conditional == len(state.arms) and all(a.kind == "if" and a.matched and a.aside is None
                                                        for a in state.arms)


def _if_arm(statement: _Arms, truth: bool | None, state: _State) -> None:
    """An arm of an `if` whose condition the script decides (`enable_spec=false` ... `elif [ "$enable_spec" = true
    ]`, `[ -n "$eagle_path" ]` after `eagle_path=""`), or one after an arm whose condition holds: it does not run as
    written, so what it assigns is undone at its end (read aside, as a `case` arm a caller's default passes over);
    a launch in it is still an alternative the file writes, so its commands are read. Any other arm runs."""
    if statement.matched or truth is False:
        statement.aside = _Aside(dict(state.env), dict(state.arrays), list(state.closed),
                                 [(s, [dict(a) for a in s.arms], dict(s.before)) for s in (*state.closed, *state.arms)])
    elif truth is True:
        statement.matched = True


def _truth(words: tuple[Word, ...], sep: str, m: Mapped | None, state: _State) -> bool | None:
    """Whether an `if` condition holds, when the script decides it: `[ -n W ]`, `[ -z W ]`, `[ W1 = W2 ]`, `[ W1 !=
    W2 ]` (or `[[ ]]`, `test`) on words whose values the script fixes (a caller's default counts as fixed: the launch
    as run without one). None for anything else: a compound or negated condition, a command's status, an unset
    variable."""
    given = _unless_given(words, m, state) if m is not None and words and sep not in ("&&", "||", "|") else None
    if given is not None:
        return given
    ws = _test_operands(words)
    if m is None or ws is None or sep in ("&&", "||", "|"):
        return None
    if len(ws) == 2 and ws[0].literal in ("-n", "-z") and state.env.get(_lone_var(ws[1]) or "") == "":
        # a variable the script set empty (a caller's `""`): the test reads what the shell has, where a command's
        # argument would keep `$k` as a placeholder filled out of sight (kvlint.launches.env.expand_word)
        return ws[0].literal == "-z"
    values = [_joined(w, m, state.env, state.positional) for w in ws]
    if any(not v.resolved or "$" in v.text for v in values):
        return None
    if len(ws) == 2 and ws[0].literal in ("-n", "-z"):
        return bool(values[1].text) == (ws[0].literal == "-n")
    if len(ws) == 3 and ws[1].literal in ("=", "==", "!="):
        return (values[0].text == values[2].text) == (ws[1].literal != "!=")
    return None


# a test of whether an array's words hold an option: `! [[ " ${ARGS[@]} " =~ " --port " ]]`, `[[ " ${ARGS[*]} " !=
# *" --host "* ]]`
_GIVEN_TEST = lazy(r'(?P<n1>!\s*)?\[\[\s*(?P<n2>!\s*)?"\s*\$\{(?P<name>\w+)\[[@*]\]\}\s*"\s*(?P<op>=~|==|!=)\s*'
                   r'(?P<pattern>\S.*?)\s*\]\];?')
_OPTION_IN = lazy(r"--[A-Za-z][\w-]*")


def _unless_given(words: tuple[Word, ...], m: Mapped, state: _State) -> bool | None:
    """Whether a test of an array's words for an option holds (`if ! [[ " ${ARGS[@]} " =~ " --model-path " ]];
    then ARGS+=(--model-path "${MODEL:-/opt/ml/model}")`, turn 38's K334/K336: SGLang's SageMaker entry point): the
    idiom adds a default unless the option was given, so the words the script knows decide it, and words gathered at
    run time are taken not to hold it (the script as run with its defaults). None for any other condition."""
    found = _GIVEN_TEST.fullmatch(m.text[words[0].start : words[-1].end].strip())
    option = _OPTION_IN.search(found.group("pattern")) if found is not None else None
    if found is None or option is None:
        return None
    known = state.arrays.get(found.group("name"), ())
    held = any(f.text.split("=", 1)[0] == option.group() for f in known)
    negated = (found.group("op") == "!=") ^ bool(found.group("n1")) ^ bool(found.group("n2"))
    return held != negated


def _case_arm(statement: _Arms, patterns: list[str | None], state: _State) -> None:
    """A new arm of a `case`: dead when the subject is known and the arm cannot run (an earlier arm matched it, or
    every pattern is a literal glob that does not); a pattern with an expansion may match, so the arm runs.
    When the subject is only a default (`soft`), a dead arm is read aside instead: its commands are launches the
    caller can choose, and what it assigns is undone at its end, so the default's arm alone sets the variables."""
    statement.pending = []
    _end_aside(statement, state)
    literal = [p.strip("\"'") for p in patterns if p is not None]
    statement.tests[len(statement.arms) - 1:] = [None] * (len(statement.arms) - len(statement.tests))
    statement.has_else = statement.has_else or literal == ["*"]  # `*)`: one of the arms runs
    if statement.subject_var and len(literal) == len(patterns) and all(literal) and "*" not in literal:
        statement.tests[-1] = (statement.subject_var, tuple(literal))
    if statement.subject is None:
        return
    statement.dead = _arm_dead(statement, patterns)
    if statement.dead and statement.soft:
        statement.dead = False
        statement.aside = _Aside(dict(state.env), dict(state.arrays), list(state.closed),
                                 [(s, [dict(a) for a in s.arms], dict(s.before)) for s in (*state.closed, *state.arms)])


def _same_arm_before(state: _State) -> None:
    """An arm runs only when its tests hold; an earlier statement on the same variable then took the one arm those
    tests allow (`if [ "$E" = vllm ]; then X=a; else X=b; fi` before `if [ "$E" = vllm ]; then ... $X`, or a `case
    "$MODEL"` before another): the arm is read with what that arm assigned, even an arm read aside (the other choice
    of a caller's default), not with the values the reading last went through (sample K139's kind). When the tests
    allow none of its arms, the variables hold what they held before it."""
    facts = _path(state)
    if not facts or not state.tested:
        return
    names = {f[0] for f in facts}
    for tested in state.tested:
        if tested.var not in names:
            continue
        fits = [values for arm_facts, values in tested.arms if not _contradicts(facts + arm_facts)]
        if len(fits) == 1:
            for name, value in fits[0].items():
                if name.startswith("@"):
                    continue
                if value is None:
                    state.env.pop(name, None)
                else:
                    state.env[name] = value


@record
class _Tested:
    """A closed statement every arm of which tests one variable (`=` / `case` literals; an `else` or `*)` last):
    each arm's facts and what it assigned, and, with no `else`, the arm of no match (what was there before)."""

    var: str
    arms: tuple[tuple[tuple[Fact, ...], dict[str, str | None]], ...]


def _tested(statement: _Arms) -> _Tested | None:
    """The statement as a _Tested, or None when an arm's condition is not a literal test of the one variable."""
    tests = statement.tests[: len(statement.arms)]
    own = [t for t in tests if t is not None]
    if not own or len({t[0] for t in own}) != 1 or len(tests) < len(statement.arms):
        return None
    if any(t is None for t in tests[:-1]) or (tests[-1] is None and not statement.has_else):
        return None
    arms: list[tuple[tuple[Fact, ...], dict[str, str | None]]] = [
        (statement.arm_facts[j], {n: v for n, (v, _) in {**statement.shadow.get(j, {}), **arm}.items()})
        for j, arm in enumerate(statement.arms)]
    if tests[-1] is not None and not statement.has_else:  # no arm matches: the names keep their earlier values
        none = tuple((t[0], frozenset(t[1]), False) for t in own)
        arms.append((none, {n: statement.before.get(n) for _, values in arms for n in values}))
    return _Tested(own[0][0], tuple(arms))


def _arm_facts(statement: _Arms, j: int) -> tuple[Fact, ...]:
    """What arm j's tests hold: its own test's literals, none of the earlier arms' (an `elif`, an `else`, a later
    `case` pattern)."""
    return tuple((t[0], frozenset(t[1]), i == j) for i, t in enumerate(statement.tests[: j + 1]) if t is not None)


def _arm_dead(statement: _Arms, patterns: list[str | None]) -> bool:
    """Whether this arm cannot run for the statement's known subject (and note a match for the arms after it)."""
    if statement.matched:
        return True
    import fnmatch

    literal = [p.strip("\"'") for p in patterns if p is not None]
    if len(literal) < len(patterns) or not literal:
        return False
    statement.matched = any(fnmatch.fnmatchcase(str(statement.subject), p) for p in literal)
    return not statement.matched


def _end_aside(statement: _Arms, state: _State) -> None:
    """Undo what an arm read aside assigned (see _case_arm): the variables, arrays and arms' candidates as before."""
    aside, statement.aside = statement.aside, None
    if aside is None:
        return
    state.env, state.arrays, state.closed = aside.env, aside.arrays, aside.closed
    for other, arms, before in aside.statements:
        kept = len(arms) if other is not statement else len(arms) - 1  # this statement's aside arm: now empty
        other.arms[:kept] = arms[:kept]
        if other is statement and kept < len(other.arms):
            other.shadow[kept] = other.arms[kept]  # undone, but what it assigns is that arm's (_same_arm_before)
            other.arms[kept] = {}
        other.before = before


def _caller_may_set(word: Word, state: _State) -> bool:
    """A `case` subject the caller can change: a default (`${1:-x}`, `${MODE:-serve}`), a name holding one, or a name
    the caller's option overrides (`b) backend=$OPTARG ;;` in a getopts loop, turn 37's K326: `backend="default"`
    then `case $backend in vllm) ...` is the arm `-b vllm` runs, not dead code)."""
    return any(part.kind == "var" and (part.op in _DEFAULT_OPS or part.text in state.defaulted
                                       or part.text in state.overridden)
               for part in word.parts)


_DEFAULT_OPS = frozenset({":-", "-", ":=", "="})


def _note_default(word: Word, name: str, state: _State) -> None:
    """Remember whether `name` now holds a default its caller may override (`V=${1:-x}`), for _caller_may_set."""
    if _caller_may_set(word, state):
        state.defaulted.add(name)
    else:
        state.defaulted.discard(name)


def _decided(commands: list, k: int, prev_sep: str, m: Mapped, state: _State) -> bool | None:
    """Whether command `k` runs after the test before it, when the script decides that test: `[ -n "$k" ] &&
    SPEC=(...)` with k empty (a function's call that passes "", sample K242) does not set SPEC; `[ "$USE_X" = 1 ] &&
    ARGS+=(--x)` after `: "${USE_X:=1}"` adds --x as any other line would (sample K243). None when the test is not
    decided, or not a chain's first (`A && B && C`: B and C follow A)."""
    if prev_sep not in ("&&", "||") or k == 0 or (k > 1 and commands[k - 2].sep in ("&&", "||")):
        return None
    truth = _truth(commands[k - 1].words, "", m, state)
    return None if truth is None else truth == (prev_sep == "&&")


def _in_dead_arm(state: _State) -> bool:
    return any(statement.dead or statement.impossible for statement in state.arms)


def _in_aside(state: _State) -> bool:
    """Inside an arm the script's values decide against (read aside: an alternative the file writes)."""
    return any(statement.aside is not None for statement in state.arms)


Fact = tuple[str, frozenset[str], bool]  # (variable, literals, whether it is one of them or none of them)


def _path(state: _State) -> tuple[Fact, ...]:
    """What holds of variables where the reading is: the caller's path, then each open statement's current arm
    (`[ "$E" = sglang ]`: E is sglang) and the arms before it (an `elif` or `else`: none of their literals). A
    variable the arm assigns is left out (`E=vllm` after the test)."""
    out = list(state.path)
    for statement in state.arms:
        k = len(statement.arms) - 1
        if k < 0:
            continue
        assigned = statement.arms[k]
        for j, test in enumerate(statement.tests[: k + 1]):
            if test is not None and test[0] not in assigned:
                out.append((test[0], frozenset(test[1]), j == k))
    return tuple(out)


def _contradicts(facts: tuple[Fact, ...]) -> bool:
    """Whether no value meets every fact: `start() { if [ "$E" = vllm ]; then ...` called under `if [ "$E" =
    sglang ]` never reaches its vLLM arm, so that arm's launch (with the sglang call's flags) is none."""
    import fnmatch

    for name in {f[0] for f in facts}:
        among = [f[1] for f in facts if f[0] == name and f[2]]
        excluded = frozenset().union(*(f[1] for f in facts if f[0] == name and not f[2]))
        literal = [p for p in among if not any(_globbed(x) for x in p)]
        if literal:  # the values every literal test allows, that every pattern matches and no earlier arm took
            values = {v for v in frozenset.intersection(*literal)
                      if all(any(fnmatch.fnmatchcase(v, x) for x in p) for p in among)}
            if not {v for v in values if not any(fnmatch.fnmatchcase(v, x) for x in excluded)}:
                return True
        elif any(p <= excluded for p in among):  # `llama*)` after an arm that took `llama*`
            return True
    return False


def _globbed(pattern: str) -> bool:
    return any(c in "*?[" for c in pattern)


def _settle_arm(statement: _Arms, state: _State) -> None:
    """Mark the arm just opened impossible when its test contradicts the path it is read on."""
    statement.impossible = _contradicts(_path(state))
    if not statement.impossible:
        _same_arm_before(state)


MAX_CLOSED = 16  # the latest `if` / `case` statements whose arms are remembered (a launch reads its variables')
MAX_ARMS = 8  # arms read per launch
MAX_ARM_READS = 32  # arms of closed statements read for one command (a `case` of twenty configurations, sample K408)


@record(frozen=False)
class _Aside:
    """What an arm read aside must leave as it found: the variables, arrays, closed statements, and each
    statement's arms and saved values."""

    env: dict[str, str]
    arrays: dict[str, tuple[Field, ...]]
    closed: list[_Arms]
    statements: list[tuple[_Arms, list[dict[str, tuple[str, int]]], dict[str, str | None]]]


@record(frozen=False)
class _Arms:
    """One `if` or `case` statement: what each arm assigns (NAME -> (value, line)), and what each name held
    before the statement (None: unset)."""

    kind: str
    arms: list[dict[str, tuple[str, int]]]
    before: dict[str, str | None] = field(default_factory=dict)
    subject: str | None = None  # a `case` whose word the script fixes: the arm that runs is known
    matched: bool = False  # an earlier arm matched the subject: the later ones never run
    dead: bool = False  # the current arm never runs
    soft: bool = False  # the subject is a default the caller may override: dead arms are read aside
    aside: _Aside | None = None  # the current arm is read aside: what to restore at its end
    pending: list[str | None] = field(default_factory=list)  # `a|b)`: the alternatives read before the last
    # per arm: the variable its condition compares with literals, and those literals (`[ "$m" = short ]`, a `case
    # "$m"` pattern), None for an `else`, a `*)` or any other condition (see _aliases)
    tests: list[tuple[str, tuple[str, ...]] | None] = field(default_factory=list)
    subject_var: str | None = None  # a `case` on one variable (`case "$M" in`): the variable its patterns test
    positional: Positional | None = None  # the script's "$@" when the statement opened: each arm starts from it
    has_else: bool = False  # an `if` with an `else`: one of its arms runs
    impossible: bool = False  # the current arm's test contradicts what the arms around it hold (_contradicts)
    shadow: dict[int, dict[str, tuple[str, int]]] = field(default_factory=dict)  # what arms read aside assigned
    arm_facts: list[tuple[Fact, ...]] = field(default_factory=list)  # per arm (once closed): what its tests hold

    def environment(self, k: int, env: dict[str, str]) -> dict[str, str]:
        """`env` as arm k leaves it: the statement's other assignments undone, arm k's made."""
        out = dict(env)
        for name, value in self.before.items():
            if value is None:
                out.pop(name, None)
            else:
                out[name] = value
        out.update({name: value for name, (value, _) in self.arms[k].items()})
        return out


def _close(statement: _Arms, state: _State) -> None:
    """A statement whose arms set a variable to different values: each arm's assignments are a candidate
    environment of the commands after it (the script runs one arm; the reader went through them all, so the
    variables hold the last assigned values)."""
    _aliases(statement, state)
    statement.arm_facts = [_arm_facts(statement, j) for j in range(len(statement.arms))]
    tested = _tested(statement)
    if tested is not None:
        state.tested.append(tested)
        del state.tested[:-MAX_CLOSED]
    if statement.kind == "if" and not statement.has_else and not statement.matched and statement.aside is None \
            and any(arm and not any(n.startswith("@") for n in arm) for arm in statement.arms):
        state.unsure.append(statement)  # its assignments may not run (kvlint.launches.script._unsure_branch)
        del state.unsure[:-MAX_CLOSED]
    names = {name for arm in statement.arms for name in arm}
    if any(len({arm[name][0] for arm in statement.arms if name in arm}) > 1 for name in names):
        statement.arm_facts = [f for f, arm in zip(statement.arm_facts, statement.arms, strict=True) if arm]
        statement.arms = [arm for arm in statement.arms if arm]
        state.closed.append(statement)
        del state.closed[:-MAX_CLOSED]


def _aliases(statement: _Arms, state: _State) -> None:
    """Arms that each test the variable they assign (`model=$1; if [ "$model" = llama-8b ]; then
    model=meta-llama/Llama-3.1-8B-Instruct; elif ...`, or `case "$M" in small) M=org/s ;;`) map names the caller may
    type to full ones: one deployment whose value is the caller's, not a candidate per arm. After the statement the
    variable holds what it held before, or, when that is a literal one arm's test matches (a default the caller may
    keep), that arm's value. An arm with no such test (`else`, `*)`) leaves the statement as it was."""
    import fnmatch

    for name in {name for arm in statement.arms for name in arm}:
        assigning = [k for k, arm in enumerate(statement.arms) if name in arm]
        tests = [statement.tests[k] if k < len(statement.tests) else None for k in assigning]
        if not all(t is not None and t[0] == name for t in tests):
            continue
        before = statement.before.get(name)
        value = before
        known = before is not None and "$" not in before
        for k, test in zip(assigning, tests, strict=True):
            if known and test and any(fnmatch.fnmatchcase(str(before), p) for p in test[1]):
                value = statement.arms[k][name][0]
                break
        for k in assigning:
            del statement.arms[k][name]
        if value is None:
            state.env.pop(name, None)
        else:
            state.env[name] = value


def _compared(words: tuple[Word, ...]) -> tuple[str, tuple[str, ...]] | None:
    """The variable an `if` / `elif` condition compares with a non-empty literal, and the literal: `[ "$m" = x ]`,
    `[[ $m == x ]]`, `test x = "$m"`. An emptiness test (`[ "$m" = "" ]`) is a default, not a name for a value."""
    ws = _test_operands(words)
    if ws is None or len(ws) != 3 or ws[1].literal not in ("=", "=="):
        return None
    for var, lit in ((ws[0], ws[2]), (ws[2], ws[0])):
        name, text = _lone_var(var), lit.literal
        if name and text and text.strip("\"'"):
            return name, (text.strip("\"'"),)
    return None


def _test_operands(words: tuple[Word, ...]) -> list[Word] | None:
    """The operands of a `[ ... ]`, `[[ ... ]]` or `test ...` condition; None for any other command."""
    ws = list(words)
    if ws and ws[0].literal in ("[", "[[") and ws[-1].literal in ("]", "]]"):
        return ws[1:-1]
    return ws[1:] if ws and ws[0].literal == "test" else None


def _lone_var(word: Word) -> str | None:
    """The variable a word is, and nothing else (`$m`, `"$m"`, `${m}`)."""
    parts = [p for p in word.parts if p.kind != "lit" or p.text]
    if len(parts) == 1 and parts[0].kind == "var" and not parts[0].op:
        return parts[0].text
    return None


def _counted(name: str, raw: str, state: _State) -> bool:
    """An assignment from the variable itself inside a `while` / `until` body (`TP=$((TP * 2))`, sample K175's
    largest power of two under the GPU count): the loop runs as many times as its test says when the script runs,
    so the value after it is not the one a single reading of the body gives."""
    if not any(kind in ("while", "until") for kind in state.loop_kinds):
        return False
    value = raw.partition("=")[2]
    if "$" not in value or name not in value:
        return False  # asked of every assignment in a loop body: plain tests before a pattern
    return re.search(rf"\$\{{?{re.escape(name)}\b|\$\(\([^)]*\b{re.escape(name)}\b", value) is not None


def _refolded(words: tuple[Word, ...], name: str, m: Mapped, state: _State) -> bool:
    """`CMD=$(echo $CMD)` after a `case` whose arms set CMD (sample K408): each arm's value folded onto one line as
    the shell would (a newline a blank), not replaced by the one value the reading went through."""
    from kvlint.launches.env import Partial

    one = [w for w in words if (found := _ECHOED.fullmatch(m.text, w.start, w.end)) is not None
           and found.group(1) == found.group(2) == name]
    if not one:
        return False
    for statement in (*state.closed, *state.unsure):
        for arm in statement.arms:
            if name in arm:
                value, line = arm[name]
                arm[name] = (Partial(value.replace("\n", " "), value.holes, value.offsets, value.source)
                             if isinstance(value, Partial) else value.replace("\n", " "), line)
    return True


def _assigned(name: str, value: str | None, line: int, state: _State) -> None:
    """Note an assignment (before it is made) for the arms of the open statements; a later one replaces the
    value every closed statement's arms gave the name."""
    for statement in (*state.closed, *state.unsure):
        for arm in statement.arms:
            arm.pop(name, None)
        statement.before.pop(name, None)
    for statement in state.arms:
        if not statement.arms:
            continue  # a `case` before its first pattern
        statement.before.setdefault(name, state.env.get(name))
        if value is None:
            statement.arms[-1].pop(name, None)
        else:
            statement.arms[-1][name] = (value, line)


_LOOP_NAME = lazy(r"^[A-Za-z_][A-Za-z0-9_]*$")


def _for_loop(words: tuple[Word, ...], m: Mapped, state: _State) -> None:
    """`for NAME in WORDS; do ... done`: each value of the list is an arm its body runs in (`for m in org/a
    org/b; do vllm serve "$m" & done` starts two deployments). The variable holds the last value, as after the
    loop; a list with a value known only at run time leaves it unknown."""
    name = words[1].literal or ""
    if not _LOOP_NAME.match(name):
        return
    values = [f for w in words[3:] for f in _braced(w) or _expand(w, m, state.env, state)]
    line = m.at(words[0].start)[0]
    loop = _Arms("for", [], {name: state.env.get(name)})
    for statement in state.closed:  # the loop's assignment replaces what earlier arms gave the name
        for arm in statement.arms:
            arm.pop(name, None)
        statement.before.pop(name, None)
    if not values or not all(f.resolved for f in values):
        state.env.pop(name, None)
        return
    loop.arms = [{name: (f.text, f.span.line if f.span else line)} for f in values[:MAX_ARMS]]
    state.env[name] = values[-1].text
    if len(loop.arms) > 1:
        state.closed.append(loop)
        del state.closed[:-MAX_CLOSED]


_BRACE_RANGE = lazy(r"([^{}]*)\{(-?\d{1,9})\.\.(-?\d{1,9})(?:\.\.(-?\d{1,9}))?\}([^{}]*)")
_BRACE_LIST = lazy(r"([^{}]*)\{([^{},]*(?:,[^{},]*)+)\}([^{}]*)")


def _braced(word: Word) -> list[Field]:
    """The words bash's brace expansion makes of an unquoted literal in a loop's list (`for port in {7471..7590}`,
    `for m in org/{a,b}`: sample K264's port search), so the variable holds a value, never the braces; a long
    range keeps its first and last values (what a loop that breaks early, or runs out, leaves)."""
    text = word.literal
    if text is None or word.raw_quoted or "{" not in text:
        return []
    if (r := _BRACE_RANGE.fullmatch(text)) is not None:
        first, last, step = int(r.group(2)), int(r.group(3)), abs(int(r.group(4) or 1)) or 1
        numbers = list(range(first, last + (1 if last >= first else -1), step if last >= first else -step))
        items = [str(n) for n in (numbers if len(numbers) <= MAX_ARMS else [numbers[0], numbers[-1]])]
        head, tail = r.group(1), r.group(5)
    elif (b := _BRACE_LIST.fullmatch(text)) is not None:
        items, head, tail = b.group(2).split(","), b.group(1), b.group(3)
    else:
        return []
    return [Field(f"{head}{item}{tail}", None) for item in items]  # the loop's line places them (_for_loop)


def _shift(args: list[Field], state: _State) -> None:
    """`shift [N]` drops the first N positional parameters (`bash -c 'pid=$1; shift; exec "$@"' bash PIDFILE vllm
    serve M`: the command after the pid file is "$@"); an N the script does not fix leaves them unknown."""
    if not state.positional:
        return
    n = args[0].text if args else "1"
    if not n.isdigit() or (args and not args[0].resolved):
        state.positional = None
        return
    state.positional = (state.positional[0], *state.positional[1 + int(n) :])


def _set_positional(args: list[Field], state: _State) -> None:
    """`set -- WORDS` (or `set WORDS`, the first not an option) makes WORDS the script's positional parameters, the
    `"$@"` of the commands after it (`if [ $# -eq 0 ]; then set -- --model "$DEFAULT" ...; fi`: the defaults a
    caller may replace); `set -euo pipefail` only sets options."""
    k = 0
    while k < len(args) and args[k].text[:1] in "-+" and args[k].text != "--":
        k += 1 + (args[k].text in ("-o", "+o"))
    if k < len(args) and args[k].text == "--":
        k += 1
    elif k == len(args) or k > 0:
        return  # options only, or options then words that are an option's (`set -o pipefail`)
    if any(set(a.missing) & state.gathered for a in args[k:] if not a.resolved):
        state.positional = None  # the script's own arguments, filtered by a loop (`set -- "${rest[@]}"`): unknown
        return
    zero = state.positional[0] if state.positional else Field("$0", None)
    state.positional = (zero, *args[k:])


_OPENS_BODY = ("then", "else", "do", "{")  # words after which a command starts (`else MODEL=b`)


def _command(words: tuple[Word, ...], m: Mapped, state: _State, depth: int) -> None:
    words = _past_openers(words)
    if len(words) > 2 and words[0].literal == "for" and words[2].literal == "in":
        _for_loop(words, m, state)
        return
    _assign_defaults(words, m, state)
    local: dict[str, str] = {}
    i = 0
    while i < len(words) and _ASSIGN.match(words[i].literal or _first_lit(words[i])):
        if words[i].elements is not None:
            _array_assignment(words[i], m, {**state.env, **local}, state)
            i += 1
            continue
        name, value = _joined_array(words[i], m, state) or _printed(words[i], m, state) or \
            _echoed(words[i], m, {**state.env, **local}) or \
            _assignment(words[i], m, {**state.env, **local}, state.positional)
        _note_default(words[i], name, state)
        raw = m.text[words[i].start:words[i].end]
        if name in state.folders or "dirname" in raw or "BASH_SOURCE" in raw or (state.folders and "$" in raw):
            _script_folder(name, raw, state)
        if raw.partition("=")[0].endswith("+"):  # `CMD+=" --flag v"` appends (sample K90)
            value = _appended(value, {**state.env, **local}.get(name), state)
        if value is None and state.conditional:
            value = _caller_override(words[i], name, {**state.env, **local}, m, state)
        if value is not None and _counted(name, raw, state):
            value = None  # `TP=$((TP * 2))` in a `while` body: as many times as a run-time test says
        if value is not None and value.lower() == name.lower() and ("_" in name or name.lower() in _SETTING_NAMES):
            # a template's placeholder spelled as the variable's own name (`model_name="model_name"`, `port="port"`,
            # sample K73): the user fills it in; no value kvlint can judge
            local.pop(name, None)
            state.env.pop(name, None)
            state.runtime[name] = f"a placeholder at line {m.at(words[i].start)[0]}: its value is its own name"
        elif value is not None:
            local[name] = value
        else:
            local.pop(name, None)
            state.env.pop(name, None)
            state.runtime[name] = f"assigned at line {m.at(words[i].start)[0]} from an expression evaluated at run time"
            state.written[name] = raw.partition("=")[2].strip("\"'")
        i += 1
    if i == len(words):
        for w in words:
            _substituted(w, m, state, depth)
        line = m.at(words[0].start)[0] if words else 0
        folds = m.text.find("$(echo", words[0].start, words[-1].end) >= 0 if words else False
        for name, value in local.items():
            if not (folds and _refolded(words, name, m, state)):
                _assigned(name, value, line, state)
        state.env.update(local)
        return
    env = {**state.env, **local}
    prefix = [_joined(w, m, env, state.positional) for w in words[:i]]  # one field each: their spans matter
    fields = prefix + [f for w in words[i:] for f in _expand(w, m, env, state)]
    if len(fields) == len(prefix):
        return
    head = fields[len(prefix)].text
    if head == "set":
        _set_positional(fields[len(prefix) + 1 :], state)
        return
    if head == "shift":
        _shift(fields[len(prefix) + 1 :], state)
        return
    if head in ("mapfile", "readarray"):
        _produced_array(fields[len(prefix) + 1 :], state)
        return
    if head in ("export", "declare", "typeset", "readonly", "local"):
        if head in ("local", "declare", "typeset") and depth:
            state.locals.update(_declared(words[i + 1 :]))
        if head in ("local", "declare", "typeset") and state.scopes:  # a body read in place: its own names are
            for local_name in _declared(words[i + 1 :]):  # given back at its closing brace (_leave_scope)
                state.scopes[-1].setdefault(local_name, state.env.get(local_name))
        _export(words[i + 1 :], m, state)
        return
    if head.endswith(_RAY_PROGRAMS) and _starts_ray(head.rsplit("/", 1)[-1], fields[len(prefix) + 1 :]):
        state.ray_started = state.ray_started or m.at(words[i].start)[0]
        return
    if head in state.functions and depth < MAX_DEPTH and _calls_left(state):
        _call(head, fields[len(prefix) :], m, env, state, depth)
        return
    if head in ("docker", "podman") and state.built is not None and len(fields) > len(prefix) + 2:
        import os

        where = m.path if m.path not in ("", "-") else ""
        for tag, dockerfile in dr_built(fields, len(prefix), os.path.dirname(os.path.abspath(where)) if where else ""):
            state.built[tag] = dockerfile
    if head in ("source", ".") and len(words) > i + 1 and depth < MAX_DEPTH:
        _source(words[i + 1], m, state, depth)
        return
    if head == "echo" and depth < MAX_DEPTH and _written_to_file(words, m):
        _echoed_lines(fields[len(prefix) + 1 :], env, depth, state)
        return
    found = launch_in_argv(fields, env, depth, state)
    arms = _per_arm(found, words, i, prefix, m, env, state, depth) if found is not None or state.closed else []
    if found is not None and state.unsure and arms == [found]:
        arms = [_unsure_branch(found, words[i:], prefix, m, env, state, depth)]
    if not arms and depth == 0:
        _note_unread(fields[len(prefix) :], state)
    if arms:
        for launch in arms:
            launch = replace(launch, notes=launch.notes + _optional_notes(words[i:], state))
            if state.ray_started is not None:
                launch = _on_ray_cluster(launch, state.ray_started)
            launch = replace(launch, overridable=_overridable(words[i:], state)) if state.overridden else launch
            state.launches.append(replace(launch, runtime_vars=launch.runtime_vars + tuple(state.runtime.items())))


def _overridable(words: tuple[Word, ...], state: _State) -> tuple[str, ...]:
    """The flags of a command whose value is a variable the script's caller may override (`--tp $TP` after `--tp)
    TP="$2"`): the script's own value stands for sizing, but a verdict on it is a verdict on a default."""
    out: list[str] = []
    for k, w in enumerate(words):
        head = w.parts[0] if w.parts and w.parts[0].kind == "lit" else None
        flag = head.text.split("=", 1)[0] if head is not None and head.text.startswith("-") else None
        if flag is None:
            continue
        value = w if "=" in (head.text if head else "") else words[k + 1] if k + 1 < len(words) else None
        if value is not None and any(p.kind == "var" and p.text in state.overridden for p in value.parts):
            out.append(flag)
    return tuple(out)


def dr_built(fields: list[Field], i: int, base: str) -> list[tuple[str, str]]:
    from kvlint.launches.docker_run import built_images

    return built_images(fields, i, base)


def _substituted(word: Word, m: Mapped, state: _State, depth: int) -> None:
    """`CID=$(docker run -d ... IMAGE "${ARGS[@]}")` (or backticks): the shell runs the command of a substitution
    in an assignment, so a launch there is read at its own place, with the script's variables, arrays and
    functions; what the subshell assigns does not outlive it."""
    for part in word.parts:
        if part.kind not in ("cmd", "tick") or len(part.offsets) != 2 or depth >= MAX_DEPTH or "(" in part.text[:1]:
            continue
        start, end = part.offsets[0] + (2 if part.kind == "cmd" else 1), part.offsets[1] - 1
        if end <= start or m.text[start:end] != part.text or not (_RUNS_SOMETHING.search(part.text)
                                                                  or _calls_function(part.text, state)):
            continue
        view = m.view(m.path, part.text, range(start, end))
        env, arrays = dict(state.env), dict(state.arrays)
        commands, _ = tokenize(view)
        for cmd in commands[:64]:
            _command(cmd.words, view, state, depth + 1)
        state.env, state.arrays = env, arrays


_RUNS_SOMETHING = lazy(r"\b(?:run|serve|launch_server|api_server|entrypoints)\b|\$\{[A-Za-z_][A-Za-z0-9_]*\[[@*]\]\}")


def _calls_function(text: str, state: _State) -> bool:
    """Whether a substitution runs one of the script's functions (`PID=$(launch_vllm M $PORT ...)`, sample K162: a
    function that starts a server in the background and prints its PID)."""
    words = text.split(None, 1)
    return bool(words) and words[0] in state.functions


def _leave_scope(state: _State) -> None:
    """The end of a function body read in place: its `local` variables give back what the names held before."""
    if not state.scopes:
        return
    for name, value in state.scopes.pop().items():
        if value is None:
            state.env.pop(name, None)
        else:
            state.env[name] = value


def _script_folder(name: str, raw: str, state: _State) -> None:
    """Remember a variable that holds the script's own folder (or one derived from it), or forget one reassigned."""
    from kvlint.launches.sourced import script_folder_of

    folder = script_folder_of(raw.partition("=")[2], state.folders)
    if folder is not None:
        state.folders[name] = folder
    else:
        state.folders.pop(name, None)


def _source(word: Word, m: Mapped, state: _State, depth: int) -> None:
    """`source FILE` / `. FILE` of a settings file of the same repository (kvlint.launches.sourced): its assignments
    are made here, at the `source` line, as the shell makes them; its own launches are its file's, not this one's."""
    import os

    from kvlint.launches import sourced

    path = sourced.sourced_path(m.text[word.start:word.end], m.path, state.folders)
    text = sourced.read_text(path) if path is not None else None
    if path is None or text is None:
        state.unsourced.append(m.text[word.start:word.end])
        return
    before = dict(state.env)
    inner = _State(with_supplied(dict(state.env)), named=engines_named(text))
    _read(Mapped.whole(path, text), inner, depth + 1)
    env = inner.env
    state.arrays.update(inner.arrays)  # `ARGS=(--model M ...)` in a settings file: its words where it wrote them
    line = m.at(word.start)[0]
    changed = {name: value for name, value in env.items() if before.get(name) != value}
    for name, value in changed.items():
        _assigned(name, value, line, state)
    state.env.update(changed)
    for name in set(before) - set(env):
        state.env.pop(name, None)
    if changed:
        shown = os.path.relpath(path, os.path.dirname(os.path.abspath(m.path)))
        state.notes.append(f"line {line}: {len(changed)} variables set by {shown}, which the script sources")


def _caller_override(word: Word, name: str, env: dict[str, str], m: Mapped, state: _State) -> str | None:
    """`-m|--model) MODEL="$2"; shift 2 ;;`, `[ -n "$1" ] && MODEL=$1`, getopts' `m) MODEL=$OPTARG ;;`: an assignment
    that takes a positional parameter whole, made only under a condition, is the caller's override of a value
    the script already holds. The launch runs with that default when the caller gives none, so the default
    stands (with a note), not an unknown: None when the name holds no value yet, or only an empty one (`NNODES=""`
    before the loop, sample K183: a required argument the script checks, not a value), so the caller must give it."""
    parts = word.parts
    if len(parts) != 2 or parts[0].kind != "lit" or parts[0].text != f"{name}=" or not env.get(name):
        return None
    p = parts[1]
    if p.kind == "special" and len(p.text) == 2 and p.text[1] in "123456789@*":  # `CMD="$@"`: the caller's command
        ref = p.text
    elif p.kind == "var" and not p.op and (p.text in ("OPTARG", *"123456789")):
        ref = "$" + p.text
    else:
        return None
    line = m.at(word.start)[0]
    state.overridden[name] = line
    state.notes.append(f"line {line}: {name}={ref} is the caller's override, made under a condition: the script's "
                       f"own value {env[name]!r} stands")
    return env[name]


def _per_arm(found: FoundLaunch | None, words: tuple[Word, ...], i: int, prefix: list[Field], m: Mapped,
             env: dict[str, str], state: _State, depth: int) -> list[FoundLaunch]:
    """The launch, or one launch per arm of an `if` / `case` that sets this command's variables when the arms
    give it different models (`if [ "$MODE" = chat ]; then ARGS="--model a"; elif ...; then ARGS="--model b";
    fi` then `docker run $IMAGE $ARGS`: two deployments), each read with its own arm's values. Arms that change
    only other settings (TP 8 or 4 for one model) are one deployment: the reading stays as it was. An arm that
    starts the other engine is another deployment; when the last arm (the reading's) starts none (a third
    runtime), the arms that start an engine are the launches."""
    if not state.closed or (found is None and "$" not in m.text[words[i].start : words[-1].end]):
        return [found] if found is not None else []  # a command with no expansion takes nothing from an arm
    used = _variables_in(words[i:]) | {"@" + ref.group(1) for w in words[i:] if (ref := _array_ref(w)) is not None}
    by_model: dict[tuple[str, str, str], tuple[FoundLaunch, dict[str, tuple[str, int]]]] = {}
    commands: list[FoundLaunch] = []
    read = 0
    facts = _path(state)
    for statement in state.closed:
        for k, arm in enumerate(statement.arms):
            if read >= MAX_ARM_READS or not used.intersection(arm) or _other_program(arm, used):
                continue
            if facts and k < len(statement.arm_facts) and _contradicts(facts + statement.arm_facts[k]):
                continue  # an arm this command's own tests rule out (`else` of the same `[ "$E" = vllm ]`)
            read += 1
            arm_env = statement.environment(k, env)
            fields = prefix + _arm_fields(words[i:], m, arm_env, arm, state)
            launch = launch_in_argv(fields, arm_env, depth, None)
            model = _model_of(launch) if launch is not None else None
            role = _pd_role(launch) if launch is not None else ""
            whole = _whole_command(arm, used) if launch is not None else None
            if launch is not None and whole is not None:
                commands.append(replace(launch, notes=launch.notes + (_whole_note(arm, whole),)))
            elif launch is not None and (model is not None or found is None or launch.engine != found.engine
                                         or role):
                # the last arm naming a model reads it, as the script's order does; a local copy and the Hub id of
                # one model (`/models/Qwen2.5-7B` or `Qwen/Qwen2.5-7B`) are one model; an arm that starts the
                # other engine is another deployment whatever its model, and so is one of another P/D role
                key = (launch.engine, (model or "").rstrip("/").rsplit("/", 1)[-1].lower(), role)
                by_model[key] = (launch, arm)
    noted = [(replace(launch, notes=launch.notes + (_arm_note(arm, used),)), key[2])
             for key, (launch, arm) in by_model.items()]
    if commands:
        return commands + _configurations(noted)
    if found is None:
        return _configurations(noted)
    if len(by_model) < 2 and not any(e != found.engine for e, _, _ in by_model):
        return [found]
    if not any(e == found.engine for e, _, _ in by_model):  # the arm the reading went through is one of them
        return _configurations([(found, _pd_role(found)), *noted])
    return _configurations(noted)


_PROGRAM_WORD = lazy(r"[\w./-]+")


def _other_program(arm: dict[str, tuple[str, int]], used: set[str]) -> bool:
    """Whether an arm gives the command's variables another program's command line: each value is a program's name
    and its arguments and names no engine (a `case` of llama.cpp, Ollama, vLLM and SGLang configurations, sample
    K408: the llama.cpp arms are not read, so the engines' arms are). Flags alone, or a value left to the run, may be
    any engine's: read."""
    values = [arm[name][0] for name in used.intersection(arm)]
    return all(v[:1] not in ("-", "$", "") and " " in v.strip() and _PROGRAM_WORD.match(v) is not None
               and not any(e in v.lower() for e in ENGINE_NAMES) for v in values)


def _configurations(launches: list[tuple[FoundLaunch, str]]) -> list[FoundLaunch]:
    """Several launches one command gives in the arms of an `if` / `case` / `for`, each with its P/D role:
    configurations of one launch (the counting rules' one command, one launch; a `rank == 0` / `else` pair is one
    too), each sized. Arms that give the command different P/D roles (`case $ROLE in prefill) ARGS=(
    --disaggregation-mode prefill ...)`, turn 37's K329) are different deployments, each with its own pool (counting
    rule 3): configurations within a role."""
    roles: dict[str, list[FoundLaunch]] = {}
    for f, role in launches:
        roles.setdefault(role, []).append(f)
    return [replace(f, arm=True) if len(group) > 1 else f for group in roles.values() for f in group]


_KV_ROLE = lazy(r"""["']?kv_role["']?\s*:\s*["']?(\w+)""")


def _pd_role(found: FoundLaunch) -> str:
    """The role a launch takes in a disaggregated pair: SGLang's `--disaggregation-mode`, the `kv_role` of vLLM's
    `--kv-transfer-config`; "" for none."""
    from kvlint.launches.argv import parse

    settings = parse(found.engine, [f.token() for f in found.fields]).settings
    mode = settings.get("disaggregation_mode")
    if mode is not None and mode.resolved and mode.value not in (None, "null"):
        return str(mode.value)
    config = settings.get("kv_transfer_config")
    m = _KV_ROLE.search(str(config.value)) if config is not None and config.resolved else None
    return m.group(1) if m is not None else ""


def _unsure_branch(found: FoundLaunch, words: tuple[Word, ...], prefix: list[Field], m: Mapped,
                   env: dict[str, str], state: _State, depth: int) -> FoundLaunch:
    """The launch with, as the file's other branch, what its command reads when the latest `if` with no `else` that
    sets its variables under a condition kvlint does not decide (`if [ "$LONG" = 1 ]; then ARGS="--max-model-len
    131072"; fi`) did not run: the reading goes through the arm, the script as run without the condition does not,
    so the launch is sized on both (kvlint.resolve) and no verdict assumes the arm ran. The same model only: an arm
    that names another model is another deployment (_per_arm)."""
    used = _variables_in(words)
    statement = next((s for s in reversed(state.unsure) if used.intersection(*s.arms)), None)
    if statement is None:
        return found
    set_here = {name: line for arm in statement.arms for name, (_, line) in arm.items() if name in used}
    skipped = {name: value for name, value in env.items() if name not in set_here}
    skipped.update({name: value for name, value in statement.before.items() if name in set_here and value is not None})
    other = launch_in_argv(prefix + _arm_fields(words, m, skipped, {}, state), skipped, depth, None)
    if other is None or other.engine != found.engine or _model_of(other) != _model_of(found):
        return found
    where = ", ".join(f"${name} at line {line}" for name, line in sorted(set_here.items()))
    return replace(found, otherwise=(other.fields, f"the script sets {where} under an `if` with no `else`"))


def _arm_fields(words: tuple[Word, ...], m: Mapped, env: dict[str, str], arm: dict[str, tuple[str, int]],
                state: _State) -> list[Field]:
    """The command's fields with the arm's variables and the arrays it set (`args=(...)` in a `case` arm)."""
    saved = state.arrays
    state.arrays = {**saved, **{name[1:]: state.arm_arrays[(name[1:], line)] for name, (_, line) in arm.items()
                                if name.startswith("@") and (name[1:], line) in state.arm_arrays}}
    try:
        return [f for w in words for f in _expand(w, m, env, state)]
    finally:
        state.arrays = saved


_TO_FILE = lazy(r"[ \t]*1?>>?[ \t]*[\"']?[^\s;&|>\"']*\.(?:sh|bash)\b")  # a script's name: not a log, not /dev/null


def _written_to_file(words: tuple[Word, ...], m: Mapped) -> bool:
    """Whether an `echo` writes to a script (`echo "python -m vllm... --model $M" >>start.sh`): a line of a script the
    script writes, not text shown (nor a log line)."""
    return bool(words) and _TO_FILE.match(m.text, words[-1].end) is not None


def _echoed_lines(args: list[Field], env: dict[str, str], depth: int, state: _State) -> None:
    """The launches of the line an `echo` writes into a file (sample K424's setup script writes its two startup
    scripts a line at a time: `echo "python3 -m vllm.entrypoints.openai.api_server --model ${model_path} ..."
    >>bash_openai.sh`): the line read as the written script's, each word at its place in the echo."""
    while args and args[0].text in ("-e", "-n", "-E", "-ne", "-en"):
        args = args[1:]
    if len(args) != 1 or not _names_entry(args[0].text):
        return  # one quoted line that starts an engine; anything else is text
    found = _string_command(args[0], env, depth, state)
    if found is not None:
        state.launches.append(found)


def _names_entry(text: str) -> bool:
    """Whether a text names an engine's entry point (kvlint.launches.textfile's pattern, plugins' modules with it)."""
    from kvlint.launches.textfile import _ENTRY

    return _ENTRY.search(text) is not None


def _whole_command(arm: dict[str, tuple[str, int]], used: set[str]) -> str | None:
    """The variable to which an arm gives a whole engine command line (`case $CFG in a) CMD="$VLLM --max-model-len
    65536" ;; b) CMD="$SGL ..." ;; esac` then `exec $CMD`, sample K408), or an array one (`if ...; then cmd=(python
    -m sglang.launch_server --model-path "$M" ...); else cmd=(...); fi` then `"${cmd[@]}"`, sample K548): each such
    arm is a command of its own, one launch each (an alternative command, as a notes file's three commands are
    three), not a configuration of one."""
    return next((name for name in sorted(used.intersection(arm)) if _names_entry(str(arm[name][0]))), None)


def _whole_note(arm: dict[str, tuple[str, int]], name: str) -> str:
    """Which arm gave a command its whole command line."""
    shown = f"${{{name[1:]}[@]}}" if name.startswith("@") else f"${name}"
    return (f"one launch per arm that gives {shown} a whole engine command (`case $CFG in a) CMD=\"vllm serve ...\"`"
            f" then `exec $CMD`): this one is line {arm[name][1]}'s")


def _arm_note(arm: dict[str, tuple[str, int]], used: set[str]) -> str:
    """Which arm a launch is read in: the variables it takes from there, and their lines."""
    where = ", ".join(f"${{{name[1:]}[@]}} of line {line}" if name.startswith("@") else f"${name} of line {line}"
                      for name, (_, line) in sorted(arm.items()) if name in used)
    return (f"one launch per arm of the `if` / `case` / `for` that sets this command's arguments, each arm "
            f"naming another model: this one reads {where}")


def _variables_in(words: tuple[Word, ...]) -> set[str]:
    """The variables a command's words expand (in defaults too)."""
    out: set[str] = set()
    todo = [p for w in words for p in w.parts]
    while todo:
        part = todo.pop()
        if part.kind == "var":
            out.add(part.text)
            todo.extend(part.default)
    return out


def _model_of(found: FoundLaunch) -> str | None:
    """The model a launch names, when it is written out (resolved)."""
    from kvlint.launches.build import _unresolved

    model = _model_text(found)
    return None if model is None or _unresolved(model) else model


_FUNCTION_NAME = lazy(r"^[A-Za-z_][A-Za-z0-9_:.-]*$")


def _functions(commands: list) -> list[tuple[str, int, int, int, int]]:
    """(name, body start, body end, first command, last command) of each `NAME() { ... }` / `function NAME
    [()] { ... }` in a script: the body is the text between its braces (nested `{ ...; }` groups counted)."""
    out = []
    for k, cmd in enumerate(commands):
        lits = [w.literal for w in cmd.words]
        if len(lits) == 1 and cmd.sep == "(" and lits[0] and _FUNCTION_NAME.match(lits[0]):
            name, at = lits[0], k + 1
        elif len(lits) >= 2 and lits[0] == "function" and lits[1] and _FUNCTION_NAME.match(lits[1].removesuffix("()")):
            name, at = lits[1].removesuffix("()"), k if len(lits) > 2 else k + 1
        else:
            continue
        body = _body(commands, at, k)
        if body is not None:
            out.append((name, *body))
    return out


def _body(commands: list, at: int, k: int) -> tuple[int, int, int, int] | None:
    """(start, end, first, last) of the brace group that opens in command `at` (or the one after a `()`)."""
    opening = None
    for j in (at, at + 1):
        words = commands[j].words if j < len(commands) else ()
        brace = next((w for w in words if w.literal == "{"), None)
        if brace is not None and (j > k or words.index(brace) > 0):
            opening = (j, brace)
            break
    if opening is None:
        return None
    first, brace = opening
    depth = 0
    for j in range(first, min(len(commands), first + 10_000)):
        words = commands[j].words
        depth += _opens_group(words) + (j == first and words[0] is not brace)
        if words and words[0].literal == "}":
            depth -= 1
            if depth == 0:
                return brace.end, words[0].start, first, j
    return None


def _opens_group(words: Sequence[Word]) -> int:
    """1 when a command opens a `{ ...; }` group: its first word, or the first after the reserved words that lead
    it (`then { printf '%q ' "$@"; echo; } >&2; else "$@"; fi` on one line, sample K503's dry-run wrapper, whose
    group was read as the function's end)."""
    for w in words:
        if w.literal == "{":
            return 1
        if w.literal not in _GROUP_LEADS:
            return 0
    return 0


_GROUP_LEADS = frozenset({"then", "else", "do", "!", "time"})


def _call(name: str, fields: list[Field], m: Mapped, env: dict[str, str], state: _State, depth: int) -> None:
    """`NAME ARGS...` of a function the script defines: its body read with $1... set to ARGS (a launch per call)."""
    body = state.functions[name]
    if state.defining:
        state.shared.defining_calls += 1
    else:
        state.shared.calls += 1
    sub = _State(dict(env), positional=_handed(fields, state), named=state.named, functions=dict(state.functions),
                 defining=state.defining, where=_arm_path(state),
                 arrays=dict(state.arrays), shared=state.shared, built=state.built, folders=dict(state.folders),
                 loops=state.loops, loop_kinds=list(state.loop_kinds), path=_path(state), tested=list(state.tested),
                 defaulted=set(state.defaulted),  # a default the caller may override stays one in the body
                 # a Ray cluster started before the call holds the body's engine
                 ray_started=state.ray_started, taken_only=state.taken_only,
                 written=dict(state.written))  # a value known in part (`VENV="${HOME}/x/.venv"`), as written
    tokens = state.shared.tokens.get(id(body))
    if tokens is None:  # a body is read once per call: tokenized once
        tokens = state.shared.tokens[id(body)] = tokenize(body)
    _read(body, sub, depth + 1, tokens)
    _globals_back(sub, state)
    state.ray_started = state.ray_started or sub.ray_started  # a function that starts the cluster (`run_rayhead`)
    launches, notes = [_at_argument(f, fields[1:], env, depth) for f in sub.launches], sub.notes
    for old, new in zip(sub.launches, launches, strict=True):
        state.paths[id(new)] = sub.paths.get(id(old), sub.where)
    state.called.add(name)
    for found in launches:  # a call a loop repeats (a sweep restarting the server) is its command once, whatever
        # values the loop passes it: the key keeps the flags and leaves their values out (two calls in one loop body
        # giving different flags are two commands: sample K172's fixed-K and dynamic-K runs)
        argv = ("in a loop", *(f.text.split("=", 1)[0] for f in found.fields if f.text.startswith("--"))) \
            if state.loops else tuple(f.text for f in found.fields)
        if _stops_after(body, found, state.functions):  # every call stops the server it started: one server, run
            # with other settings; a call given another model starts another deployment (sample K411's BF16, FP8 and
            # NVFP4 checkpoints, one after the other)
            argv = ("restarted", _model_of(found) or "")
        key = (found.engine, found.entry_span, argv)
        state.call_keys[id(found)] = _restarted(key, found, state) if name in state.stopped else key
        state.launches.append(found)
    state.notes.extend(notes)


def _calls_left(state: _State) -> bool:
    """Whether a call may still be read: each budget (_Shared) bounds the bodies read per script."""
    return (state.shared.defining_calls if state.defining else state.shared.calls) < MAX_CALLS


def _handed(fields: list[Field], state: _State) -> Positional | None:
    """A function's $0, $1, ...: the call's words, or unknown when the call hands on the script's own unknown
    arguments and nothing else (`cmd_up "$@"` in a subcommand dispatcher, sample K503): the body's `$1` is then the
    script's `$1`, a value only its caller knows, not a word "$@" standing for all of them."""
    if state.positional is None and len(fields) == 2 and not fields[1].resolved and fields[1].text in ("$@", "$*"):
        return None
    return tuple(fields)


# a command that stops a server: its container, its process
_STOPS = lazy(r"\b(?:docker|podman)[ \t]+(?:container[ \t]+)?(?:stop|kill|rm)\b"
              r"|(?:^[ \t]*|[;&|][ \t]*|\n[ \t]*)(?:kill|pkill)\b")


def _removes(body: Mapped, at: int, found: FoundLaunch) -> bool:
    """Whether the stop command at `at` removes the container the launch names (`docker rm -f qwen35-h200` before
    `docker run -d --name qwen35-h200 ...`, sample K515's runbook): each call replaces the server the last one
    started."""
    if not found.name or found.name.startswith("$"):
        return False
    end = body.text.find("\n", at)
    return found.name in (w.strip("\"'") for w in body.text[at : end if end >= 0 else len(body.text)].split())


def _stops_after(body: Mapped, found: FoundLaunch, functions: Mapping[str, Mapped] | None = None) -> bool:
    """Whether a function's body stops a server after the launch it runs (`docker stop "$name"` at its end, sample
    K242's benchmark) or removes the container it names before it (_removes), itself or by calling a function of
    the script that does (`stop_service "$pid_file"`, sample K419's run per scheduling policy): each call then runs
    alone, one server restarted with the call's settings, not a server more."""
    if found.entry_span is None or found.entry_span.path != body.path:
        return False
    if any(body.at(hit.start())[0] > found.entry_span.line or _removes(body, hit.start(), found)
           for hit in _STOPS.finditer(body.text)):
        return True
    stoppers = [name for name, other in (functions or {}).items() if other is not body and name in body.text
                and _STOPS.search(other.text) is not None]
    return any(body.at(hit.start())[0] > found.entry_span.line for name in stoppers
               for hit in re.finditer(rf"(?:^|[;&|({{][ \t]*|\n[ \t]*){re.escape(name)}\b", body.text))


def _at_argument(found: FoundLaunch, args: list[Field], env: dict[str, str], depth: int) -> FoundLaunch:
    """A launch a function body runs from a whole command it was handed (`start_process vllm "vllm serve M --port
    $P" $P`, then `bash -c "... '$cmd'"`, sample K142): the same words, each at its place in the argument, not at
    the body's `$cmd`."""
    words = tuple(f.text for f in found.fields)
    for arg in args:
        if " " not in arg.text.strip() or found.engine not in arg.text or depth >= MAX_DEPTH:
            continue
        inner, _, _ = run_script(arg.mapped(), env, depth + 1, ())
        same = next((i for i in inner if tuple(f.text for f in i.fields) == words), None)
        if same is not None:
            return replace(found, fields=same.fields, entry_span=same.entry_span)
    return found


# programs that name an engine command without running it: output, search, process control, tests
_NAMES_ONLY = frozenset({"echo", "printf", "print", "pkill", "pgrep", "kill", "killall", "ps", "grep", "egrep",
                         "fgrep", "rg", "cat", "tee", "which", "type", "hash", "sed", "awk", "read", "test", "[", "[[",
                         "true", "false", "logger", "pip", "pip3", "uv", "conda", "apt-get", "apt", "nvidia-smi",
                         "curl", "wget"})
_MODULES = ("sglang.launch_server", "vllm.entrypoints.openai.api_server", "vllm.entrypoints.api_server")


def _note_unread(fields: list[Field], state: _State) -> None:
    """A command that runs an engine's entry point as words of its own (`xargs -I{} vllm serve {}`, `parallel
    vllm serve ::: ...`) that no reader made a launch of: remembered, so the file's reader says so at its place even
    when other launches were read (never silent). A name inside one quoted word (`pkill -f "vllm serve"`) or
    given to a program that only prints or searches is not a command."""
    if not fields or fields[0].text.rsplit("/", 1)[-1] in _NAMES_ONLY or fields[0].text.startswith(("log", "_log")):
        return
    if fields[0].text.rsplit("/", 1)[-1] in RUNNERS and is_run(fields, 0) is not None:
        _note_unread_container(fields, state)
        return
    for k, f in enumerate(fields[:-1]):
        base, nxt = f.text.rsplit("/", 1)[-1], fields[k + 1].text
        if (base in ("vllm", "sglang") and nxt == "serve") or (f.text == "-m" and nxt in _MODULES):
            span = fields[k + 1].span if f.text == "-m" else f.span
            if span is not None:
                state.unread.append((span, f"{base} {nxt}" if f.text != "-m" else nxt, fields[0].text))
            return


def _note_unread_container(fields: list[Field], state: _State) -> None:
    """`docker run --name vllm-serve ... $(LOCAL_IMAGE) $(MODEL_FROM_PROFILE)`: a container its own name says is an
    engine's, from an image kvlint cannot read a launch from (the repository's own, its arguments unknown until it
    runs). Remembered at the image like an unread entry point, never passed over because its neighbours were read."""
    from kvlint.launches import docker_run as dr

    opts, i = dr.read_options(fields, is_run(fields, 0) or 0, "")
    name = (opts.name or "").lower()
    span = fields[i].span if i < len(fields) else None
    if span is None or not any(e in name for e in ENGINE_NAMES):
        return
    if i + 1 >= len(fields) and any(_terminal(f.text) for f in fields[:i]):
        return  # `docker run -it --name vllm_x IMAGE`: a terminal session the reader types into, no server (K254)
    state.unread.append((span, fields[i].text, f"{fields[0].text} run --name {opts.name}"))


def _globals_back(sub: _State, caller: _State) -> None:
    """A function's variables and arrays are the script's unless declared `local` (bash's dynamic scope):
    `build() { CMD=(vllm serve "$1" ...); }; build m; "${CMD[@]}"` runs what the call built."""
    for name in (set(caller.env) | set(sub.env)) - sub.locals:
        if name in sub.env:
            caller.env[name] = sub.env[name]
        else:
            caller.env.pop(name, None)
    for name in set(sub.arrays) - sub.locals:
        caller.arrays[name] = sub.arrays[name]


def _distinct_calls(launches: list[FoundLaunch], keys: dict[int, tuple]) -> list[FoundLaunch]:
    """A call repeated with the same arguments (`start`, `restart`; `main` calling `start` read again when `main` is
    called) is the same launch. Judged after the bodies' own launches are dropped, so the copy that stays is one a
    call gave."""
    seen: set[tuple] = set()
    out = []
    for found in launches:
        key = keys.get(id(found))
        if key is None or key not in seen:
            out.append(found)
            seen.update(() if key is None else (key,))
    return out


def _stops(words: tuple[Word, ...], state: _State) -> bool:
    """Whether a command that started nothing stops servers: `kill`, `pkill`, `docker stop|kill|rm`, or a function
    of the script whose body does (`stop_server`)."""
    head = words[0].literal if words else None
    if head in state.functions:
        return _STOPS.search(state.functions[head].text) is not None
    return head in ("kill", "pkill") or (head in ("docker", "podman") and len(words) > 1
                                         and words[1].literal in ("stop", "kill", "rm"))


def _restarted(key: tuple, found: FoundLaunch, state: _State) -> tuple:
    """The key of a call made after the script stopped the server an earlier call of the function started
    (`run_server baseline; ...; stop_server; run_server speculative`, sample K518): the earlier call's key when it
    started the same command with the same model, so the two are one server, restarted with other settings."""
    model = _model_text(found)
    for earlier in state.launches:
        known = state.call_keys.get(id(earlier))
        if known is not None and known[:2] == key[:2] and _model_text(earlier) == model:
            return known
    return key


def _arm_path(state: _State) -> tuple[tuple[int, int], ...]:
    """Where the reading is, as the `if` / `case` arms it is in, the callers' first: (statement, arm) pairs."""
    return state.where + tuple((id(statement), len(statement.arms) - 1) for statement in state.arms)


def _exclusive_calls(launches: list[FoundLaunch], state: _State) -> list[FoundLaunch]:
    """Calls of one function from arms of which only one runs (`case "$cmd" in "") cmd_interactive ;; up) cmd_up
    "$@" ;;`, an `if` / `else` handing it `-g GPUS` or not: sample K503's CLI; a runbook's one-run and sweep blocks)
    are configurations of one command, each sized, one launch as a reader counts it; calls that both run (two
    replicas) or that name other models or P/D roles stay launches of their own."""
    places: dict[tuple, list[FoundLaunch]] = {}  # one command's text, read per call
    commands: dict[tuple, list[FoundLaunch]] = {}  # one command line, run from several places
    for found in launches:
        key = state.call_keys.get(id(found))
        if key is not None:
            places.setdefault((key[0], key[1]), []).append(found)
        if key is not None and _expanded_at(found.entry_span, state.shared.text):
            commands.setdefault(_command_line(found), []).append(found)
    marked = {id(f) for group in places.values() if _alternatives(group, state) for f in group}
    # the same command line run from other places in other arms (`start_server_background ... "$cmd"` or
    # `start_server_foreground ... "$cmd"`, sample K519): one launch, the first arm's
    repeated = {id(f) for group in commands.values() if _alternatives(group, state) for f in group[1:]}
    return [replace(f, arm=True) if id(f) in marked else f for f in launches if id(f) not in repeated]


def _expanded_at(span: Span | None, text: str) -> bool:
    """Whether a launch starts at an expansion (`"${server_command}"`): a command line kept in a variable, written
    once; two commands written out word by word in two places (sample K379's foreground and background servers) are
    two, even when their words agree."""
    if span is None or not text or span.line > text.count("\n") + 1:
        return False
    line = text.split("\n", span.line)[span.line - 1]
    return line[span.col - 1 : span.col + 1].lstrip("\"'").startswith("$")


def _command_line(found: FoundLaunch) -> tuple:
    """What a launch runs, wherever it is run from: the engine's words, in the same image, by the same program (a
    container's or a venv's engine, sample K186's two arms, are two commands)."""
    return (found.engine, tuple(f.text for f in found.fields), found.image.text if found.image else None,
            found.program, found.runner, found.container)


def _alternatives(group: list[FoundLaunch], state: _State) -> bool:
    """Whether launches are one deployment's alternatives: each in an arm the others' do not run with it, all with
    one model (or each a model only known at run time: `cmd_up "$m"` from a menu, `cmd_up "$@"`) and one P/D role."""
    return len(group) > 1 and all(_apart(state.paths.get(id(a), ()), state.paths.get(id(b), ()))
                                  for k, a in enumerate(group) for b in group[k + 1 :]) \
        and len({(_model_of(f), _pd_role(f)) for f in group}) == 1


def _apart(one: tuple[tuple[int, int], ...], other: tuple[tuple[int, int], ...]) -> bool:
    """Whether two places are in different arms of one statement: never both run."""
    arms = dict(one)
    return any(statement in arms and arms[statement] != arm for statement, arm in other)


def _model_text(found: FoundLaunch) -> str | None:
    """The model a launch names, as written (an unresolved reference too)."""
    from kvlint.launches.argv import parse

    model = parse(found.engine, [f.token() for f in found.fields]).model
    return None if model is None or model.value is None else str(model.value)


def _starts_ray(program: str, args: list[Field]) -> bool:
    """`ray start ...`, or a script of vLLM's image that starts or joins a Ray cluster (`bash /vllm-workspace/examples/
    online_serving/multi-node-serving.sh leader --ray_cluster_size=2`, sample K440's head Pod; `run_cluster.sh`)."""
    if program == "ray":
        return bool(args) and args[0].text == "start"
    if program in ("bash", "sh") and args:
        program, args = args[0].text.rsplit("/", 1)[-1], args[1:]
    return program in _RAY_CLUSTER_SCRIPTS and bool(args)


# scripts vLLM's repository ships (in its image under /vllm-workspace/examples) that start a Ray head or worker
_RAY_CLUSTER_SCRIPTS = frozenset({"multi-node-serving.sh", "run_cluster.sh"})
_RAY_PROGRAMS = ("ray", "sh", *_RAY_CLUSTER_SCRIPTS)  # the names `_starts_ray` asks about (`bash` ends with `sh`)


def _on_ray_cluster(found: FoundLaunch, line: int) -> FoundLaunch:
    """After `ray start` the engine's ranks run on the Ray cluster (this node's and every node that joined it):
    the devices this host shows are one node's, not the group's, so they do not count the launch's GPUs."""
    cluster = f"the Ray cluster started at line {line}"
    if not (found.gpus and found.gpus.startswith("cuda:")):
        return replace(found, cluster=cluster)  # a pod's or a job's GPUs stay this node's: the nodes are open
    note = (f"the engine runs on the Ray cluster started at line {line}: its GPUs are the cluster's, not this "
            f"host's {found.gpus.removeprefix('cuda:')} (CUDA_VISIBLE_DEVICES)")
    return replace(found, gpus=None, gpus_span=None, notes=found.notes + (note,), cluster=cluster)


def _assign_defaults(words: tuple[Word, ...], m: Mapped, state: _State) -> None:
    """`${VAR:=d}` in any word of a command (`: "${MODEL:=org/m}"`) sets VAR for the rest of the script."""
    for w in words:
        for part in w.parts:  # only a word with a variable can hold `${VAR:=d}` (most words have none)
            if part.kind == "var":
                break
        else:
            continue
        for name, value in assigned_defaults(w, m, state.env, state.positional):
            if value is None:
                state.env.pop(name, None)
                state.runtime[name] = f"defaulted at line {m.at(w.start)[0]} to an expression evaluated at run time"
            else:
                state.env[name] = value


def _joined(word: Word, m: Mapped, env: dict[str, str], positional: Positional | None = None) -> Field:
    """An assignment word as one field (the shell does not split assignment values)."""
    parts = expand_word(word, m, env, positional)
    if len(parts) == 1:
        return parts[0]
    missing = tuple(e for f in parts for e in f.missing)
    return Field(" ".join(f.text for f in parts), m.span(word.start, word.end), not missing, missing)


def _first_lit(word: Word) -> str:
    return word.parts[0].text if word.parts and word.parts[0].kind == "lit" else ""


def _assignment(word: Word, m: Mapped, env: dict[str, str],
                positional: Positional | None = None) -> tuple[str, str | None]:
    fields = expand_word(word, m, env, positional)
    text = " ".join(f.text for f in fields)
    name, _, value = text.partition("=")
    appending = name.endswith("+")
    name = name.rstrip("+")
    if any(not f.resolved for f in fields):
        # unknown from here on (never a stale value), but a command's words stay words (a Partial)
        return name, _partial(value, fields, appending)
    return name, _placed(value, fields, appending)


def _appended(value: str | None, before: str | None, state: _State) -> str | None:
    """`NAME+=value`: the value before with this one after it. One made under a condition (an `if` branch) is not
    known to run: the value stays what it was, as a conditional `args+=(...)` is left out of an array. Each part
    keeps where its characters were written when both know it in the same text."""
    if state.conditional and not _sure(state):
        return before
    if value is None or before is None:
        return None
    if isinstance(before, Partial) and isinstance(value, Partial) and before.source is value.source \
            and before.offsets and value.offsets:
        shift = len(before)
        holes = before.holes + tuple((a + shift, b + shift) for a, b in value.holes)
        return Partial(before + value, holes, before.offsets + value.offsets, before.source)
    if isinstance(before, Partial) or isinstance(value, Partial):  # the unknown words stay unknown, placed or not
        shift = len(before)
        holes = getattr(before, "holes", ()) + tuple((a + shift, b + shift) for a, b in getattr(value, "holes", ()))
        return Partial(str(before) + str(value), holes)
    return str(before) + str(value)


def _placed(value: str, fields: list[Field], appending: bool = False) -> str:
    """An argument string of several words written in this text (`ARGS="--model org/m --max-model-len 8192"`) keeps
    where each character was written, so the flags a later `$ARGS` gives point at their place in the string (a
    one-word value, `MODEL=org/m`, is pointed at where it is used, as before). A command line grown piece by piece
    (`CMD="docker run -d"`, then `CMD+=" --model ${MODEL}"`, sample K214) keeps every piece's place."""

    # the whole command line, its flags with it (`CMD="$CMD --flag $V"` too, when every character's place is known)
    words = value.split()
    command = ("vllm" in value or "sglang" in value) and \
        all(not f.origin or len(f.offsets) == len(f.text) for f in fields) and \
        any(w.startswith("-") and w[1:2].isalpha() or w.startswith("--") for w in words)  # `-tp 8` too (K295)
    if (appending and words) or (len(words) >= 2 and words[0] in _GROWN):
        offsets, source = _value_offsets(value, fields)
        return Partial(value, (), offsets, source) if offsets else value
    if len(words) < 3 or not (value.lstrip().startswith("-") or command):
        return value  # a literal command line kept in a variable (`CMD="python -m sglang.launch_server ..."`) too
    offsets, source = _value_offsets(value, fields)
    return Partial(value, (), offsets, source) if offsets else value


# programs whose command line a script grows in a variable before running it (`CMD="docker run -d"`)
_GROWN = frozenset({"docker", "podman", "nerdctl", "apptainer", "singularity", "vllm", "sglang", "python",
                    "python3", "srun"})


def _partial(value: str, fields: list[Field], appending: bool = False) -> str | None:
    """A value of several words with unknown expressions in it (`CMD="docker run -e T=$TOKEN IMAGE ..."`) as a
    Partial, which a later `exec $CMD` reads word by word; a one-word value with an unknown part stays unknown
    (`MODEL="$BASE/m"` is not a model). `appending`: words added to a command kept in the variable (`CMD+=" --tp
    ${TP}"`, sample K214), whose first word is an option's, not the command's: any number of them."""

    path = not appending and _names_model(value)
    if not appending and len(value.split()) < 3 and not path:
        return None
    holes: list[tuple[int, int]] = []
    for expr in dict.fromkeys(e for f in fields for e in f.missing):
        at = value.find(expr)
        while at >= 0 and expr:
            if not _name_goes_on(value, expr, at):  # `$i` is no hole inside `$ip` (sample K531: the rank's `$i`
                holes.append((at, at + len(expr)))  # beside `-e VLLM_HOST_IP=$ip` made the holes overlap)
            at = value.find(expr, at + len(expr))
    holes.sort()
    first = len(value) - len(value.lstrip())
    if not holes or (not appending and not path and holes[0][0] <= first + len(value.split()[0]) - 1) or \
            any(a < b_prev for (a, _), (_, b_prev) in zip(holes[1:], holes, strict=False)):
        return None  # its first word unknown (`$(( A * B ))`, `$RUNNER serve ...`): no command to read
    return Partial(value, tuple(holes), *_value_offsets(value, fields))


def _name_goes_on(value: str, expr: str, at: int) -> bool:
    """Whether `$NAME` found at `at` is only the start of a longer name (`$i` in `$ip`)."""
    end = at + len(expr)
    return expr[:1] == "$" and expr[1:2] != "{" and end < len(value) and (value[end].isalnum() or value[end] == "_")


def _names_model(value: str) -> bool:
    """A one-word path whose known text names a model whatever its unknown part (sample K498: `SNAP_IN=
    "/hf/hub/models--${MODEL//\\//--}/snapshots/$SNAP_NAME"`, the Hub cache's folder of the model, at a snapshot
    chosen at run time): kept with its holes, so the launch that serves it names that model."""
    from kvlint.launches.facts import path_alias

    return len(value.split()) == 1 and "models--" in value and path_alias(value) is not None


def _value_offsets(value: str, fields: list[Field]) -> tuple[tuple[int, ...], object]:
    """Where each character of an assignment's value was written (offsets into the fields' one source), so the
    words a later `$CMD` gives point at their place in the string; ((), None) when that is not known."""
    source = fields[0].source if fields else None
    if source is None or any(f.source is not source or len(f.offsets) != len(f.text) for f in fields):
        return (), None
    offsets: list[int] = []
    for f in fields:
        offsets += ([offsets[-1] + 1] if offsets else []) + list(f.offsets)  # the space joining two fields
    return tuple(offsets[len(offsets) - len(value):]), source


def _declared(words: tuple[Word, ...]) -> set[str]:
    """The names `local` / `declare` (not `declare -g`) makes local to the function: `local a=1 b`, `declare -a c`."""
    names: set[str] = set()
    for w in words:
        text = w.literal or _first_lit(w)
        if text.startswith("-"):
            if "g" in text:
                return set()
            continue
        name = _ASSIGN.match(text)
        names.add(name.group(1) if name else text)
    return names


def _export(words: tuple[Word, ...], m: Mapped, state: _State) -> None:
    for w in words:
        if w.elements is not None and _ASSIGN.match(w.literal or ""):
            _array_assignment(w, m, state.env, state)
        elif _ASSIGN.match(w.literal or _first_lit(w)):
            name, value = _assignment(w, m, state.env, state.positional)
            _note_default(w, name, state)
            _assigned(name, value, m.at(w.start)[0], state)
            if value is None:
                state.env.pop(name, None)
                state.runtime[name] = f"exported at line {m.at(w.start)[0]} from an expression evaluated at run time"
                state.written[name] = m.text[w.start:w.end].partition("=")[2].strip("\"'")
            else:
                state.env[name] = value


_ARRAY_REF = lazy(r"^\$\{([A-Za-z_][A-Za-z0-9_]*)\[[@*]\](?:(:?[+-])(.*))?\}$", re.DOTALL)
_JOINED = lazy(r"([A-Za-z_][A-Za-z0-9_]*)=\"?\$\{([A-Za-z_][A-Za-z0-9_]*)\[[@*]\]\}\"?")


def _joined_array(word: Word, m: Mapped, state: _State) -> tuple[str, str | None] | None:
    """`wrap_cmd="${wrap_cmds[*]}"`: an assignment joins the array's words with spaces (sample K266's `sbatch
    --wrap="${wrap_cmd}"` over `wrap_cmds=('source ~/.bashrc;' "vllm serve ${model} --tp 4")`), each character
    where its element was written; None for any other assignment, or an array kvlint does not know whole."""
    found = _JOINED.fullmatch(m.text[word.start:word.end])
    elements = state.arrays.get(found.group(2)) if found is not None else None
    if found is None or not elements or not all(f.resolved or f.text for f in elements):
        return None  # an element left to the run (`--port ${port}` unset, sample K285) keeps its text: `${port}`
    return found.group(1), _placed(" ".join(f.text for f in elements), list(elements))


_ECHOED = lazy(r"([A-Za-z_][A-Za-z0-9_]*)=[\"']?\$\(echo\s+\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?\s*\)[\"']?")


def _echoed(word: Word, m: Mapped, env: Mapping[str, str]) -> tuple[str, str | None] | None:
    """`CMD=$(echo $CMD)`: the value's words on one line (sample K408 folds a command written over several lines
    before handing it to `tmux new-session "exec $CMD"`, where a newline would end the command). The same words, each
    newline a blank (the same length, so a value with unknown parts keeps where each part is); None for any other
    assignment or a variable kvlint does not know."""
    from kvlint.launches.env import Partial

    found = _ECHOED.fullmatch(m.text, word.start, word.end) if m.text.find("=$(echo", word.start, word.end) >= 0 \
        else None
    held = env.get(found.group(2)) if found is not None else None
    if found is None or held is None:
        return None
    if isinstance(held, Partial):
        return found.group(1), Partial(held.replace("\n", " "), held.holes, held.offsets, held.source)
    return found.group(1), held.replace("\n", " ")


_PRINTED = lazy(r"([A-Za-z_][A-Za-z0-9_]*)=[\"']?\$\(([A-Za-z_][\w-]*)\b([^()`]*)\)[\"']?")
_ECHO_OPTIONS = frozenset({"-e", "-n", "-E", "-ne", "-en"})


def _printed(word: Word, m: Mapped, state: _State) -> tuple[str, str | None] | None:
    """`args=$(_launch_args prefill "$IP" "$PORT")` of a function the script defines whose body sets its locals and
    prints one `echo` (sample K402: the arguments of both P/D roles, built once): the value is what it prints, with
    the call's arguments as $1...; None for any other assignment or body (one that runs anything else)."""
    found = _PRINTED.fullmatch(m.text, word.start, word.end) \
        if state.functions and m.text.find("$(", word.start, word.end) >= 0 else None
    body = state.functions.get(found.group(2)) if found is not None else None
    if found is None or body is None:
        return None
    call = m.view(m.path, found.group(3), range(found.start(3), found.end(3) + 1))
    calls, errors = tokenize(call)
    args = (Field(found.group(2), None),  # $0, then the call's arguments as $1...
            *(f for c in calls[:1] for w in c.words for f in expand_word(w, call, state.env, state.positional)))
    commands, errors = tokenize(body) if not errors else ([], errors)
    env = dict(state.env)
    tests = 0  # inside this many `if` statements: what their arms add is left out, as a conditional addition is
    for cmd in commands[:64]:
        words = _past_openers(cmd.words)
        head = words[0].literal if words else None
        if not words:
            continue  # `then` alone on its line
        if head in ("if", "elif", "fi"):
            tests += (head == "if") - (head == "fi")
            continue
        if head == "echo" and not tests:
            shown = [w for w in words[1:] if w.literal not in _ECHO_OPTIONS]
            fields = [f for w in shown for f in expand_word(w, body, env, args)]
            text = " ".join(f.text for f in fields)
            return found.group(1), _placed(text, fields) if all(f.resolved for f in fields) else _partial(text, fields)
        assigns = words[1:] if head in ("local", "declare", "readonly") else words
        if not assigns or not all(_ASSIGN.match(w.literal or _first_lit(w)) for w in assigns):
            return None  # a body that runs something else prints what it runs: not read here
        for w in assigns if not tests else ():
            name, value = _assignment(w, body, env, args)
            if value is None:
                env.pop(name, None)  # a local known only at run time: its expansions stay unknown words
            else:
                env[name] = value
    return None


def _past_openers(words: tuple[Word, ...]) -> tuple[Word, ...]:
    """A command's words after the reserved words that open a body (`then cmd="..."`)."""
    k = 0
    while k < len(words) and words[k].literal in _OPENS_BODY:
        k += 1
    return words[k:]


def _array_assignment(word: Word, m: Mapped, env: dict[str, str], state: _State) -> None:
    """`NAME=( ... )` sets the array, `NAME+=( ... )` adds to it; an addition made only under a condition
    (an `if` branch, `[ ... ] && args+=(...)`) is left out and remembered for a note."""
    text = word.literal or ""
    name = text.rstrip("=").rstrip("+")
    elements = tuple(f for e in word.elements or () for f in _expand(e, m, env, state))
    if not text.endswith("+=") and _rest_of_arguments(word, m, state):
        state.arrays.pop(name, None)
        state.optional.pop(name, None)
        state.gathered.add(name)
    elif not text.endswith("+="):
        state.gathered.discard(name)
        state.array_loops[name] = state.loops
        state.arrays[name] = elements
        state.optional.pop(name, None)
        if state.arms and len(state.arm_arrays) < MAX_ARMS * MAX_CLOSED:  # an arm's array: a candidate, as a value
            line = m.at(word.start)[0]
            state.arm_arrays[(name, line)] = elements
            _assigned("@" + name, " ".join(f.text for f in elements), line, state)
    elif state.loops > state.array_loops.get(name, 0) and any(not f.resolved for f in elements):
        # a loop gathering run-time words (`while [ $# -gt 0 ]; do ... *) args+=("$1")`): known only when it runs
        state.arrays.pop(name, None)
        state.optional.pop(name, None)
        state.gathered.add(name)
    elif state.conditional and not _sure(state):
        line = m.at(word.start)[0]
        state.optional.setdefault(name, []).append(f"line {line}: `{' '.join(f.text for f in elements)}`")
    else:
        state.arrays[name] = state.arrays.get(name, ()) + elements
    limits.spend(sum(len(f.text) for f in elements))


def _rest_of_arguments(word: Word, m: Mapped, state: _State) -> bool:
    """`extra=("$@")` in a `while` loop over the arguments (`--) shift; extra=("$@"); break ;;`): the words left when
    the loop reaches that option, known only at run time, not all the words the function was called with (sample
    K503's `cmd_up NAME -g GPUS`, whose `-g` was read as an engine flag)."""
    return bool(state.loop_kinds) and state.loop_kinds[-1] in ("while", "until") \
        and _USES_POSITIONAL.search(m.text[word.start:word.end]) is not None


def _array_ref(word: Word) -> re.Match | None:
    """`"${NAME[@]}"`, `${NAME[*]}`, `${NAME[@]+"${NAME[@]}"}`: a word that is one array expansion."""
    found = None  # the one part that is not an empty literal (a loop: asked of every word of every command)
    for p in word.parts:
        if p.kind == "lit" and not p.text:
            continue
        if found is not None or p.kind != "special":
            return None
        found = p
    return None if found is None else _ARRAY_REF.match(found.text)


def _expand(word: Word, m: Mapped, env: dict[str, str], state: _State) -> list[Field]:
    """A word's fields; a known array's expansion is the array's own words, each where it was written."""
    ref = _array_ref(word)
    if ref is not None and ref.group(1) in state.gathered:  # its words are known only at run time, then any the
        # script adds after the loop that gathered them (a default it appends)
        return [Field(m.text[word.start:word.end], m.span(word.start, word.end), False, (ref.group(1),)),
                *state.arrays.get(ref.group(1), ())]
    if ref is not None and state.unsourced and ref.group(1) not in state.arrays and not ref.group(2):
        return [_sourced_array(ref.group(1), word, m, state)]
    if ref is not None and ref.group(1) in state.produced and not ref.group(2):
        return [Field(f"${ref.group(1)}", m.span(word.start, word.end), False, (ref.group(1),))]
    if ref is None or (ref.group(1) not in state.arrays and not ref.group(2)):
        return expand_word(word, m, env, state.positional)
    value = state.arrays.get(ref.group(1), ())
    if ref.group(2) and ref.group(2).endswith("+"):  # `${a[@]+WORD}`: WORD (the array again) when a is set
        return list(value)
    return list(value) or ([] if ref.group(2) is None else expand_word(word, m, env, state.positional))


_MAPFILE_VALUED = frozenset({"-d", "-n", "-O", "-s", "-u", "-C", "-c"})  # mapfile's options that take a value


def _produced_array(args: list[Field], state: _State) -> None:
    """`mapfile -t args < <(uv run app vllm-args config.yaml)`: the array holds a program's output lines (sample
    K251: the engine's arguments made from a configuration), known only at run time: an engine run on it is a launch
    whose model is among those words (as an array a sourced file sets), not the caller's arguments passed on."""
    k = 0
    while k < len(args) and args[k].text.startswith("-"):
        k += 1 + (args[k].text in _MAPFILE_VALUED)
    name = args[k].text if k < len(args) and args[k].resolved else "MAPFILE"
    if not name.isidentifier():
        return
    state.arrays.pop(name, None)
    state.gathered.discard(name)
    state.produced.add(name)
    state.runtime[name] = f"{SOURCED_ARRAY}a program's output (mapfile), read at run time"


def _sourced_array(name: str, word: Word, m: Mapped, state: _State) -> Field:
    """`"${ARGS[@]}"` of an array the script never sets, after it sources a file kvlint cannot read: bash exports no
    array, so no caller hands it in; it is that file's (sample K173's `serve-common.sh`), a configuration's words
    unknown here (the model among them), not arguments passed through. Read as one unresolved word."""
    state.runtime.setdefault(name, f"{SOURCED_ARRAY}{state.unsourced[0]}, which the script sources (not read)")
    return Field(f"${name}", m.span(word.start, word.end), False, (name,))


def _optional_notes(words: tuple[Word, ...], state: _State) -> tuple[str, ...]:
    """What the launch's arrays gain only under a condition: read without it, said in a note."""
    out = []
    for w in words:
        ref = _array_ref(w)
        for added in state.optional.get(ref.group(1), []) if ref else []:
            out.append(f"{added} is added to ${{{ref.group(1)}[@]}} only when a condition holds: "  # type: ignore[union-attr]
                       "read without it")
    return tuple(out)


def launch_in_argv(fields: list[Field], env: dict[str, str], depth: int = 0, state: _State | None = None,
                   image_default: str | None = None, around: str = "") -> FoundLaunch | None:
    """Peel prefixes off one argv and return the engine launch it starts, if any. `around`: the text of the file an
    argv without a script state sits in (a manifest's container), whose engine names a program kvlint does not know
    may be read by (kvlint.launches.byflags)."""
    cvd = env.get("CUDA_VISIBLE_DEVICES")
    gpus: tuple[str | None, Span | None] = (f"cuda:{cvd}" if cvd else None, None)
    nodes = None
    runner: str | None = None
    i = 0
    while i < len(fields):
        head = fields[i].text.rsplit("/", 1)[-1]
        if _ASSIGN.match(fields[i].text):
            name, _, value = fields[i].text.partition("=")
            env = {**env, name: value}
            if name == "CUDA_VISIBLE_DEVICES":
                gpus = (f"cuda:{value}", fields[i].span)
            i += 1
        elif head in _PLAIN_PREFIX or head in _RESERVED or (i == 0 and _PROMPT.match(fields[i].text)):
            i += 1
        elif _ENTRY_SCRIPT.match(head) and i + 1 < len(fields) and not fields[i + 1].text.startswith("-"):
            # in a script (a container's own command is its reader's: compose knows the mounted script's source)
            handed = _handed_model(fields, i, env) if state is not None else None
            if handed is not None:
                return _with_allocation(handed, gpus, nodes)
            i += 1  # an image's entry-point script handed a command (`nvidia_entrypoint.sh bash -c ...`) runs it
        elif head in _INIT_PROCESSES:
            i += 1
            while i < len(fields) and fields[i].text.startswith("-"):
                i += 1
        elif head in wrappers.PREFIX_COMMANDS:  # `timeout -k 60 DURATION CMD`, `gosu USER CMD` (a privilege drop)
            i = wrappers.after_prefix(fields, i)
        elif wrappers.prefixing_expansion(fields, i):  # `$SUDO docker run ...`, `${NCCL_EXPORTS} docker run ...`
            i += 1
        elif head == "bwrap" and (sandbox := wrappers.after_bwrap(fields, i)) is not None:
            i, set_env = sandbox  # the command bubblewrap runs, with the variables it sets
            for var, given in set_env:
                env = {**env, var: given.text}
                gpus = (f"cuda:{given.text}", given.span) if var == "CUDA_VISIBLE_DEVICES" else gpus
        elif head in ("srun", "numactl"):
            start = i
            i, gres, srun_nodes = _skip_options(fields, i + 1, state.written if state is not None else {})
            gpus, nodes = gres or gpus, srun_nodes or nodes
            image = _pyxis_image(fields[start:i]) if head == "srun" else None
            if image is not None:
                step = _container(fields, (i - 1, "run"), env, depth, state, image)
                return _with_allocation(step, gpus, nodes)
        elif head in ("mpirun", "mpiexec"):
            i = wrappers.after_mpirun(fields, i)
            fields = wrappers.first_app(fields, i)
        elif head in wrappers.RUN_TOOLS and wrappers.after_run_tool(fields, i) is not None:
            runner = runner or head
            i = wrappers.after_run_tool(fields, i) or i + 1
            if i < len(fields) and fields[i].text in ("-m", "--module"):  # `uv run -m MODULE`: `python -m MODULE`
                fields = [*fields[:i], replace(fields[i], text="python"), replace(fields[i], text="-m"),
                          *fields[i + 1 :]]
            fields = _hatch_script(fields, i) if head == "hatch" and i < len(fields) else fields
        elif head in ("torchrun", "accelerate", "debugpy") and wrappers.launcher_module(fields, i) is not None:
            # `torchrun [opts] -m MODULE` runs MODULE as `python -m MODULE` would: read it so
            module = wrappers.launcher_module(fields, i) or i
            fields = [*fields[:i], replace(fields[i], text="python"), *fields[module:]]
            break
        elif head in wrappers.CONTAINERS and wrappers.container_image(fields, i) is not None:
            inside = _container(fields, wrappers.container_image(fields, i) or (i, ""), env, depth, state)
            return _with_allocation(inside, gpus, nodes)
        elif head in ("hf", "huggingface-cli") and wrappers.hf_job_image(fields, i) is not None:
            inside = _container(fields, wrappers.hf_job_image(fields, i) or (i, ""), env, depth, state)
            return _with_allocation(inside, gpus, nodes)
        elif head == "enroot" and wrappers.enroot_image(fields, i) is not None:
            inside = _container(fields, wrappers.enroot_image(fields, i) or (i, ""), env, depth, state)
            return _with_allocation(inside, gpus, nodes)
        elif head == "screen" and wrappers.after_screen(fields, i) is not None:
            i = wrappers.after_screen(fields, i) or i + 1
        elif head == "ray" and wrappers.after_double_dash(fields, i) is not None:
            i = wrappers.after_double_dash(fields, i) or i + 1
        elif head == "tmux" and wrappers.tmux_command(fields, i) is not None and depth < MAX_DEPTH:
            start, end = wrappers.tmux_command(fields, i) or (i, i)
            if end - start > 1:
                fields, i = list(fields[start:end]), 0
                continue
            return _string_command(fields[start], env, depth, state)
        elif head in wrappers.USER_SWITCHERS and depth < MAX_DEPTH and \
                (at := wrappers.switched_command(fields, i)) is not None:
            return _with_allocation(_string_command(fields[at], env, depth, state), gpus, nodes)
        elif head == "sbatch" and wrappers.sbatch_wrap(fields, i) is not None and depth < MAX_DEPTH:
            wrapped = _string_command(_wrap_value(fields[wrappers.sbatch_wrap(fields, i) or i]), env, depth, state)
            _, gres, sb_nodes = _skip_options(fields, i + 1)
            if wrapped is not None and gres is not None and wrapped.gpus is None:
                wrapped = replace(wrapped, gpus=gres[0], gpus_span=gres[1], nodes=wrapped.nodes or sb_nodes)
            return wrapped
        elif head in ("sh", "bash", "zsh") and depth < MAX_DEPTH:
            through = _shell_c(fields, i, env, depth, state)
            if through is not None or not _script_with_words(fields, i):
                return through
            i += 1  # `bash /opt/coldstart-run.sh --run-id serve -- --model M ...` (sample K409): the script is the
            # program, read as it would be without `bash` (by its flags, when they are an engine's)
        elif head == "gcloud" and depth < MAX_DEPTH and (remote_line := wrappers.cloud_ssh_command(fields, i)):
            return _string_command(remote_line, env, depth, state)
        elif head in ("ssh", "pm2") and depth < MAX_DEPTH and (at := wrappers.remote_command(fields, i)) is not None:
            remote = wrappers.pm2_words(fields, at) if head == "pm2" else fields[at:]
            if len(remote) == 1 and " " in remote[0].text:  # one command line: the remote or supervised shell's
                return _string_command(remote[0], env, depth, state)
            return launch_in_argv(list(remote), env, depth + 1, state)
        elif head.endswith(".sh") and depth < MAX_DEPTH and (wrapped := _wrapping_script(fields, i, env, depth,
                                                                                        state)) is not None:
            return wrapped
        elif head == "eval" and depth < MAX_DEPTH:
            return _eval(fields[i + 1 :], env, depth, state)
        elif head == "gcloud" and (at := cloud_run.deploy_at(fields, i)) is not None:
            deploy = cloud_run.read_deploy(fields, at)
            inside = _docker_run(list(deploy.words), 2, env, depth, state) if deploy is not None else None
            if inside is None or deploy is None or deploy.gpus is None:
                return inside
            return replace(inside, gpus=deploy.gpus, gpus_span=deploy.gpus_span)
        elif head in ("docker", "podman", "nerdctl", "kubectl", "oc") and wrappers.exec_command(fields, i):
            at = wrappers.exec_command(fields, i) or i + 1
            held = state.containers.get(fields[at - 1].text) if state is not None and head[0] in "dpn" else None
            if depth >= MAX_DEPTH:
                i = at
                continue
            if held is None:  # a container (or pod) started elsewhere: whatever it runs, its release is not here
                inside = launch_in_argv(list(fields[at:]), env, depth + 1, state)
                return replace(inside, container=fields[at - 1].text) if inside is not None else None
            inside = _in_container(launch_in_argv(list(fields[at:]), env, depth + 1, state), held)
            if inside is not None and state is not None:  # the container's run is read now: no "unread" note for it
                ran = f" run --name {fields[at - 1].text}"
                state.unread[:] = [u for u in state.unread if not u[2].endswith(ran)]
            return inside
        elif (head in RUNNERS or head.startswith(_RUNNER_FUNCTIONS) or (head[:1] in "$\"'" and runner_variable(head))) \
                and is_run(fields, i) is not None:
            host_only = (gpus[0] or "").startswith("cuda:")  # the host's CUDA_VISIBLE_DEVICES stays outside docker
            inside = _docker_run(fields, is_run(fields, i) or 0, env, depth, state)
            return _with_allocation(inside, (None, None) if host_only else gpus, nodes)
        elif head in cloud_run.PLATFORM_CLIS and (platform := cloud_run.platform_deploy(fields, i)) is not None:
            return _docker_run(list(platform.words), 2, env, depth, state)
        elif head in cloud_run.CLUSTER_CLIS and (pod := cloud_run.cluster_run(fields, i)) is not None:
            return _docker_run(list(pod.words), 2, env, depth, state)  # `kubectl run`, `docker service create`
        elif head.startswith("python") and i + 1 < len(fields) \
                and fields[i + 1].text.rsplit("/", 1)[-1] in ENGINE_NAMES and "/" in fields[i + 1].text:
            i += 1  # `<venv>/bin/python <venv>/bin/vllm serve M` (sample K522's guide): the interpreter runs the
            # engine's console script, as the script's own shebang would
        elif head.startswith("python") and i + 2 < len(fields) and fields[i + 2].text == "debugpy" \
                and fields[i + 1].text == "-m" and (at := wrappers.launcher_module(fields, i + 2)) is not None:
            fields = [*fields[:i], fields[i], *fields[at:]]  # `python -m debugpy [opts] -m MODULE`: the module runs
            break
        elif "_" in head and head.startswith(_STARTER_FUNCTIONS) and depth < MAX_DEPTH \
                and (at := _command_argument(fields, i)) is not None:
            return _string_command(fields[at], env, depth, state)
        else:
            break
    rest = _program_named(fields[i:], state)
    if (package := _package_without_main(rest)) is not None:
        engine, at = package
        return FoundLaunch(engine, tuple(rest[at + 1 :]), _join(rest[0].span, rest[at].span), env, None, gpus[0],
                           gpus[1], nodes=nodes, runner=runner, no_main=rest[at - 1])
    found = detect([f.token() for f in rest])
    if found is not None and _asks_help(rest[found[1]:]):
        return None  # `vllm serve --help`: the parser prints its options and exits, no server starts
    if found is not None:
        engine, k = found
        span = _join(rest[0].span, rest[k - 1].span) if k else None
        wrapper = wrapper_of([t.text for t in rest[:k]])
        words, joined = split_joined(engine, list(wrappers.engine_words(wrapper, rest[k:])), env)
        written = _written_path(fields[i].text, state) if rest and fields[i].span == rest[0].span else \
            rest[0].text if rest else ""
        program = written if k and "/" in written and not wrapper else None
        return FoundLaunch(engine, tuple(words), span, env, None, gpus[0], gpus[1], wrapper=wrapper, nodes=nodes,
                           runner=runner, joined=joined, program=program)
    first = rest[0].text.rsplit("/", 1)[-1] if rest else ""
    cli = _cli_needing_subcommand(first) if not image_default and len(rest) > 1 else None
    if cli is not None and rest[1].text.startswith("-") and rest[1].text not in _CLI_OWN:
        return FoundLaunch(cli, tuple(rest[1:]), rest[0].span, env, None, gpus[0], gpus[1], nodes=nodes,
                           runner=runner, no_subcommand=rest[0])
    if cli is not None and state is not None and len(rest) == 2 and rest[1].missing \
            and rest[1].missing[0] in state.produced:
        # `vllm "${args[@]}"`, the array a program's output (mapfile): the subcommand, the model and the flags are
        # its words, known at run time (sample K251): a launch whose model is among them
        return FoundLaunch(cli, tuple(rest[1:]), rest[0].span, env, None, gpus[0], gpus[1], nodes=nodes,
                           runner=runner)
    if image_default and first == "serve" and not _keeps_serve_word(image_default):
        rest, first = rest[1:], ""  # an image whose entry point is the engine CLI (`ENTRYPOINT ["vllm"]`)
    if image_default and (not rest or (first not in _NOT_ENGINE_ARGS and not re.fullmatch(r"python3?\.\d+", first)
                                       and not first.endswith(_SCRIPT_FILES)
                                       and not _image_program(rest, image_default))):
        # an image's entry point is handed the words as they are: an exec-form list item holding several of the
        # engine's arguments (compose `command: [..., "--max-num-batched-tokens 2048"]`, sample K388) is one word
        words, joined = split_joined(image_default, list(rest), env)
        return FoundLaunch(image_default, tuple(words), None, env, None, gpus[0], gpus[1], nodes=nodes, joined=joined)
    # imported here (only launches through an unknown program need it), and not with `from`: in a function that asks
    # the module for `__path__` on every call, an AttributeError formatted and dropped (~8,000 instructions)
    import kvlint.launches.byflags as byflags

    printer = first in _PRINTERS or _records(first)  # `printf "%s\n" "${CMD[@]}"` shows a command, runs none
    by_flags = byflags.read_by_flags(rest, state.named if state is not None else engines_named(around)) \
        if not printer and byflags.model_flag_in(rest) else None
    if by_flags is not None:
        return FoundLaunch(by_flags.engine, by_flags.words, by_flags.program.span, env, None, gpus[0], gpus[1],
                           notes=(by_flags.note,), wrapper=by_flags.program.text.rsplit("/", 1)[-1], nodes=nodes,
                           left_to=_left_to(by_flags), runner=runner)
    return _handed_shell(rest, env, depth, state) or _handed_engine(rest, env, depth, state) \
        or _handed_command(rest, env, depth, state)


# options whose value is a whole shell command a tool runs: a job submitter's, and vLLM's own `vllm bench sweep serve
# --serve-cmd "vllm serve M ..."` (sample K421's Makefile), which starts that server for each sweep
_COMMAND_OPTIONS = frozenset({"--command", "--cmd", "--serve-cmd"})


def _handed_command(rest: list[Field], env: dict[str, str], depth: int, state: _State | None) -> FoundLaunch | None:
    """A program handed a whole shell command as an option's value (`xpk workload create ... --command "$COMMAND"`
    after `COMMAND="export T=x && python -m vllm.entrypoints.openai.api_server --model M ..."`, sample K94) or as
    one argument (a job submitter: `python submit_job.py NAME "uv run -- vllm serve M ..." --ngpu 2`, sample K110):
    the tool runs that command, so it is read as `sh -c` reads its script. An argument counts when it holds words
    and the script it reads as starts an engine; a program that prints or searches text is never one."""
    if len(rest) < 2 or depth >= MAX_DEPTH or rest[0].text.rsplit("/", 1)[-1] in _QUOTING:
        return None
    for k in range(1, min(len(rest), 64)):
        value = rest[k]
        named = "vllm" in value.text or "sglang" in value.text
        if not named and rest[k - 1].text in _COMMAND_OPTIONS:  # `--serve-cmd "$(VLLM) serve M"`: named in capitals
            named = "vllm" in value.text.lower() or "sglang" in value.text.lower()
        if named and rest[k - 1].text in _COMMAND_OPTIONS:
            if rest[k - 1].text == "--serve-cmd":  # the sweep splits it into words (shlex): a newline is a blank
                value = replace(value, text=value.text.replace("\n", " "))
            return _run_string(value, env, depth, (), state)
        program = " " not in rest[0].text.strip()  # a program's name, not a list of command lines (a CI step's)
        if named and program and " " in value.text.strip() and not value.text.startswith("-") \
                and (found := _argument_command(value, env, depth, state)) is not None:
            return found
        if program and value.text.lstrip().startswith("--") and " " in value.text.strip() and \
                rest[k - 1].text.startswith("-") and (found := _handed_flags(rest, k, env, depth)) is not None:
            return found
    return None


def _handed_flags(rest: list[Field], k: int, env: dict[str, str], depth: int) -> FoundLaunch | None:
    """A program handed the engine's arguments as one option's value, the engine named by another of its options or
    by the flags themselves (sample K117: `sml advanced --framework sglang --framework-args "--model-path M --dp-size
    4 ..."`, a cluster tool that submits the server): the engine's launch with those arguments, each at its place,
    the parallelism the flags do not state left to the program. The value must name the engine's model."""
    from kvlint.engines.registered import facts
    from kvlint.launches.infer import engine_from_flags

    value = rest[k]
    words = value.text.split()
    named = {w.text.lower() for w in rest if w.text.lower() in ENGINE_NAMES}
    engine = next(iter(named)) if len(named) == 1 else engine_from_flags([Field(w, None) for w in words])
    if engine is None or not any(w.split("=", 1)[0] == facts(engine).MODEL_FLAG for w in words):
        return None
    m = value.mapped()
    prefix = f"python3 -m {facts(engine).ENTRY_MODULES[0]} "
    inner = m.view(m.path, prefix + m.text, [0] * len(prefix) + list(range(len(m.text) + 1)))
    launches, _, _ = run_script(inner, env, depth + 1)
    if not launches:
        return None
    note = (f"{rest[0].text} is handed {engine}'s arguments in {rest[k - 1].text} and starts the engine with them "
            "(its other options are its own)")
    return replace(launches[-1], notes=launches[-1].notes + (note,), left_to=f"the program {rest[0].text}",
                   entry_span=rest[0].span)


def _argument_command(word: Field, env: dict[str, str], depth: int, state: _State | None) -> FoundLaunch | None:
    """An argument that reads as a command starting the engine with a model written out (`"uv run -- vllm serve M
    ..."`): a pattern a program matches (`pkill -f 'vllm serve'`) or a description (`'vllm serve ...'`) names no
    model, and nothing of its reading is kept."""
    launches, _, notes = run_script(word.mapped(), env, depth + 1, (), state.written if state is not None else None)
    model = _model_of(launches[-1]) if launches else None
    if model is None or not any(ch.isalnum() for ch in model) or _prose(launches[-1], model):
        return None
    if state is not None:
        state.launches.extend(launches[:-1])
        state.notes.extend(notes)
    return launches[-1]


def _prose(found: FoundLaunch, model: str) -> bool:
    """Whether an argument that starts with the engine's command is a sentence about it (sample K536's `die "vllm
    serve exited immediately"`, `ok "vllm serve started (logs: ...)"` of helpers a sourced file defines): its model a
    bare word of letters, or words the engine takes as no argument of its own before its first option."""
    leading = 0
    for f in found.fields:
        if f.text.startswith("-"):
            break
        leading += 1
    return model.isalpha() or leading > 1


def _run_string(script: Field, env: dict[str, str], depth: int, positional: tuple[Field, ...],
                state: _State | None) -> FoundLaunch | None:
    """A command string a program runs (`sh -c SCRIPT ARGS`, a tool's `--command "$CMD"`), read as a script one level
    deeper: its last launch is the command's, any before it are the caller's too."""
    launches, _, notes = run_script(script.mapped(), env, depth + 1, positional,
                                    state.written if state is not None else None,
                                    cuts=state.cuts if state is not None else None,
                                    named=state.named if state is not None else ())
    if state is not None:
        state.launches.extend(launches[:-1])
        state.notes.extend(notes)
    return launches[-1] if launches else None


_LAUNCHER = lazy(r"[\w.~$][\w.~/${}+-]*|/[\w.~/${}+-]+")
_SCRIPT_SUFFIXES = (".sh", ".bash", ".py", ".zsh")
_PRINTERS = frozenset({"echo", "printf", "print", "logger", "log", "info", "warn", "debug", "note", "cat", "tee"})


def _handed_model(fields: list[Field], i: int, env: dict[str, str]) -> FoundLaunch | None:
    """An entry-point script handed a model and then one engine's own flags (`/docker_entrypoint.sh /models/m
    --tensor-parallel-size 1 --kv-cache-dtype fp8 ...`, sample K67): not a command to run but the engine's
    arguments, which the script passes on (`exec vllm serve "$@"`), read as that engine's launch whether or not the
    script is in the tree."""
    from kvlint.launches.infer import engine_from_flags

    engine = engine_from_flags(fields[i + 1 :])
    if engine is None:
        return None
    note = f"{fields[i].text} is handed a model and {engine}'s own flags: read as the engine's arguments it passes on"
    return FoundLaunch(engine, tuple(fields[i + 1 :]), fields[i].span, env, notes=(note,),
                       wrapper=fields[i].text.rsplit("/", 1)[-1])


def _asks_help(words: list[Field]) -> bool:
    return any(w.text[:6] == "--help" and (len(w.text) == 6 or w.text[6] == "=") or w.text == "-h" for w in words)


# programs whose command arguments are a template filled in per item (`xargs -I{} vllm serve {}`): said, not read
_TEMPLATING = frozenset({"xargs", "parallel", "find", "watch"})


_HANDED_WORDS = 256  # how far into a command a launcher's `--` is looked for


def _handed_at(rest: list[Field]) -> list[int]:
    """Where a handed command may start: any of the first words (`launcher --solo exec vllm serve`), and after
    each `--` however many of the launcher's own options come first (`vllm-wrapper serve --listen :8080
    --wait-timeout 5m ... -- vllm serve M`)."""
    near = range(1, min(len(rest) - 1, 16))
    far = [k for k in range(16, min(len(rest) - 1, _HANDED_WORDS)) if rest[k - 1].text == "--"]
    return [*near, *far]


_RECORDING = frozenset({"write", "save", "record", "log", "print", "echo", "dump", "show", "display", "store", "emit"})
_RUNNING = frozenset({"run", "runs", "exec", "start", "launch", "and", "then", "serve"})


def _records(program: str) -> bool:
    """A helper whose name says it records the command it is handed rather than running it (`write_command FILE sglang
    serve ...`, sample K544's InferenceX benchmark, which runs the same words on its next line): its first word a
    verb of writing or showing, and no word of running (`log_and_run` runs)."""
    words = re.split(r"[_-]", program.lower())
    return words[0] in _RECORDING and not _RUNNING.intersection(words)


def _handed_engine(rest: list[Field], env: dict[str, str], depth: int, state: _State | None) -> FoundLaunch | None:
    """A program kvlint does not know handed an engine command after its own options (`./launch-cluster.sh --solo
    -t vllm-node exec vllm serve M ...`, `run-on-node gpu3 -- python -m sglang.launch_server ...`): such launchers
    run the command they are given, so the launch is that command; the launcher's options are not read (said)."""
    if len(rest) < 3 or depth >= MAX_DEPTH:
        return None
    words = " ".join(f.text for f in rest[1:_HANDED_WORDS]).lower()  # asked of every command: the cheap test first
    if "vllm" not in words and "sglang" not in words:
        return None

    program = rest[0].text.rsplit("/", 1)[-1]
    if program in _QUOTING or program in _NAMES_ONLY or program in _TEMPLATING or _records(program) \
            or not _LAUNCHER.fullmatch(rest[0].text) or not _LAUNCHER.fullmatch(program):
        return None
    for k in _handed_at(rest):
        direct = detect([f.token() for f in _program_named(rest[k:])]) is not None
        if (not direct and rest[k - 1].text != "--") or _in_optional_group(rest[1:k]):
            continue
        # a launcher is a program file (`./launch-cluster.sh`, `/opt/x/run`), or hands the command over after `--` /
        # `exec`; a bare word before an engine command is more likely prose (`// sglang serve CLI takes ...`)
        # (`b12x-kcache exec vllm serve M`, sample K240: the `exec` verb is where the handed command starts)
        handed = "/" in rest[0].text or program.endswith(_SCRIPT_SUFFIXES) or rest[k - 1].text in ("--", "exec") \
            or rest[k].text == "exec" or _bare_launcher(rest, k, direct) or (direct and _runs_its_arguments(rest))
        found = launch_in_argv(list(rest[k:]), env, depth + 1, state) if handed and program not in ENGINE_NAMES \
            else None  # `/opt/venv/bin/vllm vllm serve`: a template's two spellings of one program, not a launcher
        if found is None and direct:
            return None
        if found is None:
            continue  # after `--` another launcher's command (`systemd-run ... -- vllm serve`): read on
        own = " ".join(f.text for f in rest[1:k]) or "none"
        note = (f"run through {rest[0].text} (its own options not read: {own}), read as a launcher that runs the "
                "engine command it is given")
        return replace(found, notes=(*found.notes, note))
    return None


def _runs_its_arguments(rest: list[Field]) -> bool:
    """`python3 -c CODE ARG... python3 -m sglang.launch_server ...` whose code starts a process (`os.execvp(command[0],
    command)` after a check of its own, sample K434's revision guard): the interpreter hands its arguments on as a
    launcher does."""
    return len(rest) > 3 and _PY_PROGRAM.fullmatch(rest[0].text.rsplit("/", 1)[-1]) is not None \
        and rest[1].text == "-c" and any(call in rest[2].text for call in _PROCESS_CALLS)


_PY_PROGRAM = lazy(r"python[\d.]*")
_PROCESS_CALLS = ("exec", "subprocess", "Popen", "system(", "spawn")


def _in_optional_group(before: list[Field]) -> bool:
    """Whether the words before an engine command leave a `[` open: a usage synopsis names the engine inside an
    optional group (`run.sh start [model] [extra vllm serve args...]`, sample K275's usage text), no command."""
    return sum(f.text.count("[") - f.text.count("]") for f in before) > 0


# a program's compound name (`standard-supervisor`, `with_retry`): words joined as no prose joins them
_COMMAND_NAME = lazy(r"[a-z][a-z0-9]*(?:[-_][a-z0-9]+)+")
# a helper named for what it prints (`log_info vllm serve M`, `print-step ...`): it shows the command, runs none
_PRINTING_PARTS = frozenset({"log", "echo", "print", "printf", "info", "warn", "warning", "error", "err", "debug",
                             "msg", "message", "say", "note", "notice", "step", "banner", "status", "fail", "die",
                             "title", "header", "section", "hint", "tip", "show", "display", "trace", "verbose"})


def _bare_launcher(rest: list[Field], k: int, direct: bool) -> bool:
    """A program of a compound name handed an engine command right after it, or after options alone
    (`standard-supervisor vllm serve M ...`, a supervisor that restarts the server; sample K261): it runs that
    command, as `nohup` does, whatever it is called; options before it may take one value each. A plain word before
    an engine command (`cli vllm serve M`) may be prose, and stays none."""
    if not direct or _COMMAND_NAME.fullmatch(rest[0].text) is None \
            or not _PRINTING_PARTS.isdisjoint(re.split(r"[-_]", rest[0].text)):
        return False
    # each word between is an option, or the value of the option before it (rest[j] is the word before rest[j + 1])
    return all(w.text.startswith("-") or rest[j].text.startswith("-") for j, w in enumerate(rest[1:k]))


# commands that print, record or match their arguments: a shell command among them is text, not run
_QUOTING = frozenset({"echo", "printf", "logger", "log", "info", "warn", "debug", "note", "git", "grep", "sed",
                      "awk", "tee", "cat", "jq", "yq", "gh", "curl", "ssh-keygen", "trap", "alias", "complete",
                      "pkill", "pgrep", "killall", "pidof"})


def _handed_shell(rest: list[Field], env: dict[str, str], depth: int, state: _State | None) -> FoundLaunch | None:
    """A command kvlint does not know (a function from a sourced file: `start_with_pid_file "$pid" bash -lc
    "exec vllm serve ..."`) handed a shell and its `-c` script among its arguments: such helpers run what they are
    given (as `nohup` or `setsid` do), so the script is read."""
    if len(rest) < 3 or depth >= MAX_DEPTH or rest[0].text.rsplit("/", 1)[-1] in _QUOTING:
        return None
    for k in range(1, min(len(rest) - 2, 8)):
        if rest[k].text.rsplit("/", 1)[-1] in ("sh", "bash", "zsh") and rest[k + 1].text.startswith("-") \
                and "c" in rest[k + 1].text[1:] and not rest[k + 1].text.startswith("--"):
            return _shell_c(rest, k, env, depth, state)
    return None


def _image_program(rest: list[Field], engine: str) -> bool:
    """Whether the words handed to an engine image are a program of the image and its arguments, replacing the entry
    point, never the engine's model: a word that is no model (neither a Hub id nor a path) followed by another word
    that is no flag (`command: ["uvicorn", "reranker:app", "--host", ...]` on sample K127's local `vllm-cpu` build: no
    engine's parser takes two positional words, and `serve` was taken off before), or by an option the engine's parser
    has under no spelling or prefix (`bigdl-llm/triton_vllm:latest tritonserver --model-store /model_repository`,
    sample K447: Triton with its vLLM backend; `serve --manifest F` stays the CLI's verb and a wrapper's options)."""
    from kvlint.flags.flag_table import flag_table
    from kvlint.launches.infer import model_shaped

    head, nxt = rest[0], rest[1] if len(rest) > 1 else None
    if nxt is None or not head.resolved or head.text.startswith("-") or "/" in head.text \
            or model_shaped(head.text) or _MODEL_PLACEHOLDER.fullmatch(head.text):
        return False
    if not nxt.text.startswith("-"):
        return nxt.resolved
    if not nxt.text.startswith("--") or head.text == "serve":
        return False
    name = nxt.text.split("=", 1)[0]
    return not any(option.startswith(name) for option in flag_table(engine).by_option)


# a placeholder the reader fills with a model (`IMAGE <model> <flags>`, sample K373's setup list): the model the
# entry point serves, never a program
_MODEL_PLACEHOLDER = lazy(r"(?i)<[\w.-]*model[\w.-]*>")


_CLI_OWN = frozenset({"-h", "--help", "-v", "--version"})  # the options an engine's CLI takes before a subcommand


def _package_without_main(rest: list[Field]) -> tuple[str, int] | None:
    """(engine, index of the subcommand) of `python [OPTIONS] -m PACKAGE SUBCOMMAND ...` where PACKAGE is an
    engine's CLI package that has no `__main__` (each engine's CLI_PACKAGE_WITHOUT_MAIN: `python -m vllm serve M`,
    sample K201): Python refuses to run it, but the words say what was meant."""
    from kvlint.engines.registered import engine_names, facts
    from kvlint.flags.launch import PY_OPTIONS

    if len(rest) < 4 or "python" not in rest[0].text \
            or not re.fullmatch(r"python(?:3(?:\.\d+)?)?", rest[0].text.rsplit("/", 1)[-1]):
        return None
    j = 1
    while j < len(rest) and rest[j].text in PY_OPTIONS:
        j += 1
    if j + 2 >= len(rest) or rest[j].text != "-m":
        return None
    for engine in engine_names():
        package, cli = facts(engine).CLI_PACKAGE_WITHOUT_MAIN, facts(engine).CLI_SUBCOMMAND
        if package and cli and rest[j + 1].text == package and rest[j + 2].text == cli[1]:
            return engine, j + 2
    return None


@functools.lru_cache(maxsize=16)
def _cli_needing_subcommand(program: str) -> str | None:
    """The engine whose CLI `program` is, when that CLI starts its server only through a subcommand (each engine's
    CLI_SUBCOMMAND fact: `vllm serve`); None for any other program."""
    from kvlint.engines.registered import engine_names, facts

    if not program:
        return None  # a path ending in `/` (a model folder handed to an image's entry point) is no program's name
    return next((e for e in engine_names() if (facts(e).CLI_SUBCOMMAND or ("",))[0] == program), None)


def _keeps_serve_word(engine: str) -> bool:
    """SGLang reads `serve` itself (`sglang serve MODEL`: the positional model comes after it); vLLM's entry point
    `vllm` takes `serve` as its subcommand, so the flags start after it."""
    from kvlint.engines import get_engine

    return get_engine(engine).syntax.positional_model == "after-serve"


def _program_named(rest: list[Field], state: _State | None = None) -> list[Field]:
    """A program given by an unresolved variable, read by what follows it: `"${PYTHON}" -m MODULE` is a Python
    interpreter, `$VLLM_BIN serve ...` the CLI of the engine the variable is named for, `"$BIN" serve ...` after
    `BIN=$HOME/venv/bin/vllm` the engine its written value's last part is."""

    if len(rest) < 2 or rest[0].resolved or not is_unresolved(rest[0].text):
        return rest
    k = 1
    while k < len(rest) - 1 and k <= 3 and rest[k].text in PY_OPTIONS:
        k += 1  # the interpreter's own options (`"$PY" -u -m MODULE`: unbuffered)
    if rest[k].text == "-m":
        return [replace(rest[0], text="python"), *rest[1:]]
    name = rest[0].text.lower()
    written = _as_written(rest[0].text, state).rstrip("}").rsplit("/", 1)[-1]  # `${BIN:-$HOME/venv/bin/vllm}` too
    engine = next((e for e in ENGINE_NAMES if e in name), written if written in ENGINE_NAMES else None)
    if engine is not None and rest[1].text == "serve":
        return [replace(rest[0], text=engine), *rest[1:]]
    return rest


def engines_named(text: str) -> tuple[str, ...]:
    """The engines a text names anywhere (a comment, an environment's name): what a command run through a
    program kvlint does not know may be read as (kvlint.launches.byflags)."""

    low = text.lower() if len(text) < 1_000_000 else text[:1_000_000].lower()
    return tuple(e for e in ENGINE_NAMES if e in low)


def _skip_options(fields: list[Field], i: int, written: dict[str, str] | None = None,
                  ) -> tuple[int, tuple[str, Span | None] | None, str | None]:
    """Past srun's (or numactl's) options, by srun's documented table: `--ntasks-per-node 1` takes the next word,
    `--exact` or `-l` none; a short option the table does not know takes one, a long one none. A variable the script
    set to options and left partly to run time (`$MOUNTS` after `MOUNTS="--container-mounts=$BASE_DIR:..."`, sample
    K457; `written`: such values as written) is options too, not the step's command."""
    values, flags = wrappers.launcher_options("srun")
    gres, nodes = None, None
    while i < len(fields) and (fields[i].text.startswith("-") or _options_variable(fields[i], written or {})):
        text = fields[i].text
        name, eq, value = text.partition("=")
        takes_value = not eq and (name in values or (len(name) == 2 and name[1] != "-" and name not in flags))
        if takes_value and i + 1 < len(fields):
            value = fields[i + 1].text
        if name in ("--gres", "--gpus", "--gpus-per-node", "-G"):
            gres = (f"{name.lstrip('-')}={value}", fields[i].span)
        elif name in ("--nodes", "-N"):
            nodes = value
        elif name.startswith("-N") and name[2:].isdigit():
            nodes = name[2:]
        i += 2 if takes_value else 1
    return i, gres, nodes


def _options_variable(f: Field, written: dict[str, str]) -> bool:
    """Whether an unresolved word is a variable whose value, as written, starts with an option (`--export=...`)."""
    m = _VAR_WORD.match(f.text) if not f.resolved and f.text.startswith("$") else None
    return m is not None and written.get(next(g for g in m.groups() if g), "").lstrip("\"'").startswith("-")


def _script_with_words(fields: list[Field], i: int) -> bool:
    """Whether the shell at `i` runs a script file with arguments that may be an engine's flags (`bash run.sh --run-id
    x -- --model M ...`: a model flag or a `--` among them, byflags.model_flag_in), no option between."""
    from kvlint.launches.byflags import model_flag_in

    return i + 2 < len(fields) and fields[i + 1].text.endswith(".sh") and not fields[i + 1].text.startswith("-") \
        and model_flag_in(fields[i + 2 :])


def _shell_c(fields: list[Field], i: int, env: dict[str, str], depth: int, state: _State | None) -> FoundLaunch | None:
    at, j = _command_string(fields, i)
    if at is not None:
        return _run_string(fields[at], env, depth, tuple(fields[at + 1 :]), state) if at < len(fields) else None
    return _wrapping_script(fields, j, env, depth, state) if j < len(fields) else None


def _command_string(fields: list[Field], i: int) -> tuple[int | None, int]:
    """(the index of a shell's `-c` command string, or None when no `-c` comes, and the first word past the shell's
    options). The string is the first operand after `-c`, whatever options come between (`bash -c -i "CMD"`); an
    index past the words means `-c` was given none."""
    j = i + 1
    while j < len(fields) and fields[j].text.startswith("-"):
        if "c" in fields[j].text[1:] and not fields[j].text.startswith("--"):
            return _past_options(fields, j + 1), j
        j += 1
    return None, j


def string_launches(fields: list[Field], env: dict[str, str]) -> list[FoundLaunch]:
    """Every launch of a `sh|bash -c SCRIPT` command (a compose service's `command: [sh, -c, |...]` starting prefill
    and decode servers in the background, then one in the foreground: sample K531's eight), one per deployment; [] for
    any other command. A reader with no script of its own asks this for the launches before the command's last."""
    if len(fields) < 3 or fields[0].text.rsplit("/", 1)[-1] not in ("sh", "bash", "zsh"):
        return []
    j, _ = _command_string(fields, 0)
    if j is None or j >= len(fields):
        return []
    launches, _, _ = run_script(fields[j].mapped(), env, 1, tuple(fields[j + 1 :]))
    if len(launches) < 2:
        return launches
    from kvlint.launches.groups import one_per_deployment

    return one_per_deployment(launches)


def _past_options(fields: list[Field], j: int) -> int:
    """The index of the first word from `j` that is not a shell's own single-letter option (`-i`, `-l`, `-e`, `-x`,
    `-o pipefail`): after `-c`, bash takes the first operand as the command string, whatever options come between."""
    while j < len(fields) and re.fullmatch(r"[-+][a-zA-Z]+", fields[j].text):
        j += 2 if fields[j].text in ("-o", "+o", "-O", "+O") else 1
    return j


def _wrapping_script(fields: list[Field], j: int, env: dict[str, str], depth: int,
                     state: _State | None) -> FoundLaunch | None:
    """`bash /scripts/entrypoint.sh python3 -m sglang.launch_server ...`, `./with-secrets.sh vllm serve M`: a
    script handed a whole engine command as its arguments is a wrapper that runs them (`exec "$@"`, the way images
    load secrets or set up first); the launch is those arguments. A script handed a model and then one engine's own
    flags (`bash /start.sh /models/m --tensor-parallel-size 2 ...`, a prelude that ends in `exec vllm serve "$@"`)
    passes them on: that engine's launch, as an entry-point script's (_handed_model). Other arguments: not read."""
    rest = list(fields[j + 1 :])
    if not rest:
        return None
    if detect([f.token() for f in _program_named(rest)]) is None:  # `bash /start.sh MODEL --tp 2 ...` (sample K263)
        from kvlint.launches.byflags import named_for_a_job

        script = fields[j].text.rsplit("/", 1)[-1]  # a benchmark or eval script handed a model and flags is a job
        handed = state is not None and script.endswith(".sh") and not rest[0].text.startswith("-") \
            and not named_for_a_job(script)
        return _handed_model(fields, j, env) if handed else None
    found = launch_in_argv(rest, env, depth + 1, state)
    if found is None:
        return None
    note = f"run through {fields[j].text}, read as a wrapper that runs the command it is given (`exec \"$@\"`)"
    return replace(found, notes=(*found.notes, note))


def _string_command(word: Field, env: dict[str, str], depth: int, state: _State | None) -> FoundLaunch | None:
    """A command line given as one word (`tmux new -d "CMD"`, `sbatch --wrap="CMD"`), read as a script of its own."""
    launches, _, notes = run_script(word.mapped(), env, depth + 1, closed=state.closed if state is not None else None)
    if state is not None:
        state.launches.extend(launches[:-1])
        state.notes.extend(notes)
    return launches[-1] if launches else None


def _wrap_value(word: Field) -> Field:
    """`--wrap=CMD` as the word CMD, each character still at its place."""
    if not word.text.startswith("--wrap="):
        return word
    return _cut(word, len("--wrap="))


def _hatch_script(fields: list[Field], i: int) -> list[Field]:
    """`hatch run ENV:CMD ...` runs CMD in environment ENV: the command's first word is what follows the colon."""
    env, colon, cmd = fields[i].text.partition(":")
    if not colon or not cmd or "/" in env or not env.replace("-", "").replace("_", "").isalnum():
        return fields
    return [*fields[:i], _cut(fields[i], len(env) + 1), *fields[i + 1 :]]


# a line of a shell script that runs a script by its absolute path: one of the image's (`exec /usr/local/bin/serve.sh`)
_IMAGE_SCRIPT = lazy(r"(?m)^[ \t]*(?:exec[ \t]+)?/[\w./-]+\.(?:sh|bash|py)(?:[ \t]|$)")


def _shell_runs_script(argv: list[Field]) -> bool:
    """`--entrypoint /bin/bash IMAGE -lc 'export X=1; exec /usr/local/bin/serve-glm.sh --flag V'` (sample K111): the
    container's shell ends in a script of the image's, which starts the engine from the container's environment
    as the image's own command would (the same reading as `IMAGE /usr/local/bin/serve-glm.sh`)."""
    if len(argv) < 3 or argv[0].text.rsplit("/", 1)[-1] not in ("sh", "bash", "zsh"):
        return False
    opt = argv[1].text
    return opt.startswith("-") and not opt.startswith("--") and "c" in opt[1:] and \
        _IMAGE_SCRIPT.search(argv[2].text) is not None


def _one_mode_word(rest: list[Field]) -> bool:
    """One plain word after the image (`serve`, `ray-head`: no path, model id or option), a mode of the build's own
    entry point, which then reads its model and settings from the environment (sample K272's `-e MODEL=/model ...
    "$VLLM_IMAGE" serve`)."""
    word = rest[0].text if len(rest) == 1 and rest[0].resolved else ""
    return re.fullmatch(r"[a-z][a-z0-9_-]*", word) is not None and word not in ("bash", "sh", "python", "python3")


def _env_configured_image(options: list[Field], image: Field, env: dict[str, str]) -> FoundLaunch | None:
    """A container of a build named for the engine (`.../vllm:SHA`, `org/sglang-server`), on GPUs, given no
    command but a model variable (`-e MODEL_NAME=...`): its entry point starts the engine from its environment
    (kvlint.launches.env_launch), each variable at its `-e` place. A client image is not named for the engine."""
    from kvlint.launches import env_launch
    from kvlint.launches.images import build_named_engine

    engine = build_named_engine(image.text)
    if engine is None:
        return None
    items: list[tuple[str, Span | None, Field]] = []
    for k, word in enumerate(options[:-1]):
        if word.text in ("-e", "--env") and "=" in options[k + 1].text:
            key = options[k + 1].text.partition("=")[0]
            items.append((key, options[k + 1].span, cloud_run.piece(options[k + 1], len(key) + 1)))
    fields = env_launch.fields_from_env(engine, items, image.text)
    if fields is None:
        return None
    # the launch is the container run (`docker run ... IMAGE`), written where its command starts
    return FoundLaunch(engine, tuple(fields), _runner_span(options) or image.span, env,
                       notes=(env_launch.NOTE.format(image=image.text),))


def _own_model_variable(options: list[Field]) -> bool:
    """`-e SM_VLLM_MODEL=M -e SM_VLLM_MAX_MODEL_LEN=...` (sample K284's Neuron run, no `--gpus`): variables the
    engine's wrappers read, a model among them (kvlint.launches.env_launch.prefixed_engine, a vendor's word before
    the engine's allowed): evidence of a server run whatever devices it is given."""
    from kvlint.launches.env_launch import prefixed_engine, vendor_stripped

    return prefixed_engine([vendor_stripped(name) for name in _env_names(options)]) is not None


def _env_names(options: list[Field]) -> list[str]:
    """The names of the variables a container run sets with `-e NAME=VALUE` / `--env NAME=VALUE`."""
    return [options[k + 1].text.partition("=")[0] for k, w in enumerate(options[:-1])
            if w.text in ("-e", "--env") and "=" in options[k + 1].text]


def _spelled_settings(options: list[Field], image: Field) -> bool:
    """`-e DEFAULT_MODEL_ID=M -e MAX_MODEL_LEN=2048 -e MAX_NUM_SEQS=1` given to a build named for the engine (sample
    K291's OpenVINO vLLM image, run on the CPU or an Intel GPU's `/dev/dri`): a model and two or more of only that
    engine's flags spelled as variables (kvlint.launches.env_launch.spelled_engine), a server whatever devices."""
    from kvlint.launches.env_launch import spelled_engine
    from kvlint.launches.images import build_named_engine

    names = _env_names(options)
    engine = spelled_engine(names) if len(names) >= 3 else None
    return engine is not None and engine == build_named_engine(image.text)


def _runner_span(options: list[Field]) -> Span | None:
    """The `docker` (`podman`, ...) word of a container run's first two words (`exec docker run`, `sudo podman
    run`), where the run's command starts."""
    return next((w.span for w in options[:2] if w.text.rsplit("/", 1)[-1] in RUNNERS), None)


def _run_span(options: list[Field], image: Field) -> Span | None:
    """Where a container run that hands its image's entry point the arguments is: from `docker run` to the image,
    however many option lines lie between (sample K242's twenty); the image alone when the run is elsewhere."""
    run = _runner_span(options)
    if run is None or image.span is None or run.path != image.span.path or run.line > image.span.line:
        return image.span
    return _join(run, image.span)


def _bare(rest: list[Field]) -> bool:
    """No command after the image, or only expansions kvlint cannot see into (sample K243's `"${server_args[@]}"`,
    options gathered in a `case` over the script's own): the image's own command is what runs."""
    return all(not f.resolved and f.text.lstrip("\"'").startswith("$") for f in rest)


def _built_default(image: Field, base: str, built: dict[str, str], depth: int) -> FoundLaunch | None:
    """A bare run of the repository's own build (sample K244's `docker run --gpus all vllm-qwen3.6-nvfp4:latest`
    beside the Dockerfile whose `ENTRYPOINT [... api_server]` and `CMD ["--model", "/model"]` it builds): the
    launch is the image's default command, each word at its place in the Dockerfile."""
    from kvlint.launches import docker_run as dr
    from kvlint.launches.dockerfile import default_command
    from kvlint.sidefile import side_text

    folder = os.path.dirname(os.path.abspath(image.span.path)) if image.span and image.span.path not in ("", "-") \
        else base
    path = dr.local_dockerfile(image, folder, built)
    if path is not None and image.span is not None and image.span.path not in ("", "-"):
        path = os.path.join(os.path.dirname(image.span.path), os.path.relpath(path, folder))  # as the user named it
    text = side_text(path, 256 * 1024) if path is not None else None
    if path is None or text is None or depth >= MAX_DEPTH:
        return None
    words, env = default_command(path, text)
    found = launch_in_argv(words, env, depth + 1) if words else None
    if found is None:
        return None
    note = f"{image.text} is the repository's build of {os.path.basename(path)}: its default command is the launch"
    return replace(found, entry_span=None, notes=(*found.notes, note))  # the launch is the run, here


def _unseen_mounted_script(argv: list[Field], mounts: list[tuple[str, str]], text: str = "") -> str | None:
    """The script a container's command runs (`bash /opt/serve_cmd.sh`, `/opt/serve.sh`) when `docker run -v` mounts
    it from an absolute path of the host, which kvlint does not read (sample K266's `-v ${WORKSPACE}/scripts/
    vllm_serve_cmd.sh:/opt/vllm_serve_cmd.sh`, WORKSPACE=/home/...), else None. A script this file writes with a
    here-document (`text`: `cat > "${WORK_DIR}/.runtime/serve.sh" <<EOF`, sample K457) is read, at its body."""
    words = [f.text for f in argv[:3]]
    if words and words[0].rsplit("/", 1)[-1] in ("sh", "bash"):
        words = words[1:]
    target = words[0] if len(words) == 1 and words[0].startswith("/") and words[0].endswith(".sh") else None
    found = next(((h, inside.split(":", 1)[0]) for h, inside in mounts if _holds(inside.split(":", 1)[0], target)),
                 None) if target else None
    # a host folder the file leaves to a variable (`--mount type=bind,src=$CONFIG_DIR,dst=/recipe-config`, sample
    # K406) is as unseen as an absolute one
    if target is None or found is None or not found[0].startswith(("/", "$")):
        return None
    host = found[0].rstrip("/") + target[len(found[1].rstrip("/")):]
    from kvlint.launches.shellfile import heredoc_files

    return None if host in heredoc_files(text) else target


def _holds(mounted: str, script: str) -> bool:
    """Whether a mount's target is the script or a folder above it."""
    return mounted == script or (len(mounted) > 1 and script.startswith(mounted.rstrip("/") + "/"))


def _own_command_image(options: list[Field], image: Field, env: dict[str, str],
                       script: str | None = None) -> FoundLaunch | None:
    """A build named for the engine (`ghcr.io/org/paiton-vllm-plugin:qwen38-...`), run on GPUs with no command and
    no model variable (sample K243), or running a script mounted from the host that kvlint does not read (`script`,
    sample K266): the image's own command, or that script, serves a model chosen there (baked in, or a mount it
    reads). The launch is there, on the image's engine, its model left open and said; what the engine is given is
    not in this file, so nothing is sized, and the launch is not passed over either."""
    from kvlint.launches.images import build_named_engine

    engine = build_named_engine(image.text)
    if engine is None or not image.resolved or any(_terminal(f.text) for f in options):
        return None  # `docker run -it ... IMAGE`: a terminal session the reader types into (sample K254), no server
    if script is not None:
        model = Field(f"(the model the script {script} serves)", image.span, False, ("mounted script",))
        note = (f"{image.text} runs {script}, mounted from the host and not read here: it starts {engine} on a "
                "model it chooses (its model is left open)")
        return FoundLaunch(engine, (Field("--model", image.span), model), _runner_span(options) or image.span, env,
                           notes=(note,))
    model = Field("(the model the image's own command serves)", image.span, False, ("own command",))
    note = (f"{image.text} is run with no command: its own command, not in this file, starts {engine} on a model "
            "chosen inside the image (its model is left open)")
    return FoundLaunch(engine, (Field("--model", image.span), model), _runner_span(options) or image.span, env,
                       notes=(note,))


def _terminal(option: str) -> bool:
    """`-t`, `--tty`, or short options bundled with it (`-it`, `-ti`): the run gives the user a terminal."""
    return option == "--tty" or (option.startswith("-") and not option.startswith("--") and "t" in option[1:]
                                 and option[1:].isalpha() and len(option) <= 4)


def _cut(word: Field, cut: int) -> Field:
    """The word without its first `cut` characters, each remaining one still at its place."""
    offsets = word.offsets[cut:] if len(word.offsets) == len(word.text) else ()
    span = word.span
    if span is not None and span.line == span.end_line and not offsets:
        span = Span(span.path, span.line, span.col + cut, span.end_line, span.end_col)
    return replace(word, text=word.text[cut:], span=span, offsets=offsets,
                   source=word.source if offsets else None)


def _eval(fields: list[Field], env: dict[str, str], depth: int, state: _State | None) -> FoundLaunch | None:
    """`eval WORDS`: the words joined by spaces, read again as a command. A lone `\\` is a line continuation the
    variable's author meant (`CMD="vllm serve \\<newline>  --tp 2"` expanded unquoted splits it off): dropped."""
    fields = [f for f in fields if f.text != "\\"] if len(fields) > 1 else fields
    if not fields:
        return None
    if len(fields) == 1:
        m = fields[0].mapped()
    else:
        first = fields[0].span
        text = " ".join(f.text for f in fields)
        m = Mapped(first.path if first else "", text, ((first.line, first.col),) * (len(text) + 1) if first else ())
    launches, _, notes = run_script(m, env, depth + 1)
    if state is not None:
        state.launches.extend(launches[:-1])
        state.notes.extend(notes)
    return launches[-1] if launches else None


def _docker_run(fields: list[Field], i: int, env: dict[str, str], depth: int,
                state: _State | None) -> FoundLaunch | None:
    """`docker run [OPTIONS] IMAGE [COMMAND...]`: the launch the container starts, seen from the host."""
    from kvlint.launches import docker_run as dr
    from kvlint.launches.infer import inferred_note

    where = fields[0].span.path if fields and fields[0].span else ""
    base = os.path.dirname(where) if where not in ("", "-") else ""
    opts, i = dr.read_options(fields, i, base)
    opts = dr.gpu_env_hint(opts)
    if i >= len(fields):
        return None
    image, rest = _image_by_name(fields[i], env, state), fields[i + 1 :]
    if state is not None and opts.name:
        state.containers[opts.name] = (image, opts.gpus)
    argv, default = dr.command_after_image(opts, image, rest)
    flags_follow = any(f.text.startswith("-") for f in rest[:2])  # `IMAGE --flags`, `IMAGE MODEL --flags`
    if (default is None or not image.resolved) and opts.entrypoint is None and flags_follow:
        local = dr.local_image_engine(image, base, state.built if state is not None else {})
        if local is not None:  # the repository's own image, whose entry point is the engine, given its arguments
            # (it says more than the flags do of an image left to a variable)
            opts.notes[:] = [n for n in opts.notes if default is None or n != inferred_note(default, "--entrypoint")]
            default = local[0]
            opts.notes.append(local[1])
    inner_env = {**env, **opts.env}
    for name in opts.passthrough:
        if name not in env:
            inner_env.pop(name, None)
    # `IMAGE /opt/vllm/listener.sh`: a script of the image's, run with the container's environment (sample K113)
    script_only = len(rest) == 1 and rest[0].text.startswith("/") and rest[0].text.endswith(_SCRIPT_SUFFIXES)
    found = launch_in_argv(argv, inner_env, min(depth + 1, MAX_DEPTH), state, default) if not script_only else None
    if found is None and opts.entrypoint is None and not script_only:  # `lmsysorg/sglang --model-path M`: KV014
        from kvlint.launches.infer import no_server_launch

        found = no_server_launch(rest, image, inner_env)
    if (found is None or (not found.fields and _one_mode_word(rest))) \
            and (opts.gpus[0] is not None or _own_model_variable(fields[:i]) or _spelled_settings(fields[:i], image)) \
            and (not rest or script_only or _shell_runs_script(argv) or _one_mode_word(rest)):
        found = _env_configured_image(fields[:i], image, inner_env) or found
    if found is None and opts.gpus[0] is not None and opts.entrypoint is None and _bare(rest):
        built = state.built if state is not None else {}
        found = _built_default(image, base, built, depth) or _own_command_image(fields[:i], image, inner_env)
    if found is None and script_only:  # no model variable kvlint knows: the script read as the command, as written
        found = launch_in_argv(argv, inner_env, min(depth + 1, MAX_DEPTH), state, default)
    if found is None and opts.mounts and (default or dr.entrypoint_engine(image.text) or _named_build(image)):
        found = _repository_script(argv, opts.mounts, base, image)
    if found is None and opts.gpus[0] is not None \
            and (mounted := _unseen_mounted_script(argv, opts.mounts, state.shared.text if state else "")):
        found = _own_command_image(fields[:i], image, inner_env, mounted)
    if found is None:
        return None
    runtime = tuple((n, "passed from the host by docker run -e") for n in opts.passthrough if n not in env)
    return replace(found, entry_span=found.entry_span or _run_span(fields[:i], image), image=image,
                   gpus=opts.gpus[0] or found.gpus,
                   gpus_span=opts.gpus[1] or found.gpus_span, notes=found.notes + tuple(opts.notes), name=opts.name,
                   mounts=tuple(opts.mounts), runtime_vars=found.runtime_vars + runtime,
                   container_env=tuple(opts.env.items()),
                   before_image=tuple((f.span, f.text) for f in opts.misplaced))


_SCRIPT_RUNNERS = ("python", "python3", "bash", "sh")
_RUNNER_FUNCTIONS = ("docker_", "podman_")  # a script's function around docker (kvlint.launches.docker_run.is_runner)
# a function the script does not define (a file it sources) named for starting something, handed a whole command line
# as one argument (`start_model "$MODEL_NAME" "$VLLM_CMD" "$LOG_FILE"`, turn 38's K342): it runs that command
_STARTER_FUNCTIONS = ("start_", "launch_", "run_", "serve_", "spawn_")


def _command_argument(fields: list[Field], i: int) -> int | None:
    """The index of the argument after `i` that is one word holding an engine's command line (its entry point and
    more after it), or None."""
    for k in range(i + 1, min(len(fields), i + 9)):
        text = fields[k].text
        if " " in text and ("vllm" in text or "sglang" in text):  # the entry points' own words, before their regex
            from kvlint.launches.textfile import _ENTRY

            if _ENTRY.search(text) is not None:
                return k
    return None


def _named_build(image: Field) -> bool:
    """An image built for the engine and named for it (`qwen38-merlin-vllm:0.30.0`, sample K406), whose entry point
    kvlint does not know: a repository script it runs is read as one an engine image runs."""
    from kvlint.launches.images import build_named_engine

    return image.resolved and build_named_engine(image.text) is not None


def _repository_script(argv: list[Field], mounts: list[tuple[str, str]], base: str, image: Field
                       ) -> FoundLaunch | None:
    """A container of an engine image that runs a script of the repository it mounts (sample K207's README: `docker
    run -v $(pwd):/app --entrypoint bash vllm/vllm-openai:v0.14.1 -c "python3 /app/plugin/scripts/start_server.py"`):
    the launch that script starts, read in the repository's file, run on the container's image. The script is looked
    for under the mount's host folder, from the file's own folder up (a README's `$(pwd)` is its repository's root);
    None when no such file is there or it starts no engine."""
    from kvlint.launches import read_path
    from kvlint.sidefile import folders_up

    words = [f.text for f in argv]
    if len(words) >= 3 and words[0].rsplit("/", 1)[-1] in ("bash", "sh") and words[1].startswith("-") \
            and "c" in words[1]:
        words = words[2].split()[:8]  # `bash -c "python3 /app/x.py --flag"`: the inline script's first words
    if len(words) < 2 or words[0].rsplit("/", 1)[-1] not in _SCRIPT_RUNNERS:
        return None
    script = words[1]
    inside = next(((host, script[len(target):].lstrip("/")) for host, target in mounts
                   if target and script.startswith(target.rstrip("/") + "/")), None)
    if inside is None or not inside[0].startswith(".") or not script.endswith(_SCRIPT_SUFFIXES + (".py",)) \
            or ".." in inside[1].split("/"):
        return None  # only a file under the mounted folder (a `..` in the path would leave the repository)
    for folder in folders_up(base or ".", 4):
        candidate = os.path.normpath(os.path.join(folder, inside[0], inside[1]))
        if candidate in _SCRIPTS_READING or not os.path.isfile(candidate):
            continue  # a script that runs itself in a container is read once
        _SCRIPTS_READING.add(candidate)
        try:
            found = [d for d in read_path(candidate).deployments if d.model]
        finally:
            _SCRIPTS_READING.discard(candidate)
        return _as_found(found[0], image, candidate, len(words) > 2) if found else None
    return None


_SCRIPTS_READING: set[str] = set()  # the repository scripts being read for a container: no reading loops


def _as_found(dep: Deployment, image: Field, script: str, handed: bool) -> FoundLaunch:
    """The launch a script's reader found, as the container's launch: its model and settings as the engine's flags,
    each at its place in the script."""
    from kvlint.engines import get_engine
    from kvlint.engines.registered import facts

    fields = [Field(facts(dep.engine).MODEL_FLAG, dep.model_span), Field(str(dep.model), dep.model_span,
                                                                        dep.model_resolved)]
    engine = get_engine(dep.engine)
    sizes = {engine.setting(r) for r in ("tp", "pp", "dp") if r in getattr(engine, "roles", {})} if handed else set()
    for name, setting in dep.settings.items():
        if not setting.flag.startswith("-") or name in sizes:
            continue  # a setting no flag of the script wrote (a default, a config file's), or a size the container's
            # arguments to the script may set (`--tp 2`): left open, not the script's default
        flag = Field(setting.flag, setting.flag_span or setting.span)
        switch = isinstance(setting.value, bool) and not setting.raw  # `--no-enable-prefix-caching`: the flag says it
        fields += [flag] if switch else [flag, Field(setting.raw or str(setting.value), setting.span, setting.resolved)]
    base = os.path.basename(script)
    note = f"the container runs {base}, the repository's own script: its launch, read there"
    # arguments the container hands the script (`start_server.py --tp 2`) may set what its defaults say
    return FoundLaunch(dep.engine, tuple(fields), image.span, notes=(note,),
                       left_to=f"the arguments the container gives {base}" if handed else None)


def _in_container(found: FoundLaunch | None, held: tuple[Field, tuple[str | None, Span | None]]) -> FoundLaunch | None:
    """A launch `docker exec NAME CMD` starts in a container the script ran earlier (`docker run -d --name NAME IMAGE
    sleep inf`): it runs on that container's image (its release) and GPUs."""
    if found is None:
        return None
    image, (gpus, gpus_span) = held
    note = f"run in the container {image.text} started at line {image.span.line}" if image.span else ""
    return replace(found, image=found.image or image, gpus=found.gpus or gpus,
                   gpus_span=found.gpus_span if found.gpus else gpus_span,
                   notes=found.notes + ((note,) if note else ()))


def _with_allocation(found: FoundLaunch | None, gpus: tuple[str | None, Span | None],
                     nodes: str | None) -> FoundLaunch | None:
    """A launch inside a container started by `srun --gpus=4 apptainer exec ...` / `CUDA_VISIBLE_DEVICES=0,1
    docker run ...` keeps the GPUs and nodes of the launcher in front when the container states none."""
    if found is None or (gpus[0] is None and nodes is None):
        return found
    if gpus[0] is not None and (found.gpus is None or (found.gpus_span is None and found.gpus == gpus[0])):
        # the same devices read again inside (apptainer passes the host's CUDA_VISIBLE_DEVICES in): placed here
        found = replace(found, gpus=gpus[0], gpus_span=gpus[1])
    return replace(found, nodes=found.nodes or nodes)


_PYXIS_IMAGE = ("--container-image",)


def _pyxis_image(fields: list[Field]) -> Field | None:
    """`srun --container-image=IMAGE ...` (NVIDIA's pyxis plugin): the image the job step runs in, as a word at
    the value's place; None without one."""
    for k, f in enumerate(fields):
        name, eq, value = f.text.partition("=")
        if name not in _PYXIS_IMAGE:
            continue
        if not eq:
            return fields[k + 1] if k + 1 < len(fields) else None
        span = f.span
        if span is not None and span.line == span.end_line:
            span = Span(span.path, span.line, span.col + len(name) + 1, span.end_line, span.end_col)
        return replace(f, text=value, span=span, offsets=(), source=None)
    return None


def _container(fields: list[Field], where: tuple[int, str], env: dict[str, str], depth: int,
               state: _State | None, image_word: Field | None = None) -> FoundLaunch | None:
    """`apptainer exec|run X.sif ...`, `enroot start NAME ...`: `exec` runs the words after the image, `run`
    hands them to the image's entry point (an engine image's, or one the flags name, as for docker run).
    `image_word`: the image when it is an option's value (`srun --container-image=X`), the command at `where`."""
    from kvlint.launches.docker_run import RunOptions, command_after_image

    image, rest, default = fields[where[0]], fields[where[0] + 1 :], None
    if image_word is not None:
        image = image_word
    opts = RunOptions()
    if where[1] == "run":
        rest, default = command_after_image(opts, image, rest)
        default = default or _named_image(image.text, rest) or _named_image(_as_written(image.text, state), rest)
    found = launch_in_argv(rest, env, min(depth + 1, MAX_DEPTH), state, default)
    if found is None:
        return None
    # what the image's entry point was taken to be is this launch's note (not every launch's in the file), and
    # only when the entry point runs it (a command after the image replaces it)
    own = tuple(n for n in opts.notes if n not in found.notes) if found.entry_span is None else ()
    return replace(found, entry_span=found.entry_span or image.span, image=found.image or image,
                   notes=found.notes + own)


def _image_by_name(image: Field, env: dict[str, str], state: _State | None) -> Field:
    """An image given as a variable whose value is only partly known (`IMAGE_URI="${REGION}-docker.pkg.dev/
    ${PROJECT}/${REPO}/${IMAGE_NAME}:${TAG}"`): its value as written, with the parts the script knows filled in,
    still unresolved; its name is what says which engine it carries. Any other image as it is."""
    written = _as_written(image.text, state) if not image.resolved else ""
    if not written:
        return image
    known = _KNOWN_PART.sub(lambda m: env.get(m.group(1) or m.group(2), m.group(0)), written)
    return replace(image, text=known, offsets=(), source=None)


_KNOWN_PART = lazy(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)")


def _as_written(word: str, state: _State | None) -> str:
    """A variable's value as the script wrote it when part of it is only known at run time (`$SIF` set to
    `"${HOME}/sif/vllm-openai-v0.10.1.1.sif"`), else ""."""
    m = _VAR_WORD.match(word)
    return state.written.get(m.group(1), "") if m and state is not None else ""


_VAR_WORD = lazy(r'^"?\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?"?$')


def _written_path(word: str, state: _State | None) -> str:
    """A path with the script's own variables put back as it wrote them (`"${VENV}/bin/vllm"` after `ROOT_DIR=
    "${HOME}/vllm-gfx908"` and `VENV="${ROOT_DIR}/.venv"`: `${HOME}/vllm-gfx908/.venv/bin/vllm`); a variable the
    script does not set stays as written."""
    if state is None or "$" not in word:
        return word.strip("\"'")
    for _ in range(4):  # bounded: a value that names itself (`P="$P/$P"`) grows, and stops growing here
        done = _VAR_REF.sub(lambda m: state.written.get(m.group(1) or m.group(2), m.group(0)).strip("\"'"), word)
        if done == word or len(done) > _PATH_CHARS:
            break
        word = done
    return word.strip("\"'")


_VAR_REF = lazy(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)")
_PATH_CHARS = 4096  # a program's path, written out, is never longer


def _named_image(image: str, rest: list[Field]) -> str | None:
    """`apptainer run vllm_0.9.sif --model X`: a container file named for an engine, run with flags, runs that
    engine (a .sif's runscript is its entry point, and these files are named for what they hold)."""
    from kvlint.engines.registered import engine_names

    base = image.rsplit("/", 1)[-1].lower()
    if not base.endswith((".sif", ".sqsh", ".img")) or not rest or not rest[0].text.startswith("-"):
        return None
    return next((name for name in engine_names() if name in base), None)


def _join(a: Span | None, b: Span | None) -> Span | None:
    """From a's start to b's end; a alone when b is not after it: a word spliced in from an array or variable set
    above (`--entrypoint vllm IMAGE "${ARGS[@]}"`, `serve` on line 3) would make a span that ends before it
    starts (sample K367)."""
    if a is None or b is None:
        return a or b
    if b.path != a.path or (b.end_line, b.end_col) < (a.line, a.col):
        return a
    return Span(a.path, a.line, a.col, b.end_line, b.end_col)


def _left_to(by_flags: ByFlags) -> str | None:
    """`start-cluster.py (--slurm --auto)` when the program has options of its own: what it does with them (a
    parallelism over the nodes it starts) is not in the file."""
    if not by_flags.own_options:
        return None
    return f"{by_flags.program.text.rsplit('/', 1)[-1]} ({' '.join(by_flags.own_options[:3])})"
