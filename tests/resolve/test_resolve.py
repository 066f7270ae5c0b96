"""The resolve stage: one record per launch, the reasons it skips, and the catalogue sweep's figures."""

from __future__ import annotations

import json
import re
from pathlib import Path

from kvlint.cli import main
from kvlint.config import Config, ConfigCache
from kvlint.findings import Severity
from kvlint.launches import read_path
from kvlint.lint import LintOptions, lint
from kvlint.resolve import ResolveOptions, Resolver

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


def _one(text: str, name: str, tmp_path: Path, config: Config | None = None, **options):
    path = tmp_path / name
    path.write_text(text)
    [dep] = read_path(str(path)).deployments
    return Resolver(ResolveOptions(**options)).resolve(dep, config or Config(root=str(tmp_path)))


def test_unresolved_tp_is_never_the_default_tp_1():
    """$(PARALLELISM_SIZE) over 8 GPUs: sized on every TP the request allows (8, 4, 2, 1), never asserted as TP 1
    (was: "7 GPUs stay idle" + KV102); a verdict only some sizes give is an info naming --tp-size (issue 23)."""
    path = str(FIXTURES / "resolve" / "sglang_unresolved_tp.yaml")
    result = lint([path], LintOptions())
    loud = [f for f in result.findings if f.severity > Severity.INFO]
    assert loud == [], loud
    assert all(f.data.get("open_input") == "--tp-size" for f in result.findings if f.code in {"KV204", "KV102"})
    [status] = result.launches
    assert status.capacity == "evaluated" and status.open_input.startswith("--tp-size 8 or 4 or 2 or 1 (")
    assert "--tp-size is '$(PARALLELISM_SIZE)'" in status.open_input and "variables:" in status.open_input


def test_an_unresolved_setting_the_memory_model_never_reads_does_not_block(tmp_path):
    r = _one("vllm serve Qwen/Qwen3-8B --max-model-len 8192 --served-model-name $NAME --port $PORT\n", "a.sh",
             tmp_path, gpu="H100")
    assert r.budget is not None and r.blocking == () and "port" in r.unresolved


def test_unknown_gpu_on_the_command_line_is_a_usage_error_before_any_file(tmp_path, capsys):
    assert main(["check", "--gpu", "H1000", str(tmp_path / "missing.yaml")]) == 2
    err = capsys.readouterr().err
    assert "did you mean H100" in err and "missing.yaml" not in err


def test_kv101_fits_respect_the_models_maximum_and_kv105_tells_the_same_story(tmp_path):
    path = tmp_path / "serve.sh"
    path.write_text("vllm serve Qwen/Qwen3-32B --max-model-len 65536\n")
    result = lint([str(path)], LintOptions(gpu="H100"))
    by = {f.code: f for f in result.findings}
    kv101, kv105 = by["KV101"], by["KV105"]
    assert "greater than the derived maximum 40960" in kv105.message
    assert "The model's own maximum is 40,960 tokens (KV105)" in kv101.message
    fits = kv101.message.split("Fits: ")[1]
    assert "--kv-cache-dtype" not in fits and "-tp" not in fits  # a bigger pool cannot serve 65,536 tokens
    length = int(fits.split("--max-model-len ")[1].rstrip("."))
    assert 0 < length <= 40960


def test_declared_gpu_sources_and_fleet_precedence(tmp_path):
    config = Config(root=str(tmp_path), gpu="L4", gpus=(("edge/*", "L40S"),),
                    node_labels={"cloud.google.com/gke-nodepool=a100-pool": "A100-80GB"})
    (tmp_path / "edge").mkdir()
    text = "vllm serve Qwen/Qwen3-8B --max-model-len 8192\n"
    assert _one(text, "a.sh", tmp_path, config).gpu.source == "config"
    r = _one(text, "edge/b.sh", tmp_path, config)
    assert (r.gpu.source, r.gpu.gpu.id) == ("fleet", "L40S-48GB")
    r = _one(text, "edge/c.sh", tmp_path, config, gpu="H100")
    assert (r.gpu.source, r.gpu.gpu.id) == ("cli", "H100-SXM-80GB")


