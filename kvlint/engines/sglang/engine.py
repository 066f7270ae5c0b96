"""SGLang as kvlint sees it: flag spellings, parser rules, memory view and memory model (this folder's memory.py)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from kvlint.engines.base import LogView, RoleTable, resolved_int

from . import facts, maxlen, memory, releases
from .syntax import SYNTAX

if TYPE_CHECKING:
    from kvlint.budget import Budget
    from kvlint.gpus import Gpu
    from kvlint.logs.record import LogRecord
    from kvlint.models.spec import ModelSpec


def _pool(record: LogRecord) -> float | None:
    """SGLang logs the K and V buffers (GB, which are GiB there), or their sum."""
    if record.k_size_gb is not None and record.v_size_gb is not None:
        return round(record.k_size_gb + record.v_size_gb, 2)
    return record.kv_size_gb


def _tokens(record: LogRecord) -> int | None:
    return record.max_total_num_tokens


def _weights(record: LogRecord) -> float | None:
    return record.weights_mem_usage_gb


def _settings(record: LogRecord) -> dict[str, Any]:
    return {"context_length": record.context_len, "mem_fraction_static": record.mem_fraction_static,
            "chunked_prefill_size": record.chunked_prefill_size}


class Sglang(RoleTable):
    facts = facts
    name = facts.NAME
    title = facts.TITLE
    flags_file = facts.FLAGS_FILE
    image_markers = facts.IMAGE_MARKERS
    image_ships = facts.IMAGE_SHIPS
    no_server_images = facts.NO_SERVER_IMAGES
    parser_sources = facts.PARSER_SOURCES
    upstream = facts.UPSTREAM
    memory_view = facts.MEMORY_VIEW
    fp8_kv_dtype = facts.FP8_KV_DTYPE
    refuses_unfit_request = facts.REFUSES_UNFIT_REQUEST
    starts_with_short_pool = facts.STARTS_WITH_SHORT_POOL
    checks_batched_tokens = facts.CHECKS_BATCHED_TOKENS
    long_context_outcome = facts.LONG_CONTEXT_OUTCOME
    long_context_switch = facts.LONG_CONTEXT_SWITCH
    memory_share_default = facts.MEMORY_SHARE_DEFAULT
    headroom_label = facts.HEADROOM_LABEL
    default_model = facts.DEFAULT_MODEL
    older_readings = facts.OLDER_READINGS
    source_tree_files = facts.SOURCE_TREE_FILES
    tree_names = facts.TREE_NAMES
    roles = facts.ROLES
    flags = facts.FLAGS
    syntax = SYNTAX
    log = LogView(pool_gib=_pool, tokens=_tokens, weights_gib=_weights, prints_total_memory=False, block_rows=False,
                  settings=_settings)

    def derived_max_len(self, model: ModelSpec) -> int:
        return maxlen.derived_max_len(model)

    def max_len_limit(self, model: ModelSpec) -> int:
        return maxlen.derived_max_len(model)

    def gpus_needed(self, settings: Mapping[str, Any]) -> tuple[int, tuple[tuple[str, int], ...]]:
        """tp x pp x dp, except that DP attention splits the TP group instead of adding GPUs."""
        roles = ("tp", "pp") if _flag(settings, "enable_dp_attention") else ("tp", "pp", "dp")
        parts = tuple((role, resolved_int(settings, self.roles[role])) for role in roles)
        total = 1
        for _, size in parts:
            total *= size
        return total, parts

    def node_share(self, settings: Mapping[str, Any]) -> tuple[int, tuple[tuple[str, int], ...]] | None:
        return None  # its multi-node launches split --tp-size over --nnodes (kvlint.launches.groups)

    def attention_tp(self, settings: Mapping[str, Any]) -> tuple[int, str]:
        """DP attention gives each attention replica tp // attn_dp ranks: one latent copy per replica rank."""
        from kvlint.errors import KvlintError

        from .memory import parallel_sizes

        tp = resolved_int(settings, self.roles["tp"])
        try:
            (_, _, _, _, attn_dp), _ = parallel_sizes(settings)
        except KvlintError:
            return tp, "TP ranks"  # bad sizes are another rule's finding
        if attn_dp <= 1:
            return tp, "TP ranks"
        return tp // attn_dp, f"attention TP ranks ({self.flag('tp')} {tp} / attention DP {attn_dp})"

    def release(self, version: str | None) -> str:
        return releases.release(version)

    def era_releases(self) -> tuple[str, ...]:
        """SGLang starts with a short pool (KV104): no refusal verdict is judged across releases."""
        return ()

    def budget(self, model: ModelSpec, settings: Mapping[str, Any], gpu: Gpu | None, *, version: str | None = None,
               non_kv_bytes: int | None = None, gpu_memory_bytes: int | None = None,
               weights_bytes: int | None = None) -> Budget:
        return memory.budget(model, settings, gpu, version=version, non_kv_bytes=non_kv_bytes,
                             gpu_memory_bytes=gpu_memory_bytes, weights_bytes=weights_bytes)

    def card_reads(self, gpu: Gpu) -> tuple[Any, ...]:
        return memory.card_reads(gpu)

    def requests_at(self, budget: Budget, context: int, model: ModelSpec, settings: Mapping[str, Any],
                    gpu: Gpu | None, gpu_memory_bytes: int | None) -> int:
        """SGLang's pool is a token count: requests of `context` tokens it holds at once."""
        return budget.kv_tokens // context


def _flag(settings: Mapping[str, Any], name: str) -> bool:
    value = settings.get(name)
    return bool(getattr(value, "value", value))


ENGINE = Sglang()
