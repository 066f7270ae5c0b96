"""How vLLM's argument parser reads a command line and a `--config` file (kvlint.flags follows it).

vLLM and SGLang both call their parser "human_readable_int" yet disagree: vLLM reads `1K` as 1024 and `1k` as 1000
and allows `25.6k`; SGLang wants `1Ki` for 1024 and rejects `32K`. A linter that guessed one rule for both would
accept launches the engine refuses, so each engine's folder holds its own.
"""

from kvlint.flags.config_args import scalar_words
from kvlint.flags.flag_table import FlagTable
from kvlint.flags.syntax import ArgSyntax, ConfigEntry
from kvlint.lazyre import lazy

_VLLM_DECIMAL = {"k": 10**3, "m": 10**6, "g": 10**9, "t": 10**12}
_VLLM_BINARY = {"K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}
_VLLM_RE = lazy(r"(\d+(?:\.\d+)?)([kKmMgGtT])")


def vllm_human_int(text: str) -> int:
    """vLLM's rule: lower-case suffix is decimal (`1k`=1000), upper-case binary (`1K`=1024).

    Decimals only with a decimal suffix (`25.6k`; the product is truncated as the engine's int(float)
    does); anything without a suffix goes through Python's int(), so `1_000` and `+5` pass as there.
    """
    text = text.strip()
    m = _VLLM_RE.fullmatch(text)
    if not m:
        return int(text)
    number, suffix = m.groups()
    if suffix in _VLLM_BINARY:
        if "." in number:
            raise ValueError(f"decimals are not allowed with binary suffix {suffix!r}: {text!r}")
        return int(number) * _VLLM_BINARY[suffix]
    value = float(number) * _VLLM_DECIMAL[suffix]
    if value == float("inf"):  # hundreds of digits: vLLM's int(float(...)) raises, and the server exits
        raise ValueError(f"{text!r} is too large to be a count")
    return int(value)


def vllm_human_int_or_auto(text: str) -> int:
    """`--max-model-len`: `auto` (any case) and `-1` both ask for auto-fit, returned as -1."""
    if text.strip() == "-1" or text.strip().lower() == "auto":
        return -1
    return vllm_human_int(text)


def vllm_config_words(table: FlagTable, entry: ConfigEntry) -> tuple[list[str], str | None]:
    if isinstance(entry.value, bool):
        if entry.value:
            return [f"--{entry.key}"], None
        no_key = f"--no-{entry.key}"
        return ([no_key], None) if no_key in table.by_option else ([], None)
    return scalar_words(entry.key, entry.value), None


SYNTAX = ArgSyntax(
    positional_model="always", optimization_level=True, human_int=vllm_human_int,
    count=vllm_human_int_or_auto, model_first_check=True, config_words=vllm_config_words,
    config_after_model=True, config_file_merged=True, unset_words=frozenset(("None", "")),
    type_words={"human_int": "not a count vLLM reads (32768; 32k = 32,000; 32K = 32,768; decimals only with "
                             "k/m/g/t)",
                "human_int_or_auto": "not a count vLLM reads (32768, auto or -1; 32k = 32,000; 32K = 32,768; "
                                     "decimals only with k/m/g/t)"})
