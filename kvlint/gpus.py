"""The GPU catalogue: one card, the two totals the engines read, and every name manifests use for it.

SGLang sizes from nvidia-smi's MiB and vLLM from cudaMemGetInfo's bytes; they differ by a few hundred
MiB, which moves a pool by thousands of tokens. So each card keeps both, says where each came from,
and marks the torch total estimated when it is derived rather than measured.
"""

from __future__ import annotations

import re
from functools import lru_cache

from kvlint.data import load_json
from kvlint.errors import KvlintError, UnknownGpuError
from kvlint.lazyre import lazy
from kvlint.record import record

__all__ = ["Gpu", "all_gpus", "accelerator_kind", "hint_keys", "lookup_accelerator", "lookup_gpu",
           "lookup_instance_family", "lookup_instance_type", "parse_memory_size"]

from kvlint.sizes import MIB, parse_memory_size

_PREFIXES = ("nvidiageforce", "nvidia", "tesla", "geforce", "amdinstinct", "amd", "instinct")
_MIG = lazy(r"(?:^|[-_ /.])mig[-_ ]?(\d)g[._-]?(\d+)gb$", re.IGNORECASE)


@record
class Gpu:
    id: str
    name: str
    vendor: str
    memory_mib: int  # nvidia-smi memory.total (what SGLang reads)
    torch_total_bytes: int  # cudaMemGetInfo total (what vLLM reads); estimated when torch_total_estimated
    compute_capability: str | None
    source: str
    marketing_gb: int = 0
    arch: str = ""
    torch_total_estimated: bool = False
    torch_total_source: str = ""
    aliases: tuple[str, ...] = ()
    mig_profile: str | None = None  # "4g.71gb" for a MIG slice; memory then comes from the profile

    def total_bytes(self, engine: str) -> int:
        """The total the engine's own sizing starts from: torch bytes for vLLM, nvidia-smi MiB for SGLang."""
        view = _MEMORY_VIEW.get(engine) or _memory_view(engine)
        return self.torch_total_bytes if view == "torch" else self.memory_mib * MIB


_MEMORY_VIEW: dict[str, str] = {}  # engine -> its facts' MEMORY_VIEW (asked per card of every sweep: ~10,000 times)


def _memory_view(engine: str) -> str:
    from kvlint.engines.registered import facts

    try:
        view: str = facts(engine).MEMORY_VIEW
    except KvlintError:
        raise UnknownGpuError(f"unknown engine {engine!r}") from None
    _MEMORY_VIEW[engine] = view
    return view


def _key(name: str) -> str:
    return _NOT_KEY.sub("", name.lower())


_NOT_KEY = lazy(r"[^a-z0-9]")


def _short(key: str) -> str:
    """The key past a vendor's or brand's words (`nvidiageforcertx4090` -> `rtx4090`), and past a GeForce `gtx`
    before a four-digit model number (`nvidia-gtx-2080ti` names the RTX 2080 Ti: the brand is a writer's slip)."""
    for prefix in _PREFIXES:
        if key.startswith(prefix) and len(key) > len(prefix):
            key = key[len(prefix):]
            break
    return key[3:] if key.startswith("gtx") and key[3:7].isdigit() and len(key) > 6 else key


@lru_cache(maxsize=1)
def _data() -> dict:
    return load_json("gpus.json")


def _record(entry: dict, reservation: dict) -> Gpu:
    measured = entry.get("torch_total_bytes")
    if measured is None:
        reserve = reservation.get(entry["arch"], reservation["default"])
        torch_total = (entry["memory_mib"] - reserve) * MIB
        how = (f"estimated: nvidia-smi {entry['memory_mib']} MiB minus {reserve} MiB fitted reservation "
               f"({entry['arch']})")
    else:
        torch_total, how = measured, entry["torch_total_source"]
    return Gpu(
        id=entry["id"], name=entry["name"], vendor=entry["vendor"], memory_mib=entry["memory_mib"],
        torch_total_bytes=torch_total, compute_capability=entry["compute_capability"],
        source=entry["memory_source"], marketing_gb=entry["marketing_gb"], arch=entry["arch"],
        torch_total_estimated=measured is None, torch_total_source=how, aliases=tuple(entry["aliases"]),
    )


@lru_cache(maxsize=1)
def _catalogue() -> tuple[dict[str, Gpu], dict[str, Gpu]]:
    """(id -> Gpu, normalised name -> Gpu); the short index drops vendor words like "NVIDIA"."""
    data = _data()
    by_id: dict[str, Gpu] = {}
    index: dict[str, Gpu] = {}
    for entry in data["gpus"]:
        gpu = _record(entry, data["torch_reservation_mib"])
        by_id[gpu.id] = gpu
        for name in (gpu.id, gpu.name, *gpu.aliases):
            key = _key(name)
            index.setdefault(key, gpu)
            index.setdefault(_short(key), gpu)
    return by_id, index


def all_gpus() -> list[Gpu]:
    return list(_catalogue()[0].values())


