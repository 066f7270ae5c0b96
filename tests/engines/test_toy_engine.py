"""A third engine is a copy of a sibling folder plus one registration line: nothing else changes.

The test copies kvlint/engines/vllm/ to a package named `toy` outside kvlint, edits only the copy's facts
(its name and title), registers it with the hook kvlint.engines.registered.register (the line a contributor
adds to ENGINES), and checks a script that launches `toy serve ...`: the launch is found as a toy launch and
its KV pool is sized by the toy's own memory model (a script, a Kubernetes manifest, compose, a Dockerfile,
a Python launcher).
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

from kvlint.cli import main
from kvlint.engines import registered

VLLM = Path(registered.__file__).parent / "vllm"


@pytest.fixture
def toy(tmp_path, monkeypatch):
    """The package `toy`: kvlint/engines/vllm/ copied, its facts renamed, registered for this test only."""
    folder = tmp_path / "plugins" / "toy"
    shutil.copytree(VLLM, folder, ignore=shutil.ignore_patterns("__pycache__"))
    facts = folder / "facts.py"
    text = facts.read_text(encoding="utf-8")
    assert 'NAME = "vllm"' in text and 'TITLE = "vLLM"' in text
    facts.write_text(text.replace('NAME = "vllm"', 'NAME = "toy"').replace('TITLE = "vLLM"', 'TITLE = "Toy"'),
                     encoding="utf-8")
    monkeypatch.syspath_prepend(str(folder.parent))
    monkeypatch.setattr(registered, "ENGINES", dict(registered.ENGINES))  # the registration undone after the test
    monkeypatch.setattr(registered, "_FOUND", {})
    registered.register("toy", "toy")
    yield folder
    for name in [m for m in sys.modules if m == "toy" or m.startswith("toy.")]:
        del sys.modules[name]
    from kvlint import engines

    engines._LOADED.pop("toy", None)


@pytest.mark.parametrize("name", registered.engine_names())
def test_a_folder_imports_its_own_parts_relatively(name):
    """So its copy uses the copy's parts: an absolute `kvlint.engines.vllm...` import would reach back to vLLM."""
    folder = VLLM.parent / name
    back = [p.name for p in sorted(folder.glob("*.py")) if f"kvlint.engines.{name}" in p.read_text(encoding="utf-8")]
    assert back == []


MANIFEST = """apiVersion: apps/v1
kind: Deployment
metadata: {name: toy}
spec:
  template:
    spec:
      containers:
        - name: toy
          image: example.com/toy:1.0
          command: ["toy", "serve"]
          args: [Qwen/Qwen3-8B, --max-model-len=16384, --max-num-seqs=8]
"""
FILES = {
    "serve.sh": "#!/bin/sh\ntoy serve Qwen/Qwen3-8B --max-model-len 16384 --max-num-seqs 8\n",
    "deploy.yaml": MANIFEST,
    "compose.yaml": "services:\n  llm:\n    image: example.com/toy:1\n"
                    "    command: toy serve Qwen/Qwen3-8B --max-model-len 16384 --max-num-seqs 8\n",
    "Dockerfile": 'FROM python:3.12\nCMD ["toy", "serve", "Qwen/Qwen3-8B", "--max-model-len", "16384"]\n',
    "launch.py": 'import subprocess\n\nsubprocess.run(["toy", "serve", "Qwen/Qwen3-8B", "--max-model-len", "16384"])\n',
}


@pytest.mark.parametrize("name", FILES)
def test_a_launch_of_the_toy_engine_is_found_and_sized(toy, tmp_path, capsys, name):
    launch_file = tmp_path / name
    launch_file.write_text(FILES[name], encoding="utf-8")
    main(["check", str(launch_file), "--gpu", "H100-SXM-80GB", "--format", "json", "-j", "1"])
    report = json.loads(capsys.readouterr().out)
    [launch] = report["deployments"]
    assert launch["engine"] == "toy" and launch["model"] == "Qwen/Qwen3-8B"
    assert launch["capacity"] == "evaluated" and launch["kv_tokens"] > 16384 and launch["fits_one_request"]
    from kvlint.engines import get_engine

    toy_engine = get_engine("toy")
    assert type(toy_engine).__module__ == "toy.engine" and toy_engine.title == "Toy"
    assert "toy.memory" in sys.modules  # sized by the copy's memory model, not vLLM's record
