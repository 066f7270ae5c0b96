"""Ray's accelerator_type names (ray.util.accelerators: NVIDIA_A100_40G = "A100-40G", NVIDIA_A100_80G = "A100-80G")
are the names a Ray Serve LLMConfig uses; KV003's "did you mean A100-40GB" on them would break Ray's scheduling."""

from kvlint.gpus import lookup_gpu


def test_rays_a100_names_are_catalogue_cards():
    assert lookup_gpu("A100-40G").id == "A100-SXM-40GB"
    assert lookup_gpu("A100-80G").id == "A100-SXM-80GB"
