"""SkyPilot tasks: `run` script with `envs`, `resources.accelerators` and `num_nodes`.

SkyPilot sets SKYPILOT_NUM_GPUS_PER_NODE and SKYPILOT_NUM_NODES for the run script, so flags
computed from them resolve when the accelerator count is known.
"""

from __future__ import annotations

from dataclasses import replace

from kvlint.deployment import Deployment
from kvlint.launches import gpus_in_manifest as g
from kvlint.launches.build import Context, GpuFacts, finish
from kvlint.launches.script import run_script
from kvlint.sources import numbers
from kvlint.sources.yaml import YamlFile, YNode


def is_skypilot(doc: YNode) -> bool:
    run = doc.get("run") if doc.is_map else None
    return run is not None and run.is_scalar and any(doc.get(k) is not None for k in ("resources", "num_nodes", "envs", "setup"))


def read_skypilot(yf: YamlFile, doc: YNode) -> list[Deployment]:
    env = {k: v.text for k, _, v in doc.get("envs").pairs() if v.is_scalar} if doc.get("envs") is not None else {}
    product, per_node, pspan, alts = _accelerators(doc.path("resources", "accelerators"))
    nodes_node = doc.get("num_nodes")
    nodes = g.to_int(nodes_node) or 1
    if per_node:
        env.setdefault("SKYPILOT_NUM_GPUS_PER_NODE", str(per_node))
    env.setdefault("SKYPILOT_NUM_NODES", str(nodes))
    launches, _, notes = run_script(yf.mapped(doc.get("run")), env)
    gnotes = tuple(n for n in (f"accelerator alternatives: {alts}" if alts else "", f"gpu count = {per_node} per node x num_nodes {nodes}" if per_node and nodes > 1 else "") if n)
    gpu = GpuFacts(product, pspan, per_node * nodes if per_node else None, pspan, gnotes, grouped=nodes > 1)
    image = doc.path("resources", "image_id")
    image_text = image.text.removeprefix("docker:") if image is not None and image.is_scalar else None
    ctx = Context(_name(doc), image_text, image.span if image_text else None, notes=tuple(notes))
    return [replace(finish(yf.path, f, ctx, gpu)) for f in launches]


def _name(doc: YNode) -> str:
    n = doc.get("name")
    return n.text if n is not None and n.is_scalar else ""


def _accelerators(node: YNode | None) -> tuple[str | None, int | None, object, str]:
    if node is None:
        return None, None, None, ""
    if node.is_scalar:
        name, _, count = node.text.partition(":")
        n = numbers.count(count)
        return name or None, 1 if n is None else n, node.span, ""
    pairs = [(k, v) for k, _, v in node.pairs()] if node.is_map else [(i.text, None) for i in node.items if i.is_scalar]
    if not pairs:
        return None, None, None, ""
    first, val = pairs[0]
    name, _, count = first.partition(":")
    n = numbers.count(count) if count else None
    n = n if n is not None else g.to_int(val) if val is not None else 1
    alts = ", ".join(k if v is None or not v.text else f"{k}:{v.text}" for k, v in pairs) if len(pairs) > 1 else ""
    return name, n, node.span, alts
