"""The numbers the capacity rules print, worked out by hand from the textbook budget in _factories.py (issue O
item 9: mutants in the rules' arithmetic survived because tests pinned the code and line, not the figures).

The factory's budget: requested = int(80 GiB x 0.92) = 79,027,398,246 B; pool = requested - weights 61 GiB -
non-KV 6 GiB = 7,086,696,038 B (6.60 GiB); a token costs 64 layers x 8 KV heads x (128 + 128) x 2 B =
262,144 B; tokens = pool // 262,144 // 16 x 16 = 27,024; the longest length that fits is 27,024 - 16 = 27,008.
"""

from __future__ import annotations

import _factories as fx
import pytest

from kvlint.registry import run_rules

GIB = 2**30
POOL = int(80 * GIB * 0.92) - 61 * GIB - 6 * GIB
CELL = 64 * 8 * 256 * 2
TOKENS = POOL // CELL // 16 * 16


def run(ctx, code):
    return list(run_rules(ctx, {code}))


def test_the_factory_numbers_these_tests_start_from():
    assert (POOL, CELL, TOKENS) == (7_086_696_038, 262_144, 27_024)
    b = fx.context(fx.deployment(max_model_len=(65536, 5))).budget
    assert (b.kv_pool_bytes, b.kv_bytes_per_token, b.kv_tokens) == (POOL, CELL, TOKENS)


def test_kv101_message_numbers_within_the_model_maximum():
    # 65,536 tokens x 262,144 B = 16 GiB; fp8 halves the cell: 7,086,696,038 // 131,072 // 16 x 16 = 54,064 < 65,536,
    # so fp8 is no fix; TP 2 halves weights and heads: pool 79,027,398,246 - 30.5 GiB - 6 GiB holds 303,920 tokens
    ctx = fx.context(fx.deployment(max_model_len=(65536, 5)), fx.model(max_len_vllm=131072))
    [f] = run(ctx, "KV101")
    assert f.message.startswith("max_model_len 65536 needs 16.00 GiB of KV cache per rank (num_key_value_heads 8 in "
                                "test/dense-32b config.json); the pool holds 6.60 GiB (27,024 tokens) on ")
    assert "(weights 61.0 GiB, non-KV 6.0 GiB est.)" in f.message
    assert f.message.endswith(" vLLM refuses to start. Fits: --max-model-len 27008, or -tp 2.")
    assert f.fix == "--max-model-len 27008"
    assert (f.data["needed_bytes"], f.data["pool_bytes"], f.data["fits_max_model_len"]) == (16 * GIB, POOL, 27008)


def test_kv101_offers_fp8_with_its_token_count():
    # 40,000 tokens: fp8's 54,064 tokens fit, so fp8 is offered with that count
    ctx = fx.context(fx.deployment(max_model_len=(40000, 5)), fx.model(max_len_vllm=131072))
    [f] = run(ctx, "KV101")
    assert "Fits: --max-model-len 27008, or --kv-cache-dtype fp8 (54,064 tokens), or -tp 2." in f.message
    # 40,000 rounds up to 2,500 blocks of 16: 40,000 x 262,144 B = 9.77 GiB
    assert "max_model_len 40000 needs 9.77 GiB" in f.message


@pytest.mark.parametrize("model_max, fix", [
    (32768, "--max-model-len 27008"),  # min(27,008 that fits, 32,768 the model derives)
    (16384, "--max-model-len 16384"),  # past the model maximum: the model's own length, shorter than what fits
])
def test_kv101_past_the_model_maximum_offers_only_the_shorter_length(model_max, fix):
    ctx = fx.context(fx.deployment(max_model_len=(65536, 5)), fx.model(max_len_vllm=model_max))
    [f] = run(ctx, "KV101")
    assert f" The model's own maximum is {model_max:,} tokens (KV105)." in f.message
    assert f.message.endswith(f"Fits: {fix}.") and f.fix == fix  # no fp8, no -tp: a bigger pool cannot serve it


def test_kv101_at_the_model_maximum_is_not_past_it():
    ctx = fx.context(fx.deployment(max_model_len=(65536, 5)), fx.model(max_len_vllm=65536))
    [f] = run(ctx, "KV101")
    assert "own maximum" not in f.message and f.message.endswith("Fits: --max-model-len 27008, or -tp 2.")


def test_kv101_quiet_when_exactly_the_pool_fits():
    # fits_one_request is tokens >= length in the factory: 27,024 tokens serve max_model_len 27,024
    assert run(fx.context(fx.deployment(max_model_len=(TOKENS, 5)), fx.model(max_len_vllm=131072)), "KV101") == []
    assert len(run(fx.context(fx.deployment(max_model_len=(TOKENS + 1, 5)), fx.model(max_len_vllm=131072)),
                   "KV101")) == 1


def test_kv106_without_a_budget_takes_the_model_length():
    """vLLM's verify_max_model_len (config/scheduler.py, engines.md 5): with chunked prefill off, one prompt of
    max_model_len must fit max_num_batched_tokens; unwritten, the length is the model's derived one (32,768)."""
    dep = fx.deployment(max_num_batched_tokens=(8192, 5), enable_chunked_prefill=(False, 6))
    [f] = run(fx.context(dep, fx.model(max_len_vllm=32768), with_budget=False), "KV106")
    assert f.message.startswith("max_num_batched_tokens 8192 is smaller than max_model_len 32768 with chunked "
                                "prefill off") and f.fix == "--max-num-batched-tokens 32768"
    assert run(fx.context(dep, fx.model(max_len_vllm=8192), with_budget=False), "KV106") == []


def test_kv102_names_tp_8_when_only_8_fits():
    """400 GiB of weights: tp 4 leaves 100 GiB a rank (over the 73.6 GiB requested), tp 8 50 GiB + 6 GiB non-KV."""
    dep = fx.deployment(max_model_len=(8192, 4))
    [f] = run(fx.context(dep, weights=400 * GIB), "KV102")
    assert "Fits: -tp 8." in f.message and f.data["fits_tp"] == 8


def test_kv102_names_tp_16_when_only_16_fits():
    """1,000 GiB of weights: tp 8 leaves 125 GiB a rank, tp 16 62.5 GiB + 6 GiB non-KV under 73.6 GiB."""
    [f] = run(fx.context(fx.deployment(max_model_len=(8192, 4)), weights=1000 * GIB), "KV102")
    assert "Fits: -tp 16." in f.message
