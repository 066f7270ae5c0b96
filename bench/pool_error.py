"""How far kvlint's pool estimate (GPU + flags alone) lands from the pool real engines logged.

For every vLLM start-up in shared/logs/cases.json that logs `Available KV cache memory` (or fails for lack of
KV memory) and whose model config is readable, predict the pool from the GPU, the flags and the engine version
only (weights from kvlint.models.weights, non-KV from kvlint.memory.nonkv), and print the error per case, the
median and p90 absolute error on the fitted and the held-out cases, the worst five with the weights / non-KV
split of their error, and whether each logged refusal is predicted as one.
Usage: python bench/pool_error.py [path/to/shared]
"""

from __future__ import annotations

import re
import statistics
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from kvlint.budget import Budget  # noqa: E402
from kvlint.errors import KvlintError  # noqa: E402
from kvlint.gpus import lookup_gpu  # noqa: E402
from kvlint.memory import compute_budget  # noqa: E402
from kvlint.memory.versions import vllm_release_on  # noqa: E402
from tests.memory.cases import GIB, SAME_SHAPES, load_cases, load_model, model_id, version_of, vllm_settings  # noqa: E402


def gpu_for(case):
    """The catalogue card for the case's GPU text, or None when the source names only a class (an "A100 (size
    not stated)" is a 40 GB or an 80 GB card: no figure from GPU and flags alone)."""
    if re.search(r"size not stated|not named|not identif", case["gpu"]):
        return None
    text = re.split(r"[(,]", case["gpu"])[0].strip()
    for candidate in (text, text.replace("NVIDIA ", ""), text.split(" ")[0]):
        try:
            return lookup_gpu(candidate)
        except KvlintError:
            continue
    return None


def assumed_version(case) -> tuple[str | None, str]:
    """(version, how): the logged release, else the newest documented release built by the source's date (an
    unversioned log ran whatever was current), else kvlint's default."""
    logged = version_of(case)
    if logged:
        return logged, "logged"
    date = str((case.get("source") or {}).get("date") or "")
    dated = vllm_release_on(date) if date else None
    return (dated, f"release current on {date}") if dated else (None, "default")


def implied_utilization(case) -> float | None:
    """The --gpu-memory-utilization a log's own figures imply, where it logs weights, torch peak, non-torch growth,
    the pool and the card's total and the release subtracts no CUDA-graph estimate (before 0.20, where
    requested = weights + peak + non-torch + pool); None when it agrees with the recorded flag or cannot be told.
    A flag transcribed wrongly is a data error, not a model error: the case is predicted with the implied value
    and listed."""
    parts = [case.get(k) for k in ("model_loading_gib", "torch_peak_increase_gib", "non_torch_increase_gib",
                                    "available_kv_gib", "total_gpu_memory_gib")]
    version = assumed_version(case)[0]
    if any(p is None for p in parts) or version is None or _padded_key(version) >= (0, 20, 0):
        return None
    implied = round(sum(parts[:4]) / parts[4], 2)
    recorded = case.get("gpu_memory_utilization") or 0.9
    return implied if abs(implied - recorded) > 0.005 else None


def refusal_pool_gib(case: dict[str, Any], budget: Budget | None) -> float | None:
    """The pool a refusal's own message implies (the token count the engine could store x the modelled rank's KV
    bytes per token), where it disagrees with the recorded figure: V0 sizes the cache with the smallest rank's
    pool, and only the driver runs the sampler, so a figure quoted from another rank's log is not the one the
    engine acted on (issue 13061: 8.69 GiB quoted, 81,536 tokens in the error)."""
    tokens = case.get("kv_tokens_in_error")
    if not tokens or budget is None or case.get("available_kv_gib") is None:
        return None
    implied = tokens * budget.kv_bytes_per_token / GIB
    return implied if abs(implied - case["available_kv_gib"]) > 0.05 else None


def _padded_key(version: str) -> tuple[int, ...]:
    return tuple((list(map(int, re.findall(r"\d+", version)[:3])) + [0, 0, 0])[:3])


def predict_budget(case, shared):
    """(pool bytes, why not, Budget) from the GPU, the flags and the version only."""
    model = load_model(shared, case)
    if model is None:
        return None, "no config", None
    settings = vllm_settings(case)
    if implied_utilization(case) is not None:
        settings["gpu_memory_utilization"] = implied_utilization(case)
    quant = str(case.get("quantization") or "").lower()
    if model_id(case) in SAME_SHAPES and ("fp8" in quant or "compressed" in quant):
        settings["quantization"] = "fp8"  # the checkpoint is an 8-bit copy of the base shapes
    gpu = gpu_for(case)
    total = int(case["total_gpu_memory_gib"] * GIB) if case.get("total_gpu_memory_gib") else None
    if gpu is None and total is None:
        return None, f"GPU {case['gpu']!r} not identifiable", None
    try:
        b = compute_budget("vllm", model, settings, gpu, version=assumed_version(case)[0], gpu_memory_bytes=total)
    except KvlintError as exc:
        return None, str(exc), None
    return b.requested_bytes - b.weights_bytes - b.non_kv_bytes, "", b


FIT_GROUP = "committed-log-sweep"  # the vLLM 0.19 H100 planner sweep the coefficients were fitted on


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def cause(case, b_weights: float, pool_err: float) -> str:
    """Split an error into its weights part (logged model loading) and the rest (non-KV), where the log allows."""
    loaded = case.get("model_loading_gib")
    if loaded is None:
        return "no weights figure in the log"
    weights_err = loaded - b_weights
    return f"weights {weights_err:+.2f} GiB (kvlint under-counts when +), non-KV {pool_err - weights_err:+.2f} GiB"


