"""A flag's raw text read as the engine's argparse type function would read it.

The value a Setting carries must be the one the engine ends up with (`4k` is 4000 for vLLM, `1Ki`
is 1024), and a value the engine would refuse must become an error line rather than a guess; text
that only the shell or a template would expand is kept raw.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from typing import Any

from kvlint.flags.flag_table import FlagSpec
from kvlint.flags.syntax import syntax_of
from kvlint.lazyre import lazy

# also the references of tools other than the shell: cmd's `%NAME%` and `!NAME!`, `@NAME@` (configure_file), `#{NAME}`
# (Azure DevOps and Octopus token replacement), Terraform's `%{ }` directives, ERB's `<% %>`: a reader that missed
# its tool's expansion still never judges such a value as the engine's; a script's positional parameters (`--port $2`,
# `$@`) are its caller's
_UNRESOLVED = lazy(r"\$\(|\$\{|\$[A-Za-z_0-9@*#]|\{\{|^\{[A-Za-z_]\w*\}$|^([%!@])[A-Za-z_]\w*\1$|#\{|%\{|<%")
# `__MODEL__`, `<MODEL_ID>`: placeholders a deploy script replaces (sed, envsubst-like tooling) before the
# engine ever sees the value; never a value an engine would be given as is.
# (`[model-root]`, `[bounded-bytes]`: a runbook's "illustrative shape", sample K406; a list the engine reads is JSON,
# its strings quoted)
_DUNDER = lazy(r"__[A-Z][A-Z0-9_]*__")
_BRACKETED = lazy(r"<[A-Za-z][\w\- ]*>|\[[A-Za-z][\w\- ]*\]")


def _placeholder(text: str) -> bool:
    """Whether a value is one of the placeholders above (cheap tests first: most values are neither)."""
    if text[:1] in ("<", "[") and _BRACKETED.fullmatch(text) is not None:
        return True
    return "__" in text and _DUNDER.search(text) is not None


# a JSON value written as a capitalised name (`{"num_speculative_tokens":N}`, `:DRAFT_TOKENS}`): a runbook's pattern
# for the reader to fill in (sample K166's sweep "Command pattern"), not JSON the engine is given
# (or a format field a recipe's runner fills, `"num_speculative_tokens":{k}`: sample K256)
_JSON_HOLE = lazy(r"[:\[,]\s*(?:[A-Z][A-Z0-9_]*|\{[A-Za-z_]\w*\})\s*[,}\]]")


def is_unresolved(text: str) -> bool:
    """Shell/template expressions the engine would only see after expansion: kept raw, never guessed."""
    return bool(_UNRESOLVED.search(text) or _placeholder(text)) or (
        text[:1] in "{[" and text[:1] != "" and _JSON_HOLE.search(text) is not None)


def is_windows_path(model: str) -> bool:
    """`outputs\\merged_model`, `C:/models/x`: a backslash or a drive letter, which no Hub id has (a model value
    that is a local path on Windows, never one to look up)."""
    return "\\" in model or _DRIVE.match(model) is not None


_DRIVE = lazy(r"^[A-Za-z]:[\\/]")


# a model written as a capitalised name with an underscore (`vllm serve MODEL_NAME`, sample K323's README): a
# document's name for the reader's model, never a Hub id (which has a `/`) nor a folder anyone serves from
_MODEL_NAME_HOLE = lazy(r"^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$")


def is_placeholder(text: str) -> bool:
    """A placeholder model (`__MODEL__`, `<model>`, `MODEL_NAME`) deploy tooling or the reader fills in."""
    return (_placeholder(text) or model_name_hole(text)) and not _UNRESOLVED.search(text)


def model_name_hole(text: str) -> bool:
    return "_" in text and _MODEL_NAME_HOLE.match(text) is not None


def parse_human_int(engine: str, text: str) -> int:
    """The engine's own reading of `32k` / `1Ki` / `auto` (raises ValueError as its argparse type would)."""
    return syntax_of(engine).count(text)


def _converter(engine: str, kind: str) -> Callable[[str], Any]:
    if kind == "human_int":
        return syntax_of(engine).human_int
    if kind == "human_int_or_auto":
        return syntax_of(engine).count
    return _PLAIN.get(kind, str)


