"""Issue 23: verdicts a reviewer would sign. Each case is a fixture file run through `lint`; what must not fire
is asserted as firmly as what must."""

from __future__ import annotations

from pathlib import Path

from kvlint.findings import Severity
from kvlint.lint import LintOptions, lint

RULES = Path(__file__).resolve().parents[1] / "fixtures" / "rules"
VERDICTS = Path(__file__).resolve().parents[1] / "fixtures" / "verdicts"


def run(path: Path, *select: str):
    result = lint([str(path)], LintOptions(select=select or None))
    assert result.unreadable == []
    return result


def test_a_capped_sglang_pool_is_not_a_context_the_pool_must_hold():
    result = run(RULES / "KV108" / "bad-capped-pool.sh", "KV108")
    [f] = result.findings
    assert f.severity == Severity.INFO and "4 TiB" not in f.message
    assert "--max-total-tokens 65,000" in f.message and f.data["passing"]
