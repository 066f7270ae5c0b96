"""Mutation testing for the modules that compute a user's numbers: do the tests catch a wrong number?

Scope: kvlint/memory/, each engine's memory model (kvlint/engines/*/memory.py, planning.py, specs.py),
kvlint/models/, kvlint/resolve/ and the capacity rules (rules/kv1*.py). Standard
library only; `coverage` is needed for the one `map` step (install it in a bench venv, never as a
dependency of kvlint).

    python bench/mutate.py map                       # once (~5-10 min): which tests run which line
    python bench/mutate.py map --add tests/x.py      # merge new tests into the map
    python bench/mutate.py list --seed 1 --sample 200  # the sampled mutants, without running them
    python bench/mutate.py run --seed 1 --sample 200 [--out bench/mutation-seed1.jsonl] [--resume]
    python bench/mutate.py run --rerun bench/mutation-seed1.jsonl   # its survivors again, after new tests
    python bench/mutate.py show ID                   # one mutant's diff
    python bench/mutate.py report bench/mutation-seed1.jsonl [bench/mutation-seed1-rerun.jsonl ...]

`map` runs the test suite once under coverage with one context per test (this file is its pytest
plugin) and keeps, per target line, the tests that executed it and their durations
(bench/.mutate-map.json, not committed: it is per checkout). `run` makes every mutant of the target
files, draws a seeded sample, and runs each mutant against only the tests that execute its line (a
module-level line: the tests that read its names), the module's own test folder first, then fastest first,
with `-x`, a timeout and `nice -n 15`; `--budget S` (default 10) stops adding tests once their measured time
reaches S seconds, taking one case (all of them when cheap) of every test function that runs the line before a
second case of any (`--budget inf` runs them all). Results: bench/mutation.md.

Why the budget reaches the grids (helper MU3): the selection only knows which tests execute a line, not which
inputs make the mutant visible, so what it can pick must be split along what coverage can tell apart. The
settings grid (tests/memory/test_budget_grid.py) is therefore one test per cell (a column: one engine, release,
card and settings) over all 151 bundled configs, not one test per config: a column's settings decide which code
runs (only the PP columns run the per-stage code, only the fp8 ones the fp8 page), so a mutated line maps to the
few columns that execute it, each pinning that line's effect on every config in 0.2-0.6 s. Per config, every
config ran every line and the budget took the cheapest configs, often ones the mutant does not move (a PP
mutant on a model whose stages are equal). The assertions are the same cells against the same golden file.
Where coverage cannot separate cases (every column evaluates `pp_rank=rank if pp > 1 else None`), a case whose
id shares words with the mutated line (`sglang-pp2`) is taken first, if it is near the module and cheap
(NAMED_CASE_SECONDS: a corpus run named `[json]` must not take the budget of every line saying `json`). A
default argument is evaluated at import: its mutant runs the tests of the function's body.
`map --add FILES` replaces the entries of the files it re-runs (renamed tests do not linger), and a run whose
selected test no longer exists (pytest's exit 4, "not found") is `stale`, not a kill: it is not counted, and
`--rerun` runs it again. A mutant's source reaches the test process (and any
`kvlint` it spawns) through an import hook in a generated sitecustomize.py: the worktree is never
written, so an interrupted run leaves nothing behind.

Operators: aor (arithmetic swap), ror (comparison boundary < <= > >=, == !=, in / not in, is / is not),
int+1 / int-1, float (x1.1), not (condition negated, `not x` -> x, True <-> False), andor, minmax (min <->
max, ceil <-> floor), dropterm (`a + b` -> `a`), branch (a conditional expression always takes one side;
an `if` never taken).

A mutant is killed when a selected test fails or errors, or the run times out; it survives when they all
pass, or when no test runs its line (`uncovered`); `stale` (not counted) when a selected test is gone. Mutants judged equivalent (no input can tell them
apart) are listed in bench/mutants-equivalent.tsv, one per line: id, file:line, operator, why; they are
excluded from the rate. A mutant's id hashes its file, enclosing function, operator, and original and
mutated text, so it survives edits elsewhere in the file.
"""

from __future__ import annotations

import argparse
import ast
import copy
import difflib
import hashlib
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
BENCH = REPO / "bench"
MAP_FILE = BENCH / ".mutate-map.json"
EQUIVALENT_FILE = BENCH / "mutants-equivalent.tsv"
TARGET_DIRS = ("kvlint/memory", "kvlint/models", "kvlint/resolve")
CAPACITY_RULES = "rules/kv1*.py"  # KV101-KV108: the rules that compute or quote capacity
ENGINE_MEMORY = ("memory.py", "planning.py", "specs.py")  # each engine folder's memory model (issue P moved them)


