"""SGLang 0.5.23: its own KV pool sizing (rest memory -> max_total_num_tokens) against kvlint.engines.sglang.memory.

Invoked by run.py as `python check_sglang_pool.py WHEEL_ROOT VERSION N SEED`. What runs from the wheel:

- `ModelConfig._derive_model_shapes`, `_derive_context_length`, `_derive_hybrid_model` and
  `get_num_kv_heads` / `get_swa_num_kv_heads` (configs/model_config.py) on the transformers config class
  `AutoConfig.for_model` builds from the bundled config.json (class defaults from transformers itself);
- `KVCacheConfigurator._profile_available_bytes` (rest memory = free - pre-load x (1 - mem_fraction_static)),
  `_handle_max_mamba_cache` (the Mamba pool), `config_from_budget` / `_apply_token_constraints`
  (--max-total-tokens cap) and `resolve_max_num_reqs` (mem_cache/kv_cache_configurator.py);
- `create_memory_pool_configurator` and its `DefaultPoolConfigurator` (MHA / MLA / DSA cell size, page
  rounding) or `HybridSWAPoolConfigurator` (full / SWA split) (model_executor/pool_configurator.py).

Rewrites (what a start-up would compute with a loaded model or a GPU, restated here; listed in README.md):
free memory after weights (weights 0 on both sides, so free = pre-load memory), the PP layer range
(`get_pp_indices` from the wheel when it loads), `use_mla_backend` (attention_arch == MLA), the card under
`--kv-cache-dtype auto` (the wheel's DSA post-process and quantization classes resolve it; see
checkpoint_kv_dtype), and the runtime-context getters (parallel / schedule / memory sizes from the setting). Both sides get the same mem_fraction_static
(kvlint's, compared against the wheel's heuristic by check_sglang.py) and the same total memory.
"""

from __future__ import annotations

import json
import math
import os
import random
import sys
import tempfile
import traceback
from collections import defaultdict
from pathlib import Path
from types import SimpleNamespace
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(1, str(HERE.parents[1]))

import loader  # noqa: E402
import models  # noqa: E402
import torch  # noqa: E402
from transformers import AutoConfig, PretrainedConfig  # noqa: E402

from kvlint.errors import NotModelledError  # noqa: E402

GIB = 1 << 30
GPUS_MIB = (24564, 46068, 81559, 97871, 143771, 183359)
KV_DTYPES = {"auto": None, "fp8_e4m3": torch.float8_e4m3fn, "bf16": torch.bfloat16}
# Architectures whose pool the wheel sizes with machinery a loaded model provides (DSV4's compressed pools,
# Mamba state shapes from the model's own config class, MiniMax sparse indexer): compared only when they load.


def load(root: Path) -> SimpleNamespace:
    loader.prepare_transformers()
    loader.install("sglang", root)
    mc = loader.require("sglang.srt.configs.model_config")
    pc = loader.require("sglang.srt.model_executor.pool_configurator")
    kc = loader.require("sglang.srt.mem_cache.kv_cache_configurator")
    ls = loader.require("sglang.srt.model_executor.model_runner_components.layer_setup")
    common = loader.require("sglang.srt.utils.hf_transformers.common")
    hybrid = loader.require("sglang.srt.configs.hybrid_arch")
    rc = loader.require("sglang.srt.runtime_context")
    config = loader.require("sglang.srt.utils.hf_transformers.config")
    weight_utils = loader.require("sglang.srt.model_loader.weight_utils")
    kv_dtype = loader.require("sglang.srt.mem_cache.kv_cache_dtype")
    load_config = loader.require("sglang.srt.configs.load_config")
    overrides = loader.require("sglang.srt.arg_groups.overrides")
    try:
        dist = loader.require("sglang.srt.distributed.utils")
        pp_indices = dist.get_pp_indices
    except RuntimeError:
        pp_indices = None
    return SimpleNamespace(rc=rc, config=config, mc=mc, pc=pc, kc=kc, ls=ls, common=common, hybrid=hybrid,
                           pp_indices=pp_indices, weight_utils=weight_utils, kv_dtype=kv_dtype,
                           load_config=load_config, overrides=overrides)


# Old remote-code model types transformers now serves under another class (Falcon's RefinedWeb checkpoints load
# as FalconConfig with trust_remote_code off). A harness rewrite, listed in README.md.
MODEL_TYPE_ALIASES = {"RefinedWebModel": "falcon", "RefinedWeb": "falcon"}


