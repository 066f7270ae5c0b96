"""CPU time and work counts of `kvlint check` against another kvlint (a round start), for a busy machine.

check_vs_yamllint.py gives wall times beside yamllint; on a machine shared by many processes wall time
moves by tens of percent from run to run. This script measures what the load does not change much:

- `cpu`: user + system time (wait4: the process and every worker it waited for) of interleaved runs
  (after, before, after, before, ...), many of them; per size, the medians, the quartiles and the median
  of the per-pair ratios (a pair is two runs next to each other, so a change of load hits both);
- `instructions`: each kvlint run once under valgrind's callgrind (`--jobs 1`, the console's entry), its
  instruction count: the same on a quiet machine and a busy one (about 50 times slower than a run; with
  KVLINT_FILE_SECONDS=0, or the per-file time budget stops files under valgrind, and PYTHONHASHSEED=0);
- `work`: each kvlint profiled in its own interpreter (cProfile around `kvlint.cli.main`, `--jobs 1`; the
  console entry ends the process with os._exit, so it is not profiled): the calls made in all, and per
  counted function (catalogue sweeps, budgets, parses, file reads) how often it ran, with the functions
  whose call count or own time moved most. Call counts do not depend on the load.

The trees are those of check_vs_yamllint.py (the real manifests of examples/ and ../shared/corpus copied
until there are N files; one file is examples/kubernetes/good-deployment.yaml).

    python bench/cpu_work.py --kvlint before=/tmp/venv-before/bin/kvlint [--sizes 1,1000] [--repeat 15]
                             [--mode cpu|work|instructions|both] [--jobs N] [--top 15]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from check_vs_yamllint import generate, source_files, tool  # the same trees

RUN = ("import sys\nfrom kvlint import cli\nsys.argv = sys.argv[1:]\n"
       "entry = getattr(cli, 'entry', None)\n"
       "entry(sys.argv[1:]) if entry else sys.exit(cli.main(sys.argv[1:]))")

# function name -> what it counts; matched on "file:function" suffixes, whichever the version has
COUNTED = {
    "resolve/sweep.py:_sweep": "catalogue sweeps",
    "resolve/sizing.py:compute": "budgets computed",
    "resolve/__init__.py:_sized": "launches sized (alternatives included)",
    "resolve/__init__.py:resolve": "launches resolved",
    "launches/read.py:_read_one": "files read",
    "composer.py:compose_document": "YAML documents composed",
    "sources/shell.py:tokenize": "shell tokenisations",
    "registry.py:run_rules": "rule runs",
}

PROFILE = r"""
import cProfile, io, json, os, pstats, sys
from contextlib import redirect_stdout
from kvlint import cli
argv, out = sys.argv[1:-1], sys.argv[-1]
prof = cProfile.Profile()
with redirect_stdout(io.StringIO()):
    prof.enable()
    cli.main(argv)
    prof.disable()
stats = pstats.Stats(prof)
rows = {}
for (path, line, name), (cc, nc, tt, ct, _) in stats.stats.items():
    key = f"{path}:{name}"
    old = rows.get(key, (0, 0, 0.0))
    rows[key] = (old[0] + nc, old[1] + cc, old[2] + tt)
with open(out, "w") as fh:
    json.dump({"total": stats.total_calls, "primitive": stats.prim_calls, "rows": rows}, fh)
