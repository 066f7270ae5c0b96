"""The engines' own command-line rules, replayed on tokens so every value keeps its source span.

vLLM (FlexibleArgumentParser) and SGLang (plain argparse) accept different spellings of the same
flag: vLLM turns `_` into `-` and reads dotted JSON keys, SGLang rejects underscores; both take
unique prefixes. A linter that is looser than the engine misses launches that crash at start-up, and
one that is stricter flags launches that work, so the option tables are the engines' own
(kvlint/data/*_flags.json, extracted from the release wheels) and the matching follows argparse.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any, Callable

from kvlint.data import load_json
from kvlint.deployment import Setting, UnknownFlag
from kvlint.engines import units
from kvlint.errors import UnknownFlagError
from kvlint.span import Span, Token

ENGINES = ("vllm", "sglang")
_NEGATIVE_NUMBER = re.compile(r"^-\d+$|^-\d*\.\d+$")
_UNRESOLVED = re.compile(r"\$\(|\$\{|\$[A-Za-z_]|\{\{|^\{[A-Za-z_]\w*\}$")
_NO_VALUE = ("store_true", "store_false", "store_const", "bool_optional", "help")


@dataclass(frozen=True)
class FlagSpec:
    dest: str
    options: tuple[str, ...]
    kind: str  # value | append | store_true | store_const | bool_optional | help
    type: str = "str"  # str | int | float | human_int | human_int_or_auto | json | json_or_str
    negative: tuple[str, ...] = ()
    choices: tuple[Any, ...] | None = None
    nargs: str | int | None = None
    const: Any = None
    default: Any = None
    deprecated: bool = False
    valid_values: tuple[str, ...] | None = None  # checked after argparse (vLLM CacheDType): still a start-up failure


@dataclass(frozen=True)
class FlagTable:
    engine: str
    version: str
    flags: tuple[FlagSpec, ...]
    by_option: dict[str, FlagSpec]
    removed: dict[str, dict]
    underscore_to_dash: bool
    dotted_json_keys: bool
    model_dest: str


@dataclass(frozen=True)
class LaunchStart:
    """Where an engine command starts. Iterates as (engine, index) so `engine, i = found` keeps working."""

    engine: str
    index: int  # first token after the entry point (the model or the first flag)
    entry_span: Span | None = None

    def __iter__(self):
        return iter((self.engine, self.index))

    def __len__(self) -> int:
        return 2

    def __getitem__(self, i: int) -> Any:
        return (self.engine, self.index)[i]


@dataclass(frozen=True)
class ParsedArgs:
    model: Setting | None
    settings: dict[str, Setting]
    unknown: list[UnknownFlag]
    errors: list[str]
    deprecated: list[Token] = field(default_factory=list)  # accepted flags the engine marks deprecated


# ---------------------------------------------------------------- tables


def _spec(entry: dict) -> FlagSpec:
    choices = entry.get("choices")
    return FlagSpec(
        dest=entry["dest"], options=tuple(entry["options"]), kind=entry["kind"], type=entry.get("type", "str"),
        negative=tuple(entry.get("negative_options", ())), choices=tuple(choices) if choices is not None else None,
        nargs=entry.get("nargs"), const=entry.get("const"), default=entry.get("default"),
        deprecated=entry.get("deprecated", False),
        valid_values=tuple(entry["valid_values"]) if "valid_values" in entry else None,
    )


@lru_cache(maxsize=2)
def flag_table(engine: str) -> FlagTable:
    """The engine's option table, loaded once from package data."""
    if engine not in ENGINES:
        raise UnknownFlagError(f"unknown engine {engine!r}: expected one of {', '.join(ENGINES)}")
    data = load_json(f"{engine}_flags.json")
    flags = tuple(_spec(e) for e in data["flags"])
    by_option = {opt: f for f in flags for opt in (*f.options, *f.negative)}
    removed = {opt: r for r in data["removed"] for opt in r["options"]}
    return FlagTable(engine, data["version"], flags, by_option, removed, data["underscore_to_dash"],
                     data["dotted_json_keys"], data["model_dest"])


