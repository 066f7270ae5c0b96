"""GitOps objects that install a chart with values written inside them: an Argo CD `Application` (and an
`ApplicationSet`'s template) whose `spec.source.helm` carries `values: |` (a YAML string) or `valuesObject:` (a
map), or `parameters:` (Argo CD's `--set` entries, assembled into values), in one source or each of
`spec.sources[]`, and a Flux `HelmRelease`'s `spec.values`.

The values are read as a values document of the chart the source names (kvlint.launches.helm.read_values: the
chart adapters claim it by its keys, as they do a values.yaml), so production-stack's `servingEngineSpec` in an
Application is the same launches it is in the chart's own values file. A `values: |` string is parsed in place
(kvlint.launches.charts.ray.embedded: the other lines blanked), so every value keeps the line and column it has
in this file.
"""

from __future__ import annotations

from kvlint.deployment import Deployment
from kvlint.findings import Finding
from kvlint.launches.charts.common import text
from kvlint.launches.helm import read_values
from kvlint.sources.yaml import YamlFile, YNode

Notes = list[str | Finding]  # what read_values tells the user: KV001 notes as text, other findings as Findings


def read(yf: YamlFile, doc: YNode) -> tuple[list[Deployment], Notes]:
    """The launches of every chart the object installs with inline values, and the values' own findings."""
    spec = doc.get("spec")
    if spec is None or not spec.is_map:
        return [], []
    if text(doc.get("kind")) == "HelmRelease":
        return _values(yf, spec.get("values"))
    if text(doc.get("kind")) == "ApplicationSet":
        spec = spec.path("template", "spec")
        if spec is None or not spec.is_map:
            return [], []
    out: list[Deployment] = []
    findings: Notes = []
    for source in _sources(spec):
        helm = source.get("helm")
        if helm is None or not helm.is_map:
            continue
        found: list[Deployment] = []
        for node in (helm.get("valuesObject"), helm.get("values")):
            deps, said = _values(yf, node)
            found.extend(deps)
            findings.extend(said)
        out.extend(found or _parameters(yf, source, helm.get("parameters")))
    return out, findings


def _parameters(yf: YamlFile, source: YNode, node: YNode | None) -> list[Deployment]:
    """`helm.parameters: [{name: servingEngineSpec.modelSpec[0].modelURL, value: ...}]` (Argo CD's `--set`): the
    chart's values assembled from them (kvlint.launches.terraform_helm.assembled), each at its `value:`."""
    from kvlint.launches.terraform_helm import assembled

    entries = []
    for item in node.items if node is not None and node.is_seq else ():
        name, value = (item.get("name"), item.get("value")) if item.is_map else (None, None)
        if name is not None and name.is_scalar and value is not None and value.is_scalar:
            entries.append((name.text, value.text, "{{" not in value.text and "$" not in value.text, value.span))
    return assembled(yf.path, entries, source.span) if entries else []


def _sources(spec: YNode) -> list[YNode]:
    """`spec.source` and each of `spec.sources[]` (a multi-source Application)."""
    one = spec.get("source")
    many = spec.get("sources")
    found = [one] if one is not None and one.is_map else []
    return found + [s for s in (many.items if many is not None and many.is_seq else ()) if s.is_map]


def _values(yf: YamlFile, node: YNode | None) -> tuple[list[Deployment], Notes]:
    """A values map read where it stands, or a literal block string of values parsed at its own lines (a folded
    or quoted string is not YAML at the lines it is written on: not read)."""
    from kvlint.launches.charts.ray import embedded

    if node is None:
        return [], []
    if node.is_map:
        return read_values(yf, node)
    if not node.is_scalar or node.style != "|" or ":" not in node.text:
        return [], []
    inner = embedded(yf, node)
    out: list[Deployment] = []
    notes: Notes = []
    for doc in inner.docs:
        if doc.is_map:
            deps, said = read_values(inner, doc)
            out.extend(deps)
            notes.extend(said)
    return out, notes
