"""Every bundled config through both memory models over a grid of settings off the defaults (issue O item 9).

Rows: each config in kvlint/models/registry. Columns: vLLM at TP 2/4/8, PP 2/3, small --max-num-seqs, chunked
prefill off, --max-num-batched-tokens below 2,048, block size 32, fp8 KV, --max-model-len auto and past the
model, --num-gpu-blocks-override, --kv-cache-memory-bytes, DCP, async scheduling off, the hybrid manager off,
prefix caching off, speculative decoding, LoRA, CPU offload, expert parallelism, on SM 8.0 / 8.9 / 9.0 / 10.0 /
12.0 cards and a card of unknown capability, on each vLLM era (0.7 V0, 0.8 name tier, 0.10-0.11, 0.12-0.16,
0.17-0.22, 0.27, 0.30, 0.33); SGLang at TP 2/4/8, PP 2, DP attention, DCP, --chunked-prefill-size 1024 and -1,
--max-running-requests, --max-total-tokens caps, page sizes, fp8 / mxfp8 KV, CUDA graphs off, speculative
decoding, the hybrid SWA pool off and its ratio, on each SGLang release (0.4.9's fixed reserve, 0.5.3, 0.5.12,
0.5.23) and every memory band.

What is pinned per cell: the token count a user reads (vLLM's GPU KV cache size, SGLang's max_total_num_tokens)
in clear, and a digest of the whole Budget (every field: the pool, bytes per token, max_model_len and the length
that fits, whether one request fits, max_num_seqs, max_num_batched_tokens, the length vLLM's refusal prints, the
K/V sizes, blocks per request, bytes per block, padding layers, the fixed-pool footprint, and every derivation
step's name and value), or the error a setting raises (a digest of its class and message).

Where the numbers come from: kvlint, on this commit. bench/conformance runs the engines' own code against
kvlint on these bundled configs with 0 mismatches (bench/conformance/README.md): vLLM's planner (grouping, page
unification, bytes per block, null block, admission check, auto-fit, the printed estimate, the capacity log) on
0.11 / 0.20 / 0.27 / 0.33 for the 134 configs it restates (hybrid gated-delta-net, Mamba and indexer layers
not), SGLang's handle_gpu_memory_settings and its pool configurators, Mamba pool, --max-total-tokens and
max_running_requests on 0.5.23. Where a cell exercises that arithmetic on a pool kvlint and the harness agree
on, it is an engine-backed pin. The weights and the non-KV term are kvlint's estimates (checked against
published totals and logs elsewhere, not by the harness), and releases or settings the harness does not run
are kvlint's word: there the cells are regression pins. A change that
moves any cell on purpose (a new release record, a corrected estimate) regenerates the file and shows the moved
cells in its diff:

    KVLINT_UPDATE_GOLDEN=1 python -m pytest -q tests/memory/test_budget_grid.py

The golden file holds one line per config; the tests run one cell (a column) over every config, so a change fails
in each column it moves, and the failure names the configs (see COLUMNS below for why columns).
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

import pytest

from kvlint.errors import KvlintError
from kvlint.gpus import lookup_gpu
from kvlint.memory import compute_budget
from kvlint.models.resolve import from_registry, registry_ids

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "budget_grid.jsonl"
GIB = 2**30

# (label, engine, version, gpu, settings, extra keyword arguments of compute_budget)
_SPEC_NGRAM = {"method": "ngram", "num_speculative_tokens": 3, "prompt_lookup_max": 4}
_SPEC_MTP = {"method": "mtp", "num_speculative_tokens": 2}
_SPEC_EAGLE3 = {"method": "eagle3", "model": "org/eagle3-head", "num_speculative_tokens": 3}

VLLM_CELLS: list[tuple[str, str | None, str | None, dict[str, Any], dict[str, Any]]] = [
    ("defaults", None, "H100", {}, {}),
    ("tp2", "0.33.0", "H100", {"tensor_parallel_size": 2}, {}),
    ("tp4-8k", "0.33.0", "H100", {"tensor_parallel_size": 4, "max_model_len": 8192}, {}),
    ("tp8", "0.33.0", "H100", {"tensor_parallel_size": 8}, {}),
    ("pp2", "0.33.0", "H100", {"pipeline_parallel_size": 2}, {}),
    ("pp3-tp2", "0.33.0", "H200", {"pipeline_parallel_size": 3, "tensor_parallel_size": 2}, {}),
    ("seqs8-4k-a100", "0.33.0", "A100-80GB", {"max_num_seqs": 8, "max_model_len": 4096}, {}),
    ("chunked-off-16k", "0.33.0", "H100", {"enable_chunked_prefill": False, "max_model_len": 16384}, {}),
    ("mnbt1024-l40s", "0.33.0", "L40S", {"max_num_batched_tokens": 1024, "max_model_len": 8192}, {}),
    ("fp8-kv", "0.33.0", "H100", {"kv_cache_dtype": "fp8"}, {}),
    ("b200", "0.33.0", "B200", {"max_model_len": 32768}, {}),
    ("rtx5090-tp4", "0.33.0", "RTX 5090", {"tensor_parallel_size": 4, "max_model_len": 8192}, {}),
    ("block32-32k", "0.33.0", "H100", {"block_size": 32, "max_model_len": 32768}, {}),
    ("auto-len", "0.33.0", "H100", {"max_model_len": "auto", "gpu_memory_utilization": 0.6}, {}),
    ("eager-util07", "0.33.0", "H100", {"gpu_memory_utilization": 0.7, "enforce_eager": True}, {}),
    ("override", "0.33.0", "H100", {"num_gpu_blocks_override": 3000, "max_model_len": 8192}, {}),
    ("fixed-pool", "0.33.0", "H100", {"kv_cache_memory_bytes": 8 * GIB}, {}),
    ("sync-sched", "0.33.0", "H100", {"async_scheduling": False, "max_model_len": 8192,
                                      "max_num_batched_tokens": 4096}, {}),
    ("no-hma", "0.33.0", "H100", {"disable_hybrid_kv_cache_manager": True}, {}),
    ("no-prefix-cache", "0.33.0", "H100", {"enable_prefix_caching": False, "max_num_seqs": 64,
                                           "speculative_config": _SPEC_NGRAM}, {}),
    ("dcp2-tp8", "0.33.0", "H100", {"tensor_parallel_size": 8, "decode_context_parallel_size": 2}, {}),
    ("ngram", "0.33.0", "H100", {"speculative_config": _SPEC_NGRAM}, {}),
    ("mtp", "0.33.0", "H100", {"speculative_config": _SPEC_MTP, "tensor_parallel_size": 8}, {}),
    ("eagle3", "0.33.0", "H100", {"speculative_config": _SPEC_EAGLE3, "max_model_len": 16384}, {}),
    ("eagle-by-name", "0.33.0", "H100", {"speculative_config": {"model": "yuhuili/EAGLE-LLaMA3-Instruct-8B",
                                                                "num_speculative_tokens": 2}}, {}),
    ("nvfp4-kv-b200", "0.33.0", "B200", {"kv_cache_dtype": "nvfp4", "max_model_len": 65536}, {}),
    ("lora", "0.33.0", "A100-80GB", {"enable_lora": True, "max_loras": 4, "max_lora_rank": 64,
                                     "tensor_parallel_size": 2}, {}),
    ("offload-fp16", "0.33.0", "L40S", {"cpu_offload_gb": 8, "dtype": "float16", "max_model_len": 4096}, {}),
    ("ep-dp2", "0.33.0", "H100", {"tensor_parallel_size": 4, "data_parallel_size": 2,
                                  "enable_expert_parallel": True}, {}),
    ("throughput", "0.33.0", "H200", {"performance_mode": "throughput", "max_model_len": 8192}, {}),
    ("no-cc-40g", "0.33.0", None, {"max_model_len": 8192}, {"gpu_memory_bytes": 40 * GIB}),
    ("given-terms", "0.33.0", "H100", {"max_model_len": 65536}, {"weights_bytes": 20 * GIB,
                                                                  "non_kv_bytes": 3 * GIB}),
    ("len-1m", "0.33.0", "H100", {"max_model_len": 1_000_000}, {}),
    # weights given as 0: the planner runs on every config, also those whose weights fill a card at TP 1
    ("w0-pp2-fp8", "0.33.0", "H100", {"pipeline_parallel_size": 2, "kv_cache_dtype": "fp8"}, {"weights_bytes": 0}),
    ("w0-auto-b200", "0.33.0", "B200", {"max_model_len": -1, "max_num_seqs": 32}, {"weights_bytes": 0}),
    ("w0-v027-chunked-off", "0.27.0", "A100-80GB", {"enable_chunked_prefill": False, "max_model_len": 8192},
     {"weights_bytes": 0}),
    ("w0-v021-tp2", "0.21.0", "H100", {"tensor_parallel_size": 2}, {"weights_bytes": 0}),
    ("w0-v016-b200", "0.15.0", "B200", {"block_size": 32}, {"weights_bytes": 0}),
    ("w0-v011-l40s", "0.11.0", "L40S", {"max_model_len": 32768}, {"weights_bytes": 0}),
    ("w0-v072", "0.7.2", "H100", {"max_model_len": 32769}, {"weights_bytes": 0}),
    ("v030-b200-tp2", "0.30.0", "B200", {"tensor_parallel_size": 2}, {}),
    ("v027-override", "0.27.0", "H100", {"num_gpu_blocks_override": 2000, "max_model_len": 32768}, {}),
    ("v027-a100-tp2", "0.27.0", "A100-80GB", {"tensor_parallel_size": 2}, {}),
    ("v022-l40s", "0.22.0", "L40S", {"max_model_len": 16384}, {}),
    ("v021-h100", "0.21.0", "H100", {}, {}),
    ("v020-fp8-tp2", "0.20.0", "H100", {"kv_cache_dtype": "fp8", "tensor_parallel_size": 2}, {}),
    ("v017-tp2", "0.17.0", "H100", {"tensor_parallel_size": 2, "max_model_len": 32768}, {}),
    ("v015-b200", "0.15.0", "B200", {"max_model_len": 32768}, {}),
    ("v012-l40s", "0.12.0", "L40S", {"max_model_len": 8192}, {}),
    ("v011-h100", "0.11.0", "H100", {}, {}),
    ("v011-dcp2-tp8", "0.11.0", "H100", {"tensor_parallel_size": 8, "decode_context_parallel_size": 2}, {}),
    ("v011-b200-fp8", "0.11.0", "B200", {"kv_cache_dtype": "fp8", "max_model_len": 32768}, {}),
    ("v0102-h100", "0.10.2", "H100", {"max_model_len": 32768}, {}),
    ("v0101-h100", "0.10.1", "H100", {"max_model_len": 32768}, {}),
    ("v092-4090", "0.9.2", "RTX 4090", {"max_model_len": 4096}, {}),
    ("v080-4090", "0.8.0", "RTX 4090", {"max_model_len": 4096}, {}),
    ("v080-h100", "0.8.0", "H100", {"max_model_len": 16384}, {}),
    ("v072-h100", "0.7.2", "H100", {}, {}),
    ("v072-40k", "0.7.2", "A100-80GB", {"max_model_len": 40000, "max_num_seqs": 16}, {}),
]

SGLANG_CELLS: list[tuple[str, str | None, str | None, dict[str, Any], dict[str, Any]]] = [
    ("defaults", None, "H100", {}, {}),
    ("tp2", "0.5.23", "H100", {"tp_size": 2}, {}),
    ("tp4", "0.5.23", "H100", {"tp_size": 4, "context_length": 8192}, {}),
    ("tp8", "0.5.23", "H200", {"tp_size": 8}, {}),
    ("pp2", "0.5.23", "H100", {"pp_size": 2}, {}),
    ("pp3-tp2", "0.5.23", "H200", {"pp_size": 3, "tp_size": 2}, {}),
    ("dp-attn", "0.5.23", "H100", {"tp_size": 4, "dp_size": 4, "enable_dp_attention": True}, {}),
    ("attn-dp2-bs128", "0.5.23", "H100", {"tp_size": 2, "attn_dp_size": 2, "cuda_graph_max_bs": 128}, {}),
    ("dcp2", "0.5.23", "H100", {"tp_size": 8, "dcp_size": 2}, {}),
    ("cps1024", "0.5.23", "H100", {"chunked_prefill_size": 1024}, {}),
    ("cps-off", "0.5.23", "A100-80GB", {"chunked_prefill_size": -1, "max_prefill_tokens": 8192}, {}),
    ("mrr8", "0.5.23", "L40S", {"max_running_requests": 8, "context_length": 8192}, {}),
    ("fp8", "0.5.23", "H100", {"kv_cache_dtype": "fp8_e4m3"}, {}),
    ("mxfp8-page16", "0.5.23", "H100", {"kv_cache_dtype": "mxfp8", "page_size": 16}, {}),
    ("b200", "0.5.23", "B200", {}, {}),
    ("cap4096", "0.5.23", "H100", {"max_total_tokens": 4096}, {}),
    ("cap-context", "0.5.23", "H100", {"max_total_tokens": 100000, "context_length": 16384}, {}),
    ("mfs08-nographs", "0.5.23", "H100", {"mem_fraction_static": 0.8, "disable_cuda_graph": True}, {}),
    ("graph-bs64", "0.5.23", "RTX 4090", {"cuda_graph_max_bs": 64, "context_length": 4096}, {}),
    ("eagle", "0.5.23", "H100", {"speculative_algorithm": "EAGLE", "speculative_num_draft_tokens": 4}, {}),
    ("nextn-tp8", "0.5.23", "H200", {"speculative_algorithm": "NEXTN", "speculative_num_draft_tokens": 3,
                                     "tp_size": 8}, {}),
    ("no-swa-pool", "0.5.23", "H100", {"disable_hybrid_swa_memory": True}, {}),
    ("swa-ratio", "0.5.23", "H100", {"swa_full_tokens_ratio": 0.5, "context_length": 32768}, {}),
    ("radix-off", "0.5.23", "H100", {"disable_radix_cache": True, "max_running_requests": 64}, {}),
    ("ep8-deepep", "0.5.23", "H200", {"tp_size": 8, "moe_a2a_backend": "deepep"}, {}),
    ("no-band-40g", "0.5.23", None, {}, {"gpu_memory_bytes": 40 * GIB}),
    ("given-terms", "0.5.23", "H100", {"context_length": 65536}, {"weights_bytes": 20 * GIB,
                                                                   "non_kv_bytes": GIB}),
    # weights given as 0: the pool sizing runs on every config, also those whose weights fill a card at TP 1
    ("w0-tp2-fp8", "0.5.23", "H100", {"tp_size": 2, "kv_cache_dtype": "fp8_e4m3"}, {"weights_bytes": 0}),
    ("w0-pp2-page64", "0.5.23", "B200", {"pp_size": 2, "context_length": 32768}, {"weights_bytes": 0}),
    ("w0-mrr-radix-off", "0.5.23", "L40S", {"disable_radix_cache": True, "max_running_requests": 16,
                                            "max_total_tokens": 50000}, {"weights_bytes": 0}),
    ("w0-v053-a100", "0.5.3", "A100-80GB", {"chunked_prefill_size": 2048}, {"weights_bytes": 0}),
    ("w0-v049-l40s", "0.4.9", "L40S", {"speculative_algorithm": "NEXTN", "tp_size": 2}, {"weights_bytes": 0}),
    ("v0512-t4", "0.5.12", "T4", {"context_length": 4096}, {}),
    ("v0512-a100-40", "0.5.12", "A100-40GB", {"tp_size": 2}, {}),
    ("v053-4090", "0.5.3", "RTX 4090", {"context_length": 8192}, {}),
    ("v053-h100-tp4", "0.5.3", "H100", {"tp_size": 4}, {}),
    ("v049-h100", "0.4.9", "H100", {}, {}),
    ("v049-h200-tp2-eagle", "0.4.9", "H200", {"tp_size": 2, "speculative_algorithm": "EAGLE",
                                             "enable_dp_attention": True, "dp_size": 2}, {}),
    ("v049-4090", "0.4.9", "RTX 4090", {"context_length": 4096}, {}),
]

CELLS = {"vllm": VLLM_CELLS, "sglang": SGLANG_CELLS}


def _num(x: Any) -> Any:
    if isinstance(x, float):
        return float(f"{x:.12g}")
    return x


def _plain(x: Any) -> Any:
    """A JSON-able copy of a record (floats to 12 significant digits, so the digest does not hang on the last ulp)."""
    if hasattr(x, "__dataclass_fields__"):
        return {k: _plain(getattr(x, k)) for k in x.__dataclass_fields__}
    if isinstance(x, (tuple, list)):
        return [_plain(v) for v in x]
    if isinstance(x, dict):
        return {str(k): _plain(v) for k, v in x.items()}
    return _num(x)


def cell(engine: str, model: Any, version: str | None, gpu: str | None, settings: dict[str, Any],
         extra: dict[str, Any]) -> str:
    """"TOKENS DIGEST": the logged token count in clear and a digest of the whole Budget, or "error DIGEST" of the
    error's class and message."""
    try:
        b = compute_budget(engine, model, settings, lookup_gpu(gpu) if gpu else None, version=version, **extra)
    except KvlintError as e:
        return "error " + _digest([type(e).__name__, str(e)])
    whole = _plain(b)
    whole["steps"] = [[s["name"], s["value"], s["estimated"]] for s in whole["steps"]]  # not the formula text
    whole["notes"] = len(b.notes)
    return f"{b.kv_tokens} {_digest(whole)}"


