"""A list of named parameters (`- name: model_id` / `value: Qwen/...`) read as the map it stands for.

Job platforms and workflow engines write a template's settings as a list of `{name, value}` entries rather than a
map: Kalavai's job values (`kalavai job run vllm --values values.yaml`, turn 38's K339), Argo's and Tekton's
`parameters` / `params`. Such a list is a map of its names to its values, each value at its own place, so the
settings finder (kvlint.launches.structured) reads it as it reads any map: a model key and the engine's flags in any
spelling. The engine must be named, as for any map without an image: by the file's name (`vllm-qwen-1.5b.yaml`) or
by the entries themselves (a description of "the vLLM server"), never guessed from the keys alone.
"""

from __future__ import annotations

import os
import re

from kvlint.deployment import Deployment
from kvlint.sources.yaml import YamlFile, YNode

_NAME_KEYS = ("name", "key")
_VALUE_KEYS = ("value", "default")
_AT_LEAST = 3  # entries a list must have to be a parameter list: fewer is any list of named things


def parameter_launches(yf: YamlFile, doc: YNode) -> list[Deployment]:
    """The launch a parameter list describes, when it names an engine and holds a model and its flags."""
    from kvlint.launches import structured
    from kvlint.launches.charts.unknown import from_block

    as_map = _as_map(doc)
    engine = _named_engine(yf.path, doc) if as_map is not None else None
    block = structured.find(as_map, engine) if as_map is not None and engine is not None else None
    return [from_block(yf, as_map, block)] if as_map is not None and block is not None else []


def _as_map(doc: YNode) -> YNode | None:
    """The map `{name: value}` of a list whose every item is a map with a name and a value (the value's own node,
    else its default's), or None."""
    if not doc.is_seq or len(doc.items) < _AT_LEAST:
        return None
    pairs: list[tuple[YNode, YNode]] = []
    for item in doc.items:
        if not item.is_map:
            return None
        name = next((n for k in _NAME_KEYS if (n := item.get(k)) is not None and n.is_scalar), None)
        value = next((v for k in _VALUE_KEYS if (v := item.get(k)) is not None), None)
        if name is None or value is None:
            return None
        pairs.append((name, value))
    return YNode("map", doc.span, doc.start, doc.end, items=tuple(pairs), size=doc.size)


def _named_engine(path: str, doc: YNode) -> str | None:
    """The engine the file's name names as a word (`vllm-qwen-1.5b.yaml`), else the one the entries' text names
    (`description: "Extra parameters to pass to the vLLM server"`), when only one is named."""
    from kvlint.engines.registered import engine_names

    words = set(re.split(r"[^a-z0-9]+", os.path.basename(path).lower()))
    named = [e for e in engine_names() if e in words]
    if len(named) == 1:
        return named[0]
    text = " ".join(v.text.lower() for item in doc.items if item.is_map for _, _, v in item.pairs() if v.is_scalar)
    named = [e for e in engine_names() if re.search(rf"(?<![\w-]){e}(?![\w-])", text)]
    return named[0] if len(named) == 1 else None
