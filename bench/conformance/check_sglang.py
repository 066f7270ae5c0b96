"""SGLang 0.5.23: run its own memory-fraction heuristic and context-length function against kvlint.

Invoked by run.py as `python check_sglang.py WHEEL_ROOT VERSION N SEED`. What runs is the wheel's
`handle_gpu_memory_settings` (bands, decode/prefill graph sizes, reserved MB, mem_fraction_static, the
VLM factor), its prefill-graph compatibility rules (`apply_cuda_graph_compatibility`) and
`get_context_length`. The harness hands them a server-args view with the launch's values (the way the
resolution pipeline's `resolving_view` would) and the GPU size nvidia-smi would report. Pool sizing
(cell size x rest memory) needs the model loaded, so it is not run here; kvlint's cell arithmetic is
checked against SGLang's own logged K/V sizes in tests/memory.
"""

from __future__ import annotations

import contextlib
import copy
import json
import random
import sys
import tempfile
from collections import defaultdict
from pathlib import Path
from types import SimpleNamespace
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(1, str(HERE.parents[1]))

import loader  # noqa: E402
import models  # noqa: E402

GPUS_MIB = (16384, 24564, 46068, 49140, 81559, 81920, 95830, 143771, 183359)
NOT_COVERED = {"deepseek_v4": "DeepSeek-V4 (its own configurator and MLA backend rules)"}
NESTED_ROPE = ("gemma3", "gemma3_text")  # transformers v5 holds these rope_scaling sets per layer type


class Args(SimpleNamespace):
    """server_args and its resolving view in one: the hooks read fields and declare resolutions on it."""


def server_args(mods: SimpleNamespace, s: dict[str, Any], model_path: str) -> Args:
    cg = mods.cgc.CudaGraphConfig(decode=mods.cgc.PhaseConfig(backend=mods.cgc.Backend.FULL, max_bs=s.get("max_bs")),
                                  prefill=mods.cgc.PhaseConfig(backend=mods.cgc.Backend.BREAKABLE))
    return Args(tp_size=s["tp"], pp_size=s["pp"], dcp_size=s["dcp"], attn_dp_size=s["attn_dp"], attn_cp_size=1,
                chunked_prefill_size=s.get("cps"), max_prefill_tokens=16384, max_running_requests=s.get("mrr"),
                max_total_tokens=s.get("max_total_tokens"), mem_fraction_static=s.get("mfs"), model_path=model_path,
                cuda_graph_config=cg, _cuda_graph_config_locked=set(), disaggregation_mode="null",
                language_only=False, language_model_only=False, device="cuda", speculative_algorithm=None,
                speculative_num_draft_tokens=None, disable_cuda_graph_padding=False, enable_two_batch_overlap=False,
                moe_a2a_backend="none", enable_symm_mem=False, torch_compile_max_bs=None, enable_hisparse=False,
                enable_dp_attention=s["attn_dp"] > 1)


def load(root: Path) -> SimpleNamespace:
    loader.prepare_transformers()
    loader.install("sglang", root)
    mem = loader.require("sglang.srt.arg_groups.memory_hook")
    cgh = loader.require("sglang.srt.arg_groups.cuda_graph_hook")
    cgc = loader.require("sglang.srt.model_executor.cuda_graph_config")
    common = loader.require("sglang.srt.utils.hf_transformers.common")
    mc = loader.require("sglang.srt.configs.model_config")
    try:
        config = loader.require("sglang.srt.utils.hf_transformers.config")
    except RuntimeError:  # transformers not installed: get_config is a stand-in
        config = None
    return SimpleNamespace(mem=mem, cgh=cgh, cgc=cgc, common=common, mc=mc, config=config)


def engine_side(mods: SimpleNamespace, config: dict[str, Any], s: dict[str, Any], model_path: str) -> dict[str, Any]:
    args = server_args(mods, s, model_path)
    arch = (config.get("architectures") or [""])
    is_mm = mods.mc.is_multimodal_model(arch)
    vision = config.get("vision_config")
    model_config = SimpleNamespace(
        is_multimodal=is_mm, hf_config=SimpleNamespace(architectures=arch, vision_config=(
            SimpleNamespace(**vision) if isinstance(vision, dict) else None), model_type=config.get("model_type")),
        is_multimodal_breakable_cuda_graph_supported=is_mm and mods.mc.is_multimodal_breakable_cuda_graph_supported(arch))

    def declare(server: Any, _hook: str, **values: Any) -> None:
        for k, v in values.items():
            setattr(server, k, v)

    mla = models.is_mla(models.text_config(config))
    patches = dict(resolving_view=lambda a: a, resolved_view=lambda a: a, declare_resolution=declare,
                   model_config_of=lambda a: model_config, post_capture_kv_sizing_planned=lambda a: False,
                   use_mla_backend=lambda a: mla, get_device_memory_capacity=lambda device=None: s["gpu_mib"],
                   attn_dp_enabled_of=lambda a: a.attn_dp_size > 1,
                   get_platform=lambda: SimpleNamespace(is_xpu=False, is_cuda=True))
    for mod in (mods.mem, mods.cgh):
        for name, fn in patches.items():
            if hasattr(mod, name):
                setattr(mod, name, fn)
    mods.cgh.__dict__.setdefault("supports_prefill_cp_bcg", lambda a: False)
    # rules the harness cannot evaluate leave the prefill backend as it is
    with contextlib.suppress(Exception):
        mods.cgh.apply_cuda_graph_compatibility(args)
    mods.mem.handle_gpu_memory_settings(args)
    ctx = mods.common.get_context_length(context_config(mods, config))
    return {"mem_fraction_static": round(args.mem_fraction_static, 6), "chunked_prefill_size": args.chunked_prefill_size,
            "max_bs": args.cuda_graph_config.decode.max_bs, "context_len": ctx}


