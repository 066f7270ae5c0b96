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

Round 2 (issue 24) adds: mutants placed as a Helm chart's template (Chart.yaml, values.yaml beside them, so
the `{{ }}` scan and the values check run), hostile model configs under `models:` (a seed config.json with a
node replaced by a hostile value: 10^12 layers, negative vocab, 5,000 digits ...), terminal escapes (ESC, CR,
C1) and planted fake credentials (URL user:password, Bearer) among the snippets; a case whose text report
shows a planted credential (while every copy of it in the input is intact) or a raw control character is
counted as a leak.

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
            "- ", ": ", "#", "\n", "<<EOF\n", "eval ", "bash -c '", "9" * 5000, " --max-model-len ", " -tp ", "\r\n",
            "{" * 2000, "{{ .Values.model }}", "{{- range .Values.x }}", "\x1b]0;T\x07", "\x1b[2J", "\r", "\x9b",
            " https://u:FAKEPASS0024@h.example/m ", " --password=FAKEPASS0025 ", "Authorization: Bearer FAKEBEARER26x ",
            " s3://AKIAFAKE:FAKEPASS0027@b "]
PLANTED = ("FAKEPASS", "FAKEBEARER")
CONFIG = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32,
          "num_key_value_heads": 8, "num_hidden_layers": 32, "head_dim": 128, "max_position_embeddings": 8192,
          "vocab_size": 128256, "intermediate_size": 14336, "torch_dtype": "bfloat16",
          "text_config": {"num_hidden_layers": 32, "sliding_window": 4096}}


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


_MAX_PATH_DEPTH = 64  # a mutant's YAML aliases can make data that holds itself (`&a [*a]`): the walk stops there


def _paths(data: Any, prefix: tuple = (), seen: frozenset[int] = frozenset()) -> list[tuple]:
    """Every path to a node in plain data, bounded: no deeper than _MAX_PATH_DEPTH, and never into a node the path
    already passed through (seed 48 drew a mutant whose aliases made a list hold itself)."""
    out = [prefix]
    if len(prefix) >= _MAX_PATH_DEPTH or id(data) in seen:
        return out
    inner = seen | {id(data)}
    if isinstance(data, dict):
        for k, v in data.items():
            out.extend(_paths(v, prefix + (k,), inner))
    elif isinstance(data, list):
        for i, v in enumerate(data):
            out.extend(_paths(v, prefix + (i,), inner))
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


def place(case: Path, name: str, text: str, rng: random.Random) -> tuple[Path, str]:
    """Where a mutant goes: as itself (most cases), as a chart template beside a (mutated) values.yaml, or as a
    launch of a model whose config.json under `models:` is the mutant (a hostile config)."""
    for stale in (case / ".kvlint.yaml", case / "Chart.yaml"):
        if stale.exists():
            stale.unlink()
    roll = rng.random()
    if roll < 0.1 and name.endswith((".yaml", ".yml")):
        (case / "templates").mkdir(exist_ok=True)
        (case / "Chart.yaml").write_text("apiVersion: v2\nname: x\nversion: 0.1.0\n")
        values = "model: Qwen/Qwen3-8B\nx: [1, 2]\n"
        (case / "values.yaml").write_text(mutate_text(values, rng) if rng.random() < 0.5 else values)
        return case / "templates" / name, "chart"
    if roll < 0.15:
        (case / "m").mkdir(exist_ok=True)
        config = json.dumps(CONFIG)
        for _ in range(rng.randint(1, 3)):
            config = mutate_data(config, rng) or mutate_text(config, rng)
        (case / "m" / "config.json").write_text(config, encoding="utf-8", errors="surrogatepass")
        (case / ".kvlint.yaml").write_text("models:\n  org/x: m\n")
        from kvlint.models.resolve import clear_cache

        clear_cache()
        return case / "s.sh", "config"
    return case / name, "file"


