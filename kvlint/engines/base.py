"""The engine protocol: everything that differs between vLLM and SGLang, asked for by role, never by name.

Readers, the resolve stage, rules and reporters hold an `Engine` and ask it: which canonical setting
plays a role (`max_len` is vLLM's `max_model_len` and SGLang's `context_length`), how a fix spells the
flag, which GPU total its sizing starts from, whether it refuses a request that does not fit or starts
and rejects it later, its memory model, releases, non-KV coefficients and log patterns. Each engine is a
folder (kvlint/engines/vllm/, kvlint/engines/sglang/) whose engine.py implements this protocol from the
folder's parts; adding TensorRT-LLM or TGI is a copy of a sibling folder and one line in
kvlint.engines.registered, the way pre-commit keeps one module per language.

Stage 2 (flag parsing: `syntax`) and stage 5 (memory: `budget`) stay apart: the record only points at
kvlint.flags and kvlint.memory, imported when used; neither imports this module or an engine's record.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import ModuleType
from typing import TYPE_CHECKING, Any, Protocol

from kvlint.engines.architectures import retired
from kvlint.engines.registered import facts, part
from kvlint.record import record

if TYPE_CHECKING:
    from kvlint.budget import Budget
    from kvlint.engines.architectures import Retired
    from kvlint.flags.flag_table import FlagTable
    from kvlint.flags.syntax import ArgSyntax
    from kvlint.gpus import Gpu
    from kvlint.logs.patterns import Pattern
    from kvlint.logs.record import LogRecord
    from kvlint.models.spec import ModelSpec

# What a rule or message asks for; each engine maps a role to its own canonical setting and flag spelling.
ROLES = ("max_len", "tp", "pp", "dp", "dcp", "max_seqs", "kv_dtype", "mem", "quant", "max_batched")


@record
class LogView:
    """What this engine's startup log says about its pool, in the fields kvlint.logs parsed."""

    pool_gib: Callable[[LogRecord], float | None]  # the pool the log shows
    tokens: Callable[[LogRecord], int | None]  # the token capacity it logs
    weights_gib: Callable[[LogRecord], float | None]  # the weights it logs
    prints_total_memory: bool  # the log gives the GPU total the engine measured (vLLM)
    block_rows: bool  # the log shows blocks, requested memory and concurrency (vLLM)
    settings: Callable[[LogRecord], dict[str, Any]]  # the memory settings its own lines state, by canonical name