def target_files() -> list[Path]:
    files = [p for d in TARGET_DIRS for p in sorted((REPO / d).glob("*.py"))]
    files += sorted(p for p in (REPO / "kvlint/engines").glob("*/*.py") if p.name in ENGINE_MEMORY)
    files += sorted(REPO.glob(CAPACITY_RULES))
    return [p for p in files if p.name != "__init__.py" or p.stat().st_size > 200]


def module_name(path: Path) -> str:
    rel = path.relative_to(REPO).with_suffix("")
    parts = list(rel.parts)
    if parts[0] == "rules":
        parts = ["kvlint", "rules", *parts[1:]]
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


# ----------------------------------------------------------------------------------------------- mutants


@dataclass
class Mutant:
    id: str
    file: str  # relative to the repository
    line: int
    end_line: int
    operator: str
    before: str  # the original expression's text
    after: str  # what replaces it
    function: str

    def source(self) -> str:
        return apply(REPO / self.file, self)


_AOR = {ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.Div, ast.Div: ast.Mult, ast.FloorDiv: ast.Mult,
        ast.Mod: ast.FloorDiv, ast.Pow: ast.Mult}
_ROR = {ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt, ast.Eq: ast.NotEq,
        ast.NotEq: ast.Eq, ast.In: ast.NotIn, ast.NotIn: ast.In, ast.Is: ast.IsNot, ast.IsNot: ast.Is}
_SWAP_CALLS = {"min": "max", "max": "min", "ceil": "floor", "floor": "ceil"}


def _is_text(node: ast.AST) -> bool:
    return isinstance(node, ast.JoinedStr) or (isinstance(node, ast.Constant) and isinstance(node.value, str | bytes))


def _variants(node: ast.AST) -> Iterator[tuple[str, ast.AST]]:
    """(operator, replacement node) for one node; the replacement is a new tree, the input is not changed."""
    if isinstance(node, ast.BinOp) and type(node.op) in _AOR and not (_is_text(node.left) or _is_text(node.right)):
        new = copy.deepcopy(node)
        new.op = _AOR[type(node.op)]()
        yield "aor", new
        if isinstance(node.op, ast.Add | ast.Sub):
            yield "dropterm", copy.deepcopy(node.left)
    elif isinstance(node, ast.Compare):
        for i, op in enumerate(node.ops):
            if type(op) in _ROR:
                new = copy.deepcopy(node)
                new.ops[i] = _ROR[type(op)]()
                yield "ror", new
    elif isinstance(node, ast.Constant) and type(node.value) is int:
        yield "int+1", ast.Constant(node.value + 1)
        yield "int-1", ast.Constant(node.value - 1)
    elif isinstance(node, ast.Constant) and type(node.value) is float:
        yield "float", ast.Constant(round(node.value * 1.1, 12) if node.value else 0.1)
    elif isinstance(node, ast.Constant) and type(node.value) is bool:
        yield "not", ast.Constant(not node.value)
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        yield "not", copy.deepcopy(node.operand)
    elif isinstance(node, ast.BoolOp):
        new = copy.deepcopy(node)
        new.op = ast.Or() if isinstance(node.op, ast.And) else ast.And()
        yield "andor", new
    elif isinstance(node, ast.Call):
        func = node.func
        name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
        if name in _SWAP_CALLS:
            new = copy.deepcopy(node)
            if isinstance(new.func, ast.Name):
                new.func.id = _SWAP_CALLS[name]
            else:
                assert isinstance(new.func, ast.Attribute)
                new.func.attr = _SWAP_CALLS[name]
            yield "minmax", new
    elif isinstance(node, ast.IfExp):
        yield "branch", copy.deepcopy(node.body)
        yield "branch", copy.deepcopy(node.orelse)


def _test_variants(test: ast.expr) -> Iterator[tuple[str, ast.AST]]:
    """An `if` / `while` / comprehension condition: negated, or never true (the other branch taken)."""
    yield "not", ast.UnaryOp(ast.Not(), copy.deepcopy(test))
    yield "branch", ast.Constant(False)