def parse_human_int(engine: str, text: str) -> int:
    """The engine's own reading of `32k` / `1Ki` / `auto` (raises ValueError as its argparse type would)."""
    return units.vllm_human_int_or_auto(text) if engine == "vllm" else units.sglang_human_int(text)


def option_strings(engine: str) -> list[str]:
    return sorted(flag_table(engine).by_option)


def removed_flag(engine: str, option: str) -> dict | None:
    """What the table knows of a flag the engine no longer takes: last_seen / absent_in versions, replacement.

    Rules compare last_seen with a deployment's pinned engine version: `--swap-space` is fine on 0.15.
    """
    table = flag_table(engine)
    return table.removed.get(_normalise(table, option.partition("=")[0]))


# ---------------------------------------------------------------- launch detection

_PYTHON = re.compile(r"^python(\d+(\.\d+)?)?$")
_ASSIGN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_MODULES = {
    "vllm.entrypoints.openai.api_server": "vllm",
    "vllm.entrypoints.api_server": "vllm",
    "sglang.launch_server": "sglang",
}


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
    if word in ENGINES and nxt == "serve":
        return word, i + 2
    if _PYTHON.match(word):
        j = i + 1
        while j < len(texts) and texts[j] in ("-u", "-O", "-B", "-E", "-s", "-I"):
            j += 1
        if j + 1 < len(texts) and texts[j] == "-m":
            module = texts[j + 1]
            if module in _MODULES:
                return _MODULES[module], j + 2
            if module == "vllm.entrypoints.cli.main" and j + 2 < len(texts) and texts[j + 2] == "serve":
                return "vllm", j + 3
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
    return LaunchStart(engine, index, _join(tokens[i].span, tokens[index - 1].span))


def _join(first: Span | None, last: Span | None) -> Span | None:
    if first is None or last is None or first.path != last.path:
        return first
    return Span(first.path, first.line, first.col, last.end_line, last.end_col)


# ---------------------------------------------------------------- values

def _converter(engine: str, kind: str) -> Callable[[str], Any]:
    human = units.vllm_human_int if engine == "vllm" else units.sglang_human_int
    return {
        "int": int, "float": float, "human_int": human, "human_int_or_auto": units.vllm_human_int_or_auto,
        "json": json.loads, "json_or_str": _json_or_str,
    }.get(kind, str)


