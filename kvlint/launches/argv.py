"""The one place launches meet the engines' flag parsers (kvlint.flags.parse, launch, flag_table).

Readers never parse flags themselves: argv (real or synthesized from chart keys) goes through
`parse`, which applies each engine's own rules (underscores, prefixes, last occurrence wins).
"""

from __future__ import annotations

import functools
import re

from kvlint.deployment import InvalidValue, Setting, UnknownFlag
from kvlint.engines import get_engine
from kvlint.flags.flag_table import FlagSpec, flag_table
from kvlint.flags.launch import detect_launch
from kvlint.flags.parse import ParsedArgs, parse_args
from kvlint.lazyre import lazy, lazy_built
from kvlint.record import field, record, replace
from kvlint.redact import is_reference, is_secret_name, redact_value
from kvlint.span import Token

_PY = ("python", "python3")
# modules and commands that take the engine's own flags (plus a few of their own, left to them)
# (`sglang_router.launch_server` starts SGLang's data-parallel workers with the server's flags, and its router with
# its own `--router-*` ones: the workers are the launch, counting rule 3's router is not)
_WRAPPERS = {"dynamo.vllm": "vllm", "dynamo.sglang": "sglang", "trl.scripts.vllm_serve": "vllm",
             "sglang_router.launch_server": "sglang"}
# TRL's server spells vLLM's flags with underscores; vLLM-MindSpore's CLI is `vllm serve` on MindSpore (Ascend), its
# README's `vllm-mindspore serve Qwen/Qwen3-8B` (turn 38's K336)
# Axolotl's `axolotl vllm-serve CONFIG.yaml --tensor-parallel-size 8` is TRL's server for GRPO rollouts, its model the
# `base_model` of the training config it is given (sample K421: two Deployments of it)
_WRAPPER_COMMANDS = {("trl", "vllm-serve"): "vllm", ("vllm-mindspore", "serve"): "vllm",
                     ("axolotl", "vllm-serve"): "vllm"}
# programs that start the engine and hand it the rest of their arguments (MinerU's `mineru-sglang-server --host ...
# --tp-size 2`, `mineru-vllm-server`: the engine's flags, its VLM downloaded; Qwen3-ASR's `qwen-asr-serve MODEL
# --gpu-memory-utilization 0.8`: `vllm serve` with the package's model classes registered, the model positional;
# verifiers' `vf-vllm --model M --data-parallel-size 2`: vLLM's OpenAI server with a weight-sync route added, vLLM's
# parser, sample K435)
_WRAPPER_PROGRAMS = {"mineru-sglang-server": "sglang", "mineru-vllm-server": "vllm", "qwen-asr-serve": "vllm",
                     "vf-vllm": "vllm"}
# scripts repositories copy from a wrapper module and run by path (`python verifiers/inference/vllm_serve.py --model M
# --tensor_parallel_size 4`, sample K253: TRL's server, vendored by RL libraries), read as the module they copy
_WRAPPER_SCRIPTS = {"vllm_serve.py": "trl.scripts.vllm_serve"}
_BACKENDS = ("huggingfaceserver",)  # servers whose `--backend` picks the engine
_BACKENDS_ENGINES = ("vllm",)
# commands that start an engine server for a model of their own when `--backend` names it (PaddleOCR's VLM server:
# `paddleocr genai_server --model_name PaddleOCR-VL-0.9B --backend vllm`)
_BACKEND_COMMANDS = {("paddleocr", "genai_server"): ("vllm", "sglang")}
# the same server as its own program (PaddleX's `paddlex_genai_server --model_name M --backend sglang`, sample K251)
_BACKEND_PROGRAMS = {"paddlex_genai_server": ("vllm", "sglang")}


@record
class Parsed:
    model: Setting | None
    settings: dict[str, Setting]
    unknown: list[UnknownFlag] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)  # what the parse could not place (refused values excluded)
    invalid: list[InvalidValue] = field(default_factory=list)  # values the engine refuses, with their spans
    server: str | None = None  # another server of the engine the launch starts (sglang serve on a diffusion model)
    extra: tuple[Token, ...] = ()  # trailing expansions read as the caller's arguments (`${EXTRA_ARGS}`, `"$@"`)
    open_options: tuple[Token, ...] = ()  # options whose name is an expansion (`--"$p_type" "$p_count"`)