def hf_config(config: dict[str, Any]) -> Any:
    """The transformers config class for the model type (its defaults), else a plain PretrainedConfig."""
    body = {k: v for k, v in config.items() if k not in ("model_type", "transformers_version")}
    model_type = MODEL_TYPE_ALIASES.get(str(config.get("model_type")), str(config.get("model_type")))
    try:
        return AutoConfig.for_model(model_type, **body)
    except (ValueError, KeyError, TypeError, AttributeError):
        cfg = PretrainedConfig(**body)
        cfg.model_type = config.get("model_type")
        for key in ("text_config", "vision_config"):
            if isinstance(config.get(key), dict):
                setattr(cfg, key, hf_config(config[key]))
        return cfg


def sglang_config(mods: SimpleNamespace, config: dict[str, Any]) -> Any:
    """SGLang's own get_config on a folder holding the config.json (its registry classes and per-model fixups,
    e.g. Gemma-4's full/SWA shapes); a model type only remote code defines falls back to hf_config()."""
    with tempfile.TemporaryDirectory() as folder:
        Path(folder, "config.json").write_text(json.dumps(config))
        try:
            return mods.config.get_config(folder, trust_remote_code=False)
        except ValueError:
            return hf_config(config)


def model_config(mods: SimpleNamespace, config: dict[str, Any], model_id: str, context: int | None) -> Any:
    """SGLang's ModelConfig with its own shape derivations run on the transformers config."""
    m = object.__new__(mods.mc.ModelConfig)
    m.model_path, m.revision, m.quantization = model_id, None, None
    m.is_draft_model, m.disable_hybrid_swa_memory, m.is_multi_layer_eagle = False, False, False
    m.speculative_algorithm, m.model_impl = None, "auto"
    m.hf_config = sglang_config(mods, config)
    m.hf_text_config = mods.common.get_hf_text_config(m.hf_config)
    m.is_multimodal = mods.mc.is_multimodal_model(m.hf_config.architectures or [""])
    m._derive_context_length(context)
    m._derive_model_shapes()
    m._derive_hybrid_model()
    return m


class Bag(SimpleNamespace):
    """A config namespace: a field the setting does not name is unset (None), as an unset server argument."""

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return None


class Ctx:
    """The runtime-context getters (get_parallel/get_schedule/get_memory/...) for one setting."""

    def __init__(self, s: dict[str, Any], mfs: float) -> None:
        tp, attn_dp = s["tp"], s.get("attn_dp", 1)
        self.parallel = Bag(attn_tp_size=tp // attn_dp, attn_dcp_size=s.get("dcp", 1), pp_size=s["pp"],
                                        launch_world_size=1, world_group=SimpleNamespace(cpu_group=None),
                                        attn_dp_size=attn_dp, tp_size=tp)
        self.schedule = Bag(max_total_tokens=s.get("max_total_tokens"), page_size=s["page"],
                                        swa_full_tokens_ratio=0.8, max_running_requests=s.get("mrr"),
                                        mem_fraction_static=mfs, prefill_max_requests=None,
                                        chunked_prefill_size=8192, disable_overlap_schedule=False,
                                        mamba_full_memory_ratio=0.9, max_mamba_cache_size=None)
        self.memory = Bag(enable_hisparse=False, enable_unified_memory=False, disable_radix_cache=False)
        self.disagg = Bag(disaggregation_mode="null", disaggregation_decode_extra_slots=0)
        self.spec = Bag(speculative_algorithm=None, speculative_num_draft_tokens=None)
        self.model = Bag(qsa_indexer_dtype=None)
        self.exec = loader.Anything()
        self.mm = Bag(mm_feature_transport=None)

    def override(self, _key: str, **values: Any) -> None:
        """RuntimeContext.override: a resolved value the schedule getters read back (the Mamba pool size)."""
        for name, value in values.items():
            setattr(self.schedule, name, value)

    def install(self, mods: SimpleNamespace) -> None:
        getters = dict(get_parallel=lambda: self.parallel, get_schedule=lambda: self.schedule,
                       get_memory=lambda: self.memory, get_disagg=lambda: self.disagg, get_spec=lambda: self.spec,
                       get_model=lambda: self.model, get_exec=lambda: self.exec, get_mm=lambda: self.mm,
                       get_context=lambda: self)
        originals = {name: getattr(mods.rc, name) for name in getters}
        for mod in [m for n, m in sys.modules.items() if n.startswith("sglang.") and m is not None]:
            for name, fn in getters.items():
                current = mod.__dict__.get(name)
                if current is not None and (current is originals[name] or getattr(current, "_ctx", False)):
                    fn._ctx = True  # type: ignore[attr-defined]
                    mod.__dict__[name] = fn


