"""Model-reading boundaries the pinned tables do not isolate (issue O item 9, helper MU3): the stand-in's default
wording, a KV head count of 0, remote store references with a backslash."""

from __future__ import annotations

from kvlint.models.derive import carry_length_doubt
from kvlint.models.resolve import from_registry


def test_a_stand_in_is_a_sibling_unless_said_to_be_a_fine_tune():
    """Qwen2.5 Instruct relatives derive 32,768 or 131,072: the doubt is carried, in the sibling's words by default
    (the -Instruct is not bundled, its base stands in), and in the fine-tune's when asked."""
    base = from_registry("Qwen/Qwen2.5-0.5B")
    sibling = carry_length_doubt(base, "Qwen/Qwen2.5-0.5B-Instruct", "Qwen/Qwen2.5-0.5B")
    assert sibling.length_unknown is not None
    assert sibling.length_unknown.startswith("Qwen/Qwen2.5-0.5B-Instruct is not bundled and Qwen/Qwen2.5-0.5B stands "
                                             "in for it; ")
    tune = carry_length_doubt(base, "lab/Qwen2.5-0.5B-sft", "Qwen/Qwen2.5-0.5B", fine_tune=True)
    assert tune.length_unknown is not None
    assert tune.length_unknown.startswith("lab/Qwen2.5-0.5B-sft is named after Qwen/Qwen2.5-0.5B, which stands in")


def test_a_kv_head_count_of_0_is_not_a_count():
    """A key holding 0 is skipped for the next key, then the attention heads (a pool sized on 0 heads is none)."""
    from kvlint.models.heads import num_kv_heads

    assert num_kv_heads({"num_key_value_heads": 0}, 32) == 32
    assert num_kv_heads({"num_kv_heads": 0, "num_key_value_heads": 8}, 32) == 8
    assert num_kv_heads({"num_key_value_heads": 1}, 32) == 1


def test_a_remote_store_reference_is_never_a_local_path_whatever_its_separators():
    from kvlint.models.resolve import REMOTE_SCHEMES, _is_local_path

    for scheme in REMOTE_SCHEMES:
        for ref in (f"{scheme}bucket/Qwen3-8B", f"{scheme}bucket\\Qwen3-8B", f"{scheme.upper()}b\\m"):
            assert _is_local_path(ref) is False, ref
    assert _is_local_path("C:\\models\\Qwen3-8B") is True  # a backslash outside a URL is a path


def test_fp8_block_scales_on_a_block_that_is_not_square():
    """One fp32 scale (4 B) per block of weight_block_size [rows, cols]: [128, 64] is 4 / 8,192 B per weight."""
    from types import SimpleNamespace

    from kvlint.models.weights import _fp8_scale_bytes

    assert _fp8_scale_bytes(SimpleNamespace(raw={"weight_block_size": [128, 64]}, method="fp8"), 4096) == 4 / 8192
    assert _fp8_scale_bytes(SimpleNamespace(raw={"weight_block_size": [64, 128]}, method="fp8"), 4096) == 4 / 8192
    assert _fp8_scale_bytes(SimpleNamespace(raw={"weight_block_size": [128, 128]}, method="fp8"), 4096) == 4 / 16384