def context_config(mods: SimpleNamespace, config: dict[str, Any]) -> Any:
    """The text config get_context_length reads: SGLang's own get_config on a folder holding the config.json
    (transformers' config classes, their attribute_map aliases such as GPT-2's n_positions), when transformers is
    installed and the model type needs no remote code; else the config.json's text part as attributes, with
    transformers v5's per-layer-type rope nesting restated (NESTED_ROPE)."""
    if mods.config is not None:
        with tempfile.TemporaryDirectory() as folder:
            Path(folder, "config.json").write_text(json.dumps(config))
            try:
                return mods.common.get_hf_text_config(mods.config.get_config(folder, trust_remote_code=False))
            except ValueError:
                pass
    text = copy.deepcopy(models.text_config(config))
    rope = text.get("rope_scaling")
    if isinstance(rope, dict) and str(text.get("model_type")) in NESTED_ROPE:
        text["rope_scaling"] = {"full_attention": rope, "sliding_attention": {"rope_type": "default"}}
    return SimpleNamespace(**text)


def kvlint_side(model_id: str, config: dict[str, Any], s: dict[str, Any]) -> dict[str, Any]:
    from kvlint.memory import compute_budget
    from kvlint.models.config import spec_from_config

    spec = spec_from_config(config, model_id, "bundled")
    settings = {"tp_size": s["tp"], "pp_size": s["pp"], "dcp_size": s["dcp"], "attn_dp_size": s["attn_dp"]}
    for ours, theirs in (("chunked_prefill_size", "cps"), ("max_running_requests", "mrr"),
                         ("max_total_tokens", "max_total_tokens"), ("mem_fraction_static", "mfs"),
                         ("cuda_graph_max_bs_decode", "max_bs")):
        if s.get(theirs) is not None:
            settings[ours] = s[theirs]
    mib = s["gpu_mib"]
    b = compute_budget("sglang", spec, settings, None, version="0.5.23", weights_bytes=0,
                       gpu_memory_bytes=mib * 2**20)
    return {"mem_fraction_static": round(b.mem_fraction_static, 6), "chunked_prefill_size": b.max_num_batched_tokens,
            "max_bs": b.detail.cuda_graph_max_bs, "context_len": spec.max_len_sglang}


def generate(rng: random.Random, config: dict[str, Any]) -> dict[str, Any]:
    tp = rng.choice([1, 2, 4, 8])
    s: dict[str, Any] = {"tp": tp, "pp": rng.choice([1, 1, 1, 2]), "dcp": rng.choice([1, 1, 1, 2]) if tp > 1 else 1,
                         "attn_dp": rng.choice([1, 1, 1, 2]) if tp > 1 else 1, "gpu_mib": rng.choice(GPUS_MIB)}
    if rng.random() < 0.3:
        s["cps"] = rng.choice([-1, 2048, 4096, 8192, 16384])
    if rng.random() < 0.3:
        s["mrr"] = rng.choice([16, 64, 128, 256, 1024])
    if rng.random() < 0.15:
        s["max_total_tokens"] = rng.choice([2048, 4096, 100000])
    if rng.random() < 0.1:
        s["max_bs"] = rng.choice([8, 64, 256])
    if rng.random() < 0.1:
        s["mfs"] = round(rng.uniform(0.5, 0.95), 3)
    return s


def main() -> None:
    root, _version, count, seed = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    mods = load(root)
    rng = random.Random(seed)
    every = models.bundled()
    configs = [(m, c) for m, c in every if str(models.text_config(c).get("model_type")) not in NOT_COVERED]
    skipped = sorted(f"{m}: {NOT_COVERED[str(models.text_config(c).get('model_type'))]}" for m, c in every
                     if (m, c) not in configs)
    classes: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for i in range(count):
        model_id, config = configs[i % len(configs)]
        s = generate(rng, config)
        try:
            e = engine_side(mods, config, s, model_id)
        except Exception as exc:  # noqa: BLE001 - a harness gap is reported as a class of its own
            e = {"error": f"harness error {type(exc).__name__}: {exc}"}
        k = kvlint_side(model_id, config, s)
        diff = sorted(key for key in k if e.get(key) != k[key])
        if diff:
            classes["differ in " + ", ".join(diff)].append({"model": model_id, "settings": s, "engine": e,
                                                          "kvlint": k})
    print(json.dumps({"settings": count, "configs": len(configs), "refused": 0, "skipped": skipped,
                      "mismatches": sum(len(v) for v in classes.values()), "classes": classes}))


if __name__ == "__main__":
    main()
