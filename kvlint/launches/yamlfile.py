"""Which reader handles each YAML document: compose, SkyPilot, vLLM config, Kubernetes, chart values.

Readers are imported when a document of their shape turns up, so a Kubernetes manifest loads no
compose, SkyPilot or chart code (start-up time is most of a pre-commit run).
"""

from __future__ import annotations

from kvlint import limits
from kvlint.deployment import NO_MODEL_HERE, Deployment
from kvlint.findings import Finding
from kvlint.launches.groups import one_per_group
from kvlint.launches.k8s import read_k8s
from kvlint.sources.yaml import YamlFile, YNode


def deployments_in(yf: YamlFile, as_vllm_config: bool | None = None) -> tuple[list[Deployment], list[str | Finding]]:
    """Every launch in the file's documents, and what to tell the user (KV001 notes as text, other
    reader findings as Findings). `as_vllm_config` True reads a plain map as a vLLM --config file
    (a launch or the configuration names it), False never does, None decides by its keys."""

    out: list[Deployment] = []
    notes: list[str | Finding] = []
    for doc in yf.docs:
        limits.check()
        if doc.is_seq and any(_is_aibrix_template(i) for i in doc.elements):
            from kvlint.launches.charts import aibrix

            out.extend(aibrix.read_list(yf, doc))
        if doc.is_seq:  # an Ansible playbook or task list (a docker_container task), a list of jobs
            from kvlint.launches.charts.unknown import read_list
            from kvlint.launches.helm import containers_and_strings
            from kvlint.launches.params import parameter_launches

            tasks = doc
            if "{{" in yf.text and ("set_fact" in yf.text or "vars:" in yf.text):
                from kvlint.launches.ansible import with_facts

                tasks = with_facts(doc)  # a value that is one variable: what the play set it to, where it did
            # else a catalogue of models, else a list of named parameters (kvlint.launches.params)
            out.extend(containers_and_strings(yf, tasks) or read_list(yf, doc) or parameter_launches(yf, doc))
        if not doc.is_map:
            continue
        if doc.get("apiVersion") is not None and doc.get("kind") is not None:
            if _installs_chart(doc):
                from kvlint.launches.charts import gitops

                deps, why = gitops.read(yf, doc)
                out.extend(deps)
                notes.extend(why)
                if deps:
                    continue
            out.extend(_by_kind(yf, doc) or read_k8s(yf, doc) or _launch_strings(yf, doc) or _structured(yf, doc))
        else:
            deps, why = _not_kubernetes(yf, doc, as_vllm_config)
            out.extend(deps)
            notes.extend(why)

    return one_per_group(join_headless([d for d in out if not _bare_entrypoint(d)])), notes


def _bare_entrypoint(dep: Deployment) -> bool:
    """An engine entry point with nothing after it (no model, no flag): an image's definition written in YAML
    (`entrypoint: [python3, -m, vllm.entrypoints.openai.api_server]`, a Dockerfile in a string); the launch is
    where that image is run with arguments, so it is not one here (and gets no "no model" warning)."""
    # a launch whose options the shell cuts off is the engine started without them (KV012); one given a build's own
    # options (kvlint.launches.build) is a launch whose entry point names the model
    return dep.model is None and not dep.settings and not dep.unknown_flags and not dep.invalid_values and \
        dep.cut is None and not any(n.startswith(NO_MODEL_HERE) for n in dep.notes)


def join_headless(deps: list[Deployment]) -> list[Deployment]:
    """A data-parallel `--headless` worker (it serves no API: its ranks belong to a leader) is part of the
    launch of the same engine and model that does serve: one launch, its GPUs summed over both. A headless
    launch with no such leader in the file stays a launch (its leader is elsewhere)."""
    if not any(d.get("headless") is True for d in deps):
        return deps
    out: list[Deployment] = []
    for dep in deps:
        if dep.get("headless") is True:
            at = next((i for i, d in enumerate(out) if d.engine == dep.engine and d.model == dep.model
                       and d.get("headless") is not True), None)
            if at is not None:
                out[at] = _with_worker(out[at], dep)
                continue
        out.append(dep)
    return out


def _with_worker(leader: Deployment, worker: Deployment) -> Deployment:
    from kvlint.record import replace

    span = worker.launch_span or worker.model_span
    where = " ".join(p for p in (worker.name, f"line {span.line}" if span is not None else "") if p) or "this file"
    if leader.gpu_count is not None and worker.gpu_count is not None:
        note = (f"gpu count = {leader.gpu_count} (this launch) + {worker.gpu_count} (its --headless data-parallel "
                f"worker at {where}): one launch")
        return replace(leader, gpu_count=leader.gpu_count + worker.gpu_count, notes=leader.notes + (note,))
    note = f"its --headless data-parallel worker at {where} is part of this launch; the group's GPUs are not all stated"
    return replace(leader, gpu_count=None, notes=leader.notes + (note,))


def _launch_strings(yf: YamlFile, doc: YNode) -> list[Deployment]:
    """Launch command lines in a manifest's strings (ConfigMaps, operators' fields): chart code, loaded only for
    a manifest whose containers launch nothing."""
    from kvlint.launches.helm import launch_strings

    return launch_strings(yf, doc)


