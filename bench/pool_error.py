"""How far kvlint's pool estimate (GPU + flags alone) lands from the pool real engines logged.

For every vLLM start-up in shared/logs/cases.json that logs `Available KV cache memory` and whose model
config is readable, predict the pool from the GPU, the flags and the engine version only (weights from
kvlint.models.weights, non-KV from kvlint.memory.nonkv), and print the error per case plus the median
absolute error. Usage: python bench/pool_error.py [path/to/shared]
"""

from __future__ import annotations

import re
import statistics
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from kvlint.errors import KvlintError  # noqa: E402
from kvlint.gpus import lookup_gpu  # noqa: E402
from kvlint.memory import compute_budget  # noqa: E402
from tests.memory.cases import GIB, SAME_SHAPES, load_cases, load_model, model_id, version_of, vllm_settings  # noqa: E402


def gpu_for(case):
    """The catalogue card for the case's GPU text, or None when the source names only a class."""
    text = re.split(r"[(,]", case["gpu"])[0].strip()
    for candidate in (text, text.replace("NVIDIA ", ""), text.split(" ")[0]):
        try:
            return lookup_gpu(candidate)
        except KvlintError:
            continue
    return None


def predict(case, shared):
    model = load_model(shared, case)
    if model is None:
        return None, "no config"
    settings = vllm_settings(case)
    quant = str(case.get("quantization") or "").lower()
    if model_id(case) in SAME_SHAPES and ("fp8" in quant or "compressed" in quant):
        settings["quantization"] = "fp8"  # the checkpoint is an 8-bit copy of the base shapes
    gpu = gpu_for(case)
    total = int(case["total_gpu_memory_gib"] * GIB) if case.get("total_gpu_memory_gib") else None
    if gpu is None and total is None:
        return None, f"GPU {case['gpu']!r} not identifiable"
    try:
        b = compute_budget("vllm", model, settings, gpu, version=version_of(case), gpu_memory_bytes=total)
    except KvlintError as exc:
        return None, str(exc)
    return b.requested_bytes - b.weights_bytes - b.non_kv_bytes, ""


def main(shared: Path) -> int:
    rows, skipped = [], []
    for case in load_cases(shared):
        if case["engine"] != "vllm" or case.get("available_kv_gib") is None:
            continue
        pool, why = predict(case, shared)
        if pool is None:
            skipped.append((case["id"], why))
            continue
        logged = case["available_kv_gib"]
        rows.append((case["id"], logged, pool / GIB, pool / GIB - logged))
    print(f"{'case':<62} {'logged':>8} {'kvlint':>8} {'error':>7}  (GiB per rank)")
    for ident, logged, pred, err in rows:
        print(f"{ident[:62]:<62} {logged:>8.2f} {pred:>8.2f} {err:>+7.2f}")
    errors = [abs(r[3]) for r in rows]
    if errors:
        print(f"\n{len(rows)} cases; median absolute error {statistics.median(errors):.2f} GiB; "
              f"within 0.5 GiB: {sum(e < 0.5 for e in errors)}/{len(errors)}")
    for ident, why in skipped:
        print(f"skipped {ident}: {why}")
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]) if len(sys.argv) > 1 else REPO.parent / "shared"))
