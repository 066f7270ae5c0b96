"""The project URL is spelled once (kvlint.REPO_URL); docs that must quote it literally follow it."""

from __future__ import annotations

import re
from pathlib import Path

import kvlint
from kvlint.report import sarif

ROOT = Path(__file__).resolve().parents[1]
QUOTING = ["README.md", "docs/ci.md"]  # pre-commit snippets: `repo:` must be a literal URL


def test_sarif_links_derive_from_the_constant():
    assert sarif.DOCS_URI == kvlint.DOCS_URL and kvlint.DOCS_URL.startswith(kvlint.REPO_URL + "/")


def test_no_other_spelling_of_the_repository_in_code_or_docs():
    owner = re.escape(kvlint.REPO_URL.split("github.com/")[1].split("/")[0])
    pattern = re.compile(rf"https://github\.com/{owner}/[\w.-]+")
    files = [ROOT / p for p in QUOTING] + sorted((ROOT / "docs").glob("*.md")) + sorted((ROOT / "kvlint").rglob("*.py"))
    seen = {str(f.relative_to(ROOT)): set(pattern.findall(f.read_text(encoding="utf-8"))) for f in files if f.is_file()}
    stray = {name: urls for name, urls in seen.items() if urls - {kvlint.REPO_URL}}
    assert not stray, f"update these to kvlint.REPO_URL ({kvlint.REPO_URL}): {stray}"
    for name in QUOTING:
        assert kvlint.REPO_URL in seen[name], f"{name} should quote kvlint.REPO_URL in its pre-commit snippet"
    assert "github.com" not in (ROOT / "kvlint" / "report" / "sarif.py").read_text(encoding="utf-8")
