"""How an engine's own argument parser reads a command line: the record each engine folder fills
(kvlint/engines/<name>/syntax.py) and the flag parser follows.

`syntax_of(engine)` asks the engine registry for the engine's syntax module by name, so the flags floor
never imports an engine's folder or its assembled record: the folder imports this floor, not the reverse.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from kvlint.engines.registered import part
from kvlint.record import record
from kvlint.span import Span

if TYPE_CHECKING:
    from kvlint.flags.flag_table import FlagTable


@record
class ConfigEntry:
    """One top-level key of a `--config` YAML file, with where its key and value are written."""

    key: str
    value: Any
    key_span: Span | None = None
    value_span: Span | None = None


ConfigWords = Callable[["FlagTable", ConfigEntry], "tuple[list[str], str | None]"]


@record
class ArgSyntax:
    """How the engine's own argument parser reads a command line (kvlint.flags follows it)."""

    positional_model: str  # "always" (vllm serve MODEL, and its api_server) | "after-serve" (sglang serve MODEL)
    optimization_level: bool  # -O3 / -O.mode short options (vLLM)
    human_int: Callable[[str], int]  # how `32k`, `1Ki` read (argparse type human_int)
    count: Callable[[str], int]  # how a length flag reads, `auto` / -1 included where the engine allows them
    type_words: Mapping[str, str]  # argparse type -> the rule a refused value broke, in the engine's words
    model_first_check: bool  # `serve --served-model-name x ... MODEL` is refused (vLLM)
    config_words: ConfigWords  # the argv words one `--config` YAML entry becomes
    config_after_model: bool  # --config words go after `serve MODEL` (vLLM) or before every CLI word (SGLang)
    config_file_merged: bool  # readers merge a `--config FILE.yaml` beside the manifest into the launch
    unset_words: frozenset[str] = frozenset()  # values a none_unset option reads as "not given" (vLLM: None, "")


def syntax_of(engine: str) -> ArgSyntax:
    """Engine `engine`'s argument syntax (kvlint/engines/<engine>/syntax.py; KvlintError when unknown)."""
    found: ArgSyntax = part(engine, "syntax").SYNTAX
    return found
