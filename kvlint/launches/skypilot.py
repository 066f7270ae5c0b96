"""SkyPilot tasks: `run` script with `envs`, `resources.accelerators` and `num_nodes`.

SkyPilot sets SKYPILOT_NUM_GPUS_PER_NODE and SKYPILOT_NUM_NODES for the run script, so flags
computed from them resolve when the accelerator count is known.
"""

from __future__ import annotations

from kvlint.deployment import Deployment, GpuOption
from kvlint.launches import gpus_in_manifest as g
from kvlint.launches.build import LaunchContext, ManifestGpu, finish
from kvlint.launches.script import run_script
from kvlint.record import replace
from kvlint.sources import numbers
from kvlint.sources.yaml import YamlFile, YNode
from kvlint.span import Span


def is_skypilot(doc: YNode) -> bool:
    run = doc.get("run") if doc.is_map else None
    task_keys = ("resources", "num_nodes", "envs", "setup")
    return run is not None and run.is_scalar and any(doc.get(k) is not None for k in task_keys)


def read_skypilot(yf: YamlFile, doc: YNode) -> list[Deployment]:
    run = doc.get("run")
    if run is None:  # not a task: callers ask is_skypilot(doc) first
        return []
    envs = doc.get("envs")
    env = {k: v.text for k, _, v in envs.pairs() if v.is_scalar} if envs is not None else {}
    product, per_node, pspan, alts = _accelerators(doc.path("resources", "accelerators"))
    nodes_node = doc.get("num_nodes")
    nodes = g.to_int(nodes_node) or 1
    if per_node:
        env.setdefault("SKYPILOT_NUM_GPUS_PER_NODE", str(per_node))
    env.setdefault("SKYPILOT_NUM_NODES", str(nodes))
    launches, _, notes = run_script(yf.mapped(run), env)
    gnotes = tuple(n for n in (f"accelerator alternatives: {alts}" if alts else "",
                               f"gpu count = {per_node} per node x num_nodes {nodes}" if per_node and nodes > 1 else "")
                   if n)
    options = _options(doc.get("resources"), nodes)
    if product is None and len(options) == 1:  # a lone any_of / ordered entry is the product
        product, pspan, per_node = options[0].name, options[0].span, (options[0].count or 0) // nodes or None
    gpu = ManifestGpu(product, pspan, per_node * nodes if per_node else None, pspan, gnotes, grouped=nodes > 1,
                   options=options if len(options) > 1 else ())
    image = doc.path("resources", "image_id")
    image_text = image.text.removeprefix("docker:") if image is not None and image.is_scalar else None
    ctx = LaunchContext(_name(doc), image_text, image.span if image is not None and image_text else None,
                        notes=tuple(notes))
    return [replace(finish(yf.path, f, ctx, gpu)) for f in launches]


def _options(resources: YNode | None, nodes: int) -> tuple[GpuOption, ...]:
    """Every accelerator the task accepts, with GPUs per instance (per node x num_nodes): the
    `accelerators` set or list, then `any_of` / `ordered` entries (each its own resources map)."""
    if resources is None or not resources.is_map:
        return ()
    out = _candidates(resources.get("accelerators"), "accelerators", nodes)
    for key in ("any_of", "ordered"):
        entries = resources.get(key)
        for entry in entries.items if entries is not None and entries.is_seq else ():
            if entry.is_map:
                out += _candidates(entry.get("accelerators"), key, nodes)
    return tuple({(o.name, o.count): o for o in out}.values())


def _candidates(node: YNode | None, source: str, nodes: int) -> list[GpuOption]:
    if node is None:
        return []
    items: list[tuple[str, YNode | None, Span]]
    if node.is_scalar:
        items = [(node.text, None, node.span)]
    elif node.is_map:
        items = [(k, v, kn.span) for k, kn, v in node.pairs()]
    else:
        items = [(i.text, None, i.span) for i in node.items if i.is_scalar]
    out = []
    for text, val, span in items:
        name, _, count = text.partition(":")
        per = numbers.count(count) if count.strip() else g.to_int(val) if val is not None and val.is_scalar else 1
        if name.strip():
            out.append(GpuOption(name.strip(), (per or 1) * nodes, span, source))
    return out


def _name(doc: YNode) -> str:
    n = doc.get("name")
    return n.text if n is not None and n.is_scalar else ""


def _accelerators(node: YNode | None) -> tuple[str | None, int | None, Span | None, str]:
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
