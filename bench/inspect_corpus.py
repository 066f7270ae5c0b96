"""Time `kvlint inspect` readers over the corpus folder: seconds per hundred files.

Usage: python bench/inspect_corpus.py [FOLDER] [--repeat N]   (default ../shared/corpus)
Reads in-process (the readers' own cost), then times one `kvlint inspect --format json FOLDER`
process end to end (interpreter start-up and imports included).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

from kvlint.launches import iter_files, read_path

DEFAULT = Path(__file__).resolve().parent.parent.parent / "shared" / "corpus"


def run(folder: str, repeat: int) -> tuple[int, int, float]:
    best = float("inf")
    files = instances = 0
    for _ in range(repeat):
        start = time.perf_counter()
        files = instances = 0
        for path, reason in iter_files([folder]):
            if reason is None:
                files += 1
                instances += len(read_path(path).deployments)
        best = min(best, time.perf_counter() - start)
    return files, instances, best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folder", nargs="?", default=str(DEFAULT))
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    files, instances, secs = run(args.folder, args.repeat)
    per100 = secs / max(files, 1) * 100
    print(f"in-process: {files} files, {instances} engine instances, {secs:.3f} s (best of {args.repeat}) = {per100:.3f} s per 100 files")
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "kvlint", "inspect", "--format", "json", args.folder], capture_output=True)
    wall = time.perf_counter() - start
    print(f"kvlint inspect process: exit {done.returncode}, {wall:.3f} s wall = {wall / max(files, 1) * 100:.3f} s per 100 files")


if __name__ == "__main__":
    main()
