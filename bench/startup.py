"""Whole-process wall time of `kvlint check` on a few files, the cost a pre-commit hook adds per commit.

Three cases, each against yamllint on the same input (the reference cost of a YAML hook):
(a) one small manifest in a folder with no configuration, (b) the same manifest with a .kvlint.yaml
beside it (jsonschema validation runs), (c) the examples/ folder. Prints medians and ratios.

Bytecode matters more than anything kvlint does: `--pyc warm` (default) writes .pyc files to a
private cache first, as a pip-installed hook has them; `--pyc off` sets PYTHONDONTWRITEBYTECODE so
every module is compiled from source on every run (what a read-only checkout without .pyc pays).

    python bench/startup.py [--runs 11] [--pyc warm|off|both]
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
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = REPO / "examples"
SAMPLE = EXAMPLES / "kubernetes" / "good-deployment.yaml"


def tool(name: str) -> str:
    local = Path(sys.executable).with_name(name)
    found = str(local) if local.exists() else shutil.which(name)
    if not found:
        sys.exit(f"{name} not found (pip install -e '.[test]')")
    return found


def environment(pyc: str, cache: Path) -> dict[str, str]:
    env = dict(os.environ, HF_HUB_OFFLINE="1", NO_COLOR="1")
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.pop("PYTHONPYCACHEPREFIX", None)
    if pyc == "off":
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    else:
        env["PYTHONPYCACHEPREFIX"] = str(cache)  # keeps .pyc out of the checkout
    return env


def once(cmd: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float]:
    """(wall, user+sys CPU) seconds of one whole process; CPU is steadier than wall on a busy machine."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, _, usage = os.wait4(proc.pid, 0)
    proc.returncode = 0  # reaped by wait4
    return time.perf_counter() - start, usage.ru_utime + usage.ru_stime


def median_times(cmds: list[list[str]], runs: int, cwd: Path, env: dict[str, str]) -> list[tuple[float, float]]:
    """Median (wall, cpu) per command; the commands alternate so a load change hits them alike."""
    for cmd in cmds:
        once(cmd, cwd, env)  # warm-up: writes the .pyc files (pyc=warm) and fills the page cache
    samples = [[once(cmd, cwd, env) for cmd in cmds] for _ in range(runs)]
    return [(statistics.median(s[i][0] for s in samples), statistics.median(s[i][1] for s in samples))
            for i in range(len(cmds))]


def cases(root: Path) -> list[tuple[str, Path, str]]:
    """(label, working directory, target): the copies sit under a .git so config discovery stops there."""
    (root / ".git").mkdir()
    for name in ("noconf", "conf"):
        (root / name).mkdir()
        shutil.copy(SAMPLE, root / name / SAMPLE.name)
    shutil.copy(EXAMPLES / ".kvlint.yaml", root / "conf" / ".kvlint.yaml")
    return [("(a) 1 file, no config", root, f"noconf/{SAMPLE.name}"),
            ("(b) 1 file + .kvlint.yaml", root, f"conf/{SAMPLE.name}"),
            ("(c) examples/", REPO, "examples")]


def run(pyc: str, runs: int) -> None:
    kvlint, yamllint = tool("kvlint"), tool("yamllint")
    with tempfile.TemporaryDirectory(prefix="kvlint-startup-") as tmp:
        env = environment(pyc, Path(tmp) / "pyc")
        work = Path(tmp) / "work"
        work.mkdir()
        [(base, _)] = median_times([[sys.executable, "-c", "pass"]], runs, work, env)
        print(f"pyc={pyc}  runs={runs}  median wall (cpu)  python -c pass: {base:.3f} s")
        print(f"{'case':28} {'kvlint':>15} {'yamllint':>15} {'ratio':>6}")
        for label, cwd, target in cases(work):
            (kv, kv_cpu), (yl, yl_cpu) = median_times(
                [[kvlint, "check", "--exit-zero", target], [yamllint, "-d", "relaxed", target]], runs, cwd, env)
            print(f"{label:28} {kv:6.3f}s ({kv_cpu:.3f}) {yl:6.3f}s ({yl_cpu:.3f}) {kv / yl:6.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=11)
    parser.add_argument("--pyc", choices=("warm", "off", "both"), default="warm")
    args = parser.parse_args()
    for pyc in ("warm", "off") if args.pyc == "both" else (args.pyc,):
        run(pyc, args.runs)


if __name__ == "__main__":
    main()
