"""Suppression comments: a table of accepted and rejected spellings, and what each one covers."""

from __future__ import annotations

import pytest

from kvlint import suppress
from kvlint.findings import Finding, Severity
from kvlint.span import Span


@pytest.mark.parametrize("comment,codes", [
    ("# kvlint: ignore[KV103]", {"KV103"}),
    ("# kvlint: ignore[KV103] pool sized for short chats", {"KV103"}),
    ("#kvlint:ignore[kv103]", {"KV103"}),
    ("# KVLINT: IGNORE[KV103]", {"KV103"}),
    ("# kvlint: ignore[KV103, KV101]", {"KV101", "KV103"}),
    ("# kvlint: ignore[concurrency-exceeds-pool]", {"KV103"}),
    ("# kvlint: ignore[ pool-below-one-request ,KV204 ]", {"KV101", "KV204"}),
])
def test_accepted(comment, codes):
    d = suppress.parse_comment(comment)
    assert d.kind == "ignore" and d.codes == codes


@pytest.mark.parametrize("comment,why", [
    ("# kvlint: ignore KV103", "expected"),
    ("# kvlint: ignore", "expected"),
    ("# kvlint: ignore[]", "no rule codes"),
    ("# kvlint: ignore[KV999]", "unknown rule(s) KV999"),
    ("# kvlint: ignore[KV103", "expected"),
    ("# kvlint: ignore[no-such-rule]", "unknown rule(s) no-such-rule"),
    ("# kvlint ignore[KV103]", "expected"),
    ("# kvlint: disable-line[KV103]", "expected"),
])
def test_rejected(comment, why):
    d = suppress.parse_comment(comment)
    assert d.kind == "invalid" and why in d.error


@pytest.mark.parametrize("comment", ["# noqa: KV103", "# expect: KV101", "# some kvlinter note", "plain"])
def test_not_directives(comment):
    assert suppress.parse_comment(comment) is None


def test_disable_file():
    assert suppress.parse_comment("# kvlint: disable-file vendored chart").kind == "disable-file"


def _finding(line, code="KV103", name="concurrency-exceeds-pool"):
    return Finding(code, name, Severity.WARNING, "m", Span("f.yaml", line, 5, line, 9), path="f.yaml")


TEXT = """\
args:
  # kvlint: ignore[KV103] chat traffic only
  - --max-num-seqs=256
  - --max-model-len=32768   # kvlint: ignore[pool-below-one-request]
  - url: http://x/#kvlint: ignore[KV103]
  - --x   # kvlint: ignore[KV204] stale
"""


def test_scan_and_apply_cover_same_and_next_line():
    directives = suppress.scan(TEXT)
    assert [(d.line, d.kind) for d in directives] == [(2, "ignore"), (4, "ignore"), (6, "ignore")]
    out = suppress.apply([_finding(3), _finding(4, "KV101", "pool-below-one-request"), _finding(5)], directives)
    assert [f.span.line for f in out.kept] == [5]
    assert [f.span.line for f in out.suppressed] == [3, 4]
    assert [(d.line, why) for d, why in out.unused] == [(6, "no KV204 finding on this line or the next")]


def test_code_must_match():
    directives = suppress.scan("a: 1  # kvlint: ignore[KV101]\n")
    out = suppress.apply([_finding(1)], directives)
    assert len(out.kept) == 1 and len(out.unused) == 1


def test_disable_file_suppresses_all_and_is_unused_when_idle():
    directives = suppress.scan("# kvlint: disable-file\na: 1\n")
    out = suppress.apply([_finding(2), _finding(2, "KV101", "pool-below-one-request")], directives)
    assert out.kept == [] and len(out.suppressed) == 2 and out.unused == []
    assert [why for _, why in suppress.apply([], directives).unused] == ["no finding in this file"]


def test_any_spelling_of_known_codes_round_trips():
    from hypothesis import given
    from hypothesis import strategies as st

    from kvlint.registry import all_rules

    rules = all_rules()
    keys = st.sampled_from([r.code for r in rules] + [r.code.lower() for r in rules] + [r.name for r in rules])
    by_key = {r.code: r.code for r in rules} | {r.code.lower(): r.code for r in rules} | {r.name: r.code for r in rules}

    @given(st.lists(keys, min_size=1, max_size=4), st.sampled_from(["", " ", "  "]),
           st.text(alphabet="abc xyz-.", max_size=20))
    def prop(chosen, pad, reason):
        comment = f"#{pad}kvlint:{pad}ignore[{(',' + pad).join(chosen)}] {reason}"
        d = suppress.parse_comment(comment)
        assert d.kind == "ignore" and d.codes == {by_key[k] for k in chosen}
        [found] = suppress.scan(f"x: 1\ny: 2  {comment}\n")
        assert (found.line, found.codes) == (2, d.codes)

    prop()
