"""vLLM as kvlint sees it: its flag spellings, parser rules, memory view and memory model (kvlint.memory.vllm)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from kvlint.engines.architectures import refuse_unmodelled
from kvlint.engines.base import ArgSyntax, LogView, RoleTable, resolved_int
from kvlint.flags import units
from kvlint.flags.config_args import vllm_config_words

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


class Vllm(RoleTable):
    name = "vllm"
    title = "vLLM"
    flags_file = "vllm_flags.json"
    image_markers = ("vllm-openai", "vllm/vllm-tpu", "vllm-tpu", "vllm/vllm")  # the entry point is the server
    image_ships = ("vllm-openai", "vllm/vllm", "vllm-tpu", "vllm-rocm", "vllm-cpu", "nm-vllm", "rhaiis/vllm",
                   "modh/vllm", "opendatahub/vllm", "vllm-cuda")  # images that carry vLLM, entry point or not
    memory_view = "torch"
    fp8_kv_dtype = "fp8"
    refuses_unfit_request = True
    starts_with_short_pool = False
    checks_batched_tokens = True
    long_context_outcome = "vLLM refuses to start unless VLLM_ALLOW_LONG_MAX_MODEL_LEN=1"
    memory_share_default = "default"
    headroom_label = "headroom"
    default_model = "Qwen/Qwen3-0.6B"
    roles = {"max_len": "max_model_len", "tp": "tensor_parallel_size", "pp": "pipeline_parallel_size",
             "dp": "data_parallel_size", "dcp": "decode_context_parallel_size", "max_seqs": "max_num_seqs",
             "kv_dtype": "kv_cache_dtype", "mem": "gpu_memory_utilization", "quant": "quantization",
             "max_batched": "max_num_batched_tokens", "nodes": "nnodes"}
    flags = {"max_len": "--max-model-len", "tp": "-tp", "pp": "-pp", "dp": "-dp", "dcp": "-dcp",
             "max_seqs": "--max-num-seqs", "kv_dtype": "--kv-cache-dtype", "mem": "--gpu-memory-utilization",
             "quant": "--quantization", "max_batched": "--max-num-batched-tokens", "nodes": "--nnodes"}
    syntax = ArgSyntax(
        positional_model="always", optimization_level=True, human_int=units.vllm_human_int,
        count=units.vllm_human_int_or_auto, model_first_check=True, config_words=vllm_config_words,
        config_after_model=True, config_file_merged=True,
        type_words={"human_int": "not a count vLLM reads (32768; 32k = 32,000; 32K = 32,768; decimals only with "
                                 "k/m/g/t)",
                    "human_int_or_auto": "not a count vLLM reads (32768, auto or -1; 32k = 32,000; 32K = 32,768; "
                                         "decimals only with k/m/g/t)"})
    log = LogView(pool_gib=_pool, tokens=_tokens, weights_gib=_weights, prints_total_memory=True, block_rows=True)

    def derived_max_len(self, model: ModelSpec) -> int:
        return model.max_len_vllm

    def gpus_needed(self, settings: Mapping[str, Any]) -> tuple[int, tuple[tuple[str, int], ...]]:
        parts = tuple((role, resolved_int(settings, self.roles[role])) for role in ("tp", "pp", "dp"))
        return parts[0][1] * parts[1][1] * parts[2][1], parts

    def attention_tp(self, settings: Mapping[str, Any]) -> tuple[int, str]:
        return resolved_int(settings, self.roles["tp"]), "TP ranks"

    def release(self, version: str | None) -> str:
        from kvlint.memory.versions import vllm_version

        return str(vllm_version(version).record.version)

    def budget(self, model: ModelSpec, settings: Mapping[str, Any], gpu: Gpu | None, *, version: str | None = None,
               non_kv_bytes: int | None = None, gpu_memory_bytes: int | None = None,
               weights_bytes: int | None = None) -> Budget:
        from .memory import vllm_budget

        refuse_unmodelled(model.architecture)
        return vllm_budget(model, settings, gpu, version=version, non_kv_bytes=non_kv_bytes,
                           gpu_memory_bytes=gpu_memory_bytes, weights_bytes=weights_bytes)

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