@lru_cache(maxsize=1024)
def accelerator_kind(name: str) -> str | None:
    """"tpu", "gaudi", "neuron" or "cpu" when the name is a known non-GPU accelerator, else None.

    Memoised: every rule that asks whether a launch's device is a GPU asks it again (a values file with
    32 launches made 800 lookups, each normalising the 21 names of the table)."""
    key = _key(name)
    for kind, others in _non_gpu_keys():
        for other in others:
            if key == other or (len(other) > 3 and other in key):
                return kind
    return None


@lru_cache(maxsize=1)
def _non_gpu_keys() -> tuple[tuple[str, tuple[str, ...]], ...]:
    return tuple((kind, tuple(map(_key, names))) for kind, names in _data()["non_gpu"].items())


def lookup_gpu(name: str) -> Gpu:
    """A card from any spelling: id, marketing name, node label, GKE/KubeAI value, MIG profile, instance type.

    Case, spaces, dashes, underscores and a leading vendor word are ignored. Raises UnknownGpuError
    naming up to three close catalogue names, or saying the name is a TPU / other non-GPU device.
    """
    text = str(name).strip()
    for prefix in ("nvidia.com/gpu.product=", "nvidia.com/", "amd.com/"):
        if text.lower().startswith(prefix) and text.lower() not in ("nvidia.com/gpu", "amd.com/gpu"):
            text = text[len(prefix):]
    if "|" in text:
        return _one_card(text, name)
    if _MIG.search(text):
        return _mig(text)
    found = _find(text) or (_find(_SHARED.sub("", text)) if text[-6:].lower() == "shared" else None)
    if found is not None:
        return found
    instance = lookup_instance_type(text)
    if instance is not None:  # `node.kubernetes.io/instance-type: g6e.12xlarge` names the card too
        return instance[0]
    family = lookup_instance_family(text)
    if family is not None:  # `karpenter.k8s.aws/instance-family: g5`, `g5.*`: every size has the same card
        return family
    raise _unknown(name)


def _one_card(text: str, name: str) -> Gpu:
    """`g5.xlarge|g5.2xlarge` (the values of a node-affinity `In`): one card when every name is that card."""
    cards = {lookup_gpu(part).id: lookup_gpu(part) for part in text.split("|") if part.strip()}
    if len(cards) != 1:
        raise UnknownGpuError(f"{name!r} names several cards ({', '.join(cards) or 'none'})",
                              "each is tried as a candidate (KV108)")
    return next(iter(cards.values()))


def lookup_instance_family(name: str) -> Gpu | None:
    """The card of a cloud instance family (gpus.json `instance_families`), from the family itself (`g5`,
    `a3-highgpu`) or from a type of it the table does not list (`g5.*`, `g5.96xlarge`, `a2-highgpu-16g`);
    the count is the type's, so only the card is known."""
    text = str(name).strip().lower()
    families = _data()["instance_families"]
    for key in (text, text.split(".", 1)[0], re.sub(r"-(\d+g|standard-\d+|\d+)$", "", text),
                re.sub(r"-\d+$", "", text)):
        if key in families:
            return _catalogue()[0][families[key]]
    return None


@lru_cache(maxsize=1)
def hint_keys() -> dict[str, tuple[str, ...]]:
    """Manifest keys that name the GPU without a product label (gpus.json `hint_keys`): node labels whose value is a
    product or instance type, node labels whose value is an instance family, chart-values keys naming the card."""
    keys = _data()["hint_keys"]
    return {k: tuple(keys[k]) for k in ("product_labels", "family_labels", "chart_keys")}


# GPU feature discovery renames a card it shares by time-slicing or MPS (`NVIDIA-A30-SHARED`): the same card
_SHARED = lazy(r"[-_ ]shared$", re.IGNORECASE)


def _find(text: str) -> Gpu | None:
    index = _catalogue()[1]
    key = _key(text)
    return index.get(key) or index.get(_short(key))


# how a finding names a non-GPU device kind whose upper-cased name reads wrong ("a ASCEND device")
_DEVICE_NAMES = {"ascend": "an Ascend NPU", "xpu": "an XPU device", "tenstorrent": "a Tenstorrent device"}


def _unknown(name: str) -> UnknownGpuError:
    kind = accelerator_kind(str(name))
    if kind is not None:
        return UnknownGpuError(f"{name!r} is {_DEVICE_NAMES.get(kind, 'a ' + kind.upper() + ' device')}, not a GPU: "
                               "kvlint sizes GPU memory only")
    if _key(str(name)) in ("nvidiacomgpu", "amdcomgpu", "gpu"):
        return UnknownGpuError(f"{name!r} names a GPU resource, not a product",
                               "set the GPU with --gpu or a node label")
    close = _close_names(str(name))
    hint = f"did you mean {', '.join(close)}?" if close else "pass --gpu-memory SIZE for a card kvlint does not list"
    return UnknownGpuError(f"unknown GPU {name!r}", hint)


