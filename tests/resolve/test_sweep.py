"""The catalogue sweep: the least per-GPU memory is vLLM's own start-up check solved by hand, and the cards'
verdicts agree with it."""

from __future__ import annotations

import math

from kvlint.config import Config
from kvlint.deployment import Deployment, Setting
from kvlint.gpus import all_gpus, lookup_gpu
from kvlint.resolve import Resolver
from kvlint.sizes import MIB


def _resolved(model: str, length: int, **extra: int):
    settings = {"max_model_len": Setting("max_model_len", length), **{k: Setting(k, v) for k, v in extra.items()}}
    dep = Deployment(path="serve.sh", engine="vllm", launch_span=None, model=model, settings=settings)
    resolver = Resolver()
    return resolver, resolver.resolve(dep, Config())


def test_least_memory_for_qwen3_32b_at_32k_is_vllms_check_solved_by_hand():
    resolver, r = _resolved("Qwen/Qwen3-32B", 32768)
    sweep = r.sweep
    assert r.budget is None and sweep is not None and r.status().gpu_source == "catalogue"
    # The figure is found on the traits of the card just above the largest failing one, between the two.
    last_fail = max(i for i, v in enumerate(sweep.cards) if not v.starts)
    floor = sweep.cards[last_fail].memory_bytes // MIB + 1
    ref = lookup_gpu(sweep.cards[last_fail + 1].gpu)
    b = resolver.on_card(r, ref)
    per_block, per_request = b.detail.bytes_per_block, b.detail.blocks_per_request
    # vLLM 0.33 starts when ceil(total x 0.92) - weights - non-KV - one null block >= one request's blocks
    need = b.weights_bytes + b.non_kv_bytes + (per_request + 1) * per_block
    mib = math.ceil(need / 0.92 / MIB)
    while math.ceil((mib - 1) * MIB * 0.92) >= need:
        mib -= 1
    while math.ceil(mib * MIB * 0.92) < need:
        mib += 1
    assert sweep.min_gpu_memory_bytes == max(mib, floor) * MIB
    # every card from the figure up starts it; every card that fails is below it; the only cards below it that
    # start it are those vLLM gives smaller batch defaults (A100s: "a100" in the device name)
    for v in sweep.cards:
        if v.memory_bytes >= sweep.min_gpu_memory_bytes:
            assert v.starts, v
        elif v.starts:
            assert "A100" in v.gpu, v
    assert set(sweep.failing) >= {"H100-SXM-80GB", "L40S-48GB"} and "B200-180GB" in sweep.passing


def test_every_catalogue_card_is_tried_once():
    _, r = _resolved("Qwen/Qwen3-8B", 8192)
    tried = [v.gpu for v in r.sweep.cards]
    pascal = {"P100-PCIe-16GB", "P40-24GB"}
    assert sorted(tried) == sorted(g.id for g in all_gpus() if not g.mig_profile and g.id not in pascal)


def test_a_pascal_board_resolves_by_name_but_no_sweep_offers_it():
    """The P40 and P100 are named by real manifests, so they are catalogued; neither engine's build runs on compute
    capability 6.x, so a sweep never lists one (the P40's 23,040 MiB would start an 8B model the L4 starts)."""
    assert lookup_gpu("Tesla P40").compute_capability == "6.1"
    _, r = _resolved("Qwen/Qwen3-8B", 8192)
    tried = {v.gpu for v in r.sweep.cards}
    assert "L4-24GB" in r.sweep.passing and not tried & {"P40-24GB", "P100-PCIe-16GB"}


def test_no_card_starts_405b_bf16_at_tp_1_and_the_figure_is_above_the_largest_card():
    _, r = _resolved("meta-llama/Llama-3.1-405B-Instruct", 8192)
    assert r.sweep.passing == () and r.sweep.min_gpu_memory_bytes > max(v.memory_bytes for v in r.sweep.cards)


def test_declared_concurrency_needs_more_memory_than_starting():
    _, r = _resolved("Qwen/Qwen3-8B", 32768, max_num_seqs=64)
    s = r.sweep
    assert s.min_load_memory_bytes > s.min_gpu_memory_bytes
    assert all(v.holds_load is not None for v in s.cards)
    assert all(v.starts for v in s.cards if v.holds_load)


