"""The engine protocol: everything that differs between vLLM and SGLang, asked for by role, never by name.

Readers, the resolve stage, rules and reporters hold an `Engine` and ask it: which canonical setting
plays a role (`max_len` is vLLM's `max_model_len` and SGLang's `context_length`), how a fix spells the
flag, which GPU total its sizing starts from, whether it refuses a request that does not fit or starts
and rejects it later, and its memory model. Adding TensorRT-LLM or TGI is one new module implementing
this protocol and one entry in kvlint.engines._MODULES, the way pre-commit keeps one module per language.

Stage 2 (flag parsing: `syntax`) and stage 5 (memory: `budget`) stay apart: the record only points at
kvlint.flags and kvlint.memory, imported when used.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Protocol

from kvlint.record import record

if TYPE_CHECKING:
    from kvlint.budget import Budget
    from kvlint.engines.architectures import Retired
    from kvlint.flags.config_args import ConfigEntry
    from kvlint.flags.flag_table import FlagTable
    from kvlint.gpus import Gpu
    from kvlint.logs.record import LogRecord
    from kvlint.models.spec import ModelSpec

# What a rule or message asks for; each engine maps a role to its own canonical setting and flag spelling.
ROLES = ("max_len", "tp", "pp", "dp", "dcp", "max_seqs", "kv_dtype", "mem", "quant", "max_batched")

ConfigWords = Callable[["FlagTable", "ConfigEntry"], "tuple[list[str], str | None]"]


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


@record
class LogView:
    """What this engine's startup log says about its pool, in the fields kvlint.logs parsed."""

    pool_gib: Callable[[LogRecord], float | None]  # the pool the log shows
    tokens: Callable[[LogRecord], int | None]  # the token capacity it logs
    weights_gib: Callable[[LogRecord], float | None]  # the weights it logs
    prints_total_memory: bool  # the log gives the GPU total the engine measured (vLLM)
    block_rows: bool  # the log shows blocks, requested memory and concurrency (vLLM)


class Engine(Protocol):
    """One serving engine. Implementations: kvlint/engines/vllm.py, kvlint/engines/sglang.py."""

    name: str  # "vllm"
    title: str  # "vLLM", as messages write it
    flags_file: str  # package data file with its flag table
    image_markers: tuple[str, ...]  # image names whose entrypoint starts this engine's server
    image_ships: tuple[str, ...]  # image names that carry the engine, whether or not the entry point starts it
    parser_sources: tuple[str, ...]  # where a source checkout keeps the argument parser (a fork in the repository)
    memory_view: str  # "torch" (cudaMemGetInfo total) | "nvidia-smi" (MiB as nvidia-smi prints)
    fp8_kv_dtype: str  # the spelling of fp8 KV the fix messages suggest
    refuses_unfit_request: bool  # refuses to start when one max-length request does not fit (KV101)
    starts_with_short_pool: bool  # starts with a pool shorter than the context, rejects later (KV104)
    checks_batched_tokens: bool  # refuses max_num_batched_tokens below max_num_seqs / max_model_len (KV106)
    long_context_outcome: str  # what happens past the model's derived maximum length (KV105)
    memory_share_default: str  # how a defaulted memory share is described: "default", "default for this GPU"
    headroom_label: str  # the bar segment between the engine's share and the card total
    default_model: str | None  # the model the CLI serves with none given (None: the engine requires one)
    syntax: ArgSyntax
    log: LogView

    def setting(self, role: str) -> str:
        """The canonical setting (argparse dest) that plays `role`."""
        ...

    def flag(self, role: str) -> str:
        """The flag a fix message writes for `role`."""
        ...

    def derived_max_len(self, model: ModelSpec) -> int:
        """The longest context the engine derives from config.json when no length is given."""
        ...

    def gpus_needed(self, settings: Mapping[str, Any]) -> tuple[int, tuple[tuple[str, int], ...]]:
        """GPUs one instance uses, and the (role, size) factors that make it up (resolved int values only)."""
        ...

    def attention_tp(self, settings: Mapping[str, Any]) -> tuple[int, str]:
        """Ranks that each keep a whole copy of an MLA latent, and how to name them."""
        ...

    def release(self, version: str | None) -> str:
        """The documented release the memory model follows for `version` (None: the default release)."""
        ...

    def era_releases(self) -> tuple[str, ...]:
        """One release per era of the memory model's estimate: a launch that pins no release could run any of
        them, so a refusal it predicts is stated only when every era agrees (KV101)."""
        ...

    def budget(self, model: ModelSpec, settings: Mapping[str, Any], gpu: Gpu | None, *, version: str | None = None,
               non_kv_bytes: int | None = None, gpu_memory_bytes: int | None = None,
               weights_bytes: int | None = None) -> Budget:
        """What the engine computes at startup for one instance (kvlint.memory)."""
        ...

    def requests_at(self, budget: Budget, context: int, model: ModelSpec, settings: Mapping[str, Any],
                    gpu: Gpu | None, gpu_memory_bytes: int | None) -> int:
        """Full-length requests the same pool holds at another context length."""
        ...

    def retired_architecture(self, architecture: str, version: str) -> Retired | None:
        """The release no longer serves this model class in-tree (kvlint/data/architectures.json)."""
        ...


class RoleTable:
    """The role -> setting / flag lookups both engines share, from two small tables."""

    name: str = ""
    roles: Mapping[str, str] = {}
    flags: Mapping[str, str] = {}

    def setting(self, role: str) -> str:
        return self.roles[role]

    def flag(self, role: str) -> str:
        return self.flags[role]

    def retired_architecture(self, architecture: str, version: str) -> Retired | None:
        from kvlint.engines.architectures import retired

        return retired(self.name, architecture, version)


def resolved_int(settings: Mapping[str, Any], name: str, default: int = 1) -> int:
    """A positive int setting, else `default` (bad sizes are KV007's finding, not this one's)."""
    value = settings.get(name, default)
    value = getattr(value, "value", value)
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else default
