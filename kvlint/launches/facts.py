"""Facts around a launch that are not engine flags: node labels, candidate GPUs, declared load,
and other names for a model given as a path. Readers collect them; the resolve stage uses them.

- node labels: `nodeSelector` entries and required node-affinity terms with one value, so a fleet
  map in .kvlint.yaml can turn `cloud.google.com/gke-nodepool: l4-pool` into a catalogue card;
- GPU options: several products a file offers (`gpu.product In [A, B]`, ORed selector terms, a GKE
  ComputeClass's priorities); one product keeps the Deployment's single `gpu` as before;
- declared load: concurrency the platform sends per instance (KServe/Knative, KubeAI, an HPA or a
  KEDA ScaledObject on running requests, Ray Serve's per-replica limits);
- model aliases: Hub ids that name a local path's model (`--served-model-name`, an env var, the
  path itself, a storage URI beside the container).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from kvlint.deployment import DeclaredLoad, GpuOption, ModelAlias, NodeLabel
from kvlint.flags.flag_values import is_windows_path
from kvlint.launches.gpus_in_manifest import is_product_label
from kvlint.lazyre import lazy
from kvlint.sources import numbers
from kvlint.sources.templates import has_placeholder
from kvlint.sources.yaml import YNode
from kvlint.span import Span

_AFFINITY = ("affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms")
_OPTION_SOURCE = {"cloud.google.com/gke-accelerator": "gke-accelerator"}
_COMPUTE_CLASS = "cloud.google.com/compute-class"
_HUB_ID = lazy(r"^[A-Za-z0-9][A-Za-z0-9._-]*/[A-Za-z0-9][A-Za-z0-9._-]*$")
_CACHE_DIR = lazy(r"^(?:models--)?([A-Za-z0-9][A-Za-z0-9._-]*?)--([A-Za-z0-9][A-Za-z0-9._-]*)$")
_GENERIC_DIRS = {"models", "model", "data", "mnt", "weights", "checkpoints", "checkpoint", "ckpt", "tmp", "home",
                 "root", "cache", ".cache", "hf", "huggingface", "hub", "output", "outputs", "workspace", "opt", "var",
                 "srv", "snapshots", "local", "shared", "storage", "llm", "llms", "volume", "volumes", "app", "usr",
                 "share"}
_NOT_THE_MODEL = ("TOKENIZER", "DRAFT", "SPECULAT", "LORA", "ADAPTER", "EMBED", "REWARD", "JUDGE", "ROUTER")
_PATH_SCHEMES = ("pvc://", "s3://", "gs://", "gcs://", "oci://", "file://", "azure://", "abfs://")
_UNRESOLVED = lazy(r"\$\{|\$\(|\{\{")  # and a template placeholder: see _unresolved
_RUNNING = ("num_requests_running", "num_running_reqs")  # vLLM, SGLang gauges of requests being decoded


def _unresolved(text: str) -> bool:
    """A shell or template expansion, or a template placeholder (kvlint.sources.templates.has_placeholder): the
    placeholder is tested apart because a non-ASCII alternative makes the pattern several times dearer to
    compile."""
    return has_placeholder(text) or _UNRESOLVED.search(text) is not None


# ---------------------------------------------------------------- node labels and GPU options

def pod_holder(ancestors: Sequence[YNode]) -> YNode | None:
    """The nearest enclosing map that schedules the pod (has nodeSelector or affinity)."""
    return next((h for h in reversed(ancestors) if h.is_map and (h.get("nodeSelector") is not None
                                                                  or h.get("affinity") is not None)), None)


def node_labels(pod: YNode | None) -> tuple[NodeLabel, ...]:
    """`nodeSelector` entries, then required affinity terms `key In [one value]`."""
    if pod is None:
        return ()
    out: list[NodeLabel] = []
    sel = pod.get("nodeSelector")
    for key, _, val in sel.pairs() if sel is not None else ():
        if val.is_scalar and val.text and not val.tag.endswith(":null"):
            out.append(NodeLabel(key, val.text, val.span))
    for key, values in _affinity_terms(pod):
        if len(values) == 1:
            out.append(NodeLabel(key, values[0].text, values[0].span))
    return tuple(label for label in out if not _unresolved(label.value))


def _affinity_terms(pod: YNode, terms: YNode | None = None) -> Iterable[tuple[str, list[YNode]]]:
    """(key, values) of `In` expressions in required node affinity (or in `terms` given directly)."""
    terms = pod.path(*_AFFINITY) if terms is None else terms
    for term in terms.items if terms is not None and terms.is_seq else ():
        exprs = term.get("matchExpressions") if term.is_map else None
        for expr in exprs.items if exprs is not None and exprs.is_seq else ():
            key, op, values = expr.get("key"), expr.get("operator"), expr.get("values")
            if key is None or not key.is_scalar or values is None or not values.is_seq:
                continue
            if op is None or not op.is_scalar or op.text == "In":
                yield key.text, [v for v in values.items if v.is_scalar and v.text]


def term_labels(terms: YNode | None) -> tuple[NodeLabel, ...]:
    """Single-value `In` expressions of a bare `nodeSelectorTerms` list (production-stack's chart key)."""
    if terms is None:
        return ()
    found = [NodeLabel(k, v[0].text, v[0].span) for k, v in _affinity_terms(terms, terms) if len(v) == 1]
    return tuple(lb for lb in found if not _unresolved(lb.value))


def term_options(terms: YNode | None, count: int | None) -> tuple[GpuOption, ...]:
    """Product-label values of a bare `nodeSelectorTerms` list, when there are several."""
    if terms is None:
        return ()
    found = [GpuOption(v.text, count, v.span, _OPTION_SOURCE.get(k, "node-affinity"))
             for k, values in _affinity_terms(terms, terms) if is_product_label(k) for v in values]
    return tuple(found) if len(found) > 1 else ()


def gpu_options(pod: YNode | None, count: int | None, docs: Sequence[YNode] = ()) -> tuple[GpuOption, ...]:
    """Products the pod may land on, when there are several: every value of product-label affinity
    terms (ORed terms add up), or the GPU priorities of a GKE ComputeClass in the same file."""
    if pod is None:
        return ()
    found: list[GpuOption] = []
    for key, values in _affinity_terms(pod):
        if is_product_label(key):
            source = _OPTION_SOURCE.get(key, "node-affinity")
            found.extend(GpuOption(v.text, count, v.span, source) for v in values)
    found.extend(_compute_class_options(pod, count, docs))
    unique = list({(o.name, o.count): o for o in found}.values())
    return tuple(unique) if len(unique) > 1 else ()


def _compute_class_options(pod: YNode, count: int | None, docs: Sequence[YNode]) -> list[GpuOption]:
    """`nodeSelector: {cloud.google.com/compute-class: NAME}` and that ComputeClass in the file: each
    priority's GPU type is a candidate, with the pod's own GPU count (the class says what a node has)."""
    sel = pod.get("nodeSelector")
    name = sel.get(_COMPUTE_CLASS) if sel is not None else None
    if name is None or not name.is_scalar:
        return []
    for doc in docs:
        kind, meta = doc.get("kind") if doc.is_map else None, doc.path("metadata", "name") if doc.is_map else None
        if kind is None or kind.text != "ComputeClass" or meta is None or meta.text != name.text:
            continue
        prios = doc.path("spec", "priorities")
        out = []
        for p in prios.items if prios is not None and prios.is_seq else ():
            gtype = p.path("gpu", "type")
            if gtype is not None and gtype.is_scalar:
                out.append(GpuOption(gtype.text, count, gtype.span, "compute-class"))
        return out
    return []


# ---------------------------------------------------------------- declared load

def declared_load(doc: YNode, ancestors: Sequence[YNode], docs: Sequence[YNode]) -> DeclaredLoad | None:
    """The per-instance concurrency the platform declares for the workload around a container.

    A hard per-instance limit (containerConcurrency) comes first, then autoscaling targets on
    concurrency (KServe scaleTarget, Knative's target annotation), then an HPA or KEDA object in
    the same file that scales this workload on running requests."""
    holders = [h for h in reversed(ancestors) if h.is_map]
    for holder in holders:
        load = _container_concurrency(holder)
        if load is not None:
            return load
    raw_mode = _annotation(doc, "serving.kserve.io/deploymentMode") in ("RawDeployment", "Standard")
    for holder in holders:
        load = _kserve_target(holder, raw_mode) or _knative_target(holder)
        if load is not None:
            return load
    name = doc.path("metadata", "name")
    return _autoscaler_target(name.text if name is not None and name.is_scalar else None, docs)


def _container_concurrency(holder: YNode) -> DeclaredLoad | None:
    node = holder.get("containerConcurrency")
    value = _int(node)
    return DeclaredLoad(value, "containerConcurrency", node.span) if value and node is not None else None


def _kserve_target(holder: YNode, raw_mode: bool) -> DeclaredLoad | None:
    """`scaleMetric: concurrency` + `scaleTarget: N`; with no metric, concurrency is KServe's default
    in serverless mode (RawDeployment defaults to cpu)."""
    target = holder.get("scaleTarget")
    metric = holder.get("scaleMetric")
    value = _int(target)
    if not value or target is None:
        return None
    name = metric.text if metric is not None and metric.is_scalar else ""
    if name == "concurrency" or (not name and not raw_mode):
        return DeclaredLoad(value, "scaleTarget", target.span)
    return None


def _knative_target(holder: YNode) -> DeclaredLoad | None:
    for ann in (holder.get("annotations"), holder.path("metadata", "annotations")):
        if ann is None or not ann.is_map:
            continue
        target = ann.get("autoscaling.knative.dev/target")
        metric = ann.get("autoscaling.knative.dev/metric")
        value = _int(target)
        if value and target is not None and (metric is None or metric.text == "concurrency"):
            return DeclaredLoad(value, "autoscaling.knative.dev/target", target.span)
    return None


def _autoscaler_target(workload: str | None, docs: Sequence[YNode]) -> DeclaredLoad | None:
    if not workload:
        return None
    for d in docs:
        kind = d.get("kind") if d.is_map else None
        ref = d.path("spec", "scaleTargetRef", "name") if d.is_map else None
        if kind is None or ref is None or not ref.is_scalar or ref.text != workload:
            continue
        load = _hpa_metric(d) if kind.text == "HorizontalPodAutoscaler" else _keda_trigger(d) \
            if kind.text == "ScaledObject" else None
        if load is not None:
            return load
    return None


def _hpa_metric(hpa: YNode) -> DeclaredLoad | None:
    metrics = hpa.path("spec", "metrics")
    for m in metrics.items if metrics is not None and metrics.is_seq else ():
        kind = m.get("type").text.lower() if m.get("type") is not None and m.get("type").is_scalar else ""
        body = m.get(kind) if kind else None
        name = body.path("metric", "name") if body is not None else None
        target = body.path("target", "averageValue") if body is not None else None
        if target is None and body is not None and kind == "object":
            target = body.path("target", "value")
        value = _quantity(target)
        if name is not None and name.is_scalar and any(r in name.text for r in _RUNNING) and value:
            return DeclaredLoad(value, f"hpa:{name.text}", target.span if target is not None else None)
    return None


def _keda_trigger(obj: YNode) -> DeclaredLoad | None:
    """A KEDA prometheus trigger on running requests: its threshold is the per-replica target."""
    triggers = obj.path("spec", "triggers")
    for t in triggers.items if triggers is not None and triggers.is_seq else ():
        query, threshold = t.path("metadata", "query"), t.path("metadata", "threshold")
        value = _quantity(threshold)
        if query is not None and query.is_scalar and any(r in query.text for r in _RUNNING) and value:
            return DeclaredLoad(value, "keda:prometheus", threshold.span if threshold is not None else None)
    return None


def ray_serve_load(deployment_config: YNode | None) -> DeclaredLoad | None:
    """Ray Serve: `max_ongoing_requests` caps each replica; else the autoscaler's per-replica target."""
    if deployment_config is None or not deployment_config.is_map:
        return None
    for name in ("max_ongoing_requests", "max_concurrent_queries"):  # the second: its name before Ray 2.10
        cap = deployment_config.get(name)
        if _int(cap) and cap is not None:
            return DeclaredLoad(_int(cap) or 0, name, cap.span)
    auto = deployment_config.get("autoscaling_config")
    for key in ("target_ongoing_requests", "target_num_ongoing_requests_per_replica"):
        node = auto.get(key) if auto is not None and auto.is_map else None
        value = _quantity(node)
        if value and node is not None:
            return DeclaredLoad(value, key, node.span)
    return None


def _annotation(doc: YNode, key: str) -> str | None:
    node = doc.path("metadata", "annotations", key)
    return node.text if node is not None and node.is_scalar else None


def _int(node: YNode | None) -> int | None:
    if node is None or not node.is_scalar:
        return None
    return numbers.count(node.text.strip().strip("'\""))


def _quantity(node: YNode | None) -> int | None:
    """A Kubernetes quantity as whole requests: `8`, `"8"`, `8500m` (8), `1k`; None below one."""
    if node is None or not node.is_scalar:
        return None
    found = re.fullmatch(r"(\d+(?:\.\d+)?)([mk]?)", node.text.strip().strip("'\""))
    if not found:
        return None
    value = float(found.group(1)) * {"m": 0.001, "k": 1000.0, "": 1.0}[found.group(2)]
    # a target of hundreds of digits is infinite as a float: no request count (fuzz seed 83: an OverflowError)
    return int(value) if 1 <= value < _MOST_REQUESTS else None


_MOST_REQUESTS = 1e12  # above any load a deployment declares


# ---------------------------------------------------------------- model aliases

def is_path_like(model: str | None) -> bool:
    """A local path or storage URI: a name kvlint cannot look up as it stands. A backslash or a drive letter is a
    Windows path (`outputs\\merged_model`, `C:/models/x`): no Hub id has either."""
    if not model:
        return False
    return (model.startswith(("/", "./", "../", "~")) or model.lower().startswith(_PATH_SCHEMES) or "models--" in model
            or is_windows_path(model))


def looks_like_hub_id(text: str | None) -> bool:
    if not text or not _HUB_ID.match(text) or ".." in text:
        return False
    org, name = text.split("/", 1)
    return org.lower() not in _GENERIC_DIRS and not name.lower().endswith((".json", ".yaml", ".yml", ".bin", ".gguf"))


def path_alias(path: str) -> str | None:
    """The Hub id a path names: an HF cache folder (`models--org--name`, also below `snapshots/`),
    or a tail `<folder>/Org/Name` under a generic folder (`/models/Qwen/Qwen3-8B`) whose name has a
    digit, as model names do (`/var/mdl/YOUR-MODEL-PATH` names nothing), also with a revision folder after it
    (`/models/microsoft/Phi-3-mini-4k-instruct/main`, a commit hash). Only literal text counts: segments with an
    unresolved expression are skipped (`$ROOT/huggingface/Org/Name-7B` names Org/Name-7B by its literal tail)."""
    body = path.split("://", 1)[-1] if "://" in path else path
    parts = [p for p in re.split(r"[/\\]+", body) if p and p != "."]
    for seg in reversed(parts):
        m = _CACHE_DIR.match(seg)
        if m and not _unresolved(seg) and (seg.startswith("models--") or seg.count("--") == 1):
            return f"{m.group(1)}/{m.group(2)}"
    while len(parts) > 2 and _REVISION_DIR.fullmatch(parts[-1]):
        parts = parts[:-1]  # `/models/org/Name/main`, `.../Name/<commit>`: a revision folder below the id
    if len(parts) < 2 or any(_unresolved(p) or "$" in p for p in parts[-2:]):
        return None
    org, name = parts[-2], parts[-1]
    under_generic = len(parts) == 2 or parts[-3].lower() in _GENERIC_DIRS
    if under_generic and any(ch.isdigit() for ch in name) and looks_like_hub_id(f"{org}/{name}"):
        return f"{org}/{name}"
    return None


_REVISION_DIR = re.compile(r"main|master|[0-9a-f]{7,40}")


def oci_alias(uri: str) -> tuple[str, str] | None:
    """The model an `oci://` model car names: its tag (`modelcar-catalog:granite-3.3-2b-instruct`), or
    when the tag is a version, the image name without `modelcar-` (`modelcar-granite-7b:1.4`)."""
    if not uri.lower().startswith("oci://"):
        return None
    ref = uri[len("oci://"):].split("@", 1)[0]
    name, _, tag = ref.rpartition(":") if ":" in ref.rsplit("/", 1)[-1] else (ref, "", "")
    if tag and not re.fullmatch(r"v?[\d.]+(-[\w.]+)?|latest|main|stable", tag):
        return tag, "oci-tag"
    image = name.rsplit("/", 1)[-1]
    image = image[len("modelcar-"):] if image.startswith("modelcar-") else image
    return (image, "oci-image") if image and any(ch.isdigit() for ch in image) else None


def model_aliases(model: str | None, served: Sequence[tuple[str, Span | None]],
                  env: Sequence[tuple[str, str, Span | None]], mounts: Sequence[tuple[str, str]] = (),
                  storage: tuple[str, Span | None] | None = None,
                  model_span: Span | None = None) -> tuple[ModelAlias, ...]:
    """Other names of a model given as a path, best first: served names that are Hub ids, env vars
    naming a Hub id, a storage URI beside the container, the path itself (or its host side)."""
    if not is_path_like(model) or model is None:
        return ()
    out: list[ModelAlias] = [ModelAlias(n, "served-name", s) for n, s in served if looks_like_hub_id(n)]
    ranked = sorted(env, key=lambda e: "MODEL" not in e[0].upper())
    out += [ModelAlias(v, f"env:{k}", s) for k, v, s in ranked
            if looks_like_hub_id(v) and not any(w in k.upper() for w in _NOT_THE_MODEL)]
    if storage is not None:
        uri, span = storage
        name = uri[len("hf://"):] if uri.lower().startswith("hf://") else path_alias(uri)
        if name and looks_like_hub_id(name):
            out.append(ModelAlias(name, "storageUri", span))
    for host, inside in mounts:
        if model == inside or model.startswith(inside.rstrip("/") + "/"):
            name = path_alias(host + model[len(inside.rstrip("/")):])
            if name:
                out.append(ModelAlias(name, "path", model_span))
    own = path_alias(model)
    if own:
        out.append(ModelAlias(own, "path", model_span))
    car = oci_alias(model)
    if car is not None:
        out.append(ModelAlias(car[0], car[1], model_span))
    out += [ModelAlias(n, "served-short", s) for n, s in served if "/" not in n]  # `opt-125m`: last resort
    first: dict[str, ModelAlias] = {}
    for alias in out:
        first.setdefault(alias.name, alias)
    return tuple(first.values())


def env_items(container: YNode | None, ancestors: Sequence[YNode] = ()) -> list[tuple[str, str, Span | None]]:
    """(name, value, value span) of literal env entries on a container and the maps around it."""
    out = []
    for holder in list(ancestors) + ([container] if container is not None else []):
        node = holder.get("env") if holder.is_map else None
        for item in node.items if node is not None and node.is_seq else ():
            name, value = item.get("name") if item.is_map else None, item.get("value") if item.is_map else None
            if name is not None and name.is_scalar and value is not None and value.is_scalar:
                out.append((name.text, value.text, value.span))
    return out
