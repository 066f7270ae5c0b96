"""SGLang as kvlint sees it: its flag spellings, parser rules, memory view and memory model (kvlint.memory.sglang)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from kvlint.engines.architectures import refuse_unmodelled
from kvlint.engines.base import ArgSyntax, LogView, RoleTable, resolved_int
from kvlint.flags import units
from kvlint.flags.config_args import sglang_config_words

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


class Sglang(RoleTable):
    name = "sglang"
    title = "SGLang"
    flags_file = "sglang_flags.json"
    image_markers: tuple[str, ...] = ()  # lmsysorg/sglang images need an explicit launch command
    image_ships = ("lmsysorg/sglang", "sglang:", "/sglang")
    memory_view = "nvidia-smi"
    fp8_kv_dtype = "fp8_e4m3"
    refuses_unfit_request = False
    starts_with_short_pool = True
    checks_batched_tokens = False
    long_context_outcome = "SGLang warns and may produce wrong output past the trained positions"
    memory_share_default = "default for this GPU"
    headroom_label = "reserve (activations, graphs)"
    default_model = None
    roles = {"max_len": "context_length", "tp": "tp_size", "pp": "pp_size", "dp": "dp_size", "dcp": "dcp_size",
             "max_seqs": "max_running_requests", "kv_dtype": "kv_cache_dtype", "mem": "mem_fraction_static",
             "quant": "quantization", "max_batched": "chunked_prefill_size",
             "pool_cap": "max_total_tokens", "nodes": "nnodes"}
    flags = {"max_len": "--context-length", "tp": "--tp-size", "pp": "--pp-size", "dp": "--dp-size",
             "dcp": "--dcp-size", "max_seqs": "--max-running-requests", "kv_dtype": "--kv-cache-dtype",
             "mem": "--mem-fraction-static", "quant": "--quantization", "max_batched": "--chunked-prefill-size",
             "pool_cap": "--max-total-tokens", "nodes": "--nnodes"}
    syntax = ArgSyntax(
        positional_model="after-serve", optimization_level=False, human_int=units.sglang_human_int,
        count=units.sglang_human_int, model_first_check=False, config_words=sglang_config_words,
        config_after_model=False, config_file_merged=False,
        type_words={"human_int": "not a count SGLang reads (32768, 32k, 32M, 32Ki; suffixes are case-sensitive: "
                                 "k/M/G/T decimal, Ki/Mi/Gi/Ti binary)"})
    log = LogView(pool_gib=_pool, tokens=_tokens, weights_gib=_weights, prints_total_memory=False, block_rows=False)

    def derived_max_len(self, model: ModelSpec) -> int:
        return model.max_len_sglang

    def gpus_needed(self, settings: Mapping[str, Any]) -> tuple[int, tuple[tuple[str, int], ...]]:
        """tp x pp x dp, except that DP attention splits the TP group instead of adding GPUs."""
        roles = ("tp", "pp") if _flag(settings, "enable_dp_attention") else ("tp", "pp", "dp")
        parts = tuple((role, resolved_int(settings, self.roles[role])) for role in roles)
        total = 1
        for _, size in parts:
            total *= size
        return total, parts

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
        from kvlint.memory.versions import sglang_version

        return str(sglang_version(version).record.version)

    def budget(self, model: ModelSpec, settings: Mapping[str, Any], gpu: Gpu | None, *, version: str | None = None,
               non_kv_bytes: int | None = None, gpu_memory_bytes: int | None = None,
               weights_bytes: int | None = None) -> Budget:
        from .memory import sglang_budget

        refuse_unmodelled(model.architecture)
        return sglang_budget(model, settings, gpu, version=version, non_kv_bytes=non_kv_bytes,
                             gpu_memory_bytes=gpu_memory_bytes, weights_bytes=weights_bytes)

    def requests_at(self, budget: Budget, context: int, model: ModelSpec, settings: Mapping[str, Any],
                    gpu: Gpu | None, gpu_memory_bytes: int | None) -> int:
        """SGLang's pool is a token count: requests of `context` tokens it holds at once."""
        return budget.kv_tokens // context


def _flag(settings: Mapping[str, Any], name: str) -> bool:
    value = settings.get(name)
    return bool(getattr(value, "value", value))


ENGINE = Sglang()