def _digest(value: Any) -> str:
    return hashlib.sha1(json.dumps(value, sort_keys=True).encode()).hexdigest()[:8]


def row(config: str) -> dict[str, list[str]]:
    """One config's cells, per engine in the order of CELLS."""
    model = from_registry(config)
    return {engine: [cell(engine, model, version, gpu, dict(settings), extra)
                     for _, version, gpu, settings, extra in cells]
            for engine, cells in CELLS.items()}


def _golden() -> dict[str, dict]:
    if not GOLDEN.exists():
        return {}
    rows = map(json.loads, GOLDEN.read_text(encoding="utf-8").splitlines())
    return {r["config"]: {e: r[e] for e in CELLS} for r in rows if r}


if os.environ.get("KVLINT_UPDATE_GOLDEN"):
    GOLDEN.write_text("".join(json.dumps({"config": c, **row(c)}, separators=(",", ":")) + "\n"
                              for c in sorted(registry_ids())), encoding="utf-8")

PINNED = _golden()


def test_every_bundled_config_is_pinned():
    assert sorted(PINNED) == sorted(registry_ids()), "regenerate: KVLINT_UPDATE_GOLDEN=1 (see the docstring)"


_MODELS: dict[str, Any] = {}


def _model(config: str) -> Any:
    if config not in _MODELS:
        _MODELS[config] = from_registry(config)
    return _MODELS[config]


