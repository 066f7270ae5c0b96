"""The import graph of kvlint/ and rules/: its circles and the imports that run back up the floors.

    python bench/import_graph.py            # counts, the circles, the upward imports
    python bench/import_graph.py --engines  # and every import into or out of kvlint/engines/
    python bench/import_graph.py --repo DIR # another tree: git archive COMMIT kvlint rules | tar -x -C DIR

An edge is every `import` statement a module holds, wherever it stands (top level, inside a function, under
`if TYPE_CHECKING:`), relative ones resolved; a name imported from a package that is a module of its own
(`from kvlint.memory import nonkv`) is an edge to that module. Imports by string (`importlib.import_module`,
the engine registry) are not edges: the registry names its engines, it does not depend on them.

A circle is a strongly connected set of two or more modules. The floors are the pipeline's order as
tests/test_layers.py and docs/architecture.md state it, lowest first; an upward import is one from a module to a
module on a higher floor. A module of an engine folder (kvlint/engines/<name>/) sits on the floor of the part
it is: its facts with the base, its argument syntax with flags, its memory model with memory, its log patterns
with logs, its assembled record with the engines.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterable
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

# Lowest first. A module takes the floor of the longest prefix that names it.
FLOORS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("base", ("kvlint", "kvlint.record", "kvlint.errors", "kvlint.data", "kvlint.lazyre",
              "kvlint.limits", "kvlint.span", "kvlint.sizes", "kvlint.printable", "kvlint.quickschema",
              "kvlint.redact", "kvlint.suggest", "kvlint.engines.registered")),
    ("records", ("kvlint.deployment", "kvlint.budget", "kvlint.status", "kvlint.findings", "kvlint.models.spec",
                 "kvlint.gpus", "kvlint.logs.record", "kvlint.calibration.entry")),
    ("sources", ("kvlint.sources", "kvlint.ignore")),  # ignore.py: gitignore patterns, read with sources.text
    ("flags", ("kvlint.flags",)),
    ("models", ("kvlint.models", "kvlint.engines.architectures")),  # model classes a release refuses: a data lookup
    ("memory", ("kvlint.memory", "kvlint.logs")),
    ("engines", ("kvlint.engines",)),
    ("launches", ("kvlint.launches",)),
    ("config", ("kvlint.config", "kvlint.calibration", "kvlint.logs.checks", "kvlint.logs.compare",
                "kvlint.logs.render")),
    ("resolve", ("kvlint.resolve", "kvlint.plan")),
    ("rules", ("kvlint.registry", "kvlint.rules", "kvlint.ruledocs")),
    ("report", ("kvlint.suppress", "kvlint.baseline", "kvlint.report", "kvlint.lint")),  # report may import lint
    ("run", ("kvlint.parallel", "kvlint.commands", "kvlint.cli", "kvlint.__main__")),
)
# The floor of a module inside kvlint/engines/<name>/, by the module's own name.
ENGINE_PARTS = {"facts": "base", "syntax": "flags", "memory": "memory", "planning": "memory", "specs": "memory",
                "releases": "memory", "nonkv": "memory", "logs": "memory", "maxlen": "models"}


def modules(repo: Path = REPO) -> dict[str, Path]:
    """Every module of kvlint/ and rules/ (rules/ is the package kvlint.rules) by dotted name."""
    found = {}
    for path in sorted([*repo.joinpath("kvlint").rglob("*.py"), *repo.joinpath("rules").rglob("*.py")]):
        parts = list(path.relative_to(repo).with_suffix("").parts)
        if parts[0] == "rules":
            parts = ["kvlint", "rules", *parts[1:]]
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


def _target(name: str, known: dict[str, Path]) -> str | None:
    while name and name not in known:
        name = name.rpartition(".")[0]
    return name or None


def _base(module: str, path: Path, level: int) -> str:
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for _ in range(level - 1):
        package = package.rpartition(".")[0]
    return package


def edges(known: dict[str, Path]) -> dict[str, set[str]]:
    """module -> the modules it imports (kvlint's own only)."""
    graph: dict[str, set[str]] = {}
    for module, path in known.items():
        out: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names: Iterable[str] = ()
            if isinstance(node, ast.ImportFrom):
                head = node.module or ""
                if node.level:
                    base = _base(module, path, node.level)
                    head = f"{base}.{head}" if head else base
                names = (f"{head}.{a.name}" for a in node.names)
            elif isinstance(node, ast.Import):
                names = (a.name for a in node.names)
            out.update(t for t in (_target(n, known) for n in names) if t)
        out.discard(module)
        graph[module] = out
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected sets of two or more modules (Tarjan, iterative), largest first."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    found.append(sorted(group))
    return sorted(found, key=lambda g: (-len(g), g))


def floor(module: str) -> int:
    """The floor of `module` (its index in FLOORS)."""
    parts = module.split(".")
    if len(parts) >= 4 and parts[:2] == ["kvlint", "engines"] and parts[3] in ENGINE_PARTS:
        return [name for name, _ in FLOORS].index(ENGINE_PARTS[parts[3]])
    best, at = -1, 0
    for i, (_, prefixes) in enumerate(FLOORS):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > best:
                best, at = len(prefix), i
    return at


def upward(graph: dict[str, set[str]]) -> list[tuple[str, str]]:
    """Every (importer, imported) where the imported module sits on a higher floor."""
    return sorted((a, b) for a, outs in graph.items() for b in outs if floor(b) > floor(a))


def main(argv: list[str]) -> int:
    repo = Path(argv[argv.index("--repo") + 1]) if "--repo" in argv else REPO  # another checkout (git archive)
    graph = edges(modules(repo))
    rings = circles(graph)
    up = upward(graph)
    print(f"modules {len(graph)}, imports {sum(len(v) for v in graph.values())}")
    print(f"circles {len(rings)} (largest {max((len(r) for r in rings), default=0)}); "
          f"circles with kvlint.engines: {sum(any(m.startswith('kvlint.engines') for m in r) for r in rings)}")
    for ring in rings:
        print(f"  {len(ring)}: {' '.join(ring)}")
    print(f"upward imports {len(up)}; into or out of kvlint.engines: "
          f"{sum(a.startswith('kvlint.engines') or b.startswith('kvlint.engines') for a, b in up)}")
    for a, b in up:
        print(f"  {a} ({FLOORS[floor(a)][0]}) -> {b} ({FLOORS[floor(b)][0]})")
    if "--engines" in argv:
        for a in sorted(graph):
            for b in sorted(graph[a]):
                if a.startswith("kvlint.engines") or b.startswith("kvlint.engines"):
                    print(f"  {a} -> {b}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
