"""Every message the capacity rules (KV101-KV108) print, whole, over launches that take each branch (issue O
item 9: rule fixtures pinned file, line, column and code, and mutants that changed a figure in a message, a fix
offered or a severity survived).

Each case is a small file linted with one GPU (or none, for the catalogue sweep) and one vLLM / SGLang release
(or none: a launch that pins no release is judged on every era). Pinned per finding: code, severity, line,
message, fix and data. tests/rules/test_capacity_numbers.py and test_fixture_numbers.py derive the rules'
figures by hand; this file pins what a user reads on real bundled configs, where the figures rest on kvlint's
weights and non-KV estimates too (regression pins, like the budget grid; the planner figures under them are the
ones bench/conformance checks against the engines' code). A change that moves a message on purpose regenerates
the file and shows the moved messages in its diff:

    KVLINT_UPDATE_GOLDEN=1 python -m pytest -q tests/rules/test_capacity_message_grid.py
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from kvlint.lint import LintOptions, lint

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "capacity_messages.json"
CODES = ("KV101", "KV102", "KV103", "KV104", "KV105", "KV106", "KV107", "KV108")

# (label, GPU, engine release, file name, text)
CASES: list[tuple[str, str | None, str | None, str, str]] = [
    ("vllm-refusals", "H100", "0.33.0", "run.sh", """#!/bin/sh
vllm serve Qwen/Qwen2.5-32B-Instruct --max-model-len 32768
vllm serve Qwen/Qwen2.5-32B-Instruct --max-model-len 131072
vllm serve Qwen/Qwen2.5-32B-Instruct --max-model-len 32400
vllm serve Qwen/Qwen3-32B --max-model-len 40960 --gpu-memory-utilization 0.9
vllm serve Qwen/Qwen3-32B --max-model-len 40960 --kv-cache-dtype fp8 --gpu-memory-utilization 0.88
vllm serve Qwen/Qwen3-32B --max-model-len 40960 --gpu-memory-utilization 0.8
vllm serve google/gemma-3-27b-it --max-model-len 131072 --gpu-memory-utilization 0.75
"""),
    ("vllm-pipeline", "H200", "0.33.0", "run.sh", """#!/bin/sh
vllm serve PrimeIntellect/INTELLECT-3-Base -pp 3 --max-model-len 131072 --gpu-memory-utilization 0.53
vllm serve PrimeIntellect/INTELLECT-3-Base -pp 3 --max-model-len 131072 --gpu-memory-utilization 0.51
vllm serve PrimeIntellect/INTELLECT-3-Base -pp 3 --max-model-len 131072 --gpu-memory-utilization 0.54
vllm serve PrimeIntellect/INTELLECT-3-Base -pp 4 --max-model-len 131072 --gpu-memory-utilization 0.54
"""),
    ("vllm-weights", "A100-80GB", "0.33.0", "run.sh", """#!/bin/sh
vllm serve meta-llama/Llama-3.1-70B-Instruct --max-model-len 8192
vllm serve meta-llama/Llama-3.1-70B-Instruct --max-model-len 8192 --gpu-memory-utilization 0.5 -tp 2
vllm serve meta-llama/Llama-3.1-405B --max-model-len 8192
vllm serve Qwen/Qwen3-235B-A22B --max-model-len 8192 -tp 2
vllm serve deepseek-ai/DeepSeek-R1 --max-model-len 8192 -tp 8
"""),
    ("vllm-batches", "L40S", "0.33.0", "run.sh", """#!/bin/sh
vllm serve Qwen/Qwen3-8B --max-num-seqs 512 --max-model-len 40960
vllm serve Qwen/Qwen3-8B --max-num-seqs 8 --max-model-len 40960
vllm serve google/gemma-2-9b-it --max-num-seqs 256 --max-model-len 8192
vllm serve Qwen/Qwen3-8B --max-num-batched-tokens 100 --max-num-seqs 256 --max-model-len 8192
vllm serve Qwen/Qwen3-8B --no-enable-chunked-prefill --max-num-batched-tokens 8192 --max-model-len 32768
vllm serve Qwen/Qwen3-8B --no-enable-chunked-prefill --max-num-batched-tokens 4096
vllm serve meta-llama/Meta-Llama-3-8B-Instruct --max-model-len 16384
vllm serve Qwen/Qwen3-8B --max-num-batched-tokens 0 --max-num-seqs 8 --max-model-len 8192
vllm serve Qwen/Qwen3-8B --max-num-batched-tokens 1 --max-num-seqs 1 --max-model-len 8192
vllm serve Qwen/Qwen3-8B --max-num-batched-tokens 8 --max-num-seqs 9 --max-model-len 8192
vllm serve Qwen/Qwen3-8B --no-enable-chunked-prefill --max-num-batched-tokens 8192 --max-model-len 8192
vllm serve Qwen/Qwen3-8B --no-enable-chunked-prefill --max-num-batched-tokens 8191 --max-model-len 8192
vllm serve meta-llama/Meta-Llama-3-8B-Instruct --max-model-len 8192
vllm serve meta-llama/Meta-Llama-3-8B-Instruct --max-model-len 8193
"""),
    ("vllm-fixed-pool", "L4", "0.33.0", "run.sh", """#!/bin/sh
vllm serve Qwen/Qwen3-8B --kv-cache-memory 20G --max-model-len 8192
vllm serve Qwen/Qwen3-8B --kv-cache-memory 8G --max-model-len 40960
vllm serve Qwen/Qwen3-8B --kv-cache-memory-bytes 4294967296 --max-model-len 4096
vllm serve Qwen/Qwen3-32B --kv-cache-memory 4G --max-model-len 4096
vllm serve Qwen/Qwen3-4B --kv-cache-memory 20G --max-model-len 40960
vllm serve Qwen/Qwen3-8B --kv-cache-memory-bytes 9000000000 --max-model-len 4096
"""),
    ("vllm-open-release", "H100", None, "run.sh", """#!/bin/sh
