"""kvlint.launches.terraform_helm: a helm_release's `set` values assembled into the chart's values, with the
module's locals and variable defaults (sample K2's westbrook-ai shape, read after K2 was measured)."""

from __future__ import annotations

from kvlint.launches import read_path
from kvlint.launches.terraform_helm import _put
from tests.launches.test_docker_and_positional import FIX, _at


def test_a_production_stack_release_set_value_by_value_is_one_launch_at_the_values_places():
    result = read_path(str(FIX / "terraform_helm" / "release.tf"))
    (dep,) = result.deployments
    assert (dep.engine_version, dep.model, dep.get("max_model_len"), dep.gpu_count) == \
        ("0.10.1", "meta-llama/Llama-3.1-8B-Instruct", 16384, 1)
    assert (_at(dep.model_span), _at(dep.span_of("max_model_len")), _at(dep.gpu_count_span)) == \
        ((23, 15), (33, 13), (27, 15))
    assert all(s.path.endswith("release.tf") for s in (dep.model_span, dep.launch_span))


def test_a_release_whose_locals_are_not_in_the_module_keeps_the_expression(tmp_path):
    text = (FIX / "terraform_helm" / "release.tf").read_text()
    (tmp_path / "main.tf").write_text(text)
    (dep,) = read_path(str(tmp_path / "main.tf")).deployments
    assert (dep.model, dep.model_resolved) == ("${local.model}", False)


def test_set_paths_build_nested_maps_and_lists():
    tree: dict = {}
    _put(tree, "a.b[1].c", ("x", True, None))
    _put(tree, "a.b[0]", ("y", True, None))
    _put(tree, r"d\.e", ("z", True, None))
    assert tree == {"a": {"b": [("y", True, None), {"c": ("x", True, None)}]}, "d.e": ("z", True, None)}


def test_release_values_in_here_documents_are_read_in_place_with_the_module_s_variables():
    """Sample K3's trackit shape: `values = [<<-EOT ... EOT]`, `${"literal"}` and `${var.x}` interpolations."""
    from kvlint.lint import LintOptions, lint

    path = FIX / "terraform_helm" / "heredoc" / "release.tf"
    gpu, neuron = read_path(str(path)).deployments
    assert (gpu.model, _at(gpu.model_span), gpu.get("max_model_len"), gpu.gpu_count) == \
        ("Qwen/Qwen2.5-7B-Instruct", (17, 26), 8192, 1)
    assert (neuron.gpu, neuron.get("tensor_parallel_size"), neuron.gpu_count) == ("aws.amazon.com/neuron", 2, 1)
    # one Neuron device holds the two NeuronCores TP 2 spans: no KV204 "needs 2 GPUs" on it
    assert not [f for f in lint([str(path)], LintOptions()).findings if f.code == "KV204"]
