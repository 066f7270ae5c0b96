"""Malformed inputs for the bad-input suite (tests/launches/test_bad_input.py, bench/bad_input.py).

Each builder writes one file (or folder) under `root` and returns (path, expectation), where the
expectation is a KV001 line (int), "skip:<reason part>", or "walk" for folder cases.
"""

from __future__ import annotations

import os
from pathlib import Path

GOOD = "apiVersion: v1\nkind: Pod\nmetadata: {name: ok}\nspec:\n  containers:\n  - name: c\n    image: vllm/vllm-openai:v0.8.5\n    args: [--model, org/m, --max-model-len, '4096']\n"


def merge_conflict(root: Path):
    p = root / "conflict.yaml"
    p.write_text(GOOD.replace("    args:", "<<<<<<< HEAD\n    args:") .replace("'4096']\n", "'4096']\n=======\n    args: [--model, org/other]\n>>>>>>> branch\n"))
    return p, 8


def duplicate_keys(root: Path):
    p = root / "dup.yaml"
    p.write_text("a: 1\nb: 2\na: 3\n")
    return p, 3


def tabs(root: Path):
    p = root / "tabs.yaml"
    p.write_text("spec:\n\tcontainers: []\n")
    return p, 2


def not_utf8(root: Path):
    p = root / "latin1.yaml"  # YAML must be UTF-8 (a shell script need not: tests/launches/test_readers.py)
    p.write_bytes(b"# caf\xe9\nmodel: m\n")
    return p, 1


def binary(root: Path):
    p = root / "blob.yaml"
    p.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)))
    return p, 3  # the first NUL byte is on line 3


def empty(root: Path):
    p = root / "empty.yaml"
    p.write_text("")
    return p, "skip:empty"


def huge(root: Path):
    p = root / "huge.yaml"
    with open(p, "wb") as fh:
        fh.truncate(50 * 1024 * 1024)  # sparse: 50 MB without writing it
    return p, "cap"


def alias_bomb(root: Path):
    lines = ['a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i in range(1, 10):
        lines.append(f"a{i}: &a{i} [" + ",".join([f"*a{i - 1}"] * 9) + "]")
    p = root / "bomb.yaml"
    p.write_text("\n".join(lines) + "\n")
    return p, 6  # a5 is the first anchor whose expansion (9**6 nodes) passes the cap


def deep_nesting(root: Path):
    p = root / "deep.yaml"
    p.write_text("x: " + "[" * 10000 + "]" * 10000 + "\n")
    return p, 1


def deep_block(root: Path):
    p = root / "deep-block.yaml"
    p.write_text("".join(" " * i + f"k{i}:\n" for i in range(2500)))  # past libyaml's 1000 levels
    return p, 1000


def deep_shell(root: Path):
    p = root / "deep.sh"
    p.write_text("vllm serve m --x " + "$(" * 5000 + ")" * 5000 + " " + 'eval "' * 50 + "\n")
    return p, "ok"


def open_arrays(root: Path):
    """A script naming vLLM with 5,000 arrays that never close and a self-naming path: the place-finder for an
    array of engine arguments (kvlint.launches.named) and the program's written-out path stay bounded."""
    p = root / "arrays.sh"
    p.write_text('# vllm\nP="${HOME}/x"\nP="$P$P$P$P$P$P$P$P/y"\n' + "a=(--max-model-len 1 --model m\n" * 5000)
    return p, "none"


def long_run_lines(root: Path):
    """A script naming vLLM and a model whose `exec` and `./` lines are 60,000 name characters with no `.sh` end,
    then one that runs a script: the place-finder for a launcher run with its model set (kvlint.launches.named) stays
    linear (a pattern that backtracked took about 10 s a line)."""
    p = root / "wrapper.sh"
    p.write_text("export MODEL=/models/m\nexport VLLM_USE_V1=1\n" + ("exec " + "a" * 60_000 + "\n") * 3
                 + ("./" + "a." * 30_000 + "\n") * 3 + "exec /opt/run.sh\n")
    return p, "none"


def symlink_loop(root: Path):
    d = root / "loop"
    (d / "sub").mkdir(parents=True)
    (d / "sub" / "good.yaml").write_text(GOOD)
    os.symlink("..", d / "sub" / "up")
    return d, "walk"


BUILDERS = [merge_conflict, duplicate_keys, tabs, not_utf8, binary, empty, huge, alias_bomb, deep_nesting, deep_block, deep_shell, open_arrays,
            long_run_lines, symlink_loop]
