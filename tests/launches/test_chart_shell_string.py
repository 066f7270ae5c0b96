"""A chart whose template joins the values into one `sh -c` string (the open-source-ai-dev vllm chart's
shape, in our own fixture): references and `range` inside the string are filled from values.yaml, the
values file is not a second launch, and a values list item `"--flag value"` is two shell words."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from _expect import actual, expected

from kvlint.cli import main
from kvlint.launches import read_path
from kvlint.launches.charts.common import argv_items
from kvlint.sources.yaml import parse_yaml

CHART = Path(__file__).resolve().parent.parent / "fixtures" / "launches" / "chart" / "shell-vllm"
TEMPLATE = CHART / "templates" / "deployment.yaml"
MODEL = "meta-llama/Llama-3.2-1B-Instruct"


def _only(path: Path):
    (d,) = read_path(str(path)).deployments
    return d


def test_the_template_is_the_one_launch_with_every_reference_filled():
    d = _only(TEMPLATE)
    assert (d.model, d.model_resolved) == (MODEL, True)
    assert (d.get("max_model_len"), d.get("load_format"), d.get("dtype")) == (8192, "auto", "bfloat16")
    assert (d.engine_version, d.gpu_count) == ("0.6.3", 1)  # image tag "" -> `default .Chart.AppVersion`
    assert d.unknown_flags == () and all(s.resolved for s in d.settings.values())
    assert (d.model_span.line, d.model_span.col) == (12, 30)  # at `{{ .Values.model.name }}` in the template
    assert read_path(str(CHART / "values.yaml")).deployments == []


def test_findings_are_the_fixture_markers(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    out = tmp_path / "report.json"
    main(["check", str(CHART), "--format", "json", "--exit-zero", "--output", str(out)])
    findings = json.loads(out.read_text())["findings"]
    files = [CHART / "values.yaml", CHART / "Chart.yaml", TEMPLATE]
    for path in files:
        want = expected(path)
        assert actual(findings, path, want) == want, path.name
    assert {f["code"] for f in findings} == {"KV001", "KV003", "KV108"}  # no flag the launch sets is faulted


@pytest.mark.parametrize("keep", [("values.yaml",), ("values.yaml", "Chart.yaml")], ids=["alone", "no-templates"])
def test_values_whose_templates_are_not_in_the_tree_are_assembled(tmp_path, keep):
    for name in keep:
        shutil.copy(CHART / name, tmp_path / name)
    d = _only(tmp_path / "values.yaml")
    assert any(n.startswith("chart not recognised: launch assembled from model.name") for n in d.notes)
    assert (d.model, d.get("max_model_len")) == (MODEL, None)
    assert (d.get("load_format"), d.get("dtype")) == ("auto", "bfloat16")  # `"--load-format auto"`: two words
    value = d.settings["dtype"]
    assert (value.span.line, value.span.col, value.span.end_col) == (10, 14, 22)  # `bfloat16` inside the item


def test_templates_without_a_launch_leave_the_values_assembled(tmp_path):
    shutil.copytree(CHART, tmp_path / "c")
    (tmp_path / "c" / "templates" / "deployment.yaml").write_text("kind: ConfigMap\napiVersion: v1\n"
                                                                   "data:\n  a: {{ .Values.model.name }}\n")
    d = _only(tmp_path / "c" / "values.yaml")
    assert d.model == MODEL and any("assembled" in n for n in d.notes)


def test_argv_items_split_only_a_flag_and_its_value():
    yf = parse_yaml("v.yaml", 'args:\n  - "--load-format auto"\n  - --enable-prefix-caching\n'
                    "  - '--hf-overrides={\"a\": 1}'\n  - \"--chat-template 'a b'\"\n  - '{\"x\": 1, \"y\": 2}'\n")
    node = yf.docs[0].get("args")
    split = [f.text for f in argv_items(node, yf)]
    assert split == ["--load-format", "auto", "--enable-prefix-caching", '--hf-overrides={"a": 1}',
                     "--chat-template", "a b", '{"x": 1, "y": 2}']
    assert [f.text for f in argv_items(node)][0] == "--load-format auto"  # adapters of exec-form charts


def _chart(tmp_path: Path, values: str, args: str) -> Path:
    (tmp_path / "templates").mkdir()
    (tmp_path / "Chart.yaml").write_text("apiVersion: v2\nname: t\nversion: 1.0.0\nappVersion: 0.6.3\n")
    (tmp_path / "values.yaml").write_text(values)
    path = tmp_path / "templates" / "pod.yaml"
    path.write_text("apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n    - name: e\n"
                    "      image: vllm/vllm-openai:v0.6.3\n      command: [sh, -c]\n      args: [" + args + "]\n")
    return path


def test_other_expressions_stay_whole_and_unresolved_while_the_rest_fills(tmp_path):
    values = "model: org/m\nlen: 4096\nflags:\n  - {a: 1}\n"
    path = _chart(tmp_path, values, '"vllm serve {{ .Values.model }} --max-model-len {{ .Values.len }} '
                                    '--served-model-name {{ .Release.Name }}{{ range .Values.flags }} '
                                    '{{ . }}{{ end }}"')
    d = _only(path)
    assert (d.model, d.get("max_model_len")) == ("org/m", 4096)
    # a range over a list of maps and `.Release` are kept as written, in one word
    assert d.served_model_name == "{{ .Release.Name }}{{ range .Values.flags }} {{ . }}{{ end }}"


def test_range_forms_quote_and_missing_list(tmp_path):
    values = "model: org/m\nextra:\n  - --dtype half\n"
    path = _chart(tmp_path, values, '"vllm serve {{ .Values.model | quote }}{{ range .Values.extra }} '
                                    '{{ quote . }}{{ end }}{{ range .Values.none }} --bad{{ end }}"')
    d = _only(path)
    assert d.model == "org/m"
    # `quote .` renders `"--dtype half"`: one shell word, which the engine's parser rejects (KV013 says so); the
    # launch is read as meant, the word split
    assert d.get("dtype") == "half" and [text for _, text in d.one_word_args] == ["--dtype half"]
    assert not any("--bad" in n for n in d.notes)  # a range over a missing value renders nothing


def test_the_generic_reading_of_values_also_stands_down_for_its_own_templates(tmp_path):
    demo = CHART.parent / "demo-vllm"  # flag-shaped top-level keys: the generic adapter's layout
    assert read_path(str(demo / "values.yaml")).deployments == []
    shutil.copy(demo / "values.yaml", tmp_path / "values.yaml")
    (d,) = read_path(str(tmp_path / "values.yaml")).deployments
    assert d.model == "example-org/demo-8b" and "chart not recognised" in d.notes[0]


def test_hostile_strings_stay_bounded(tmp_path, monkeypatch):
    """A string of unclosed `{{ range }}` blocks (each used to scan to the end of the string: quadratic) and a
    range over a list whose expansion would make megabytes (charged to the file's expansion allowance)."""
    chart = tmp_path / "chart"
    shutil.copytree(CHART, chart)
    items = "\n".join(f"  - '--x{i} {'y' * 200}'" for i in range(20000))
    (chart / "values.yaml").write_text((CHART / "values.yaml").read_text().replace("args:\n", f"args:\n{items}\n", 1))
    template = chart / "templates" / "deployment.yaml"
    text = template.read_text()
    body = "{{ range .Values.args }} {{ . }} {{ . }} {{ . }}{{ end }}" * 20
    template.write_text(text.replace("{{ range .Values.args }} {{ . }}{{ end }}", body, 1))
    result = read_path(str(template))
    assert any(f.code == "KV001" and "expansion" in f.message for f in result.findings), result.findings
    unclosed = tmp_path / "u" / "templates"
    shutil.copytree(CHART, tmp_path / "u", dirs_exist_ok=True)
    (unclosed / "deployment.yaml").write_text(text.replace("{{ range .Values.args }}",
                                                           "{{ range .Values.args }}" * 20000, 1))
    monkeypatch.setenv("KVLINT_FILE_SECONDS", "20")  # linear: ~1 s of mapping 500 KB; quadratic: minutes
    slow = [f for f in read_path(str(unclosed / "deployment.yaml")).findings if "time budget" in f.message]
    assert slow == []
