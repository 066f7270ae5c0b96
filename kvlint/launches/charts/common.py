"""Helpers the chart adapters share: synthetic argv from chart fields, known-flag filtering."""

from __future__ import annotations

from kvlint.deployment import Deployment
from kvlint.launches.argv import exact_option
from kvlint.launches.build import LaunchContext, ManifestGpu, make_deployment
from kvlint.launches.env import Field, substitute_supplied
from kvlint.launches.keys import camel_to_flag, fields_from_pairs
from kvlint.sources.yaml import YNode

MODEL_FLAG = {"vllm": "--model", "sglang": "--model-path"}


def text(node: YNode | None) -> str | None:
    return node.text if node is not None and node.is_scalar and not node.tag.endswith(":null") else None


def known_flag(engine: str, key: str) -> str | None:
    """The `--flag` a chart key stands for, only when the engine has exactly that option."""
    flag = camel_to_flag(key)
    return flag if exact_option(engine, flag) is not None else None


def model_fields(engine: str, node: YNode | None) -> list[Field]:
    value = text(node)
    if not value or node is None:
        return []
    value, origin = substitute_supplied(value)
    unresolved = "{{" in value
    return [Field(MODEL_FLAG[engine], node.span),
            Field(value, node.span, not unresolved, (value,) if unresolved else (), origin=origin)]


def argv_items(node: YNode | None) -> list[Field]:
    if node is None or not node.is_seq:
        return []
    return [Field(i.text, i.span) for i in node.items if i.is_scalar]


def key_fields(engine: str, node: YNode | None, skip: frozenset[str] = frozenset()) -> list[Field]:
    if node is None or not node.is_map:
        return []
    pairs = [(k, kn, v) for k, kn, v in node.pairs() if k not in skip]
    return fields_from_pairs(pairs, lambda k: known_flag(engine, k))


def chart_deployment(path: str, engine: str, fields: list[Field], launch: YNode | None, ctx: LaunchContext,
                     gpu: ManifestGpu) -> Deployment:
    from dataclasses import replace

    span = launch.span if launch is not None else None
    return make_deployment(path, engine, fields, span, replace(ctx, origin="chart"), gpu)
