"""Helm templates inside a chart read against the chart's own values.yaml (our fixture chart has the
shapes of the GKE and nm-vllm charts): spans point at values.yaml, origin "chart-values"."""

from __future__ import annotations

import shutil
from pathlib import Path

from kvlint.launches import read_path
from kvlint.launches.helm_chart import chart_of, evaluate

CHART = Path(__file__).resolve().parent.parent / "fixtures" / "launches" / "chart" / "demo-vllm"
VALUES = str(CHART / "values.yaml")


def _at(span):
    return (Path(span.path).name, span.line, span.col)


def _deployment():
    (d,) = read_path(str(CHART / "templates" / "deployment.yaml")).deployments
    return d


def test_references_resolve_to_values_nodes():
    d = _deployment()
    assert (d.model, d.model_resolved, _at(d.model_span)) == ("example-org/demo-8b", True, ("values.yaml", 6, 7))
    tp = d.settings["tensor_parallel_size"]  # `--tensor-parallel-size={{ .Values.tensorParallelSize }}`
    assert (tp.value, tp.origin, _at(tp.span)) == (2, "chart-values", ("values.yaml", 7, 21))
    mml = d.settings["max_model_len"]  # `{{ .Values.maxModelLen | quote }}`
    assert (mml.value, mml.origin, _at(mml.span)) == (16384, "chart-values", ("values.yaml", 8, 14))
    assert mml.flag_span.path.endswith("deployment.yaml") and mml.flag_span.line == 15


def test_default_applies_to_empty_values_and_missing_stays_unresolved():
    d = _deployment()
    util = d.settings["gpu_memory_utilization"]  # values has "", the template says `| default 0.85`
    assert (util.value, util.origin, _at(util.span)) == (0.85, "explicit", ("deployment.yaml", 17, 15))
    seqs = d.settings["max_num_seqs"]
    assert not seqs.resolved and seqs.value == "{{ .Values.maxNumSeqs }}"


def test_image_tag_defaults_to_the_chart_app_version():
    d = _deployment()
    assert d.engine_version == "0.9.2" and _at(d.engine_version_span) == ("deployment.yaml", 11, 18)


def test_toyaml_blocks_and_with_dot_bring_resources_and_node_selector():
    d = _deployment()
    assert (d.gpu_count, _at(d.gpu_count_span)) == (2, ("values.yaml", 12, 21))
    assert (d.gpu, _at(d.gpu_span)) == ("nvidia-l4", ("values.yaml", 14, 37))
    assert [(lb.key, lb.value) for lb in d.node_labels] == [("cloud.google.com/gke-accelerator", "nvidia-l4")]


def test_script_references_point_at_the_reference_in_the_template():
    (d,) = read_path(str(CHART / "templates" / "script.yaml")).deployments
    assert (d.model, _at(d.model_span)) == ("example-org/demo-8b", ("script.yaml", 12, 27))
    assert d.get("max_model_len") == 16384 and _at(d.settings["max_model_len"].span) == ("script.yaml", 12, 66)
    assert d.get("tensor_parallel_size") == 1  # `{{ .Values.missing | default 1 }}`
    assert d.engine_version == "0.9.2"


def test_the_template_notice_names_the_values_file():
    result = read_path(str(CHART / "templates" / "deployment.yaml"))
    (note,) = [f for f in result.findings if f.code == "KV001"]
    assert "read from" in note.message and note.message.rstrip().endswith("unresolved text") and "values.yaml" in note.message


def test_without_chart_yaml_nothing_is_resolved(tmp_path):
    copy = tmp_path / "demo"
    shutil.copytree(CHART, copy)
    (copy / "Chart.yaml").unlink()
    (d,) = read_path(str(copy / "templates" / "deployment.yaml")).deployments
    assert not d.model_resolved and d.settings["tensor_parallel_size"].resolved is False


