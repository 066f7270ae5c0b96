"""The GPU catalogue: schema, the engines' two totals, every spelling real manifests use."""

from __future__ import annotations

import json
import re
import statistics
from importlib import resources

import pytest

from kvlint.errors import UnknownGpuError
from kvlint.gpus import Gpu, accelerator_kind, all_gpus, lookup_gpu, lookup_instance_type, parse_memory_size

GIB = 2**30
MIB = 2**20


def _data(name: str) -> dict:
    return json.loads(resources.files("kvlint.data").joinpath(name).read_text(encoding="utf-8"))


def test_catalogue_matches_its_schema() -> None:
    import jsonschema

    jsonschema.validate(_data("gpus.json"), _data("gpus.schema.json"))


def test_ids_and_aliases_are_unambiguous() -> None:
    seen: dict[str, str] = {}
    for gpu in all_gpus():
        for name in (gpu.id, gpu.name, *gpu.aliases):
            key = re.sub(r"[^a-z0-9]", "", name.lower())
            assert seen.setdefault(key, gpu.id) == gpu.id, f"{name!r} names both {seen[key]} and {gpu.id}"


@pytest.mark.parametrize(
    ("name", "gpu_id"),
    [
        pytest.param("H100", "H100-SXM-80GB", id="plain H100 is the SXM card of the seeds"),
        pytest.param("NVIDIA H100 80GB HBM3", "H100-SXM-80GB", id="nvidia-smi name"),
        pytest.param("NVIDIA-H100-80GB-HBM3", "H100-SXM-80GB", id="gpu.product label"),
        pytest.param("nvidia-h100-mega-80gb", "H100-SXM-80GB", id="GKE mega"),
        pytest.param("nvidia_h100_80gb", "H100-SXM-80GB", id="underscores"),
        pytest.param("nvidia-h200-141gb", "H200-SXM-141GB", id="GKE H200"),
        pytest.param("NVIDIA-A100-SXM4-80GB", "A100-SXM-80GB", id="A100 80GB label"),
        pytest.param("nvidia-tesla-a100", "A100-SXM-40GB", id="GKE A100 40GB"),
        pytest.param("Tesla-T4", "T4-16GB", id="T4 label"),
        pytest.param("NVIDIA-L4", "L4-24GB", id="L4 label"),
        pytest.param("NVIDIA-A10G", "A10G-24GB", id="A10G label"),
        pytest.param("a10g", "A10G-24GB", id="karpenter instance-gpu-name"),
        pytest.param("nvidia-gpu-l4", "L4-24GB", id="KubeAI profile"),
        pytest.param("amd-gpu-mi300x", "MI300X-192GB", id="KubeAI AMD profile"),
        pytest.param("nvidia-b200", "B200-180GB", id="GKE B200"),
        pytest.param("RTX 4090", "RTX-4090-24GB", id="consumer card"),
        pytest.param("nvidia.com/gpu.product=NVIDIA-L40S", "L40S-48GB", id="label with key"),
        pytest.param("NVIDIA-A30-SHARED", "A30-24GB", id="GPU feature discovery's time-sliced label"),
        pytest.param("Tesla-T4-SHARED", "T4-16GB", id="time-sliced T4"),
    ],
)
def test_lookup_spellings(name: str, gpu_id: str) -> None:
    assert lookup_gpu(name).id == gpu_id


@pytest.mark.parametrize(
    ("name", "mib"),
    [("H100", 81559), ("A100 80GB", 81920), ("H200", 143771), ("RTX 4090", 24564), ("L40S", 46068), ("RTX 3090", 24576)],
)
def test_nvidia_smi_totals(name: str, mib: int) -> None:
    gpu = lookup_gpu(name)
    assert gpu.memory_mib == mib
    assert gpu.total_bytes("sglang") == mib * MIB


@pytest.mark.parametrize(("name", "gib"), [("H100", 79.19), ("L40S", 44.42), ("RTX 3090", 23.58)])
def test_measured_torch_totals(name: str, gib: float) -> None:
    gpu = lookup_gpu(name)
    assert not gpu.torch_total_estimated
    assert round(gpu.total_bytes("vllm") / GIB, 2) == gib
    assert gpu.total_bytes("vllm") < gpu.total_bytes("sglang")


