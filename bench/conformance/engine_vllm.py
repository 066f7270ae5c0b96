"""Run vLLM's own KV-cache planner (from an unzipped wheel) on one generated setting.

What runs is the engine's code: the spec classes (page sizes, per-request memory), the planner
(grouping, page unification, bytes per block, num_blocks, null block, admission check, auto-fit,
estimated length) and the capacity log (tokens, concurrency), per release. What the harness supplies
is what a real start-up would hand the planner: one spec per attention layer on each pipeline stage
(built with the wheel's spec classes from the layer list in models.py), the available bytes per
worker, and the config fields the planner reads. Runs in a subprocess per release (run.py).
"""

from __future__ import annotations

import atexit
import contextlib
import dataclasses
import json
import shutil
import sys
import tempfile
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

    def check_max_model_len(self, max_model_len: int) -> int:
        return max_model_len  # interface.py Platform.check_max_model_len (CUDA keeps the default)

    def is_cuda_alike(self) -> bool:
        return True

    def is_cpu(self) -> bool:
        return False

    def is_tpu(self) -> bool:
        return False

    @property
    def supported_dtypes(self) -> list[Any]:
        """CudaPlatform.supported_dtypes on SM80 and later (every card the grid draws): bf16 first."""
        import torch

        return [torch.bfloat16, torch.float16, torch.float32]

    def __getattr__(self, name: str) -> Any:
        raise AttributeError(f"harness platform has no {name!r}: the planner asked for it")


def _defaults(config_cls: type) -> dict[str, Any]:
    """A config dataclass's field defaults (what a start-up without the matching flags holds)."""
    out: dict[str, Any] = {}
    for f in dataclasses.fields(config_cls):
        if f.default is not dataclasses.MISSING:
            out[f.name] = f.default
        elif f.default_factory is not dataclasses.MISSING:
            out[f.name] = f.default_factory()
    return out


class ModelView:
    """A plain object on which the wheel's ModelConfig methods and properties run: each name not set on the
    instance is looked up on the class (methods bound, properties and cached properties evaluated)."""

    def __init__(self, config_cls: type) -> None:
        self.__dict__["_cls"] = config_cls

    def __getattr__(self, name: str) -> Any:
        for klass in type.__getattribute__(self._cls, "__mro__"):
            member = klass.__dict__.get(name)
            if member is None:
                continue
            if isinstance(member, property):
                return member.fget(self)
            if hasattr(member, "func") and hasattr(member, "attrname"):  # functools.cached_property
                value = member.func(self)
                self.__dict__[name] = value
                return value
            if isinstance(member, (staticmethod, classmethod)):
                return member.__get__(self, type(self))
            if callable(member):
                return member.__get__(self, type(self))
            return member
        raise AttributeError(f"ModelView has no {name!r}: set it from what the start-up would resolve")


