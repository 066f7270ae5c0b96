"""Launches of every kind the resolve stage tells apart, each resolved record pinned (issue O item 9).

One table, tests/resolve/data/pinned.json: for each launch below, what a user reads of its resolution: the model's
source or why there is none, the card and where it was named, the release and why, the settings left open, the
skip reason, the refusal, the open input and every value's verdict, the budget's figures, and the catalogue or
candidate sweep (least memory to start and to hold the declared load, the cards that pass). The launches are small
files we write here, one mechanism each: release from the image tag (pinned, latest, a dated build, a hardware
fork, a host script), GPU from the command line, manifest, fleet map, configuration or memory total, TP bounded by
the GPUs requested, candidate GPU lists, vendor scope, length doubts, refusals and unresolved values.

Regenerate after an intended change with KVLINT_UPDATE_GOLDEN=1 and review the diff.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from kvlint.config import Config
from kvlint.launches import read_path
from kvlint.resolve import ResolveOptions, Resolver

TABLE = Path(__file__).parent / "data" / "pinned.json"

K8S = """apiVersion: apps/v1
kind: Deployment
metadata: {{name: chat}}
spec:
  template:
    spec:
{extra}      containers:
        - name: server
          image: {image}
          args: {args}
          resources: {{limits: {{{resource}: {count}}}}}