def _json_or_str(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return text


def is_unresolved(text: str) -> bool:
    """Shell/template expressions the engine would only see after expansion: kept raw, never guessed."""
    return bool(_UNRESOLVED.search(text))


def _convert(engine: str, spec: FlagSpec, text: str) -> tuple[Any, str | None]:
    """(value, error): the engine's own type function, then its choices."""
    try:
        value = _converter(engine, spec.type)(text)
    except (ValueError, TypeError):
        return None, f"{spec.options[0]}: invalid {spec.type} value {text!r}"
    if spec.choices is not None and value not in spec.choices:
        valid = ", ".join(str(c) for c in spec.choices)
        return None, f"{spec.options[0]}: invalid choice {text!r} (choose from {valid})"
    if spec.valid_values is not None and value not in spec.valid_values:
        valid = ", ".join(spec.valid_values)
        return None, f"{spec.options[0]}: {engine} rejects {text!r} at start-up (valid: {valid})"
    return value, None


def _sub_span(tok: Token, offset: int, text: str) -> Span | None:
    """The span of `text` inside a token (for `--flag=value`) when the token was written without quotes."""
    s = tok.span
    if s is None or s.line != s.end_line or s.end_col - s.col != len(tok.text):
        return s
    return Span(s.path, s.line, s.col + offset, s.line, s.col + offset + len(text))


# ---------------------------------------------------------------- option matching

def _normalise(table: FlagTable, name: str) -> str:
    """vLLM rewrites `_` to `-` in the name part (up to the first `.`) of every `--` token."""
    if table.underscore_to_dash and name.startswith("--"):
        head, dot, tail = name[2:].partition(".")
        return "--" + head.replace("_", "-") + dot + tail
    return name


def _match(table: FlagTable, name: str) -> tuple[FlagSpec | None, str, list[str]]:
    """(spec, option string matched, other candidates) as argparse resolves exact names and unique prefixes.

    Prefixes apply to `--long` options and, as in argparse, to single-dash ones (`-t` would find `-tp`).
    """
    if name in table.by_option:
        return table.by_option[name], name, []
    double = name.startswith("--")
    hits = sorted(o for o in table.by_option if o.startswith(name) and o.startswith("--") == double)
    if len(hits) == 1:
        return table.by_option[hits[0]], hits[0], []
    return None, name, hits


def _short_with_value(table: FlagTable, text: str) -> tuple[FlagSpec, str, str] | None:
    """argparse's `-qfp8`: a one-letter option glued to its value."""
    if text.startswith("--") or len(text) <= 2 or text[:2] not in table.by_option:
        return None
    spec = table.by_option[text[:2]]
    return (spec, text[:2], text[2:]) if spec.kind in ("value", "append") else None


def _did_you_mean(table: FlagTable, name: str) -> str | None:
    if name.startswith("--") and "_" in name:
        spec, opt, _ = _match(table, "--" + name[2:].replace("_", "-"))
        if spec is not None:
            return opt
    import difflib  # only for a flag the engine does not know

    close = difflib.get_close_matches(name, list(table.by_option), n=1, cutoff=0.6)
    return close[0] if close else None


# ---------------------------------------------------------------- the parser

@dataclass
class _State:
    """The parse in progress; only the parser's own helpers touch it."""

    engine: str
    table: FlagTable
    tokens: list[Token]
    positional_model: bool
    model: Setting | None = None
    settings: dict[str, Setting] = field(default_factory=dict)
    unknown: list[UnknownFlag] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    deprecated: list[Token] = field(default_factory=list)


def _looks_like_option(st: _State, text: str) -> bool:
    """argparse's test for "this word is a flag, not a value": dash-led and not a negative number;
    a word with a space counts only when its name part (before `=`) is a known option."""
    if not text.startswith("-") or len(text) < 2 or _NEGATIVE_NUMBER.match(text):
        return False
    return " " not in text or _match(st.table, _normalise(st.table, text.partition("=")[0]))[0] is not None


def parse_args(engine: str, tokens: list[Token], start: int = 0, *, positional_model: bool | None = None) -> ParsedArgs:
    """Settings the engine would parse from `tokens[start:]`, each keeping the spans of flag and value.

    Last occurrence wins. Unknown, ambiguous and removed flags are collected (with a did-you-mean),
    bad values become error lines; nothing raises. `positional_model` defaults to the engine's rule:
    vLLM always, SGLang only after `sglang serve`.
    """
    if positional_model is None:
        positional_model = engine == "vllm" or (start > 0 and tokens[start - 1].text == "serve")
    st = _State(engine, flag_table(engine), tokens, positional_model)
    i = start
    while i < len(tokens):
        i = _step(st, i)
    _check_vllm_model_first(st, start)
    return ParsedArgs(st.model, st.settings, st.unknown, st.errors, st.deprecated)


def _step(st: _State, i: int) -> int:
    text = st.tokens[i].text
    if text == "--":
        for tok in st.tokens[i + 1:]:
            _positional(st, tok)
        return len(st.tokens)
    if not _looks_like_option(st, text):
        _positional(st, st.tokens[i])
        return i + 1
    if st.engine == "vllm" and text.startswith("-O") and not text.startswith("--"):
        return _optimization_level(st, i)
    return _option(st, i)


def _positional(st: _State, tok: Token) -> None:
    if st.positional_model:
        st.model = Setting(st.table.model_dest, tok.text, "", tok.text, tok.span, None, resolved=not is_unresolved(tok.text))
        st.positional_model = False  # one positional only; a second is an error as in argparse
        return
    st.errors.append(f"unrecognized argument {tok.text!r}" + (f" at {tok.span}" if tok.span else ""))


def _optimization_level(st: _State, i: int) -> int:
    """vLLM rewrites `-O3`, `-O=3` and `-O 3` to `--optimization-level 3` before argparse sees them."""
    tok = st.tokens[i]
    text = tok.text
    if text == "-O":
        nxt = st.tokens[i + 1] if i + 1 < len(st.tokens) else None
        if nxt is None or nxt.text not in ("0", "1", "2", "3"):
            st.unknown.append(UnknownFlag("-O", tok.span, "--optimization-level"))
            return i + 1
        _store(st, st.table.by_option["--optimization-level"], tok, "-O", nxt.text, nxt.span)
        return i + 2
    value = text[3:] if text[2:3] == "=" else text[2:]
    _store(st, st.table.by_option["--optimization-level"], tok, "-O", value, _sub_span(tok, len(text) - len(value), value))
    return i + 1


def _option(st: _State, i: int) -> int:
    tok = st.tokens[i]
    name, eq, inline = tok.text.partition("=")
    name = _normalise(st.table, name)
    if st.table.dotted_json_keys and name.startswith("--") and "." in name:
        return _dotted(st, i, name, inline if eq else None)
    spec, _, others = _match(st.table, name)
    if spec is None and not eq and (glued := _short_with_value(st.table, name)) is not None:
        return _consume(st, i, glued[0], glued[1], glued[2])
    if spec is None and " " in tok.text:
        _positional(st, tok)  # argparse: an unmatched dash word with a space is a positional
        return i + 1
    if spec is None:
        return _unknown(st, i, name, others)
    return _consume(st, i, spec, tok.text.partition("=")[0], inline if eq else None)


def _unknown(st: _State, i: int, name: str, others: list[str]) -> int:
    tok = st.tokens[i]
    removed = st.table.removed.get(name)
    if removed is not None:
        st.unknown.append(UnknownFlag(tok.text.partition("=")[0], tok.span, removed.get("replacement"), "removed"))
        takes = removed.get("takes_value") and "=" not in tok.text
        return i + 2 if takes and i + 1 < len(st.tokens) and not _looks_like_option(st, st.tokens[i + 1].text) else i + 1
    if others:
        st.unknown.append(UnknownFlag(tok.text.partition("=")[0], tok.span, ", ".join(others[:4]), "ambiguous"))
    else:
        st.unknown.append(UnknownFlag(tok.text.partition("=")[0], tok.span, _did_you_mean(st.table, name)))
    j = i + 1
    while j < len(st.tokens) and not _looks_like_option(st, st.tokens[j].text) and "=" not in tok.text:
        j += 1  # its values: the engine would stop here anyway, and they are not positionals
    return j


def _consume(st: _State, i: int, spec: FlagSpec, written: str, inline: str | None) -> int:
    tok = st.tokens[i]
    if spec.deprecated:
        st.deprecated.append(tok)
    if spec.kind in _NO_VALUE:
        if inline is not None:
            st.errors.append(f"{written}: ignored explicit argument {inline!r} (the flag takes no value)")
            return i + 1
        _store_flag(st, spec, tok, written)
        return i + 1
    if inline is not None:
        _store(st, spec, tok, written, inline, _sub_span(tok, len(tok.text) - len(inline), inline))
        return i + 1
    values, j = _take_values(st, spec, i + 1)
    if not values and spec.nargs not in ("?", "*"):
        st.errors.append(f"{written}: expected {'at least one argument' if spec.nargs == '+' else 'one argument'}")
        return j
    if spec.nargs in ("+", "*") or isinstance(spec.nargs, int):
        _store_list(st, spec, tok, written, values)
    elif values:
        _store(st, spec, tok, written, values[0].text, values[0].span)
    else:
        st.settings[spec.dest] = Setting(spec.dest, spec.const, written, "", tok.span, tok.span)
    return j


def _take_values(st: _State, spec: FlagSpec, j: int) -> tuple[list[Token], int]:
    limit = {None: 1, "?": 1}.get(spec.nargs, spec.nargs if isinstance(spec.nargs, int) else len(st.tokens))
    out: list[Token] = []
    while j < len(st.tokens) and len(out) < limit and st.tokens[j].text != "--" and not _looks_like_option(st, st.tokens[j].text):
        out.append(st.tokens[j])
        j += 1
    return out, j


def _store_flag(st: _State, spec: FlagSpec, tok: Token, written: str) -> None:
    if spec.kind == "help":
        return
    if spec.kind == "store_const":
        value: Any = spec.const
    else:
        value = tok.text not in spec.negative and _match(st.table, _normalise(st.table, written))[1] not in spec.negative
    st.settings[spec.dest] = Setting(spec.dest, value, written, "", tok.span, tok.span)


def _store(st: _State, spec: FlagSpec, flag_tok: Token, written: str, raw: str, span: Span | None) -> None:
    if spec.dest == st.table.model_dest:
        st.model = Setting(st.table.model_dest, raw, written, raw, span, flag_tok.span, resolved=not is_unresolved(raw))
        return
    if is_unresolved(raw):
        st.settings[spec.dest] = Setting(spec.dest, raw, written, raw, span, flag_tok.span, resolved=False)
        return
    value, error = _convert(st.engine, spec, raw)
    if error:
        st.errors.append(error)
        return
    if spec.kind == "append":
        old = st.settings.get(spec.dest)
        value = [*(old.value if old and isinstance(old.value, list) else []), value]
    st.settings[spec.dest] = Setting(spec.dest, value, written, raw, span, flag_tok.span)


def _store_list(st: _State, spec: FlagSpec, flag_tok: Token, written: str, values: list[Token]) -> None:
    raw = " ".join(v.text for v in values)
    span = _join(values[0].span, values[-1].span) if values else flag_tok.span
    if any(is_unresolved(v.text) for v in values):
        st.settings[spec.dest] = Setting(spec.dest, raw, written, raw, span, flag_tok.span, resolved=False)
        return
    converted = [_convert(st.engine, spec, v.text) for v in values]
    errors = [e for _, e in converted if e]
    if errors:
        st.errors.extend(errors)
        return
    st.settings[spec.dest] = Setting(spec.dest, [v for v, _ in converted], written, raw, span, flag_tok.span)


def _dotted(st: _State, i: int, name: str, inline: str | None) -> int:
    """vLLM's `--compilation-config.mode 3`: a JSON key path merged into the flag's dict value."""
    tok = st.tokens[i]
    base, *keys = name.split(".")
    if inline is None and i + 1 >= len(st.tokens):
        st.errors.append(f"{name}: expected one argument")
        return i + 1
    raw = inline if inline is not None else st.tokens[i + 1].text
    span = _sub_span(tok, len(tok.text) - len(raw), raw) if inline is not None else st.tokens[i + 1].span
    nxt = i + 1 if inline is not None else i + 2
    spec, _, others = _match(st.table, base)
    if spec is None:
        _unknown(st, i, base, others)
        return nxt
    if keys and keys[-1].endswith("+"):
        keys[-1], value = keys[-1][:-1], raw.split(",")
    else:
        value = _json_or_human(raw)
    _merge_dotted(st, spec, keys, value, tok, name, raw, span)
    return nxt


def _json_or_human(raw: str) -> Any:
    try:
        return json.loads(raw)
    except ValueError:
        try:
            return units.vllm_human_int(raw)
        except ValueError:
            return raw


def _merge_dotted(st: _State, spec: FlagSpec, keys: list[str], value: Any, tok: Token, written: str, raw: str,
                  span: Span | None) -> None:
    old = st.settings.get(spec.dest)
    merged: dict = dict(old.value) if old is not None and isinstance(old.value, dict) else {}
    node = merged
    for key in keys[:-1]:
        node[key] = dict(node[key]) if isinstance(node.get(key), dict) else {}
        node = node[key]
    if keys:
        node[keys[-1]] = value
    resolved = not is_unresolved(raw) and (old is None or old.resolved)
    st.settings[spec.dest] = Setting(spec.dest, merged, written, raw, span, tok.span, resolved=resolved)


def _check_vllm_model_first(st: _State, start: int) -> None:
    """`vllm serve --served-model-name x ... model` fails: vLLM wants the model first (or --model/--config)."""
    if st.engine != "vllm" or start == 0 or st.tokens[start - 1].text != "serve" or start >= len(st.tokens):
        return
    texts = [t.text for t in st.tokens[start:]]
    if not texts[0].startswith("-") or any(re.match(r"^--(model|config)(=.+|$)", t) for t in texts):
        return
    if any(re.match(r"^--served[-_]model[-_]name(=.+|$)", t) for t in texts):
        st.errors.append("vllm serve: the model must be the first positional argument when --served-model-name is used")


def with_origin(setting: Setting, origin: str) -> Setting:
    """A copy marked as coming from a config file, env var or chart (readers that splice argv use this)."""
    return replace(setting, origin=origin)


# ---------------------------------------------------------------- --config files

@dataclass(frozen=True)
class ConfigEntry:
    """One top-level key of a `--config` YAML file, with where its key and value are written."""

    key: str
    value: Any
    key_span: Span | None = None
    value_span: Span | None = None


def config_tokens(engine: str, entries: list[ConfigEntry]) -> tuple[list[Token], list[str]]:
    """The argv words the engine builds from its `--config` YAML, and the errors it would raise.

    vLLM: true -> `--key`, false -> `--no-key` only if that option exists (else dropped), lists expand,
    dicts become JSON. SGLang: keys verbatim (so `max_total_tokens:` fails like on its CLI), store_true
    only when true, other booleans as `true`/`false`, and multi-value options refused.
    """
    out: list[Token] = []
    errors: list[str] = []
    for entry in entries:
        words, error = (_vllm_config_words if engine == "vllm" else _sglang_config_words)(flag_table(engine), entry)
        if error:
            errors.append(error)
        out += [Token(w, entry.key_span if n == 0 else entry.value_span) for n, w in enumerate(words)]
    return out, errors


def _scalar_words(key: str, value: Any) -> list[str]:
    if isinstance(value, list):
        return [f"--{key}", *(str(v) for v in value)] if value else []
    return [f"--{key}", json.dumps(value) if isinstance(value, dict) else str(value)]


def _vllm_config_words(table: FlagTable, entry: ConfigEntry) -> tuple[list[str], str | None]:
    if isinstance(entry.value, bool):
        if entry.value:
            return [f"--{entry.key}"], None
        no_key = f"--no-{entry.key}"
        return ([no_key], None) if no_key in table.by_option else ([], None)
    return _scalar_words(entry.key, entry.value), None


def _sglang_config_words(table: FlagTable, entry: ConfigEntry) -> tuple[list[str], str | None]:
    spec = _sglang_config_spec(table, entry.key)
    if spec is not None and (spec.kind not in ("value", "store_true") or spec.nargs not in (None, "?")):
        return [], f"--config: unsupported config option {entry.key!r} ({spec.kind}, nargs {spec.nargs})"
    if isinstance(entry.value, bool):
        if spec is not None and spec.kind == "store_true":
            return ([f"--{entry.key}"] if entry.value else []), None
        return [f"--{entry.key}", str(entry.value).lower()], None
    return _scalar_words(entry.key, entry.value), None


def _sglang_config_spec(table: FlagTable, key: str) -> FlagSpec | None:
    """SGLang looks a YAML key up by dest or by option name with `-` read as `_`."""
    norm = key.replace("-", "_")
    for spec in table.flags:
        if spec.dest == norm or any(o[2:].replace("-", "_") == norm for o in spec.options if o.startswith("--")):
            return spec
    return None


def splice_config(engine: str, tokens: list[Token], start: int, config: list[Token]) -> list[Token]:
    """The argv the engine parses once its `--config` words are in: CLI beats config beats defaults.

    vLLM inserts them after `serve <model>` (before the rest of the CLI), SGLang before all CLI words;
    both drop the `--config PATH` pair. `tokens[start:]` are the engine's arguments.
    """
    args = list(tokens[start:])
    where = next((i for i, t in enumerate(args) if t.text == "--config"), None)
    if where is not None:
        del args[where:where + 2]
    model_first = engine == "vllm" and args and not args[0].text.startswith("-")
    head = tokens[:start] + (args[:1] if model_first else [])
    rest = args[1:] if model_first else args
    return head + config + rest
