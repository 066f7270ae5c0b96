"""How far kvlint's pool estimate (GPU + flags alone) lands from the pool real engines logged.

For every vLLM start-up in shared/logs/cases.json that logs `Available KV cache memory` (or fails for lack of
KV memory) and whose model config is readable, predict the pool from the GPU, the flags and the engine version
only (weights from kvlint.models.weights, non-KV from kvlint.memory.nonkv), and print the error per case, the
median and p90 absolute error on the fitted and the held-out cases, the worst five with the weights / non-KV
split of their error, and whether each logged refusal is predicted as one.
It also prints the error per class (release era, MoE, hybrid, V0, TP > 1, GPU family): median, p90 and the
refusals predicted, so a band on the estimate can use the residuals of the class a launch falls in.
Last, per release era (kvlint/data/nonkv.json `uncertainty`), the most the estimate under-stated the pool on the
logs of a known release: the band KV101 allows a predicted refusal (tests/memory/test_nonkv.py ties the two).
Usage: python bench/pool_error.py [path/to/shared] [--cases bench/heldout_logs.json]
(--cases: a held-out file of the same shape, {"cases": [...]}, instead of shared/logs/cases.json)
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
from kvlint.memory.versions import documented, vllm_release_on  # noqa: E402
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
    unversioned log ran whatever was current; a date before kvlint's first table is the first, the nearest
    modelled), else kvlint's default."""
    logged = version_of(case)
    if logged:
        return logged, "logged"
    date = str((case.get("source") or {}).get("date") or "")
    dated = vllm_release_on(date) if date else None
    if date and dated is None:
        return documented("vllm")[0], f"older than the tables ({date}): the first modelled"
    return (dated, f"release current on {date}") if dated else (None, "default")


# How each case's engine was installed, where its source says (the sampler path of 0.8-0.11 depends on it:
# kvlint.engines.vllm.memory.sampler_path; unknown is the PyPI wheel's path, kvlint's default). A held-out case carries its own
# `install` field.
INSTALL_EVIDENCE = {
    "vllm-i23278-h100-gpt-oss-120b-fail": ("pip", "the issue's traceback runs from /home/ubuntu/miniconda3/envs/..."),
    "vllm-2xh200-qwen3-next-80b-a3b-tp2-v0102": ("pip", "`python -m vllm.entrypoints.openai.api_server` on the host "
                                                        "(CUDA_VISIBLE_DEVICES=6,7, /data/models), no container"),
    "vllm-dl-a100-80gb-qwen2-7b-tp1-u025": ("pip+flashinfer", "README: pip install vllm ... flashinfer-python; the "
                                                              "log: Using FlashInfer for top-p & top-k sampling"),
    "vllm-dl-a100-80gb-qwen2-7b-tp2-u025": ("pip+flashinfer", "as the TP-1 run of the same README"),
    "vllm-dl-a100-80gb-qwen2-7b-tp1-u050": ("pip+flashinfer", "as the TP-1 run of the same README"),
    "vllm-llmdb-h100-mistral-small-3.2-24b-u095-16k": ("image", "the doc's replication template: vllm/vllm-openai"),
    "vllm-doc-4xl40s-qwen3-coder-30b-a3b": ("pip", "the doc sets VLLM_USE_FLASHINFER_SAMPLER=0"),
}


def flashinfer_sampler(case) -> bool | None:
    """True / False where the source shows whether FlashInfer's sampler ran, else None (kvlint's default: the wheel's
    sorting path, as for a launch without the engine's image)."""
    install = case.get("install") or INSTALL_EVIDENCE.get(case["id"], (None, ""))[0]
    return None if install is None else install != "pip"


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
    if flashinfer_sampler(case) is not None:
        settings["flashinfer_sampler"] = flashinfer_sampler(case)
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


def era_of(version: str | None) -> tuple[str, bool]:
    """The release era a version falls in, as kvlint/data/nonkv.json `uncertainty` keys it: (sampler, whether the
    release subtracts a CUDA-graph estimate); None is kvlint's default release."""
    from kvlint.memory.versions import vllm_version

    record = vllm_version(version).record
    return record.sampler, record.cudagraph_estimate


def era_name(era: tuple[str, bool]) -> str:
    from kvlint.memory.nonkv import pool_band

    return pool_band(*era).era


def classes(case, shared: Path) -> list[str]:
    """The classes a case falls in: release era (of the release it is modelled on), MoE, hybrid (Mamba / linear
    attention), TP > 1, GPU family."""
    from kvlint.models.spec import MAMBA

    out = [f"release {era_name(era_of(assumed_version(case)[0])).split(' (')[0]}"]
    model = load_model(shared, case)
    if model is not None and model.moe is not None and model.moe.experts_per_token:
        out.append("MoE")
    if model is not None and any(layer.kind == MAMBA for layer in model.layers):
        out.append("hybrid")
    if (case.get("tp") or 1) > 1:
        out.append("TP > 1")
    gpu = gpu_for(case)
    out.append("GPU H100/H200" if gpu is not None and re.match(r"H(100|200)", gpu.id) else "GPU other")
    return out


