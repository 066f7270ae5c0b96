"""YAML source map: spans, raw style, comments, templates, and a property test over generated YAML."""

from __future__ import annotations

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kvlint.sources.yaml import parse_yaml

DOC = """\
a: 8        # plain int
b: "8"      # kvlint: ignore[KV103] quoted on purpose
c: |
  vllm serve org/m \\
    --max-model-len 4096
d: >
  --model org/m
  --tp 2
e: "one
  two"
"""


def _pairs(doc):
    return {k: v for k, _, v in doc.pairs()}


def test_scalars_keep_type_style_and_span():
    yf = parse_yaml("f.yaml", DOC)
    v = _pairs(yf.docs[0])
    assert (v["a"].value, v["a"].style) == (8, None)
    assert (v["b"].value, v["b"].style, yf.raw(v["b"])) == ("8", '"', '"8"')
    assert (v["b"].span.line, v["b"].span.col, v["b"].span.end_col) == (2, 4, 7)
    assert v["c"].style == "|" and v["d"].style == ">"


def test_comments_by_line():
    yf = parse_yaml("f.yaml", DOC)
    assert yf.comments[1] == " plain int"
    assert yf.comments[2].strip().startswith("kvlint: ignore[KV103]")
    assert 4 not in yf.comments


def test_block_and_folded_scalars_map_each_char_to_its_line():
    yf = parse_yaml("f.yaml", DOC)
    v = _pairs(yf.docs[0])
    lit = yf.mapped(v["c"])
    i = lit.text.index("--max-model-len")
    assert lit.at(i) == (5, 5)
    folded = yf.mapped(v["d"])
    j = folded.text.index("--tp")
    assert folded.at(j) == (8, 3)
    dq = yf.mapped(v["e"])
    assert dq.at(dq.text.index("two")) == (10, 3)


def test_multi_document_broken_middle_keeps_others():
    yf = parse_yaml("f.yaml", "a: 1\n---\nb: [\n---\nc: 3\n")
    assert [list(_pairs(d)) for d in yf.docs] == [["a"], ["c"]]
    assert [p.line for p in yf.problems] == [4]  # where the broken document ends


def test_helm_template_expressions_become_unresolved_text_with_exact_spans():
    text = "{{- if .Values.on }}\nmodel: {{ .Values.model }}\nlen: 4096\n{{- end }}\n"
    yf = parse_yaml("t.yaml", text)
    v = _pairs(yf.docs[0])
    assert v["model"].text == "{{ .Values.model }}"
    assert (v["len"].value, v["len"].span.line) == (4096, 3)
    assert [p.severity for p in yf.problems] == ["info"]


def test_merge_keys_are_flattened():
    yf = parse_yaml("m.yaml", "base: &b {x: 1, y: 2}\nuse:\n  <<: *b\n  y: 3\n")
    assert yf.docs[0].get("use").data() == {"x": 1, "y": 3}


# ---------------------------------------------------------------- property test

_word = st.from_regex(r"[A-Za-z][A-Za-z0-9_.\-/]{0,8}", fullmatch=True).filter(
    lambda w: w.lower() not in ("y", "n", "yes", "no", "on", "off", "true", "false", "null", "nan", "inf") and not w.startswith(("-", ".")))
_text = st.text(alphabet=st.sampled_from(list("abcXYZ 019:#'\"\\-é中")), min_size=0, max_size=12)


_line = st.from_regex(r"[a-z$\\'\"#:-][a-z0-9 $\\'\"#:-]{0,10}", fullmatch=True).map(str.rstrip).filter(bool)


@st.composite
def _scalar(draw):
    kind = draw(st.sampled_from(["plain", "int", "single", "double", "block"]))
    if kind == "block":  # literal block: rendered only in block style (flow falls back to its value)
        lines = draw(st.lists(_line, min_size=1, max_size=3))
        return ("block", lines)
    if kind == "plain":
        w = draw(_word)
        return w, w
    if kind == "int":
        n = draw(st.integers(0, 10**9))
        return str(n), n
    s = draw(_text)
    if kind == "single":
        return "'" + s.replace("'", "''") + "'", s
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"', s


_tree = st.recursive(
    _scalar(),
    lambda kids: st.one_of(
        st.lists(kids, min_size=1, max_size=4).map(lambda xs: ("seq", xs)),
        st.dictionaries(_word, kids, min_size=1, max_size=4).map(lambda d: ("map", list(d.items()))),
    ),
    max_leaves=12,
)


