"""Measuring non-KV memory from parsed startup logs (kvlint.calibration.measure)."""

from __future__ import annotations

import json

import pytest

from kvlint.calibration.measure import measure_non_kv
from kvlint.errors import KvlintError
from kvlint.logs import parse_log
from kvlint.logs.record import GIB


def test_measured_non_kv_matches_the_profiler_breakdown(shared_dir):
    """vLLM 0.19 logs its own non-KV total (weights included): ours must agree to the log's rounding."""
    cases = json.loads((shared_dir / "logs" / "cases.json").read_text())
    checked = 0
    for case in cases:
        if case["non_kv_memory_gib"] is None or case["model_loading_gib"] is None:
            continue
        record = parse_log("\n".join(case["lines"]))
        if record.requested_memory_gib is None:
            continue
        measured = measure_non_kv(record).non_kv_bytes / GIB
        assert measured == pytest.approx(case["non_kv_memory_gib"] - case["model_loading_gib"], abs=0.021)
        checked += 1
    assert checked >= 15


def test_measure_from_total_and_utilization():
    record = parse_log("Model loading took 10.0 GiB memory\nAvailable KV cache memory: 60.0 GiB")
    m = measure_non_kv(record, total_bytes=80 * GIB, utilization=0.9)
    assert m.non_kv_bytes == 72 * GIB - 70 * GIB
    with pytest.raises(KvlintError, match="requested memory"):
        measure_non_kv(record)


def test_measure_sglang_needs_total():
    text = ("[2026-01-01 00:00:00] server_args=ServerArgs(model_path='m', mem_fraction_static=0.8)\n"
            "[2026-01-01 00:00:01] Load weight end. elapsed=1.00 s, type=X, avail mem=60.00 GB, mem usage=15.00 GB.\n"
            "[2026-01-01 00:00:02] KV Cache is allocated. #tokens: 100, K size: 22.50 GB, V size: 22.50 GB")
    record = parse_log(text)
    assert measure_non_kv(record, total_bytes=80 * GIB).non_kv_bytes == 4 * GIB
    with pytest.raises(KvlintError, match="GPU total"):
        measure_non_kv(record)


def test_measure_sglang_prefers_the_pre_load_line():
    text = ("[2026-01-01 00:00:00] server_args=ServerArgs(model_path='m', mem_fraction_static=0.8)\n"
            "[2026-01-01 00:00:01] Load weight begin. avail mem=78.00 GB\n"
            "[2026-01-01 00:00:01] Load weight end. elapsed=1.00 s, type=X, avail mem=63.00 GB, mem usage=15.00 GB.\n"
            "[2026-01-01 00:00:02] KV Cache is allocated. #tokens: 100, K size: 22.00 GB, V size: 22.00 GB")
    m = measure_non_kv(parse_log(text), total_bytes=80 * GIB)
    other = 78 * 0.8 - 15 - 44  # 3.4 GiB allocated before the pool besides weights
    assert m.calibration / GIB == pytest.approx(other, abs=1e-6)
    assert m.non_kv_bytes / GIB == pytest.approx(other + 2, abs=1e-6)  # + 2 GiB used before loading