def test_node_pool_label_maps_to_a_card(tmp_path):
    manifest = """apiVersion: apps/v1
kind: Deployment
metadata: {name: chat}
spec:
  template:
    spec:
      nodeSelector:
        cloud.google.com/gke-nodepool: a100-pool
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.33.0
          args: ["--model", "Qwen/Qwen3-8B", "--max-model-len", "8192"]
          resources: {limits: {nvidia.com/gpu: 1}}
"""
    (tmp_path / ".git").mkdir()
    (tmp_path / ".kvlint.yaml").write_text('node-labels:\n  "cloud.google.com/gke-nodepool=a100-pool": A100-80GB\n')
    (tmp_path / "d.yaml").write_text(manifest)
    [dep] = read_path(str(tmp_path / "d.yaml")).deployments
    assert [(lab.key, lab.value) for lab in dep.node_labels] == [("cloud.google.com/gke-nodepool", "a100-pool")]
    r = Resolver().resolve(dep, ConfigCache(None).for_file(str(tmp_path / "d.yaml")))
    assert (r.gpu.source, r.gpu.gpu.id) == ("fleet", "A100-SXM-80GB")


def test_json_deployments_validate_against_the_published_schema(tmp_path, capsys):
    import jsonschema

    from kvlint.data import load_json

    (tmp_path / "a.sh").write_text("vllm serve Qwen/Qwen3-32B --max-model-len 32768\nvllm serve nosuch/x\n"
                                   "vllm serve $MODEL\n")
    assert main(["check", "--format", "json", "--exit-zero", str(tmp_path)]) == 0
    doc = json.loads(capsys.readouterr().out)
    jsonschema.validate(doc, load_json("report.schema.json"))
    kinds = [(d["capacity"], d["gpu_source"], d["skip_kind"]) for d in doc["deployments"]]
    assert kinds == [("evaluated", "catalogue", None), ("skipped", None, "unknown-model"),
                     ("skipped", None, "unresolved-model")]
    assert doc["capacity"] == {"launches": 3, "configurations": 3, "evaluated": 1, "against_catalogue": 1,
                               "skipped": 2, "skipped_by": {"unknown-model": 1, "unresolved-model": 1}}


def test_an_application_config_with_engine_like_keys_is_not_a_vllm_config(tmp_path):
    path = FIXTURES / "resolve" / "appconfig" / "serving_config.yaml"
    result = lint([str(path)], LintOptions())
    assert [f.code for f in result.findings] == [] and result.launches == []  # was: 6 KV004 errors, exit 1


def test_configuration_can_name_vllm_config_files_and_give_variable_values(tmp_path):
    import shutil

    (tmp_path / ".git").mkdir()
    shutil.copy(FIXTURES / "resolve" / "appconfig" / "serving_config.yaml", tmp_path / "engine.yaml")
    (tmp_path / ".kvlint.yaml").write_text("vllm-config-files: [engine.yaml]\nvariables: {PARALLELISM_SIZE: 8}\n")
    named = lint([str(tmp_path / "engine.yaml")], LintOptions(select=("KV004",)))
    flagged = sorted(re.search(r"--\w+", f.message).group(0) for f in named.findings)  # type: ignore[union-attr]
    assert flagged == ["--cors_allow_origins", "--temperature", "--top_p"]  # read as vLLM would read it
    shutil.copy(FIXTURES / "resolve" / "sglang_unresolved_tp.yaml", tmp_path / "sts.yaml")
    result = lint([str(tmp_path / "sts.yaml")], LintOptions())
    [status] = result.launches
    assert status.capacity == "evaluated" and status.unresolved == ()
    assert not {f.code for f in result.findings} & {"KV204"}  # 8 GPUs for --tp-size 8


SKY = """resources:
  accelerators: {L4: 1, A100-80GB: 1}
run: |
  vllm serve Qwen/Qwen3-14B --max-model-len 16384
"""


