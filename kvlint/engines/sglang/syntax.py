"""How SGLang's argument parser reads a command line and a `--config` file (kvlint.flags follows it).

SGLang's "human_readable_int" is not vLLM's: `1Ki` is 1024, `32K` is refused (kvlint/engines/vllm/syntax.py).
"""

from kvlint.flags.config_args import sglang_config_words
from kvlint.flags.syntax import ArgSyntax
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


SYNTAX = ArgSyntax(
    positional_model="after-serve", optimization_level=False, human_int=sglang_human_int,
    count=sglang_human_int, model_first_check=False, config_words=sglang_config_words,
    config_after_model=False, config_file_merged=False,
    type_words={"human_int": "not a count SGLang reads (32768, 32k, 32M, 32Ki; suffixes are case-sensitive: "
                             "k/M/G/T decimal, Ki/Mi/Gi/Ti binary)"})