def class_table(rows: list, refusals: list, shared: Path) -> list[str]:
    """Per class: cases, median and p90 |error|, refusals predicted / logged."""
    by: dict[str, list] = {}
    for row in rows:
        for name in classes(row[6], shared):
            by.setdefault(name, []).append(row)
    refused: dict[str, list[bool]] = {}
    for _ident, _kind, predicted, _pool, case in refusals:
        for name in classes(case, shared):
            refused.setdefault(name, []).append(predicted)
    lines = [f"{'class':<24} {'cases':>5} {'median':>7} {'p90':>6} {'max':>6}  refusals predicted"]
    for name in sorted(set(by) | set(refused)):
        errors = [abs(r[3]) for r in by.get(name, [])]
        stats = (f"{statistics.median(errors):>7.2f} {percentile(errors, 0.9):>6.2f} {max(errors):>6.2f}" if errors
                 else f"{'-':>7} {'-':>6} {'-':>6}")
        got = refused.get(name, [])
        lines.append(f"{name:<24} {len(errors):>5} {stats}  {sum(got)}/{len(got)}")
    return lines


def era_errors(rows: list) -> dict[tuple[str, bool], list[float]]:
    """Signed errors (predicted - logged pool, GiB) by the era of the release each log ran (era_of), as
    kvlint/data/nonkv.json `uncertainty` keys its eras; a log of no known release (logged, or dated) is left out."""
    found: dict[tuple[str, bool], list[float]] = {}
    for _ident, _logged, _pred, err, _, _, case in rows:
        version, _how = assumed_version(case)
        if version is not None:
            found.setdefault(era_of(version), []).append(err)
    return found


def eras(rows: list) -> list[str]:
    """The non-KV estimate's uncertainty per release era (kvlint/data/nonkv.json `uncertainty`): the most the
    estimate under-stated the pool (logged above predicted, what can turn a predicted refusal into a start) on the
    logs whose release is known (logged, or dated); a log of no known release says nothing of an era."""
    from kvlint.memory.nonkv import coefficients

    table = [(e["sampler"], e["cudagraph_estimate"]) for e in coefficients()["uncertainty"]["vllm"]]
    lines = ["pool under-stated per era (logged - predicted, GiB; the refusal band of kvlint/data/nonkv.json):"]
    for era, errs in sorted(era_errors(rows).items(), key=lambda kv: table.index(kv[0]) if kv[0] in table else 99):
        under = max(0.0, -min(errs))
        lines.append(f"  {era_name(era):<52} {len(errs):>2} logs, largest under-statement {under:.3f} GiB = "
                     f"{round(under * GIB):,} B (over-statement {max(0.0, max(errs)):.3f} GiB)")
    return lines


def load(shared: Path, cases_file: Path | None) -> list[dict[str, Any]]:
    if cases_file is None:
        return load_cases(shared)
    import json

    data = json.loads(cases_file.read_text())
    return list(data["cases"] if isinstance(data, dict) else data)


def collect(shared: Path, cases_file: Path | None = None) -> tuple[list, list, list]:
    """(rows, skipped, refusals): every vLLM case's predicted and logged pool, what could not be predicted, and
    whether each logged refusal is predicted as one; the cases of shared/logs/cases.json, or of cases_file."""
    rows, skipped, refusals = [], [], []
    for case in load(shared, cases_file):
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
            refusals.append((case["id"], case["failure_kind"], refuses, pool / GIB, case))
        if case.get("available_kv_gib") is not None:
            logged = refusal_pool_gib(case, budget) or case["available_kv_gib"]
            fitted = str(case.get("group", "")).startswith(FIT_GROUP)
            rows.append((case["id"], logged, pool / GIB, pool / GIB - logged, fitted, budget.weights_bytes / GIB, case))
    return rows, skipped, refusals


def main(shared: Path, cases_file: Path | None = None) -> int:
    rows, skipped, refusals = collect(shared, cases_file)
    print(f"{'case':<62} {'logged':>8} {'kvlint':>8} {'error':>7}  set   release modelled (GiB per rank)")
    for ident, logged, pred, err, fitted, _, case in rows:
        ver, how = assumed_version(case)
        print(f"{ident[:62]:<62} {logged:>8.2f} {pred:>8.2f} {err:>+7.2f}  {'fit ' if fitted else 'held'}  "
              f"{ver or 'default'} ({how})")
    print()
    print(summary("all", rows))
    print(summary("fitted on (vLLM 0.19 H100 planner sweep)", [r for r in rows if r[4]]))
    print(summary("held out", [r for r in rows if not r[4]]))
    print("\nper class (|error| GiB; a case is in several classes):")
    print("\n".join(class_table(rows, refusals, shared)))
    print("\nworst five:")
    for ident, _logged, _pred, err, _, weights, case in sorted(rows, key=lambda r: -abs(r[3]))[:5]:
        print(f"  {ident}: {err:+.2f} GiB ({cause(case, weights, err)})")
    print("\nrefusals (logged failures from memory):")
    for ident, kind, refuses, pool, _case in refusals:
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
    print("\n".join(eras(band_rows(shared))))
    return 0


HELDOUT = REPO / "bench" / "heldout_logs.json"


def band_rows(shared: Path) -> list:
    """Every log the refusal band is taken from: ../shared/logs and the fresh logs of bench/heldout_logs.json.
    The band is a safety margin, not a fit: a log that shows the estimate under-stating the pool widens it
    wherever it came from (the held-out V0 logs did: 1.05 GiB against the one shared V0 log's 0)."""
    return collect(shared)[0] + collect(shared, HELDOUT)[0]


if __name__ == "__main__":
    args = sys.argv[1:]
    held = Path(args[args.index("--cases") + 1]) if "--cases" in args else None
    rest = [a for i, a in enumerate(args) if a != "--cases" and (i == 0 or args[i - 1] != "--cases")]
    sys.exit(main(Path(rest[0]) if rest else REPO.parent / "shared", held))
