"""The checkpoint's declared quantization: quantization_config in config.json, or ModelOpt's hf_quant_config.json.

Weight bytes and the default KV dtype follow from it; each method (AWQ/GPTQ, fp8, bitsandbytes,
mxfp4, compressed-tensors, ModelOpt) records bits, group size and KV scheme in its own keys.
"""

from __future__ import annotations

from typing import Any

from kvlint.models.spec import Quantization


def quantization(cfg: dict[str, Any], hf_quant: dict[str, Any] | None = None) -> Quantization | None:
    """The checkpoint's declared weight (and KV) quantization; never guessed from the repo name."""
    text: dict[str, Any] = cfg["text_config"] if isinstance(cfg.get("text_config"), dict) else {}
    qc = cfg.get("quantization_config") or text.get("quantization_config")
    if isinstance(qc, dict) and qc.get("quant_method"):
        return _from_quant_config(qc)
    if isinstance(hf_quant, dict) and isinstance(hf_quant.get("quantization"), dict):
        return _from_modelopt(hf_quant["quantization"], hf_quant)
    return None


def _from_quant_config(qc: dict[str, Any]) -> Quantization:
    method = str(qc["quant_method"]).lower()
    if method == "compressed-tensors":
        return _compressed_tensors(qc)
    if method.startswith("modelopt"):
        return _from_modelopt(qc, qc)
    if method in ("awq", "gptq", "awq_marlin", "gptq_marlin"):
        bits = int(qc.get("bits") or qc.get("w_bit") or 4)
        group = int(qc.get("group_size") or qc.get("q_group_size") or 128)
        ignored = tuple(qc.get("modules_to_not_convert") or ())
        return Quantization(method.split("_")[0], bits, group, None, ignored, qc)
    if method == "fp8":  # vLLM's Fp8Config reads AutoFP8's `ignored_layers` as well as `modules_to_not_convert`
        ignored = qc.get("ignored_layers") or qc.get("modules_to_not_convert") or ()
        kv = "fp8" if qc.get("kv_cache_scheme") else None
        return Quantization("fp8", 8, None, kv, tuple(ignored), qc)
    if method == "fbgemm_fp8":  # Meta's own FP8 releases: fp8 weights with per-channel scales
        return Quantization("fbgemm_fp8", 8, None, None, tuple(qc.get("modules_to_not_convert") or ()), qc)
    if method == "bitsandbytes":
        bits = 4 if qc.get("load_in_4bit") else 8
        return Quantization("bitsandbytes", bits, int(qc.get("bnb_4bit_blocksize") or 64), None, (), qc)
    if method == "mxfp4":
        return Quantization("mxfp4", 4, 32, None, tuple(qc.get("modules_to_not_convert") or ()), qc)
    return Quantization(method, _int_or_none(qc.get("bits")), _int_or_none(qc.get("group_size")), None, (), qc)


def _int_or_none(value: Any) -> int | None:
    return int(value) if isinstance(value, int) else None


def _compressed_tensors(qc: dict[str, Any]) -> Quantization:
    """compressed-tensors: weight bits from the first config group; any kv_cache_scheme means fp8 KV."""
    groups = [g for g in (qc.get("config_groups") or {}).values() if isinstance(g, dict)]
    weights: dict[str, Any] = next((g["weights"] for g in groups if isinstance(g.get("weights"), dict)), {})
    kv = "fp8" if qc.get("kv_cache_scheme") else None
    return Quantization(
        "compressed-tensors",
        _int_or_none(weights.get("num_bits")),
        _int_or_none(weights.get("group_size")),
        kv,
        tuple(qc.get("ignore") or ()),
        qc,
    )


def _first_group(quant: dict[str, Any]) -> dict[str, Any]:
    """The weights block of the first config group (ModelOpt >= 0.4x writes its NVFP4 group size only there)."""
    groups = [g for g in (quant.get("config_groups") or {}).values() if isinstance(g, dict)]
    return next((g["weights"] for g in groups if isinstance(g.get("weights"), dict)), {})


def _from_modelopt(quant: dict[str, Any], raw: dict[str, Any]) -> Quantization:
    algo = str(quant.get("quant_algo") or "").upper()
    kv_algo = quant.get("kv_cache_quant_algo") or quant.get("kv_cache_scheme")
    kv = None
    if isinstance(kv_algo, str):
        kv = {"FP8": "fp8", "NVFP4": "nvfp4"}.get(kv_algo.upper(), kv_algo.lower())
    elif isinstance(kv_algo, dict):
        kv = "fp8" if kv_algo.get("num_bits") == 8 else "nvfp4"
    bits = 4 if "FP4" in algo or "INT4" in algo else 8
    group = (quant.get("group_size") or _first_group(quant).get("group_size")) if bits == 4 else None
    ignored = tuple(quant.get("exclude_modules") or quant.get("ignore") or ())
    return Quantization("modelopt", bits, _int_or_none(group), kv, ignored, raw)
