"""Rule fixtures: for every rule, tests/fixtures/rules/<CODE>/ holds firing (bad) and non-firing (good)
files; the exact (line, column, code) set of the rule's findings must equal the `# expect:` markers."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _expect import expected

from kvlint.findings import Severity
from kvlint.lint import LintOptions, lint
from kvlint.registry import all_rules

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "rules"
ALSO_SELECT = {"KV006": ("KV101",)}  # unused-suppression needs a rule whose finding a comment can suppress


def findings_of(code: str) -> set[tuple]:
    options = LintOptions(select=(code,) + ALSO_SELECT.get(code, ()), show_unused_suppressions=True)
    result = lint([str(FIXTURES / code)], options)
    assert result.unreadable == []
    return {(Path(f.span.path).name, f.span.line, f.span.col, f.code) for f in result.findings if f.code == code}


@pytest.mark.parametrize("code", [r.code for r in all_rules()])
def test_rule_has_firing_and_quiet_fixtures(code):
    files = sorted((FIXTURES / code).glob("*"))
    assert any(p.name.startswith("bad") for p in files) and any(p.name.startswith("good") for p in files)
    want = {(p.name,) + e for p in files for e in expected(p)}
    assert all(len(e) == 4 for e in want), "fixture markers pin the column: # expect: KV101@22"
    assert any(w[0].startswith("bad") for w in want) and not any(w[0].startswith("good") for w in want)
    assert findings_of(code) == want


def test_a_job_that_runs_a_gpu_program_beside_its_server_gets_an_info_not_a_warning():
    options = LintOptions(select=("KV204",))
    (found,) = lint([str(FIXTURES / "KV204" / "bad_server_beside_training.slurm")], options).findings
    assert found.severity == Severity.INFO and "the job also runs torchrun at line 8" in found.message


def test_copies_of_a_server_on_devices_chosen_at_run_time_get_an_info_not_a_warning():
    options = LintOptions(select=("KV204",))
    (found,) = lint([str(FIXTURES / "KV204" / "bad_copies_per_gpu.slurm")], options).findings
    assert found.severity == Severity.INFO and "copies of this server on CUDA_VISIBLE_DEVICES=$GPU" in found.message
