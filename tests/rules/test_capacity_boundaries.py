"""Capacity rules at the boundaries of their own branches (issue O item 9, helper MU3): which fix KV104 offers,
the length KV106 compares with, and KV108's load and grouping words. Expected numbers are derived by hand from
the textbook budget of _factories (pool = 0.92 x 80 GiB - 61 GiB - 6 GiB = 6.6 GiB; tokens = pool // cell,
rounded down to 16)."""

from __future__ import annotations

from dataclasses import replace

import _factories as fx

from kvlint.registry import run_rules
from kvlint.status import CardVerdict, Sweep

GB = 10**9


def run(ctx, code):
    return list(run_rules(ctx, {code}))


def test_kv104_offers_fp8_when_the_bf16_pool_is_short_and_fp8_holds_the_context():
    """Cell: 64 layers x 8 KV heads x 2 x 128 x 2 B = 262,144 B in bf16, 131,072 in fp8. Pool 6.6 GiB =
    7,086,696,038 B: bf16 27,033 -> 27,024 tokens (below 32,768), fp8 54,066 -> 54,064 (holds it)."""
    ctx = fx.context(fx.deployment("sglang", context_length=(32768, 4)))
    [f] = run(ctx, "KV104")
    assert f.fix == "--context-length 27024"
    assert "--kv-cache-dtype fp8_e4m3 (54,064 tokens)" in f.message
    assert f.data["kv_tokens"] == 27024 and f.data["context_length"] == 32768


def test_kv104_offers_no_fp8_when_fp8_does_not_hold_the_context_either():
    """At 65,536 the fp8 pool (54,064) is short too: only the shorter context is offered."""
    ctx = fx.context(fx.deployment("sglang", context_length=(65536, 4)))
    [f] = run(ctx, "KV104")
    assert f.fix == "--context-length 27024" and "fp8" not in f.message


def test_kv106_a_written_length_of_0_falls_back_to_the_models():
    """--max-model-len 0 is not a length: the check compares with the model's 32,768."""
    dep = fx.deployment(max_model_len=(0, 4), enable_chunked_prefill=(False, 5), max_num_batched_tokens=(8192, 6))
    [f] = run(fx.context(dep, with_budget=False), "KV106")
    assert f.data["max_model_len"] == 32768 and f.fix == "--max-num-batched-tokens 32768"
    dep1 = fx.deployment(max_model_len=(1, 4), enable_chunked_prefill=(False, 5), max_num_batched_tokens=(8192, 6))
    assert run(fx.context(dep1, with_budget=False), "KV106") == []  # 1 is a length, and 8,192 covers it


def _card(gpu: str, gb: int, starts: bool, holds: bool | None, memory_class: int | None = None) -> CardVerdict:
    return CardVerdict(gpu, gb * GB, starts, holds, gb if memory_class is None else memory_class)


def _sweep_ctx(cards, *, load=None, min_load=None):
    ctx = fx.context(fx.deployment(), with_budget=False)
    sweep = Sweep(min_gpu_memory_bytes=40 * GB, min_load_memory_bytes=min_load, cards=tuple(cards))
    return replace(ctx, sweep=sweep, declared_load=load)


def test_kv108_says_when_no_card_holds_the_declared_load():
    cards = [_card("A100-80GB", 80, True, False), _card("H100-SXM-80GB", 80, True, False)]
    [f] = run(_sweep_ctx(cards, load=64), "KV108")
    assert "; no card holds the declared 64 concurrent full-length requests." in f.message
    holding = [_card("A100-80GB", 80, True, False), _card("H200-141GB", 141, True, True)]
    [g] = run(_sweep_ctx(holding, load=64, min_load=100 * 2**30), "KV108")
    assert "to hold the declared 64 concurrent full-length requests it needs 100.0 GiB per GPU (141 GB (H200-141GB))" \
        in g.message


def test_kv108_names_four_cards_per_class_and_counts_the_rest():
    names = ["A-80GB", "B-80GB", "C-80GB", "D-80GB", "E-80GB", "F-80GB"]
    [f] = run(_sweep_ctx([_card(n, 80, True, None) for n in names]), "KV108")
    assert "passes on 80 GB (A-80GB, B-80GB, C-80GB, D-80GB and 2 more)" in f.message


def test_kv108_groups_a_card_without_a_memory_class_by_the_gb_in_its_id():
    cards = [_card("Y-80GB", 80, True, None), _card("X-48GB", 48, True, None, memory_class=0)]
    [f] = run(_sweep_ctx(cards), "KV108")
    assert "passes on 48 GB (X-48GB); 80 GB (Y-80GB)" in f.message


def test_kv106_a_batched_token_budget_of_0_is_not_compared_and_1_is():
    """0 is no budget (an invalid value, not a comparison); 1 below --max-num-seqs 2 is vLLM's refusal."""
    zero = fx.deployment(max_num_batched_tokens=(0, 4), max_num_seqs=(2, 5))
    assert run(fx.context(zero, with_budget=False), "KV106") == []
    one = fx.deployment(max_num_batched_tokens=(1, 4), max_num_seqs=(2, 5))
    [f] = run(fx.context(one, with_budget=False), "KV106")
    assert f.message == "max_num_batched_tokens 1 must be >= max_num_seqs 2: vLLM refuses to start"
    assert f.fix == "--max-num-batched-tokens 2"
    two = fx.deployment(max_num_batched_tokens=(2, 4), max_num_seqs=(2, 5))
    assert run(fx.context(two, with_budget=False), "KV106") == []  # equal is enough


def test_kv105_a_local_folder_named_for_the_model_is_a_warning_with_its_condition():
    """The model's 32,768 positions against --max-model-len 65536: an error for a config kvlint read, a warning
    saying the condition when only the folder's name was matched (its config.json not read)."""
    dep = fx.deployment(max_model_len=(65536, 4))
    [read] = run(fx.context(dep, with_budget=False), "KV105")
    assert read.severity.name == "ERROR" and read.fix == "--max-model-len 32768"
    assert not read.message.split(": ", 1)[1].startswith("if ")
    local = fx.model(source="path:/models/dense-32b")
    [named] = run(fx.context(dep, local, with_budget=False), "KV105")
    assert named.severity.name == "WARNING" and named.fix == "--max-model-len 32768"
    assert "if test/dense-32b/config.json is the published one (no rope_scaling added to it), " in named.message


def _fixed_pool_ctx(overcommit: int):
    from kvlint.budget import FixedPool, VllmDetail

    dep = fx.deployment(kv_cache_memory_bytes=(8 * fx.GIB, 4))
    ctx = fx.context(dep)
    fp = FixedPool(weights_bytes=61 * fx.GIB, non_kv_bytes=6 * fx.GIB, overcommit_bytes=overcommit, estimated=True)
    detail = VllmDetail(kv_groups=1, blocks_per_request=2048, bytes_per_block=2**21, padding_layers=0, fixed_pool=fp)
    return replace(ctx, budget=replace(ctx.budget, detail=detail, kv_pool_bytes=8 * fx.GIB))


def test_kv107_a_fixed_pool_that_fills_the_card_exactly_is_not_an_overcommit():
    """Weights + pool + non-KV equal to the card (overcommit 0) allocates; one byte more does not."""
    assert run(_fixed_pool_ctx(0), "KV107") == []
    assert run(_fixed_pool_ctx(-fx.GIB), "KV107") == []
    [f] = run(_fixed_pool_ctx(1), "KV107")
    assert f.severity.name == "ERROR" and "fixes the KV pool at 8.00 GiB per rank" in f.message
