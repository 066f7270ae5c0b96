"""`kvlint.plan` reproduces the seed chapter's fleet findings (81,559 MiB H100, util 0.92, 6.0 GiB non-KV)."""

from __future__ import annotations

import json

import pytest

from kvlint.errors import KvlintError
from kvlint.models.config import spec_from_config
from kvlint.plan import plan, valid_tp, weight_choices

SEED_TOTAL = 81559 * 2**20  # the seed's H100 as nvidia-smi reports it (79.65 GiB)
SEED_NON_KV = 6 * 2**30
GIB = 2**30


@pytest.fixture(scope="module")
def spec(shared_dir):
    def load(model_id: str):
        path = shared_dir / "models" / model_id / "config.json"
        return spec_from_config(json.loads(path.read_text()), model_id, str(path))
    return load


def _plan(model, concurrency=1, **kw):
    return plan(model, context=8192, concurrency=concurrency, gpus=[("H100", None)], version="0.33.0",
                gpu_memory_bytes=SEED_TOTAL, non_kv_bytes=SEED_NON_KV, **kw)


def _pick(p, tp, pp=1, weights=None, kv="bfloat16"):
    return next(o for o in p.options if o.tp == tp and o.pp == pp and o.kv_cache_dtype == kv
                and (weights is None or o.weights.startswith(weights)))


def test_llama3_70b_single_h100(spec):
    p = _plan(spec("meta-llama/Meta-Llama-3-70B"))
    bf16 = _pick(p, 1, weights="bf16")
    assert not bf16.holds and bf16.failure.startswith("weights do not fit")
    fp8 = _pick(p, 1, weights="fp8")
    # fp8 weights leave (at most) a sliver: not one 8k request
    assert not fp8.holds and fp8.max_concurrency < 1
    assert fp8.kv_pool_bytes < 8192 * fp8.kv_bytes_per_token
    assert fp8.failure.startswith(("no KV pool", "one request does not fit"))


def test_llama3_70b_tp8_holds_1_33m_tokens(spec):
    o = _pick(_plan(spec("meta-llama/Meta-Llama-3-70B"), concurrency=162), 8, weights="bf16")
    assert o.kv_bytes_per_token == 40 * 1024  # 320 KiB / 8 ranks
    assert o.kv_tokens == pytest.approx(1.33e6, rel=0.005)
    assert int(o.max_concurrency) == 162 and o.holds
    assert _pick(_plan(spec("meta-llama/Meta-Llama-3-70B"), concurrency=163), 8, weights="bf16").failure == \
        "concurrency short by 1"


def test_qwen3_32b_fp8_weights_buy_concurrency(spec):
    p = _plan(spec("Qwen/Qwen3-32B"))
    bf16 = _pick(p, 1, weights="bf16")
    fp8 = _pick(p, 1, weights="fp8")
    assert bf16.kv_bytes_per_token == 256 * 1024
    assert bf16.kv_tokens == pytest.approx(25_600, rel=0.01) and int(bf16.max_concurrency) == 3
    assert int(fp8.max_concurrency) in (17, 18)  # 18 all-fp8, 17 where embeddings stay bf16


def test_deepseek_v3_16_gpus(spec):
    o = _pick(_plan(spec("deepseek-ai/DeepSeek-V3"), concurrency=40), 16)
    assert o.kv_bytes_per_token == 70_272  # 68.6 KiB, the latent is not divided by TP
    assert o.max_concurrency == pytest.approx(52, rel=0.10) and o.holds
    assert valid_tp(spec("deepseek-ai/DeepSeek-V3"), 16) is None


def test_ranking_fewest_gpus_first_then_headroom(spec):
    p = _plan(spec("meta-llama/Meta-Llama-3-8B"), concurrency=40, max_gpus=4)
    holding = p.holding
    assert holding and all(o.holds for o in p.options[: len(holding)])
    keys = [(o.gpus, -o.headroom) for o in holding]
    assert keys == sorted(keys)
    assert holding[0].gpus == 1
    assert all(o.gpus <= 4 for o in p.options)


def test_tp_validity(spec):
    llama = spec("meta-llama/Meta-Llama-3-8B")  # 32 heads, 8 KV heads
    assert valid_tp(llama, 8) is None and valid_tp(llama, 16) is None  # 16 replicates KV heads
    assert "does not divide" in valid_tp(llama, 3)
    p = _plan(llama, max_gpus=16)
    assert {o.tp for o in p.options} <= {1, 2, 4, 8, 16}


def test_weight_choices_follow_the_checkpoint(spec):
    assert [w for w, _ in weight_choices(spec("Qwen/Qwen3-32B"))] == ["bf16", "fp8 (online)"]
    fp8_ckpt = weight_choices(spec("Qwen/Qwen3-32B-FP8"))
    assert len(fp8_ckpt) == 1 and "checkpoint" in fp8_ckpt[0][0]


def test_bad_targets_raise_one_line_errors(spec):
    with pytest.raises(KvlintError, match="positive"):
        plan(spec("Qwen/Qwen3-32B"), context=0, concurrency=1, gpus=[("H100", None)])
    with pytest.raises(KvlintError, match="unknown engine"):
        plan(spec("Qwen/Qwen3-32B"), context=8, concurrency=1, gpus=[("H100", None)], engine="trt")


def test_calibrated_non_kv_is_used_per_gpu_and_tp(spec):
    model = spec("Qwen/Qwen3-32B")
    calls = []

    def non_kv_for(label, tp):
        calls.append((label, tp))
        return 2 * GIB if tp == 1 else None

    p = plan(model, context=8192, concurrency=1, gpus=[("H100", None)], gpu_memory_bytes=SEED_TOTAL,
             non_kv_bytes=SEED_NON_KV, max_gpus=2, non_kv_for=non_kv_for)
    one = _pick(p, 1, weights="bf16")
    two = _pick(p, 2, weights="bf16")
    assert one.non_kv_bytes == 2 * GIB and one.budget.non_kv_source == "calibrated"
    assert two.budget.non_kv_source == "user"
    assert ("H100", 1) in calls and ("H100", 2) in calls
    # 4 GiB more pool than the seed's 6.0 GiB allowance: 16,384 more tokens at 256 KiB
    assert one.kv_tokens - _pick(_plan(model), 1, weights="bf16").kv_tokens == pytest.approx(16_384, abs=16)


def test_options_are_unique(spec):
    p = _plan(spec("Qwen/Qwen3-32B-FP8"), max_gpus=2)
    keys = [(o.gpu, o.tp, o.pp, o.weights, o.kv_cache_dtype) for o in p.options]
    assert len(keys) == len(set(keys))