# One test per cell (a column of the grid: one engine, release, card and settings), each over every bundled config.
# Why columns and not one test per config: a column's settings decide which code it runs (only the PP columns run
# the per-stage code, only the fp8 columns the fp8 page), so the coverage map bench/mutate.py builds lists, for a
# mutated line, the few columns that execute it, and each of those pins that line's effect on all 151 configs
# (0.2-0.6 s a column). A test per config ran every line of the memory model, so the script's per-mutant time
# budget took the cheapest configs, often ones on which the mutant changes nothing (a PP-stage mutant on a model
# whose stages are equal). Every cell of every config is still compared to the golden file, exactly as before.
COLUMNS = [(engine, i) for engine, cells in CELLS.items() for i in range(len(cells))]


@pytest.mark.parametrize("engine,index", COLUMNS, ids=[f"{e}-{CELLS[e][i][0]}" for e, i in COLUMNS])
def test_budget_grid_column(engine, index):
    _, version, gpu, settings, extra = CELLS[engine][index]
    moved = []
    for config in sorted(PINNED):
        want = PINNED[config][engine]
        assert len(want) == len(CELLS[engine]), f"{config}: the grid changed: regenerate"
        got = cell(engine, _model(config), version, gpu, dict(settings), extra)
        if got != want[index]:
            moved.append(f"{config}: {want[index]} -> {got}")
    assert not moved, f"{engine} {CELLS[engine][index][0]}: {len(moved)} config(s) moved:\n" + "\n".join(moved[:10])
