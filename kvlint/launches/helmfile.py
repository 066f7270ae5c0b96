"""Helmfile (`helmfile.yaml`): releases of charts, each with inline `values:` maps and `set:` entries.

A release's inline values map is a values file written in place: the chart adapters read it as they read a
values.yaml (kvlint.launches.helm.read_values), at its own positions. A release given only `set:` entries (`name:
servingEngineSpec.modelSpec[0].modelURL`, `value: ...`) has its values assembled from them, as Terraform's
helm_release is (kvlint.launches.terraform_helm.assembled). A values item that is a file name is that file's
own launch (the walk reads it).
"""

from __future__ import annotations

from kvlint.deployment import Deployment
from kvlint.sources.yaml import YamlFile, YNode


def is_helmfile(doc: YNode) -> bool:
    releases = doc.get("releases")
    return releases is not None and releases.is_seq and any(
        r.is_map and r.get("chart") is not None for r in releases.items)


def read_helmfile(yf: YamlFile, doc: YNode) -> list[Deployment]:
    releases = doc.get("releases")
    out: list[Deployment] = []
    for release in releases.items if releases is not None and releases.is_seq else ():
        if release.is_map and release.get("chart") is not None:
            out.extend(_release(yf, release))
    return out


def _release(yf: YamlFile, release: YNode) -> list[Deployment]:
    from kvlint.launches.helm import read_values

    values = release.get("values")
    found: list[Deployment] = []
    for item in values.items if values is not None and values.is_seq else ():
        if item.is_map:
            found.extend(read_values(yf, item)[0])
    if found:
        return found
    return _set_only(yf, release)


def _set_only(yf: YamlFile, release: YNode) -> list[Deployment]:
    from kvlint.launches.terraform_helm import assembled

    sets = release.get("set")
    entries = []
    for item in sets.items if sets is not None and sets.is_seq else ():
        name, value = (item.get("name"), item.get("value")) if item.is_map else (None, None)
        if name is not None and name.is_scalar and value is not None and value.is_scalar:
            known = "{{" not in value.text and "${" not in value.text
            entries.append((name.text, value.text, known, value.span))
    return assembled(yf.path, entries, release.span) if entries else []