def detect(tokens: list[Token]) -> tuple[str, int] | None:
    """(engine, index after the entry point) when `tokens` start an engine; wrappers included.

    For `sglang serve` the index is that of `serve`: the argv handed to `parse` then starts with it,
    which is how `parse` knows SGLang takes a positional model there (and nowhere else).
    """
    found = detect_launch(tokens)
    if found:
        before = tokens[found.index - 1].text if found.index > 0 else ""
        serve = _keeps_serve(found.engine) and before == "serve"
        return found.engine, found.index - 1 if serve or _server_module(found.engine, before) else found.index
    texts = [t.text for t in tokens]
    program = texts[0].rsplit("/", 1)[-1] if texts else ""
    if len(texts) >= 3 and program.startswith(_PY) and texts[1] == "-m" and texts[2] in _WRAPPERS:
        return _WRAPPERS[texts[2]], 3
    if len(texts) >= 3 and program.startswith(_PY) and texts[1] == "-m" and "." in texts[2] \
            and (plugged := plugin_module(texts[2])):
        # a plugin's own CLI (`python -m vllm_omni.entrypoints.cli.main serve M --omni`, sample K402) takes the
        # subcommand as the engine's CLI does: `serve` is no model
        cli = texts[2].endswith(".cli.main") and len(texts) > 3 and texts[3] == "serve"
        return plugged, 4 if cli else 3
    if len(texts) >= 2 and (program, texts[1]) in _WRAPPER_COMMANDS:
        return _WRAPPER_COMMANDS[(program, texts[1])], 2
    if len(texts) >= 3 and program.startswith(_PY) and _copied_module(texts[1]) and texts[2].startswith("--"):
        return _WRAPPERS[_copied_module(texts[1]) or ""], 2
    if program in _WRAPPER_PROGRAMS:
        return _WRAPPER_PROGRAMS[program], 1
    if len(texts) >= 3 and program.startswith(_PY) and texts[1] == "-m" and texts[2] in _BACKENDS:
        backend = _backend(texts[3:])
        return (backend, 3) if backend is not None else None
    if len(texts) >= 2 and (program, texts[1]) in _BACKEND_COMMANDS:
        backend = _backend(texts[2:], _BACKEND_COMMANDS[(program, texts[1])])
        return (backend, 2) if backend is not None else None
    if program in _BACKEND_PROGRAMS:
        backend = _backend(texts[1:], _BACKEND_PROGRAMS[program])
        return (backend, 1) if backend is not None else None
    return None


@functools.cache
def wrapper_programs() -> tuple[str, ...]:
    """The first words of the programs and commands above that start an engine under their own name (TRL's is
    the engine's own entry point's spelling, read everywhere already)."""
    return tuple(sorted({*_WRAPPER_PROGRAMS, *_BACKEND_PROGRAMS,
                         *(a for a, _ in (*_WRAPPER_COMMANDS, *_BACKEND_COMMANDS))} - {"trl"},
                        key=lambda p: (-len(p), p)))


def names_wrapper(text: str) -> bool:
    """Whether a text names a program above that starts an engine under its own name (`paddlex_genai_server
    --model_name M --backend vllm`, `axolotl vllm-serve cfg.yaml`): an entry point too (sample K422's runbook line,
    passed over in silence). A pattern of the names alone, kept out of the entry-point pattern every line is asked:
    one search costs a line less than a substring test per name did (0.3 us against 0.6 us, and a third on a long
    text)."""
    return _WRAPPER_NAMES.search(text) is not None


_WRAPPER_NAMES = lazy_built(lambda: "|".join(re.escape(p) for p in wrapper_programs()))


