"""GPU product and count as a manifest states them: resources, node labels, GRES, devices.

Products are kept as written (`nvidia-l4`, `g5.8xlarge`, `A6000`): mapping them to a catalogue
entry is kvlint.gpus' job. Counts are per pod / per process here; group sizes multiply later.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING

from kvlint.gpus import accelerator_kind, hint_keys, lookup_gpu, lookup_instance_family
from kvlint.lazyre import lazy
from kvlint.sources.numbers import count
from kvlint.sources.yaml import YNode
from kvlint.span import Span

if TYPE_CHECKING:
    from kvlint.deployment import Deployment

# a node label key whose own name (after the last `/`) says it holds the GPU product: `gpu-name`
# (Volcengine VKE's machine.cluster.vke.volcengine.com/gpu-name), `gpu.product`, `gpu-model`, `gpu_type`, ...
_PRODUCT_LABEL_NAME = lazy(r"(?:[a-z0-9]+[-_.])*(?:gpu|accelerator)[-_.]?(?:name|product|model|type|class|family)",
                           re.I)


def is_product_label(key: str) -> bool:
    """A node label that names the GPU product or an instance type (gpus.json `hint_keys.product_labels`), or any
    key whose name says so."""

    return key in hint_keys()["product_labels"] or bool(_PRODUCT_LABEL_NAME.fullmatch(key.rsplit("/", 1)[-1]))


def family_card(key: str, value: str) -> bool:
    """A node label whose value is an instance family that fixes the card (`karpenter.k8s.aws/instance-family: g5`,
    `cloud.google.com/machine-family: g2`); a family the table lacks (`a3`: H100 or H200) is no hint."""

    return key in hint_keys()["family_labels"] and lookup_instance_family(value) is not None


def product_from_keys(holder: YNode) -> tuple[str | None, Span | None]:
    """A chart-values key beside the launch that names the card (`gpuType: a10g`, `instanceType: g5.2xlarge`;
    gpus.json `hint_keys.chart_keys`), only when kvlint knows the value as a card or an instance type:
    `gpuType: nvidia.com/gpu` names the vendor's resource, not a card."""

    for key in hint_keys()["chart_keys"]:
        node = holder.get(key) if holder.is_map else None
        if node is None or not node.is_scalar or not node.text:
            continue
        try:
            lookup_gpu(node.text)
        except Exception:  # noqa: BLE001 - an unknown or vendor-only value is no hint
            continue
        return node.text, node.span
    return None, None


_COUNT_SUFFIXES = ("/gpu", "/tpu", "/gaudi", "/neuron", "/neuroncore", "/neurondevice")
# a device plugin's resource named for the card's model (`huawei.com/Ascend910: 2`, `huawei.com/Ascend910B`)
_DEVICE_RESOURCE = lazy(r"(?i)^huawei\.com/ascend\d+\w*$")


def count_from_resources(res: YNode | None) -> tuple[int | None, Span | None, str | None]:
    """(count, span, resource name) from a `resources` map: limits first, then requests."""
    if res is None or not res.is_map:
        return None, None, None
    for section in ("limits", "requests"):
        node = res.get(section)
        for key, _knode, val in node.pairs() if node is not None else ():
            k = key.strip()
            if k == "gpu" or k.endswith(_COUNT_SUFFIXES) or "/mig-" in k \
                    or (k.startswith("huawei.com/") and _DEVICE_RESOURCE.search(k)):
                n = to_int(val)
                if n is not None:
                    return n, val.span, k
    return None, None, None


def product_from_resource(name: str | None) -> str | None:
    """A resource name that names a product (MIG slices); vendor-only names give None."""
    if name and "/mig-" in name:
        return name.split("/", 1)[1]
    return None


def device_from_resource(name: str | None) -> str | None:
    """`aws.amazon.com/neuroncore`, `habana.ai/gaudi`, `google.com/tpu`: a resource that is itself a non-GPU
    device names the device when no node label does (a GPU resource names only the vendor)."""

    return name if name and accelerator_kind(name) is not None else None