class _Walker(ast.NodeVisitor):
    """Every mutable expression outside annotations, docstrings, f-strings, decorators and TYPE_CHECKING."""

    def __init__(self) -> None:
        self.found: list[tuple[ast.AST, str, ast.AST, str]] = []
        self.scope: list[str] = []

    def _add(self, node: ast.AST, variants: Iterator[tuple[str, ast.AST]]) -> None:
        for op, new in variants:
            self.found.append((node, op, new, ".".join(self.scope) or "<module>"))

    def _scoped(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> None:
        self.scope.append(node.name)
        body = node.body
        if body and isinstance(body[0], ast.Expr) and _is_text(body[0].value):
            body = body[1:]  # docstring
        if not isinstance(node, ast.ClassDef):
            for default in [*node.args.defaults, *(d for d in node.args.kw_defaults if d is not None)]:
                self.visit(default)
        else:
            for base in node.bases:
                self.visit(base)
        for stmt in body:
            self.visit(stmt)
        self.scope.pop()

    visit_FunctionDef = visit_AsyncFunctionDef = visit_ClassDef = _scoped

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        if node.value is not None:
            self.visit(node.value)

    def visit_Assign(self, node: ast.Assign) -> None:
        names = {t.id for t in node.targets if isinstance(t, ast.Name)}
        if names & {"__all__", "__slots__"}:
            return
        self.generic_visit(node)

    def visit_JoinedStr(self, node: ast.JoinedStr) -> None:
        return  # positions inside f-strings are not reliable before Python 3.12

    def visit_Expr(self, node: ast.Expr) -> None:
        if not _is_text(node.value):
            self.generic_visit(node)

    def visit_If(self, node: ast.If) -> None:
        if "TYPE_CHECKING" in ast.unparse(node.test):
            return
        self._add(node.test, _test_variants(node.test))
        self.generic_visit(node)

    def visit_While(self, node: ast.While) -> None:
        self._add(node.test, _test_variants(node.test))
        self.generic_visit(node)

    def visit_comprehension(self, node: ast.comprehension) -> None:
        for cond in node.ifs:
            self._add(cond, _test_variants(cond))
        self.generic_visit(node)

    def visit_Assert(self, node: ast.Assert) -> None:
        return  # an assert guards the code; mutating it only makes the mutant fail louder or not at all

    def visit_Raise(self, node: ast.Raise) -> None:
        return  # which exception and its message: not a number a budget holds

    def generic_visit(self, node: ast.AST) -> None:
        if isinstance(node, ast.expr):
            self._add(node, _variants(node))
        super().generic_visit(node)


def _offsets(lines: list[bytes], line: int, col: int) -> int:
    return sum(len(x) for x in lines[: line - 1]) + col


def apply(path: Path, mutant: Mutant) -> str:
    """The file's text with the mutant's expression replaced; every other line keeps its number."""
    data = path.read_bytes()
    lines = data.splitlines(keepends=True)
    tree = ast.parse(data)
    for node, op, new, function in _Walker_run(tree):
        if _mutant_id(mutant.file, function, op, _segment(lines, node), _replacement(lines, node, new)) == mutant.id:
            start = _offsets(lines, node.lineno, node.col_offset)
            end = _offsets(lines, node.end_lineno or node.lineno, node.end_col_offset or 0)
            return (data[:start] + _replacement(lines, node, new).encode() + data[end:]).decode()
    raise LookupError(f"mutant {mutant.id} no longer exists in {mutant.file}")


def _Walker_run(tree: ast.AST) -> list[tuple[ast.AST, str, ast.AST, str]]:
    walker = _Walker()
    walker.visit(tree)
    return walker.found


def _segment(lines: list[bytes], node: ast.AST) -> str:
    start = _offsets(lines, node.lineno, node.col_offset)
    end = _offsets(lines, node.end_lineno or node.lineno, node.end_col_offset or 0)
    return b"".join(lines)[start:end].decode()


def _replacement(lines: list[bytes], node: ast.AST, new: ast.AST) -> str:
    """The new expression in parentheses, padded with the newlines the old one spanned."""
    spanned = (node.end_lineno or node.lineno) - node.lineno
    return "(" + ast.unparse(new) + "\n" * spanned + ")"


def _mutant_id(file: str, function: str, op: str, before: str, after: str) -> str:
    return hashlib.sha1("\0".join((file, function, op, before, after)).encode()).hexdigest()[:10]


def mutants_of(path: Path) -> list[Mutant]:
    data = path.read_bytes()
    lines = data.splitlines(keepends=True)
    rel = str(path.relative_to(REPO))
    out: dict[str, Mutant] = {}
    for node, op, new, function in _Walker_run(ast.parse(data)):
        before = _segment(lines, node)
        after = _replacement(lines, node, new)
        if ast.dump(ast.parse("(" + before + ")", mode="eval").body) == ast.dump(new):
            continue  # the same expression (e.g. `not x` where x is already the operand)
        mid = _mutant_id(rel, function, op, before, after)
        if mid in out:
            continue  # the same text twice in one function: one mutant (the first place)
        out[mid] = Mutant(mid, rel, node.lineno, node.end_lineno or node.lineno, op, before, after, function)
    return list(out.values())


def all_mutants() -> list[Mutant]:
    return [m for p in target_files() for m in mutants_of(p)]


def sample(seed: int, size: int, operators: set[str] | None = None, only: str | None = None) -> list[Mutant]:
    """A seeded draw; `only` (comma-separated path prefixes) keeps the files under them, for splitting work."""
    prefixes = tuple(only.split(",")) if only else ("",)
    pool = [
        m for m in all_mutants()
        if (operators is None or m.operator in operators) and m.file.startswith(prefixes)
    ]
    pool.sort(key=lambda m: (m.file, m.line, m.id))
    return random.Random(seed).sample(pool, min(size, len(pool)))  # in draw order: a run cut short is a sample too


def diff(m: Mutant) -> str:
    old = (REPO / m.file).read_text().splitlines()[m.line - 1 : m.end_line]
    new = m.source().splitlines()[m.line - 1 : m.end_line]
    return "\n".join(
        x for x in difflib.unified_diff(old, new, f"{m.file}:{m.line}", "mutant", n=0, lineterm="") if x[:2] != "@@"
    )


def equivalents() -> dict[str, str]:
    if not EQUIVALENT_FILE.exists():
        return {}
    out = {}
    for row in EQUIVALENT_FILE.read_text().splitlines():
        if row and not row.startswith("#"):
            cells = row.split("\t")
            out[cells[0]] = cells[-1]
    return out


# ---------------------------------------------------------------------------------- line -> tests map


def _plugin_start() -> None:
    """Loaded as a pytest plugin (`-p mutate`) by `map`: coverage with the test's node id as context."""
    import coverage  # only the bench needs it

    global _COV, _TIMES
    _COV = coverage.Coverage(data_file=os.environ["MUTATE_MAP_DATA"], include=[str(p) for p in target_files()])
    _TIMES = {}
    _COV.start()
    _COV.switch_context("")


_COV = None
_TIMES: dict[str, list] = {}


def pytest_runtest_setup(item) -> None:
    if _COV is not None:
        _COV.switch_context(item.nodeid)
        os.environ["MUTATE_MAP_CONTEXT"] = item.nodeid  # a `kvlint` the test spawns records under its name


_MAP_SITECUSTOMIZE = '''
import os
if os.environ.get("MUTATE_MAP_DATA") and os.environ.get("MUTATE_MAP_CONTEXT"):
    try:
        import atexit
        import coverage
        _cov = coverage.Coverage(data_file=os.environ["MUTATE_MAP_DATA"], data_suffix=True,
                                 include=os.environ["MUTATE_MAP_INCLUDE"].split(os.pathsep))
        _cov.start()
        _cov.switch_context(os.environ["MUTATE_MAP_CONTEXT"])
        atexit.register(lambda: (_cov.stop(), _cov.save()))
    except Exception:
        pass
'''


def pytest_runtest_logreport(report) -> None:
    if _COV is not None:
        entry = _TIMES.setdefault(report.nodeid, [0.0, "passed"])
        entry[0] += report.duration
        if report.failed:
            entry[1] = "failed"


def pytest_unconfigure(config) -> None:
    if _COV is not None:
        _COV.switch_context("")
        _COV.stop()
        _COV.save()
        Path(os.environ["MUTATE_MAP_DATA"] + ".times.json").write_text(json.dumps(_TIMES))


if os.environ.get("MUTATE_MAP_DATA") and __name__ == "mutate":
    _plugin_start()


def build_map(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        data = os.path.join(tmp, "cov.data")
        Path(tmp, "sitecustomize.py").write_text(_MAP_SITECUSTOMIZE)  # subprocesses (`kvlint ...`) are measured too
        env = dict(os.environ, MUTATE_MAP_DATA=data, CI="1", KVLINT_FILE_SECONDS="30",
                   MUTATE_MAP_INCLUDE=os.pathsep.join(str(p) for p in target_files()),
                   PYTHONPATH=os.pathsep.join([str(BENCH), tmp, os.environ.get("PYTHONPATH", "")]))
        env.pop("MUTATE_MAP_CONTEXT", None)
        cmd = ["nice", "-n", "15", sys.executable, "-m", "pytest", "-q", "-p", "mutate", "-p", "no:cacheprovider", *args.tests]
        print(" ".join(cmd), file=sys.stderr)
        subprocess.run(cmd, cwd=REPO, env=env, check=False)
        import coverage

        cov = coverage.CoverageData(data)
        cov.read()
        for part in Path(tmp).glob("cov.data.*"):
            if part.name.endswith(".times.json"):
                continue
            other = coverage.CoverageData(str(part))
            other.read()
            cov.update(other)
        times = json.loads(Path(data + ".times.json").read_text())
        lines: dict[str, dict[str, list[str]]] = {}
        for measured in cov.measured_files():
            rel = str(Path(measured).resolve().relative_to(REPO))
            by_line = cov.contexts_by_lineno(measured)
            lines[rel] = {str(n): sorted(c for c in ctxs if c) for n, ctxs in by_line.items()}
    if args.add and MAP_FILE.exists():  # new tests: merge their lines into the map instead of a full run
        old = json.loads(MAP_FILE.read_text())
        # The files re-run replace their old entries: a test renamed or removed there (a grid split into columns)
        # would otherwise stay in the map, be selected, and end its run with pytest's exit 4 ("not found").
        rerun = tuple(t.split("::")[0].rstrip("/") for t in args.tests)
        stale = {t for t in old["tests"] if t.split("::")[0].startswith(rerun)}
        old["tests"] = {t: v for t, v in old["tests"].items() if t not in stale}
        for by_line in old["lines"].values():
            for n, tests in list(by_line.items()):
                if stale.intersection(tests):
                    by_line[n] = [t for t in tests if t not in stale]
        for rel, by_line in lines.items():
            into = old["lines"].setdefault(rel, {})
            for n, tests in by_line.items():
                into[n] = sorted(set(into.get(n, [])) | set(tests))
        lines, times = old["lines"], {**old["tests"], **times}
    MAP_FILE.write_text(json.dumps({"lines": lines, "tests": times}))
    print(f"map: {sum(len(v) for v in lines.values())} lines, {len(times)} tests -> {MAP_FILE}")


def _tests_for(m: Mutant, mapping: dict, budget: float = float("inf")) -> list[str]:
    """The tests that execute the mutant's lines; for code run at import (a module constant, a default
    argument), the tests that execute the lines reading that name, or the function's body."""
    by_line = mapping["lines"].get(m.file, {})
    tests: set[str] = set()
    for n in range(m.line, m.end_line + 1):
        tests.update(by_line.get(str(n), []))
    if not tests or m.function == "<module>" or _in_signature(m):  # run at import (a module constant, a default
        tests = _import_time_tests(m, by_line) or tests  # argument): whoever imported the module first "covers" it
    ok = {t for t in tests if mapping["tests"].get(t, [0, "passed"])[1] == "passed"}
    source = (REPO / m.file).read_text().splitlines()[m.line - 1 : m.end_line]
    return _within_budget(ok, mapping["tests"], budget, _near(m.file), _words(" ".join(source)))


_CASE_WORDS_IGNORED = frozenset({"vllm", "sglang", "rtx", "gb", "off", "defaults", "given", "terms", "if", "else",
                                  "not", "and", "or", "is", "in", "none", "for", "return", "self", "true", "false"})
NAMED_CASE_SECONDS = 3.0  # a case named for the line is preferred only while cheap (the corpus runs named [json]
# or [text] matched every line that says `json` and took the whole budget: seed 72, helper MU3)


def _words(text: str) -> frozenset[str]:
    """The lowercase words of a source expression or a test case's id: `pp_rank if pp > 1` -> {pp, rank, if};
    `sglang-w0-pp2-page64` -> {pp, page} (digits and the engine names dropped)."""
    import re

    return frozenset(w for w in re.split(r"[^a-z]+", text.lower()) if len(w) >= 2) - _CASE_WORDS_IGNORED


def _case_matches(test: str, words: frozenset[str]) -> int:
    """How many words a parametrized case's id shares with the mutated line: the grid's `sglang-pp3-tp2` column
    for a mutant of `pp_rank=rank if pp > 1 else None, tp=tp`. Line coverage cannot tell such cases apart (every
    case evaluates the condition); their names can."""
    return len(words & _words(test[test.index("[") + 1 :])) if "[" in test else 0


def _near(file: str) -> tuple[str, ...]:
    """Test paths that belong to the mutated module: its package's test folder and its own name."""
    parts = Path(file).with_suffix("").parts
    area = "rules" if parts[0] == "rules" else parts[1]
    name = (parts[-2] if parts[-1] == "__init__" else parts[-1]).split("_")[0]  # "__init__" gave "": every test
    return (f"tests/{area}/", name) if name else (f"tests/{area}/",)


def _within_budget(tests: set[str], times: dict[str, list], budget: float, near: tuple[str, ...] = (),
                   words: frozenset[str] = frozenset()) -> list[str]:
    """Round robin over test functions (each function's parametrizations fastest first, the functions in the
    order of their fastest case) until the expected time reaches `budget` seconds: every function that runs
    the line gets its first chance (all its cases when they are cheap) before any function gets a second. Tests
    near the module (its package's test folder, or its name in the test's) go first: unit tests before the
    corpus-wide runs that happen to execute the line."""
    def cost(t: str) -> float:
        return float(times.get(t, [1.0])[0])

    def named(t: str) -> int:
        return _case_matches(t, words) if cost(t) <= NAMED_CASE_SECONDS and any(n in t for n in near) else 0

    groups: dict[str, list[str]] = {}
    for t in sorted(tests, key=lambda t: (-named(t), cost(t), t)):
        groups.setdefault(t.split("[")[0], []).append(t)
    order = sorted(groups.values(), key=lambda g: (not any(n in g[0] for n in near), -named(g[0]), cost(g[0]), g[0]))
    picked: list[str] = []
    spent = 0.0
    cheap = 0.5  # a function's cases are taken together while they cost this little (parametrized unit tests)
    most_named = 3  # and up to this many cases named for the mutated line's words
    for g in order:
        taken = 0
        while taken < len(g) and (taken == 0 or sum(map(cost, g[: taken + 1])) <= cheap
                                  or (taken < most_named and named(g[taken]))):
            taken += 1
        if picked and spent + sum(map(cost, g[:taken])) > budget:
            return picked
        picked += g[:taken]
        spent += sum(map(cost, g[:taken]))
        del g[:taken]
    for i in range(max((len(g) for g in order), default=0)):
        for g in order:
            if i < len(g):
                if picked and spent + cost(g[i]) > budget:
                    return picked
                picked.append(g[i])
                spent += cost(g[i])
    return picked


def _in_signature(m: Mutant) -> bool:
    """The mutant is in a def's header (a default argument), evaluated once at import, not when the body runs."""
    tree = ast.parse((REPO / m.file).read_bytes())
    return any(isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef) and f.lineno <= m.line < f.body[0].lineno
               for f in ast.walk(tree))


def _import_time_tests(m: Mutant, by_line: dict[str, list[str]]) -> set[str]:
    tree = ast.parse((REPO / m.file).read_bytes())
    lines_wanted: set[int] = set()
    for stmt in ast.walk(tree):
        if not isinstance(stmt, ast.stmt) or not (stmt.lineno <= m.line <= (stmt.end_lineno or stmt.lineno)):
            continue
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef) and m.line < stmt.body[0].lineno:
            lines_wanted |= set(range(stmt.body[0].lineno, (stmt.end_lineno or stmt.lineno) + 1))
        elif isinstance(stmt, ast.Assign | ast.AnnAssign):
            lines_wanted |= _readers(tree, _targets(stmt))
    return {t for n in lines_wanted for t in by_line.get(str(n), [])}


