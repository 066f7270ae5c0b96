"""Structured settings (config-file keys, chart camelCase keys, engine_kwargs) as synthetic argv.

Charts and config files hold flags as YAML keys. Turning each into `--flag value` tokens whose
spans are the key and the value lets the one engine flag parser normalise them like a command line.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from functools import lru_cache

from kvlint.launches.env import Field, substitute_supplied
from kvlint.lazyre import lazy
from kvlint.record import replace
from kvlint.sources.templates import has_placeholder
from kvlint.sources.yaml import YNode

_CAMEL = lazy(r"(?<=[a-z0-9])([A-Z])")


def camel_to_flag(key: str) -> str:
    """`maxModelLen` -> `--max-model-len`; `max_model_len` and `max-model-len` likewise."""
    return "--" + _CAMEL.sub(r"-\1", key).lower().replace("_", "-")


def fields_from_pairs(pairs: Iterable[tuple[str, YNode, YNode]],
                      to_flag: Callable[[str], str | None] = camel_to_flag, rendered: bool = False,
                      engine: str | None = None, origin: str = "", unknown_reader: bool = False) -> list[Field]:
    """Each key the engine has as a flag, as argv words. `rendered`: chart values, which a template prints
    (Helm prints a whole float as an integer: `maxModelLen: -1.0` reaches the command as `-1`). `engine`: the
    engine whose table decides whether a `false` is an on/off flag's `--no-` form (None: any engine's). `origin`:
    what the words' settings say of where they came from (kvlint.deployment.CHART_KEY: a key of a chart kvlint has
    no adapter for). `unknown_reader`: the map is read by a program kvlint does not know (an unknown chart's
    template, a recipe runner), which may turn a switch's quoted "true" into the switch alone or print it after the
    flag: read as the switch's on/off value, never as a stray word the engine refuses (sample K421's AIM recipe)."""
    out: list[Field] = []
    for key, knode, val in pairs:
        flag = to_flag(key)
        if flag is None:
            continue
        if unknown_reader and val.is_scalar and val.text.lower() in ("true", "false") and val.tag.endswith(":str") \
                and _switch(flag, engine):
            words = _on_off(flag, knode, val.text.lower() == "true", engine)
        else:
            words = _pair(flag, knode, val, rendered, engine)
        out.extend([replace(w, origin=w.origin or origin) for w in words] if origin else words)
    return out


def _pair(flag: str, knode: YNode, val: YNode, rendered: bool = False, engine: str | None = None) -> list[Field]:
    if val.is_scalar:
        if (val.tag.endswith(":null") or val.text == "") and knode.is_scalar and knode.text.startswith("--") \
                and _switch(flag, engine):
            return [Field(flag, knode.span)]  # an argument map's bare switch (`--enforce-eager: ""`): given, alone
        if val.tag.endswith(":null") or val.text == "":
            return []  # a chart key set to "" (or nothing) means "leave the engine's default"
        if val.tag.endswith(":bool") and isinstance(val.value, bool):
            return _on_off(flag, knode, val.value, engine)
        if rendered and val.tag.endswith(":float") and isinstance(val.value, float) and val.value.is_integer() \
                and abs(val.value) < 1e15:
            return [Field(flag, knode.span), Field(str(int(val.value)), val.span)]
        return [Field(flag, knode.span), _value(val)]
    if val.is_seq:
        return [Field(flag, knode.span)] + [_value(i) for i in val.items if i.is_scalar]
    return [Field(flag, knode.span), Field(json.dumps(val.data(), default=str), val.span)]


def _on_off(flag: str, knode: YNode, on: bool, engine: str | None) -> list[Field]:
    """A switch's value in a map: the flag alone when on. A structured setting is a keyword argument, not CLI text:
    `false` of an on/off flag is its `--no-` form, and of a store_true flag (`disable_log_stats: false`) the default,
    which no argv spells."""
    if on:
        return [Field(flag, knode.span)]
    negative = "--no-" + flag[2:]
    return [Field(negative, knode.span)] if negatable(negative, engine) else []


def _switch(option: str, engine: str | None) -> bool:
    """Whether the engine's flag (any engine's, when not known) takes no value."""
    from kvlint.engines.registered import engine_names
    from kvlint.launches.env_launch import no_value

    return any(no_value(e, option) for e in ((engine,) if engine else engine_names()))


def negatable(option: str, engine: str | None = None) -> bool:
    """Whether the engine's flag table (any engine's, when not known) has this `--no-` option (an on/off flag:
    BooleanOptionalAction): SGLang's `skip_tokenizer_init: false` is its default, not vLLM's `--no-` form."""
    from kvlint.engines.registered import engine_names
    from kvlint.launches.argv import exact_option

    return any(exact_option(e, option) is not None for e in ((engine,) if engine else engine_names()))


def _value(node: YNode) -> Field:
    """A key's value as an argv word; `${VAR}` left to deploy tooling takes a configured value."""
    text, origin = substitute_supplied(node.text)
    unresolved = "{{" in text or has_placeholder(text)
    return Field(text, node.span, not unresolved, (text,) if unresolved else (), origin=origin)


def option_for_key(engine: str, key: str) -> str | None:
    """The engine option a structured key stands for, in any spelling: `maxModelLen`, `max_model_len`,
    `max-model-len` (the option or its dest), or a short option written bare (`tp` -> vLLM's `-tp`, SGLang's
    `--tp-size`). The engine's
    flag table decides; no list of keys per chart."""
    return _option_for_key(engine, key) if 0 < len(key) <= 64 else None


@lru_cache(maxsize=4096)
def _option_for_key(engine: str, key: str) -> str | None:
    from kvlint.launches.argv import exact_option

    if key.startswith("--"):  # a key written as the flag itself (`engineArgs: {--max-model-len: "4096"}`)
        return key if exact_option(engine, key) is not None else None
    if key.replace("_", "").replace("-", "").lower() in _CONFIG_FILE_KEYS:  # the engine's own `--config` file
        return "--config" if exact_option(engine, "--config") is not None else None
    kebab = camel_to_flag(key.strip())
    short = ("--" + key + "-size",) if key in _SHORT else ()  # SGLang's `--tp-size` for a bare `tp`
    for option in (kebab, "-" + key, "--" + key, *short):
        if exact_option(engine, option) is not None:
            return option
    return None


def spelled_as_flag(key: str) -> bool:
    """A key written the way only engine settings are (several words: camelCase, snake or kebab case, or a
    short option such as `tp`): a bare word (`port`, `name`, `device`) is a setting once a block is an
    engine's, but never evidence that it is one."""
    return "_" in key or "-" in key or any(c.isupper() for c in key[1:]) or key in _SHORT


_SHORT = frozenset({"tp", "pp", "dp", "ep"})
# a chart's key for the file of the engine's arguments it hands to `--config` (`configFile: serving-args.yaml` beside
# `framework: vllm`, sample K307's GKE recipe values), compared without case, `_` or `-`
_CONFIG_FILE_KEYS = frozenset({"configfile", "engineconfigfile", "serverargsfile", "serverargumentsfile",
                               "engineargsfile", "argsfile", "serverconfigfile"})
