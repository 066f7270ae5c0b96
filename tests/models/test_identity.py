"""Identity from evidence (kvlint.models.resolve.resolve_model with the launch's aliases): a path or store URL
names its model by its last segment (relative `models/Qwen3-8B` as absolute `/data/...`, s3://, gs://, pvc://),
or by what the file says beside it (--served-model-name, KServe `name:` beside the URI), each with its place;
two pieces of evidence naming different known models are a conflict the launch reports, never a guess, and a
comment is never evidence."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kvlint.deployment import ModelAlias
from kvlint.lint import LintOptions, lint
from kvlint.models.resolve import PATH_FOLDERS, ModelConflict, resolve_model, source_kind
from kvlint.span import Span


@pytest.mark.parametrize("ref", ["models/Qwen3-8B", "./models/Qwen3-8B", "/data/Qwen3-8B", "s3://bucket/a/Qwen3-8B",
                                 "gs://bucket/Qwen3-8B/", "pvc://claim/Qwen3-8B", "weights/Qwen3-8B"])
def test_a_paths_last_segment_names_the_bundled_model(ref):
    spec = resolve_model(ref)
    assert spec.model_id == "Qwen/Qwen3-8B" and source_kind(spec) == "path-name" and ref in spec.source


def test_a_hub_org_is_not_a_folder():
    assert source_kind(resolve_model("hf://Qwen/Qwen3-8B")) == "bundled"
    with pytest.raises(Exception, match="not known offline"):
        resolve_model("acme/Qwen3-8B")  # another org's repo of that name: never matched by its last segment


def test_the_folder_words_match_the_readers():
    from kvlint.launches.facts import _GENERIC_DIRS

    assert frozenset(_GENERIC_DIRS) == PATH_FOLDERS


def test_disagreeing_evidence_names_both_places():
    alias = ModelAlias("meta-llama/Llama-3.1-8B-Instruct", "env:MODEL_ID", Span("x.sh", 4, 1, 4, 30))
    with pytest.raises(ModelConflict) as caught:
        resolve_model("/models/Qwen3-8B", aliases=(alias,))
    said = str(caught.value)
    assert "Qwen/Qwen3-8B (the path's name /models/Qwen3-8B)" in said
    assert "meta-llama/Llama-3.1-8B-Instruct (env MODEL_ID meta-llama/Llama-3.1-8B-Instruct, line 4)" in said


@pytest.mark.parametrize(("path", "other"), [
    ("/models/Qwen2.5-0.5B-Instruct", "Qwen/Qwen2.5-0.5B-Instruct"),  # both stand on Qwen/Qwen2.5-0.5B's config
    ("/models/Meta-Llama-3.1-8B-Instruct", "meta-llama/Llama-3.1-8B-Instruct"),  # one repository, renamed
])
def test_two_names_of_one_config_are_no_conflict(path, other):
    """Sample G (an SGLang entry point): the path's name and an env id are spelt differently, but lead to the same
    config, so every figure is the same whichever the engine loads; a conflict would leave the launch unsized."""
    spec = resolve_model(path, aliases=(ModelAlias(other, "env:MODEL_ID"),))
    assert source_kind(spec) == "path-name"
    with pytest.raises(ModelConflict):  # a different config still is one
        resolve_model(path, aliases=(ModelAlias("Qwen/Qwen3-8B", "env:MODEL_ID"),))


@pytest.mark.parametrize("served", [ModelAlias("meta-llama/Llama-3.1-8B-Instruct", "served-name"),
                                    ModelAlias("qwen2.5-7b", "served-short")])
def test_a_served_name_is_an_api_alias_never_a_conflict(served):
    """Sample D (chnghia/solv-stack): `--model /models/Qwen2.5-7B-Instruct --served-model-name qwen2.5-7b` is
    the Instruct model the path names; the served name is what the API answers to, never a second model."""
    spec = resolve_model("/models/Qwen2.5-7B-Instruct", aliases=(served,))
    assert spec.model_id == "Qwen/Qwen2.5-7B-Instruct" and source_kind(spec) == "path-name"


def test_a_served_name_is_a_hint_only_when_it_fits_the_paths_weights():
    """A path naming nothing takes the served name's model; a path naming quantized weights (FP8, AWQ, ...) that
    kvlint cannot pin is not sized as the served name's 16-bit model (sample D: Qwen3.6-27B-FP8 as BF16)."""
    hint = ModelAlias("qwen3.6-27b", "served-short")
    assert resolve_model("/models/weights", aliases=(hint,)).model_id == "Qwen/Qwen3.6-27B"
    with pytest.raises(Exception, match="not known offline"):
        resolve_model("/models/Qwen3.6-27B-FP8", aliases=(hint,))
    quantized = ModelAlias("Qwen/Qwen2.5-7B-Instruct-GPTQ-Int4", "served-name")
    assert resolve_model("/srv/qwen-int4", aliases=(quantized,)).quant is not None


def test_two_aliases_that_disagree_on_a_path_naming_nothing():
    aliases = (ModelAlias("Qwen/Qwen3-8B", "model-name"), ModelAlias("meta-llama/Llama-3.1-8B-Instruct", "env:MODEL"))
    with pytest.raises(ModelConflict, match=r"the model's name: Qwen/Qwen3-8B\) and .* \(env MODEL"):
        resolve_model("pvc://claim/weights", aliases=aliases)


