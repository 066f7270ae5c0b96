"""Every real log in shared/logs/cases.json parses into the numbers its case records."""

from __future__ import annotations

import json

import pytest

from kvlint.logs import parse_log
from kvlint.logs.record import FIELD_NAMES
from tests.conftest import SHARED

CASES_FILE = SHARED / "logs" / "cases.json"
CASE_IDS = [c["id"] for c in json.loads(CASES_FILE.read_text())] if CASES_FILE.is_file() else ["<no shared>"]

# Case fields that describe the launch (inputs), not what the log printed.
INPUT_FIELDS = {"max_model_len", "max_num_batched_tokens", "gpu_memory_utilization", "block_size",
                "chunked_prefill_size", "kv_cache_dtype", "engine_version", "model", "failure_message"}

# Values a case records from its source's prose or surrounding document, not from any log line.
NOT_IN_LINES = {
    "vllm-i13061-2x4090-r1-distill-qwen14b-fail": {"available_kv_gib"},  # a user's sentence
    "vllm-llmdb-h100-gpt-oss-120b-16k": {"total_gpu_memory_gib"},  # the doc's header, not a line
    "vllm-llmdb-h100-llama33-70b-fp8dyn-tp1-16k-fail": {  # the table row says N/A; values from the doc
        "total_gpu_memory_gib", "torch_peak_increase_gib", "non_torch_increase_gib", "cuda_graph_gib"},
    "sglang-i18262-mi355x-qwen3-30b-a3b-5layer-aiter-fail": {"outcome", "failure_kind"},  # OOM after the excerpt
}


def _compared(case: dict) -> dict:
    skip = INPUT_FIELDS | NOT_IN_LINES.get(case["id"], set())
    return {k: v for k, v in case.items()
            if k in FIELD_NAMES and k not in skip and v is not None and not isinstance(v, (dict, list))}


@pytest.fixture(scope="module")
def cases(shared_dir):
    return {c["id"]: c for c in json.loads((shared_dir / "logs" / "cases.json").read_text())}


@pytest.mark.parametrize("case_id", CASE_IDS)
def test_case_parses_to_recorded_fields(cases, case_id):
    case = cases[case_id]
    record = parse_log("\n".join(case["lines"])).found()
    expected = _compared(case)
    assert expected, "every case records at least one parsed field"
    got = {k: record.get(k) for k in expected}
    assert got == expected


def test_every_case_compares_a_number(cases):
    """Guard against the comparison silently shrinking to outcome/engine only."""
    numeric = [cid for cid, c in cases.items()
               if any(isinstance(v, (int, float)) and not isinstance(v, bool) for v in _compared(c).values())]
    assert len(numeric) == len(cases)


def test_engine_version_where_logged(cases):
    versions = {cid: parse_log("\n".join(c["lines"])).engine_version for cid, c in cases.items()}
    assert versions["vllm-planner-h100-qwen-qwen3-8b-tp1pp1dp1--8192"] == "0.19.0"
    assert versions["vllm-dl-a100-80gb-qwen2-7b-tp1-u050"] == "0.10.1.1"
    assert versions["vllm-llmdb-h100-mistral-small-3.2-24b-u095-16k"] == "0.11.0"
    assert versions["vllm-i33263-24gb-qwen3-1.7b"] is None


def test_model_and_flags_from_logged_args(cases):
    record = parse_log("\n".join(cases["vllm-planner-h100-fp8dyn-llama-3-3-70b-tp2pp1dp1--8192"]["lines"]))
    assert record.model == cases["vllm-planner-h100-fp8dyn-llama-3-3-70b-tp2pp1dp1--8192"]["hf_model_id"]
    assert record.args["tensor_parallel_size"] == 2
    assert record.args["gpu_memory_utilization"] == 0.95
    sglang = parse_log("\n".join(cases["sglang-pr11830-b200-qwen25-vl-7b"]["lines"]))
    assert sglang.model == "Qwen/Qwen2.5-VL-7B-Instruct"
    assert sglang.args["max_total_tokens"] is None