def test_h100_torch_total_is_in_the_logs(shared_dir) -> None:
    cases = json.loads((shared_dir / "logs" / "cases.json").read_text())
    logged = {c["total_gpu_memory_gib"] for c in cases if c["gpu"] == "H100-80GB" and c["total_gpu_memory_gib"]}
    assert logged == {round(lookup_gpu("H100").torch_total_bytes / GIB, 2)}


def test_l4_nvidia_smi_total_is_in_the_logs(shared_dir) -> None:
    cases = json.loads((shared_dir / "logs" / "cases.json").read_text())
    l4 = [c for c in cases if c["gpu"] == "NVIDIA L4"]
    assert l4 and l4[0]["gpu_memory"] == f"{lookup_gpu('L4').memory_mib} MiB"


def test_reservations_are_fitted_on_the_measured_pairs() -> None:
    data = _data("gpus.json")
    pairs: dict[str, list[float]] = {}
    for e in data["gpus"]:
        if "torch_total_bytes" in e:
            pairs.setdefault(e["arch"], []).append(e["memory_mib"] - e["torch_total_bytes"] / MIB)
    fitted = {arch: round(statistics.mean(v)) for arch, v in pairs.items()}
    fitted["default"] = round(statistics.median([x for v in pairs.values() for x in v]))
    assert data["torch_reservation_mib"] == fitted


def test_estimated_torch_total_uses_the_arch_reservation() -> None:
    reserve = _data("gpus.json")["torch_reservation_mib"]
    gpu = lookup_gpu("A10G")
    assert gpu.torch_total_estimated and "estimated" in gpu.torch_total_source
    assert gpu.torch_total_bytes == (gpu.memory_mib - reserve[gpu.arch]) * MIB


def test_every_gpu_has_both_totals_and_a_source() -> None:
    for gpu in all_gpus():
        assert isinstance(gpu, Gpu)
        assert 0 < gpu.torch_total_bytes <= gpu.memory_mib * MIB, gpu.id
        assert gpu.source and gpu.torch_total_source, gpu.id


@pytest.mark.parametrize(("name", "cc"), [("H100", "9.0"), ("A100", "8.0"), ("L4", "8.9"), ("A10G", "8.6"), ("T4", "7.5"), ("B200", "10.0"), ("V100", "7.0")])
def test_compute_capability(name: str, cc: str) -> None:
    assert lookup_gpu(name).compute_capability == cc


def test_vllm_batch_tier_name_check_sees_a100() -> None:
    """vLLM keys its batch defaults on "a100" in the device name; an A800 must not pass for an A100."""
    assert "a100" in lookup_gpu("A100 80GB").name.lower()
    assert "a100" not in lookup_gpu("A800").name.lower()


@pytest.mark.parametrize(
    ("name", "gpu_id", "count"),
    [
        ("p5.48xlarge", "H100-SXM-80GB", 8), ("p5en.48xlarge", "H200-SXM-141GB", 8), ("p4d.24xlarge", "A100-SXM-40GB", 8),
        ("p4de.24xlarge", "A100-SXM-80GB", 8), ("g5.8xlarge", "A10G-24GB", 1), ("g5.12xlarge", "A10G-24GB", 4),
        ("g6.24xlarge", "L4-24GB", 4), ("g6e.48xlarge", "L40S-48GB", 8), ("p3.8xlarge", "V100-SXM2-16GB", 4),
        ("a3-highgpu-8g", "H100-SXM-80GB", 8), ("a3-ultragpu-8g", "H200-SXM-141GB", 8), ("a2-highgpu-2g", "A100-SXM-40GB", 2),
        ("a2-ultragpu-4g", "A100-SXM-80GB", 4), ("g2-standard-48", "L4-24GB", 4), ("Standard_ND96isr_H100_v5", "H100-SXM-80GB", 8),
        ("Standard_NC48ads_A100_v4", "A100-PCIe-80GB", 2), ("standard_nd96isr_mi300x_v5", "MI300X-192GB", 8),
    ],
)
def test_instance_types(name: str, gpu_id: str, count: int) -> None:
    found = lookup_instance_type(name)
    assert found is not None and (found[0].id, found[1]) == (gpu_id, count)


def test_unknown_instance_type_is_none() -> None:
    assert lookup_instance_type("m5.large") is None


