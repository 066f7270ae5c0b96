"""The engines' own command-line rules, replayed on tokens so every value keeps its source span.

vLLM (FlexibleArgumentParser) and SGLang (plain argparse) accept different spellings of the same
flag: vLLM turns `_` into `-` and reads dotted JSON keys, SGLang rejects underscores; both take
unique prefixes. This module is the token walk that argparse does (which word is a flag, which
words are its values, what is positional); the tables and name matching are in flag_table.py,
the type functions in flag_values.py, and where a value lands in parse_state.py.
"""

from __future__ import annotations

import re

from kvlint import limits
from kvlint.deployment import InvalidValue, Setting, UnknownFlag
from kvlint.flags.flag_table import (
    FlagSpec,
    FlagTable,
    ambiguous_since,
    did_you_mean,
    dynamic_option,
    flag_table,
    match,
    normalise,
)
from kvlint.flags.flag_values import is_unresolved, json_or_human, model_name_hole
from kvlint.flags.parse_state import ParseState, merge_dotted, store, store_flag, store_list
from kvlint.flags.server import dispatch_options, server_of
from kvlint.flags.syntax import syntax_of
from kvlint.flags.token_spans import sub_span
from kvlint.lazyre import lazy
from kvlint.record import field, record
from kvlint.span import Token

_NEGATIVE_NUMBER = lazy(r"^-\d+$|^-\d*\.\d+$")
_NO_VALUE = ("store_true", "store_false", "store_const", "bool_optional", "help")


@record
class ParsedArgs:
    model: Setting | None
    settings: dict[str, Setting]
    unknown: list[UnknownFlag]
    errors: list[str]
    deprecated: list[Token] = field(default_factory=list)  # accepted flags the engine marks deprecated
    invalid: list[InvalidValue] = field(default_factory=list)  # refused values (their lines are in errors too)
    value_errors: list[str] = field(default_factory=list)  # the lines of errors that belong to `invalid`
    server: str | None = None  # another server of the engine the launch starts (kvlint.flags.server), None: its own
    leftover: list[Token] = field(default_factory=list)  # unresolved positional words (`$EXTRA_ARGS`) left over
    open_options: list[Token] = field(default_factory=list)  # options whose name is an expansion (`--"$p_type"`)


def _looks_like_option(st: ParseState, text: str) -> bool:
    """argparse's test for "this word is a flag, not a value": dash-led and not a negative number;
    a word with a space counts only when its name part (before `=`) is a known option."""
    if not text.startswith("-") or len(text) < 2 or _NEGATIVE_NUMBER.match(text):
        return False
    return " " not in text or match(st.table, normalise(st.table, text.partition("=")[0]))[0] is not None


def parse_args(engine: str, tokens: list[Token], start: int = 0, *, positional_model: bool | None = None) -> ParsedArgs:
    """Settings the engine would parse from `tokens[start:]`, each keeping the spans of flag and value.

    Last occurrence wins. Unknown, ambiguous and removed flags are collected (with a did-you-mean),
    bad values become error lines; nothing raises. `positional_model` defaults to the engine's rule:
    vLLM always, SGLang only after `sglang serve`.
    """
    after_serve = start > 0 and tokens[start - 1].text == "serve"
    if positional_model is None:
        positional_model = syntax_of(engine).positional_model == "always" or after_serve
    server = server_of(engine, [t.text for t in tokens], start)
    st = ParseState(engine, flag_table(engine, server), tokens, positional_model)
    if after_serve:
        st.dispatch = dispatch_options(engine)
    i = start
    steps = 0
    while i < len(tokens):
        if not steps & 3:  # a generated argv of a million flags stops at the file's time budget (checked every
            limits.check()  # fourth step: a check per flag was ~10,000 calls of a 1,000-file run)
        steps += 1
        i = _step(st, i)
    _check_model_first(st, start)
    return ParsedArgs(st.model, st.settings, st.unknown, st.errors, st.deprecated, st.invalid, st.value_errors, server,
                      st.leftover, st.open_options)


def _step(st: ParseState, i: int) -> int:
    text = st.tokens[i].text
    if text == "--":
        for tok in st.tokens[i + 1:]:
            _positional(st, tok)
        return len(st.tokens)
    if not _looks_like_option(st, text):
        if _switch_value(st, i):
            return i + 1
        _positional(st, st.tokens[i])
        return i + 1
    if st.syntax.optimization_level and text.startswith("-O") and not text.startswith("--"):
        return _optimization_level(st, i)
    return _option(st, i)


_BOOL_WORDS = ("true", "false", "yes", "no", "on", "off")


