"""Whole-process cost of `kvlint check` beside yamllint and the parse floor, from 1 to 10,000 files.

The tree replicates the real manifests kvlint reads in examples/ and ../shared/corpus (the format mix
kept: Kubernetes, Helm values and templates, compose, SkyPilot, KServe, scripts, one JSON, the
examples' .kvlint.yaml), copy after copy, so a tree of N files holds N of those files. One file is
examples/kubernetes/good-deployment.yaml, the pre-commit case.

Per size, every command runs `--repeat` times, the commands alternating so a change of load on the
machine hits them alike; the table gives medians:
- wall and CPU (user + system of the process and every worker it waited for, from wait4);
- peak RSS of the process itself (VmHWM, read at exit by a wrapper that calls the tool's own entry
  point as its console script does; wait4's figure would include the RSS of this script, which forked
  it) and the largest peak among its workers (RUSAGE_CHILDREN; "-" without workers);
- bytecode written on the warm-up run (to a private cache), as a pip-installed hook has it;
- the ratio of the wall time to yamllint's and to the floor's (bench/floor.py: walk, read, CSafeLoader).

`--kvlint NAME=PATH` adds another kvlint (a checkout's .venv/bin/kvlint) as its own row, so a before
and an after come from the same run. `--jobs N` is passed to the kvlint rows that accept it.

    python bench/check_vs_yamllint.py [--sizes 1,100,1000,10000] [--repeat 3] [--repeat-large 1]
                                      [--kvlint before=/path/to/.venv/bin/kvlint] [--jobs N]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SOURCES = [REPO / "examples", REPO.parent / "shared" / "corpus"]
SAMPLE = REPO / "examples" / "kubernetes" / "good-deployment.yaml"
FLOOR = Path(__file__).resolve().with_name("floor.py")
YAMLLINT_CONFIG = "extends: relaxed\n"
LARGE = 10_000
WRAPPER = """\
import atexit, os, resource, sys
def _report():
    with open("/proc/self/status") as fh:
        own = next(int(line.split()[1]) for line in fh if line.startswith("VmHWM:"))
    workers = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    with open(os.environ["KVLINT_BENCH_RUSAGE"], "w") as fh:
        fh.write(f"{own} {workers}")
