"""Charts installed by GitOps objects with their values inside (kvlint.launches.charts.gitops): an Argo CD
Application's `helm.values` string and `valuesObject` map, multi-source `sources[]`, an ApplicationSet's template,
a Flux HelmRelease's `spec.values`; each launch's values at their line and column in the outer file."""

from __future__ import annotations

from pathlib import Path

from kvlint.launches import read_path

FIX = Path(__file__).resolve().parent.parent / "fixtures" / "launches" / "gitops"


def _at(span):
    return (span.line, span.col)


def _read(name: str):
    result = read_path(str(FIX / name))
    assert [f for f in result.findings if f.severity >= 2] == [] and not any(f.code == "KV008" for f in result.findings)
    return result.deployments


def test_an_application_values_string_is_the_charts_values_at_its_own_lines():
    chat, embed = _read("argocd-values-string.yaml")
    assert (chat.engine, chat.name, chat.model, _at(chat.model_span)) == ("vllm", "chat", "org/chat", (19, 25))
    assert chat.engine_version == "0.9.2" and chat.gpu_count == 1 and _at(chat.gpu_count_span) == (20, 27)
    assert chat.get("max_model_len") == 4096 and _at(chat.settings["max_model_len"].span) == (22, 30)
    assert (embed.model, _at(embed.model_span), embed.gpu_count) == ("org/embed", (26, 25), 0)


def test_values_object_multi_source_applicationset_and_flux_helmrelease():
    multi, per_cluster, flux = _read("argocd-objects.yaml")
    assert (multi.model, _at(multi.model_span), multi.gpu_count) == ("org/multi", (18, 27), 2)
    assert multi.get("tensor_parallel_size") == 2 and _at(multi.settings["tensor_parallel_size"].span) == (23, 39)
    # the ApplicationSet's values hold a `{{release}}` of its generator: kept as unresolved text, the rest read
    assert (per_cluster.model, _at(per_cluster.model_span)) == ("org/set", (39, 29))
    assert (per_cluster.image, per_cluster.engine_version) == ("vllm/vllm-openai:{{release}}", None)
    assert (flux.model, _at(flux.model_span), flux.get("max_model_len")) == ("org/flux", (58, 21), 8192)
    assert _at(flux.settings["max_model_len"].span) == (61, 26)


def test_values_kvlint_cannot_place_are_said_not_passed_over():
    text = ("apiVersion: argoproj.io/v1alpha1\nkind: Application\nspec:\n  source:\n    chart: vllm-stack\n"
            "    helm:\n      values: \"servingEngineSpec:\\n  modelSpec:\\n  - repository: vllm/vllm-openai\\n\"\n")
    result = read_path("app.yaml", text)
    assert result.deployments == []
    assert [(f.code, _at(f.span)) for f in result.findings] == [("KV008", (7, 66))]  # at the image it names


def test_an_application_s_helm_parameters_are_the_chart_s_values_at_their_places():
    from kvlint.launches import read_path

    (dep,) = read_path(str(FIX / "application-parameters.yaml")).deployments
    assert (dep.model, dep.engine_version, dep.get("max_model_len"), dep.gpu_count) == \
        ("Qwen/Qwen2.5-7B-Instruct", "0.10.1", 8192, 1)
    assert (dep.model_span.line, dep.model_span.col, dep.span_of("max_model_len").line) == (21, 18, 23)
