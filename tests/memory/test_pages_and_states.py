"""Page unification and linear-attention state sizes off the bundled configs (issue O item 9).

unify_pages (engines.md 1.4 step 6): every page becomes the largest; an attention page that divides it scales its
block size, one that does not, and a Mamba state (whose page is its state, not a block of tokens), is padded.
The gated-delta-net state (SGLang's _linear_state_bytes): conv (2 x key heads x key dim + value heads x value dim)
/ TP x (kernel - 1) at the model dtype, recurrent value heads / TP x key dim x value dim at mamba_ssm_dtype
(float32 unless config.json says)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from kvlint.engines.vllm.planning import unify_pages
from kvlint.engines.vllm.specs import KVSpec
from kvlint.memory.reservations import sglang_mamba_pool
from kvlint.models.resolve import from_registry
from kvlint.models.spec import FULL, MAMBA


def test_a_page_that_divides_the_largest_scales_its_block():
    small, big = KVSpec(FULL, 16, 2, 256), KVSpec(FULL, 16, 4, 256)  # pages 8,192 and 16,384
    out = unify_pages({(0, 0): small, (1, 0): big})
    assert (out[(0, 0)].block_size, out[(0, 0)].page, out[(0, 0)].page_padded) == (32, 16384, None)
    assert out[(1, 0)] == big


def test_a_page_that_does_not_divide_the_largest_is_padded():
    small, big = KVSpec(FULL, 16, 2, 256), KVSpec(FULL, 16, 3, 256)  # pages 8,192 and 12,288
    out = unify_pages({(0, 0): small, (1, 0): big})
    assert (out[(0, 0)].block_size, out[(0, 0)].page, out[(0, 0)].page_padded) == (16, 12288, 12288)


def test_a_mamba_state_is_padded_even_when_it_divides_the_page():
    attn, state = KVSpec(FULL, 16, 2, 256), KVSpec(MAMBA, 16, state_bytes=4096)  # 8,192 and 4,096
    out = unify_pages({(0, 0): attn, (1, 0): state})
    assert (out[(1, 0)].block_size, out[(1, 0)].page) == (16, 8192)


QWEN3_NEXT = "Qwen/Qwen3-Next-80B-A3B-Thinking"  # 16 key heads, 32 value heads, dims 128, conv kernel 4


@pytest.mark.parametrize("ssm, ssm_bytes", [(None, 4), ("float32", 4), ("bfloat16", 2), ("float16", 2)])
@pytest.mark.parametrize("tp", [1, 2])
def test_gated_delta_net_state_per_request(ssm, ssm_bytes, tp):
    model = from_registry(QWEN3_NEXT)
    if ssm is not None:
        model = replace(model, raw={**model.raw, "mamba_ssm_dtype": ssm})
    pool = sglang_mamba_pool(model, {"max_mamba_cache_size": 10}, tp, 1, 10**12, 2, 36)
    conv = (2 * 16 * 128 + 32 * 128) // tp * 3 * 2
    recurrent = 32 // tp * 128 * 128 * ssm_bytes
    assert pool.per_request == 36 * (conv + recurrent)
    assert (pool.slots, pool.pool_bytes) == (10, 11 * pool.per_request)


def _groups(full: int, sliding: int):
    from kvlint.engines.vllm.planning import kv_groups
    from kvlint.models.spec import SLIDING

    f, s = KVSpec(FULL, 16, 2, 256), KVSpec(SLIDING, 16, 2, 256, window=128)
    specs = {(i, 0): f for i in range(full)}
    specs.update({(full + i, 0): s for i in range(sliding)})
    return kv_groups(specs, hybrid_manager=True)


@pytest.mark.parametrize("full, sliding, sizes", [
    (4, 5, [4, 5]),  # 5 < 1.5 x 4: the largest bucket sets the group size, one group per kind
    (2, 3, [2, 2, 1]),  # 3 is not < 1.5 x 2: the smallest (2) does; the sliding bucket splits into two groups
    (20, 29, [20, 29]),  # 29 < 30
    (20, 30, [20, 15, 15]),  # 30 is not < 30: groups of 20; cdiv(30, 20) = 2 groups, members taken [i::2]
    (2, 4, [2, 2, 2]),
])
def test_group_size_at_vllms_one_and_a_half_rule(full, sliding, sizes):
    """kv_cache_utils: the largest bucket's layer count when it is below 1.5 x the smallest's, else the smallest."""
    assert [len(g.layers) for g in _groups(full, sliding)] == sizes


@pytest.mark.parametrize(("model_id", "version", "tp", "state"), [
    # vLLM 0.11 (no NemotronHForCausalLMConfig hook): the SSM state at the model dtype, bf16, even where config.json
    # names float32; the 0.11 wheel's model class gives these (bench/conformance/check_vllm.py mamba_state_check)
    ("nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16", "0.11.0", 1, 1_085_440),
    ("nvidia/Nemotron-H-56B-Base-8K", "0.11.0", 1, 8_511_488),
    ("nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16", "0.12.0", 1, 1_085_440),
    # 0.13-0.19: the config's mamba_ssm_cache_dtype (float32), else float16 (the hook's default in those wheels)
    ("nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16", "0.13.0", 1, 2_134_016),
    ("nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16", "0.14.0", 1, 2_134_016),
    ("nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16", "0.15.0", 1, 2_134_016),
    ("nvidia/Nemotron-H-56B-Base-8K", "0.19.0", 1, 8_511_488),
    # 0.20+: float32 when the config names none (DEFAULT_MAMBA_SSM_CACHE_DTYPE; the 0.33 wheel gives 16,900,096)
    ("nvidia/Nemotron-H-56B-Base-8K", "0.20.0", 1, 16_900_096),
    ("nvidia/Nemotron-H-56B-Base-8K", "0.33.0", 2, 8_450_048),
    ("nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16", "0.33.0", 1, 2_134_016),
])
def test_nemotron_h_ssm_state_dtype_follows_the_release(model_id, version, tp, state):
    from kvlint.engines.vllm.specs import layer_specs, resolve_kv_dtype
    from kvlint.memory.versions import vllm_version

    spec = from_registry(model_id)
    assert spec is not None
    ssm = vllm_version(version).record.nemotron_h_ssm_dtype
    specs = layer_specs(spec, tp=tp, dcp=1, block_size=16, dtype=resolve_kv_dtype("auto", spec, spec.dtype),
                        ssm_dtype=ssm)
    assert {s.state_bytes for s in specs.values() if s.kind == MAMBA} == {state}
