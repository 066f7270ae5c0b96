"""Run vLLM's own KV-cache planner (from an unzipped wheel) on one generated setting.

What runs is the engine's code: the spec classes (page sizes, per-request memory), the planner
(grouping, page unification, bytes per block, num_blocks, null block, admission check, auto-fit,
estimated length) and the capacity log (tokens, concurrency), per release. What the harness supplies
is what a real start-up would hand the planner: one spec per attention layer on each pipeline stage
(built with the wheel's spec classes from the layer list in models.py), the available bytes per
worker, and the config fields the planner reads. Runs in a subprocess per release (run.py).
"""

from __future__ import annotations

import contextlib
import dataclasses
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import loader  # noqa: E402

DTYPES: dict[str, Any] = {}
DEBUG = False


class Capture:
    """Stands in for a module's `logger` so every line the planner would log is kept (info_once included)."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def _log(self, msg: str, *args: Any, **kwargs: Any) -> None:
        try:
            self.lines.append(msg % args if args else str(msg))
        except (TypeError, ValueError):
            self.lines.append(str(msg))

    info = info_once = warning = warning_once = debug = debug_once = error = _log

    def isEnabledFor(self, level: int) -> bool:
        return True


def _optional(name: str) -> Any:
    try:
        return loader.require(name)
    except (RuntimeError, ImportError):
        return None


class Cache(SimpleNamespace):
    """cache_config: the layout the engine core resolved, read back the way CacheConfig does."""

    kv_cache_layout: Any = None
    layouts: Any = None

    def get_resolved_kv_cache_layout(self) -> Any:
        return self.layouts._layout_from_name(self.kv_cache_layout)


class Platform:
    """What the planner asks the platform: the default config builder, hybrid-KV support on CUDA."""

    device_type = "cuda"

    def get_kv_cache_config_builder_cls(self, vllm_config: Any) -> str:
        return "vllm.v1.core.kv_cache_planning.DefaultKVCacheConfigBuilder"

    def support_hybrid_kv_cache(self) -> bool:
        return True

    def is_cuda(self) -> bool:
        return True

    def register_custom_kv_cache_specs(self, vllm_config: Any = None) -> None:
        return None  # CUDA registers no extra spec types

    def __getattr__(self, name: str) -> Any:
        raise AttributeError(f"harness platform has no {name!r}: the planner asked for it")


class Engine:
    """One vLLM release loaded from its wheel."""

    def __init__(self, root: Path, version: str) -> None:
        self.version = tuple(int(p) for p in version.split(".")[:3])
        loader.install("vllm", root)
        import torch

        DTYPES.update({"bfloat16": torch.bfloat16, "float16": torch.float16, "float32": torch.float32,
                       "uint8": torch.uint8, "int8": torch.int8, "fp8": torch.uint8})
        self.torch = torch
        self.spec = loader.require("vllm.v1.kv_cache_interface")
        self.utils = loader.require("vllm.v1.core.kv_cache_utils")
        self.planning = loader.require("vllm.v1.core.kv_cache_planning") if self.version >= (0, 30) else None
        self.capture = Capture()
        self.layouts = loader.require("vllm.v1.attention.backends.utils") if self.version >= (0, 30) else None
        platforms = sys.modules.get("vllm.platforms")
        if platforms is not None:  # a CUDA GPU as far as the planner asks (no device is touched)
            platforms.current_platform = Platform()
        for mod in (self.spec, self.utils, self.planning):
            if mod is not None and hasattr(mod, "logger"):
                mod.logger = self.capture

    def checkpoint_kv(self, config: dict[str, Any]) -> str:
        """What --kv-cache-dtype auto resolves to for this checkpoint, by the wheel's own
        utils/torch_utils.resolve_kv_cache_dtype_string (a ModelOpt kv_cache_quant_algo names fp8 or nvfp4); "auto"
        where the release has no such function or the checkpoint names no KV scheme."""
        utils = _optional("vllm.utils.torch_utils")
        resolve = getattr(utils, "resolve_kv_cache_dtype_string", None) if utils is not None else None
        quant = config.get("quantization_config") or (config.get("text_config") or {}).get("quantization_config")
        if resolve is None or not quant:
            return "auto"
        return str(resolve("auto", SimpleNamespace(hf_config=SimpleNamespace(quantization_config=quant))))

    def mla_block(self, block: int, major: int | None, sparse: bool) -> int:
        """The MLA block size the release settles on for a GPU of compute capability `major`.x. 0.11: the wheel's
        CudaPlatform.check_and_update_config forces FlashMLA's 64 on SM90 and CUTLASS MLA's 128 on SM100 over
        --block-size; it runs here with the device capability patched in and vllm._flashmla_C taken as compiled
        (a real install). 0.20+ keep a --block-size the selected backend supports (attention backend selection,
        which loads the backends' kernels and cannot run here), so the given block stands."""
        if major is None or self.version >= (0, 12):
            return block
        cuda = loader.require("vllm.platforms.cuda")
        iface = loader.require("vllm.platforms.interface")
        flashmla = loader.require("vllm.attention.ops.flashmla")
        envs = loader.require("vllm.envs")
        platform = cuda.CudaPlatform
        platform.get_device_capability = classmethod(lambda cls, device_id=0: iface.DeviceCapability(major, 0))
        flashmla.current_platform, flashmla._flashmla_C_AVAILABLE = platform(), True
        envs.VLLM_ATTENTION_BACKEND = None  # the default case (CUTLASS MLA sets it on SM100)
        ns = SimpleNamespace
        cfg = ns(parallel_config=ns(worker_cls="set", data_parallel_size=1), speculative_config=None,
                 model_config=ns(use_mla=True, hf_config=ns(index_topk=2048) if sparse else ns()),
                 cache_config=ns(block_size=block), compilation_config=ns())
        with contextlib.suppress(AttributeError, TypeError):  # what follows the MLA rule reads config not built here
            platform.check_and_update_config(cfg)
        return int(cfg.cache_config.block_size)

    # ------------------------------------------------------------ specs
    def make(self, cls_name: str, **fields: Any) -> Any:
        """A spec of the wheel's class, passing only the fields this release has."""
        cls = getattr(self.spec, cls_name)
        names = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: v for k, v in fields.items() if k in names and v is not None})

    def layer_spec(self, layer: dict[str, Any], block: int, dtype: Any, kv_name: str) -> Any:
        kind = layer["kind"]
        common = dict(block_size=block, num_kv_heads=layer["heads"], head_size=layer["head"], dtype=dtype)
        if kind == "mla":
            return self.make("MLAAttentionSpec", **common, head_size_v=0, cache_dtype_str=kv_name)
        common["head_size_v"] = layer.get("head_v")
        if kind == "sliding":
            return self.make("SlidingWindowSpec", **common, sliding_window=layer["window"])
        if kind == "chunked":
            return self.make("ChunkedLocalAttentionSpec", **common, attention_chunk_size=layer["window"])
        if kind == "mamba":
            return self.make("MambaSpec", block_size=block, shapes=layer["shapes"],
                             dtypes=tuple(DTYPES[d] for d in layer["dtypes"]),
                             mamba_cache_mode=layer.get("mode", "none"),
                             num_speculative_blocks=layer.get("spec_blocks", 0))
        return self.make("FullAttentionSpec", **common)

    # ------------------------------------------------------------ config
    def config(self, s: dict[str, Any]) -> Any:
        ns = SimpleNamespace
        model = ns(max_model_len=s["max_model_len"], original_max_model_len=s["original_max_model_len"],
                   use_mla=s["use_mla"], is_hybrid=s.get("is_hybrid", False), hf_config=ns(), hf_text_config=ns(),
                   runner_type="generate", max_model_len_key=None, supports_kv_cache_grouping=False)
        cache = Cache(num_gpu_blocks_override=s.get("override"), block_size=s["block_size"],
                   cache_dtype=s["kv_name"], kv_cache_dtype=s["kv_name"], kv_cache_dtype_skip_layers=[],
                   enable_prefix_caching=s.get("prefix_caching", True), mamba_cache_mode=s.get("mamba_mode", "none"),
                   kv_cache_size_tokens=None, kv_cache_max_concurrency=None, num_gpu_blocks=None,
                   prefix_cache_retention_interval=0)
        sched = ns(max_num_batched_tokens=s["mnbt"], max_num_seqs=s["mns"],
                   disable_hybrid_kv_cache_manager=not s["hma"], max_num_encoder_input_tokens=s["mnbt"],
                   async_scheduling=s.get("async", True), chunked_prefill_enabled=True,
                   enable_chunked_prefill=True)
        par = ns(tensor_parallel_size=s["tp"], pipeline_parallel_size=s["pp"], decode_context_parallel_size=s["dcp"],
                 prefill_context_parallel_size=1, data_parallel_size=1, world_size=s["tp"] * s["pp"],
                 cp_kv_cache_interleave_size=1, dcp_kv_cache_interleave_size=1)
        cfg = ns(model_config=model, cache_config=cache, scheduler_config=sched, parallel_config=par,
                 speculative_config=None, kv_transfer_config=None, kv_events_config=None,
                 device_config=ns(device_type="cuda"), attention_config=ns(hisparse_config=None, backend=None),
                 compilation_config=ns(), additional_config={}, observability_config=ns(),
                 num_prefill_lookahead_tokens=0)
        # VllmConfig.max_concurrent_batches / max_in_flight_tokens (config/vllm.py; the class itself is a
        # pydantic dataclass the stand-ins cannot build): async scheduling on the default V2 runner keeps
        # pp + 1 batches in flight, each up to max_num_batched_tokens.
        cfg.max_concurrent_batches = s["pp"] + 1 if s.get("async", True) else s["pp"]
        cfg.max_in_flight_tokens = cfg.max_concurrent_batches * s["mnbt"]
        return cfg

    # ------------------------------------------------------------ plan
    def plan(self, setting: dict[str, Any], workers: list[list[dict[str, Any]]]) -> dict[str, Any]:
        """(num_blocks, logged tokens, logged concurrency, max_model_len after auto-fit) or the refusal."""
        cfg = self.config(setting)
        dtype = DTYPES[setting["kv_torch"]]
        specs = [{f"model.layers.{lay['index']}.{lay.get('role', 'attn')}": self.layer_spec(
            lay, setting["block_size"], DTYPES.get(lay.get("dtype", ""), dtype), setting["kv_name"])
            for lay in worker} for worker in workers]
        avail = [setting["pool"]] * len(workers)
        self.capture.lines.clear()
        try:
            if self.layouts is not None:  # resolved once by the engine core from the specs (0.33)
                merged = [spec for worker in specs for spec in worker.values()]
                names = [m.name for m in self.layouts._DEFAULT_LAYOUT_PREFERENCE]
                cfg.cache_config.layouts = self.layouts
                cfg.cache_config.kv_cache_layout = self.layouts.resolve_kv_cache_layout(cfg, [names], merged).name
            if self.planning is not None:
                groups = self.planning.get_global_kv_cache_groups(cfg, specs)
                configs = self.planning.get_kv_cache_configs(cfg, specs, avail, groups)
            else:
                configs = self.utils.get_kv_cache_configs(cfg, specs, avail)
        except (ValueError, AssertionError, NotImplementedError) as exc:
            if DEBUG:
                import traceback
                traceback.print_exc()
            return {"refused": f"{type(exc).__name__}: {exc}"}
        out: dict[str, Any] = {"num_blocks": configs[0].num_blocks, "max_model_len": cfg.model_config.max_model_len}
        if not configs[0].kv_cache_groups:
            return out
        sched = self.utils.generate_scheduler_kv_cache_config(configs)
        if hasattr(self.utils, "get_kv_cache_capacity"):
            tokens, conc = self.utils.get_kv_cache_capacity(cfg, sched)
            out.update(tokens=tokens, concurrency=f"{conc:.2f}")
        else:
            self._report(cfg, sched)
            tokens = [int(line.split(":")[1].split()[0].replace(",", "")) for line in self.capture.lines
                      if line.startswith("GPU KV cache size:")]
            conc = [line.rsplit(" ", 1)[1].rstrip("x") for line in self.capture.lines
                    if line.startswith("Maximum concurrency for")]
            # <= 0.11 logs once per worker, before the workers agree on the smallest num_blocks
            out["logged"] = sorted({(t, c) for t, c in zip(tokens, conc, strict=False)})
            if out["logged"]:
                out["tokens"], out["concurrency"] = min(out["logged"])
        return out

    def _report(self, cfg: Any, sched: Any) -> None:
        fn = getattr(self.utils, "_report_kv_cache_config", None)
        if fn is not None and not self.capture.lines_have("GPU KV cache size"):
            fn(cfg, sched)


def _lines_have(self: Capture, text: str) -> bool:
    return any(line.startswith(text) for line in self.lines)


Capture.lines_have = _lines_have  # type: ignore[attr-defined]