"""


def cpu_once(cmd: list[str], cwd: Path) -> tuple[float, float]:
    env = dict(os.environ, HF_HUB_OFFLINE="1", NO_COLOR="1", PYTHONPYCACHEPREFIX=str(cwd / "pyc"))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, _, usage = os.wait4(proc.pid, 0)
    proc.returncode = 0  # reaped by wait4
    return time.perf_counter() - start, usage.ru_utime + usage.ru_stime


def quartiles(values: list[float]) -> tuple[float, float, float]:
    if len(values) < 4:
        m = statistics.median(values)
        return min(values), m, max(values)
    q = statistics.quantiles(values, n=4)
    return q[0], q[1], q[2]


def measure_cpu(kvlints: dict[str, str], root: Path, repeat: int, jobs: list[str]) -> None:
    cmds = {name: [str(Path(script).with_name("python")), "-c", RUN, "kvlint", "check", "--exit-zero", *jobs, "tree"]
            for name, script in kvlints.items()}
    for cmd in cmds.values():
        cpu_once(cmd, root)  # warm-up: page cache, bytecode
    got: dict[str, list[tuple[float, float]]] = {name: [] for name in cmds}
    for i in range(repeat):
        order = list(cmds) if i % 2 == 0 else list(reversed(cmds))  # neither is always first
        for name in order:
            got[name].append(cpu_once(cmds[name], root))
    first = next(iter(cmds))
    for name, runs in got.items():
        cpu_q, wall_q = quartiles([c for _, c in runs]), quartiles([w for w, _ in runs])
        line = (f"  {name:<8} CPU {cpu_q[1]:7.3f} s (quartiles {cpu_q[0]:.3f}-{cpu_q[2]:.3f})  "
                f"wall {wall_q[1]:7.3f} s (quartiles {wall_q[0]:.3f}-{wall_q[2]:.3f})")
        if name != first:
            ratios = [a[1] / b[1] for a, b in zip(got[first], runs, strict=True)]
            walls = [a[0] / b[0] for a, b in zip(got[first], runs, strict=True)]
            line += (f"\n  {first} / {name}: CPU {statistics.median(ratios):.3f}x (pairs' median; quartiles "
                     f"{quartiles(ratios)[0]:.3f}-{quartiles(ratios)[2]:.3f}), wall {statistics.median(walls):.3f}x")
        print(line, flush=True)


def instructions(kvlints: dict[str, str], root: Path) -> None:
    """Instructions executed by each kvlint (callgrind's `I refs`), after a run that writes the bytecode."""
    import re
    import shutil

    if shutil.which("valgrind") is None:
        sys.exit("valgrind not found (apt-get install valgrind)")
    # Under callgrind a run is ~50 times slower, so kvlint's per-file CPU budget (1 s, kvlint.limits) stops files
    # that take 20 ms outside it (the one-file run's first file, with its imports, among them): a stopped file is
    # a KV001 and its work is not done, so the count is of another run. The budget is turned off, and the hash
    # seed fixed (two seeds differ by ~1-2 %: dict layouts and set orders).
    env = dict(os.environ, HF_HUB_OFFLINE="1", NO_COLOR="1", PYTHONPYCACHEPREFIX=str(root / "pyc"),
               KVLINT_FILE_SECONDS="0", PYTHONHASHSEED="0")
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    argv = ["check", "--exit-zero", "--jobs", "1", "tree"]
    counts = {}
    for name, script in kvlints.items():
        python = str(Path(script).with_name("python"))
        code = f"from kvlint.cli import entry; entry({argv!r})"
        subprocess.run([python, "-c", code], cwd=root, env=env, stdout=subprocess.DEVNULL, check=False)
        out = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", python, "-c", code],
                             cwd=root, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                             check=False)
        found = re.search(r"I\s+refs:\s+([\d,]+)", out.stderr)
        counts[name] = int(found.group(1).replace(",", "")) if found else 0
    first = next(iter(counts))
    for name, n in counts.items():
        ratio = f"  ({n / counts[first]:.3f}x of {first})" if name != first and counts[first] else ""
        print(f"  {name:<8} {n:>16,} instructions{ratio}", flush=True)


def profile(script: str, root: Path, out: Path) -> dict:
    python = str(Path(script).with_name("python"))
    env = dict(os.environ, HF_HUB_OFFLINE="1", NO_COLOR="1", PYTHONPYCACHEPREFIX=str(root / "pyc"))
    subprocess.run([python, "-c", PROFILE, "check", "--exit-zero", "--jobs", "1", "tree", str(out)], cwd=root,
                   env=env, check=True, stdout=subprocess.DEVNULL)
    return json.loads(out.read_text())