def configurator(mods: SimpleNamespace, m: Any, s: dict[str, Any], rank: int, kv_dtype: torch.dtype) -> Any:
    kvc = object.__new__(type("KVC", (mods.kc.KVCacheConfigurator,), {}))  # a subclass has a __dict__
    layers = int(m.num_hidden_layers)
    if s["pp"] > 1 and mods.pp_indices is not None:
        start, end = mods.pp_indices(layers, rank, s["pp"])
    else:
        start, end = 0, layers
    owned = range(start, end)
    swa_ids = full_ids = None
    if m.swa_attention_layer_ids is not None:
        swa_ids = [i for i in m.swa_attention_layer_ids if i in owned]
        full_ids = [i for i in m.full_attention_layer_ids if i in owned]
    fields = dict(
        device="cuda", gpu_id=0, attn_dp_size=s.get("attn_dp", 1), pp_size=s["pp"], pp_group=None, model=None,
        model_config=m, server_args=SimpleNamespace(enable_hisparse=False), kv_cache_dtype=kv_dtype,
        model_dtype=torch.bfloat16, page_size=s["page"], sliding_window_size=getattr(m, "sliding_window_size", None),
        spec_algorithm=_NoSpec(), is_draft_worker=False, post_capture_kv_active=False,
        spec_aux_config=SimpleNamespace(eagle_draft_num_layers=None), is_hybrid_swa=bool(m.is_hybrid_swa),
        is_hybrid_swa_compress=False, use_mla_backend=m.attention_arch == mods.mc.AttentionArch.MLA,
        layer_info=mods.ls.ModelLayerInfo(start_layer=start, end_layer=end, num_effective_layers=end - start,
                                          swa_attention_layer_ids=swa_ids, full_attention_layer_ids=full_ids),
        kv_cache_dtype_str=s["kv"], extra_mamba_cache_bytes_per_req=0, mambaish_config=mods.hybrid.mambaish_config(m),
        hybrid_gdn_config=None, hybrid_kda_config=None, kv_shard_rank=None, kv_shard_size=1, kv_shard_spec=None,
        kv_shard_group=None, draft_parallel_layout=None, dflash_draft_cell_size_per_token=None)
    for name, value in fields.items():
        setattr(kvc, name, value)
    kvc.fused_entry_bytes = lambda name: None  # no speculative draft in the grid: nothing fuses
    return kvc


class _NoSpec:
    def __getattr__(self, name: str) -> Any:
        return lambda *a, **k: name == "is_none"


def engine_side(mods: SimpleNamespace, config: dict[str, Any], model_id: str, s: dict[str, Any],
                pre_load: int, mfs: float) -> dict[str, Any]:
    ctx = Ctx(s, mfs)
    ctx.install(mods)
    m = model_config(mods, config, model_id, s.get("context"))
    kv_dtype = KV_DTYPES[s["kv"]]
    if s["kv"] == "auto":
        kv_dtype = server_args_kv_dtype(mods, m, s.get("sm")) or checkpoint_kv_dtype(mods, m, config, model_id)
    pre_gb = pre_load / GIB
    mods.kc.get_available_gpu_memory = lambda *a, **k: pre_gb  # weights 0: free after load = free before
    ranks = []
    for rank in range(s["pp"]):
        kvc = configurator(mods, m, s, rank, kv_dtype)
        available = kvc._profile_available_bytes(pre_gb)
        cfg = mods.pc.create_memory_pool_configurator(kvc).calculate_pool_sizes(available, s["page"])
        pool = mods.pc.create_memory_pool_configurator(kvc)
        ranks.append((cfg.max_total_num_tokens, cfg, pool, kvc))
    tokens, cfg, pool, kvc = min(ranks, key=lambda r: r[0])
    capped = kvc._apply_token_constraints(tokens) if s["pp"] == 1 else min(tokens, s.get("max_total_tokens") or tokens)
    if capped != tokens:
        cfg = pool.calculate_pool_sizes_from_max_tokens(capped, s["page"])
    return {"max_total_num_tokens": cfg.max_total_num_tokens, "swa_tokens": cfg.swa_max_total_num_tokens,
            "cell": math.ceil(getattr(pool, "_cell_size", 0) or 0),  # hybrid SWA: full + ratio x swa, fractional
            "context_len": m.context_len,
            "max_running_requests": kvc.resolve_max_num_reqs(cfg.max_total_num_tokens)}


