"""The floor of a YAML hook: walk the tree, read every file kvlint would read, parse YAML with CSafeLoader.

Nothing else: no source map, no launches, no arithmetic, no report. `check_vs_yamllint.py` runs it as
its own process beside kvlint and yamllint, so "kvlint / floor" says how far kvlint's per-file cost is
from the cost of reading and parsing the same files at C speed.

    python bench/floor.py TREE...
"""

from __future__ import annotations

import os
import sys

import yaml

READ = (".yaml", ".yml", ".sh", ".bash", ".slurm", ".sbatch", ".json", ".tpl")
SKIP = {".git", "node_modules", ".venv", "venv", "__pycache__"}


def files(root: str) -> list[str]:
    """Every file kvlint's walk would consider, by name (the same extensions; Dockerfiles by name)."""
    out = []
    for folder, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in SKIP)
        for name in sorted(names):
            low = name.lower()
            if low.endswith(READ) or low.startswith("dockerfile") or low.endswith(".dockerfile"):
                out.append(os.path.join(folder, name))
    return out


def parse(path: str) -> int:
    """Documents parsed (0 for a text file, which is only read and decoded)."""
    with open(path, "rb") as fh:
        text = fh.read().decode("utf-8", "replace")
    if not path.lower().endswith((".yaml", ".yml")):
        return 0
    try:
        return sum(1 for _ in yaml.load_all(text, Loader=yaml.CSafeLoader))
    except yaml.YAMLError:
        return 0


def main() -> None:
    total = sum(parse(p) for root in sys.argv[1:] for p in files(root))
    print(f"{total} documents")


if __name__ == "__main__":
    main()
