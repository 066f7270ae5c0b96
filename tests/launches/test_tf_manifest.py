"""kvlint.launches.tf_manifest: Terraform's `kubernetes_manifest` objects, written in HCL, read as the manifests they
are (sample K218's RayService, a KV008 before), every value at its line and column."""

from __future__ import annotations

from kvlint.launches import read_path
from kvlint.launches.tf_manifest import as_flow

TF = '''resource "kubernetes_manifest" "svc" {
  manifest = {
    "apiVersion" = "ray.io/v1"
    "kind"       = "RayService"   # the Serve config is a yamlencode'd object
    "metadata" = {
      "name"      = "vllm"
      "namespace" = var.namespace
    }
    "spec" = {
      "serveConfigV2" = yamlencode({
        "applications" = [
          {
            "name"        = "m"
            "import_path" = "vllm_serve:deployment"
            "runtime_env" = {
              "env_vars" = {
                "MODEL_ID"      = "org/tf-model"
                "MAX_MODEL_LEN" = "8192"
              }
            }
          }
        ]
      })
    }
  }
}
'''


def test_a_kubernetes_manifest_resource_is_read_as_its_object():
    (dep,) = read_path("main.tf", TF).deployments
    assert (dep.engine, dep.model, dep.get("max_model_len")) == ("vllm", "org/tf-model", 8192)
    assert (dep.model_span.line, dep.model_span.col) == (17, 35)


def test_an_expression_the_rewriting_does_not_take_leaves_the_object_unread():
    """A conditional or a function other than the encoders is no value kvlint can write down: no guess."""
    assert as_flow('{\n  "a" = var.x ? "b" : "c"\n}') is None
    assert as_flow('{\n  "a" = lower("B")\n}') is None
    assert as_flow('{\n  "a" = var.x\n  "b" = [1, 2]\n}') == '{\n  "a" : "${var.x}",\n  "b" : [1, 2]\n}'