vllm serve Qwen/Qwen2.5-32B-Instruct --max-model-len 32768
vllm serve Qwen/Qwen2.5-32B-Instruct --max-model-len 33000
vllm serve Qwen/Qwen2.5-32B-Instruct --max-model-len 36000
vllm serve Qwen/Qwen2.5-32B-Instruct --max-model-len 32400
vllm serve Qwen/Qwen3-32B --max-model-len 40960 --kv-cache-dtype fp8 --gpu-memory-utilization 0.88
vllm serve Qwen/Qwen2.5-32B-Instruct --max-model-len 26000
vllm serve meta-llama/Llama-3.1-70B-Instruct --max-model-len 8192
"""),
    ("vllm-old-release", "RTX 4090", "0.8.0", "run.sh", """#!/bin/sh
vllm serve deepseek-ai/DeepSeek-R1-Distill-Qwen-32B -tp 4 --max-model-len 32768 --gpu-memory-utilization 0.95
vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 32768 --max-num-seqs 64
"""),
    ("sglang", "H100", "0.5.23", "run.sh", """#!/bin/sh
python -m sglang.launch_server --model-path meta-llama/Llama-3.1-70B-Instruct --tp 2 --context-length 131072 --mem-fraction-static 0.80
python -m sglang.launch_server --model-path meta-llama/Llama-3.1-70B-Instruct --tp 2 --context-length 131072 --kv-cache-dtype fp8_e4m3
python -m sglang.launch_server --model-path Qwen/Qwen3-8B --chunked-prefill-size 131072
python -m sglang.launch_server --model-path meta-llama/Llama-3.1-70B-Instruct
python -m sglang.launch_server --model-path meta-llama/Llama-3.1-70B-Instruct --mem-fraction-static 0.7
python -m sglang.launch_server --model-path Qwen/Qwen3-32B --max-total-tokens 4096 --context-length 32768
python -m sglang.launch_server --model-path Qwen/Qwen3-32B --max-running-requests 512 --context-length 40960
python -m sglang.launch_server --model-path Qwen/Qwen3-8B --context-length 65536
"""),
    ("sglang-old", "A100-40GB", "0.4.9", "run.sh", """#!/bin/sh
python -m sglang.launch_server --model-path Qwen/Qwen3-14B --context-length 40960 --max-running-requests 64
python -m sglang.launch_server --model-path Qwen/Qwen3-32B
"""),
    ("local-folders", "H100", None, "run.sh", """#!/bin/sh
vllm serve /models/Meta-Llama-3-8B-Instruct --max-model-len 16384
python -m sglang.launch_server --model-path /data/Meta-Llama-3-8B-Instruct --context-length 16384
vllm serve meta-llama/Meta-Llama-3-8B-Instruct --max-model-len 16384
"""),
    ("sweep", None, "0.33.0", "run.sh", """#!/bin/sh
vllm serve Qwen/Qwen3-32B --max-model-len 32768
vllm serve meta-llama/Llama-3.1-405B-Instruct --max-model-len 8192
vllm serve Qwen/Qwen3-8B --max-model-len 40960 --max-num-seqs 64
vllm serve Qwen/Qwen2.5-72B-Instruct -tp 2 --max-num-seqs 4096
python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp 8 --max-total-tokens=65000
python3 -m sglang.launch_server --model-path Qwen/Qwen3-14B --context-length 32768 --max-total-tokens 8192
"""),
    ("candidates", None, "0.33.0", "sky.yaml", """resources:
  accelerators: {L4: 1, A100-80GB: 1, L40S: 1}
run: |
  vllm serve Qwen/Qwen3-14B --max-model-len 40960 --max-num-seqs 16
"""),
    ("candidates-none-start", None, "0.33.0", "sky.yaml", """resources:
  accelerators: {L4: 1, T4: 1}
run: |
  vllm serve Qwen/Qwen3-32B --max-model-len 32768
"""),
]


def _plain(value: Any) -> Any:
    if isinstance(value, float):
        return float(f"{value:.10g}")
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in sorted(value.items())}
    return value


def findings(case: tuple[str, str | None, str | None, str, str], folder: Path) -> list[list[Any]]:
    label, gpu, release, name, text = case
    path = folder / label / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    result = lint([str(path)], LintOptions(gpu=gpu, engine_version=release, select=CODES))
    assert result.unreadable == []
    return [[f.code, f.severity.name, f.span.line if f.span else None, f.message, f.fix, _plain(dict(f.data))]
            for f in sorted(result.findings, key=lambda f: (f.span.line if f.span else 0, f.code, f.message))]


if os.environ.get("KVLINT_UPDATE_GOLDEN"):
    import tempfile

    with tempfile.TemporaryDirectory() as _tmp:
        GOLDEN.write_text(json.dumps({c[0]: findings(c, Path(_tmp)) for c in CASES}, indent=1) + "\n",
                          encoding="utf-8")

PINNED: dict[str, list] = json.loads(GOLDEN.read_text(encoding="utf-8")) if GOLDEN.exists() else {}


def test_every_case_is_pinned():
    assert sorted(PINNED) == sorted(c[0] for c in CASES), "regenerate: KVLINT_UPDATE_GOLDEN=1 (see the docstring)"


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_capacity_messages(case, tmp_path):
    got, want = findings(case, tmp_path), PINNED[case[0]]
    assert json.loads(json.dumps(got)) == want
