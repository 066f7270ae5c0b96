"""Capacity rules on hand-made budgets: each fires where it should, stays quiet elsewhere, and
quotes numbers that follow from the budget it was given."""

from __future__ import annotations

import re

import _factories as fx
import pytest

from kvlint.findings import Severity
from kvlint.registry import get_rule, run_rules


def run(ctx, code):
    return list(run_rules(ctx, {code}))


def test_kv101_fires_with_numbers_and_levers():
    dep = fx.deployment(max_model_len=(40000, 5))
    ctx = fx.context(dep, fx.model(max_len_vllm=131072))
    [f] = run(ctx, "KV101")
    b = ctx.budget
    assert (f.span.line, f.span.col, f.code, f.severity) == (5, 7, "KV101", Severity.ERROR)
    assert f"max_model_len 40000 needs {40000 * b.kv_bytes_per_token / 2**30:.2f} GiB" in f.message
    assert f"({b.kv_tokens:,} tokens)" in f.message
    assert f"--max-model-len {b.estimated_max_model_len}" in f.message
    fp8 = ctx.what_if({"kv_cache_dtype": "fp8"})
    assert f"--kv-cache-dtype fp8 ({fp8.kv_tokens:,} tokens)" in f.message
    assert "non-KV 6.0 GiB est." in f.message and f.estimated


def test_kv101_quiet_when_it_fits_or_on_sglang():
    assert run(fx.context(fx.deployment(max_model_len=(8192, 5))), "KV101") == []
    sg = fx.deployment("sglang", context_length=(131072, 5))
    assert run(fx.context(sg, fx.model(max_len_sglang=131072)), "KV101") == []


def test_kv101_estimated_severity_is_configurable():
    dep = fx.deployment(max_model_len=(131072, 5))
    ctx = fx.with_options(fx.context(dep, fx.model(max_len_vllm=131072)),
                          estimated_severities={"KV101": Severity.WARNING})
    assert [f.severity for f in run(ctx, "KV101")] == [Severity.WARNING]


def test_kv102_names_smallest_tp_that_fits():
    dep = fx.deployment(max_model_len=(8192, 4))
    ctx = fx.context(dep, weights=140 * 2**30)
    [f] = run(ctx, "KV102")
    assert f.span == dep.launch_span  # tp not written: the launch decides
    smallest = next(tp for tp in (2, 4, 8) if ctx.what_if({"tensor_parallel_size": tp}).kv_pool_bytes > 0)
    assert f"Fits: -tp {smallest}." in f.message and "weights need 140.0 GiB" in f.message
    assert run(fx.context(dep), "KV102") == []


def test_kv102_names_a_default_share_as_the_engines_not_as_a_flag():
    heavy = 140 * 2**30
    [sg] = run(fx.context(fx.deployment("sglang", context_length=(8192, 4)), weights=heavy), "KV102")
    assert "mem_fraction_static 0.85 (SGLang's default for this GPU)" in sg.message and "--mem-fraction" not in sg.message
    [vl] = run(fx.context(fx.deployment(max_model_len=(8192, 4)), weights=heavy), "KV102")
    assert "gpu_memory_utilization 0.92 (vLLM's default)" in vl.message and "--gpu-memory" not in vl.message
    written = fx.deployment("sglang", context_length=(8192, 4), mem_fraction_static=(0.85, 5))
    [f] = run(fx.context(written, weights=heavy), "KV102")
    assert "--mem-fraction-static 0.85 of" in f.message and "default" not in f.message


def test_kv103_counts_full_length_requests():
    dep = fx.deployment(max_model_len=(16384, 4), max_num_seqs=(64, 6))
    ctx = fx.context(dep)
    [f] = run(ctx, "KV103")
    assert f.span.line == 6
    assert f"holds {ctx.budget.max_concurrency:.2f} full-length requests at once" in f.message
    assert "max_num_seqs 64 x max_model_len 16,384, but" in f.message


def test_kv103_uses_the_engines_concurrency_not_pool_over_length():
    """Sliding-window / hybrid models: vLLM's maximum concurrency exceeds pool tokens / length (issue 23)."""
    from kvlint.record import replace

    ctx = fx.context(fx.deployment(max_model_len=(16384, 4), max_num_seqs=(4, 6)))
    b = ctx.budget
    windowed = replace(b, kv_tokens=int(2.65 * 16384), max_concurrency=8.19)
    assert run(replace(ctx, budget=windowed), "KV103") == []  # 4 <= 8.19: quiet though 2.65 x 16384 tokens
    short = replace(b, kv_tokens=int(8.19 * 16384), max_concurrency=2.65)
    [f] = run(replace(ctx, budget=short), "KV103")
    assert "holds 2.65 full-length requests" in f.message and f.data["full_length_requests"] == 2.65


def test_kv103_is_quiet_on_engine_defaults_and_ratio_option_silences():
    default = fx.context(fx.deployment(max_model_len=(16384, 4)))
    assert default.budget.max_num_seqs * 16384 > default.budget.kv_tokens  # the default would overflow the pool
    assert run(default, "KV103") == []  # ... but nobody declared it
    ctx = fx.context(fx.deployment(max_model_len=(16384, 4), max_num_seqs=(64, 6)))
    assert len(run(ctx, "KV103")) == 1
    quiet = fx.with_options(ctx, options={"KV103": {"min-ratio": 1000.0}})
    assert run(quiet, "KV103") == []


