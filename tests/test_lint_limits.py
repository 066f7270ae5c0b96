"""Pathological inputs through the whole `kvlint check` pipeline: bounded output, the reader's own words."""

from __future__ import annotations

import json

from kvlint.cli import main
from kvlint.sources.text import MAX_BYTES
from kvlint.sources.yaml import MAX_DUPLICATE_REPORTS


def _findings(capsys, *paths):
    code = main(["check", "--format", "json", *map(str, paths)])
    return code, json.loads(capsys.readouterr().out)["findings"]


def test_a_file_over_the_size_cap_is_one_finding_not_read(tmp_path, capsys):
    big = tmp_path / "big.yaml"
    big.write_text("a: b\n" * (MAX_BYTES // 5 + 10))
    code, found = _findings(capsys, big)
    assert code == 1
    assert [f["code"] for f in found] == ["KV001"]
    assert "size cap" in found[0]["message"]


def test_duplicate_keys_are_reported_up_to_a_cap(tmp_path, capsys):
    dup = tmp_path / "dup.yaml"
    dup.write_text("a: b\n" * 500)
    _, found = _findings(capsys, dup)
    assert len(found) == MAX_DUPLICATE_REPORTS + 1
    assert found[0]["message"].startswith("duplicate key 'a' (first at line 1)")
    assert "only the first" in found[-1]["message"]


def test_binary_file_is_named_binary_and_other_files_still_read(tmp_path, capsys):
    (tmp_path / "bin.yaml").write_bytes(b"\x00\x01\x02 not text")
    (tmp_path / "serve.sh").write_text("vllm serve Qwen/Qwen3-8B --max-model-len 1000000\n")
    _, found = _findings(capsys, tmp_path)
    by_code = {f["code"]: f for f in found}
    assert "binary" in by_code["KV001"]["message"]
    assert "KV105" in by_code