def _short(key: str) -> str:
    path, _, name = key.rpartition(":")
    parts = Path(path).parts
    if "kvlint" in parts:
        path = "/".join(parts[len(parts) - 1 - parts[::-1].index("kvlint"):])
    elif "site-packages" in parts:
        path = "/".join(parts[parts.index("site-packages") + 1:])
    return f"{path}:{name}"


def measure_work(kvlints: dict[str, str], root: Path, top: int) -> None:
    found = {}
    for name, script in kvlints.items():
        found[name] = profile(script, root, root / f"prof-{name}.json")
        found[name]["rows"] = {_short(k): v for k, v in found[name]["rows"].items()}
    names = list(found)
    print("  " + f"{'':<44}" + "".join(f"{n:>14}" for n in names))
    print("  " + f"{'function calls (all)':<44}" + "".join(f"{found[n]['total']:>14,}" for n in names))
    for suffix, what in COUNTED.items():
        counts = [sum(v[0] for k, v in found[n]["rows"].items() if k.endswith(suffix)) for n in names]
        print("  " + f"{what:<44}" + "".join(f"{c:>14,}" for c in counts))
    if len(names) < 2:
        return
    a, b = found[names[0]]["rows"], found[names[1]]["rows"]
    keys = set(a) | set(b)
    moved = sorted(keys, key=lambda k: -abs(a.get(k, (0, 0, 0.0))[2] - b.get(k, (0, 0, 0.0))[2]))[:top]
    print(f"  own time moved most ({names[0]} - {names[1]}, s; profiled, so inflated) and calls:")
    for k in moved:
        ta, tb = a.get(k, (0, 0, 0.0)), b.get(k, (0, 0, 0.0))
        print(f"    {ta[2] - tb[2]:+7.3f}  calls {ta[0]:>9,} vs {tb[0]:>9,}  {k}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kvlint", action="append", default=[], metavar="NAME=PATH",
                        help="another kvlint console script (first: this checkout's, named 'now')")
    parser.add_argument("--sizes", default="1,1000")
    parser.add_argument("--repeat", type=int, default=15, help="runs per kvlint and size (interleaved)")
    parser.add_argument("--mode", choices=("cpu", "work", "instructions", "both"), default="both",
                        help="both: cpu and work")
    parser.add_argument("--jobs", default=None, help="--jobs for the CPU runs (default: kvlint's)")
    parser.add_argument("--top", type=int, default=15, help="functions listed whose own time moved most")
    args = parser.parse_args()
    kvlints = {"now": tool("kvlint")}
    kvlints.update((n, p) for n, _, p in (k.partition("=") for k in args.kvlint))
    jobs = ["--jobs", args.jobs] if args.jobs else []
    files = source_files()
    print(f"{len(files)} source files replicated; cores usable: {len(os.sched_getaffinity(0))}; "
          f"load average {os.getloadavg()[0]:.1f}")
    for size in (int(s) for s in args.sizes.split(",")):
        with tempfile.TemporaryDirectory(prefix="kvlint-cpu-") as tmp:
            root = Path(tmp)
            generate(root / "tree", size, files)
            (root / ".git").mkdir()  # configuration discovery stops here
            if args.mode in ("cpu", "both"):
                print(f"{size} files, {args.repeat} interleaved runs each:", flush=True)
                measure_cpu(kvlints, root, args.repeat, jobs)
            if args.mode == "instructions":
                print(f"{size} files, instructions (callgrind, --jobs 1):", flush=True)
                instructions(kvlints, root)
            if args.mode in ("work", "both"):
                print(f"{size} files, work (cProfile, --jobs 1):", flush=True)
                measure_work(kvlints, root, args.top)


if __name__ == "__main__":
    main()
