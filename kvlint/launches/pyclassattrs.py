"""A server class's command read with its class attributes, once per class of the file that deploys it (sample
K102: Modal's `class ModelSGLangBase` builds `sglang.launch_server` from `self.*` in its `serve` method, and
fourteen subclasses, each under its own `@app.cls(gpu=...)`, override a few attributes: fourteen deployments).

`self.NAME` in a method is the class attribute the instance sees: the nearest of the class and its bases written
in the same file (`model: str = "org/m"`, `tp = N_GPU`), each value at the place it is written, so a finding on a
subclass's value points at the subclass. A class is deployed when a platform's decorator call wraps it
(`@app.cls(...)`, `@serve.deployment(...)`, `@bentoml.service(...)`); when any class of the family is, each such
class is one launch with its own attributes and its decorator's GPU; else the class that holds the command is the
one launch. A class written without a decorator call is a base a platform never starts on its own.
"""

from __future__ import annotations

import ast

from kvlint.launches.pycalls import bound_key, callee

MAX_CLASSES = 32  # deployed classes read per family: a file of variants is a few dozen at most
_MAX_DEPTH = 8  # bases followed upwards
# decorator calls that shape a class without deploying it
_NOT_DEPLOYING = frozenset({"dataclass", "define", "frozen", "mutable", "s", "attrs", "total_ordering",
                            "dataclass_transform", "final", "runtime_checkable", "lru_cache", "cache"})


def family(tree: ast.Module, cls: ast.ClassDef) -> list[tuple[ast.ClassDef, dict[str, ast.expr]]]:
    """(class, `self.NAME` -> the expression it is bound to) for each class of the file that runs `cls`'s command:
    the deployed classes among `cls` and its subclasses in the file, else `cls` alone."""
    classes = {c.name: c for c in ast.walk(tree) if isinstance(c, ast.ClassDef)}
    members = [c for c in classes.values() if cls in _lineage(c, classes)]
    deployed = [c for c in members if _deployed(c)][:MAX_CLASSES]
    return [(c, _attributes(_lineage(c, classes))) for c in (deployed or [cls])]


def reads(nodes: list[ast.expr], attrs: dict[str, ast.expr]) -> bool:
    """Whether any of the expressions reads one of the bound attributes."""
    return any(bound_key(n) in attrs for e in nodes for n in ast.walk(e) if isinstance(n, ast.Attribute))


def _lineage(cls: ast.ClassDef, classes: dict[str, ast.ClassDef]) -> list[ast.ClassDef]:
    """The class, then its bases written in the file, nearest first (the first base at each step, as Python's
    method order finds an attribute for single inheritance)."""
    out = [cls]
    while len(out) < _MAX_DEPTH:
        base = next((classes[b.id] for b in out[-1].bases if isinstance(b, ast.Name) and b.id in classes), None)
        if base is None or base in out:
            break
        out.append(base)
    return out


def _attributes(lineage: list[ast.ClassDef]) -> dict[str, ast.expr]:
    """`self.NAME` -> value for the attributes the lineage's class bodies assign, the nearest class's winning."""
    from kvlint.launches.pyfile import assigned

    out: dict[str, ast.expr] = {}
    for cls in reversed(lineage):
        for stmt in cls.body:
            found = assigned(stmt)  # `NAME = value`, `NAME: T = value`
            if found is not None:
                out[f"self.{found[0]}"] = found[1]
    return out


def _deployed(cls: ast.ClassDef) -> bool:
    """A decorator call on the class that is not one of Python's class-shaping ones."""
    return any(isinstance(deco, ast.Call) and callee(deco.func) not in _NOT_DEPLOYING for deco in cls.decorator_list)
