"""The pipeline runs one way: a stage imports the records of the stages before it, never the stages after it.

The table is the rule docs/architecture.md states; the test reads every import (top level and inside
functions) of every module, so a shortcut back up the pipeline fails here.
"""

from __future__ import annotations

import ast
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
}


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


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(REPO)))
def test_no_stage_imports_a_later_one(path):
    name = _module(path)
    stage = next((s for s in FORBIDDEN if name == s or name.startswith(s + ".")), None)
    if stage is None:
        return
    bad = sorted(i for i in _imports(path) for f in FORBIDDEN[stage] if i == f or i.startswith(f + "."))
    assert bad == [], f"{name} ({stage}) imports {bad}"
