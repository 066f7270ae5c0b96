"""`kvlint inspect`: text and JSON views of what the readers found, folders, stdin, missing paths."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kvlint.cli import main
from kvlint.launches import iter_files

FIX = Path(__file__).resolve().parent.parent / "fixtures" / "launches"


def test_text_shows_values_locations_defaults_and_unresolved(capsys):
    assert main(["inspect", str(FIX / "k8s-shell.yaml")]) == 0
    out = capsys.readouterr().out
    assert "vllm 0.8.5 demo/engine at 19:16" in out
    assert "tensor_parallel_size = 2 [--tensor-parallel-size]  (20:36, variable)" in out
    assert "gpu_memory_utilization = '$UTIL' [unresolved]" in out
    assert "pipeline_parallel_size = 1  (vllm 0.8.0 default)" in out
    assert "$UTIL not defined in this file" in out


def test_json_folder_walk(capsys):
    assert main(["inspect", "--format", "json", str(FIX)]) == 0
    data = json.loads(capsys.readouterr().out)
    by_name = {Path(f["path"]).name: f for f in data["files"]}
    walked = [p for p, reason in iter_files([str(FIX)]) if reason is None]
    assert len(data["files"]) == len(walked) >= 8  # reader fixtures in subfolders are walked too
    assert {"Dockerfile", "compose.yaml", "engine.vllm.yaml", "k8s-shell.yaml", "serve-with-config.sh", "sky.yaml",
            "stack-values.yaml", "two-launches.slurm"} <= set(by_name)
    sky = by_name["sky.yaml"]["deployments"][0]
    assert sky["gpu_count"] == 8 and sky["settings"]["tensor_parallel_size"]["span"]["line"] == 10
    assert sky["defaults"]["gpu_memory_utilization"] == 0.9  # v0.10.0, modelled as 0.8.0: 0.92 came in 0.20
    k8s = by_name["k8s-shell.yaml"]["deployments"][0]
    assert k8s["unresolved"] == {"gpu_memory_utilization": "$UTIL"} and k8s["ignore_codes"] == ["KV103", "KV105"]


def test_stdin_dash(capsys, monkeypatch):
    import io
    import sys

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"python3 -m sglang.launch_server --model-path org/m --tp 2\n")))
    assert main(["inspect", "--format", "json", "-"]) == 0
    dep = json.loads(capsys.readouterr().out)["files"][0]["deployments"][0]
    assert (dep["engine"], dep["model"], dep["settings"]["tp_size"]["value"]) == ("sglang", "org/m", 2)


def test_bad_file_is_reported_and_run_continues(tmp_path, capsys):
    (tmp_path / "bad.yaml").write_text("a: [\n")
    (tmp_path / "ok.sh").write_text("vllm serve org/m\n")
    assert main(["inspect", str(tmp_path)]) == 1  # a KV001 error, as `kvlint check` exits
    out = capsys.readouterr().out
    assert "KV001 error: invalid YAML" in out and "model: org/m" in out


def test_missing_path_is_an_input_error(capsys):
    assert main(["inspect", "/no/such/path.yaml"]) == 3
    assert "no such file or directory" in capsys.readouterr().err


MANIFEST = """apiVersion: apps/v1
kind: Deployment
metadata: {name: llm}
spec:
  template:
    spec:
      containers:
        - name: vllm
          image: vllm/vllm-openai:TAG
          args: ["--model", "Qwen/Qwen3-8B", "--max-model-len", "8192"]
"""


@pytest.mark.parametrize(("tag", "share", "release", "substituted"), [
    ("v0.10.1", 0.9, "0.10.1", None),
    ("v0.10.3", 0.9, "0.10.2", "0.10.3 is not in kvlint's release table: modelled as 0.10.2"),
    ("v0.33.0", 0.92, "0.33.0", None),
])
def test_defaults_are_the_modelled_releases(tmp_path, capsys, tag, share, release, substituted):
    """A v0.10.1 image is sized at gpu_memory_utilization 0.9: inspect shows 0.9, not the newest release's."""
    path = tmp_path / "d.yaml"
    path.write_text(MANIFEST.replace("TAG", tag), encoding="utf-8")
    assert main(["inspect", str(path), "--format", "json"]) == 0
    dep = json.loads(capsys.readouterr().out)["files"][0]["deployments"][0]
    assert dep["defaults"]["gpu_memory_utilization"] == share
    assert dep["resolved"]["modelled_release"] == release and dep["resolved"]["release_substituted"] == substituted
    main(["inspect", str(path)])
    text = capsys.readouterr().out
    assert f"gpu_memory_utilization = {share}  (vllm {release} default)" in text
    assert ("release: " + substituted in text) if substituted else "release:" not in text