def test_agreeing_evidence_and_unknown_evidence_are_no_conflict():
    spec = resolve_model("/models/Qwen3-8B", aliases=(ModelAlias("Qwen3-8B", "served-short"),
                                                       ModelAlias("acme/never-published", "served-name")))
    assert spec.model_id == "Qwen/Qwen3-8B" and source_kind(spec) == "path-name"


def test_a_local_config_is_the_model_whatever_else_is_said(tmp_path):
    folder = tmp_path / "Qwen3-8B"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps({
        "architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 256, "num_attention_heads": 4,
        "num_key_value_heads": 2, "num_hidden_layers": 3, "intermediate_size": 512, "vocab_size": 1000,
        "max_position_embeddings": 4096}))
    spec = resolve_model(str(folder), aliases=(ModelAlias("meta-llama/Llama-3.1-8B-Instruct", "served-name"),))
    assert spec.num_layers == 3 and source_kind(spec) == "local"


LLMISVC = """\
apiVersion: serving.kserve.io/v1alpha1
kind: LLMInferenceService
metadata:
  name: r1
spec:
  model:
    uri: pvc://llm-test-pvc-deepseek
    # uri: hf://meta-llama/Llama-3.1-8B-Instruct
    name: {name}
  template:
    containers:
      - name: main
        resources:
          limits:
            nvidia.com/gpu: "8"
"""


def statuses(tmp_path: Path, name: str, text: str = LLMISVC):
    (tmp_path / "svc.yaml").write_text(text.format(name=name))
    result = lint([str(tmp_path / "svc.yaml")], LintOptions(gpu="H100"))
    return result.launches, [f for f in result.findings if f.code == "KV002"]


def test_kserve_name_beside_the_uri_names_the_model(tmp_path):
    launches, kv002 = statuses(tmp_path, "Qwen/Qwen3-8B")
    assert [(s.model_source, s.capacity) for s in launches] == [("model-name", "evaluated")] and kv002 == []


def test_a_comment_is_never_evidence(tmp_path):
    launches, kv002 = statuses(tmp_path, "my-own-name")  # only the commented uri names a model
    assert [s.skip_kind for s in launches] == ["unknown-model"] and kv002[0].severity.name == "INFO"


def test_a_served_name_beside_a_path_is_no_conflict_and_the_launch_is_sized(tmp_path):
    """The served name is the API's alias (sample D's wrong KV002): the path's model is sized, nothing warns."""
    (tmp_path / "serve.sh").write_text("vllm serve /models/Qwen3-8B --served-model-name "
                                       "meta-llama/Llama-3.1-8B-Instruct --gpu-memory-utilization 0.9\n")
    result = lint([str(tmp_path)], LintOptions(gpu="H100"))
    assert [(s.skip_kind, s.capacity) for s in result.launches] == [(None, "evaluated")]
    assert not [f for f in result.findings if f.code == "KV002"]


def test_a_chart_key_names_the_model_beside_its_path(tmp_path):
    (tmp_path / "values.yaml").write_text("modelURL: /data/weights/current\nmodelName: Qwen/Qwen3-8B\n"
                                          "maxModelLen: 4096\n")
    result = lint([str(tmp_path)], LintOptions(gpu="H100"))
    assert [(s.model, s.model_source, s.capacity) for s in result.launches] == [
        ("/data/weights/current", "model-name", "evaluated")]
    (tmp_path / "values.yaml").write_text("modelURL: /data/Qwen3-8B\nmodelName: meta-llama/Llama-3.1-8B-Instruct\n"
                                          "maxModelLen: 4096\n")
    result = lint([str(tmp_path)], LintOptions(gpu="H100"))
    assert [s.skip_kind for s in result.launches] == ["model-conflict"]
    (kv002,) = [f for f in result.findings if f.code == "KV002"]
    assert "the key modelName meta-llama/Llama-3.1-8B-Instruct, line 2" in kv002.message


def test_a_checkpoint_only_quantization_on_a_folder_named_after_a_model_is_not_a_refusal(tmp_path):
    """Sample K118 (measured: a KV007 error "needs a checkpoint quantized with modelopt_fp4; declares none"): the
    folder `quantize/model/Qwen2.5-1.5B-Instruct` is named after a public model, but whether the checkpoint in it is
    quantized so is its own config's to say, which kvlint does not hold: no refusal, the launch not sized. The public
    model's own id keeps the refusal."""
    p = tmp_path / "serve.sh"
    body = "python -m sglang.launch_server --model-path {model} --quantization modelopt_fp4\n"
    p.write_text(body.format(model="/ws/quantize/model/Qwen2.5-1.5B-Instruct"))
    assert not [f for f in lint([str(p)], LintOptions(select=("KV007",))).findings]
    q = tmp_path / "serve-hub.sh"
    q.write_text(body.format(model="Qwen/Qwen2.5-1.5B-Instruct"))
    assert [f.code for f in lint([str(q)], LintOptions(select=("KV007",))).findings] == ["KV007"]
