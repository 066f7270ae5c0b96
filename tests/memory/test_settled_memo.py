"""vLLM's Settled memo: a sweep's quiet budgets share what the settings, the release and the compute capability
fix (engines.vllm.memory._settled_quietly), and the reserved terms and stage costs by the card's batch defaults.
A shared value must be the one a fresh computation gives on every card: the cards below differ in compute
capability (dtype of a float32 checkpoint, MLA block size, mxfp4 backend, all-reduce fusion), in the batch tier
(>= 70 GiB, an A100's name, an H100's name on 0.8) and so in the reserved terms (the encoder cache by
max_num_batched_tokens) and the non-KV estimate."""

from __future__ import annotations

import random

import pytest

from kvlint.engines import get_engine
from kvlint.engines.vllm import memory
from kvlint.errors import KvlintError
from kvlint.memory.common import quiet_steps
from kvlint.models.resolve import from_registry
from kvlint.resolve.sweep import catalogue_cards

CASES = [
    ("codellama/CodeLlama-7b-hf", {}, None),  # float32 checkpoint: fp16 below SM 8.0, bf16 from it
    ("deepseek-ai/DeepSeek-V3", {"tensor_parallel_size": 8, "kv_cache_dtype": "fp8"}, None),  # MLA blocks by SM
    ("openai/gpt-oss-20b", {"max_model_len": 32768}, "0.10.1"),  # mxfp4 backend by SM
    ("meta-llama/Llama-3.1-8B-Instruct", {"tensor_parallel_size": 2}, "0.17.0"),  # all-reduce fusion on SM 9.0/10
    ("meta-llama/Llama-3.1-8B-Instruct", {"max_model_len": 4096}, "0.8.0"),  # batch tier by an H100's name
    ("Qwen/Qwen2.5-VL-7B-Instruct", {}, None),  # encoder cache by max_num_batched_tokens (70 GiB tier)
    ("Qwen/Qwen2.5-VL-7B-Instruct", {"pipeline_parallel_size": 2, "max_model_len": 8192}, None),  # two stages
    ("meta-llama/Llama-3.1-8B-Instruct", {"kv_cache_memory_bytes": 4 * 2**30}, None),  # a fixed pool
]


def _budgets(model: str, settings: dict, version: str | None, cards: list, fresh: bool) -> list:
    engine, spec = get_engine("vllm"), from_registry(model)
    out = []
    with quiet_steps():
        for card in cards:
            if fresh:
                memory._SETTLED.clear()
            try:
                out.append(engine.budget(spec, dict(settings), card, version=version))
            except KvlintError as exc:
                out.append(repr(exc))
    return out


@pytest.mark.parametrize(("model", "settings", "version"), CASES)
def test_a_shared_settlement_gives_each_card_its_fresh_budget(model: str, settings: dict,
                                                              version: str | None) -> None:
    cards = catalogue_cards()
    fresh = _budgets(model, settings, version, cards, fresh=True)
    order = list(range(len(cards)))
    random.Random(7).shuffle(order)  # another card settles first than in the catalogue's order
    memory._SETTLED.clear()
    shared = dict(zip(order, _budgets(model, settings, version, [cards[i] for i in order], fresh=False),
                      strict=True))
    assert [shared[i] for i in range(len(cards))] == fresh


def test_the_cards_share_settlements_and_differ_where_the_memo_keys_them() -> None:
    """The memo is used (fewer settlements than cards) and the cases above reach what it keys: cards of other
    capabilities and of other batch defaults settle or cost apart."""
    spec, cards = from_registry("Qwen/Qwen2.5-VL-7B-Instruct"), catalogue_cards()
    memory._SETTLED.clear()
    with quiet_steps():
        budgets = [get_engine("vllm").budget(spec, {}, card) for card in cards]
    settled = list(memory._SETTLED._entries.values())
    assert 1 < len(settled) < len(cards)
    assert len({b.max_num_batched_tokens for b in budgets}) > 1
    assert any(len([k for k in s.memo if k[0] == "reserved"]) > 1 for _, s in settled)


def test_sglang_rank_weights_are_the_weights_models_for_every_rank_and_placement() -> None:
    """SGLang's per-rank weights memo (keyed by the model object) gives what the weights model gives for each
    TP, PP rank, EP, dtype, quantization and placement, asked in any order."""
    from kvlint.engines.sglang import memory as sglang
    from kvlint.memory.common import model_weights
    from kvlint.models.weights import Placement

    model = from_registry("Qwen/Qwen1.5-MoE-A2.7B")
    grid = [(tp, pp, rank if pp > 1 else None, ep, dtype, quant, placement)
            for tp in (1, 2, 4) for pp in (1, 2) for rank in range(pp) for ep in (1, tp)
            for dtype in ("bfloat16", "float32") for quant in (None, "fp8")
            for placement in (None, Placement(attn_tp=max(tp // 2, 1), head_tp=tp, expert_tp=tp // ep))]
    want = [model_weights(model, tp=tp, pp=pp, pp_rank=r, ep=ep, dtype=d, quantization=q, placement=pl)
            for tp, pp, r, ep, d, q, pl in grid]
    assert len(set(want)) >= 24  # the grid's cells differ
    sglang._WEIGHTS.clear()
    order = list(range(len(grid)))
    random.Random(3).shuffle(order)
    for _ in range(2):
        for i in order:
            assert sglang.rank_weights(model, *grid[i]) == want[i], grid[i]


SGLANG_MODELS = ["meta-llama/Llama-3.1-8B-Instruct", "google/gemma-3-12b-it", "deepseek-ai/DeepSeek-V2-Lite",
                 "deepseek-ai/DeepSeek-V3.2"]
SGLANG_SETTINGS = [{}, {"tp_size": 2}, {"tp_size": 4, "kv_cache_dtype": "fp8_e4m3"}, {"pp_size": 2},
                   {"tp_size": 2, "dp_size": 2, "enable_dp_attention": True}, {"kv_cache_dtype": "mxfp8"}, {"kv_cache_dtype": "fp8_e4m3"},
                   {"disable_hybrid_swa_memory": True}]


def _sglang(model, settings: dict, card, fresh: bool):
    from kvlint.engines.sglang import memory as sglang

    if fresh:
        sglang._CELLS.clear()
        sglang._KV_PARTS.clear()
    try:
        return get_engine("sglang").budget(model, dict(settings), card)
    except KvlintError as exc:
        return repr(exc)


@pytest.mark.parametrize("name", SGLANG_MODELS)
def test_sglang_cell_sums_and_kv_parts_are_a_fresh_pass_over_the_layers(name: str) -> None:
    """SGLang's per-model sums of per-token bytes (pool cell) and per-layer K/V parts (the logged sizes): asked for
    every TP, attention DP, PP rank, KV dtype and card in turn with the memo kept, each budget is the one computed
    with the memo emptied (every float equal: the sums keep the layer order)."""
    model, cards = from_registry(name), catalogue_cards()[::4]
    fresh = [_sglang(model, s, c, True) for s in SGLANG_SETTINGS for c in cards]
    kept = [_sglang(model, s, c, False) for s in SGLANG_SETTINGS for c in cards]
    assert kept == fresh
    assert len({b.kv_bytes_per_token for b in fresh if not isinstance(b, str)}) > 2
