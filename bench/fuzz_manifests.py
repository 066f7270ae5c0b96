"""Mutated real manifests through the whole `kvlint check` pipeline: how many internal errors?

Seeds are every manifest in examples/ and tests/fixtures (YAML, shell and Slurm scripts, Dockerfiles,
and each YAML document again as a JSON engine config). Each case applies one to three mutations,
either to the parsed data (a node replaced by a hostile value: a mapping where a string was, an
integer of 5,000 digits, 1e999, a 300-character model name, Unicode digits, a deep list, ...) or to
the raw text (bytes deleted, duplicated or inserted: `{{`, `${`, quotes, NUL, tabs, anchors, aliases).
Every case is checked in-process like a pre-commit run; an "internal error" (a reader or rule bug turned
into an unreadable input or a note) or an exception escaping lint() is counted and the first few are
kept and printed with the mutation that caused them. Files that run out of the per-file time budget
(mutants of 5 MB: a 5,000-character snippet inserted 1,000 times) are a KV001 by design, counted apart.

Usage: python bench/fuzz_manifests.py [CASES] [SEED]     (defaults: 20000 cases, seed 12)
"""

from __future__ import annotations

import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import yaml

from kvlint.lint import LintOptions, lint

ROOT = Path(__file__).resolve().parent.parent
SEED_DIRS = (ROOT / "examples", ROOT / "tests" / "fixtures")
NAMES = {".yaml": "yaml", ".yml": "yaml", ".sh": "shell", ".slurm": "shell", ".sbatch": "shell"}

HOSTILE_VALUES: list[Any] = [
    {"a": "b"}, ["x", {"y": 1}], None, True, -1, 0, 2**63, int("9" * 400), "9" * 5000, 1e308, float("inf"),
    float("nan"), "1e999", "²", "٣", "a" * 300, "/".join(["c" * 200] * 30), "${A:-${B:-${C}}}", "$(X)", "{{ .V }}",
    "hf_" + "A" * 34, "--max-model-len", "", " ", "\t", "\u202e", [[[[[[[[[[1]]]]]]]]]], {"<<": {"k": 1}},
]
SNIPPETS = ["{{", "}}", "${", "$(", "$((", "`", '"', "'", "\\", "\x00", "\t", "&a ", "*a", "<<: *a\n", "---\n",
            "- ", ": ", "#", "\n", "<<EOF\n", "eval ", "bash -c '", "9" * 5000, " --max-model-len ", " -tp ", "\r\n"]


def seeds() -> list[tuple[str, str]]:
    """(file name, text) of every seed manifest, and JSON versions of the YAML mappings."""
    out: list[tuple[str, str]] = []
    for folder in SEED_DIRS:
        for path in sorted(folder.rglob("*")):
            if not path.is_file() or path.name.startswith(".") or path.suffix in (".md", ".log", ".json"):
                continue
            kind = NAMES.get(path.suffix) or ("dockerfile" if path.name.lower().startswith("dockerfile") else None)
            if kind is None:
                continue
            text = path.read_text(encoding="utf-8", errors="replace")
            out.append((path.name, text))
            if kind == "yaml":
                out.extend(("engine.vllm.json", json.dumps(doc, default=str)) for doc in _docs(text)
                           if isinstance(doc, dict))
    return out


def _docs(text: str) -> list[Any]:
    try:
        return list(yaml.safe_load_all(text))
    except (yaml.YAMLError, ValueError, RecursionError):  # a 5,000-digit integer is a ValueError in PyYAML
        return []


def _paths(data: Any, prefix: tuple = ()) -> list[tuple]:
    """Every path to a node in plain data (bounded walk: seeds are small)."""
    out = [prefix]
    if isinstance(data, dict):
        for k, v in data.items():
            out.extend(_paths(v, prefix + (k,)))
    elif isinstance(data, list):
        for i, v in enumerate(data):
            out.extend(_paths(v, prefix + (i,)))
    return out


