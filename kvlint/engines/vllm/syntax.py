"""How vLLM's argument parser reads a command line and a `--config` file (kvlint.flags follows it)."""

from kvlint.flags import units
from kvlint.flags.config_args import vllm_config_words
from kvlint.flags.syntax import ArgSyntax

SYNTAX = ArgSyntax(
    positional_model="always", optimization_level=True, human_int=units.vllm_human_int,
    count=units.vllm_human_int_or_auto, model_first_check=True, config_words=vllm_config_words,
    config_after_model=True, config_file_merged=True,
    type_words={"human_int": "not a count vLLM reads (32768; 32k = 32,000; 32K = 32,768; decimals only with "
                             "k/m/g/t)",
                "human_int_or_auto": "not a count vLLM reads (32768, auto or -1; 32k = 32,000; 32K = 32,768; "
                                     "decimals only with k/m/g/t)"})
