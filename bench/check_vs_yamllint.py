"""Whole-process timing of `kvlint check` against `yamllint` on the same generated tree of manifests.

yamllint is the reference cost of "parse every YAML file in a pre-commit hook"; kvlint also resolves
models and runs the arithmetic, and the target is to be no slower. Prints both times and the ratio.

    python bench/check_vs_yamllint.py [--files 200] [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

MODELS = ["meta-llama/Llama-3.1-8B-Instruct", "Qwen/Qwen2.5-32B-Instruct", "meta-llama/Llama-3.1-70B-Instruct",
          "mistralai/Mistral-7B-Instruct-v0.2"]
LENGTHS = [4096, 8192, 32768, 131072]
TEMPLATE = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: llm-{i}
spec:
  replicas: 1
  template:
    spec:
      nodeSelector:
        nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.33.0
          args:
            - vllm
            - serve
            - {model}
            - --max-model-len={length}
            - --tensor-parallel-size={tp}
            - --gpu-memory-utilization=0.9
          resources:
            limits:
              nvidia.com/gpu: {tp}
"""
YAMLLINT_CONFIG = "extends: relaxed\n"


def generate(root: Path, count: int) -> None:
    for i in range(count):
        folder = root / f"team{i % 10}"
        folder.mkdir(parents=True, exist_ok=True)
        text = TEMPLATE.format(i=i, model=MODELS[i % len(MODELS)], length=LENGTHS[i % len(LENGTHS)],
                               tp=1 if i % len(MODELS) != 2 else 4)
        (folder / f"deploy-{i}.yaml").write_text(text, encoding="utf-8")


def best_of(cmd: list[str], repeat: int, cwd: Path) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False,
                       env=dict(os.environ, HF_HUB_OFFLINE="1", NO_COLOR="1"))
        times.append(time.perf_counter() - start)
    return min(times)


def tool(name: str) -> str:
    local = Path(sys.executable).with_name(name)
    found = str(local) if local.exists() else shutil.which(name)
    if not found:
        sys.exit(f"{name} not found (pip install -e '.[test]')")
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="kvlint-bench-") as tmp:
        root = Path(tmp)
        generate(root / "tree", args.files)
        (root / ".yamllint").write_text(YAMLLINT_CONFIG)
        kv = best_of([tool("kvlint"), "check", "tree", "--exit-zero"], args.repeat, root)
        yl = best_of([tool("yamllint"), "-c", ".yamllint", "tree"], args.repeat, root)
    print(f"files: {args.files}  kvlint check: {kv:.3f} s  yamllint: {yl:.3f} s  ratio kvlint/yamllint: {kv / yl:.2f}")


if __name__ == "__main__":
    main()