def leaks(path: Path, result) -> list[str]:
    """Planted credentials or raw control characters in the case's text report (only rendered when the case
    holds one, to keep the run fast)."""
    text = path.read_text(encoding="utf-8", errors="replace")
    if not any(p in text for p in PLANTED) and not any(c in text for c in "\x1b\r\x9b"):
        return []
    from kvlint.report import render_chunks

    out = "".join(render_chunks("text", result))
    found = [secret for secret, snippets in _PLANTED_IN.items()
             if secret in out and text.count(secret) == sum(text.count(s) for s in snippets)]
    return found + [f"raw {c!r}" for c in "\x1b\r\x9b" if c in out]


# each planted credential and the snippets that carry it whole: a mutation that cut `--password` off its
# `=FAKEPASS0025` leaves a value nothing names a secret, so it is only a leak while every copy is intact
_PLANTED_IN = {secret: [s for s in SNIPPETS if secret in s] for secret in
               ("FAKEPASS0024", "FAKEPASS0025", "FAKEBEARER26x", "FAKEPASS0027")}


def problems(result) -> tuple[list[str], bool]:
    """(internal errors, whether the file ran out of its time budget: a KV001 by design, counted apart)."""
    said = [r for _, r in result.unreadable if "internal error" in r]
    said += [n for n in result.notes if "internal error" in n]
    return said, any(f.code == "KV001" and "time budget" in f.message for f in result.findings)


def main() -> None:
    cases = int(sys.argv[1]) if len(sys.argv) > 1 else 20_000
    rng = random.Random(int(sys.argv[2]) if len(sys.argv) > 2 else 12)
    pool = seeds()
    errors, over_budget, shown, slowest, leak_count = 0, 0, 0, (0.0, ""), 0
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / ".git").mkdir()
        for n in range(cases):
            name, text = rng.choice(pool)
            text, how = mutate(name, text, rng)
            case = Path(tmp) / str(n % 64)
            case.mkdir(exist_ok=True)
            path, where = place(case, name, text, rng)
            if where == "config":
                text = "vllm serve org/x --max-model-len 4096\n"
            how.append(where)
            path.write_text(text, encoding="utf-8", errors="surrogatepass")
            t = time.perf_counter()
            try:
                result = lint([str(path)], LintOptions())
                found, slow = problems(result)
                leaked = leaks(path, result)
            except Exception as exc:  # noqa: BLE001 - counted, not raised: this is what we measure
                found, slow, leaked = [f"exception escaped lint(): {type(exc).__name__}: {exc}"], False, []
            errors += bool(found)
            if leaked:
                leak_count += 1
                found = found or [f"leak: {', '.join(leaked)}"]
            took = time.perf_counter() - t
            if took > slowest[0]:
                keep = Path(tmp).parent / "kvlint-fuzz-slowest"
                keep.mkdir(exist_ok=True)
                (keep / name).write_text(text, encoding="utf-8", errors="surrogatepass")
            slowest = max(slowest, (took, f"{name} ({'+'.join(how)}, {len(text):,} chars, case {n})"))
            over_budget += slow
            if found and shown < 10:
                shown += 1
                keep = Path(tmp).parent / f"kvlint-fuzz-{n}-{name}"
                keep.write_text(text, encoding="utf-8", errors="surrogatepass")
                print(f"case {n}: {name} ({'+'.join(how)}) -> {found[0][:200]}  [kept as {keep}]")
            os.remove(path)
    secs = time.perf_counter() - start
    print(f"{cases} mutated manifests from {len(pool)} seeds: {errors} internal errors, {leak_count} "
          f"leaks (planted credential or raw control character in the text report); {over_budget} over the "
          f"per-file time budget (KV001, by design); {secs:.0f} s ({secs / cases * 1000:.1f} ms per case), "
          f"slowest {slowest[0] * 1000:.0f} ms: {slowest[1]}")


if __name__ == "__main__":
    main()