def _targets(stmt: ast.Assign | ast.AnnAssign) -> set[str]:
    targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
    names = set()
    for t in targets:
        for n in ast.walk(t):
            if isinstance(n, ast.Name):
                names.add(n.id)
            elif isinstance(n, ast.Attribute):
                names.add(n.attr)
    return names


def _readers(tree: ast.Module, names: set[str]) -> set[int]:
    """Lines that read `names`, following module-level assignments built from them (`_CEILINGS = {..: _DIM}`)."""
    top = {id(stmt): stmt for stmt in tree.body if isinstance(stmt, ast.Assign | ast.AnnAssign)}
    seen: set[str] = set()
    lines: set[int] = set()
    while names - seen:
        seen |= names
        new: set[str] = set()
        for stmt in ast.walk(tree):
            if not isinstance(stmt, ast.stmt):
                continue
            reads = [n for n in ast.walk(stmt) if (isinstance(n, ast.Name) and n.id in seen and isinstance(n.ctx, ast.Load))
                     or (isinstance(n, ast.Attribute) and n.attr in seen and isinstance(n.ctx, ast.Load))]
            if not reads:
                continue
            if id(stmt) in top:
                new |= _targets(top[id(stmt)])  # type: ignore[arg-type]
            elif not isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.If | ast.For | ast.While | ast.With | ast.Try):
                lines |= {n.lineno for n in reads}
        names = seen | new
    return lines