"""


def k8s(image: str, args: list[str], count: int = 1, extra: str = "", resource: str = "nvidia.com/gpu") -> str:
    return K8S.format(image=image, args=json.dumps(args), count=count, extra=extra, resource=resource)


COMPOSE = "services:\n  llm:\n    image: {image}\n    command: {command}\n"

# name -> (file name, text, ResolveOptions keywords, Config keywords)
LAUNCHES: dict[str, tuple[str, str, dict[str, Any], dict[str, Any]]] = {
    "script, catalogue sweep": ("serve.sh", "vllm serve Qwen/Qwen3-8B --max-model-len 8192\n", {}, {}),
    "script, sweep with declared load": (
        "serve.sh", "vllm serve Qwen/Qwen3-8B --max-model-len 32768 --max-num-seqs 48\n", {}, {}),
    "script, 70B TP 2 sweep": (
        "serve.sh", "vllm serve meta-llama/Llama-3.1-70B-Instruct -tp 2 --max-model-len 16384\n", {}, {}),
    "script, no card starts it": ("serve.sh", "vllm serve meta-llama/Llama-3.1-405B --max-model-len 8192\n", {}, {}),
    "script, tiny model, smallest card starts it": (
        "serve.sh", "vllm serve Qwen/Qwen3-0.6B --max-model-len 2048 --gpu-memory-utilization 0.5\n", {}, {}),
    "script, sglang sweep": (
        "serve.sh", "python -m sglang.launch_server --model-path Qwen/Qwen3-8B --context-length 8192 "
                    "--max-running-requests 16\n", {}, {}),
    "cli gpu": ("serve.sh", "vllm serve Qwen/Qwen3-8B --max-model-len 8192\n", {"gpu": "H100"}, {}),
    "cli gpu, long context refused by memory": (
        "serve.sh", "vllm serve Qwen/Qwen3-32B --max-model-len 40960 --gpu-memory-utilization 0.5\n",
        {"gpu": "L40S"}, {}),
    "cli gpu memory only": ("serve.sh", "vllm serve Qwen/Qwen3-8B --max-model-len 8192\n",
                            {"gpu_memory": "40GiB"}, {}),
    "cli gpu and memory": ("serve.sh", "vllm serve Qwen/Qwen3-8B --max-model-len 8192\n",
                           {"gpu": "A100-80GB", "gpu_memory": "70GiB"}, {}),
    "cli version and non-kv": ("serve.sh", "vllm serve Qwen/Qwen3-8B --max-model-len 8192\n",
                               {"gpu": "A10G", "engine_version": "0.10.1", "non_kv_gib": 2.5}, {}),
    "cli undocumented version": ("serve.sh", "vllm serve Qwen/Qwen3-8B --max-model-len 8192\n",
                                 {"gpu": "L4", "engine_version": "0.9.7"}, {}),
    "assumed gpu": ("serve.sh", "vllm serve Qwen/Qwen3-8B --max-model-len 8192\n", {"assume_gpu": "H100"}, {}),
    "config gpu, version and non-kv": (
        "serve.sh", "vllm serve Qwen/Qwen3-8B --max-model-len 8192\n", {},
        {"gpu": "L40S", "engine_versions": {"vllm": "0.8.5"}, "non_kv_gib": {"Qwen/Qwen3-8B": 3.0}}),
    "config gpu memory": ("serve.sh", "vllm serve Qwen/Qwen3-8B --max-model-len 8192\n", {},
                          {"gpu_memory": "24GiB"}),
    "config A100 without memory": ("serve.sh", "vllm serve Qwen/Qwen2.5-32B-Instruct --max-model-len 8192\n", {},
                                   {"gpu": "A100"}),
    "fleet glob": ("edge/serve.sh", "vllm serve Qwen/Qwen3-8B --max-model-len 8192\n", {},
                   {"gpus": (("edge/*", "L4"),)}),
    "manifest pinned image, TP 4 of 4 GPUs": (
        "deploy.yaml", k8s("vllm/vllm-openai:v0.8.3", ["--model", "meta-llama/Llama-3.1-70B-Instruct",
                                                      "--tensor-parallel-size", "4", "--max-model-len", "32768"], 4,
                           "      nodeSelector: {cloud.google.com/gke-accelerator: nvidia-l4}\n"), {}, {}),
    "manifest latest image, no gpu named": (
        "deploy.yaml", k8s("vllm/vllm-openai:latest", ["--model", "Qwen/Qwen3-14B", "--max-model-len", "16384"]),
        {}, {}),
    "manifest untagged sglang image": (
        "deploy.yaml", k8s("lmsysorg/sglang", ["python3", "-m", "sglang.launch_server", "--model-path",
                                               "Qwen/Qwen3-8B", "--context-length", "8192"]), {}, {}),
    "manifest rocm dated build": (
        "deploy.yaml", k8s("rocm/vllm-dev:20250601", ["--model", "Qwen/Qwen3-8B", "--max-model-len", "8192"],
                           resource="amd.com/gpu"), {}, {}),
    "manifest dated nightly": (
        "deploy.yaml", k8s("vllm/vllm-openai:nightly-2025-09-01", ["--model", "Qwen/Qwen3-8B",
                                                                   "--max-model-len", "8192"]), {"gpu": "H100"}, {}),
    "manifest hardware fork": (
        "deploy.yaml", k8s("opea/vllm-gaudi:1.22.0", ["--model", "Qwen/Qwen3-8B", "--max-model-len", "8192"]),
        {"gpu": "H100"}, {}),
    "manifest A100 node affinity": (
        "deploy.yaml", k8s("vllm/vllm-openai:v0.10.1", ["--model", "Qwen/Qwen3-32B", "--max-model-len", "32768"], 1,
                           "      nodeSelector: {nvidia.com/gpu.product: A100}\n"), {}, {}),
    "manifest unresolved tp over 8 gpus": (
        "deploy.yaml", k8s("lmsysorg/sglang:v0.5.2", ["python3", "-m", "sglang.launch_server", "--model-path",
                                                      "Qwen/Qwen3-32B", "--tp-size", "$(TP)"], 8), {}, {}),
    "manifest unresolved tp over 6 gpus, cli gpu": (
        "deploy.yaml", k8s("vllm/vllm-openai:v0.10.1", ["--model", "Qwen/Qwen3-32B", "--tensor-parallel-size",
                                                        "$(TP)", "--max-model-len", "8192"], 6), {"gpu": "L4"}, {}),
    "compose, engine image": ("docker-compose.yaml", COMPOSE.format(
        image="vllm/vllm-openai:v0.10.1", command="--model Qwen/Qwen2.5-7B-Instruct --max-model-len 16384"),
        {"gpu": "A100-80GB"}, {}),
    "candidate gpus": ("task.yaml", "resources:\n  accelerators: {L4: 1, A100-80GB: 1, H100: 1}\nrun: |\n"
                                    "  vllm serve Qwen/Qwen3-14B --max-model-len 16384 --max-num-seqs 32\n", {}, {}),
    "candidate gpus with cli gpu": ("task.yaml", "resources:\n  accelerators: {L4: 1, A100-80GB: 1}\nrun: |\n"
                                                 "  vllm serve Qwen/Qwen3-14B --max-model-len 16384\n",
                                    {"gpu": "L40S"}, {}),
    "tp 3 (KV201's, sized as written)": ("serve.sh", "vllm serve Qwen/Qwen3-8B -tp 3 --max-model-len 8192\n",
                                         {"gpu": "L4"}, {}),
    "length over the model's, swept": ("serve.sh", "vllm serve Qwen/Qwen3-8B --max-model-len 100000\n", {}, {}),
    "refused: an MLA cache dtype": ("serve.sh", "vllm serve Qwen/Qwen3-8B --kv-cache-dtype fp8_ds_mla "
                                                "--max-model-len 8192\n", {"gpu": "H100"}, {}),
    "refused, swept": ("serve.sh", "vllm serve Qwen/Qwen3-8B --kv-cache-dtype fp8_ds_mla --max-model-len 8192\n",
                       {}, {}),
    "unresolved setting the memory model needs": (
        "serve.sh", "vllm serve Qwen/Qwen3-8B --max-model-len $LEN\n", {"gpu": "H100"}, {}),
    "unresolved setting it never reads": (
        "serve.sh", "vllm serve Qwen/Qwen3-8B --max-model-len 8192 --port $PORT\n", {"gpu": "H100"}, {}),
    "rejected value": ("serve.sh", "vllm serve Qwen/Qwen3-8B --gpu-memory-utilization 1.5\n", {"gpu": "H100"}, {}),
    "unknown model": ("serve.sh", "vllm serve nobody-org/nothing-7b\n", {"gpu": "H100"}, {}),
    "placeholder model": ("serve.sh", "vllm serve $MODEL --max-model-len 8192\n", {"gpu": "H100"}, {}),
    "path model": ("serve.sh", "vllm serve /models/mine --max-model-len 8192\n", {"gpu": "H100"}, {}),
    "path model with served name": (
        "serve.sh", "vllm serve /models/mine --served-model-name Qwen/Qwen3-8B --max-model-len 8192\n",
        {"gpu": "H100"}, {}),
    "override to a missing folder": ("serve.sh", "vllm serve my-model --max-model-len 8192\n", {"gpu": "H100"},
                                     {"models": {"my-model": "Qwen/Qwen3-4B"}}),
    "override to a config file": ("serve.sh", "vllm serve my-model --max-model-len 8192\n", {"gpu": "H100"},
                                  {"models": {"my-model": "cfg/config.json"}}),
    "derived re-host": ("serve.sh", "vllm serve RedHatAI/Llama-3.3-70B-Instruct-FP8-dynamic --max-model-len 8192 "
                                    "-tp 2\n", {"gpu": "H100"}, {}),
    "fine-tune, length left to the model": ("serve.sh", "vllm serve lab/my-Qwen2.5-7B-sft\n", {"gpu": "H100"}, {}),
    "fine-tune, length within the floor": (
        "serve.sh", "vllm serve lab/my-Qwen2.5-7B-sft --max-model-len 16384\n", {"gpu": "H100"}, {}),
    "sibling stand-in, length left": ("serve.sh", "vllm serve Qwen/Qwen2.5-14B-Instruct --max-num-seqs 8\n",
                                      {"gpu": "L40S"}, {}),
    "sibling stand-in, sglang": ("serve.sh", "python -m sglang.launch_server --model-path Qwen/Qwen2.5-14B-Instruct\n",
                                 {"gpu": "H100"}, {}),
    "unchecked weights note": ("serve.sh", "vllm serve microsoft/phi-4 --max-model-len 8192\n", {"gpu": "H100"}, {}),
    "kv cache bytes overcommitted": (
        "serve.sh", "vllm serve Qwen/Qwen3-32B --kv-cache-memory-bytes 60000000000 --max-model-len 8192\n", {}, {}),
    "sgl-dev tag naming its release": (
        "deploy.yaml", k8s("rocm/sgl-dev:v0.5.7-rocm700-mi35x-20260121", ["python3", "-m", "sglang.launch_server",
                                                                          "--model-path", "Qwen/Qwen3-8B"]),
        {"gpu": "MI300X"}, {}),
    "sgl-dev dated build": (
        "deploy.yaml", k8s("lmsysorg/sgl-dev:20250701", ["python3", "-m", "sglang.launch_server", "--model-path",
                                                         "Qwen/Qwen3-8B"]), {"gpu": "H100"}, {}),
    "image dated before the tables": (
        "deploy.yaml", k8s("vllm/vllm-openai:nightly-2023-01-01", ["--model", "Qwen/Qwen3-8B",
                                                                   "--max-model-len", "8192"]), {"gpu": "H100"}, {}),
    "image dated far ahead": (
        "deploy.yaml", k8s("vllm/vllm-openai:nightly-2031-01-01", ["--model", "Qwen/Qwen3-8B",
                                                                   "--max-model-len", "8192"]), {"gpu": "H100"}, {}),
    "image with a registry port and docker.io": (
        "deploy.yaml", k8s("docker.io/vllm/vllm-openai:v0.10.1", ["--model", "Qwen/Qwen3-8B", "--max-model-len",
                                                                  "8192"]), {}, {}),
    "cuda image cpu tag": (
        "deploy.yaml", k8s("vllm/vllm-openai:v0.10.1-cpu", ["--model", "Qwen/Qwen3-8B", "--max-model-len", "8192"]),
        {}, {}),
    "nightly image undated": (
        "deploy.yaml", k8s("vllm/vllm-openai:nightly", ["--model", "Qwen/Qwen3-8B", "--max-model-len", "8192"]),
        {"gpu": "H100"}, {}),
    "node label fleet": (
        "deploy.yaml", k8s("vllm/vllm-openai:v0.10.1", ["--model", "Qwen/Qwen3-8B", "--max-model-len", "8192"], 1,
                           "      nodeSelector: {cloud.google.com/gke-nodepool: big-pool}\n"), {},
        {"node_labels": {"cloud.google.com/gke-nodepool=big-pool": "H200"}}),
    "node label fleet by value": (
        "deploy.yaml", k8s("vllm/vllm-openai:v0.10.1", ["--model", "Qwen/Qwen3-8B", "--max-model-len", "8192"], 1,
                           "      nodeSelector: {pool: l4-pool}\n"), {}, {"node_labels": {"l4-pool": "L4"}}),
    "kserve storage uri tail": (
        "isvc.yaml", "apiVersion: serving.kserve.io/v1beta1\nkind: InferenceService\nmetadata: {name: llama}\nspec:\n"
                     "  predictor:\n    model:\n      modelFormat: {name: huggingface}\n      runtime: kserve-vllm\n"
                     "      storageUri: s3://${bucket}/models/meta-llama--Meta-Llama-3.1-8B-Instruct\n"
                     "      args: [\"--max-model-len=8192\"]\n      resources: {limits: {nvidia.com/gpu: \"1\"}}\n",
        {"gpu": "L40S"}, {}),
    "two launches in one script": ("serve.sh", "vllm serve Qwen/Qwen3-8B --max-model-len 8192 &\n"
                                              "vllm serve Qwen/Qwen3-4B --max-model-len 4096 --port 8001\n",
                                   {"gpu": "A100-80GB"}, {}),
    "sglang declared load and tp 2": (
        "serve.sh", "python -m sglang.launch_server --model-path Qwen/Qwen3-32B --tp 2 --max-running-requests 64 "
                    "--context-length 32768\n", {"gpu": "H100"}, {}),
    "sglang swept with load": (
        "serve.sh", "python -m sglang.launch_server --model-path Qwen/Qwen3-14B --max-running-requests 32 "
                    "--context-length 16384\n", {}, {}),
    "max-num-seqs 1: a load of one": (
        "serve.sh", "vllm serve Qwen/Qwen3-8B --max-model-len 8192 --max-num-seqs 1\n", {}, {}),
    "non-kv from the command line, swept": (
        "serve.sh", "vllm serve Qwen/Qwen3-8B --max-model-len 8192\n", {"non_kv_gib": 1.25}, {}),
    "value the reader rejects": ("serve.sh", "vllm serve Qwen/Qwen3-8B --kv-cache-dtype fp7 --max-model-len 8192\n",
                                 {"gpu": "H100"}, {}),
    "angle-bracket placeholder model": ("serve.sh", "vllm serve <model_name> --max-model-len 8192\n",
                                        {"gpu": "H100"}, {}),
    "no model in the launch": ("docker-compose.yaml", COMPOSE.format(image="vllm/vllm-openai:v0.10.1",
                                                                     command="--max-model-len 8192"), {"gpu": "H100"},
                               {}),
    "sglang fine-tune, length left": ("serve.sh", "python -m sglang.launch_server --model-path lab/my-Qwen2.5-7B-sft\n",
                                      {"gpu": "H100"}, {}),
    "tpu": ("model.yaml", "apiVersion: kubeai.org/v1\nkind: Model\nmetadata: {name: m}\nspec:\n"
                          "  features: [TextGeneration]\n  url: hf://Qwen/Qwen3-8B\n  engine: VLLM\n"
                          "  resourceProfile: google-tpu-v5e-2x2:1\n", {}, {}),
    "unknown gpu": ("model.yaml", "apiVersion: kubeai.org/v1\nkind: Model\nmetadata: {name: m}\nspec:\n"
                                  "  features: [TextGeneration]\n  url: hf://Qwen/Qwen3-8B\n  engine: VLLM\n"
                                  "  resourceProfile: nvidia-gpu-z9000:1\n", {}, {}),
}


LOCAL_CONFIG = json.dumps({
    "architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 2048, "num_hidden_layers": 16,
    "num_attention_heads": 32, "num_key_value_heads": 8, "intermediate_size": 8192, "vocab_size": 128256,
    "max_position_embeddings": 131072, "torch_dtype": "bfloat16", "tie_word_embeddings": True}, indent=2)


def _clean(value: Any, tmp: str) -> Any:
    if isinstance(value, str):
        return value.replace(tmp, "<tmp>")
    if isinstance(value, (list, tuple)):
        return [_clean(v, tmp) for v in value]
    if isinstance(value, dict):
        return {str(k): _clean(v, tmp) for k, v in value.items()}
    return value


def _budget(b: Any) -> Any:
    if b is None:
        return None
    return [b.gpu_name, b.kv_tokens, b.weights_bytes, b.non_kv_bytes, b.max_model_len, b.fits_one_request,
            round(b.max_concurrency, 3)]


def _sweep(s: Any) -> Any:
    if s is None:
        return None
    return {"min": s.min_gpu_memory_bytes, "min_load": s.min_load_memory_bytes, "passing": list(s.passing),
            "failing": len(s.failing), "scope": s.scope, "candidates": s.candidates}


def summary(r: Any) -> dict[str, Any]:
    """What a user reads of one resolved launch (a value of an open input: the same, without its own values)."""
    m, g, v = r.model, r.gpu, r.version
    refusal = r.refusal
    return {
        "model": [m.source, m.reason, m.conflict, m.note, getattr(m.spec, "model_id", None),
                  getattr(m.spec, "derived_from", None), getattr(m.spec, "length_floor", None)],
        "gpu": [g.label, g.source, g.name, g.reason, g.memory_bytes, g.span.line if g.span else None],
        "version": [v.version, v.source, v.modelled, list(v.candidates), v.why, v.said],
        "settings": sorted(f"{k}={r.settings[k]!r}" for k in r.settings),
        "unresolved": [list(r.unresolved), list(r.blocking)],
        "skip": [r.skip_kind, r.skipped_because],
        "refusal": None if refusal is None else [refusal.flag, refusal.raw, refusal.reason, refusal.setting,
                                              refusal.span.line if refusal.span else None],
        "non_kv": [r.non_kv.bytes, r.non_kv.source],
        "budget": _budget(r.budget),
        "sweep": _sweep(r.sweep),
        "candidates": _sweep(r.candidates),
        "picture": _budget(r.picture),
        "notes": list(r.notes),
        "config_spans": {k: [sp.line, sp.col, sp.end_col] for k, sp in sorted(r.config_spans.items())},
        "open_input": r.open_input.words() if r.open_input is not None else None,
        "alternatives": [[a.skip_kind, _budget(a.budget), _sweep(a.sweep), a.version.version]
                         for a in r.alternatives],
        "status": {k: val for k, val in r.status().to_json().items() if k not in ("path", "span")},
    }


def resolve_all(tmp_path: Path, names: list[str] | None = None) -> dict[str, Any]:
    out = {}
    for i, (name, (file_name, text, options, config)) in enumerate(LAUNCHES.items()):
        if names is not None and name not in names:
            continue
        root = tmp_path / f"l{i}"
        path = root / file_name
        path.parent.mkdir(parents=True)
        (root / ".git").mkdir()
        path.write_text(text)
        (root / "cfg").mkdir()
        (root / "cfg" / "config.json").write_text(LOCAL_CONFIG)
        deps = read_path(str(path)).deployments
        resolver = Resolver(ResolveOptions(**options))
        got = [summary(resolver.resolve(dep, Config(root=str(root), **config))) for dep in deps]
        out[name] = _clean(got, str(root))
    return json.loads(json.dumps(out))


PINNED = json.loads(TABLE.read_text()) if TABLE.exists() else {}


def test_the_table_has_every_launch_and_is_updated_when_asked(tmp_path):
    if os.environ.get("KVLINT_UPDATE_GOLDEN"):
        TABLE.parent.mkdir(exist_ok=True)
        TABLE.write_text(json.dumps(resolve_all(tmp_path), indent=1, sort_keys=True) + "\n")
    assert set(json.loads(TABLE.read_text())) == set(LAUNCHES)


@pytest.mark.parametrize("name", sorted(PINNED))
def test_each_launch_resolves_as_pinned(tmp_path, name):
    """One case per launch: a change runs the launches whose resolution reads its line."""
    want = PINNED[name]
    got = resolve_all(tmp_path, [name]).get(name, [])
    differences = [f"{name} [{i}] {key}: pinned {w.get(key)} now {g.get(key)}"
                   for i, (w, g) in enumerate(zip(want, got, strict=False)) for key in sorted(g) if w.get(key) != g.get(key)]
    assert len(want) == len(got) and not differences, "\n".join(differences[:30])


@pytest.fixture(scope="module")
def pinned() -> dict[str, Any]:
    return json.loads(TABLE.read_text())


def test_every_launch_is_one_launch_and_each_mechanism_shows(pinned):
    """The table is read, not only recorded: each launch shows the mechanism it was written for."""
    assert {k for k, v in pinned.items() if len(v) != 1} == {"two launches in one script"}
    one = {name: rows[0] for name, rows in pinned.items()}
    assert one["node label fleet"]["gpu"][:2] == ["H200-SXM-141GB", "fleet"]
    assert one["image dated before the tables"]["version"][1] == "image-date"
    assert one["sglang swept with load"]["sweep"]["min_load"] > one["sglang swept with load"]["sweep"]["min"]
    assert one["non-kv from the command line, swept"]["non_kv"] == [int(1.25 * 2**30), "user"]
    assert one["cli gpu"]["gpu"][:2] == ["H100-SXM-80GB", "cli"] and one["cli gpu"]["budget"]
    assert one["script, catalogue sweep"]["status"]["gpu_source"] == "catalogue"
    assert one["script, no card starts it"]["sweep"]["passing"] == []
    assert one["manifest rocm dated build"]["version"][1] == "image-date"
    assert one["manifest latest image, no gpu named"]["version"][1] == "image-latest"
    assert one["manifest hardware fork"]["version"][1] == "default"
    assert one["manifest unresolved tp over 8 gpus"]["open_input"].startswith("--tp-size 8 or 4 or 2 or 1")
    assert one["refused: an MLA cache dtype"]["skip"][0] == "refused" and one["refused, swept"]["refusal"]
    assert one["override to a config file"]["model"][0] == "override"
    assert one["unknown model"]["skip"][0] == "unknown-model"
    assert one["placeholder model"]["skip"][0] == "unresolved-model"
    assert one["tpu"]["skip"][0] == "not-a-gpu"
    assert one["candidate gpus"]["candidates"]["candidates"] is True
    load = one["script, sweep with declared load"]["sweep"]
    assert load["min_load"] > load["min"]
