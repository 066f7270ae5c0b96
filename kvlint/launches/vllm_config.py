"""vLLM `--config` YAML files: top-level keys are flags (`max-model-len: 16384`, `model: ...`)."""

from __future__ import annotations

from kvlint.deployment import Deployment
from kvlint.launches.argv import exact_option
from kvlint.launches.build import Context, GpuFacts, make_deployment
from kvlint.launches.keys import fields_from_pairs
from kvlint.sources.yaml import YNode

_K8S_KEYS = {"apiVersion", "kind", "services", "run", "resources", "spec", "metadata"}


def looks_like_vllm_config(doc: YNode) -> bool:
    """A flat map whose keys are mostly vLLM flags spelled as on the command line."""
    if not doc.is_map or any(k in _K8S_KEYS for k, _, _ in doc.pairs()):
        return False
    keys = [k for k, _, v in doc.pairs() if v.is_scalar or v.is_seq]
    if len(keys) < 2 or not any("-" in k or "_" in k for k in keys):
        return False
    known = sum(1 for k in keys if exact_option("vllm", "--" + k.replace("_", "-")) is not None)
    return known >= max(2, (len(keys) * 2) // 3)


def read_vllm_config(path: str, doc: YNode) -> list[Deployment]:
    fields = fields_from_pairs(doc.pairs(), lambda k: "--" + k)
    span = doc.items[0][0].span if doc.items else None
    ctx = Context(name="vllm --config file", origin="config-file")
    return [make_deployment(path, "vllm", fields, span, ctx, GpuFacts())]