# ------------------------------------------------------------------------------------------ running

_SITECUSTOMIZE = '''
import os, sys
_MOD = os.environ.get("MUTATE_MODULE")
if _MOD:
    class _MutantLoader:  # duck-typed: importing importlib.abc here would show in tests that list imports
        def __init__(self, inner):
            self.inner = inner
        def create_module(self, spec):
            return None
        def exec_module(self, module):
            with open(os.environ["MUTATE_SOURCE"], encoding="utf-8") as f:
                code = compile(f.read(), module.__spec__.origin, "exec")
            exec(code, module.__dict__)
        def get_source(self, name):
            with open(os.environ["MUTATE_SOURCE"], encoding="utf-8") as f:
                return f.read()

    class _MutantFinder:
        def find_spec(self, fullname, path, target=None):
            if fullname != _MOD:
                return None
            for finder in sys.meta_path:
                if finder is self or not hasattr(finder, "find_spec"):
                    continue
                spec = finder.find_spec(fullname, path, target)
                if spec is not None:
                    spec.loader = _MutantLoader(spec.loader)
                    spec.cached = None
                    return spec
            return None

    sys.meta_path.insert(0, _MutantFinder())
'''


@dataclass
class Outcome:
    id: str
    file: str
    line: int
    operator: str
    status: str  # killed | survived | uncovered | timeout | equivalent | stale (not counted)
    tests: int
    seconds: float
    killer: str


