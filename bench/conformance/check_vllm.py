"""One vLLM release: generate settings over every bundled config, run the wheel's planner and kvlint.

Invoked by run.py as `python check_vllm.py WHEEL_ROOT VERSION N SEED` under an interpreter with torch;
prints one JSON report on its last line. Both sides get the same fixed pool per worker
(kvlint: kv_cache_memory_bytes, weights 0), so only the planner's arithmetic is compared.
"""

from __future__ import annotations

import json
import math
import random
import re
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(1, str(HERE.parents[1]))

import models  # noqa: E402
from engine_vllm import Engine  # noqa: E402

GIB = 2**30
NOT_COVERED = {  # the harness cannot build these layers without the model's torch code
    "qwen3_next": "Qwen3-Next hybrid planner run (its state per request is compared: mamba_state_check)",
    "deepseek_v4": "DeepSeek-V4 compressed / packed KV layout",
    # models.py has no layer list for these yet (it read them as full attention, so every comparison on them
    # compared a wrong restatement): gated-delta-net / Mamba-2 state with vLLM's hybrid block alignment and
    # mamba_cache_mode, and the sparse-attention indexer cache
    "qwen3_5_text": "Qwen3.5 gated delta net state (layer_types; hybrid block alignment)",
    "qwen3_5_moe_text": "Qwen3.5 MoE gated delta net state (layer_types; hybrid block alignment)",
    "nemotron_h": "Nemotron-H Mamba-2 blocks (hybrid_override_pattern; hybrid block alignment)",
    "deepseek_v32": "DeepSeek-V3.2 sparse-attention indexer cache",
}


def valid_tp(text: dict[str, Any], tp: int) -> bool:
    """TP the model code accepts: heads divide, KV heads divide or are replicated."""
    heads, kv = models.attention_heads(text), models.total_kv_heads(text)
    return heads % tp == 0 and (kv % tp == 0 or tp % kv == 0)


def generate(rng: random.Random, text: dict[str, Any], derived: int, version: tuple[int, ...]) -> dict[str, Any]:
    tp = rng.choice([t for t in (1, 2, 4, 8) if valid_tp(text, t)] or [1])
    n = int(text.get("num_hidden_layers") or text.get("n_layer"))
    pp = rng.choice([p for p in (1, 1, 1, 2, 3, 4) if p <= n])
    dcp = rng.choice([1, 1, 1, 2, 4]) if tp > 1 else 1
    dcp = dcp if tp % dcp == 0 else 1
    s: dict[str, Any] = {"tp": tp, "pp": pp, "dcp": dcp, "block_size": rng.choice([16, 16, 32, 64, 128]),
                         "kv": rng.choice(["auto", "auto", "fp8"]), "mnbt": rng.choice([2048, 8192, 16384]),
                         "mns": rng.choice([256, 1024]), "pool": int(math.exp(rng.uniform(math.log(GIB / 8),
                                                                                           math.log(80 * GIB))))}
    choice = rng.random()
    if choice < 0.25:
        s["max_model_len"] = None
    elif choice < 0.4 and version >= (0, 20):
        s["max_model_len"] = -1
    else:
        s["max_model_len"] = rng.randint(1, derived)
    if rng.random() < 0.15:
        s["override"] = rng.randint(1, 50000)
    if rng.random() < 0.2:
        s["hma"] = False
    s["gpu"] = rng.choice([None, "A100-80GB", "H100", "B200"])  # SM80 / SM90 / SM100: the MLA block rules
    return s


CC_MAJOR = {"A100-80GB": 8, "H100": 9, "B200": 10}
FORCED = {"mla_settings_on_a_gpu": 0, "block_forced": 0}  # how often the GPU-dependent MLA block rule ran / bit


