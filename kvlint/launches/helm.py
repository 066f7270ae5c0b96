"""Helm chart values: one small adapter per known chart, then generic walks.

Unknown charts fall back to the Kubernetes container walk (argv lists under `command`/`args`),
then to any string that itself starts an engine (`start_command: vllm serve ...`).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from kvlint import limits
from kvlint.deployment import Deployment
from kvlint.findings import Finding
from kvlint.launches.build import LaunchContext, ManifestGpu, finish
from kvlint.launches.k8s import read_k8s
from kvlint.launches.rewrite import substitute
from kvlint.launches.script import run_script
from kvlint.lazyre import lazy
from kvlint.sources.text import Mapped
from kvlint.sources.yaml import YamlFile, YNode

# launch_strings spells these out (every scalar of a document is asked): keep the two alike
ENTRY_MARKERS = ("vllm serve", "sglang serve", "sglang.launch_server", "vllm.entrypoints")


def read_values(yf: YamlFile, doc: YNode) -> tuple[list[Deployment], list[str | Finding]]:
    """A known chart's adapter, else the container walk, else launch strings; when all find nothing
    but the values deploy an engine image, the unknown-chart walk (a launch, or a KV008 finding), unless
    the chart's own templates beside this values.yaml hold the launch (then neither the generic adapter
    nor the unknown-chart walk assembles a second one from the values)."""
    from kvlint.launches.charts import adapters
    from kvlint.launches.helm_chart import templates_hold_launch

    for adapter, node in _claims(adapters(), doc):
        if adapter.__name__.endswith(".generic") and templates_hold_launch(yf.path):
            return [], []  # an unrecognised chart's values: its own template, read with them, is the launch
        return adapter.read(yf, node), []
    found = _containers_and_strings(yf, doc)
    if found and any(d.model is not None for d in found):
        return found, []
    from kvlint.launches.charts import unknown

    if templates_hold_launch(yf.path):  # as above, for the unknown-chart walk (its launch or its KV008)
        return found, []
    deps, findings = unknown.read(yf, doc)
    if found and not deps:  # argv-shaped keys without a model: the container walk's reading stands
        return found, []
    return deps, list(findings)


def _containers_and_strings(yf: YamlFile, doc: YNode) -> list[Deployment]:
    """The container walk's launches, and those of command strings elsewhere in the document that it did not
    read (a CI pipeline's `command:` string read as a container's beside another step's `commands:` list)."""
    found = read_k8s(yf, doc)
    strings = launch_strings(yf, doc)
    if not found:
        return strings
    lines = {d.launch_span.line for d in found if d.launch_span is not None}
    lines |= {d.model_span.line for d in found if d.model_span is not None}
    extra = [d for d in strings if d.launch_span is not None and d.launch_span.line not in lines
             and (d.model_span is None or d.model_span.line not in lines)]
    return sorted(found + extra, key=lambda d: (d.launch_span.line, d.launch_span.col) if d.launch_span else (0, 0))


def _claims(adapters: list, doc: YNode) -> Iterator[tuple[Any, YNode]]:
    """The adapter that knows the document, else one that knows a map below it (breadth first, a few levels):
    an umbrella chart's values hold each subchart's under the subchart's name (`vllm-stack:`, `global.stack:`),
    and a known chart there is still that chart."""
    for adapter in adapters:
        if adapter.matches(doc):
            yield adapter, doc
            return
    level, seen = [doc], 0
    for _ in range(_SUBCHART_DEPTH):
        below = [v for node in level for _, _, v in node.pairs() if v.is_map]
        for child in below:
            seen += 1
            limits.check()
            if seen > _SUBCHART_MAPS:
                return
            for adapter in adapters:
                if not adapter.__name__.endswith(".generic") and adapter.matches(child):
                    yield adapter, child
                    return
        level = below


_SUBCHART_DEPTH = 3  # subchart values sit under their name, at most under a parent's name or two
_SUBCHART_MAPS = 2000


_SCOPES = ("env", "variables")  # GitHub Actions `env:` (workflow, job, step), GitLab `variables:`
_GHA_REF = lazy(r"\$\{\{\s*env\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")


def launch_strings(yf: YamlFile, doc: YNode) -> list[Deployment]:
    """Engine launches inside any string value, read as a shell script (keeps the string's lines). A mapping's
    `env:` / `variables:` of plain values is the environment of the strings beside and below it (a workflow's
    `env:` feeds every job's `run:`, a step's its own), and `${{ env.NAME }}` reads as `$NAME`."""
    out: list[Deployment] = []
    image = None
    stack: list[tuple[YNode, dict[str, str]]] = [(doc, {})]
    while stack:
        limits.check()
        node, env = stack.pop()
        kind = node.kind
        if kind == "scalar":
            text = node.text  # ENTRY_MARKERS
            if "vllm serve" in text or "sglang serve" in text or "sglang.launch_server" in text \
                    or "vllm.entrypoints" in text:
                launches, _, notes = run_script(_ci_expressions(yf.mapped(node)), env)
                ctx = LaunchContext(image=image, notes=tuple(notes))
                out.extend(finish(yf.path, f, ctx, ManifestGpu()) for f in launches)
        elif kind == "seq":
            stack.extend([(item, env) for item in reversed(node.items)])
        else:
            pairs = list(node.pairs())
            scoped = [val for key, _, val in pairs if key in _SCOPES]
            inner = {**env, **{k: v for val in scoped for k, v in _scope(val)}} if scoped else env
            for key, _, val in reversed(pairs):
                if key == "image" and image is None and val.kind == "scalar":
                    image = val.text
                stack.append((val, inner))
    return out


def _scope(node: YNode) -> list[tuple[str, str]]:
    """The plain values of an `env:` / `variables:` map (GitLab's `NAME: {value: X}` too); a value that is
    itself an expression (`${{ secrets.X }}`, `${{ matrix.model }}`) is left unknown. A list of `NAME=value`
    strings (dstack's `env:`, compose's list form) is the same map; a bare `- NAME` is taken from the
    environment of whoever runs it: unknown."""
    out = []
    if node.is_seq:
        items = [item.text.partition("=") for item in node.items if item.is_scalar]
        return [(k, v) for k, eq, v in items if eq and "${{" not in v and k.replace("_", "a").isalnum()]
    for key, _, val in node.pairs() if node.is_map else ():
        if not val.is_scalar and val.is_map:
            val = next((v for k, _, v in val.pairs() if k == "value"), val)
        if val.is_scalar and "${{" not in val.text and key.replace("_", "a").isalnum():
            out.append((key, val.text))
    return out


def _ci_expressions(m: Mapped) -> Mapped:
    """`${{ env.NAME }}` (a GitHub Actions expression, filled in before the shell runs) as `${NAME}`, each
    character still at its place in the file."""
    if "${{" not in m.text:
        return m
    text, offsets = substitute(m.text, _GHA_REF, lambda e: "${" + e.group(1) + "}")
    return m.view(m.path, text, offsets)
