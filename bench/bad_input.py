"""Time and peak memory of reading each bad-input case (tests/launches/bad_cases.py).

Usage: python bench/bad_input.py
"""

from __future__ import annotations

import importlib.util
import tempfile
import time
import tracemalloc
from pathlib import Path

from kvlint.launches import iter_files, read_path

CASES = Path(__file__).resolve().parent.parent / "tests" / "launches" / "bad_cases.py"


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
        outcome = result.skipped or (f"KV001 line {first.span.line if first.span else '-'}: {first.message}" if first else f"{len(result.deployments)} instance(s)")
    secs = time.perf_counter() - start
    peak = tracemalloc.get_traced_memory()[1] / 1048576
    tracemalloc.stop()
    return builder.__name__, secs, peak, outcome


def main() -> None:
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


if __name__ == "__main__":
    main()
