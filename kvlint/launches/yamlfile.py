"""Which reader handles each YAML document: compose, SkyPilot, vLLM config, Kubernetes, chart values."""

from __future__ import annotations

from kvlint.deployment import Deployment
from kvlint.sources.yaml import YamlFile


def deployments_in(yf: YamlFile) -> tuple[list[Deployment], list[str]]:
    from kvlint.launches.compose import is_compose, read_compose
    from kvlint.launches.helm import launch_strings, read_values
    from kvlint.launches.k8s import read_k8s
    from kvlint.launches.skypilot import is_skypilot, read_skypilot
    from kvlint.launches.vllm_config import looks_like_vllm_config, read_vllm_config

    out: list[Deployment] = []
    notes: list[str] = []
    for doc in yf.docs:
        if not doc.is_map:
            continue
        if doc.get("apiVersion") is not None and doc.get("kind") is not None:
            out.extend(_by_kind(yf, doc) or read_k8s(yf, doc) or launch_strings(yf, doc))
        elif is_compose(doc):
            out.extend(read_compose(yf, doc))
        elif is_skypilot(doc):
            out.extend(read_skypilot(yf, doc))
        elif looks_like_vllm_config(doc):
            out.extend(read_vllm_config(yf.path, doc))
        else:
            deps, why = read_values(yf, doc)
            out.extend(deps)
            notes.extend(why)
    return out, notes


def _by_kind(yf: YamlFile, doc) -> list[Deployment]:
    """CRDs whose engine command is built by an operator from structured fields."""
    from kvlint.launches.charts import kaito, kserve, kubeai, llmaz, ray

    kind = doc.get("kind").text if doc.get("kind").is_scalar else ""
    api = doc.get("apiVersion").text if doc.get("apiVersion").is_scalar else ""
    if kind == "Model" and api.startswith("kubeai"):
        return kubeai.read_model_object(yf, doc)
    if kind == "RayService":
        return ray.read_rayservice(yf, doc)
    if kind == "LLMInferenceService":
        return kserve.read_llmisvc(yf, doc)
    if kind == "Playground" and "llmaz" in api:
        return llmaz.read_playground(yf, doc)
    if kind == "BackendRuntime" and "llmaz" in api:
        return llmaz.read_backend_runtime(yf, doc)
    if kind == "Workspace" and api.startswith("kaito"):
        return kaito.read_workspace(yf, doc)
    return []
