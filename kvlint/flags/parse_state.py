"""The argv parse in progress and how each accepted flag lands in it as a Setting.

The token walk (kvlint/flags/parse.py) decides which flag a word is and which words are its
values; this module turns that decision into a typed Setting with spans, so the walk stays readable
and the storing rules (last occurrence wins, append lists, dotted JSON merges) sit in one place.
"""

from __future__ import annotations

from typing import Any

from kvlint.deployment import InvalidValue, Setting, UnknownFlag
from kvlint.flags.flag_table import FlagSpec, FlagTable, match, normalise
from kvlint.flags.flag_values import convert, is_unresolved, model_name_hole, read_value
from kvlint.flags.syntax import ArgSyntax, syntax_of
from kvlint.flags.token_spans import join_spans
from kvlint.record import field, record
from kvlint.span import Span, Token


@record(frozen=False)
class ParseState:
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
    invalid: list[InvalidValue] = field(default_factory=list)  # values the engine refuses, with their spans
    value_errors: list[str] = field(default_factory=list)  # the error lines of those values
    dispatch: tuple[str, ...] = ()  # `sglang serve`'s own options, taken before either server parses
    leftover: list[Token] = field(default_factory=list)  # unresolved positional words the engine has no place for
    open_options: list[Token] = field(default_factory=list)  # `--"$p_type"`: an option whose name is an expansion

    @property
    def syntax(self) -> ArgSyntax:
        return syntax_of(self.engine)


def reject(st: ParseState, spec: FlagSpec, written: str, raw: str, span: Span | None, error: str) -> None:
    """A value the engine's argparse refuses: an error line (as before) plus a record a rule can point at."""
    reason = read_value(st.engine, spec, raw)[1] or error
    st.errors.append(error)
    st.value_errors.append(error)
    st.invalid.append(InvalidValue(written, raw, span, reason, spec.dest))


def store_flag(st: ParseState, spec: FlagSpec, tok: Token, written: str) -> None:
    if spec.kind == "help":
        return
    if spec.kind == "store_const":
        value: Any = spec.const
    else:
        value = tok.text not in spec.negative and match(st.table, normalise(st.table, written))[1] not in spec.negative
    st.settings[spec.dest] = Setting(spec.dest, value, written, "", tok.span, tok.span)


def store(st: ParseState, spec: FlagSpec, flag_tok: Token, written: str, raw: str, span: Span | None) -> None:
    if spec.dest == st.table.model_dest:
        st.model = Setting(st.table.model_dest, raw, written, raw, span, flag_tok.span,
                           resolved=not (is_unresolved(raw) or model_name_hole(raw)))
        return
    if is_unresolved(raw):
        st.settings[spec.dest] = Setting(spec.dest, raw, written, raw, span, flag_tok.span, resolved=False)
        return
    if spec.dest in st.table.none_unset and raw in st.syntax.unset_words:
        st.settings.pop(spec.dest, None)  # `--quantization None`: the engine's default, as if never written
        return
    value, error = convert(st.engine, spec, raw)
    if error:
        reject(st, spec, written, raw, span, error)
        return
    if spec.kind == "append":
        old = st.settings.get(spec.dest)
        value = [*(old.value if old and isinstance(old.value, list) else []), value]
    st.settings[spec.dest] = Setting(spec.dest, value, written, raw, span, flag_tok.span)


def store_list(st: ParseState, spec: FlagSpec, flag_tok: Token, written: str, values: list[Token]) -> None:
    raw = " ".join(v.text for v in values)
    span = join_spans(values[0].span, values[-1].span) if values else flag_tok.span
    if any(is_unresolved(v.text) for v in values):
        st.settings[spec.dest] = Setting(spec.dest, raw, written, raw, span, flag_tok.span, resolved=False)
        return
    converted = [convert(st.engine, spec, v.text) for v in values]
    if any(e for _, e in converted):
        for v, (_, e) in zip(values, converted, strict=False):
            if e:
                reject(st, spec, written, v.text, v.span, e)
        return
    st.settings[spec.dest] = Setting(spec.dest, [v for v, _ in converted], written, raw, span, flag_tok.span)


def merge_dotted(st: ParseState, spec: FlagSpec, keys: list[str], value: Any, tok: Token, written: str, raw: str,
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
