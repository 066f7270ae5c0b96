"""Which reader handles each YAML document: compose, SkyPilot, vLLM config, Kubernetes, chart values.

Readers are imported when a document of their shape turns up, so a Kubernetes manifest loads no
compose, SkyPilot or chart code (start-up time is most of a pre-commit run).
"""

from __future__ import annotations

from kvlint import limits
from kvlint.deployment import Deployment
from kvlint.sources.yaml import YamlFile, YNode


def deployments_in(yf: YamlFile) -> tuple[list[Deployment], list[str]]:
    from kvlint.launches.helm import launch_strings
    from kvlint.launches.k8s import read_k8s

    out: list[Deployment] = []
    notes: list[str] = []
    for doc in yf.docs:
        limits.check()
        if not doc.is_map:
            continue
        if doc.get("apiVersion") is not None and doc.get("kind") is not None:
            out.extend(_by_kind(yf, doc) or read_k8s(yf, doc) or launch_strings(yf, doc))
        else:
            deps, why = _not_kubernetes(yf, doc)
            out.extend(deps)
            notes.extend(why)
    return out, notes


def _not_kubernetes(yf: YamlFile, doc: YNode) -> tuple[list[Deployment], list[str]]:
    from kvlint.launches.compose import is_compose, read_compose
    from kvlint.launches.helm import read_values
    from kvlint.launches.skypilot import is_skypilot, read_skypilot
    from kvlint.launches.vllm_config import looks_like_vllm_config, read_vllm_config

    if is_compose(doc):
        return read_compose(yf, doc), []
    if is_skypilot(doc):
        return read_skypilot(yf, doc), []
    if looks_like_vllm_config(doc):
        return read_vllm_config(yf.path, doc), []
    return read_values(yf, doc)


def _by_kind(yf: YamlFile, doc: YNode) -> list[Deployment]:
    """CRDs whose engine command is built by an operator from structured fields (each adapter loads on its kind)."""
    kind = doc.get("kind").text if doc.get("kind").is_scalar else ""
    api = doc.get("apiVersion").text if doc.get("apiVersion").is_scalar else ""
    if kind == "Model" and api.startswith("kubeai"):
        from kvlint.launches.charts import kubeai

        return kubeai.read_model_object(yf, doc)
    if kind == "RayService":
        from kvlint.launches.charts import ray

        return ray.read_rayservice(yf, doc)
    if kind == "LLMInferenceService":
        from kvlint.launches.charts import kserve

        return kserve.read_llmisvc(yf, doc)
    if kind in ("Playground", "BackendRuntime") and "llmaz" in api:
        from kvlint.launches.charts import llmaz

        return llmaz.read_playground(yf, doc) if kind == "Playground" else llmaz.read_backend_runtime(yf, doc)
    if kind == "Workspace" and api.startswith("kaito"):
        from kvlint.launches.charts import kaito

        return kaito.read_workspace(yf, doc)
    return []
