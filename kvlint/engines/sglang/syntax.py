"""How SGLang's argument parser reads a command line and a `--config` file (kvlint.flags follows it).

SGLang's "human_readable_int" is not vLLM's: `1Ki` is 1024, `32K` is refused (kvlint/engines/vllm/syntax.py).
"""

from kvlint.flags.config_args import scalar_words
from kvlint.flags.flag_table import FlagSpec, FlagTable
from kvlint.flags.syntax import ArgSyntax, ConfigEntry
from kvlint.lazyre import lazy

_SGLANG_RE = lazy(r"(\d+(?:\.\d+)?)(Ki|Mi|Gi|Ti|k|M|G|T)")
_SGLANG_UNITS = {"k": 10**3, "M": 10**6, "G": 10**9, "T": 10**12, "Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40}


def sglang_human_int(text: str) -> int:
    """SGLang's rule: `k`, `M`, `G`, `T` are decimal, `Ki`..`Ti` binary; case matters (`32K` fails).

    Decimals only with the decimal suffixes (`25.6k`), computed exactly as the engine's Decimal does.
    """
    text = text.strip()
    m = _SGLANG_RE.fullmatch(text)
    if not m:
        return int(text)
    number, suffix = m.groups()
    if suffix.endswith("i"):
        if "." in number:
            raise ValueError(f"decimals are not allowed with IEC suffix {suffix!r}: {text!r}")
        return int(number) * _SGLANG_UNITS[suffix]
    from decimal import Decimal  # SGLang decimal suffixes only; keeps decimal out of every start-up

    return int(Decimal(number) * _SGLANG_UNITS[suffix])


def sglang_config_words(table: FlagTable, entry: ConfigEntry) -> tuple[list[str], str | None]:
    spec = _sglang_config_spec(table, entry.key)
    if spec is not None and (spec.kind not in ("value", "store_true") or spec.nargs not in (None, "?")):
        return [], f"--config: unsupported config option {entry.key!r} ({spec.kind}, nargs {spec.nargs})"
    if isinstance(entry.value, bool):
        if spec is not None and spec.kind == "store_true":
            return ([f"--{entry.key}"] if entry.value else []), None
        return [f"--{entry.key}", str(entry.value).lower()], None
    return scalar_words(entry.key, entry.value), None


def _sglang_config_spec(table: FlagTable, key: str) -> FlagSpec | None:
    """SGLang looks a YAML key up by dest or by option name with `-` read as `_`."""
    norm = key.replace("-", "_")
    for spec in table.flags:
        if spec.dest == norm or any(o[2:].replace("-", "_") == norm for o in spec.options if o.startswith("--")):
            return spec
    return None


SYNTAX = ArgSyntax(
    positional_model="after-serve", optimization_level=False, human_int=sglang_human_int,
    count=sglang_human_int, model_first_check=False, config_words=sglang_config_words,
    config_after_model=False, config_file_merged=False,
    type_words={"human_int": "not a count SGLang reads (32768, 32k, 32M, 32Ki; suffixes are case-sensitive: "
                             "k/M/G/T decimal, Ki/Mi/Gi/Ti binary)"})