def _backend(texts: list[str], engines: tuple[str, ...] = _BACKENDS_ENGINES) -> str | None:
    """`--backend vllm` / `--backend=vllm` of a server that runs an engine only when told to (KServe's
    huggingfaceserver; its default backend is Hugging Face's own, no engine kvlint sizes)."""
    for k, t in enumerate(texts):
        value = t.partition("=")[2] if t.startswith("--backend=") else texts[k + 1] if t == "--backend" and \
            k + 1 < len(texts) else None
        if value is not None:
            return value if value in engines else None
    return None


def wrapper_of(texts: list[str]) -> str | None:
    """The wrapper an entry point found by `detect` is (`dynamo.vllm`, `trl vllm-serve`), None for the engine's own."""
    module = next((t for t in texts if t in _WRAPPERS or t in _BACKENDS
                   or ("." in t and not t.startswith(("-", "/", ".")) and plugin_module(t))), None)
    if module is not None:
        return module
    if len(texts) >= 2 and texts[0].rsplit("/", 1)[-1].startswith(_PY) and _copied_module(texts[1]):
        return _copied_module(texts[1])
    if len(texts) >= 2 and ((pair := (texts[0].rsplit("/", 1)[-1], texts[1])) in _WRAPPER_COMMANDS
                            or pair in _BACKEND_COMMANDS):
        return f"{pair[0]} {pair[1]}"
    return next((t.rsplit("/", 1)[-1] for t in texts[:1]
                 if t.rsplit("/", 1)[-1] in _WRAPPER_PROGRAMS or t.rsplit("/", 1)[-1] in _BACKEND_PROGRAMS), None)


def plugin_module(word: str) -> str | None:
    """The engine a plugin package's own server module runs on (`python -m vllm_omni.entrypoints.openai.serving_image`,
    turn 38's K346: vLLM-Omni's image server, the package in kvlint/data/plugins.json), None for any other word. Such a
    module takes the engine's flags and its own: a wrapper, whose options the engine's table does not judge."""
    top, _, rest = word.partition(".")
    if rest.startswith("entrypoints."):
        listed = plugin_packages().get(top)
        if listed is not None:
            return listed
    return _adapter_module(top, rest)


# the last names of a server module (`vllm_detector_adapter.api_server`, `lmcache_vllm.vllm.entrypoints.openai.
# api_server`): a module that starts a server, not a router (`sglang_router.launch_router`) or a library
_SERVER_MODULES = frozenset({"api_server", "launch_server"})


def _adapter_module(top: str, rest: str) -> str | None:
    """The engine a package built on it runs, for its own server module: a package named with the engine as one of its
    words (`vllm_detector_adapter`, `lmcache_vllm`; never `sparsevllm`, another engine borrowing the name) whose module
    is a server's (`.api_server`, `.launch_server`, its `entrypoints`): the engine's server with endpoints of the
    package's own, taking the engine's arguments and some of its own (sample K368's Guardrails detector adapter)."""
    from kvlint.engines.registered import engine_names

    words = top.lower().split("_")
    engine = next((e for e in engine_names() if e in words), None)
    if engine is None or len(words) < 2 or not rest:
        return None
    last = rest.rsplit(".", 1)[-1]
    return engine if last in _SERVER_MODULES or rest.startswith("entrypoints.") else None


@functools.lru_cache(maxsize=1)
def plugin_packages() -> dict[str, str]:
    """Import name -> engine of each plugin package kvlint/data/plugins.json lists (`vllm-omni` -> `vllm_omni`)."""
    from kvlint.data import load_json

    return {p["package"].replace("-", "_"): p["engine"] for p in load_json("plugins.json")["plugins"]}


def _copied_module(word: str) -> str | None:
    """The wrapper module a script run by its path is a copy of (`verifiers/inference/vllm_serve.py`: TRL's server,
    whose name it keeps), None for any other script."""
    return _WRAPPER_SCRIPTS.get(word.rsplit("/", 1)[-1])


def _server_module(engine: str, word: str) -> bool:
    """`python -m sglang.multimodal_gen.runtime.launch_server`: a module that starts another server of the engine
    (its facts.SERVER_ENTRY_MODULES) is kept in the argv, as `serve` is, so `parse` reads it with that server's
    table."""
    return word in get_engine(engine).facts.SERVER_ENTRY_MODULES


