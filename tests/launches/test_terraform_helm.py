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


def test_a_helm_release_whose_values_are_a_yamlencoded_object(tmp_path):
    """Sample K49's vllm-on-eks release (measured: silent): `values = [yamlencode({ servingEngineSpec = { modelSpec
    = [{ modelURL = "...", vllmConfig = { maxModelLen = 8192, extraArgs = [...] } }] } })]`, a Terraform object
    with comments, references and lists: read as the chart's values, each value at its place; a reference Terraform
    computes (`aws_ecr_repository.x.repository_url`) stays unresolved, a module local takes its literal."""
    p = tmp_path / "release.tf"
    p.write_text('locals {\n  tag = "v0.9.2"\n}\n'
                 'resource "helm_release" "stack" {\n  chart = "vllm-stack"\n'
                 '  values = [yamlencode({\n    servingEngineSpec = {\n      modelSpec = [{\n'
                 '        name = "m" # the short name\n'
                 '        repository = aws_ecr_repository.img.repository_url\n        tag = local.tag\n'
                 '        modelURL = "org/encoded-model"\n        requestGPU = 2\n'
                 '        vllmConfig = {\n          maxModelLen = 8192\n          tensorParallelSize = 2\n'
                 '          extraArgs = ["--gpu-memory-utilization=0.85", "--enforce-eager"]\n'
                 '        }\n      }]\n    }\n  })]\n}\n')
    (d,) = read_path(str(p)).deployments
    assert (d.model, d.model_span.line, d.gpu_count) == ("org/encoded-model", 12, 2)
    assert (d.get("max_model_len"), d.settings["max_model_len"].span.line, d.get("tensor_parallel_size")) == \
        (8192, 15, 2)
    assert d.get("gpu_memory_utilization") == 0.85 and d.get("enforce_eager") is True
    assert d.image is not None and "aws_ecr_repository.img" in d.image