def test_unknown_gpu_lists_close_names() -> None:
    with pytest.raises(UnknownGpuError, match="did you mean") as err:
        lookup_gpu("H10")
    assert "H100" in str(err.value)


@pytest.mark.parametrize(("name", "kind"), [("tpu-v6e-slice", "tpu"), ("google-tpu-v5e-1x1", "tpu"), ("intel-gaudi", "gaudi"), ("cpu", "cpu")])
def test_non_gpu_accelerators_are_named(name: str, kind: str) -> None:
    assert accelerator_kind(name) == kind
    with pytest.raises(UnknownGpuError, match="not a GPU"):
        lookup_gpu(name)


def test_resource_name_is_not_a_product() -> None:
    with pytest.raises(UnknownGpuError, match="resource"):
        lookup_gpu("nvidia.com/gpu")


@pytest.mark.parametrize(
    ("name", "parent", "gb"),
    [("nvidia.com/mig-4g.71gb", "H200-SXM-141GB", 71), ("A100-SXM4-40GB-MIG-3g.20gb", "A100-SXM-40GB", 20), ("mig-1g.5gb", "A100-SXM-40GB", 5)],
)
def test_mig_profiles_resolve_to_parent_and_profile_memory(name: str, parent: str, gb: int) -> None:
    gpu = lookup_gpu(name)
    assert gpu.id.startswith(parent + "-MIG-")
    assert gpu.memory_mib == gb * 10**9 // MIB
    assert gpu.compute_capability == lookup_gpu(parent).compute_capability and gpu.torch_total_estimated


def test_mig_profile_shared_by_two_cards_is_reported() -> None:
    with pytest.raises(UnknownGpuError, match="A100-SXM-80GB, H100-SXM-80GB"):
        lookup_gpu("nvidia.com/mig-3g.40gb")


def test_total_bytes_rejects_unknown_engine() -> None:
    with pytest.raises(UnknownGpuError):
        lookup_gpu("H100").total_bytes("trtllm")


@pytest.mark.parametrize(
    ("text", "expected"),
    [("81559MiB", 81559 * MIB), ("79.19GiB", round(79.19 * GIB)), ("80GB", 80 * 10**9), ("24G", 24 * GIB), ("1024", 1024), ("512 kb", 512_000)],
)
def test_parse_memory_size(text: str, expected: int) -> None:
    assert parse_memory_size(text) == expected


def test_parse_memory_size_rejects_garbage() -> None:
    from kvlint.errors import KvlintError

    with pytest.raises(KvlintError, match="cannot read memory size"):
        parse_memory_size("eighty gigs")


# Spellings from the corpus index "gpu" column (shared/corpus/index.tsv) and FORMATS.md sections 4-5.
CORPUS_GPUS = {
    "nvidia-l4": "L4-24GB", "nvidia-h100-80gb": "H100-SXM-80GB", "nvidia-a100-80gb": "A100-SXM-80GB",
    "nvidia-tesla-a100": "A100-SXM-40GB", "nvidia-gpu-h100": "H100-SXM-80GB", "nvidia-gpu-l4": "L4-24GB",
    "amd-gpu-mi300x": "MI300X-192GB", "Tesla-V100": "V100-SXM2-16GB", "H100": "H100-SXM-80GB", "H200": "H200-SXM-141GB",
    "A100-80GB": "A100-SXM-80GB", "A6000": "RTX-A6000-48GB", "a10": "A10-24GB", "t4": "T4-16GB", "L4": "L4-24GB",
    "H100-SXM": "H100-SXM-80GB", "ADA_80_PRO": "H100-PCIe-80GB", "AMPERE_80": "A100-PCIe-80GB",
    "nvidia.com/mig-4g.71gb": "H200-SXM-141GB-MIG-4g.71gb",
}
CORPUS_INSTANCES = {"g5.8xlarge": 1, "g6.24xlarge": 4, "Standard_NC48ads_A100_v4": 2, "Standard_NC24ads_A100_v4": 1}
CORPUS_NON_GPU = ["google-tpu-v5e-1x1", "tpu-v6e-slice", "tpu-v5-lite-podslice", "intel-gaudi", "cpu"]