def _json_or_str(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return text


def _lower_snake(text: str) -> str:
    """vLLM's kernel backend options (`--moe-backend FLASHINFER_CUTLASS`, `--linear-backend flashinfer-cutlass`) are
    lower-cased and dashes made underscores before the choices are checked (sample K301)."""
    return text.lower().replace("-", "_")


# the argparse types read the same way by every engine (the rest are the engine's own: syntax_of)
_PLAIN: dict[str, Callable[[str], Any]] = {"int": int, "float": float, "json": json.loads, "json_or_str": _json_or_str,
                                           "lower_snake": _lower_snake}


def convert(engine: str, spec: FlagSpec, text: str) -> tuple[Any, str | None]:
    """(value, error): the engine's own type function, then its choices."""
    value, reason = read_value(engine, spec, text)
    if reason is None:
        return value, None
    if reason.startswith("valid: ") and spec.valid_values is not None:
        return None, f"{spec.options[0]}: {engine} rejects {text!r} at start-up ({reason})"
    if reason.startswith("valid: "):
        return None, f"{spec.options[0]}: invalid choice {text!r} (choose from {reason[7:]})"
    return None, f"{spec.options[0]}: invalid {spec.type} value {text!r}"


_TYPE_RULES = {"int": "not an integer", "float": "not a number", "json": "not valid JSON"}


def read_value(engine: str, spec: FlagSpec, text: str) -> tuple[Any, str | None]:
    """(value, reason): the reason, in the engine's terms and without the flag, when the engine refuses the text."""
    try:
        value = _converter(engine, spec.type)(text)
    except (ValueError, TypeError):
        words = syntax_of(engine).type_words.get(spec.type) or _TYPE_RULES.get(spec.type)
        return None, words or f"invalid {spec.type} value"
    absurd = _out_of_range(value)
    if absurd:
        return None, absurd
    if spec.choices is not None and value not in spec.choices:
        return None, "valid: " + ", ".join(str(c) for c in spec.choices)
    if spec.valid_values is not None and value not in spec.valid_values:
        return None, "valid: " + ", ".join(spec.valid_values)
    return value, None


def _out_of_range(value: Any) -> str | None:
    """Numbers argparse takes but no engine can use: every count ends in a 64-bit integer, every fraction
    and size in finite arithmetic (a 400-digit --max-model-len overflows the first float conversion)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int) and abs(value) > 2**63 - 1:
        return "too large: over 2**63 - 1, no 64-bit integer holds it"
    if isinstance(value, float) and not math.isfinite(value):
        return "not a finite number"
    return None


def json_or_human(engine: str, raw: str) -> Any:
    """A vLLM dotted-key value (`--compilation-config.mode 3`): JSON, else the engine's human int, else the text."""
    try:
        return json.loads(raw)
    except ValueError:
        try:
            return syntax_of(engine).human_int(raw)
        except ValueError:
            return raw


def older_era(engine: str, flag: str, raw: str, reason: str) -> tuple[str, str, str, str] | None:
    """(reading, first, last, first release without it) of the older releases that read a refused value: the
    engine record's own readings (a word after a switch, KEY=VALUE pairs), else a choice the flag table's older
    choice lists hold (every release's, kvlint.flags.flag_table.older_choice); None when every release refuses it."""
    from kvlint.engines.registered import facts
    from kvlint.flags.flag_table import older_choice

    era = facts(engine).OLDER_READINGS.get(flag)
    if era is not None and read_by_older(era[0], raw, reason):
        return era
    listed = older_choice(engine, flag, raw) if reason.startswith("valid: ") else None
    return (f"choice:{raw.strip(chr(34) + chr(39))}", *listed) if listed is not None else None


def read_by_older(reading: str, raw: str, reason: str) -> bool:
    """Whether a refusal is the one an older release's reading changes (the engine record's `older_readings`): a word
    after a switch, KEY=VALUE pairs where JSON is required, or a choice the option has since dropped."""
    if reading == "word":
        return " takes no value, so " in reason
    if reading.startswith("choice:"):
        return reason.startswith("valid: ") and raw.strip("\"'").lower() == reading[len("choice:"):]
    return reason.startswith("not valid JSON") and _KEY_VALUES.fullmatch(raw.strip("\"'")) is not None


_KEY_VALUES = lazy(r"[A-Za-z_]\w*=\d+(?:,[A-Za-z_]\w*=\d+)*")