def product_from_pod(pod: YNode) -> tuple[str | None, Span | None]:
    """The card a pod's node selection names (product label, instance type or family), else a chart key beside it."""
    sel = pod.get("nodeSelector")
    for key, _, val in sel.pairs() if sel is not None else ():
        if val.is_scalar and val.text and (is_product_label(key) or family_card(key, val.text)):
            return val.text, val.span
    terms = pod.path("affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms")
    for term in terms.items if terms is not None and terms.is_seq else ():
        exprs = term.get("matchExpressions")
        for expr in exprs.items if exprs is not None and exprs.is_seq else ():
            key, values, op = expr.get("key"), expr.get("values"), expr.get("operator")
            if op is not None and op.text != "In":
                continue  # NotIn / Exists / DoesNotExist: not the card the pod runs on
            if key is None or values is None or not values.is_seq or not values.items:
                continue
            names = [v.text for v in values.items if v.is_scalar]
            if is_product_label(key.text) or (names and all(family_card(key.text, n) for n in names)):
                return "|".join(names), values.items[0].span
    return product_from_keys(pod) if pod.is_map else (None, None)


def to_int(node: YNode | None) -> int | None:
    if node is None or not node.is_scalar:
        return None
    return count(node.text)


def parse_gres(text: str) -> tuple[str | None, int | None]:
    """Slurm `gpu:a6000:1`, `gpu:8`, `gpus=2`; a memory class like `80g` is not a product."""
    text = text.split("=", 1)[1] if text.startswith(("gres=", "gpus=", "gpus-per-node=", "G=")) else text
    parts = [p for p in text.split(":") if p]
    if parts and parts[0] in ("gpu", "gpus"):
        parts = parts[1:]
    product = parts[0] if len(parts) == 2 else None
    number = parts[-1] if parts else None
    if product and re.fullmatch(r"\d+g(b)?", product, re.I):
        product = None
    return product, count(number)


def from_launch_hint(hint: str | None) -> tuple[str | None, int | None]:
    """(product, count) from a script hint: `cuda:0,1` (CUDA_VISIBLE_DEVICES), `docker:<--gpus>`,
    or a Slurm option (`gres=gpu:a6000:1`, `gpus=2`). `all` and unparsable values are unknown."""
    if not hint:
        return None, None
    kind, _, text = hint.partition(":")
    text = text.strip().strip("'\"")
    if kind == "cuda":
        items = [t for t in text.split(",") if t.strip()]
        return None, len(items) if items and all(count(t) is not None for t in items) else None
    if kind == "docker":
        if text.startswith("device="):
            items = [t for t in text[7:].split(",") if t.strip()]
            if any("$" in t for t in items):  # `device=${GPU_DEVICES}`: a variable may list several (sample K246)
                return None, None
            return None, len(items) or None
        return None, count(text)
    return parse_gres(hint)


_CPU_IMAGE = lazy(r"(?i)(?:^|[/_.:-])cpu(?:$|[/_.:-])")
_NEURON_IMAGE = lazy(r"(?i)(?:^|[/_.:-])(?:vllm-)?neuronx?(?:$|[/_.:-])")
# an Ascend NPU build: vllm-ascend's image (`quay.io/ascend/vllm-ascend:v0.11.0rc1`), an image tagged for the CANN
# toolkit (`...:main-cann8.2.rc1-910b`)
_ASCEND_IMAGE = lazy(r"(?i)(?:^|[/_.:-])(?:vllm-ascend|ascend|cann[\d.]*(?:rc\d+)?)(?:$|[/_.:-])")