def test_each_candidate_gpu_is_tried_and_the_one_that_cannot_start_it_is_reported(tmp_path):
    (tmp_path / "task.yaml").write_text(SKY)
    result = lint([str(tmp_path / "task.yaml")], LintOptions(select=("KV108",)))
    [status] = result.launches
    assert status.gpu_source in ("candidates", "manifest") and status.sweep is not None
    verdicts = {v.gpu: v.starts for v in status.sweep.cards}
    assert verdicts == {"L4-24GB": False, "A100-SXM-80GB": True}
    [f] = result.findings
    assert f.severity.name == "WARNING" and "does not start on L4-24GB" in f.message and "fine on A100" in f.message


def test_an_unresolved_reference_whose_path_tail_names_the_model_resolves_by_that_name(tmp_path):
    manifest = """apiVersion: serving.kserve.io/v1beta1
kind: InferenceService
metadata: {name: llama}
spec:
  predictor:
    model:
      modelFormat: {name: huggingface}
      runtime: kserve-vllm
      storageUri: s3://${bucket}/models/meta-llama--Meta-Llama-3.1-8B-Instruct
      args: ["--max-model-len=8192"]
      resources: {limits: {nvidia.com/gpu: "1"}}
"""
    (tmp_path / "isvc.yaml").write_text(manifest)
    [dep] = read_path(str(tmp_path / "isvc.yaml")).deployments
    assert not dep.model_resolved and dep.model_aliases
    r = Resolver().resolve(dep, Config(root=str(tmp_path)))
    assert r.model.spec is not None and r.model.spec.model_id == "meta-llama/Meta-Llama-3.1-8B-Instruct"
    assert r.status().model_source == "path-name" and r.evaluated


KUBEAI_CPU = """apiVersion: kubeai.org/v1
kind: Model
metadata: {name: opt-125m-cpu}
spec:
  features: [TextGeneration]
  url: hf://facebook/opt-125m
  engine: VLLM
  resourceProfile: cpu:1
"""


def test_a_cpu_launch_is_not_sized_on_the_gpu_catalogue_and_gets_one_info_without_a_fix(tmp_path):
    (tmp_path / "model.yaml").write_text(KUBEAI_CPU)
    result = lint([str(tmp_path / "model.yaml")], LintOptions())
    [status] = result.launches
    assert status.capacity == "skipped" and status.sweep is None and "not a GPU" in (status.skipped_because or "")
    [f] = [f for f in result.findings if f.code == "KV003"]
    assert f.severity.name == "INFO" and f.fix is None and "CPU device" in f.message
    assert f.span is not None and f.span.line == 8 and not [f for f in result.findings if f.code == "KV108"]


def test_a_named_gpu_the_catalogue_lacks_is_still_a_warning_with_the_fix(tmp_path):
    """A slip of a catalogue card (`h1000`: an extra digit) is a warning offering it; a name of no catalogue family
    (`z9000`) is a card kvlint lacks: an info."""
    (tmp_path / "model.yaml").write_text(KUBEAI_CPU.replace("cpu:1", "nvidia-gpu-h1000:1"))
    [f] = [f for f in lint([str(tmp_path / "model.yaml")], LintOptions()).findings if f.code == "KV003"]
    assert f.severity.name == "WARNING" and f.fix is not None and "nvidia-gpu-h100" in f.message
    (tmp_path / "model.yaml").write_text(KUBEAI_CPU.replace("cpu:1", "nvidia-gpu-z9000:1"))
    [f] = [f for f in lint([str(tmp_path / "model.yaml")], LintOptions()).findings if f.code == "KV003"]
    assert f.severity.name == "INFO" and "did you mean" not in f.message


def test_a_sibling_config_whose_family_differs_in_length_is_sized_on_every_length(tmp_path):
    """Qwen2.5-14B-Instruct is not bundled; Qwen2.5-14B stands in for its shapes, but the bundled Qwen2.5-7B
    pair differs in max_position_embeddings (131,072 vs 32,768): a length left to the model is not guessed, the
    launch is sized on each (issue 22: no refusal where the candidates agree; issue 23: robust verdicts)."""
    left = _one("vllm serve Qwen/Qwen2.5-14B-Instruct --max-num-seqs 8\n", "a.sh", tmp_path, gpu="H100")
    stated = _one("vllm serve Qwen/Qwen2.5-14B-Instruct --max-model-len 16384\n", "c.sh", tmp_path, gpu="H100")
    assert left.budget is not None and left.skip_kind is None and left.open_input is not None
    assert left.open_input.name == "context length"
    assert [v.split(" ")[0] for v in left.open_input.values] == ["131,072", "32,768"]
    assert sorted(a.budget.max_model_len for a in (left, *left.alternatives)) == [32768, 131072]
    assert "--max-model-len" in left.open_input.settle
    assert stated.budget is not None and stated.budget.max_model_len == 16384 and stated.open_input is None
    sglang = _one("python -m sglang.launch_server --model-path Qwen/Qwen2.5-14B-Instruct\n", "d.sh", tmp_path,
                  gpu="H100")
    assert sglang.open_input is not None and "--context-length" in sglang.open_input.settle