SERVER_ARGS_KV = {"bfloat16": torch.bfloat16, "bf16": torch.bfloat16, "fp8_e4m3": torch.float8_e4m3fn}
CARDS = {"dsa_auto_settings": 0}  # how often the wheel's DSA KV default ran on a setting


def server_args_kv_dtype(mods: SimpleNamespace, m: Any, sm: int | None) -> torch.dtype | None:
    """The server-args post-process that sets --kv-cache-dtype auto before the model loads (the wheel's
    `_dsa_kv_cache_dtype_default`: sparse-attention models by compute capability), run on the setting's card
    (torch.cuda.get_device_capability patched; no card: SM90, listed) on a CUDA platform; None when it leaves auto."""
    mods.overrides.model_config_of = lambda view: m
    mods.overrides.get_platform = lambda: SimpleNamespace(is_npu=False, is_xpu=False)
    major, minor = divmod(sm or 90, 10)
    torch.cuda.get_device_capability = lambda *a, **k: (major, minor)
    view = SimpleNamespace(kv_cache_dtype="auto", dsa_prefill_backend=None, dsa_decode_backend=None)
    chosen = mods.overrides._dsa_kv_cache_dtype_default(view).get("kv_cache_dtype")
    CARDS["dsa_auto_settings"] += chosen is not None
    return SERVER_ARGS_KV[chosen] if chosen else None


KV_RESTATED: set[str] = set()  # configs whose quantization config the wheel cannot build here (listed)


def checkpoint_kv_dtype(mods: SimpleNamespace, m: Any, config: dict[str, Any], model_id: str) -> torch.dtype:
    """--kv-cache-dtype auto as the wheel resolves it: ModelConfig._verify_quantization names the method,
    weight_utils.get_quant_config builds its config from the checkpoint's files (config.json and ModelOpt's
    hf_quant_config.json, as bundled), and kv_cache_dtype.configure_kv_cache_dtype reads its
    kv_cache_quant_algo off the model (the model classes keep `self.quant_config`). A method this interpreter
    has no class for (gptq, fbgemm_fp8, mxfp4 register only with their kernels) keeps the model dtype: listed."""
    side = models.hf_quant_config(model_id)
    if not config.get("quantization_config") and not side:
        return torch.bfloat16
    if side and isinstance(side.get("quantization"), dict):  # trimmed in the registry: the weight fields only
        side = {**side, "quantization": {"group_size": 16, "exclude_modules": [], **side["quantization"]}}
    saved = m.model_path
    with tempfile.TemporaryDirectory() as folder:
        Path(folder, "config.json").write_text(json.dumps(config))
        if side:
            Path(folder, "hf_quant_config.json").write_text(json.dumps(side))
        m.model_path = folder
        try:
            m._verify_quantization()
            quant = mods.weight_utils.get_quant_config(m, mods.load_config.LoadConfig(), {})
        except ValueError:
            KV_RESTATED.add(model_id)
            return torch.bfloat16
        finally:
            m.model_path, m.quantization = saved, None
    _, dtype = mods.kv_dtype.configure_kv_cache_dtype(
        server_args_kv_cache_dtype="auto", model=SimpleNamespace(quant_config=quant), model_dtype=torch.bfloat16,
        is_draft_worker=False, is_dflash=False, speculative_draft_attention_backend=None)
    return dtype