def run_one(m: Mutant, mapping: dict, tmp: Path, timeout_factor: float, min_timeout: float,
            budget: float) -> Outcome:
    tests = _tests_for(m, mapping, budget)
    if not tests:
        return Outcome(m.id, m.file, m.line, m.operator, "uncovered", 0, 0.0, "")
    src = tmp / "mutant.py"
    src.write_text(m.source())
    argfile = tmp / "tests.txt"
    argfile.write_text("\n".join(tests) + "\n")
    expected = sum(mapping["tests"].get(t, [1.0])[0] for t in tests)
    timeout = max(min_timeout, expected * timeout_factor + 20)
    env = dict(
        os.environ,
        MUTATE_MODULE=module_name(REPO / m.file),
        MUTATE_SOURCE=str(src),
        CI="1",
        PYTHONPATH=os.pathsep.join([str(tmp), os.environ.get("PYTHONPATH", "")]),
        PYTHONDONTWRITEBYTECODE="1",
        KVLINT_FILE_SECONDS="30",  # a loaded machine must not fail a test on its CPU-time budget
    )
    env.pop("MUTATE_MAP_DATA", None)
    cmd = ["nice", "-n", "15", sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider",
           "--no-header", "-rf", f"@{argfile}"]
    start = time.monotonic()
    proc = subprocess.Popen(cmd, cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            start_new_session=True, text=True)
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        return Outcome(m.id, m.file, m.line, m.operator, "timeout", len(tests), time.monotonic() - start, "")
    seconds = time.monotonic() - start
    killer = next((x[len("FAILED "):].split(" - ")[0] for x in out.splitlines() if x.startswith("FAILED ")), "")
    if proc.returncode == 0:
        status = "survived"
    elif proc.returncode == 4 and "ERROR: not found:" in out and "ERROR collecting" not in out:
        status = "stale"  # a selected test no longer exists (a stale map): no verdict; rebuild the map, run again
    elif proc.returncode in (1, 2, 3) or killer:
        status = "killed"  # 1: a test failed; 2: collection broke (the mutant fails on import)
        killer = killer or out.strip().splitlines()[-1][:200] if out.strip() else killer
    else:
        status = "killed"
        killer = killer or f"exit {proc.returncode}"
    return Outcome(m.id, m.file, m.line, m.operator, status, len(tests), round(seconds, 1), killer)


