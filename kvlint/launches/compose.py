"""docker-compose services: image, entrypoint + command (string or list), GPU device reservations.

Compose interpolates `${VAR:-default}` from the caller's environment, which a linter cannot see;
defaults are used and bare variables stay unresolved.
"""

from __future__ import annotations

from kvlint.deployment import Deployment
from kvlint.launches import gpus_in_manifest as g
from kvlint.launches.build import Context, GpuFacts, finish
from kvlint.launches.env import Field, expand_word
from kvlint.launches.script import VLLM_IMAGES, launch_in_argv
from kvlint.sources.shell import tokenize
from kvlint.sources.yaml import YamlFile, YNode


def is_compose(doc: YNode) -> bool:
    services = doc.get("services") if doc.is_map else None
    return services is not None and services.is_map and "apiVersion" not in dict((k, 1) for k, _, _ in doc.pairs())


def read_compose(yf: YamlFile, doc: YNode) -> list[Deployment]:
    out: list[Deployment] = []
    for name, _, svc in doc.get("services").pairs():
        if svc.is_map:
            out.extend(_service(yf, name, svc))
    return out


def _service(yf: YamlFile, name: str, svc: YNode) -> list[Deployment]:
    image = svc.get("image")
    image_text = image.text if image is not None and image.is_scalar else None
    fields = _argv(yf, svc.get("entrypoint")) + _argv(yf, svc.get("command"))
    default = "vllm" if image_text and any(t in image_text for t in VLLM_IMAGES) and svc.get("entrypoint") is None else None
    found = launch_in_argv(fields, {}, image_default=default) if fields else None
    if found is None:
        return []
    ctx = Context(name, image_text, image.span if image is not None else None)
    return [finish(yf.path, found, ctx, _gpus(svc))]


def _argv(yf: YamlFile, node: YNode | None) -> list[Field]:
    if node is None:
        return []
    items = [node] if node.is_scalar else [i for i in node.items if i.is_scalar] if node.is_seq else []
    out: list[Field] = []
    for item in items:
        m = yf.mapped(item)
        cmds, _ = tokenize(m)
        words = [f for c in cmds for w in c.words for f in expand_word(w, m, {})]
        if node.is_seq:  # a list item is one argument: interpolate, never split
            text = " ".join(f.text for f in words)
            missing = tuple(e for f in words for e in f.missing)
            out.append(Field(text if words else item.text, item.span, not missing, missing))
        else:
            out.extend(words)
    return out


def _gpus(svc: YNode) -> GpuFacts:
    devices = svc.path("deploy", "resources", "reservations", "devices")
    for dev in devices.items if devices is not None and devices.is_seq else ():
        count = dev.get("count")
        if g.to_int(count):
            return GpuFacts(count=g.to_int(count), count_span=count.span)
        ids = dev.get("device_ids")
        if ids is not None and ids.is_seq and ids.items:
            return GpuFacts(count=len(ids.items), count_span=ids.span)
    return GpuFacts()
