"""carry_length_doubt's default is the sibling stand-in, not the fine-tune (issue O item 9, helper MU3)."""

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