def test_with_block_relative_references_and_index(tmp_path):
    root = tmp_path / "c"
    (root / "templates").mkdir(parents=True)
    (root / "Chart.yaml").write_text("apiVersion: v2\nname: c\nversion: 1.0.0\n")
    (root / "values.yaml").write_text("engine:\n  maxModelLen: 4096\n  model-id: org/m\n")
    (root / "templates" / "pod.yaml").write_text(
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n  - image: vllm/vllm-openai:v0.9.0\n"
        "    args:\n    - --model\n    - {{ index .Values.engine \"model-id\" }}\n"
        "    {{- with .Values.engine }}\n    - --max-model-len={{ .maxModelLen }}\n    {{- end }}\n")
    (d,) = read_path(str(root / "templates" / "pod.yaml")).deployments
    assert d.model == "org/m" and _at(d.model_span) == ("values.yaml", 3, 13)
    assert d.get("max_model_len") == 4096 and _at(d.settings["max_model_len"].span) == ("values.yaml", 2, 16)


def test_evaluate_pipelines():
    chart = chart_of(str(CHART / "templates" / "deployment.yaml"))
    assert chart is not None and chart.values.path == VALUES
    root = ("",)
    assert evaluate(chart, ".Values.maxModelLen | quote", root).text == "16384"
    assert evaluate(chart, "default 7 .Values.nothing", root).text == "7"
    assert evaluate(chart, '.Values.image.tag | default "latest"', root).text == "latest"
    assert evaluate(chart, ".Values.resources | toYaml | nindent 12", root).node.is_map
    assert evaluate(chart, 'include "x" .', root) is None and evaluate(chart, ".Values.model.id | upper", root) is None
    assert evaluate(chart, ".Release.Name", root) is None


def test_real_chart_layout_resolves_once_chart_yaml_is_beside_it(shared_dir, tmp_path):
    """The GKE ai-inference chart in ../shared/corpus keeps templates/ and values.yaml but not its
    Chart.yaml; with one beside them the template reads as the rendered chart would start vLLM."""
    src = shared_dir / "corpus" / "GoogleCloudPlatform__kubernetes-engine-samples" / "app-design-center" / "ai-inference"
    root = tmp_path / "ai-inference"
    shutil.copytree(src, root)
    (root / "Chart.yaml").write_text("apiVersion: v2\nname: gemma\nversion: 0.1.0\n")
    (d,) = read_path(str(root / "templates" / "deployment.yaml")).deployments
    assert (d.model, _at(d.model_span)) == ("google/gemma-7b-it", ("deployment.yaml", 36, 11))  # --model=$(MODEL_ID)
    assert (d.get("tensor_parallel_size"), _at(d.settings["tensor_parallel_size"].span)) == (1, ("values.yaml", 46, 21))
    assert (d.get("max_model_len"), d.settings["max_model_len"].origin) == (512, "chart-values")
    assert (d.engine_version, d.gpu, d.gpu_count) == ("0.19.1", "nvidia-l4", 1)


def test_range_over_a_values_list_in_a_flow_command():
    (d,) = read_path(str(CHART / "templates" / "flow-command.yaml")).deployments
    assert (d.model, _at(d.model_span)) == ("example-org/demo-8b", ("values.yaml", 6, 7))
    flag = d.settings["enable_prefix_caching"]  # {{- range .Values.extraArgs }} {{ quote . }}, {{- end }}
    assert (flag.value, flag.origin, _at(flag.span)) == (True, "chart-values", ("values.yaml", 16, 5))
    assert d.unknown_flags == () and d.notes == ()  # a range over a list values.yaml lacks stays as written