def _switch_value(st: ParseState, i: int) -> bool:
    """`--enforce-eager false`: a switch takes no value, so the word after it is a stray positional, not the model
    the launch names with --model: argparse exits on it (`unrecognized arguments`), or `vllm serve` takes it for
    the model. A refused value (KV007) at the word; it is not read as the model."""
    word = st.tokens[i].text
    if i == 0 or word.lower() not in _BOOL_WORDS:
        return False
    before = st.tokens[i - 1].text
    if not before.startswith("-") or "=" in before:
        return False
    spec = match(st.table, normalise(st.table, before))[0]
    if spec is None or spec.kind not in ("store_true", "bool_optional"):
        return False
    off = f"; --no-{before[2:]} turns it off" if spec.kind == "bool_optional" else ""
    reason = (f"{before} takes no value, so {word!r} after it is a stray positional argument: the parser exits on it "
              f"(unrecognized arguments) or takes it for the positional model (the switch is on as written{off})")
    tok = st.tokens[i]
    st.errors.append(reason)
    st.value_errors.append(reason)
    st.invalid.append(InvalidValue(before, word, tok.span, reason, spec.dest))
    return True


def _positional(st: ParseState, tok: Token) -> None:
    if st.positional_model:
        st.model = Setting(st.table.model_dest, tok.text, "", tok.text, tok.span, None,
                           resolved=not (is_unresolved(tok.text) or model_name_hole(tok.text)))
        st.positional_model = False  # one positional only; a second is an error as in argparse
        return
    st.errors.append(f"unrecognized argument {tok.text!r}" + (f" at {tok.span}" if tok.span else ""))
    if is_unresolved(tok.text):
        st.leftover.append(tok)


def _optimization_level(st: ParseState, i: int) -> int:
    """vLLM rewrites `-O3`, `-O=3` and `-O 3` to `--optimization-level 3` before argparse sees them; `-O.KEY=V` is a
    key of the compilation config (`-O` was `--compilation-config`'s short name when dotted keys came: sample K111's
    `-O.cudagraph_mode=FULL_AND_PIECEWISE` on vLLM 0.11.0), never an optimization level."""
    tok = st.tokens[i]
    text = tok.text
    if text.startswith("-O."):
        name, eq, inline = text.partition("=")
        return _dotted(st, i, "--compilation-config" + name[2:], inline if eq else None)
    if text == "-O":
        nxt = st.tokens[i + 1] if i + 1 < len(st.tokens) else None
        if nxt is None or nxt.text not in ("0", "1", "2", "3"):
            st.unknown.append(UnknownFlag("-O", tok.span, "--optimization-level"))
            return i + 1
        store(st, st.table.by_option["--optimization-level"], tok, "-O", nxt.text, nxt.span)
        return i + 2
    value = text[3:] if text[2:3] == "=" else text[2:]
    span = sub_span(tok, len(text) - len(value), value)
    store(st, st.table.by_option["--optimization-level"], tok, "-O", value, span)
    return i + 1


def _option(st: ParseState, i: int) -> int:
    tok = st.tokens[i]
    name, eq, inline = tok.text.partition("=")
    name = normalise(st.table, name)
    if st.table.dotted_json_keys and "." in name and not name[1:2].isdigit():
        # any option, short ones too: vLLM reads `-cc.cudagraph_mode=PIECEWISE` as `-cc` given that JSON key
        # (sample K250; its parser splits every `-`-led word holding a dot)
        return _dotted(st, i, name, inline if eq else None)
    spec, _, others = match(st.table, name)
    if spec is None and (name in st.dispatch or dynamic_option(st.table, name) is not None):
        return _undeclared(st, i, name, eq)
    if spec is None and not eq and (glued := _short_with_value(st.table, name)) is not None:
        return _consume(st, i, glued[0], glued[1], glued[2])
    if spec is None and " " in tok.text:
        _positional(st, tok)  # argparse: an unmatched dash word with a space is a positional
        return i + 1
    if spec is None and is_unresolved(name):
        return _open_option(st, i)
    if spec is None:
        return _unknown(st, i, name, others)
    return _consume(st, i, spec, tok.text.partition("=")[0], inline if eq else None)


def _undeclared(st: ParseState, i: int, name: str, eq: str) -> int:
    """A word the server takes past its declared options: `sglang serve`'s own `--model-type X` (the dispatcher
    removes it before either server parses), or one of the option families the diffusion server reads from
    parse_known_args' rest (`--vae-path X`). Accepted, with its value when it takes one; nothing is stored."""
    takes = True if name in st.dispatch else dynamic_option(st.table, name)
    if eq or takes is False or i + 1 >= len(st.tokens):
        return i + 1
    nxt = st.tokens[i + 1].text
    if takes == "optional" and nxt.lower() not in ("true", "false"):
        return i + 1
    return i + 1 if nxt.startswith("-") else i + 2


def _short_with_value(table: FlagTable, text: str) -> tuple[FlagSpec, str, str] | None:
    """argparse's `-qfp8`: a one-letter option glued to its value."""
    if text.startswith("--") or len(text) <= 2 or text[:2] not in table.by_option:
        return None
    spec = table.by_option[text[:2]]
    return (spec, text[:2], text[2:]) if spec.kind in ("value", "append") else None


def _open_option(st: ParseState, i: int) -> int:
    """`--"$p_type" "$p_count"`: an option whose name is an expansion is whatever the caller makes it (`--tp`,
    `--dp`), never an unknown flag; what it may set is an open input (kvlint.launches.build), and a word after it
    that is no option is its value (one: a longer list is not what such a launch writes), not a positional."""
    tok = st.tokens[i]
    st.open_options.append(tok)
    takes = "=" not in tok.text and i + 1 < len(st.tokens) and not _looks_like_option(st, st.tokens[i + 1].text)
    return i + 2 if takes else i + 1


