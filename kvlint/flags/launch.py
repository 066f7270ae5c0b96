"""Where an engine command starts inside a shell line, past `exec`, `env A=B`, `uv run` and friends.

Every reader (scripts, manifests, `kvlint budget`) has to find the entry point before the engine's
flags can be parsed; this is the one list of entry points and wrappers the engines are started with.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from kvlint.engines.registered import engine_names, facts
from kvlint.flags.token_spans import join_spans
from kvlint.lazyre import lazy
from kvlint.record import record
from kvlint.span import Span, Token

_PYTHON = lazy(r"^python(\d+(\.\d+)?)?$")
# the interpreter's own options that may stand before `-m MODULE` (`-u`: unbuffered output, for a log)
PY_OPTIONS = frozenset({"-u", "-O", "-OO", "-B", "-E", "-s", "-S", "-I", "-P"})
_ASSIGN = lazy(r"^[A-Za-z_][A-Za-z0-9_]*=")


@record
class LaunchStart:
    """Where an engine command starts. Iterates as (engine, index) so `engine, i = found` keeps working."""

    engine: str
    index: int  # first token after the entry point (the model or the first flag)
    entry_span: Span | None = None

    def __iter__(self) -> Iterator[Any]:
        return iter((self.engine, self.index))

    def __len__(self) -> int:
        return 2

    def __getitem__(self, i: int) -> Any:
        return (self.engine, self.index)[i]


def _skip_wrappers(texts: list[str], i: int) -> int:
    """Past `exec`, `nohup`, `time`, `env [-i] [-u NAME] A=B`, `uv run`, and leading `VAR=value` assignments."""
    while i < len(texts):
        word = texts[i].rsplit("/", 1)[-1]
        if word in ("exec", "nohup", "time") or _ASSIGN.match(texts[i]):
            i += 1
        elif word == "env":
            i = _skip_env_options(texts, i + 1)
        elif word == "uv" and i + 1 < len(texts) and texts[i + 1] == "run":
            i += 2
        else:
            return i
    return i


def _skip_env_options(texts: list[str], i: int) -> int:
    while i < len(texts) and texts[i].startswith("-"):
        i += 2 if texts[i] in ("-u", "--unset", "-C", "--chdir") else 1
    return i


def _entry(texts: list[str], i: int) -> tuple[str, int] | None:
    word = texts[i].rsplit("/", 1)[-1]
    nxt = texts[i + 1] if i + 1 < len(texts) else ""
    if word in engine_names() and nxt == "serve":
        return word, i + 2
    if texts[i] == "-m" and i + 1 < len(texts) and (engine := _started_by(nxt)) is not None:
        # the words an image whose entry point is a Python interpreter is given (`docker run IMAGE -m
        # sglang.launch_server ...`, turn 38's K337: Hunyuan's SGLang image): that interpreter runs the module
        return engine, i + 2
    if _PYTHON.match(word):
        j = i + 1
        while j < len(texts) and texts[j] in PY_OPTIONS:
            j += 1
        if j + 1 < len(texts) and texts[j] == "-m":
            module = texts[j + 1]
            engine = _started_by(module)
            if engine is not None:
                return engine, j + 2
        # vLLM's CLI as a module (`python -m vllm.entrypoints.cli.main serve M`) or called from inline code
        # (`python -c "from vllm.entrypoints.cli.main import main; main()" serve M`: sys.argv[1:] is `serve M`)
        if j + 2 < len(texts) and texts[j + 2] == "serve" and _runs_cli(texts[j], texts[j + 1]):
            return "vllm", j + 3
    return None


_CLI_MAIN = "vllm.entrypoints.cli.main"


def _runs_cli(option: str, value: str) -> bool:
    return value == _CLI_MAIN if option == "-m" else option == "-c" and _CLI_MAIN in value and "main(" in value


def _started_by(module: str) -> str | None:
    """The engine `python -m module` starts (each engine's facts name its entry modules), or None. A package that
    re-exports the engine under its own name (LMCache's `lmcache_vllm.vllm.entrypoints.openai.api_server`) runs
    the engine's server with the engine's parser: a module ending in `.` + an entry module is that engine's."""
    for name in engine_names():
        entries = facts(name).ENTRY_MODULES
        if module in entries or ("." in module and any(module.endswith("." + e) for e in entries)):
            return name
    return None


def detect_launch(tokens: list[Token]) -> LaunchStart | None:
    """The engine a command line starts, or None; wrappers like `exec`, `env A=B`, `uv run` are skipped."""
    texts = [t.text for t in tokens]
    i = _skip_wrappers(texts, 0)
    if i >= len(texts):
        return None
    found = _entry(texts, i)
    if found is None:
        return None
    engine, index = found
    return LaunchStart(engine, index, join_spans(tokens[i].span, tokens[index - 1].span))