def run(args: argparse.Namespace) -> None:
    mapping = json.loads(MAP_FILE.read_text())
    ops = set(args.operators.split(",")) if args.operators else None
    mutants = sample(args.seed, args.sample, ops, args.only)
    out = Path(args.out or BENCH / f"mutation-seed{args.seed}.jsonl")
    if args.rerun:  # the survivors of an earlier run, again (after new tests): a new results file, same sample
        earlier = [json.loads(x) for x in Path(args.rerun).read_text().splitlines() if x]
        alive = {r["id"] for r in earlier if r["status"] in ("survived", "uncovered", "stale")}
        mutants = [m for m in all_mutants() if m.id in alive]
        out = Path(args.out or str(args.rerun).replace(".jsonl", "-rerun.jsonl"))
    done: dict[str, dict] = {}
    if args.resume and out.exists():
        done = {r["id"]: r for r in map(json.loads, out.read_text().splitlines()) if r}
    elif out.exists():
        out.unlink()
    equivalent = equivalents()
    todo = [m for m in mutants if m.id not in done]
    lock = threading.Lock()
    counter = iter(range(len(done) + 1, len(mutants) + 1))

    def one(m: Mutant) -> None:
        with tempfile.TemporaryDirectory(prefix="mutate-") as tmpdir:
            tmp = Path(tmpdir)
            (tmp / "sitecustomize.py").write_text(_SITECUSTOMIZE)
            if m.id in equivalent:
                o = Outcome(m.id, m.file, m.line, m.operator, "equivalent", 0, 0.0, "")
            else:
                o = run_one(m, mapping, tmp, args.timeout_factor, args.min_timeout, args.budget)
        with lock:
            with out.open("a") as f:
                f.write(json.dumps(asdict(o)) + "\n")
            print(f"[{next(counter)}/{len(mutants)}] {o.status:9} {m.file}:{m.line} {m.operator} ({o.tests} tests, "
                  f"{o.seconds}s)", file=sys.stderr, flush=True)

    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        list(pool.map(one, todo))
    report(out, mutants)


