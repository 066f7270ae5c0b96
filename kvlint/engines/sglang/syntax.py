"""How SGLang's argument parser reads a command line and a `--config` file (kvlint.flags follows it)."""

from kvlint.flags import units
from kvlint.flags.config_args import sglang_config_words
from kvlint.flags.syntax import ArgSyntax

SYNTAX = ArgSyntax(
    positional_model="after-serve", optimization_level=False, human_int=units.sglang_human_int,
    count=units.sglang_human_int, model_first_check=False, config_words=sglang_config_words,
    config_after_model=False, config_file_merged=False,
    type_words={"human_int": "not a count SGLang reads (32768, 32k, 32M, 32Ki; suffixes are case-sensitive: "
                             "k/M/G/T decimal, Ki/Mi/Gi/Ti binary)"})
