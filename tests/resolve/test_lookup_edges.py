"""Resolve-stage lookups at their edges (issue O item 9: mutants here survived)."""

from __future__ import annotations

from kvlint.config import Config
from kvlint.engines import get_engine
from kvlint.launches import read_path
from kvlint.resolve import ResolveOptions
from kvlint.resolve.lookups import _engine_image, gpu_for


def _dep(tmp_path, text="vllm serve Qwen/Qwen3-8B --max-model-len 8192\n"):
    path = tmp_path / "a.sh"
    path.write_text(text)
    [dep] = read_path(str(path)).deployments
    return dep


def test_gpu_memory_from_the_command_line_is_its_source(tmp_path):
    dep = _dep(tmp_path)
    got = gpu_for(dep, Config(root=str(tmp_path)), ResolveOptions(gpu_memory="80GiB"))
    assert (got.source, got.memory_bytes) == ("cli", 80 * 2**30)
    nothing = gpu_for(dep, Config(root=str(tmp_path)), ResolveOptions())
    assert (nothing.source, nothing.memory_bytes) == (None, None)


def test_engine_image_behind_a_registry_port():
    """The repository is the last path segment; a registry's port (host:5000/...) is not a tag."""
    vllm = get_engine("vllm")
    assert _engine_image("registry.local:5000/vllm/vllm-openai", vllm)
    assert _engine_image("registry.local:5000/vllm/vllm-openai:v0.8.5", vllm)
    assert not _engine_image("registry.local:5000/opea/vllm-gaudi:1.22.0", vllm)


def test_a_card_without_its_memory_from_the_configuration_has_no_line(tmp_path):
    """`.kvlint.yaml` `gpu: A100` (40 or 80 GB): the launch is sized on both; the message names the card and, with
    no line to point at in the launch's file, no line."""
    from kvlint.lint import LintOptions, lint

    (tmp_path / ".kvlint.yaml").write_text("gpu: A100\n")
    (tmp_path / "a.sh").write_text("vllm serve Qwen/Qwen2.5-32B-Instruct --max-model-len 8192\n")
    result = lint([str(tmp_path / "a.sh")], LintOptions())
    assert result.unreadable == []
    [f] = [f for f in result.findings if f.code == "KV102"]
    assert "'A100' names no memory size: name the card with its memory" in f.message
    assert "with its memory, line" not in f.message


def test_length_doubt_is_quiet_only_for_a_length_within_the_floor():
    """A stand-in config sizes the launch exactly for a written length in 1..length_floor; 0 or more is a doubt."""
    from types import SimpleNamespace

    from kvlint.models.spec import LayerKV, ModelSpec
    from kvlint.resolve import _length_doubt

    spec = ModelSpec("lab/x", "derived", "LlamaForCausalLM", "llama", 1, (LayerKV("full", 8, 128, 128),), 4096, 32, 8,
                     128, 128, 14336, 128256, False, "bfloat16", 32768, 32768, "max_position_embeddings",
                     length_unknown="lab/x is named after a base", length_floor=32768)
    vllm = get_engine("vllm")
    doubt = {n: _length_doubt(SimpleNamespace(engine=vllm, settings={"max_model_len": n}), spec)
             for n in (0, 1, 32768, 32769)}
    assert doubt[1] is None and doubt[32768] is None
    assert doubt[0] and doubt[32769] and "set --max-model-len (at most 32,768 is exact" in doubt[32769]


def test_config_key_spans_cover_the_quoted_key(tmp_path):
    import json

    from kvlint.models.config import spec_from_config
    from kvlint.resolve import _find_keys

    cfg = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 4096,
           "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8,
           "intermediate_size": 14336, "vocab_size": 128256, "max_position_embeddings": 8192}
    path = tmp_path / "config.json"
    path.write_text(json.dumps(cfg, indent=2))
    spans = _find_keys(spec_from_config(cfg, "x", str(path)))
    line = path.read_text().splitlines().index('  "num_key_value_heads": 8,') + 1
    s = spans["num_key_value_heads"]
    assert (s.line, s.col, s.end_line, s.end_col) == (line, 3, line, 3 + len('"num_key_value_heads"'))


def test_an_unknown_gpu_reason_names_the_card_as_written():
    from kvlint.resolve.lookups import lookup_gpu_name

    assert lookup_gpu_name("H9000")[1].startswith("unknown GPU 'H9000'")  # already named: kept as it is
    # the catalogue's message quotes the name with repr (a tab becomes \t): the name as written is put in front
    assert lookup_gpu_name("zz\tzz")[1].startswith("GPU 'zz\\tzz': ")


def test_an_unknown_models_reason_is_its_message_without_the_hint(tmp_path):
    """KV002 prints its own fix; the reason is the error's message, not message + hint."""
    from kvlint.resolve.lookups import lookup_model

    got = lookup_model("nobody-org/nothing-7b", Config(root=str(tmp_path)), ResolveOptions())
    assert got.spec is None and got.reason == "model 'nobody-org/nothing-7b' is not known offline"


def test_host_scripts_run_whatever_release_is_installed():
    from kvlint.resolve.lookups import _host_script

    assert _host_script("/x/run.sh") and _host_script("job.SBATCH") and _host_script("/x/Makefile")
    assert not _host_script("deploy.yaml") and not _host_script("Dockerfile")


def test_an_amd_gpu_resource_scopes_the_sweep_to_amd(tmp_path):
    from kvlint.record import replace
    from kvlint.resolve.lookups import vendor_scope

    dep = _dep(tmp_path)
    assert vendor_scope(replace(dep, gpu="amd.com/gpu")) == ("amd", "the launch requests amd.com/gpu")
    assert vendor_scope(replace(dep, gpu="nvidia.com/gpu")) is None


def test_an_sgl_image_is_sglangs_not_vllms():
    assert _engine_image("lmsysorg/sgl-dev:20250701", get_engine("sglang"))
    assert not _engine_image("lmsysorg/sgl-dev:20250701", get_engine("vllm"))