def test_a_verdict_only_one_candidate_length_gives_is_an_info(tmp_path):
    """0.2 of a T4: the pool holds about 50k tokens, so 131,072 refuses and 32,768 starts. The real model is one of
    them: the refusal is an info naming the length that decides it, never an error (issue 23)."""
    (tmp_path / "s.sh").write_text("vllm serve Qwen/Qwen2.5-0.5B-Instruct --gpu-memory-utilization 0.2\n")
    [f] = [f for f in lint([str(tmp_path / "s.sh")], LintOptions(gpu="T4")).findings if f.code == "KV101"]
    assert f.severity == Severity.INFO and "only on context length 131,072" in f.message
    (tmp_path / "t.sh").write_text("vllm serve Qwen/Qwen2.5-0.5B-Instruct --gpu-memory-utilization 0.5\n")
    assert not lint([str(tmp_path / "t.sh")], LintOptions(gpu="T4")).findings


def test_the_engines_image_means_flashinfers_sampler_and_a_bare_install_the_wheels(tmp_path):
    """vLLM 0.8-0.11 sample with FlashInfer only where the package imports: the vllm/vllm-openai image ships it, the
    PyPI wheel lists it as an extra. A launch of the engine's image is sized with FlashInfer's sampler (14 B per
    vocabulary entry); the same launch with the version pinned and no image, with the sort's 38 B (issue 26 O)."""
    compose = ("services:\n  vllm:\n    image: vllm/vllm-openai:v0.10.1\n"
               "    command: --model Qwen/Qwen2.5-7B-Instruct --max-model-len 16384\n")
    image = _one(compose, "docker-compose.yaml", tmp_path, gpu="A100-80GB")
    bare = _one("vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 16384\n", "serve.sh", tmp_path, gpu="A100-80GB",
                engine_version="0.10.1")
    assert image.settings.get("flashinfer_sampler") is True and "flashinfer_sampler" not in bare.settings
    assert image.budget is not None and bare.budget is not None
    extra = bare.budget.non_kv_bytes - image.budget.non_kv_bytes
    assert extra == 24 * 256 * 152064  # 256 sequences x the vocabulary x (38 - 14) B


def test_a_swept_launchs_picture_is_the_sweeps_own_budget_not_a_second_one(tmp_path, monkeypatch):
    """The sweep tries each card without a derivation log (quiet_steps), then computes the card the resolver
    draws (the smallest that starts the launch) once with its log and keeps it, so drawing it computes no
    budget of its own; the picture is the one the card's own sizing gives, with its steps."""
    from kvlint.resolve import sizing

    computed = []
    real = sizing.compute
    monkeypatch.setattr(sizing, "compute", lambda s, settings: computed.append((s.gpu, s.memory_bytes)) or
                        real(s, settings))
    r = _one("vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 8192\n", "serve.sh", tmp_path)
    assert r.sweep is not None and r.picture is not None and r.picture.gpu_name
    drawn = r.sweep.passing[0]
    on_card = [g for g, total in computed if g is not None and g.id == drawn and total is None]  # not bisecting
    assert len(on_card) == 2  # by the sweep: tried quietly, then with its log; not again for the picture
    from kvlint.gpus import lookup_gpu

    fresh = real(r.what_if.sizing.on(lookup_gpu(drawn)), dict(r.settings)).budget
    assert r.picture.steps and r.picture == fresh  # the whole budget, its derivation log included
