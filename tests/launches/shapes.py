"""Helpers of the per-turn shape tests (test_turn45_shapes, test_turn46_shapes): a small file written, read as
kvlint reads it, and the KV008 places it gives."""

from __future__ import annotations


def write(tmp_path, name, text):
    """The file `name` under tmp_path holding `text`, as the path string read_path takes."""
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def kv008(result):
    """(line, column) of each KV008 (a place that names an engine and gave no launch) in a read result."""
    return [(f.span.line, f.span.col) for f in result.findings if f.code == "KV008"]
