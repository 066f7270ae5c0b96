"""The parser on logs we wrote to cover formats and decorations the real cases lack."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

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


@pytest.mark.parametrize("line, expected", [
    ("INFO 11-29 07:21:01 [kv_cache_planning.py:300] Auto-fit max_model_len: reduced from 131072 to 50000 to fit in "
     "available KV cache memory (12.5 GiB GPU)", {"max_model_len": 50000}),
    ("INFO [gpu_worker.py:300] Initial free memory 77.6 GiB, reserved 20.0 GiB memory for KV Cache as specified by "
     "kv_cache_memory_bytes config and skipped memory profiling.", {"available_kv_gib": 20.0}),
    ("Overriding num_gpu_blocks=3000 with num_gpu_blocks_override=512", {"num_gpu_blocks": 512}),
    ("Setting kv cache block size to 64 for FLASHMLA backend(s).", {"block_size": 64}),
    ("ValueError: Free memory on device cuda:0 (30.1/79.19 GiB) on startup is less than desired GPU memory "
     "utilization (0.92, 72.85 GiB). Decrease GPU memory utilization or reduce GPU memory used by other processes.",
     {"free_memory_gib": 30.1, "total_gpu_memory_gib": 79.19, "failure_kind": "free_memory_below_requested",
      "gpu_memory_utilization": 0.92, "requested_memory_gib": 72.85}),
    ("RuntimeError: Failed to load model - not enough GPU memory. Try lowering --gpu-memory-utilization",
     {"failure_kind": "weights_oom", "outcome": "failed"}),
    ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.", {"failure_kind": "cuda_oom"}),
    ("ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization`",
     {"failure_kind": "negative_available_kv"}),
    ("[2026-01-01 00:00:00 TP0] KV Cache is allocated. dtype: torch.float8_e4m3fn, #tokens: 1234567, KV size: 40.12 GB",
     {"max_total_num_tokens": 1234567, "kv_size_gb": 40.12, "kv_cache_dtype": "float8_e4m3fn", "engine": "sglang"}),
    ("[2026-01-01 00:00:00] Use sliding window memory pool. full_layer_tokens=100000, swa_layer_tokens=80000",
     {"full_layer_tokens": 100000, "swa_layer_tokens": 80000}),
    ("[2026-01-01 00:00:00] max_total_tokens=900000 is larger than the profiled value 812345. Use the profiled value "
     "instead.", {"profiled_max_total_num_tokens": 812345}),
    ("[2026-01-01 00:00:00 TP0] max_total_num_tokens=812345, chunked_prefill_size=-1, max_prefill_tokens=16384, "
     "max_running_requests=2048, context_len=131072", {"max_total_num_tokens": 812345, "chunked_prefill_size": -1,
                                                      "available_gpu_mem_gb": None}),
    ("[2026-01-01 00:00:00] Capture cuda graph end. Time elapsed: 11.83 s. mem usage=1.27 GB. avail mem=10.00 GB.",
     {"cuda_graph_gib": 1.27}),
    ("SWA pool (4000 tokens) cannot hold even one request: the prefill admission floor is sliding_window_size (4096)",
     {"failure_kind": "sglang_swa_pool_too_small"}),
    ("(EngineCore_DP0 pid=9) INFO 01-01 00:00:00 [gpu_worker.py:1] CUDA graph memory profiling is enabled (default "
     "since v0.21.0). The current --gpu-memory-utilization=0.9000 is equivalent to --gpu-memory-utilization=0.8800 "
     "without CUDA graph memory profiling.", {"gpu_memory_utilization": 0.9}),
    ("INFO 01-01 00:00:00 [core.py:1] Initializing a V1 LLM engine (v0.27.1) with config: model='x'",
     {"engine_version": "0.27.1"}),
    ("INFO Using configuration from /x/E=128,N=384,device_name=NVIDIA_H100_80GB_HBM3.json for MoE layer.",
     {"gpu_hint": "NVIDIA H100 80GB HBM3"}),
])
def test_single_messages(line, expected):
    r = parse_log(line)
    assert {k: getattr(r, k) for k in expected} == expected


def test_multiline_refusal_from_an_issue_thread():
    text = ("ValueError: To serve at least one request with the model's max seq len (262144),\n"
            "(8.58 GiB KV cache is needed, which is larger than the available KV cache memory\n"
            "(0.9 GiB). Based on the available memory, the estimated maximum model length is 27392.\n")
    r = parse_log(text)
    assert (r.failure_kind, r.kv_needed_gib, r.available_kv_gib, r.estimated_max_model_len, r.max_model_len) == \
        ("kv_needed_gt_available", 8.58, 0.9, 27392, 262144)


FRAGMENTS = ["Available KV cache memory: ", "GPU KV cache size: ", "Maximum concurrency for ", " tokens per request: ",
             "non-default args: {", "args: Namespace(", "server_args=ServerArgs(", "KV Cache is allocated. #tokens: ",
             "(Worker_TP1 pid=1) ", "[2026-01-01 00:00:00 TP1] ", "| Model Weight (GiB) |", "|", "-1.5", "1,234",
             "GiB", " GB", "x", "\n", "'", "(", ")", "{", "}", "=", ",", "\x1b[0m", "To serve at least one request"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(FRAGMENTS), st.text(max_size=12)), max_size=40))
def test_parser_never_raises(parts):
    record = parse_log("".join(parts))
    assert record.outcome in (None, "started", "failed")


def test_record_json_is_serialisable_whatever_the_args_hold():
    import json

    r = parse_log("non-default args: {'model': 'm', 'allowed': {'a', 'b'}, 'pair': (1, 2), 'x': b'y'}")
    data = json.loads(json.dumps(r.to_json()))
    assert data["args"]["allowed"] == ["a", "b"] and data["args"]["pair"] == [1, 2]


def test_literal_keys_never_require_optional_text():
    from kvlint.logs.patterns import LINE_PATTERNS, _literal_key, candidates

    assert _literal_key(r"Model loading took:?\s*(\d+)") == "model loading took"
    assert _literal_key(r"The model'?s max seq len") == "the model"
    assert _literal_key(r"a small|b zero") == ""
    assert _literal_key(r"^KV Cache is (?:allocated|VA)") == "kv cache is "
    line = "Maximum concurrency for 8,192 tokens per request: 1.00x"
    assert [LINE_PATTERNS[i].fields for i in candidates(line.lower()) if LINE_PATTERNS[i].regex.search(line)] == \
        [("max_concurrency_len", "max_concurrency")]


def test_large_logs_parse_quickly():
    import time

    noise = "(APIServer pid=1) INFO 04-22 01:05:31 [loggers.py:123] Engine 000: Avg prompt throughput: 12.5 tokens/s\n"
    text = noise * 20000 + "GPU KV cache size: 1,000 tokens\n"
    start = time.process_time()  # CPU time, not the wall clock a busy runner stretches
    assert parse_log(text).kv_tokens == 1000
    assert time.process_time() - start < 5  # a wide margin; guards against per-line regex blow-ups


@pytest.mark.parametrize(("line", "expected"), [
    ("(EngineCore_0 pid=1812) INFO 09-04 01:02:57 [topk_topp_sampler.py:50] Using FlashInfer for top-p & top-k "
     "sampling.", True),
    ("(RayWorkerWrapper pid=1384) WARNING 09-03 04:38:28 [topk_topp_sampler.py:61] FlashInfer is not available. "
     "Falling back to the PyTorch-native implementation of top-p & top-k sampling. For the best performance, please "
     "install FlashInfer.", False),
    ("WARNING 06-26 00:49:19 [topk_topp_sampler.py:52] FlashInfer is available, but it is not enabled. Falling back "
     "to the PyTorch-native implementation of top-p & top-k sampling.", False),
    ("INFO 09-03 04:42:46 [gpu_worker.py:276] Available KV cache memory: 11.03 GiB", None),
])
def test_the_sampler_line_says_which_path_the_profile_ran(line: str, expected: bool | None) -> None:
    """0.8-0.11 print which top-k/top-p path the V1 sampler took (FlashInfer's kernels or torch's sort); verify hands
    it to the memory model (memory.vllm.sampler_path), so a pip install without FlashInfer is sized as one."""
    from kvlint.logs.compare import settings_from_log

    record = parse_log("INFO [api_server.py:1805] vLLM API server version 0.10.1.1\n" + line + "\n")
    assert record.flashinfer_sampler is expected
    assert settings_from_log(record, "vllm").get("flashinfer_sampler") is expected
