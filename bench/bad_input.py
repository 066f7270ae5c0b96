"""Pathological inputs: time and peak memory of `kvlint check`, and whether the other file is still reported.

Two tables. The first reads each case of the bad-input suite (tests/launches/bad_cases.py) in-process
(time, peak traced memory, what the reader said). The second runs, per row, a fresh `kvlint check
--format json BAD good.sh` in a child process, as pre-commit would: wall time including start-up, the
child's peak RSS (VmHWM), what kvlint said about BAD, and whether good.sh's KV105 was still reported. The
targets (issue 12): every row under 2 s and 200 MiB, good.sh reported (except where a broken
configuration stops the run with exit 2, by contract). The "before" column is the figure measured
at the start of the round where one was recorded.

Round 2 (issue 24) adds rows for a Helm template of `{`, oversized and implausible model configs, UTF-16,
a symlink out of the tree, 5,000 exclude globs and terminal escapes.

Usage: python bench/bad_input.py [--quick] [--round2]    (--quick: only the first table; --round2: only the
second table's round-2 rows)
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

from kvlint.launches import iter_files, read_path

CASES = Path(__file__).resolve().parent.parent / "tests" / "launches" / "bad_cases.py"
MIB = 1024 * 1024
BIG = 5 * MIB - 4096  # just under the size cap: the largest file kvlint reads
GOOD = "vllm serve Qwen/Qwen3-8B --max-model-len 1000000\n"  # KV105: proof the file was read

# child: run check, print seconds, peak RSS, exit code and the report
CHILD = """
import contextlib, io, json, resource, sys, time
t = time.perf_counter()
from kvlint.cli import main
out = io.StringIO()
with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
    code = main(["check", "--format", "json", *sys.argv[1:]])
secs = time.perf_counter() - t
try:  # this process's own high-water mark (ru_maxrss also counts the parent's memory at fork on Linux)
    rss = next(int(l.split()[1]) for l in open("/proc/self/status") if l.startswith("VmHWM")) / 1024