def test_kv103_points_at_a_serving_target_when_it_is_the_declaration():
    from dataclasses import replace

    from kvlint.deployment import DeclaredLoad

    dep = replace(fx.deployment(max_model_len=(16384, 4)), declared_load=DeclaredLoad(64, "containerConcurrency",
                                                                                      fx.span(9, 28, 2)))
    ctx = fx.context(dep)
    [f] = run(ctx, "KV103")
    assert f.message.startswith("containerConcurrency target 64 x max_model_len 16,384") and f.span.line == 9
    both = replace(dep, settings={**dep.settings, "max_num_seqs": fx.Setting("max_num_seqs", 32, span=fx.span(6))})
    [g] = run(fx.context(both), "KV103")  # the smaller declaration is the load
    assert g.message.startswith("max_num_seqs 32 x") and g.span.line == 6


def test_kv104_only_for_sglang():
    sg = fx.deployment("sglang", context_length=(131072, 5))
    ctx = fx.context(sg, fx.model(max_len_sglang=131072))
    [f] = run(ctx, "KV104")
    assert f"holds {ctx.budget.kv_tokens:,} tokens" in f.message and "--context-length" in f.message
    assert run(fx.context(fx.deployment(max_model_len=(131072, 5)), fx.model(max_len_vllm=131072)), "KV104") == []


def test_kv105_exceeds_derived_length():
    [f] = run(fx.context(fx.deployment(max_model_len=(65536, 5)), with_budget=False), "KV105")
    assert "65536 is greater than the derived maximum 32768" in f.message and f.span.line == 5
    assert run(fx.context(fx.deployment(max_model_len=(32768, 5)), with_budget=False), "KV105") == []


@pytest.mark.parametrize("tp,fires", [(1, False), (2, False), (3, True), (8, False), (16, True)])
def test_kv201_divisibility(tp, fires):
    got = run(fx.context(fx.deployment(tensor_parallel_size=(tp, 7)), with_budget=False), "KV201")
    assert bool(got) == fires
    if fires:
        assert "Valid: 1, 2, 4, 8" in got[0].message


def test_kv202_and_kv203():
    dep = fx.deployment(tensor_parallel_size=(16, 7))
    m = fx.model(num_attention_heads=64)
    [f] = run(fx.context(dep, m, with_budget=False), "KV202")
    assert "exceeds the 8 KV heads" in f.message and "replicated on 2 ranks" in f.message
    mla = fx.mla_model()
    assert run(fx.context(dep, mla, with_budget=False), "KV202") == []
    [g] = run(fx.context(fx.deployment(tensor_parallel_size=(8, 7)), mla, with_budget=False), "KV203")
    assert "576 values per token per layer" in g.message and "-dcp 8" in g.message


@pytest.mark.parametrize("settings, ranks", [
    ({"tp_size": (8, 7), "attn_dp_size": (2, 7)}, 4),
    ({"tp_size": (8, 7), "dp_size": (4, 7), "enable_dp_attention": (True, 7)}, 2),
    ({"tp_size": (8, 7), "attn_dp_size": (8, 7)}, None),
    ({"tp_size": (8, 7), "dp_size": (8, 7), "enable_dp_attention": (True, 7)}, None),
])
def test_kv203_counts_sglang_attention_tp_ranks(settings, ranks):
    """Under SGLang DP attention each attention replica spans tp // attn_dp ranks: the latent is
    replicated over those, not over all of TP, and at attention TP 1 not at all. The rule reads the
    attention TP from the budget's Parallel record (the engine's reading of the sizes)."""
    dep = fx.deployment("sglang", **settings)
    found = run(fx.context(dep, fx.mla_model()), "KV203")
    if ranks is None:
        assert found == []
        return
    [f] = found
    assert f"whole on each of the {ranks} attention TP ranks (--tp-size 8 /" in f.message
    assert f.fix == f"--dcp-size {ranks}"


def test_kv204_gpu_count():
    from dataclasses import replace

    dep = replace(fx.deployment(tensor_parallel_size=(4, 7)), gpu_count=2, gpu_count_span=fx.span(12))
    [f] = run(fx.context(dep, with_budget=False), "KV204")
    assert "needs 4 GPU(s) per instance but the instance requests 2" in f.message
    assert f.related[0].span.line == 12
    assert run(fx.context(replace(dep, gpu_count=4), with_budget=False), "KV204") == []


def test_kv301_and_kv302_gain_is_recomputed():
    dep = fx.deployment(max_model_len=(16384, 4), max_num_seqs=(64, 6))
    ctx = fx.context(dep)
    [f] = run(ctx, "KV301")
    fp8 = ctx.what_if({"kv_cache_dtype": "fp8"})
    assert f"holds {fp8.kv_tokens:,} tokens (+{fp8.kv_tokens - ctx.budget.kv_tokens:,}" in f.message
    share = ctx.budget.weights_bytes / ctx.budget.requested_bytes
    assert f"weights take {share:.0%}" in f.message
    assert run(fx.with_options(ctx, options={"KV301": {"weights-share": 0.99}}), "KV301") == []
    [q] = run(ctx, "KV302")
    assert re.search(r"free 30\.5 GiB per rank", q.message)


def test_rule_lookup_by_name_and_code():
    assert get_rule("kv101").name == "pool-below-one-request"
    assert get_rule("pool-below-one-request").code == "KV101"