class Engine(Protocol):
    """One serving engine: the record kvlint/engines/<name>/engine.py assembles from its folder's parts."""

    facts: ModuleType  # the folder's leaf module of facts (facts.py), which the attributes below read
    name: str  # "vllm"
    title: str  # "vLLM", as messages write it
    flags_file: str  # package data file with its flag table
    image_markers: tuple[str, ...]  # image names whose entrypoint starts this engine's server
    image_ships: tuple[str, ...]  # image names that carry the engine, whether or not the entry point starts it
    no_server_images: tuple[str, ...]  # published image repositories that carry it and start no server: their
    # arguments are run as the container's program (KV014)
    parser_sources: tuple[str, ...]  # where a source checkout keeps the argument parser (a fork in the repository)
    upstream: str  # the engine's own GitHub repository (`vllm-project/vllm`): a clone of it is no fork
    memory_view: str  # "torch" (cudaMemGetInfo total) | "nvidia-smi" (MiB as nvidia-smi prints)
    fp8_kv_dtype: str  # the spelling of fp8 KV the fix messages suggest
    refuses_unfit_request: bool  # refuses to start when one max-length request does not fit (KV101)
    starts_with_short_pool: bool  # starts with a pool shorter than the context, rejects later (KV104)
    checks_batched_tokens: bool  # refuses max_num_batched_tokens below max_num_seqs / max_model_len (KV106)
    long_context_outcome: str  # what happens past the model's derived maximum length (KV105)
    long_context_switch: str  # the variable that lets the engine start past it anyway ("" when none is needed)
    memory_share_default: str  # how a defaulted memory share is described: "default", "default for this GPU"
    headroom_label: str  # the bar segment between the engine's share and the card total
    default_model: str | None  # the model the CLI serves with none given (None: the engine requires one)
    # values earlier releases read where the flag table's newest refuse them: option -> (the reading, "word" after a
    # switch, "key=value" pairs for JSON, or "choice:VALUE" a choice since dropped; first release read with it, last
    # read with it, first read without)
    older_readings: dict[str, tuple[str, str, str, str]]
    tree_names: tuple[str, ...]  # words a folder holding the engine's source checkout is named with (`sgl-pr`)
    source_tree_files: tuple[str, ...]  # relative paths of the engine's own repository (`examples/template_`): a launch
    # that reads one runs from a checkout of the engine (KV004's evidence of a fork or a source install)
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

    def max_len_limit(self, model: ModelSpec) -> int:
        """The longest length a user may ask before the engine refuses: the derived maximum, which is not always
        the default (vLLM starts a LongRoPE model at original_max_position_embeddings but accepts up to
        max_position_embeddings)."""
        ...

    def gpus_needed(self, settings: Mapping[str, Any]) -> tuple[int, tuple[tuple[str, int], ...]]:
        """GPUs one instance uses, and the (role, size) factors that make it up (resolved int values only)."""
        ...

    def node_share(self, settings: Mapping[str, Any]) -> tuple[int, tuple[tuple[str, int], ...]] | None:
        """GPUs one node's launch of a multi-node instance uses when the flags say so (vLLM's
        `--data-parallel-size-local`), with its factors; None when they do not."""
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

    def card_reads(self, gpu: Gpu) -> tuple[Any, ...]:
        """Every fact of a catalogue card the memory model reads (its totals, compute capability, what its name
        decides): two cards with the same facts get the same budget but for the card's name in the text, so a
        sweep computes one budget for both (kvlint.resolve.sweep)."""
        ...

    def requests_at(self, budget: Budget, context: int, model: ModelSpec, settings: Mapping[str, Any],
                    gpu: Gpu | None, gpu_memory_bytes: int | None) -> int:
        """Full-length requests the same pool holds at another context length."""
        ...

    def retired_architecture(self, architecture: str, version: str) -> Retired | None:
        """The release no longer serves this model class in-tree (kvlint/data/architectures.json)."""
        ...

    def flag_table(self) -> FlagTable:
        """The engine's option table (kvlint/data/<facts.FLAGS_FILE>), as its parser reads it."""
        ...

    def unsized_server(self, server: str | None) -> str | None:
        """Why a launch of another server of the engine is not sized (SGLang's diffusion server has no KV cache),
        or None: the engine's own server, sized as usual."""
        ...

    def non_kv_coefficients(self) -> dict[str, Any]:
        """The coefficients of its non-KV estimate (nonkv.py: kvlint/data/nonkv.json)."""
        ...

    def log_patterns(self) -> tuple[Pattern, ...]:
        """The start-up log lines only this engine prints (logs.py: kvlint.logs.patterns)."""
        ...


class RoleTable:
    """What every engine record does the same way: role -> setting / flag lookups from two small tables, and the
    parts of its folder asked for by the engine's name (kvlint.engines.registered.part)."""

    name: str = ""
    roles: Mapping[str, str] = {}
    flags: Mapping[str, str] = {}

    def setting(self, role: str) -> str:
        return self.roles[role]

    def flag(self, role: str) -> str:
        return self.flags[role]

    def retired_architecture(self, architecture: str, version: str) -> Retired | None:
        return retired(self.name, architecture, version)

    def unsized_server(self, server: str | None) -> str | None:
        if server is None:
            return None
        reasons: dict[str, str] = getattr(facts(self.name), "UNSIZED_SERVERS", {})
        return reasons.get(server)

    def flag_table(self) -> FlagTable:
        from kvlint.flags.flag_table import flag_table

        return flag_table(self.name)

    def non_kv_coefficients(self) -> dict[str, Any]:
        found: dict[str, Any] = part(self.name, "nonkv").coefficients()
        return found

    def log_patterns(self) -> tuple[Pattern, ...]:
        found: tuple[Pattern, ...] = part(self.name, "logs").line_patterns()
        return found


def resolved_int(settings: Mapping[str, Any], name: str, default: int = 1) -> int:
    """A positive int setting, else `default` (bad sizes are KV007's finding, not this one's)."""
    value = settings.get(name, default)
    value = getattr(value, "value", value)
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else default