def _keeps_serve(engine: str) -> bool:
    """`sglang serve MODEL`: the engine takes a positional model only after `serve`, so argv keeps it."""
    return get_engine(engine).syntax.positional_model == "after-serve"


def parse(engine: str, tokens: list[Token]) -> Parsed:
    """The engine's parse of a launch's argv; a leading `serve` (from `detect`) means `sglang serve`."""
    first = tokens[0].text if tokens else ""
    start = 1 if (_keeps_serve(engine) and first == "serve") or _server_module(engine, first) else 0
    p = parse_args(engine, tokens, start)
    p, extra, dropped = _extra_args(engine, tokens, start, p)
    errors = [e for e in p.errors if e not in p.value_errors] + extra
    settings = {name: _redacted(s) for name, s in p.settings.items()}
    leftover = tuple(t for t in p.leftover if _only_expansion(t.text))  # SGLang's `... --port 30000 $EXTRA_ARGS`
    return Parsed(p.model, settings, list(p.unknown), errors, list(p.invalid), p.server, tuple(dropped) + leftover,
                  tuple(p.open_options))


def _extra_args(engine: str, tokens: list[Token], start: int, p: ParsedArgs
                ) -> tuple[ParsedArgs, list[str], list[Token]]:
    """`vllm serve --model X --port 8000 ${EXTRA_ARGS}` / `... {{ launch_kwargs }}` / `... "$@"`: a trailing word
    that is only an unresolved expansion, after flags, is the arguments the caller adds, not the positional
    model; when the flags name the model (`--model X`) that is the model. Without such a flag the word stays
    the (unresolved) model: the model may be in it. A positional directly after the entry point is the model."""
    original, kept, dropped = p, list(tokens), []
    for _ in range(_MAX_EXTRA):
        k = _positional_model_index(kept, start, p)
        if k is None or k == start or not _only_expansion(kept[k].text):
            break
        dropped.append(kept.pop(k))
        p_next = parse_args(engine, kept, start)
        if p_next.model is not None and p_next.model.flag:
            notes = [f"{t.text!r} after the flags is read as extra arguments, not the model (the model is "
                     f"{p_next.model.flag}'s)" for t in dropped]
            return p_next, notes, dropped
        p = p_next
    return original, [], []


_MAX_EXTRA = 4  # trailing argument-list words looked at; more is not a launch line anyone writes


def _positional_model_index(tokens: list[Token], start: int, p: ParsedArgs) -> int | None:
    """Where the model the parse placed came from, when it came from a positional word (no flag)."""
    model = p.model
    if model is None or model.flag:
        return None
    return next((k for k in range(len(tokens) - 1, start - 1, -1)
                 if tokens[k].span == model.span and tokens[k].text == model.raw), None)


_EXPANSION = lazy(r"\$\{[^}]*\}|\$\([^)]*\)|\$[A-Za-z_][A-Za-z0-9_]*|\$[@*]|\{\{.*?\}\}|\{%.*?%\}", re.S)


def _only_expansion(text: str) -> bool:
    """`${ARGS}`, `$EXTRA_ARGS`, `"$@"`, `{{ launch_kwargs }}`: nothing written but the expansion (and quotes)."""
    rest, n = _EXPANSION.subn("", text)
    return n > 0 and not rest.strip().strip("\"'")


def _redacted(s: Setting) -> Setting:
    """A credential (`--api-key`, `--hf-token`, ...) is kept as *** from here on: no reporter can show it."""
    if not is_secret_name(s.name) or (isinstance(s.value, str) and is_reference(s.value)):
        return s
    return replace(s, value=redact_value(s.name, s.value), raw=redact_value(s.name, s.raw) if s.raw else s.raw)


def exact_option(engine: str, option: str) -> FlagSpec | None:
    """The engine's flag spec for exactly this option string (`--max-model-len`), no prefixes."""
    return flag_table(engine).by_option.get(option)


def spec_by_dest(engine: str, dest: str) -> FlagSpec | None:
    return flag_table(engine).by_option.by_dest(dest)