def _structured(yf: YamlFile, doc: YNode) -> list[Deployment]:
    """An operator's object whose spec holds the engine's settings as keys (`spec.model`, `spec.maxModelLen`):
    read when its kind, API group, a key on the path or an engine image names the engine (chart code, loaded
    only for a manifest nothing else launched)."""
    from kvlint.launches.charts.unknown import read_object
    from kvlint.launches.k8s import served_here

    if served_here(yf, doc):
        return []  # an InferenceService whose runtime is in the file: that runtime's container is its launch (K420)
    return read_object(yf, doc)


def _not_kubernetes(yf: YamlFile, doc: YNode,
                    as_vllm_config: bool | None) -> tuple[list[Deployment], list[str | Finding]]:
    from kvlint.launches.compose import is_compose, read_compose
    from kvlint.launches.helm import read_values
    from kvlint.launches.skypilot import is_skypilot, read_skypilot
    from kvlint.launches.vllm_config import looks_like_vllm_config, read_vllm_config

    if is_compose(doc):
        from kvlint.launches.compose import invalid_interpolations, missing_scripts, unread_model_variables

        deps = read_compose(yf, doc)
        said: list[str | Finding] = [*unread_model_variables(yf, doc), *([] if deps else missing_scripts(yf, doc)),
                                     *invalid_interpolations(yf, doc)]
        if not deps and not any(isinstance(s, Finding) for s in said):
            deps = _services_strings(yf, doc)
        if not deps and not any(isinstance(s, Finding) for s in said):
            from kvlint.launches.compose import unnamed_images

            said += unnamed_images(yf, doc)
        return deps, said
    if is_skypilot(doc):
        return read_skypilot(yf, doc), []
    if doc.get("releases") is not None:
        from kvlint.launches.helmfile import is_helmfile, read_helmfile

        if is_helmfile(doc):
            return read_helmfile(yf, doc), []
    if doc.get("available_node_types") is not None or doc.get("docker") is not None:
        from kvlint.launches.ray_cluster import is_ray_cluster, read_ray_cluster

        if is_ray_cluster(doc):
            return read_ray_cluster(yf, doc), []
    if as_vllm_config or (as_vllm_config is None and looks_like_vllm_config(doc) and doc.get("model") is not None):
        # a file of flags with no model is the settings a launch elsewhere names with `--config` (sample K307's
        # `serving-args.yaml`, which its chart's values name): read there, not as a launch of its own
        return read_vllm_config(yf.path, doc), []
    if as_vllm_config is None and looks_like_vllm_config(doc):
        return [], []
    deps, notes = read_values(yf, doc)
    if not deps and "ockerfile" in yf.text:
        from kvlint.launches.built import built_images

        deps = built_images(yf, doc) or deps
    return deps, notes


def _services_strings(yf: YamlFile, doc: YNode) -> list[Deployment]:
    """A `services:` map that is no compose file's (a platform's app spec: `services: {llm: {run: "vllm serve
    ..."}}`): services with neither `image:` nor `build:`, whose command strings are read as any YAML file's are."""
    services = doc.get("services")
    if services is None or any(v.is_map and v.has_any(("image", "build")) for _, _, v in services.pairs()):
        return []
    from kvlint.launches.helm import launch_strings

    return launch_strings(yf, doc)


def _by_kind(yf: YamlFile, doc: YNode) -> list[Deployment]:
    """CRDs whose engine command is built by an operator from structured fields (each adapter loads on its kind)."""
    kind_node, api_node = doc.get("kind"), doc.get("apiVersion")
    kind = kind_node.text if kind_node is not None and kind_node.is_scalar else ""
    api = api_node.text if api_node is not None and api_node.is_scalar else ""
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
    if kind == "ModelDeploymentTemplate" or (kind == "ConfigMap" and "model_source" in _data_text(doc)):
        from kvlint.launches.charts import aibrix

        return aibrix.read_object(yf, doc) if kind != "ConfigMap" else aibrix.read_configmap(yf, doc)
    if kind == "VLLMRuntime":
        from kvlint.launches.charts import production_stack

        return production_stack.read_vllmruntime(yf, doc)
    if kind == "Workspace" and api.startswith("kaito"):
        from kvlint.launches.charts import kaito

        return kaito.read_workspace(yf, doc)
    return []


def _installs_chart(doc: YNode) -> bool:
    """An Argo CD Application / ApplicationSet or a Flux HelmRelease: a chart installed with values written in the
    object (kvlint.launches.charts.gitops)."""
    kind_node, api_node = doc.get("kind"), doc.get("apiVersion")
    kind = kind_node.text if kind_node is not None and kind_node.is_scalar else ""
    api = api_node.text if api_node is not None and api_node.is_scalar else ""
    return (kind in ("Application", "ApplicationSet") and api.startswith("argoproj.io/")) or (
        kind == "HelmRelease" and "fluxcd" in api)


def _is_aibrix_template(item: YNode) -> bool:
    return item.is_map and item.path("spec", "engine") is not None and item.path("spec", "model_source") is not None


def _data_text(doc: YNode) -> str:
    data = doc.get("data")
    return " ".join(v.text for _, _, v in data.pairs() if v.is_scalar) if data is not None and data.is_map else ""