atexit.register(_report)
sys.argv = sys.argv[1:]
"""
RUN = {"kvlint": ("from kvlint import cli\n"  # the console script's function (main, before kvlint.cli.entry)
                  "entry = getattr(cli, 'entry', None)\n"
                  "entry(sys.argv[1:]) if entry else sys.exit(cli.main(sys.argv[1:]))"),
       "yamllint": "from yamllint.cli import run; sys.exit(run(sys.argv[1:]))",
       "floor": "import runpy; runpy.run_path(sys.argv[0], run_name='__main__')"}


def source_files() -> list[tuple[Path, Path]]:
    """(file, path relative to its source folder's parent) for every file kvlint's walk reads, sample first."""
    from kvlint.launches import iter_files

    out: list[tuple[Path, Path]] = []
    for folder in SOURCES:
        if not folder.is_dir():
            sys.exit(f"{folder} not found: the bench replicates it")
        for path, skip in iter_files([str(folder)]):
            if skip is None:
                out.append((Path(path), Path(path).relative_to(folder.parent)))
    out.sort(key=lambda item: item[0] != SAMPLE)
    return out


def generate(root: Path, count: int, files: list[tuple[Path, Path]]) -> None:
    """`count` files: the sources copied in order, copy k under c{k}/ with its folders kept."""
    for i in range(count):
        src, rel = files[i % len(files)]
        target = root / f"c{i // len(files):04d}" / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, target)


@dataclass(frozen=True)
class Sample:
    wall: float
    cpu: float
    rss_kib: int  # the process's own peak
    workers_kib: int  # the largest peak among the processes it waited for (0: none)


def once(cmd: list[str], cwd: Path) -> Sample:
    rusage_file = cwd / "rusage"
    rusage_file.unlink(missing_ok=True)
    env = dict(os.environ, HF_HUB_OFFLINE="1", NO_COLOR="1", KVLINT_BENCH_RUSAGE=str(rusage_file),
               PYTHONPYCACHEPREFIX=str(cwd / "pyc"))  # bytecode as a pip-installed hook has it, out of the checkout
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, _, usage = os.wait4(proc.pid, 0)
    proc.returncode = 0  # reaped by wait4
    wall = time.perf_counter() - start
    own, workers = (int(x) for x in rusage_file.read_text().split())
    return Sample(wall, usage.ru_utime + usage.ru_stime, own, workers)


@dataclass(frozen=True)
class Tool:
    name: str
    cmd: list[str]


def wrapped(python: str, kind: str, argv: list[str]) -> list[str]:
    """The command run by WRAPPER in `python`: the tool's own entry point, its peak RSS written at exit."""
    return [python, "-c", WRAPPER + RUN[kind], *argv]


def tool(name: str) -> str:
    local = Path(sys.executable).with_name(name)
    found = str(local) if local.exists() else shutil.which(name)
    if not found:
        sys.exit(f"{name} not found (pip install -e '.[test]')")
    return found


def kvlint_tool(name: str, script: str, jobs: int | None) -> Tool:
    """kvlint run with the interpreter beside its console script, as the script runs it (kvlint.cli.entry)."""
    python = str(Path(script).with_name("python"))
    extra = ["--jobs", str(jobs)] if jobs is not None and _has_jobs(script) else []
    return Tool(name, wrapped(python, "kvlint", ["kvlint", "check", "--exit-zero", *extra, "tree"]))


def _has_jobs(script: str) -> bool:
    out = subprocess.run([script, "check", "--help"], capture_output=True, text=True, check=False)
    return "--jobs" in out.stdout


def measure(tools: list[Tool], root: Path, repeat: int) -> dict[str, list[Sample]]:
    samples: dict[str, list[Sample]] = {t.name: [] for t in tools}
    for t in tools:
        once(t.cmd, root)  # warm-up: page cache, .pyc files
    for _ in range(repeat):
        for t in tools:
            samples[t.name].append(once(t.cmd, root))
    return samples


def median(values: list[float]) -> float:
    return statistics.median(values)


def row(size: int, name: str, runs: list[Sample], yamllint: float, floor: float) -> str:
    wall, cpu = median([s.wall for s in runs]), median([s.cpu for s in runs])
    own = median([s.rss_kib for s in runs]) / 1024
    workers = median([s.workers_kib for s in runs]) / 1024
    rss = f"{own:6.1f} / {workers:5.1f}" if workers else f"{own:6.1f} /     -"
    return (f"{size:>6} {name:<10} {wall:8.3f} {cpu:8.3f} {rss:>15} {wall / yamllint:11.2f}x {wall / floor:8.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1,100,1000,10000", help="comma-separated file counts")
    parser.add_argument("--repeat", type=int, default=3, help="runs per command for sizes under 10,000")
    parser.add_argument("--repeat-large", type=int, default=1, help="runs per command for 10,000 files and more")
    parser.add_argument("--kvlint", action="append", default=[], metavar="NAME=PATH",
                        help="another kvlint console script to measure beside this checkout's")
    parser.add_argument("--jobs", type=int, default=None, help="--jobs for the kvlint rows (default: kvlint's)")
    args = parser.parse_args()
    tools = [kvlint_tool("kvlint", tool("kvlint"), args.jobs)]
    tools += [kvlint_tool(n, p, args.jobs) for n, _, p in (k.partition("=") for k in args.kvlint)]
    tools += [Tool("yamllint", wrapped(sys.executable, "yamllint", ["yamllint", "-c", ".yamllint", "tree"])),
              Tool("floor", wrapped(sys.executable, "floor", [str(FLOOR), "tree"]))]
    files = source_files()
    print(f"{len(files)} source files replicated; cores usable: {len(os.sched_getaffinity(0))}; medians")
    print(f"{'files':>6} {'command':<10} {'wall s':>8} {'CPU s':>8} {'RSS MiB own/wkr':>15} "
          f"{'/ yamllint':>12} {'/ floor':>9}")
    for size in (int(s) for s in args.sizes.split(",")):
        with tempfile.TemporaryDirectory(prefix="kvlint-bench-") as tmp:
            root = Path(tmp)
            generate(root / "tree", size, files)
            (root / ".git").mkdir()  # configuration discovery stops here
            (root / ".yamllint").write_text(YAMLLINT_CONFIG)
            found = measure(tools, root, args.repeat_large if size >= LARGE else args.repeat)
        yl, fl = median([s.wall for s in found["yamllint"]]), median([s.wall for s in found["floor"]])
        for t in tools:
            print(row(size, t.name, found[t.name], yl, fl), flush=True)


if __name__ == "__main__":
    main()