def _render(node, indent: int, flow: bool) -> str:
    if isinstance(node, tuple) and node[0] in ("seq", "map") and isinstance(node[1], list):
        kind, items = node
        if flow:
            if kind == "seq":
                return "[" + ", ".join(_render(i, 0, True) for i in items) + "]"
            return "{" + ", ".join(f"{k}: {_render(v, 0, True)}" for k, v in items) + "}"
        pad = " " * indent
        out = []
        for item in items:
            key, val = (None, item) if kind == "seq" else item
            head = f"{pad}- " if kind == "seq" else f"{pad}{key}:"
            if isinstance(val, tuple) and val[0] in ("seq", "map") and isinstance(val[1], list):
                out.append(head.rstrip() + "\n" + _render(val, indent + 2, False))
            elif isinstance(val, tuple) and val[0] == "block":
                body = "\n".join(" " * (indent + 2) + ln for ln in val[1])
                out.append(head + ("" if kind == "seq" else " ") + "|\n" + body)
            else:
                out.append(head + ("" if kind == "seq" else " ") + val[0])
        return "\n".join(out)
    if node[0] == "block":
        return '"' + "\\n".join(ln.replace("\\", "\\\\").replace('"', '\\"') for ln in node[1]) + '\\n"'
    return node[0]


def _scalars(node):
    stack = [node]
    while stack:
        n = stack.pop()
        if n.is_scalar:
            yield n
        elif n.is_seq:
            stack.extend(n.items)
        else:
            stack.extend(x for kv in n.items for x in kv)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tree=_tree, flow=st.booleans())
def test_every_scalar_span_rereads_to_its_value(tree, flow):
    if not (isinstance(tree, tuple) and tree[0] in ("seq", "map") and isinstance(tree[1], list)):
        tree = ("map", [("k", tree)])
    text = _render(tree, 0, flow) + "\n"
    yf = parse_yaml("g.yaml", text)
    assert not yf.problems, (text, yf.problems)
    lines = text.split("\n")
    for node in _scalars(yf.docs[0]):
        s = node.span
        if node.style == "|":
            raw = "\n".join([lines[s.line - 1][s.col - 1 :]] + lines[s.line : s.end_line - 1]) + "\n"
        else:
            assert s.line == s.end_line
            raw = lines[s.line - 1][s.col - 1 : s.end_col - 1]
        assert raw == yf.raw(node)
        assert yaml.safe_load(raw) == node.value, (text, raw)
        mapped = yf.mapped(node)  # each character of the value sits on its own source character
        for ch, (line, col) in zip(mapped.text, (mapped.at(i) for i in range(len(mapped.text))), strict=False):
            if not ch.isspace() and node.style != '"':
                assert lines[line - 1][col - 1] == ch, (text, node.text)


def test_a_key_repeated_with_the_same_value_is_an_info():
    """Sample K19's model registry (measured: two KV001 errors): keys left over from a removed entry repeat the
    values they had, so nothing is lost (an info); a repeated key with another value loses the first (an error)."""
    yf = parse_yaml("m.yaml", "a: 1\nb: x\na: 1\nb: y\n")
    found = [(p.line, p.severity) for p in yf.problems if p.kind == "duplicate"]
    assert found == [(3, "info"), (4, "error")]


def test_a_second_document_without_its_separator_is_said_once():
    """Turn 47's K487 (measured: four KV001 errors, one per repeated key): a Deployment then a Service with no `---`
    between them is one problem, said once where the second document starts, naming the keys it repeats; the keys
    inside it (`metadata.name` again below) are not reported again."""
    text = ("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: a\nspec:\n  replicas: 1\n\n"
            "apiVersion: v1\nkind: Service\nmetadata:\n  name: a-svc\nspec:\n  type: LoadBalancer\n")
    yf = parse_yaml("d.yaml", text)
    found = [(p.line, p.severity, p.message) for p in yf.problems if p.kind == "duplicate"]
    assert [(line, sev) for line, sev, _ in found] == [(8, "error")]
    assert "without a `---` separator" in found[0][2] and "(apiVersion, kind, metadata, spec)" in found[0][2]
    flat = parse_yaml("f.yaml", "a: 1\nb: x\nc: [1]\na: 2\n")  # one key again: a duplicate, not a document
    assert [(p.line, p.severity) for p in flat.problems if p.kind == "duplicate"] == [(4, "error")]