def test_corpus_spellings_are_listed_in_the_index(shared_dir) -> None:
    corpus = shared_dir / "corpus"
    column = " ".join(line.split("\t")[6] for line in (corpus / "index.tsv").read_text().splitlines()[1:])
    text = (column + (corpus / "FORMATS.md").read_text()).lower()
    for name in [*CORPUS_GPUS, *CORPUS_INSTANCES, *CORPUS_NON_GPU]:
        assert name.lower() in text, name


@pytest.mark.parametrize(("name", "gpu_id"), sorted(CORPUS_GPUS.items()))
def test_corpus_gpu_spellings_resolve(name: str, gpu_id: str) -> None:
    assert lookup_gpu(name).id == gpu_id


@pytest.mark.parametrize(("name", "count"), sorted(CORPUS_INSTANCES.items()))
def test_corpus_instance_types_resolve(name: str, count: int) -> None:
    found = lookup_instance_type(name)
    assert found is not None and found[1] == count


@pytest.mark.parametrize("name", CORPUS_NON_GPU)
def test_corpus_non_gpus_are_recognised(name: str) -> None:
    assert accelerator_kind(name) is not None


@pytest.mark.parametrize(("name", "gpu_id"), [("g6e.12xlarge", "L40S-48GB"), ("p5.48xlarge", "H100-SXM-80GB"), ("a2-ultragpu-1g", "A100-SXM-80GB")])
def test_lookup_gpu_accepts_instance_types(name: str, gpu_id: str) -> None:
    assert lookup_gpu(name).id == gpu_id


def test_instance_types_point_at_catalogue_cards() -> None:
    ids = {g.id for g in all_gpus()}
    for name, entry in _data("gpus.json")["instance_types"].items():
        assert entry["gpu"] in ids, name


def test_mig_profile_parents_are_catalogue_cards_with_room_for_the_slice() -> None:
    for gpu_id, profiles in _data("gpus.json")["mig_profiles"].items():
        parent = lookup_gpu(gpu_id)
        for profile in profiles:
            gb = int(profile.split(".")[1][:-2])
            assert gb <= parent.marketing_gb, (gpu_id, profile)


@pytest.mark.parametrize(
    ("text", "gpu_id", "count"),
    [("H100:8", "H100-SXM-80GB", 8), ("nvidia-gpu-h100:8", "H100-SXM-80GB", 8), ("amd-gpu-mi300x:8", "MI300X-192GB", 8),
     ("gpu:A6000:1", "RTX-A6000-48GB", 1), ("A100-80GB:8", "A100-SXM-80GB", 8), ("L4", "L4-24GB", None),
     ("g6.24xlarge", "L4-24GB", 4)],
)
def test_lookup_accelerator_name_and_count(text: str, gpu_id: str, count: int | None) -> None:
    from kvlint.gpus import lookup_accelerator

    gpu, n = lookup_accelerator(text)
    assert (gpu.id, n) == (gpu_id, count)


@pytest.mark.parametrize("text", ["gpu:8", "google-tpu-v5e-1x1:1", "cpu:1"])
def test_lookup_accelerator_without_a_gpu_product(text: str) -> None:
    from kvlint.gpus import lookup_accelerator

    with pytest.raises(UnknownGpuError):
        lookup_accelerator(text)


def test_every_instance_family_agrees_with_its_listed_types() -> None:
    """gpus.json `instance_families`: a family names the card of every listed type of it (g5.* are A10G), each
    family's card is in the catalogue, and an instance type the table lacks resolves by its family."""
    from kvlint.gpus import _data, lookup_instance_family

    data = _data()
    ids = {g.id for g in all_gpus()}
    assert set(data["instance_families"].values()) <= ids
    for name, entry in data["instance_types"].items():
        family = lookup_instance_family(name)
        if family is not None:
            assert family.id == entry["gpu"], name
    assert lookup_gpu("g5.*").id == "A10G-24GB" and lookup_gpu("g6e.96xlarge").id == "L40S-48GB"
    assert lookup_gpu("g5.xlarge|g5.2xlarge").id == "A10G-24GB"
    assert lookup_instance_family("a3") is None  # GKE's a3 family is H100 or H200
    with pytest.raises(UnknownGpuError, match="several cards"):
        lookup_gpu("g5.xlarge|p5.48xlarge")


