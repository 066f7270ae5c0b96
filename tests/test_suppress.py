"""Suppression comments: a table of accepted and rejected spellings, and what each one covers."""

from __future__ import annotations

import re
from pathlib import Path

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
    assert [(d.line, why) for d, why in out.unused] == [(6, "no KV204 finding on the lines it covers")]


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


# ---------------------------------------------------------------- a comment above a command covers all of it

SCRIPT = """\
#!/usr/bin/env bash
# kvlint: ignore[KV103] batch host
vllm serve m \\
  --max-model-len 32768 \\
  --max-num-seqs 256 \\
  --port 8000
vllm serve other --max-num-seqs 512
"""


def test_a_comment_above_a_continued_shell_command_covers_every_line():
    [d] = suppress.scan(SCRIPT)
    assert (d.line, d.end) == (2, 6)
    out = suppress.apply([_finding(5), _finding(6), _finding(7)], [d])
    assert [f.span.line for f in out.suppressed] == [5, 6] and [f.span.line for f in out.kept] == [7]


MANIFEST = """\
spec:
  containers:
    - name: vllm
      # kvlint: ignore[KV103] chat traffic
      args:
        - --model
        - m

        - --max-num-seqs   # a comment inside
        - "256"
      resources: {}
    - name: other
      # kvlint: ignore[KV101]
      command:
      - sh
      - -c
      - |
        vllm serve m \\
          --max-model-len 9999
      env: []
    - name: third
      # kvlint: ignore[KV204]
      args: >-
        --model m
        --tensor-parallel-size 3
      image: x
"""


@pytest.mark.parametrize(("line", "end"), [(4, 10), (13, 19), (22, 25)])
def test_a_comment_above_a_yaml_block_covers_the_block(line, end):
    by_line = {d.line: d for d in suppress.scan(MANIFEST)}
    assert by_line[line].end == end


def test_a_block_scalar_list_item_and_a_trailing_comment():
    text = "args:\n  # kvlint: ignore[KV101]\n  - |\n    vllm serve m\n    --x 1\n  - y\nkey: 1  # kvlint: ignore[KV103]\nz: 2\nw: 3\n"
    by_line = {d.line: d for d in suppress.scan(text)}
    assert by_line[2].end == 5 and by_line[7].end == 8  # a trailing comment: its line and the next, as before


def test_a_comment_above_one_line_covers_only_the_next():
    [d] = suppress.scan("# kvlint: ignore[KV103]\na: 1\nb: 2\n")
    assert d.end == 2
    assert [f.span.line for f in suppress.apply([_finding(3)], [d]).kept] == [3]


@pytest.mark.parametrize("comment", ["# kvlint rules", "# kvlint architecture notes", "# kvlint checks this file"])
def test_prose_about_kvlint_is_not_a_directive(comment):
    assert suppress.parse_comment(comment) is None


# ---------------------------------------------------------------- malformed and misplaced: always KV006

POD_TEMPLATE = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: chat
  annotations:
    kvlint.io/ignore: KV301
spec:
  template:
    metadata:
      annotations:
        kvlint.io/ignore: KV103
    spec: {}
"""


def test_an_annotation_on_the_pod_template_is_invalid_and_the_objects_is_not():
    [d] = suppress.scan(POD_TEMPLATE)
    assert d.kind == "invalid" and d.line == 11 and "pod template" in d.error
    assert suppress.apply([], [d]).invalid == [(d, d.error)]


def _check(tmp_path, text: str, *flags: str) -> list:
    from kvlint.lint import LintOptions, lint

    path = tmp_path / "deploy.yaml"
    path.write_text(text, encoding="utf-8")
    options = LintOptions(show_unused_suppressions="--show-unused-suppressions" in flags)
    return [(f.code, f.span.line if f.span else None) for f in lint([str(path)], options).findings]


def test_malformed_comments_are_reported_without_a_flag_and_unused_ones_only_with_it(tmp_path):
    text = "a: 1  # kvlint: ignore KV103\nb: 2  # kvlint: ignore[KV999]\nc: 3  # kvlint: ignore[KV103]\n"
    assert _check(tmp_path, text) == [("KV006", 1), ("KV006", 2)]
    assert _check(tmp_path, text, "--show-unused-suppressions") == [("KV006", 1), ("KV006", 2), ("KV006", 3)]


def test_a_misplaced_annotation_is_reported_without_a_flag(tmp_path):
    assert ("KV006", 11) in _check(tmp_path, POD_TEMPLATE)


# ---------------------------------------------------------------- the documented examples are clean

DOCS = Path(__file__).resolve().parent.parent / "docs" / "suppressing.md"


README = DOCS.parent.parent / "README.md"


def _examples() -> list[tuple[str, str]]:
    text = DOCS.read_text(encoding="utf-8") + README.read_text(encoding="utf-8")
    blocks = re.findall(r"^```(sh|yaml)\n(.*?)^```", text, re.M | re.S)
    return [(lang, body) for lang, body in blocks if "vllm serve" in body or "vllm-openai" in body
            if "# kvlint: ignore" in body]


def test_the_readme_shows_a_multi_line_suppression():
    assert any("\\\n" in body and body.index("# kvlint: ignore") < body.index("vllm serve")
               for lang, body in _examples() if lang == "sh" and body in README.read_text(encoding="utf-8"))


@pytest.mark.parametrize("index", range(3))
def test_the_documented_multi_line_examples_are_clean_and_their_comment_is_used(tmp_path, index):
    """docs/suppressing.md's script and manifest: no finding, and the comment is used (it would be KV006 with
    --show-unused-suppressions otherwise); without the comment the finding it suppresses is there."""
    from kvlint.lint import LintOptions, lint

    lang, body = _examples()[index]
    path = tmp_path / ("serve.sh" if lang == "sh" else "deploy.yaml")
    path.write_text(body, encoding="utf-8")
    options = LintOptions(show_unused_suppressions=True, gpu="H100-SXM-80GB")
    result = lint([str(path)], options)
    assert result.findings == [] and result.suppressed >= 1 and result.deployments == 1
    path.write_text(re.sub(r"^\s*# kvlint: .*\n", "", body, flags=re.M), encoding="utf-8")
    assert lint([str(path)], options).findings