def _replace(data: Any, path: tuple, value: Any) -> Any:
    if not path:
        return value
    parent = data
    for key in path[:-1]:
        parent = parent[key]
    parent[path[-1]] = value
    return data


def mutate_data(text: str, rng: random.Random) -> str | None:
    docs = _docs(text)
    if not docs:
        return None
    i = rng.randrange(len(docs))
    paths = _paths(docs[i])
    docs[i] = _replace(docs[i], rng.choice(paths), rng.choice(HOSTILE_VALUES))
    try:
        return yaml.safe_dump_all(docs, sort_keys=False, width=10**6)
    except (yaml.YAMLError, ValueError, RecursionError):
        return None


def mutate_text(text: str, rng: random.Random) -> str:
    if not text:
        return rng.choice(SNIPPETS)
    a = rng.randrange(len(text))
    b = min(len(text), a + rng.randrange(1, 40))
    op = rng.randrange(4)
    if op == 0:
        return text[:a] + text[b:]
    if op == 1:
        return text[:b] + text[a:b] * rng.randrange(2, 50) + text[b:]
    if op == 2:
        return text[:a] + rng.choice(SNIPPETS) * rng.choice((1, 1, 2, 10, 1000)) + text[a:]
    return text[:a]


def mutate(name: str, text: str, rng: random.Random) -> tuple[str, list[str]]:
    how: list[str] = []
    for _ in range(rng.randint(1, 3)):
        structured = name.endswith((".yaml", ".yml", ".json")) and rng.random() < 0.5
        changed = mutate_data(text, rng) if structured else None
        if changed is None:
            changed, kind = mutate_text(text, rng), "text"
        else:
            kind = "data"
            if name.endswith(".json"):
                docs = _docs(changed)
                changed = json.dumps(docs[0] if docs else None, default=str)
        text = changed
        how.append(kind)
    return text, how


def problems(result) -> tuple[list[str], bool]:
    """(internal errors, whether the file ran out of its time budget: a KV001 by design, counted apart)."""
    said = [r for _, r in result.unreadable if "internal error" in r]
    said += [n for n in result.notes if "internal error" in n]
    return said, any(f.code == "KV001" and "time budget" in f.message for f in result.findings)


def main() -> None:
    cases = int(sys.argv[1]) if len(sys.argv) > 1 else 20_000
    rng = random.Random(int(sys.argv[2]) if len(sys.argv) > 2 else 12)
    pool = seeds()
    errors, over_budget, shown, slowest = 0, 0, 0, (0.0, "")
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / ".git").mkdir()
        for n in range(cases):
            name, text = rng.choice(pool)
            text, how = mutate(name, text, rng)
            case = Path(tmp) / str(n % 64)
            case.mkdir(exist_ok=True)
            path = case / name
            path.write_text(text, encoding="utf-8", errors="surrogatepass")
            t = time.perf_counter()
            try:
                found, slow = problems(lint([str(path)], LintOptions()))
            except Exception as exc:  # noqa: BLE001 - counted, not raised: this is what we measure
                found, slow = [f"exception escaped lint(): {type(exc).__name__}: {exc}"], False
            took = time.perf_counter() - t
            slowest = max(slowest, (took, f"{name} ({'+'.join(how)}, {len(text):,} chars)"))
            over_budget += slow
            if found:
                errors += 1
                if shown < 10:
                    shown += 1
                    keep = Path(tmp).parent / f"kvlint-fuzz-{n}-{name}"
                    keep.write_text(text, encoding="utf-8", errors="surrogatepass")
                    print(f"case {n}: {name} ({'+'.join(how)}) -> {found[0][:200]}  [kept as {keep}]")
            os.remove(path)
    secs = time.perf_counter() - start
    print(f"{cases} mutated manifests from {len(pool)} seeds: {errors} internal errors; {over_budget} over the "
          f"per-file time budget (KV001, by design); {secs:.0f} s ({secs / cases * 1000:.1f} ms per case), "
          f"slowest {slowest[0] * 1000:.0f} ms: {slowest[1]}")


if __name__ == "__main__":
    main()