except OSError:
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / (1024 if sys.platform != "darwin" else 1048576)
print(json.dumps({"secs": secs, "rss": rss, "code": code, "report": out.getvalue()}))
"""


def _load():
    spec = importlib.util.spec_from_file_location("bad_cases", CASES)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def measure(builder, root: Path) -> tuple[str, float, float, str]:
    path, _ = builder(root)
    tracemalloc.start()
    tracemalloc.reset_peak()
    start = time.perf_counter()
    if path.is_dir():
        found = list(iter_files([str(path)]))
        outcome = "; ".join(r for _, r in found if r) or "walked"
    else:
        result = read_path(str(path))
        first = result.findings[0] if result.findings else None
        outcome = result.skipped or (f"KV001 line {first.span.line if first.span else '-'}: {first.message}"
                                     if first else f"{len(result.deployments)} instance(s)")
    secs = time.perf_counter() - start
    peak = tracemalloc.get_traced_memory()[1] / MIB
    tracemalloc.stop()
    return builder.__name__, secs, peak, outcome


def suite_table() -> None:
    mod = _load()
    # imports and flag tables load once, outside the figures
    read_path("warm-up.sh", "vllm serve org/m --max-model-len 1\n")
    read_path("warm-up.yaml", "a: {b: [1]}\n")
    print(f"{'case':16} {'ms':>8} {'peak MiB':>9}  outcome")
    with tempfile.TemporaryDirectory() as tmp:
        for i, builder in enumerate(mod.BUILDERS):
            root = Path(tmp) / str(i)
            root.mkdir()
            name, secs, peak, outcome = measure(builder, root)
            print(f"{name:16} {secs * 1000:8.1f} {peak:9.2f}  {outcome[:90]}")


# ---------------------------------------------------------------- pathological inputs through `kvlint check`

def _write(root: Path, name: str, text: str) -> list[str]:
    (root / name).write_text(text)
    return [str(root / name)]


def _repeat(unit: str, size: int = BIG) -> str:
    return unit * (size // len(unit))


def _fifo(root: Path) -> list[str]:
    os.mkfifo(root / "pipe.yaml")
    return [str(root / "pipe.yaml")]


def _fifo_in_folder(root: Path) -> list[str]:
    os.mkfifo(root / "values.yaml")
    return [str(root)]


def _symlink_loop(root: Path) -> list[str]:
    os.symlink("self", root / "self")
    os.symlink(".", root / "here")
    return [str(root)]


def _sparse(root: Path) -> list[str]:
    with open(root / "huge.yaml", "wb") as fh:
        fh.truncate(50 * MIB)
    return [str(root / "huge.yaml")]


def _config_bomb(root: Path) -> list[str]:
    lines = ['model: m', 'a0: &a0 ["x","x","x","x","x","x","x","x","x"]']
    lines += [f"a{i}: &a{i} [" + ",".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, 10)]
    (root / ".kvlint.yaml").write_text("\n".join(lines) + "\n")
    return _write(root, "serve.sh", GOOD)


def _chart_braces(root: Path) -> list[str]:
    """helm-brace-template.sh: a chart template ending in 1 MB of `{`; the chart folder is checked (values.yaml too)."""
    chart = root / "chart"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: x\nversion: 0.1.0\n")
    (chart / "values.yaml").write_text("model: Qwen/Qwen2.5-7B-Instruct\n")
    (chart / "templates" / "b.yaml").write_text(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: x}\nspec:\n  template:\n    spec:\n      containers:\n"
        "      - name: v\n        image: vllm/vllm-openai:v0.8.0\n        args: [\"--model\", \"{{ .Values.model }}\"]\n"
        "x: " + "{" * 1_000_000 + "\n")
    return [str(chart)]


def _model_config(text: str | None = None, **values: object) -> Callable[[Path], list[str]]:
    """A launch of org/x whose config.json (under `models:`) is `text`, or a Llama config with `values` set."""
    def build(root: Path) -> list[str]:
        (root / "m").mkdir()
        config = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 4096,
                  "num_attention_heads": 32, "num_key_value_heads": 8, "num_hidden_layers": 32, "head_dim": 128,
                  "max_position_embeddings": 8192, "vocab_size": 128256, "intermediate_size": 14336,
                  "torch_dtype": "bfloat16", **values}
        (root / "m" / "config.json").write_text(json.dumps(config) if text is None else text)
        (root / ".kvlint.yaml").write_text("models:\n  org/x: m\n")
        return _write(root, "s.sh", "vllm serve org/x --max-model-len 4096\n")
    return build


def _sparse_config(root: Path) -> list[str]:
    paths = _model_config("{}")(root)
    with open(root / "m" / "config.json", "wb") as fh:
        fh.truncate(2 * 1024 * MIB)  # config-json-no-size-cap.sh: sparse, costs no disk
    return paths


def _symlink_out(root: Path) -> list[str]:
    outside = Path(tempfile.mkdtemp())
    (outside / "x.sh").write_text(GOOD.replace("Qwen3-8B", "Qwen3-32B"))
    (root / "tree").mkdir()
    os.symlink(outside / "x.sh", root / "tree" / "link.sh")
    os.symlink(outside, root / "tree" / "dirlink")
    return [str(root / "tree")]


def _utf16(root: Path) -> list[str]:
    (root / "u.sh").write_bytes(GOOD.replace("Qwen3-8B", "Qwen3-32B").encode("utf-16"))
    return [str(root / "u.sh")]


def _exclude_globs(root: Path) -> list[str]:
    (root / "gen").mkdir()
    for i in range(2000):
        (root / "gen" / f"f{i}.yaml").write_text("a: 1\n")
    (root / ".kvlint.yaml").write_text("exclude:\n" + "".join(f"  - gen/x{i}/*.yaml\n" for i in range(5000)))
    return [str(root / "gen")]


POD = ("apiVersion: v1\nkind: Pod\nmetadata: {name: x}\nspec:\n  containers:\n  - name: c\n"
       "    image: vllm/vllm-openai:v0.8.5\n    args: [--model, Qwen/Qwen3-8B, --max-model-len, '4096']\n")
SCRIPT = ("#!/bin/bash\nset -e\nMODEL=Qwen/Qwen3-8B\nexport TP=2\n# comment\n"
          "vllm serve $MODEL --tensor-parallel-size $TP --max-model-len 4096 &\n")

# (name, before, builder): builder(root) -> paths for the command line (stdin rows: a file to feed).
# Each YAML / JSON input names a model, so it is parsed: a file with no word a launch is written with is
# only scanned (kvlint.launches.read.MAY_LAUNCH), which would measure nothing here.
ROWS: list[tuple[str, str, Callable[[Path], list[str]]]] = [
    ("yaml line of { 64 KiB", "110 s", lambda r: _write(r, "a.yaml", "model: " + "{" * 65536 + "\n")),
    ("yaml line of { 5 MiB", "", lambda r: _write(r, "a.yaml", "model: " + "{" * BIG + "\n")),
    ("yaml {{ x {{ 5 MiB", "", lambda r: _write(r, "a.yaml", "model: [\n" + _repeat("{{ x }} {{") + "\n")),
    ("shell line of { 64 KiB", "8.7 s", lambda r: _write(r, "a.sh", "vllm serve m " + "{" * 65536 + "\n")),
    ("shell line of {{ 5 MiB", "", lambda r: _write(r, "a.sh", "vllm serve m " + "{{" * (BIG // 2) + "\n")),
    ('shell line of " 5 MiB', "73 s, 852 MB", lambda r: _write(r, "a.sh", "vllm serve m " + '"' * BIG + "\n")),
    ("shell line of ' 5 MiB", "", lambda r: _write(r, "a.sh", "vllm serve m " + "'" * BIG + "\n")),
    ("shell one 5 MiB word", "", lambda r: _write(r, "a.sh", "vllm serve m --model-path" + "9" * BIG + "\n")),
    ("shell ${a:- nested 5 MiB", "", lambda r: _write(r, "a.sh", "vllm serve m " + _repeat("${a:-") + "\n")),
    ("shell $( nested 5 MiB", "", lambda r: _write(r, "a.sh", "vllm serve m \"" + _repeat("$(") + "\"\n")),
    ("realistic 5 MiB script", "133 s", lambda r: _write(r, "a.sh", _repeat(SCRIPT))),
    ("5 MiB script, one launch", "", lambda r: _write(r, "a.sh", "vllm serve m " + _repeat("--max-model-len 4 "))),
    ("10,000 unknown flags", "", lambda r: _write(r, "a.sh", "vllm serve m " + "--xx-yy 1 " * 10000 + "\n")),
    ("A=$A$A x 40 lines", "", lambda r: _write(r, "a.sh", "A=xx\n" + "A=$A$A\n" * 40 + "vllm serve m --x $A\n")),
    ("k8s env $(A)$(A) x 40", "", lambda r: _write(r, "a.yaml", POD.replace(
        "    args:", "    env:\n    - {name: A0, value: xx}\n"
        + "".join(f"    - {{name: A{i + 1}, value: '$(A{i})$(A{i})'}}\n" for i in range(40)) + "    args:")
        .replace("'4096']", "'4096', --served-model-name, '$(A40)']"))),
    ("realistic 5 MiB YAML, docs", "36 s", lambda r: _write(r, "a.yaml", _repeat("---\n" + POD))),
    ("5 MiB YAML, one list", "", lambda r: _write(r, "a.yaml", _repeat("- " + POD.replace("\n", "\n  ")[:-2]))),
    ("5 MiB YAML block scalar", "", lambda r: _write(r, "a.yaml", POD.replace(
        "    args: [--model, Qwen/Qwen3-8B, --max-model-len, '4096']\n",
        "    command: [sh, -c]\n    args:\n    - |\n" + _repeat("      vllm serve m --max-model-len 4\n")))),
    ("5 MiB Dockerfile CMD", "", lambda r: _write(r, "Dockerfile", "FROM vllm/vllm-openai\nCMD vllm serve m \\\n"
                                                  + _repeat("  --max-model-len 4 \\\n") + "\n")),
    ("5 MiB JSON of {", "", lambda r: _write(r, "engine.vllm.json", '{"model": ' + "{" * BIG)),
    ("alias bomb", "", lambda r: _write(r, "a.yaml", "\n".join(
        ['model: m', 'a0: &a0 ["x","x","x","x","x","x","x","x","x"]']
        + [f"a{i}: &a{i} [" + ",".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, 10)]) + "\n")),
    ("50 MiB sparse file", "", _sparse),
    ("named FIFO", "hangs", _fifo),
    ("FIFO in a folder", "hangs", _fifo_in_folder),
    ("/dev/zero", "MemoryError", lambda r: ["/dev/zero"]),
    ("check - < /dev/zero", "no cap", lambda r: ["-", "<", "/dev/zero"]),
    ("symlink loops in a folder", "dropped", _symlink_loop),
    (".kvlint.yaml alias bomb", "> 60 s", _config_bomb),
    # round 2 (issue 24)
    ("helm template, 1 MB of {", "215 s", _chart_braces),
    ("config.json 2 GB (sparse)", "37 s, 4.1 GiB", _sparse_config),
    ("num_hidden_layers 1e6", "33 s, 840 MB", _model_config(num_hidden_layers=10**6)),
    ("num_hidden_layers 1e7", "MemoryError", _model_config(num_hidden_layers=10**7)),
    ("num_hidden_layers 1e12", "internal err", _model_config(num_hidden_layers=10**12)),
    ("num_hidden_layers 5,001 digits", "internal err", _model_config(
        json.dumps({"num_hidden_layers": 1}).replace("1}", "9" * 5001 + "}"))),
    ("vocab_size -1", "a verdict", _model_config(vocab_size=-1)),
    ("UTF-16 with BOM", "binary", _utf16),
    ("symlink out of the tree", "followed", _symlink_out),
    ("5,000 exclude globs x 2,000", "58 s", _exclude_globs),
    ("ESC / CR in a model name", "raw", lambda r: _write(r, "e.sh", "vllm serve 'org/\x1b]0;T\x07\x1b[2J\r' "
                                                         "--max-model-len 4096\n")),
]


def run_row(name: str, before: str, builder: Callable[[Path], list[str]], root: Path) -> str:
    args = builder(root)
    stdin = None
    if "<" in args:
        stdin = open(args[args.index("<") + 1], "rb")  # noqa: SIM115 - closed below
        args = args[: args.index("<")]
    good = root / "good.sh"
    good.write_text(GOOD)
    cmd = [sys.executable, "-c", CHILD, *args] + ([] if args == ["-"] else [str(good)])
    try:
        proc = subprocess.run(cmd, stdin=stdin, capture_output=True, timeout=300, cwd=root)
        data = json.loads(proc.stdout)
    except subprocess.TimeoutExpired:
        return f"{name:28} {before:>13}  over 300 s"
    finally:
        if stdin is not None:
            stdin.close()
    report = json.loads(data["report"]) if data["report"].startswith("{") else None
    said = _said(report, args[0]) if report else "exit 2 (configuration error)"
    reported = "-" if args == ["-"] else ("yes" if report and any(
        f["code"] == "KV105" and f["path"].endswith("good.sh") for f in report["findings"]) else "no")
    return f"{name:28} {before:>13} {data['secs']:7.2f} {data['rss']:8.1f}  {reported:4} {said[:80]}"


def _said(report: dict, bad: str) -> str:
    """What kvlint said about the bad input: its KV001, a note, an unreadable entry, or what it found."""
    mine = [f for f in report["findings"] if not f["path"].endswith("good.sh")]
    kv001 = sorted((f for f in mine if f["code"] == "KV001"), key=lambda f: f["severity"] != "error")
    if kv001:
        return "KV001 " + kv001[0]["message"]
    notes = [n for n in report["notes"] if "good.sh" not in n]
    if notes:
        return "note: " + notes[0].split(": ", 1)[-1]
    if report["unreadable"]:
        return "unreadable: " + report["unreadable"][0]["reason"]
    return ", ".join(sorted({f["code"] for f in mine})) or "read, no finding"


def check_table() -> None:
    print(f"\n{'input (+ good.sh)':28} {'before':>13} {'s':>7} {'RSS MiB':>8}  good outcome for the input")
    with tempfile.TemporaryDirectory() as tmp:
        rows = ROWS[ROWS.index(next(r for r in ROWS if r[0].startswith("helm template"))):] if "--round2" in sys.argv \
            else ROWS
        for i, (name, before, builder) in enumerate(rows):
            if ("FIFO" in name and not hasattr(os, "mkfifo")) or ("/dev/zero" in name and not os.path.exists("/dev/zero")):
                continue
            root = Path(tmp) / str(i)
            root.mkdir()
            (root / ".git").mkdir()
            print(run_row(name, before, builder, root), flush=True)


def main() -> None:
    if "--round2" in sys.argv:
        check_table()
        return
    suite_table()
    if "--quick" not in sys.argv:
        check_table()


if __name__ == "__main__":
    main()
