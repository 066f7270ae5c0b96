"""The catalogue is complete and consistent: modules, codes, names, docs and docs/rules.md agree."""

from __future__ import annotations

import pkgutil
from pathlib import Path

import kvlint.rules
from kvlint.registry import CODE_RE, DOC_SECTIONS, NAME_RE, all_rules, expand_selector, selected_codes
from kvlint.ruledocs import catalogue_markdown

REPO = Path(__file__).resolve().parents[2]
CONTRACT = {  # DESIGN.md section 7
    "KV001": "unreadable-input", "KV002": "unresolved-model", "KV003": "unknown-gpu", "KV004": "unknown-flag",
    "KV101": "pool-below-one-request", "KV102": "weights-exceed-memory", "KV103": "concurrency-exceeds-pool",
    "KV104": "context-exceeds-sglang-pool", "KV105": "max-model-len-exceeds-model", "KV201": "tp-not-divisible",
    "KV202": "kv-heads-replicated", "KV203": "mla-replicated", "KV204": "gpu-count-mismatch",
    "KV301": "fp8-kv-suggested", "KV302": "weight-quant-suggested",
}


def test_every_module_registers_one_rule():
    modules = [m.name for m in pkgutil.iter_modules(kvlint.rules.__path__) if not m.name.startswith("_")]
    rules = all_rules()
    assert sorted(r.module.rsplit(".", 1)[1] for r in rules) == sorted(modules)
    for r in rules:
        assert r.module.rsplit(".", 1)[1].startswith(r.code.lower() + "_")


def test_contract_codes_and_names():
    have = {r.code: r.name for r in all_rules()}
    assert {c: have.get(c) for c in CONTRACT} == CONTRACT


def test_codes_names_and_docs_are_well_formed():
    names = set()
    for r in all_rules():
        assert CODE_RE.match(r.code) and NAME_RE.match(r.name), r
        assert r.name not in names
        names.add(r.name)
        assert list(r.docs) == list(DOC_SECTIONS), r.code
        assert all(body.strip() for body in r.docs.values()), r.code
        for opt in r.options:
            assert f"`{opt.name}`" in r.docs["Options"], (r.code, opt.name)


def test_selectors():
    assert expand_selector("KV1") == {r.code for r in all_rules() if r.code.startswith("KV1")}
    assert expand_selector("pool-below-one-request") == {"KV101"}
    assert "KV103" not in selected_codes(["KV1"], ["concurrency-exceeds-pool"])
    assert selected_codes(None, None) == {r.code for r in all_rules()}


def test_docs_rules_md_is_fresh():
    committed = (REPO / "docs" / "rules.md").read_text(encoding="utf-8")
    assert committed == catalogue_markdown(), "docs/rules.md is stale: run `kvlint rules --format markdown > docs/rules.md`"


def test_rules_and_rule_commands(capsys):
    import json

    from kvlint.cli import main

    assert main(["rules", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [r["code"] for r in doc["rules"]] == [r.code for r in all_rules()]
    kv301 = next(r for r in doc["rules"] if r["code"] == "KV301")
    assert kv301["options"] == [{"name": "weights-share", "default": 0.6,
                                 "help": "fire when weights exceed this share of the engine's memory"}]
    assert main(["rule", "pool-below-one-request"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("# KV101 pool-below-one-request") and "## Why it matters" in out
    assert main(["rule", "pool-below-one-requests"]) == 2
    assert "did you mean pool-below-one-request" in capsys.readouterr().err


def test_rule_modules_are_the_ones_pkgutil_lists(tmp_path):
    import pkgutil

    import kvlint.rules as package
    from kvlint.registry import _rule_modules

    (tmp_path / "kv999_extra.py").write_text("", encoding="utf-8")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("", encoding="utf-8")
    (tmp_path / "notes.txt").write_text("", encoding="utf-8")
    (tmp_path / "not-a-module.py").write_text("", encoding="utf-8")
    for folders in (package.__path__, [str(tmp_path)]):  # pkgutil also lists names no import could load
        listed = sorted(i.name for i in pkgutil.iter_modules(folders) if i.name.isidentifier())
        assert _rule_modules(folders) == listed
    assert _rule_modules([str(tmp_path)]) == ["kv999_extra", "pkg"]
