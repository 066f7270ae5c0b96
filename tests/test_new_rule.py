"""scripts/new_rule.py makes a rule module whose docs parse, its two fixtures, and refuses a taken code."""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path

import pytest

from kvlint.registry import DOC_SECTIONS, parse_docs

REPO = Path(__file__).resolve().parent.parent


def _script():
    spec = importlib.util.spec_from_file_location("new_rule", REPO / "scripts" / "new_rule.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_scaffold_writes_module_fixtures_and_docs(tmp_path):
    for sub in ("rules", "tests/fixtures/rules", "docs"):
        (tmp_path / sub).mkdir(parents=True)
    assert _script().main(["KV999", "demo-rule", "warning", "A demo.", "--repo", str(tmp_path)]) == 0
    module = tmp_path / "rules" / "kv999_demo_rule.py"
    text = module.read_text()
    compile(text, str(module), "exec")
    doc = text.split('"""')[1]
    assert list(parse_docs(doc)) == list(DOC_SECTIONS) and '@rule("KV999", "demo-rule", Severity.WARNING' in text
    assert "# expect: KV999@" in (tmp_path / "tests/fixtures/rules/KV999/bad.sh").read_text()
    assert (tmp_path / "tests/fixtures/rules/KV999/good.sh").is_file()
    assert (tmp_path / "docs/rules.md").read_text().startswith("# kvlint rules")


def test_scaffold_refuses_a_taken_code(tmp_path, capsys):
    shutil.copytree(REPO / "rules", tmp_path / "rules")
    with pytest.raises(SystemExit):
        _script().main(["KV101", "other-name", "error", "x", "--repo", str(tmp_path)])
    assert "KV101 is taken" in capsys.readouterr().err
