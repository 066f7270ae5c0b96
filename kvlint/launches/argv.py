"""The one place launches meet the engines' flag parsers (kvlint.flags.parse, launch, flag_table).

Readers never parse flags themselves: argv (real or synthesized from chart keys) goes through
`parse`, which applies each engine's own rules (underscores, prefixes, last occurrence wins).
"""

from __future__ import annotations

from kvlint.deployment import InvalidValue, Setting, UnknownFlag
from kvlint.engines import get_engine
from kvlint.flags.flag_table import FlagSpec, flag_table
from kvlint.flags.launch import detect_launch
from kvlint.flags.parse import parse_args
from kvlint.record import field, record, replace
from kvlint.redact import is_reference, is_secret_name, redact_value
from kvlint.span import Token

_PY = ("python", "python3")
# modules and commands that take the engine's own flags (plus a few of their own, left to them)
_WRAPPERS = {"dynamo.vllm": "vllm", "dynamo.sglang": "sglang", "trl.scripts.vllm_serve": "vllm"}
_WRAPPER_COMMANDS = {("trl", "vllm-serve"): "vllm"}  # TRL's server spells vLLM's flags with underscores
_BACKENDS = ("huggingfaceserver",)  # servers whose `--backend` picks the engine
_BACKENDS_ENGINES = ("vllm",)


@record
class Parsed:
    model: Setting | None
    settings: dict[str, Setting]
    unknown: list[UnknownFlag] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)  # what the parse could not place (refused values excluded)
    invalid: list[InvalidValue] = field(default_factory=list)  # values the engine refuses, with their spans


def detect(tokens: list[Token]) -> tuple[str, int] | None:
    """(engine, index after the entry point) when `tokens` start an engine; wrappers included.

    For `sglang serve` the index is that of `serve`: the argv handed to `parse` then starts with it,
    which is how `parse` knows SGLang takes a positional model there (and nowhere else).
    """
    found = detect_launch(tokens)
    if found:
        serve = _keeps_serve(found.engine) and found.index > 0 and tokens[found.index - 1].text == "serve"
        return found.engine, found.index - 1 if serve else found.index
    texts = [t.text for t in tokens]
    if len(texts) >= 3 and texts[0].rsplit("/", 1)[-1].startswith(_PY) and texts[1] == "-m" and texts[2] in _WRAPPERS:
        return _WRAPPERS[texts[2]], 3
    if len(texts) >= 2 and (texts[0].rsplit("/", 1)[-1], texts[1]) in _WRAPPER_COMMANDS:
        return _WRAPPER_COMMANDS[(texts[0].rsplit("/", 1)[-1], texts[1])], 2
    if len(texts) >= 3 and texts[0].rsplit("/", 1)[-1].startswith(_PY) and texts[1] == "-m" and texts[2] in _BACKENDS:
        backend = _backend(texts[3:])
        return (backend, 3) if backend is not None else None
    return None


def _backend(texts: list[str]) -> str | None:
    """`--backend vllm` / `--backend=vllm` of a server that runs an engine only when told to (KServe's
    huggingfaceserver; its default backend is Hugging Face's own, no engine kvlint sizes)."""
    for k, t in enumerate(texts):
        value = t.partition("=")[2] if t.startswith("--backend=") else texts[k + 1] if t == "--backend" and \
            k + 1 < len(texts) else None
        if value is not None:
            return value if value in _BACKENDS_ENGINES else None
    return None


def wrapper_of(texts: list[str]) -> str | None:
    """The wrapper an entry point found by `detect` is (`dynamo.vllm`, `trl vllm-serve`), None for the engine's own."""
    module = next((t for t in texts if t in _WRAPPERS or t in _BACKENDS), None)
    if module is not None:
        return module
    if len(texts) >= 2 and (texts[0].rsplit("/", 1)[-1], texts[1]) in _WRAPPER_COMMANDS:
        return f"{texts[0].rsplit('/', 1)[-1]} {texts[1]}"
    return None


def _keeps_serve(engine: str) -> bool:
    """`sglang serve MODEL`: the engine takes a positional model only after `serve`, so argv keeps it."""
    return get_engine(engine).syntax.positional_model == "after-serve"


def parse(engine: str, tokens: list[Token]) -> Parsed:
    """The engine's parse of a launch's argv; a leading `serve` (from `detect`) means `sglang serve`."""
    start = 1 if _keeps_serve(engine) and tokens and tokens[0].text == "serve" else 0
    p = parse_args(engine, tokens, start)
    errors = [e for e in p.errors if e not in p.value_errors]
    settings = {name: _redacted(s) for name, s in p.settings.items()}
    return Parsed(p.model, settings, list(p.unknown), errors, list(p.invalid))


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
