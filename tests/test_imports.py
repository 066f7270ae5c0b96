"""`kvlint check` on one good file loads only what it needs: start-up time is most of a pre-commit run.

Each case runs kvlint.cli.main in a fresh interpreter and reads sys.modules afterwards, so an eager
import added anywhere on the check path (a log parser, the planner, jsonschema, the Hub client, a
reader for another file format) fails here instead of silently slowing every commit.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
GOOD = REPO / "examples" / "kubernetes" / "good-deployment.yaml"
WRAPPER = ("import json, sys; from kvlint.cli import main; rc = main(['check', sys.argv[1]]); "
           "print(); print(json.dumps([rc, sorted(sys.modules)]))")

# never needed to check a Kubernetes manifest whose model is bundled and whose config (if any) is valid
NOT_NEEDED = [
    "kvlint.logs", "kvlint.logs.parse", "kvlint.calibration", "kvlint.plan", "kvlint.commands.verify",
    "kvlint.commands.plan", "kvlint.commands.budget", "kvlint.commands.inspect", "kvlint.engines.sglang.memory",
    "kvlint.launches.compose", "kvlint.launches.skypilot", "kvlint.launches.vllm_config",
    "kvlint.launches.charts.generic", "kvlint.launches.charts.kaito", "kvlint.launches.dockerfile",
    "kvlint.report.sarif", "kvlint.report.json_report", "kvlint.report.github",
    "kvlint.engines.sglang", "kvlint.models.derive",  # a vLLM image with a bundled model: no SGLang, no derivation
    "huggingface_hub", "jsonschema", "referencing", "click", "dataclasses", "inspect", "difflib", "pkgutil",
    "shutil", "tempfile",  # the Hub download's, imported when a file is fetched (with bz2, lzma and random)
]


def modules_after_check(folder: Path) -> set[str]:
    (folder / ".git").mkdir()  # config discovery stops here, whatever lies above tmp_path
    shutil.copy(GOOD, folder / GOOD.name)
    out = subprocess.run([sys.executable, "-c", WRAPPER, GOOD.name], cwd=folder, capture_output=True, text=True,
                         check=True, timeout=120)
    rc, modules = json.loads(out.stdout.strip().splitlines()[-1])
    assert rc == 0, out.stdout
    return set(modules)


@pytest.mark.parametrize("config", [None, "gpu: L40S\nfail-on: warning\nignore: [KV301]\n"],
                         ids=["no-config", "valid-config"])
def test_check_of_one_good_file_imports_only_what_it_needs(tmp_path, config):
    if config is not None:
        (tmp_path / ".kvlint.yaml").write_text(config, encoding="utf-8")
    modules = modules_after_check(tmp_path)
    assert "kvlint.launches.k8s" in modules and "kvlint.engines.vllm.memory" in modules  # the check really ran
    assert sorted(set(NOT_NEEDED) & modules) == []


def test_an_invalid_config_still_goes_through_jsonschema(tmp_path):
    (tmp_path / ".kvlint.yaml").write_text("gpu: L40S\nfail-on: sometimes\n", encoding="utf-8")
    (tmp_path / ".git").mkdir()
    shutil.copy(GOOD, tmp_path / GOOD.name)
    code = "import sys; from kvlint.cli import main; rc = main(['check', sys.argv[1]]); print(rc, 'jsonschema' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code, GOOD.name], cwd=tmp_path, capture_output=True, text=True,
                         check=True, timeout=120)
    assert out.stdout.split()[-2:] == ["2", "True"]
    assert ".kvlint.yaml:2: fail-on:" in out.stderr
