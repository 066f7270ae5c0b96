"""The parser on logs we wrote to cover formats and decorations the real cases lack."""

from __future__ import annotations

from pathlib import Path

import pytest

from kvlint.logs import parse_log
from kvlint.logs.lines import rank_of, split_line
from kvlint.logs.pyrepr import parse_call_repr, parse_dict_repr

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "logs"


def _parse(name: str):
    return parse_log((FIXTURES / name).read_text())


def test_vllm_033_one_line_capacity_and_ranks():
    r = _parse("vllm033_tp2.log")
    assert (r.engine, r.engine_version, r.model) == ("vllm", "0.33.0", "meta-llama/Llama-3.1-8B-Instruct")
    assert r.kv_tokens == 951_984 and r.max_concurrency_len == 131_072 and r.max_concurrency == 7.26
    # the pool is planned for the smallest worker; the loading figure is rank 0's
    assert r.available_kv_gib == 58.1
    assert r.model_loading_gib == 7.51
    assert r.ranks["TP0"]["available_kv_gib"] == 58.24 and r.ranks["TP1"]["available_kv_gib"] == 58.1
    assert r.cuda_graph_gib == 0.93  # rank 0's estimate, not the last line's
    assert (r.free_memory_gib, r.total_gpu_memory_gib) == (77.66, 79.19)
    assert (r.gpu_memory_utilization, r.requested_memory_gib) == (0.9, 71.28)
    assert r.consumed_memory_gib == 9.0 and r.torch_peak_increase_gib == 2.21
    assert r.max_model_len == 131072 and r.max_num_batched_tokens == 8192
    assert r.args["tensor_parallel_size"] == 2
    assert r.outcome == "started" and r.failure_kind is None


def test_vllm_033_refusal_error():
    r = _parse("vllm033_refused.log")
    assert r.outcome == "failed" and r.failure_kind == "kv_needed_gt_available"
    assert (r.kv_needed_gib, r.estimated_max_model_len) == (32.0, 34400)
    assert r.available_kv_gib == 8.4  # the Available line wins over the error's (one block less) figure
    assert r.failure_message.startswith("To serve at least one request")


def test_sglang_per_rank_and_pool_lines():
    r = _parse("sglang_tp2.log")
    assert r.engine == "sglang" and r.model == "Qwen/Qwen3-8B"
    assert r.mem_fraction_static == 0.835 and r.args["tp_size"] == 2
    assert r.args["device"] == "<Device.cuda: 1>"  # non-literal reprs kept as text
    assert r.max_total_num_tokens == 794_112 and (r.k_size_gb, r.v_size_gb) == (27.26, 27.26)
    assert r.kv_cache_dtype == "bfloat16"
    assert r.avail_mem_gb_after_weights == 70.40  # min over ranks, as SGLang all-reduces
    assert r.avail_mem_gb_load_begin == 78.10
    assert r.weights_mem_usage_gb == 7.70
    assert r.context_len == 32768 and r.max_running_requests == 4096
    assert r.cuda_graph_gib == 1.5  # decode + prefill capture
    assert r.avail_mem_gb_after_kv_pool == 15.80
    assert r.outcome == "started"


def test_sglang_not_enough_memory():
    r = _parse("sglang_not_enough.log")
    assert (r.outcome, r.failure_kind, r.mem_fraction_static) == ("failed", "sglang_not_enough_memory", 0.83)


def test_vllm_v0_block_line():
    r = _parse("vllm_v0_blocks.log")
    assert (r.num_gpu_blocks, r.num_cpu_blocks, r.engine, r.outcome) == (2000, 512, "vllm", "started")


def test_empty_and_garbage_give_an_empty_record():
    for text in ("", "\x00\x01 binary \xff", "hello world\n" * 3, "Available KV cache memory: lots"):
        r = parse_log(text)
        assert r.available_kv_gib is None and r.outcome is None and r.engine is None


@pytest.mark.parametrize("raw, rank, message", [
    ("(Worker_TP1 pid=445) INFO 04-22 00:16:36 [v1/worker/gpu_worker.py:284] x", "TP1", "x"),
    ("(VllmWorker TP0 pid=1430) INFO 09-03 00:39:33 [gpu_model_runner.py:2007] y", "TP0", "y"),
    ("(Worker_DP1_TP3_EP7 pid=9) WARNING 01-01 00:00:00 [a.py:1] z", "DP1_EP7_TP3", "z"),
    ("[2026-11-29 07:20:15 DP1 TP0] w", "DP1_TP0", "w"),
    ("INFO 06-12 08:12:23 distributed_gpu_executor.py:45] v", "", "v"),
    ("\x1b[32mINFO\x1b[0m 06-12 08:12:23 [x.py:4] u", "", "u"),
    ("- **Available KV cache memory:** 32.0 GiB", "", "- Available KV cache memory: 32.0 GiB"),
])
def test_split_line(raw, rank, message):
    line = split_line(1, raw)
    assert (line.rank, line.message) == (rank, message)


def test_rank_of_untagged_process():
    assert rank_of("EngineCore") == "" and rank_of("EngineCore_DP0") == "DP0"


def test_pyrepr_tolerates_elisions_and_cuts():
    ns = parse_call_repr("Namespace(subparser='serve', ..., max_model_len=32768, ..., fn=<function f at 0x1>)")
    assert ns == {"subparser": "serve", "max_model_len": 32768, "fn": "<function f at 0x1>"}
    cut = parse_dict_repr("{'model': 'm', 'max_model_len': 8192, 'served_model_name': ['Qwen3-VL-Embedding-2")
    assert cut["model"] == "m" and cut["max_model_len"] == 8192
    assert parse_dict_repr("{'a': [1, 2], 'b': {'c': 3}}") == {"a": [1, 2], "b": {"c": 3}}
