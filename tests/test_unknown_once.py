"""Models not known offline: one KV002 info per run (kvlint.lint.per_run), not a warning on every launch.

The info sits at the first such launch in walk order and names every such model once, sorted (Hub ids before
paths), at most PER_RUN_NAMED of them; each launch's status still says it was skipped. A launch whose KV002 is
suppressed (inline, annotation) is not named, and its directive stays used. The same bytes for any --jobs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import kvlint.lint
from kvlint.cli import main
from kvlint.lint import PER_RUN_NAMED, LintOptions, lint


@pytest.fixture
def tree(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    for i in range(12):
        (tmp_path / f"d{i:02}.sh").write_text(f"vllm serve acme/model-{i % 10}-7b --max-model-len 4096\n"
                                              f"vllm serve acme/model-{i % 3}-7b\n")
    (tmp_path / "e-path.sh").write_text("vllm serve /var/mdl/YOUR-MODEL-PATH\n")
    (tmp_path / "f-quiet.sh").write_text("# kvlint: ignore[KV002]\nvllm serve acme/hushed-7b\n")
    (tmp_path / "g-known.sh").write_text("vllm serve Qwen/Qwen3-8B --max-model-len 4096\n")
    return tmp_path


def test_one_info_naming_the_models_once(tree):
    result = lint([str(tree)], LintOptions(gpu="L4", show_unused_suppressions=True))
    kv002 = [f for f in result.findings if f.code == "KV002"]
    assert len(kv002) == 1 and str(kv002[0].severity) == "info"
    info = kv002[0]
    assert info.span is not None and Path(info.span.path).name == "d00.sh" and info.span.line == 1
    models = info.data["models"]
    assert models[:3] == ["acme/model-0-7b", "acme/model-1-7b", "acme/model-2-7b"] and models[-1].startswith("/var")
    assert len(models) == 11 and "acme/hushed-7b" not in models  # 10 ids and a path; the suppressed one is not
    assert f"and {11 - PER_RUN_NAMED} more" in info.message and "11 models not known offline, so 25 launches" \
        in info.message
    assert "`kvlint models lock`" in (info.fix or "")
    assert result.findings[-1] == info  # the run's own finding comes after every file's
    assert not [f for f in result.findings if f.code == "KV006"]  # the ignore comment is still used
    assert result.suppressed == 1
    kinds = [s.skip_kind for s in result.launches]
    assert kinds.count("unknown-model") == 25 and kinds.count("model-path") == 1


def test_same_bytes_for_any_jobs(tree, tmp_path_factory, monkeypatch):
    monkeypatch.setattr(kvlint.lint, "MIN_FILES_PER_JOB", 1)
    out = tmp_path_factory.mktemp("out")
    reports = {}
    for fmt in ("text", "json"):
        for jobs in (1, 2, 3):
            path = out / f"{fmt}-{jobs}"
            assert main(["check", str(tree), "--gpu", "L4", "--format", fmt, "--jobs", str(jobs), "--exit-zero",
                         "--output", str(path)]) == 0
            reports[fmt, jobs] = path.read_bytes()
        assert reports[fmt, 1] == reports[fmt, 2] == reports[fmt, 3]
    data = json.loads(reports["json", 1])
    assert sum(f["code"] == "KV002" for f in data["findings"]) == 1
    assert sum(d["skip_kind"] == "unknown-model" for d in data["deployments"]) == 25  # hushed too


def test_an_unresolved_reference_is_an_info_on_its_launch(tmp_path, monkeypatch):
    """The file leaves the model to its deploy tooling: kvlint cannot size it, the deployment is not wrong (issue
    23: the reviewer's table judged every such warning noise), so an info on that launch, not folded."""
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    (tmp_path / "a.sh").write_text('vllm serve "$MODEL_FROM_SECRET"\nvllm serve acme/x-7b\n')
    found = [f for f in lint([str(tmp_path)], LintOptions(gpu="L4")).findings if f.code == "KV002"]
    assert [(f.span.line, str(f.severity)) for f in found if f.span] == [(1, "info"), (2, "info")]


def test_a_config_that_cannot_be_read_stays_a_warning(tmp_path, monkeypatch):
    """A config.json the file points at that kvlint cannot read (implausible sizes) is the deployment's problem."""
    import json

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "config.json").write_text(json.dumps({
        "architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32,
        "num_key_value_heads": 8, "num_hidden_layers": 10**7, "max_position_embeddings": 8192, "vocab_size": 1000}))
    (tmp_path / ".kvlint.yaml").write_text("models:\n  org/x: m\n")
    (tmp_path / "a.sh").write_text("vllm serve org/x\n")
    [f] = [f for f in lint([str(tmp_path)], LintOptions(gpu="L4")).findings if f.code == "KV002"]
    assert str(f.severity) == "warning" and "not a plausible value" in f.message