@pytest.mark.parametrize("name", ["nvidia-gtx-2080ti", "RTX 2080 Ti", "NVIDIA GeForce RTX 2080 Ti", "2080ti"])
def test_the_rtx_2080_ti_by_its_names_and_a_gtx_slip_of_the_brand(name: str) -> None:
    gpu = lookup_gpu(name)
    assert (gpu.id, gpu.memory_mib, gpu.compute_capability) == ("RTX-2080-Ti-11GB", 11264, "7.5")


@pytest.mark.parametrize("name", ["nvidia-gtx-1080ti", "nvidia-tesla-m40"])
def test_a_card_of_another_family_is_offered_no_catalogue_name(name: str) -> None:
    """`gtx1080ti` is not a slip of `gb200` nor `m40` of `l40`'s or `p40`'s family... the letters before the model number
    must agree for a did-you-mean (sample K2's `nvidia-gtx-2080ti` was offered nvidia-gb200)."""
    with pytest.raises(UnknownGpuError) as err:
        lookup_gpu(name)
    assert "did you mean" not in str(err.value)


@pytest.mark.parametrize(
    ("names", "gpu_id", "mib", "cc"),
    [
        (("RTX 3080", "NVIDIA-GeForce-RTX-3080"), "RTX-3080-10GB", 10240, "8.6"),
        (("RTX 3080 Ti", "NVIDIA GeForce RTX 3080 Ti"), "RTX-3080-Ti-12GB", 12288, "8.6"),
        (("RTX 4070 Ti", "NVIDIA-GeForce-RTX-4070-Ti"), "RTX-4070-Ti-12GB", 12282, "8.9"),
        (("RTX 4090 D", "NVIDIA GeForce RTX 4090 D"), "RTX-4090-D-24GB", 24564, "8.9"),
        (("RTX A4000", "NVIDIA-RTX-A4000"), "RTX-A4000-16GB", 16376, "8.6"),
        (("A5000", "NVIDIA RTX A5000"), "RTX-A5000-24GB", 24564, "8.6"),
        (("RTX 4000 Ada", "NVIDIA-RTX-4000-Ada-Generation"), "RTX-4000-Ada-20GB", 20475, "8.9"),
        (("A2", "NVIDIA-A2"), "A2-16GB", 15356, "8.6"),
        (("L20", "nvidia.com/gpu.product=NVIDIA-L20"), "L20-48GB", 46068, "8.9"),
        (("Tesla P100-PCIE-16GB", "nvidia-tesla-p100"), "P100-PCIe-16GB", 16384, "6.0"),
        (("Tesla P40", "nvidia-tesla-p40"), "P40-24GB", 23040, "6.1"),
        (("RTX PRO 6000", "NVIDIA-RTX-PRO-6000-Blackwell-Server-Edition"), "RTX-PRO-6000-Blackwell-96GB", 97887, "12.0"),
        (("W7900", "AMD Radeon PRO W7900"), "Radeon-PRO-W7900-48GB", 49136, "gfx1100"),
        (("RX 7900 XTX", "AMD Radeon RX 7900 XTX"), "RX-7900-XTX-24GB", 24560, "gfx1100"),
    ],
)
def test_cards_real_deployments_name_resolve_with_their_totals(names: tuple[str, str], gpu_id: str, mib: int,
                                                              cc: str) -> None:
    """Cards deployment repositories name (workstation, older datacenter and consumer boards): each by two of its
    spellings, with the nvidia-smi / rocm-smi total its memory_source cites (the torch total estimated from it)."""
    for name in names:
        gpu = lookup_gpu(name)
        assert (gpu.id, gpu.memory_mib, gpu.compute_capability) == (gpu_id, mib, cc), name
        assert gpu.total_bytes("sglang") == mib * MIB and gpu.torch_total_estimated


def test_a_name_with_no_model_number_is_no_typo_of_a_card() -> None:
    """Sample K526 (two KV003 warnings, noise): KubeAI's own resource profile `doks-nvidia` was offered `nvidia-l4`
    as a typo fix; a name with no number slips no card with one, so no name is offered (an info, not a warning)."""
    with pytest.raises(UnknownGpuError) as err:
        lookup_gpu("doks-nvidia")
    assert "did you mean" not in str(err.value)