def cpu_evidence(dep: Deployment, env: Mapping[str, str], words: Sequence[tuple[str, Span | None]] = ()
                 ) -> tuple[str, Span | None, str] | None:
    """(why, where, device) when the launch runs on a device that is not a GPU: `--device cpu` (or `neuron`,
    `tpu`, `hpu`: any name the catalogue's non-GPU table knows), `VLLM_TARGET_DEVICE=cpu`, `VLLM_CPU_KVCACHE_SPACE`
    (the CPU backend's KV cache size), or a CPU or Neuron build of the image (`vllm-cpu`, `:v0.9.0-cpu`,
    `pytorch-inference-vllm-neuronx`). Such a launch is not swept over the GPU catalogue."""

    for k, (text, span) in enumerate(words):  # `--device` left the parser in 0.11: read from the words
        value = text.partition("=")[2] if text.startswith("--device=") else \
            words[k + 1][0] if text == "--device" and k + 1 < len(words) else ""
        if value and value.lower() not in ("cuda", "auto") and accelerator_kind(value) is not None:
            return f"runs on {value} (--device {value}): not sized over GPUs", span, value.lower()
    if str(env.get("VLLM_TARGET_DEVICE", "")).lower() == "cpu":
        return "runs on CPU (VLLM_TARGET_DEVICE=cpu): not sized over GPUs", None, "cpu"
    openvino = str(env.get("VLLM_OPENVINO_DEVICE") or ("CPU" if env.get("VLLM_OPENVINO_KVCACHE_SPACE") else "")).upper()
    if openvino:  # vLLM's OpenVINO backend (sample K291's Intel build): the host's CPU or an Intel GPU, not CUDA's
        device = "cpu" if openvino.startswith("CPU") else "xpu"
        return f"runs on OpenVINO (VLLM_OPENVINO_DEVICE={openvino}): not sized over GPUs", None, device
    if env.get("VLLM_CPU_KVCACHE_SPACE"):
        space = env["VLLM_CPU_KVCACHE_SPACE"]
        return (f"runs on CPU (VLLM_CPU_KVCACHE_SPACE={space} GiB of host memory for the KV cache): not sized over "
                "GPUs"), None, "cpu"
    if dep.image and _CPU_IMAGE.search(dep.image):
        return f"runs on CPU (the image {dep.image} is a CPU build): not sized over GPUs", dep.image_span, "cpu"
    if dep.image and _NEURON_IMAGE.search(dep.image):
        return (f"runs on AWS Neuron (the image {dep.image} is a Neuron build): not sized over GPUs", dep.image_span,
                "neuron")
    if dep.image and ("scend" in dep.image or "cann" in dep.image.lower()) and _ASCEND_IMAGE.search(dep.image):
        return (f"runs on Ascend NPUs (the image {dep.image} is an Ascend build): not sized over GPUs", dep.image_span,
                "ascend")
    return _vendor_environment(env)


def _vendor_environment(env: Mapping[str, str]) -> tuple[str, Span | None, str] | None:
    """A variable only one vendor's runtime reads, set for the launch (`ASCEND_RT_VISIBLE_DEVICES`, `NEURON_RT_...`,
    `PT_HPU_...`: kvlint/data/vendor_launchers.json `device`): the launch runs on that vendor's accelerator."""
    if not env:
        return None
    heads, marked = _vendor_prefixes()
    name = next((k for k in env if k.startswith(heads)), "")
    for prefix, device, build in marked if name else ():
        if name.startswith(prefix):
            return f"runs on {build} ({name} is set for it): not sized over GPUs", None, device
    return None


@lru_cache(maxsize=1)
def _vendor_prefixes() -> tuple[tuple[str, ...], tuple[tuple[str, str, str], ...]]:
    """The prefixes of the vendor environments that name their device, and (variable prefix, device, build) of each,
    read once per run."""
    from kvlint.data import load_json

    marked = tuple((str(e["variable_prefix"]), str(e["device"]), str(e["image"]))
                   for e in load_json("vendor_launchers.json").get("environments", [])
                   if e.get("variable_prefix") and e.get("device"))
    return tuple(m[0] for m in marked), marked
