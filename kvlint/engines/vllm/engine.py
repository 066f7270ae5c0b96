"""vLLM as kvlint sees it: flag spellings, parser rules, memory view and memory model (this folder's memory.py)."""

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
    return record.available_kv_gib


def _tokens(record: LogRecord) -> int | None:
    return record.kv_tokens


def _weights(record: LogRecord) -> float | None:
    return record.model_loading_gib


def _settings(record: LogRecord) -> dict[str, Any]:
    return {"max_model_len": record.max_model_len, "max_num_batched_tokens": record.max_num_batched_tokens,
            "gpu_memory_utilization": record.gpu_memory_utilization, "flashinfer_sampler": record.flashinfer_sampler}


class Vllm(RoleTable):
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
    log = LogView(pool_gib=_pool, tokens=_tokens, weights_gib=_weights, prints_total_memory=True, block_rows=True,
                  settings=_settings)

    def derived_max_len(self, model: ModelSpec) -> int:
        return maxlen.derived_max_len(model)

    def max_len_limit(self, model: ModelSpec) -> int:
        return maxlen.max_len_limit(model)

    def gpus_needed(self, settings: Mapping[str, Any]) -> tuple[int, tuple[tuple[str, int], ...]]:
        # vLLM's world size is tp x pp x pcp (prefill context parallelism adds ranks of its own), times dp instances
        parts = tuple((role, resolved_int(settings, self.roles[role])) for role in ("tp", "pp", "dp", "pcp"))
        return parts[0][1] * parts[1][1] * parts[2][1] * parts[3][1], parts

    def node_share(self, settings: Mapping[str, Any]) -> tuple[int, tuple[tuple[str, int], ...]] | None:
        """tp x pp x the data-parallel ranks `--data-parallel-size-local` gives this node: a multi-node DP deployment
        starts one launch a node, each with its share of the ranks. A process given its rank (`--data-parallel-rank
        $RANK`, whatever its value) is one rank of an externally balanced group, on one rank's GPUs (vLLM sets its
        local size to 1: sample K378's StatefulSet of ranks 1-15, one GPU each)."""
        local = resolved_int(settings, self.roles["dp_local"], 0)
        if not local and self.roles["dp_rank"] in settings:
            local = 1
        if not local:
            return None
        tp, pp = (resolved_int(settings, self.roles[role]) for role in ("tp", "pp"))
        return tp * pp * local, (("tp", tp), ("pp", pp), ("dp_local", local))

    def attention_tp(self, settings: Mapping[str, Any]) -> tuple[int, str]:
        return resolved_int(settings, self.roles["tp"]), "TP ranks"

    def release(self, version: str | None) -> str:
        return releases.release(version)

    def era_releases(self) -> tuple[str, ...]:
        """One release per era of the non-KV estimate (kvlint/data/nonkv.json `uncertainty`), oldest first."""
        from .nonkv import pool_bands

        return tuple(b.release for b in pool_bands())

    def budget(self, model: ModelSpec, settings: Mapping[str, Any], gpu: Gpu | None, *, version: str | None = None,
               non_kv_bytes: int | None = None, gpu_memory_bytes: int | None = None,
               weights_bytes: int | None = None) -> Budget:
        return memory.budget(model, settings, gpu, version=version, non_kv_bytes=non_kv_bytes,
                             gpu_memory_bytes=gpu_memory_bytes, weights_bytes=weights_bytes)

    def card_reads(self, gpu: Gpu) -> tuple[Any, ...]:
        return memory.card_reads(gpu)

    def requests_at(self, budget: Budget, context: int, model: ModelSpec, settings: Mapping[str, Any],
                    gpu: Gpu | None, gpu_memory_bytes: int | None) -> int:
        """The same num_blocks re-divided at `context` with vLLM's exact block arithmetic."""
        import math

        if budget.num_blocks is None:
            return budget.kv_tokens // context
        again = self.budget(model, {**settings, "max_model_len": context, "num_gpu_blocks_override": budget.num_blocks},
                            gpu, version=budget.engine_version, non_kv_bytes=0, gpu_memory_bytes=gpu_memory_bytes,
                            weights_bytes=0)
        return math.floor(again.max_concurrency + 1e-9)


ENGINE = Vllm()
