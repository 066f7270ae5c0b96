"""The pipeline runs one way: a stage imports the records of the stages before it, never the stages after it.

The table is the rule docs/architecture.md states; the test reads every import (top level and inside
functions) of every module, so a shortcut back up the pipeline fails here.
"""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent

# stage -> packages it must never import
FORBIDDEN = {
    "kvlint.sources": ("kvlint.flags", "kvlint.launches", "kvlint.resolve", "kvlint.memory", "kvlint.registry",
                       "kvlint.rules", "kvlint.report", "kvlint.lint", "kvlint.commands"),
    "kvlint.flags": ("kvlint.launches", "kvlint.resolve", "kvlint.memory", "kvlint.registry", "kvlint.rules",
                     "kvlint.report", "kvlint.lint", "kvlint.commands"),
    "kvlint.launches": ("kvlint.resolve", "kvlint.memory", "kvlint.registry", "kvlint.rules", "kvlint.report",
                        "kvlint.lint", "kvlint.commands"),
    "kvlint.resolve": ("kvlint.launches", "kvlint.sources", "kvlint.rules", "kvlint.report", "kvlint.lint",
                       "kvlint.commands"),
    "kvlint.memory": ("kvlint.sources", "kvlint.flags", "kvlint.launches", "kvlint.resolve", "kvlint.registry",
                      "kvlint.rules", "kvlint.report", "kvlint.lint", "kvlint.commands", "kvlint.config"),
    "kvlint.rules": ("kvlint.sources", "kvlint.launches", "kvlint.memory", "kvlint.models.resolve",
                     "kvlint.resolve.sizing", "kvlint.resolve.sweep", "kvlint.report", "kvlint.lint",
                     "kvlint.commands"),
    "kvlint.report": ("kvlint.sources", "kvlint.launches", "kvlint.memory", "kvlint.resolve", "kvlint.commands"),
    "kvlint.engines": ("kvlint.launches", "kvlint.resolve", "kvlint.registry", "kvlint.rules", "kvlint.report",
                       "kvlint.lint", "kvlint.commands", "kvlint.calibration", "kvlint.config"),
}
# A module of an engine folder (kvlint/engines/<name>/<part>.py) keeps the rules of the stage its part belongs to
# (its engine.py, which assembles the record, those of kvlint.engines).
PART_STAGE = {"syntax": "kvlint.flags", "memory": "kvlint.memory", "planning": "kvlint.memory",
              "specs": "kvlint.memory", "releases": "kvlint.memory", "nonkv": "kvlint.memory"}
# Below the engine records: these ask kvlint.engines.registered for an engine's facts or parts by name, and never
# import a record, the protocol or a folder (each engine folder imports them: the other way is a circle).
BELOW_ENGINES = ("kvlint.flags", "kvlint.gpus", "kvlint.budget", "kvlint.deployment", "kvlint.models",
                 "kvlint.calibration.entry", "kvlint.logs.record", "kvlint.logs.patterns", "kvlint.logs.parse",
                 "kvlint.memory")


def _module(path: Path) -> str:
    rel = path.relative_to(REPO).with_suffix("")
    parts = list(rel.parts)
    if parts[0] == "rules":
        parts = ["kvlint", "rules", *parts[1:]]
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
    return found


MODULES = sorted([*REPO.joinpath("kvlint").rglob("*.py"), *REPO.joinpath("rules").rglob("*.py")])


def _stage(name: str) -> str | None:
    parts = name.split(".")
    if len(parts) == 4 and parts[:2] == ["kvlint", "engines"] and parts[3] in PART_STAGE:
        return PART_STAGE[parts[3]]
    return next((s for s in FORBIDDEN if name == s or name.startswith(s + ".")), None)


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(REPO)))
def test_no_stage_imports_a_later_one(path):
    name = _module(path)
    stage = _stage(name)
    if stage is None:
        return
    bad = sorted(i for i in _imports(path) for f in FORBIDDEN[stage] if i == f or i.startswith(f + "."))
    assert bad == [], f"{name} ({stage}) imports {bad}"


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(REPO)))
def test_below_the_engine_records_only_the_registration_is_asked(path):
    name = _module(path)
    if not any(name == b or name.startswith(b + ".") for b in BELOW_ENGINES):
        return
    bad = sorted(i for i in _imports(path)
                 if (i == "kvlint.engines" or i.startswith("kvlint.engines.")) and i != "kvlint.engines.registered"
                 and not i.startswith("kvlint.engines.registered."))
    assert bad == [], f"{name} imports {bad}: ask kvlint.engines.registered (facts, part) instead"


def test_no_import_circle_runs_through_kvlint_engines():
    spec = importlib.util.spec_from_file_location("import_graph", REPO / "bench" / "import_graph.py")
    assert spec is not None and spec.loader is not None
    graph = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(graph)
    edges = graph.edges(graph.modules(REPO))
    assert "kvlint.engines.registered" in edges["kvlint.flags.syntax"]  # the graph sees the imports it should
    rings = [r for r in graph.circles(edges) if any(m.startswith("kvlint.engines") for m in r)]
    assert rings == []


def _doc_table() -> dict[str, set[str]]:
    """docs/architecture.md's "What a stage may import" table: stage -> the packages it never imports."""
    text = (REPO / "docs" / "architecture.md").read_text(encoding="utf-8")
    section = text.split("## What a stage may import", 1)[1].split("\n## ", 1)[0]
    rows: dict[str, set[str]] = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 2 or cells[0] in ("stage", "---"):
            continue
        stage = "kvlint.rules" if cells[0] == "rules/" else cells[0]
        names = set()
        for name in (n.strip() for n in cells[1].split(",")):
            head, _, tails = name.partition(".")  # `resolve.sizing/sweep` is two modules of one package
            if tails:
                names.update(f"kvlint.{head}.{t}" for t in tails.split("/"))
            else:
                names.add(f"kvlint.{head}")
        rows[stage] = names
    return rows


def test_the_architecture_doc_states_the_rules_this_test_enforces():
    assert _doc_table() == {stage: set(never) for stage, never in FORBIDDEN.items()}
