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