@lru_cache(maxsize=256)
def _close_names(name: str) -> tuple[str, ...]:
    """Catalogue names near an unknown one (memoised: a repository repeats its name, and each search compares
    it with every name in the catalogue)."""
    names = sorted({n for g in all_gpus() for n in (g.id, *g.aliases)})
    from kvlint.suggest import close_matches  # only for a GPU name the catalogue does not know

    return tuple(c for c in close_matches(name, names, n=6, cutoff=0.5) if _plausible_typo(name, c))[:3]


def _plausible_typo(name: str, candidate: str) -> bool:
    """A close catalogue name is offered only when it could be a slip of the same product: a model number of the
    same length that differs (`RTX4060` against `RTX4090`, `L20` against `L40`) is another real card, and a name
    with no number a name of its own, not a typo; an extra or missing digit (`H1000`) or letters and separators
    are."""
    import re

    ours, theirs = re.findall(r"\d{2,}", name), re.findall(r"\d{2,}", candidate)
    if any(a != b and len(a) == len(b) for a, b in zip(ours, theirs, strict=False)):
        return False
    if re.search(r"\d", candidate) and not re.search(r"\d", name):
        return False  # a name with no model number at all (KubeAI's own profile `doks-nvidia`, sample K526) slips none

    return _family(name) in ("", _family(candidate)) or _family(candidate) == ""


def _family(name: str) -> str:
    """The letters just before a product's model number, past vendor words (`gtx` of `nvidia-gtx-2080ti`, `h` of
    `H1000`, `gb` of `nvidia-gb200`): a typo keeps them, so `gtx2080ti` is no slip of `gb200`."""
    import re

    key, before = _key(name), ""
    while key != before:  # `nvidia-tesla-p40`: past both vendor words
        before = key
        key = next((key[len(p):] for p in _PREFIXES if key.startswith(p) and len(key) > len(p)), key)
    m = re.search(r"([a-z]+)\d", key)
    return m.group(1) if m else ""


def _mig(text: str) -> Gpu:
    """A MIG slice keeps its parent's compute capability; its memory is the profile's GB (decimal, estimated)."""
    m = _MIG.search(text)
    assert m is not None
    slices, gb = int(m.group(1)), int(m.group(2))
    parent_text = text[: m.start()].strip("-_ /.")
    parent = _find(parent_text) if parent_text else _mig_parent(f"{slices}g.{gb}gb")
    if parent is None:
        owners = [g for g, p in _data()["mig_profiles"].items() if f"{slices}g.{gb}gb" in p]
        where = f"offered by {', '.join(owners)}" if owners else "not a profile kvlint knows"
        raise UnknownGpuError(f"MIG profile {text!r}: parent GPU unknown ({where})",
                              "name the card, e.g. A100-SXM4-40GB-MIG-3g.20gb")
    mib = gb * 10**9 // MIB
    return Gpu(
        id=f"{parent.id}-MIG-{slices}g.{gb}gb", name=f"{parent.name} MIG {slices}g.{gb}gb", vendor=parent.vendor,
        memory_mib=mib, torch_total_bytes=mib * MIB, compute_capability=parent.compute_capability,
        source=f"MIG profile {slices}g.{gb}gb of {parent.id}: {gb} GB (estimated)", marketing_gb=gb, arch=parent.arch,
        torch_total_estimated=True, torch_total_source="estimated from the MIG profile size",
        mig_profile=f"{slices}g.{gb}gb",
    )


def _mig_parent(profile: str) -> Gpu | None:
    """The one card that offers this profile; None when none or several do (1g.10gb: A100 80GB and H100)."""
    owners = [gid for gid, profiles in _data()["mig_profiles"].items() if profile in profiles]
    return _catalogue()[0][owners[0]] if len(owners) == 1 else None


def lookup_instance_type(name: str) -> tuple[Gpu, int] | None:
    """(card, count) for a cloud instance type (AWS, GCP, Azure); None when it is not a known GPU type."""
    table = _data()["instance_types"]
    wanted = _key(name)
    for inst, entry in table.items():
        if _key(inst) == wanted:
            return _catalogue()[0][entry["gpu"]], entry["count"]
    return None


def lookup_accelerator(text: str) -> tuple[Gpu, int | None]:
    """A card and count from the `NAME:COUNT` forms schedulers use.

    SkyPilot `H100:8`, KubeAI `resourceProfile: nvidia-gpu-h100:8`, Slurm `--gres=gpu:a6000:1`; an instance
    type gives its own count. The count is None when the text names only the card.
    """
    parts = [p for p in str(text).strip().split(":") if p]
    if parts and parts[0].lower() in ("gpu", "gres/gpu"):
        parts = parts[1:]
    count = int(parts.pop()) if len(parts) > 1 and parts[-1].isdigit() else None
    if not parts:
        raise UnknownGpuError(f"{text!r} gives a GPU count but no product")
    instance = lookup_instance_type(parts[0])
    if instance is not None:
        return instance[0], count if count is not None else instance[1]
    return lookup_gpu(":".join(parts)), count