class Engine:
    """One vLLM release loaded from its wheel."""

    def __init__(self, root: Path, version: str) -> None:
        self.version = tuple(int(p) for p in version.split(".")[:3])
        loader.prepare_transformers()  # the wheel's get_config loads configs through transformers' classes
        loader.install("vllm", root)
        import torch

        DTYPES.update({"bfloat16": torch.bfloat16, "float16": torch.float16, "float32": torch.float32,
                       "uint8": torch.uint8, "int8": torch.int8, "fp8": torch.uint8})
        self.torch = torch
        self.spec = loader.require("vllm.v1.kv_cache_interface")
        self.utils = loader.require("vllm.v1.core.kv_cache_utils")
        self.planning = loader.require("vllm.v1.core.kv_cache_planning") if self.version >= (0, 30) else None
        self.capture = Capture()
        self.views: dict[str, Any] = {}
        self.view_failures: dict[str, str] = {}
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

    def mla_block(self, block: int, major: int | None, sparse: bool, qk_nope: int | None = None) -> int:
        """The MLA block size the release settles on for a GPU of compute capability `major`.x. Before 0.20 the
        wheel's CudaPlatform.check_and_update_config decides: 0.11 forces FlashMLA's 64 on SM90 and CUTLASS MLA's 128
        on SM100 over --block-size; 0.12-0.19 replace a --block-size that is not the backend's multiple (0.15 picks
        FlashInfer MLA on SM100 when qk_nope_head_dim is 128). It runs here with the device capability patched in,
        vllm._flashmla_C taken as compiled (a real install) and no backend forced. 0.20+ keep a --block-size the
        selected backend supports (attention backend selection, which loads the backends' kernels and cannot run
        here), so the given block stands."""
        if major is None or self.version >= (0, 20):
            return block
        cuda = loader.require("vllm.platforms.cuda")
        iface = loader.require("vllm.platforms.interface")
        where = "vllm.v1.attention.ops.flashmla" if self.version >= (0, 14) else "vllm.attention.ops.flashmla"
        flashmla = loader.require(where)
        envs = loader.require("vllm.envs")
        platform = cuda.CudaPlatform
        platform.get_device_capability = classmethod(lambda cls, device_id=0: iface.DeviceCapability(major, 0))
        flashmla.current_platform, flashmla._flashmla_C_AVAILABLE = platform(), True
        envs.VLLM_ATTENTION_BACKEND = None  # the default case (0.11/0.12: CUTLASS MLA sets it on SM100)
        ns = SimpleNamespace
        hf = ns(index_topk=2048) if sparse else ns(qk_nope_head_dim=qk_nope if qk_nope is not None else 1)
        cfg = ns(parallel_config=ns(worker_cls="set", data_parallel_size=1), speculative_config=None,
                 model_config=ns(use_mla=True, hf_config=hf, hf_text_config=hf),
                 cache_config=ns(block_size=block), compilation_config=ns(), attention_config=ns(backend=None))
        with contextlib.suppress(AttributeError, TypeError):  # what follows the MLA rule reads config not built here
            platform.check_and_update_config(cfg)
        return int(cfg.cache_config.block_size)

    # ------------------------------------------------------------ the model config, by the wheel
    def view(self, model_id: str, config: dict[str, Any]) -> Any:
        """The wheel's own ModelConfig methods (max length, KV heads, head size, MLA, the parallel checks) on the
        hf_config the wheel's transformers_utils.config.get_config loads from the checkpoint's config.json (its
        config registry, transformers' class defaults, patch_rope_parameters) and, from 0.20, the model-arch config
        its convertor derives. ModelConfig itself is a pydantic dataclass whose __post_init__ resolves the tokenizer,
        the runner and the platform: its methods run here on a plain object carrying the fields they read.
        None when the wheel's get_config cannot load the config (remote code: Phi-3-small's phi3small)."""
        if model_id in self.views:
            return self.views[model_id]
        cm = loader.require("vllm.config.model")
        tu = loader.require("vllm.transformers_utils.config")
        cm.current_platform = sys.modules["vllm.platforms"].current_platform
        folder = Path(tempfile.mkdtemp(prefix="kvlint-conformance-cfg-"))
        atexit.register(shutil.rmtree, folder, True)  # the wheel reads the folder until the worker ends
        (folder / "config.json").write_text(json.dumps(config), encoding="utf-8")
        try:
            view = self._view(cm, tu, folder)
        except Exception as exc:  # noqa: BLE001 - listed as a remaining rewrite, not fatal
            self.view_failures[model_id] = f"{type(exc).__name__}: {str(exc).splitlines()[0][:120]}"
            view = None
        self.views[model_id] = view
        return view

    def _view(self, cm: Any, tu: Any, folder: Path) -> Any:
        hf = tu.get_config(str(folder), trust_remote_code=False)
        view = ModelView(cm.ModelConfig)
        registry = SimpleNamespace(is_pp_supported_model=lambda archs, cfg: True,
                                   is_hc_sp_supported_model=lambda archs, cfg: False)
        view.__dict__.update(model=str(folder), revision=None, hf_config=hf, hf_text_config=tu.get_hf_text_config(hf),
                             model_impl="auto", runner_type="generate", convert_type="none", multimodal_config=None,
                             disable_sliding_window=False, spec_target_max_model_len=None, encoder_config=None,
                             tokenizer=str(folder), trust_remote_code=False, tokenizer_revision=None,
                             registry=registry, hf_image_processor_config={},
                             # the registry's inspection (a subprocess importing the model class) does not run: the
                             # in-tree class of architectures[0] serves the model, not the Transformers backend
                             _model_info=SimpleNamespace(architecture=(hf.architectures or [""])[0], is_attention_free=False,
                                                         is_hybrid=False, has_noops=False))
        if self.version >= (0, 20):
            conv = loader.require("vllm.transformers_utils.model_arch_config_convertor")
            cls_conv = conv.MODEL_ARCH_CONFIG_CONVERTORS.get(hf.model_type, conv.ModelArchConfigConvertorBase)
            convertor = cls_conv(view.hf_config, view.hf_text_config)
            try:
                view.model_arch_config = convertor.convert()
            except TypeError:  # releases whose convert() takes no multimodal switch
                view.model_arch_config = convertor.convert(supports_multimodal=False)
        return view

    def derived_len(self, model_id: str, config: dict[str, Any]) -> int | None:
        """The length vLLM settles on with no --max-model-len: ModelConfig.get_and_verify_max_len(None) (the
        convertor's or hf config's length keys, RoPE factors, LongRoPE's original length), None without a view."""
        view = self.view(model_id, config)
        return None if view is None else self._guard(model_id, "get_and_verify_max_len",
                                                     lambda: int(view.get_and_verify_max_len(None)))

    def _guard(self, model_id: str, what: str, call: Any) -> Any:
        """The wheel's method, or None (listed in the report) where it cannot run on the config this interpreter's
        transformers builds (an older release's code on a newer transformers)."""
        try:
            return call()
        except Exception as exc:  # noqa: BLE001 - listed as a remaining rewrite, not fatal
            self.view_failures[f"{model_id} ({what})"] = f"{type(exc).__name__}: {str(exc).splitlines()[0][:120]}"
            return None

    def kv_heads_and_size(self, model_id: str, config: dict[str, Any], tp: int,
                          layer: int | None = None) -> tuple[int, int] | None:
        """(KV heads per TP rank, head size) by ModelConfig.get_num_kv_heads / get_head_size (MLA: 1 and the
        latent width); with `layer`, that layer's own shape from model_arch_config[layer] (0.33's per-layer
        configs). None without a view, or for a layer when the release keeps no per-layer shapes."""
        view = self.view(model_id, config)
        if view is None:
            return None
        par = SimpleNamespace(tensor_parallel_size=tp)
        if layer is None:
            return self._guard(model_id, "get_num_kv_heads/get_head_size",
                               lambda: (int(view.get_num_kv_heads(par)), int(view.get_head_size())))
        arch = getattr(view, "model_arch_config", None)
        if arch is None or getattr(arch, "per_layer_overrides", None) is None:
            return None
        one = arch[layer]
        return int(view.get_num_kv_heads(par, arch_config=one)), int(one.head_size)

    def model_dtype(self, model_id: str, config: dict[str, Any]) -> str | None:
        """--dtype auto as config/model.py _get_and_verify_dtype resolves it (the checkpoint's dtype, a float32
        one downcast to the platform's first supported dtype), as a name ("bfloat16"); None without a view."""
        view = self.view(model_id, config)
        cm = sys.modules.get("vllm.config.model")
        if view is None or cm is None or not hasattr(cm, "_get_and_verify_dtype"):
            return None
        import inspect

        fn = cm._get_and_verify_dtype
        params = inspect.signature(fn).parameters
        kwargs = {k: v for k, v in {"is_pooling_model": False, "revision": None}.items() if k in params}
        args = (view.model, view.hf_config, "auto") if "model_id" in params else (view.hf_config, "auto")
        dtype = self._guard(model_id, "_get_and_verify_dtype", lambda: fn(*args, **kwargs))
        return None if dtype is None else str(dtype).replace("torch.", "")

    def pp_split(self, num_layers: int, pp: int) -> list[range] | None:
        """Each stage's layers by vllm/distributed/utils.py get_pp_indices (VLLM_PP_LAYER_PARTITION unset)."""
        utils = _optional("vllm.distributed.utils")
        if utils is None or not hasattr(utils, "get_pp_indices"):
            return None
        return [range(*utils.get_pp_indices(num_layers, rank, pp)) for rank in range(pp)]

    def mamba_state_bytes(self, model_id: str, config: dict[str, Any], tp: int) -> int | None:
        """One request's recurrent state on a TP rank for one linear-attention layer, by the wheel's own code: the
        model-specific config update (MODELS_CONFIG_MAP: Nemotron-H's float32 SSM state, Qwen3.5's mamba_ssm_dtype),
        then the model class's get_mamba_state_shape_from_config / get_mamba_state_dtype_from_config and
        MambaSpec.page_size_bytes (block_size -1, no padding: the page before hybrid block alignment). None when the
        model has no such layers or the wheel's code cannot run (listed)."""
        view = self.view(model_id, config)
        registry = _optional("vllm.model_executor.models.registry")
        if view is None or registry is None:
            return None
        arch = (view.hf_config.architectures or [""])[0]
        found = registry._VLLM_MODELS.get(arch)
        if found is None:
            return None
        module = _optional(f"vllm.model_executor.models.{found[0]}")
        model_cls = getattr(module, found[1], None) if module is not None else None
        if model_cls is None or not hasattr(model_cls, "get_mamba_state_shape_from_config"):
            return None
        dtype = self.model_dtype(model_id, config) or "bfloat16"
        view.dtype = DTYPES[dtype]
        cache = SimpleNamespace(**_defaults(loader.require("vllm.config.cache").CacheConfig))  # the flags' defaults
        vllm_config = SimpleNamespace(model_config=view, cache_config=cache, speculative_config=None, num_speculative_tokens=0,
                                      parallel_config=SimpleNamespace(tensor_parallel_size=tp, pipeline_parallel_size=1,
                                                                      decode_context_parallel_size=1))

        def run() -> int:
            update = getattr(_optional("vllm.model_executor.models.config"), "MODELS_CONFIG_MAP", {}).get(arch)
            if update is not None:  # the per-architecture config fix-ups a start-up runs (mamba SSM dtypes)
                update.verify_and_update_config(vllm_config)
            spec = self.make("MambaSpec", block_size=-1,
                             shapes=model_cls.get_mamba_state_shape_from_config(vllm_config),
                             dtypes=model_cls.get_mamba_state_dtype_from_config(vllm_config))
            return int(spec.page_size_bytes)

        return self._guard(model_id, "mamba state", run)

    def parallel_refusal(self, model_id: str, config: dict[str, Any], tp: int, pp: int, dcp: int) -> str | None:
        """ModelConfig.verify_with_parallel_config (0.20+): heads divisible by TP, and for a non-MLA model with DCP
        > 1 the GQA rules (TP > KV heads, DCP <= TP // KV heads, query heads per KV head divisible by DCP)."""
        view = self.view(model_id, config)
        if view is None:
            return "no view"
        par = SimpleNamespace(tensor_parallel_size=tp, pipeline_parallel_size=pp, decode_context_parallel_size=dcp,
                              enable_expert_parallel=False, enable_hc_sp=False, world_size_across_dp=tp * pp,
                              data_parallel_size=1, prefill_context_parallel_size=1)
        try:
            view.verify_with_parallel_config(par)
        except (ValueError, AssertionError, NotImplementedError) as exc:
            return f"{type(exc).__name__}: {exc}"
        return None

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
