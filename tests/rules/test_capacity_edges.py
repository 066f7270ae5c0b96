"""Capacity rules at edges the bundled configs do not reach (issue O item 9): a what-if that leaves exactly no
pool, a pipeline whose first failing stage prints a length while no length fits every stage."""

from __future__ import annotations

from dataclasses import replace

import _factories as fx

from kvlint.budget import VllmDetail
from kvlint.registry import run_rules

GIB = 2**30


def run(ctx, code):
    return list(run_rules(ctx, {code}))


def _sglang_out_of_domain(pools: dict[float, int]):
    """SGLang derived a fraction below 0 from --chunked-prefill-size; each --mem-fraction-static what-if leaves
    `pools[share]` bytes of pool."""
    dep = fx.deployment("sglang", chunked_prefill_size=(131072, 3), context_length=(8192, 4))
    ctx = fx.context(dep)
    base = replace(ctx.budget, engine_version="0.5.23", mem_fraction_static=-1.454, kv_pool_bytes=-GIB, kv_tokens=0,
                   fits_one_request=False)

    def what_if(changes):
        if "mem_fraction_static" in changes:
            return replace(base, mem_fraction_static=changes["mem_fraction_static"],
                           kv_pool_bytes=pools[changes["mem_fraction_static"]])
        return base

    return replace(ctx, budget=base, what_if=what_if)


def test_kv102_a_share_that_leaves_exactly_no_pool_is_not_the_fix():
    [f] = run(_sglang_out_of_domain({0.85: 0, 0.8: GIB, 0.9: GIB}), "KV102")
    assert f.fix == "--mem-fraction-static 0.8"
    assert ("SGLang 0.5.23 derives mem_fraction_static -1.454 on H100-SXM-80GB from --chunked-prefill-size 131072: "
            "a fraction at or below 0") in f.message
    assert f.message.endswith("Set --mem-fraction-static 0.8 or lower --chunked-prefill-size.")


def test_kv102_the_first_share_that_leaves_a_pool_is_the_fix():
    [f] = run(_sglang_out_of_domain({0.85: 1, 0.8: GIB, 0.9: GIB}), "KV102")
    assert f.fix == "--mem-fraction-static 0.85"
    [g] = run(_sglang_out_of_domain({0.85: 0, 0.8: 0, 0.9: 0}), "KV102")
    assert g.fix == "--mem-fraction-static (a fraction in (0, 1))"


def test_kv101_when_no_length_fits_every_stage_the_printed_length_is_still_quoted():
    """vLLM's first failing stage prints 5,000 tokens; a later stage holds not one (estimated length 0)."""
    ctx = fx.context(fx.deployment(max_model_len=(65536, 5)), fx.model(max_len_vllm=131072))
    b = replace(ctx.budget, estimated_max_model_len=0,
                detail=VllmDetail(kv_groups=1, blocks_per_request=4096, bytes_per_block=16 * fx.GIB // 4096,
                                  padding_layers=0, engine_estimated_len=5000))
    [f] = run(replace(ctx, budget=b), "KV101")
    assert ('vLLM refuses to start (its message: "the estimated maximum model length is 5000"; that is the first '
            'pipeline stage that fails: no length fits every stage).') in f.message
    assert "--max-model-len" not in f.message.split("Fits:")[-1]
    assert f.data["engine_estimated_max_model_len"] == 5000 and f.data["fits_max_model_len"] == 0


def test_kv101_a_printed_length_equal_to_the_fitting_one_is_not_repeated():
    ctx = fx.context(fx.deployment(max_model_len=(65536, 5)), fx.model(max_len_vllm=131072))
    length = ctx.budget.estimated_max_model_len
    b = replace(ctx.budget, detail=VllmDetail(kv_groups=1, blocks_per_request=4096, bytes_per_block=4 * 2**20,
                                               padding_layers=0, engine_estimated_len=length))
    [f] = run(replace(ctx, budget=b), "KV101")
    assert "its message" not in f.message and f" vLLM refuses to start. Fits: --max-model-len {length}" in f.message