def summary(name: str, rows: list) -> str:
    errors = [abs(r[3]) for r in rows]
    if not errors:
        return f"{name}: no cases"
    return (f"{name}: {len(rows)} cases; median |error| {statistics.median(errors):.2f} GiB, "
            f"p90 {percentile(errors, 0.9):.2f} GiB, within 0.5 GiB {sum(e < 0.5 for e in errors)}/{len(errors)}")


def collect(shared: Path) -> tuple[list, list, list]:
    """(rows, skipped, refusals): every vLLM case's predicted and logged pool, what could not be predicted, and
    whether each logged refusal is predicted as one."""
    rows, skipped, refusals = [], [], []
    for case in load_cases(shared):
        if case["engine"] != "vllm":
            continue
        failed = case.get("outcome") == "failed" and case.get("failure_kind") in (
            "negative_available_kv", "max_seq_len_gt_kv_tokens", "kv_needed_gt_available")
        if case.get("available_kv_gib") is None and not failed:
            continue
        pool, why, budget = predict_budget(case, shared)
        if pool is None:
            skipped.append((case["id"], why))
            continue
        if failed:
            refuses = pool <= 0 or not budget.fits_one_request
            refusals.append((case["id"], case["failure_kind"], refuses, pool / GIB))
        if case.get("available_kv_gib") is not None:
            logged = refusal_pool_gib(case, budget) or case["available_kv_gib"]
            fitted = str(case.get("group", "")).startswith(FIT_GROUP)
            rows.append((case["id"], logged, pool / GIB, pool / GIB - logged, fitted, budget.weights_bytes / GIB, case))
    return rows, skipped, refusals


def main(shared: Path) -> int:
    rows, skipped, refusals = collect(shared)
    print(f"{'case':<62} {'logged':>8} {'kvlint':>8} {'error':>7}  set   release modelled (GiB per rank)")
    for ident, logged, pred, err, fitted, _, case in rows:
        ver, how = assumed_version(case)
        print(f"{ident[:62]:<62} {logged:>8.2f} {pred:>8.2f} {err:>+7.2f}  {'fit ' if fitted else 'held'}  "
              f"{ver or 'default'} ({how})")
    print()
    print(summary("all", rows))
    print(summary("fitted on (vLLM 0.19 H100 planner sweep)", [r for r in rows if r[4]]))
    print(summary("held out", [r for r in rows if not r[4]]))
    print("\nworst five:")
    for ident, _logged, _pred, err, _, weights, case in sorted(rows, key=lambda r: -abs(r[3]))[:5]:
        print(f"  {ident}: {err:+.2f} GiB ({cause(case, weights, err)})")
    print("\nrefusals (logged failures from memory):")
    for ident, kind, refuses, pool in refusals:
        print(f"  {ident}: {kind}; kvlint {'predicts a refusal' if refuses else 'predicts a start'} "
              f"(pool {pool:.2f} GiB)")
    fixed = [(c["id"], c.get("gpu_memory_utilization"), implied_utilization(c)) for *_, c in rows
             if implied_utilization(c) is not None]
    for ident, recorded, implied in fixed:
        print(f"flag from the log's arithmetic {ident}: gpu_memory_utilization {implied} "
              f"(recorded {recorded}; weights + peak + non-torch + pool = {implied} x total)")
    for ident, logged, *_, case in rows:
        if logged != case["available_kv_gib"]:
            print(f"pool from the refusal's own token count {ident}: {case['kv_tokens_in_error']:,} tokens = "
                  f"{logged:.2f} GiB (recorded {case['available_kv_gib']} GiB, another rank's figure)")
    for ident, why in skipped:
        print(f"skipped {ident}: {why}")
    print()
    eras(rows)
    return 0


def era_errors(rows: list) -> dict[tuple[str, bool], list[float]]:
    """Signed errors (predicted - logged pool, GiB) by the era of the release each log ran: (sampler, whether
    the release subtracts a CUDA-graph estimate), as kvlint/data/nonkv.json `uncertainty` keys its eras."""
    from kvlint.memory.versions import vllm_version

    found: dict[tuple[str, bool], list[float]] = {}
    for _ident, _logged, _pred, err, _, _, case in rows:
        version, _how = assumed_version(case)
        if version is None:
            continue
        record = vllm_version(version).record
        found.setdefault((record.sampler, record.cudagraph_estimate), []).append(err)
    return found


def eras(rows: list) -> None:
    """The non-KV estimate's uncertainty per release era (kvlint/data/nonkv.json `uncertainty`): the most the
    estimate under-stated the pool (logged above predicted, what can turn a predicted refusal into a start) on the
    logs whose release is known (logged, or dated); a log of no known release says nothing of an era."""
    found = era_errors(rows)
    print("pool under-stated per era (logged - predicted, GiB; the refusal band of kvlint/data/nonkv.json):")
    for era, errs in sorted(found.items()):
        name = era[0] + ("+graphs" if era[1] else "")
        print(f"  {name:<14} {len(errs):>2} logs, largest under-statement {max(0.0, -min(errs)):.3f} GiB = {round(max(0.0, -min(errs)) * GIB):,} B "
              f"(over-statement {max(0.0, max(errs)):.3f} GiB)")


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]) if len(sys.argv) > 1 else REPO.parent / "shared"))
