"""A card named without its memory is an open input (issue 23): every memory size the catalogue has for it."""

from kvlint.gpus import lookup_gpu
from kvlint.resolve.lookups import memory_variants


def _ids(name: str) -> list[str]:
    return [g.id for g in memory_variants(name, lookup_gpu(name))]


def test_a_name_without_memory_opens_every_size():
    assert sorted(_ids("A100")) == ["A100-SXM-40GB", "A100-SXM-80GB"]
    assert len(_ids("Tesla-V100")) == 2  # a node-affinity value (aibrix's V100 sample): 16 or 32 GB


def test_a_name_that_says_its_memory_or_a_gke_label_is_one_card():
    assert _ids("A100-80GB") == [] and _ids("A100-40G") == []
    assert _ids("nvidia-tesla-v100") == []  # GKE's label: one size