def _unknown(st: ParseState, i: int, name: str, others: list[str]) -> int:
    tok = st.tokens[i]
    removed = st.table.removed.get(name)
    if removed is not None:
        takes = removed.get("takes_value") and "=" not in tok.text
        value_follows = i + 1 < len(st.tokens) and not _looks_like_option(st, st.tokens[i + 1].text)
        value = tok.text.partition("=")[2] if "=" in tok.text else st.tokens[i + 1].text if takes and value_follows \
            else ""
        st.unknown.append(UnknownFlag(tok.text.partition("=")[0], tok.span, removed.get("replacement"), "removed",
                                      value=value))
        return i + 2 if takes and value_follows else i + 1
    if others:
        since = ambiguous_since(st.table.engine, tuple(others))
        given = tok.text.partition("=")[2] if "=" in tok.text else st.tokens[i + 1].text \
            if i + 1 < len(st.tokens) and not _looks_like_option(st, st.tokens[i + 1].text) else ""
        st.unknown.append(UnknownFlag(tok.text.partition("=")[0], tok.span, ", ".join(others[:4]), "ambiguous", since,
                                      value=given))
    else:
        st.unknown.append(UnknownFlag(tok.text.partition("=")[0], tok.span, did_you_mean(st.table, name)))
    j = i + 1
    while j < len(st.tokens) and not _looks_like_option(st, st.tokens[j].text) and "=" not in tok.text:
        j += 1  # its values: the engine would stop here anyway, and they are not positionals
    return j


def _consume(st: ParseState, i: int, spec: FlagSpec, written: str, inline: str | None) -> int:
    tok = st.tokens[i]
    if spec.deprecated:
        st.deprecated.append(tok)
    if spec.kind in _NO_VALUE:
        if inline is not None:
            st.errors.append(f"{written}: ignored explicit argument {inline!r} (the flag takes no value)")
            return i + 1
        store_flag(st, spec, tok, written)
        return i + 1
    if inline is not None:
        store(st, spec, tok, written, inline, sub_span(tok, len(tok.text) - len(inline), inline))
        return i + 1
    values, j = _take_values(st, spec, i + 1)
    if not values and spec.nargs not in ("?", "*"):
        st.errors.append(f"{written}: expected {'at least one argument' if spec.nargs == '+' else 'one argument'}")
        return j
    if spec.nargs in ("+", "*") or isinstance(spec.nargs, int):
        store_list(st, spec, tok, written, values)
    elif values:
        store(st, spec, tok, written, values[0].text, values[0].span)
    else:
        st.settings[spec.dest] = Setting(spec.dest, spec.const, written, "", tok.span, tok.span)
    return j


def _take_values(st: ParseState, spec: FlagSpec, j: int) -> tuple[list[Token], int]:
    limit = spec.nargs if isinstance(spec.nargs, int) else 1 if spec.nargs in (None, "?") else len(st.tokens)
    out: list[Token] = []
    while j < len(st.tokens) and len(out) < limit and st.tokens[j].text != "--" \
            and not _looks_like_option(st, st.tokens[j].text):
        out.append(st.tokens[j])
        j += 1
    return out, j


def _dotted(st: ParseState, i: int, name: str, inline: str | None) -> int:
    """vLLM's `--compilation-config.mode 3`: a JSON key path merged into the flag's dict value."""
    tok = st.tokens[i]
    base, *keys = name.split(".")
    if inline is None and i + 1 >= len(st.tokens):
        st.errors.append(f"{name}: expected one argument")
        return i + 1
    raw = inline if inline is not None else st.tokens[i + 1].text
    span = sub_span(tok, len(tok.text) - len(raw), raw) if inline is not None else st.tokens[i + 1].span
    nxt = i + 1 if inline is not None else i + 2
    spec, _, others = match(st.table, base)
    if spec is None:
        _unknown(st, i, base, others)
        return nxt
    if keys and keys[-1].endswith("+"):
        keys[-1], value = keys[-1][:-1], raw.split(",")
    else:
        value = json_or_human(st.engine, raw)
    merge_dotted(st, spec, keys, value, tok, name, raw, span)
    return nxt


def _check_model_first(st: ParseState, start: int) -> None:
    """`vllm serve --served-model-name x ... model` fails: vLLM wants the model first (or --model/--config)."""
    if not st.syntax.model_first_check or start == 0 or st.tokens[start - 1].text != "serve" or start >= len(st.tokens):
        return
    texts = [t.text for t in st.tokens[start:]]
    if not texts[0].startswith("-") or any(re.match(r"^--(model|config)(=.+|$)", t) for t in texts):
        return
    if any(re.match(r"^--served[-_]model[-_]name(=.+|$)", t) for t in texts):
        st.errors.append("vllm serve: the model must be the first positional argument when --served-model-name is used")