def report(path: Path, mutants: list[Mutant] | None = None, *later: Path) -> None:
    """The kill rate of a results file; `later` files (reruns of its survivors) override its rows by id."""
    merged: dict[str, dict] = {}
    for p in (path, *later):
        merged.update((r["id"], r) for r in map(json.loads, p.read_text().splitlines()) if r)
    rows = list(merged.values())
    equivalent = equivalents()
    for r in rows:
        if r["id"] in equivalent:
            r["status"] = "equivalent"
    by_id = {m.id: m for m in (mutants or all_mutants())}
    stale = [r for r in rows if r["status"] == "stale"]
    if stale:
        print(f"# {len(stale)} mutants not judged (a selected test no longer exists: rebuild the map and rerun them)")
    counted = [r for r in rows if r["status"] not in ("equivalent", "stale")]
    killed = [r for r in counted if r["status"] in ("killed", "timeout")]
    alive = [r for r in counted if r["status"] not in ("killed", "timeout")]
    rate = 100.0 * len(killed) / len(counted) if counted else 0.0
    print(f"# {' + '.join(p.name for p in (path, *later))}: {len(rows)} mutants, {len(rows) - len(counted)} equivalent excluded; "
          f"killed {len(killed)} of {len(counted)} = {rate:.1f} %")
    per_op: dict[str, list[int]] = {}
    for r in counted:
        k = per_op.setdefault(r["operator"], [0, 0])
        k[0] += r["status"] in ("killed", "timeout")
        k[1] += 1
    print("# by operator: " + ", ".join(f"{op} {k}/{n}" for op, (k, n) in sorted(per_op.items())))
    for r in alive:
        m = by_id.get(r["id"])
        print(f"\n## {r['status']} {r['id']} {r['file']}:{r['line']} {r['operator']} ({r['tests']} tests)")
        if m is not None:
            print(diff(m))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("map", help="run the tests once under coverage: which tests execute which target line")
    p.add_argument("tests", nargs="*", default=["tests"])
    p.add_argument("--add", action="store_true", help="merge the given tests into the existing map")
    for name in ("list", "run"):
        p = sub.add_parser(name)
        p.add_argument("--seed", type=int, default=1)
        p.add_argument("--sample", type=int, default=200)
        p.add_argument("--operators", help="comma-separated subset, e.g. ror,int+1,int-1")
        p.add_argument("--only", help="comma-separated path prefixes, e.g. kvlint/memory,rules/")
        if name == "run":
            p.add_argument("--out")
            p.add_argument("--resume", action="store_true")
            p.add_argument("--rerun", metavar="RESULTS", help="run only the survivors of an earlier results file")
            p.add_argument("--jobs", type=int, default=1, help="mutants run at once (each under nice -n 15)")
            p.add_argument("--timeout-factor", type=float, default=4.0)
            p.add_argument("--min-timeout", type=float, default=60.0)
            p.add_argument("--budget", type=float, default=10.0,
                           help="seconds of (measured) test time per mutant; 'inf' runs every covering test")
    p = sub.add_parser("show")
    p.add_argument("ids", nargs="+")
    p = sub.add_parser("report", help="kill rate and survivors; reruns given after the first file override it")
    p.add_argument("results", nargs="+")
    args = parser.parse_args()
    if args.cmd == "map":
        build_map(args)
    elif args.cmd == "list":
        ms = sample(args.seed, args.sample, set(args.operators.split(",")) if args.operators else None, args.only)
        total = all_mutants()
        print(f"# {len(ms)} of {len(total)} mutants (seed {args.seed})")
        for m in sorted(ms, key=lambda m: (m.file, m.line, m.id)):
            print(f"{m.id}\t{m.file}:{m.line}\t{m.operator}\t{m.before!r} -> {m.after!r}")
    elif args.cmd == "run":
        run(args)
    elif args.cmd == "show":
        by_id = {m.id: m for m in all_mutants()}
        for i in args.ids:
            print(diff(by_id[i]) if i in by_id else f"{i}: no such mutant")
    elif args.cmd == "report":
        report(Path(args.results[0]), None, *map(Path, args.results[1:]))


if __name__ == "__main__":
    main()