def dcp_refusal(text: dict[str, Any], s: dict[str, Any], version: tuple[int, ...]) -> str | None:
    """vllm/config/model.py verify_with_parallel_config's GQA rules (asserts in 0.12-0.19, ValueError from 0.20); the
    softmax-lse assert in 0.11, whose non-MLA backends return no lse (FlashAttentionImpl and FlashInferImpl set
    can_return_lse_for_decode from 0.12, read in the 0.12-0.15 wheels)."""
    if s["dcp"] <= 1 or models.is_mla(text):
        return None
    if version < (0, 12):
        return "AssertionError: DCP requires attention impls to return the softmax lse for decode"
    kv, heads, tp, dcp = models.total_kv_heads(text), models.attention_heads(text), s["tp"], s["dcp"]
    if tp <= kv:
        return f"ValueError: Decode context parallelism for GQA/MQA requires tp ({tp}) > total kv heads ({kv})"
    if dcp > tp // kv:
        return f"ValueError: dcp ({dcp}) exceeds the maximum supported value ({tp // kv})"
    if (heads // kv) % dcp:
        return f"ValueError: query heads per KV head ({heads // kv}) not divisible by dcp ({dcp})"
    return None


def chunked_disables_hma(text: dict[str, Any], version: tuple[int, ...]) -> bool:
    """VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE defaults to 0 through 0.13 (envs.py), so a model with
    attention_chunk_size runs with the hybrid manager off; the 0.14+ wheels default it to 1."""
    return version < (0, 14) and bool(text.get("attention_chunk_size"))


REWRITTEN: dict[str, set[str]] = defaultdict(set)  # what the harness restated because the wheel's code could not run


def derived_len(eng: Engine, model_id: str, config: dict[str, Any]) -> int:
    """The wheel's own default length (ModelConfig.get_and_verify_max_len on its get_config's hf_config); the
    restatement in models.py only where the wheel cannot load the config."""
    length = eng.derived_len(model_id, models.raw(model_id))
    if length is None:
        REWRITTEN["derived length (models.derived_len)"].add(model_id)
        return models.derived_len(config, eng.version)
    return length


def engine_side(eng: Engine, model_id: str, config: dict[str, Any], s: dict[str, Any]) -> dict[str, Any]:
    text = models.text_config(config)
    if eng.version >= (0, 20) and eng.view(model_id, models.raw(model_id)) is not None:
        refusal = eng.parallel_refusal(model_id, models.raw(model_id), s["tp"], s["pp"], s["dcp"])
    else:
        REWRITTEN["DCP validity (dcp_refusal)"].add(model_id)
        refusal = dcp_refusal(text, s, eng.version)
    if refusal:
        return {"refused": refusal}
    derived = derived_len(eng, model_id, config)
    length = derived if s["max_model_len"] in (None, -1) else s["max_model_len"]
    model_dtype = eng.model_dtype(model_id, models.raw(model_id))
    if model_dtype is None:
        REWRITTEN["model dtype (float32 -> bfloat16, else torch_dtype)"].add(model_id)
        stated = str(text.get("torch_dtype") or config.get("torch_dtype") or "bfloat16")
        model_dtype = {"float32": "bfloat16"}.get(stated, stated)
    kv = eng.checkpoint_kv(config) if s["kv"] == "auto" else s["kv"]  # the wheel resolves auto from the checkpoint
    kv_torch = "uint8" if kv.startswith("fp8") else model_dtype
    lays = models.layers(config, s["tp"])
    raw = models.raw(model_id)
    wheel = eng.kv_heads_and_size(model_id, raw, s["tp"])
    attention = [lay for lay in lays if lay["kind"] != "mamba"]
    per_layer = bool(attention) and eng.kv_heads_and_size(model_id, raw, s["tp"], attention[0]["index"]) is not None
    if wheel is None:
        REWRITTEN["KV heads per rank and head size (models.layers)"].add(model_id)
    elif per_layer:
        for lay in attention:  # 0.33's per-layer model-arch configs: each layer's own heads and head size
            heads, head = eng.kv_heads_and_size(model_id, raw, s["tp"], lay["index"])
            lay["heads"], lay["head"] = heads, head
            if "head_v" in lay:
                lay["head_v"] = head
    elif len({(lay["heads"], lay["head"]) for lay in attention}) <= 1:  # one shape for the model: the wheel's
        for lay in attention:
            lay["heads"], lay["head"] = wheel
            if "head_v" in lay:
                lay["head_v"] = wheel[1]
    else:
        REWRITTEN["per-layer KV heads and head size (models.layers; the release keeps no per-layer configs)"].add(
            model_id)
    n_layers = len(models.layer_kinds(config))
    stages = eng.pp_split(n_layers, s["pp"])
    if stages is None:
        REWRITTEN["PP stage split (models.pp_split)"].add(model_id)
        stages = models.pp_split(n_layers, s["pp"])
    workers = [[lay for lay in lays if lay["index"] in st] for st in stages]
    block = s["block_size"]
    if models.is_mla(text):
        block = eng.mla_block(block, CC_MAJOR.get(s.get("gpu") or ""), bool(text.get("index_topk")),
                              text.get("qk_nope_head_dim"))
        FORCED["mla_settings_on_a_gpu"] += bool(s.get("gpu"))
        FORCED["block_forced"] += block != s["block_size"]
    setting = {"max_model_len": length, "original_max_model_len": -1 if s["max_model_len"] == -1 else length,
               "use_mla": models.is_mla(text), "block_size": block,
               "kv_name": kv, "kv_torch": kv_torch, "mnbt": s["mnbt"],
               "mns": s["mns"], "hma": s.get("hma", True) and not chunked_disables_hma(text, eng.version), "tp": s["tp"], "pp": s["pp"], "dcp": s["dcp"],
               "pool": s["pool"], "override": s.get("override")}
    return eng.plan(setting, workers)


def kvlint_side(model_id: str, config: dict[str, Any], s: dict[str, Any], version: str) -> dict[str, Any]:
    from kvlint.budget import VllmDetail
    from kvlint.errors import InvalidSettingError, KvlintError
    from kvlint.memory import compute_budget
    from kvlint.models.config import spec_from_config

    spec = spec_from_config(config, model_id, "bundled")
    settings: dict[str, Any] = {"tensor_parallel_size": s["tp"], "pipeline_parallel_size": s["pp"],
                                "decode_context_parallel_size": s["dcp"], "block_size": s["block_size"],
                                "kv_cache_dtype": s["kv"], "max_num_batched_tokens": s["mnbt"],
                                "max_num_seqs": s["mns"], "kv_cache_memory_bytes": s["pool"]}
    if s["max_model_len"] is not None:
        settings["max_model_len"] = s["max_model_len"]
    if s.get("override") is not None:
        settings["num_gpu_blocks_override"] = s["override"]
    if s.get("hma") is False:
        settings["disable_hybrid_kv_cache_manager"] = True
    from kvlint.gpus import lookup_gpu

    gpu = lookup_gpu(s["gpu"]) if s.get("gpu") else None  # its compute capability picks kvlint's MLA block rule
    try:
        b = compute_budget("vllm", spec, settings, gpu, version=version, gpu_memory_bytes=80 * GIB, weights_bytes=0)
    except (InvalidSettingError, KvlintError) as exc:
        return {"refused": str(exc)}
    if not b.fits_one_request:
        printed = b.detail.engine_estimated_len if isinstance(b.detail, VllmDetail) else None
        return {"refused": f"one request does not fit (estimated max len {b.estimated_max_model_len})",
                "printed_len": printed, "fits_len": b.estimated_max_model_len}
    out: dict[str, Any] = {"num_blocks": b.num_blocks, "max_model_len": b.max_model_len}
    if b.detail is not None and b.detail.kv_groups:
        out.update(tokens=b.kv_tokens, concurrency=f"{b.max_concurrency:.2f}")
    return out


PRINTED = re.compile(r"the estimated maximum model length is (\d+)")


def printed_len(refusal: str) -> int | None:
    """The length vLLM's one-request refusal prints (None: the message gives none, e.g. no memory at all)."""
    found = PRINTED.search(refusal)
    return int(found.group(1)) if found else None


def classify(eng: dict[str, Any], kv: dict[str, Any]) -> str | None:
    if "refused" in eng or "refused" in kv:
        if "refused" in eng and "refused" in kv:
            if "max seq len" in eng["refused"] and printed_len(eng["refused"]) != kv.get("printed_len"):
                return "refusal numbers differ (the length the engine prints vs kvlint's printed_len)"
            return None
        return ("engine refuses, kvlint sizes: " + eng["refused"].split(":")[0] + ": "
                + eng["refused"].split(":", 1)[1].strip()[:60]) if "refused" in eng else "kvlint refuses, engine starts"
    logged = [tuple(x) for x in eng.get("logged", [])]
    keys = ("num_blocks", "max_model_len") if len(logged) > 1 else ("num_blocks", "max_model_len", "tokens",
                                                                    "concurrency")
    diff = [k for k in keys if eng.get(k) != kv.get(k)]
    if len(logged) > 1 and (kv.get("tokens"), kv.get("concurrency")) not in logged:
        diff.append("tokens/concurrency (none of the per-worker lines)")
    return "differ in " + ", ".join(diff) if diff else None


HYBRID = ("qwen3_next", "qwen3_5_text", "qwen3_5_moe_text", "nemotron_h")


def mamba_state_check(eng: Engine, configs: list[tuple[str, dict[str, Any]]],
                      version: str) -> tuple[int, list[dict[str, Any]]]:
    """Per-request recurrent state of one linear-attention layer on a TP rank: the wheel's model class
    (get_mamba_state_shape/dtype_from_config, after its MODELS_CONFIG_MAP fix-ups) against kvlint's
    layer_specs under the release's record (its Nemotron-H SSM dtype rule), at every TP the model's heads allow. The
    hybrid block alignment (backend-dependent) is not in it."""
    from kvlint.engines.vllm.specs import layer_specs, resolve_kv_dtype
    from kvlint.memory.versions import vllm_version
    from kvlint.models.config import spec_from_config
    from kvlint.models.spec import MAMBA

    compared, differ = 0, []
    ssm_dtype = vllm_version(version).record.nemotron_h_ssm_dtype
    for model_id, config in configs:
        if str(models.text_config(config).get("model_type")) not in HYBRID:
            continue
        spec = spec_from_config(config, model_id, "bundled")
        for tp in (1, 2, 4, 8):
            if not valid_tp(models.text_config(config), tp):
                continue
            wheel = eng.mamba_state_bytes(model_id, models.raw(model_id), tp)
            if wheel is None:
                REWRITTEN["Mamba state bytes (not compared)"].add(model_id)
                break
            kv = resolve_kv_dtype("auto", spec, spec.dtype)
            ours = [k.state_bytes for k in layer_specs(spec, tp=tp, dcp=1, block_size=16, dtype=kv,
                                                               ssm_dtype=ssm_dtype).values()
                    if k.kind == MAMBA]
            compared += 1
            if set(ours) != {wheel}:
                differ.append({"model": model_id, "settings": {"tp": tp}, "engine": {"state_bytes": wheel},
                               "kvlint": {"state_bytes": sorted(set(ours))}})
    return compared, differ


def main() -> None:
    root, version, count, seed = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    eng = Engine(root, version)
    rng = random.Random(seed)
    known = (root / "vllm" / "model_executor" / "models" / "registry.py").read_text(encoding="utf-8")
    configs = [(m, c) for m, c in models.bundled()]

    def why_not(config: dict[str, Any]) -> str | None:
        mtype = str(models.text_config(config).get("model_type"))
        if mtype in NOT_COVERED:
            return NOT_COVERED[mtype]
        arch = (config.get("architectures") or [""])[0]
        return None if f'"{arch}"' in known else f"{arch} is not in this release's model registry"

    covered = [(m, c) for m, c in configs if why_not(c) is None]
    skipped = sorted({f"{m}: {why_not(c)}" for m, c in configs if why_not(c) is not None})
    classes: dict[str, list[dict[str, Any]]] = defaultdict(list)
    refused = compared = first_stage = 0
    for i in range(count):
        model_id, config = covered[i % len(covered)]
        s = generate(rng, models.text_config(config), derived_len(eng, model_id, config), eng.version)
        try:
            e = engine_side(eng, model_id, config, s)
        except Exception as exc:  # noqa: BLE001 - a harness gap is reported, not fatal
            e = {"refused": f"harness error {type(exc).__name__}: {exc}"}
        k = kvlint_side(model_id, config, s, version)
        refused += "refused" in e
        if "refused" in k and "max seq len" in e.get("refused", ""):  # the one-request refusal, numbers compared
            compared += 1
            first_stage += k.get("printed_len") != k.get("fits_len")
        cls = classify(e, k)
        if cls:
            classes[cls].append({"model": model_id, "settings": s, "engine": e, "kvlint": k})
    mamba_compared, mamba_differ = mamba_state_check(eng, configs, version)
    if mamba_differ:
        classes["Mamba state bytes per request and layer differ (wheel's model class vs kvlint)"] = mamba_differ
    print(json.dumps({"settings": count, "mamba_states_compared": mamba_compared, "configs": len(covered),
                      "refused": refused, "skipped": skipped,
                      "rewritten": {k: sorted(v) for k, v in REWRITTEN.items()}, "view_failures": eng.view_failures,
                      "refusal_numbers_compared": compared, "printed_is_a_first_stage": first_stage, **FORCED,
                      "mismatches": sum(len(v) for v in classes.values()), "classes": classes}))


if __name__ == "__main__":
    main()