def kvlint_side(model_id: str, config: dict[str, Any], s: dict[str, Any]) -> tuple[dict[str, Any], int, float]:
    from kvlint.memory import compute_budget, nonkv
    from kvlint.models.config import spec_from_config

    spec = spec_from_config(config, model_id, "bundled", hf_quant_config=models.hf_quant_config(model_id))
    if s.get("context") and s["context"] > spec.max_len_sglang:  # SGLang raises at ModelConfig; kvlint: KV105
        raise ValueError(f"KV105: --context-length {s['context']} > derived {spec.max_len_sglang}")
    settings: dict[str, Any] = {"tp_size": s["tp"], "pp_size": s["pp"], "page_size": s["page"],
                                "kv_cache_dtype": s["kv"]}
    for ours, theirs in (("max_total_tokens", "max_total_tokens"), ("max_running_requests", "mrr"),
                         ("context_length", "context"), ("mem_fraction_static", "mfs")):
        if s.get(theirs) is not None:
            settings[ours] = s[theirs]
    total = s["gpu_mib"] * 2**20
    card = None if not s.get("sm") else SimpleNamespace(name=f"SM{s['sm']}", memory_mib=s["gpu_mib"],
                                                          compute_capability=divmod(s["sm"], 10))
    b = compute_budget("sglang", spec, settings, card, version="0.5.23", weights_bytes=0, non_kv_bytes=0,
                       gpu_memory_bytes=total)
    swa = next((st for st in b.steps if st.name == "SWA pool"), None)
    pre_load = total - nonkv.sglang_context(s["tp"], s["pp"])
    return ({"max_total_num_tokens": b.kv_tokens, "swa_tokens": int(swa.value) if swa else None,
             "cell": b.kv_bytes_per_token, "context_len": b.max_model_len, "max_running_requests": b.max_num_seqs},
            pre_load, b.mem_fraction_static)


def generate(rng: random.Random) -> dict[str, Any]:
    s: dict[str, Any] = {"tp": rng.choice([1, 2, 4, 8]), "pp": rng.choice([1, 1, 1, 2, 4]),
                         "page": rng.choice([1, 1, 16, 32, 64]), "kv": rng.choice(["auto", "auto", "fp8_e4m3", "bf16"]),
                         "gpu_mib": rng.choice(GPUS_MIB)}
    if rng.random() < 0.3:
        s["mfs"] = round(rng.uniform(0.6, 0.93), 3)
    if rng.random() < 0.2:
        s["max_total_tokens"] = rng.choice([4096, 100000, 1000003])
    if rng.random() < 0.2:
        s["mrr"] = rng.choice([16, 256, 1024])
    if rng.random() < 0.2:
        s["context"] = rng.choice([2048, 8192, 32768])
    return s


def main() -> None:
    root, _version, count, seed = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    mods = load(root)
    loader.DEBUG = bool(os.environ.get("KVLINT_CONFORMANCE_DEBUG"))
    rng = random.Random(seed)
    cards = random.Random(seed * 7919 + 1)  # its own stream: the other settings stay those of earlier runs
    configs = models.bundled()
    classes: dict[str, list[dict[str, Any]]] = defaultdict(list)
    refused, not_modelled = 0, set()
    for i in range(count):
        model_id, config = configs[i % len(configs)]
        s = generate(rng)
        s["sm"] = cards.choice([None, 80, 90, 100])  # the card's compute capability (SGLang's DSA KV default)
        try:
            k, pre_load, mfs = kvlint_side(model_id, config, s)
        except NotModelledError as exc:  # kvlint refuses the architecture by name: listed, never compared
            not_modelled.add(f"{model_id}: kvlint refuses {str(exc).split(':')[0]}")
            continue
        except Exception as exc:  # noqa: BLE001 - kvlint refusing (not modelled) is its own class
            k, pre_load, mfs = {"refused": f"{type(exc).__name__}: {str(exc)[:160]}"}, 0, 0.0
        try:
            e = engine_side(mods, config, model_id, s, pre_load, mfs) if pre_load else {"skipped": True}
        except Exception as exc:  # noqa: BLE001 - the engine refusing is compared, a harness gap reported
            if loader.DEBUG:
                traceback.print_exc()
            e = {"refused": f"{type(exc).__name__}: {str(exc)[:160]}"}
        if "refused" in e or "refused" in k:
            refused += 1
            if loader.DEBUG:
                print(model_id, s, e, k, file=sys.stderr)
            if ("refused" in e) == ("refused" in k) or e.get("skipped"):
                continue
            classes["refused by one side only"].append({"model": model_id, "settings": s, "engine": e, "kvlint": k})
            continue
        diff = sorted(key for key in k if e.get(key) != k[key])
        if diff:
            classes["differ in " + ", ".join(diff)].append({"model": model_id, "settings": s, "engine": e,
                                                          "kvlint": k})
    print(json.dumps({"settings": count, "configs": len(configs), "refused": refused, "skipped": sorted(not_modelled),
                      "kv_dtype_restated": sorted(KV_RESTATED), **CARDS,
                      "mismatches": sum(len(v) for v in classes.values()), "classes": classes}))


if __name__ == "__main__":
    main()