def test_with_the_batch_pinned_the_figure_is_the_check_solved_by_hand_inside_the_gap():
    """Same batch on every card (so no card's defaults differ): the figure lies strictly between the largest
    card that fails and the smallest that starts, where vLLM's own inequality puts it."""
    resolver, r = _resolved("Qwen/Qwen3-32B", 32768, max_num_seqs=64, max_num_batched_tokens=4096)
    sweep = r.sweep
    last_fail = max(i for i, v in enumerate(sweep.cards) if not v.starts)
    below, above = sweep.cards[last_fail], sweep.cards[last_fail + 1]
    b = resolver.on_card(r, lookup_gpu(above.gpu))
    need = b.weights_bytes + b.non_kv_bytes + (b.detail.blocks_per_request + 1) * b.detail.bytes_per_block
    mib = math.ceil(need / 0.92 / MIB)
    while math.ceil((mib - 1) * MIB * 0.92) >= need:
        mib -= 1
    while math.ceil(mib * MIB * 0.92) < need:
        mib += 1
    assert below.memory_bytes < mib * MIB < above.memory_bytes  # a real gap, not a card's edge
    assert sweep.min_gpu_memory_bytes == mib * MIB
    assert all(v.starts == (v.memory_bytes >= sweep.min_gpu_memory_bytes) for v in sweep.cards)


def test_a_sweep_is_kept_whole_not_card_by_card():
    """Memory flat over a large run: a sweep's ~50 budgets are not each kept beside the sweep itself."""
    resolver, r = _resolved("Qwen/Qwen3-32B", 32768)
    assert r.sweep is not None and len(resolver.budgets.sweeps) == 1
    assert len(resolver.budgets.outcomes) <= 2  # the launch's own (unsized) and the picture's smallest card
    again = resolver.resolve(Deployment(path="other.sh", engine="vllm", launch_span=None, model="Qwen/Qwen3-32B",
                                        settings={"max_model_len": Setting("max_model_len", 32768)}), Config())
    assert again.sweep is r.sweep  # the second launch is one lookup


def test_budget_cache_is_bounded():
    from kvlint.resolve import ResolveOptions

    resolver = Resolver(ResolveOptions(gpu="H100-SXM-80GB"))
    resolver.budgets.bound = 2
    for length in (1024, 2048, 4096):
        dep = Deployment(path="serve.sh", engine="vllm", launch_span=None, model="Qwen/Qwen3-8B",
                         settings={"max_model_len": Setting("max_model_len", length)})
        assert resolver.resolve(dep, Config()).budget is not None
    assert len(resolver.budgets.outcomes) == 1  # cleared when full, then the third kept


def test_cards_equal_in_what_the_model_reads_share_one_budget(monkeypatch):
    """Two V100 16 GB cards (SXM2, PCIe) are one set of facts to vLLM's model: one budget for both, and the same
    verdicts as sizing each on its own. An H100 and an H800 of the same memory differ in the name's batch tier."""
    from kvlint.engines import get_engine
    from kvlint.resolve import sizing

    vllm = get_engine("vllm")
    sxm, pcie = lookup_gpu("V100-SXM2-16GB"), lookup_gpu("V100-PCIe-16GB")
    assert vllm.card_reads(sxm) == vllm.card_reads(pcie)
    assert vllm.card_reads(lookup_gpu("H100-PCIe-80GB")) != vllm.card_reads(lookup_gpu("H800-SXM-80GB"))
    sized: list[str] = []
    compute = sizing.compute

    def counted(s, settings):
        sized.append(s.gpu.id if s.gpu is not None else "")
        return compute(s, settings)

    monkeypatch.setattr(sizing, "compute", counted)
    _, r = _resolved("Qwen/Qwen3-8B", 8192)
    assert "V100-SXM2-16GB" in sized and "V100-PCIe-16GB" not in sized
    alone = {g: Resolver().on_card(r, lookup_gpu(g)) for g in ("V100-SXM2-16GB", "V100-PCIe-16GB")}
    verdicts = {v.gpu: v.starts for v in r.sweep.cards}
    for gpu, budget in alone.items():
        assert verdicts[gpu] == (budget is not None and budget.holds_what_it_asks)
