"""README's rule table is the registry's: a rule added, renamed or re-graded without the README fails here."""

from __future__ import annotations

import re
from pathlib import Path

from kvlint.registry import all_rules

README = Path(__file__).resolve().parent.parent / "README.md"


def test_readme_rule_table_matches_the_registry():
    section = README.read_text(encoding="utf-8").split("## Rules", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| (KV\d{3}) \| ([a-z0-9-]+) \| (error|warning|info) \|", section, re.M)
    assert rows == [(r.code, r.name, str(r.severity)) for r in all_rules()]