def test_many_references_and_unclosed_braces_stay_fast(tmp_path):
    """Resolving is near-linear in the references: bisection per scalar, one bounded line per `{{`."""
    import time

    from kvlint.launches.helm_chart import parse_template, resolve_template

    root = tmp_path / "big"
    (root / "templates").mkdir(parents=True)
    (root / "Chart.yaml").write_text("apiVersion: v2\nname: big\nversion: 1.0.0\n")
    (root / "values.yaml").write_text("a: 1\n" + "".join(f"k{i}: v{i}\n" for i in range(3000)))
    lines = [f"  k{i}: {{{{ .Values.k{i % 3000} }}}}" for i in range(20000)] + ["  # " + "{{ " * 5000]
    path = root / "templates" / "cm.yaml"
    path.write_text("apiVersion: v1\nkind: ConfigMap\ndata:\n" + "\n".join(lines) + "\n")
    yf = parse_template(str(path), path.read_text())  # valid YAML as written: `{{ }}` would compose as flow maps
    start = time.process_time()  # CPU time, with a wide margin: a busy runner does not stretch it
    resolved = resolve_template(yf, chart_of(str(path)))
    assert time.process_time() - start < 4.0
    assert resolved.docs[0].path("data", "k7").text == "v7"


def test_a_template_that_happens_to_be_valid_yaml_is_still_read_as_a_template(tmp_path):
    root = tmp_path / "c"
    (root / "templates").mkdir(parents=True)
    (root / "Chart.yaml").write_text("apiVersion: v2\nname: c\nversion: 1.0.0\n")
    (root / "values.yaml").write_text("model: org/m\nlen: 2048\n")
    (root / "templates" / "pod.yaml").write_text(
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n  - image: vllm/vllm-openai:v0.9.0\n"
        "    args: [--model, {{ .Values.model }}, --max-model-len, {{ .Values.len }}]\n")
    (d,) = read_path(str(root / "templates" / "pod.yaml")).deployments
    assert (d.model, d.get("max_model_len")) == ("org/m", 2048) and _at(d.model_span) == ("values.yaml", 1, 8)


def _brace_chart(root: Path, n: int) -> Path:
    """helm-brace-template.sh: a chart whose one template ends in a run of n `{`."""
    (root / "templates").mkdir(parents=True)
    (root / "Chart.yaml").write_text("apiVersion: v2\nname: x\nversion: 0.1.0\n")
    (root / "values.yaml").write_text("model: Qwen/Qwen2.5-7B-Instruct\n")
    head = ('apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: x}\nspec:\n  template:\n    spec:\n'
            '      containers:\n      - name: v\n        image: vllm/vllm-openai:v0.8.0\n'
            '        args: ["--model", "{{ .Values.model }}"]\nx: ')
    (root / "templates" / "b.yaml").write_text(head + "{" * n + "\n")
    return root


def test_a_run_of_braces_is_scanned_in_linear_work(tmp_path):
    """The old `_EXPR` tried 2,000 characters from every `{`: 100 KB of them took 2.2 s of CPU here. The bound
    is on this thread's CPU time, generous."""
    import time

    from kvlint.launches import helm_chart

    text = "x: " + "{" * 300_000 + "\n{{ .Values.model }}\n"
    started = time.thread_time()
    exprs = getattr(helm_chart._scan, "__wrapped__", helm_chart._scan)(text)  # not the cached answer
    spent = time.thread_time() - started
    assert [e.body for e in exprs] == [".Values.model"]
    assert spent < 2.0, spent  # before: 6.6 s here (2.2 s per 100 KB); now about 0.05 s


def test_a_chart_template_is_scanned_once_per_run(tmp_path, monkeypatch):
    """Checking values.yaml reads the chart's templates; the run reads them again as files: one scan each."""
    from kvlint.cli import main
    from kvlint.launches import helm_chart

    chart = _brace_chart(tmp_path / "chart", 5)
    whole = (chart / "templates" / "b.yaml").read_text()
    helm_chart._scan.cache_clear()
    scans: list[str] = []

    class Counting:
        def __init__(self, pattern):
            self.pattern = pattern

        def finditer(self, text):
            scans.append(text)
            return self.pattern.finditer(text)

        def __getattr__(self, name):
            return getattr(self.pattern, name)

    monkeypatch.setattr(helm_chart, "_EXPR", Counting(helm_chart._EXPR))
    main(["check", "-j1", str(chart)])
    assert sum(text == whole for text in scans) == 1
