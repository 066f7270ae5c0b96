"""Helm chart values: one small adapter per known chart, then a generic walk for argv lists."""

from __future__ import annotations

from kvlint.deployment import Deployment
from kvlint.launches.k8s import read_k8s
from kvlint.sources.yaml import YamlFile, YNode


def read_values(yf: YamlFile, doc: YNode) -> tuple[list[Deployment], list[str]]:
    from kvlint.launches.charts import ADAPTERS

    for adapter in ADAPTERS:
        if adapter.matches(doc):
            return adapter.read(yf, doc), []
    return read_k8s(yf, doc), []
