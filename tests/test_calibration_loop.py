"""The calibration loop end to end: `verify LOG --calibrate` writes .kvlint.yaml, `check` and `budget` use it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml

from kvlint.cli import main
from kvlint.config import load_config
from kvlint.gpus import lookup_gpu
from kvlint.lint import LintOptions, lint
from kvlint.memory import compute_budget
from kvlint.models.resolve import resolve_model

GIB = 2**30
LOGS = Path(__file__).resolve().parent / "fixtures" / "logs"
MODEL = "meta-llama/Llama-3.1-8B-Instruct"
USER_CONFIG = ("# team config: keep me\ngpu: H100-SXM-80GB  # our fleet\nseverity: {KV103: warning}\n"
               "estimated-severity: {KV103: info}\n")
# Same model, GPU, TP and engine as the log, with a smaller share of the card: one 131k request does not fit.
SMALL = f"vllm serve {MODEL} -tp 2 --max-model-len 131072 --gpu-memory-utilization 0.25\n"
SMALL_SETTINGS = {"tensor_parallel_size": 2, "max_model_len": 131072, "gpu_memory_utilization": 0.25}


@pytest.fixture
def repo(tmp_path, monkeypatch):
    (tmp_path / ".git").mkdir()
    (tmp_path / ".kvlint.yaml").write_text(USER_CONFIG)
    shutil.copy(LOGS / "vllm033_tp2.log", tmp_path / "start.log")  # vLLM 0.33.0, Llama-3.1-8B, TP 2, H100
    # the manifest that log came from, declaring the concurrency it ran with (vLLM's default on an H100), so
    # KV103, which fires on declared concurrency only, has something to say
    manifest = (LOGS / "vllm_deployment.yaml").read_text()
    (tmp_path / "deploy.yaml").write_text(manifest.replace(
        "- --gpu-memory-utilization=0.9", "- --gpu-memory-utilization=0.9\n            - --max-num-seqs=1024"))
    (tmp_path / "small.sh").write_text(SMALL)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def check(*args: str) -> tuple[int, dict]:
    out = Path("report.json")
    code = main(["check", *args, "--format", "json", "--output", str(out)])
    return code, json.loads(out.read_text())


def by_code(doc: dict) -> dict[str, dict]:
    return {f["code"]: f for f in doc["findings"]}


def calibrate(capsys, log: str = "start.log") -> dict:
    assert main(["verify", log, "--gpu", "H100", "--calibrate"]) == 0
    assert "calibrated: non-KV" in capsys.readouterr().out
    return yaml.safe_load(Path(".kvlint.yaml").read_text())["calibration"][0]


def expected(non_kv_gib: float | None, settings: dict):
    return compute_budget("vllm", resolve_model(MODEL), settings, lookup_gpu("H100-SXM-80GB"), version="0.33.0",
                          non_kv_bytes=None if non_kv_gib is None else round(non_kv_gib * GIB))


def test_verify_calibrate_then_check_is_calibrated(repo, capsys):
    _, before = check("deploy.yaml", "small.sh")
    kv101, kv103 = by_code(before)["KV101"], by_code(before)["KV103"]
    assert kv101["estimated"] and " est." in kv101["message"]
    assert kv103["estimated"] and kv103["severity"] == "info"  # estimated-severity applies to the estimate

    entry = calibrate(capsys)
    text = (repo / ".kvlint.yaml").read_text()
    assert text.startswith(USER_CONFIG) and "# our fleet" in text  # user content and comments survive
    assert (entry["model"], entry["gpu"], entry["tp"], entry["engine"], entry["engine_version"]) == \
        (MODEL, "H100-SXM-80GB", 2, "vllm", "0.33.0")
    config = load_config(str(repo / ".kvlint.yaml"))  # the written file validates against config.schema.json
    assert [c.non_kv_gib for c in config.calibrations] == [entry["non_kv_gib"]] and config.gpu == "H100-SXM-80GB"

    code, after = check("deploy.yaml", "small.sh")
    kv101, kv103 = by_code(after)["KV101"], by_code(after)["KV103"]
    want = expected(entry["non_kv_gib"], SMALL_SETTINGS)
    assert want.non_kv_source == "user" and want.kv_pool_bytes == want.requested_bytes - want.weights_bytes - \
        round(entry["non_kv_gib"] * GIB)
    assert f"non-KV {want.non_kv_bytes / GIB:.1f} GiB calibrated)" in kv101["message"]
    assert f"the pool holds {want.kv_pool_bytes / GIB:.2f} GiB ({want.kv_tokens:,} tokens)" in kv101["message"]
    assert kv101["data"]["pool_bytes"] == want.kv_pool_bytes != by_code(before)["KV101"]["data"]["pool_bytes"]
    assert not kv101["estimated"] and " est." not in kv101["message"] and code == 1

    full = expected(entry["non_kv_gib"], {"tensor_parallel_size": 2, "max_model_len": 131072,
                                          "gpu_memory_utilization": 0.9})
    assert f"({full.kv_tokens:,} tokens calibrated)" in kv103["message"]
    assert kv103["data"]["kv_tokens"] == full.kv_tokens
    assert not kv103["estimated"] and kv103["severity"] == "warning"  # estimated-severity no longer applies


def test_calibration_for_another_gpu_or_tp_does_not_apply(repo, capsys):
    other = [{"model": MODEL, "gpu": "H200", "tp": 2, "engine": "vllm", "engine_version": "0.33.0", "non_kv_gib": 1.0},
             {"model": MODEL, "gpu": "H100", "tp": 1, "engine": "vllm", "engine_version": "0.33.0", "non_kv_gib": 1.0},
             {"model": MODEL, "gpu": "H100", "tp": 2, "engine": "sglang", "engine_version": "0.5.23",
              "non_kv_gib": 1.0}]
    (repo / ".kvlint.yaml").write_text(USER_CONFIG + yaml.safe_dump({"calibration": other}))
    _, doc = check("small.sh")
    kv101 = by_code(doc)["KV101"]
    assert kv101["estimated"] and " est." in kv101["message"] and "calibrated" not in kv101["message"]
    assert kv101["data"]["pool_bytes"] == expected(None, SMALL_SETTINGS).kv_pool_bytes
    assert main(["budget", "--gpu", "H100", "--format", "json", "small.sh"]) == 0
    assert json.loads(capsys.readouterr().out)["non_kv_source"] == "estimated"


def test_budget_shows_the_calibration(repo, capsys):
    entry = calibrate(capsys)
    assert main(["budget", "--format", "json", "deploy.yaml"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["non_kv_source"] == "calibrated" and data["non_kv_bytes"] == round(entry["non_kv_gib"] * GIB)
    assert data["calibration"]["source_log"] == "start.log" and data["calibration"]["exact_version"] is True
    assert data["kv_pool_bytes"] == data["requested_bytes"] - data["weights_bytes"] - data["non_kv_bytes"]
    assert main(["budget", "deploy.yaml"]) == 0
    text = capsys.readouterr().out
    assert "calibrated from start.log (vllm 0.33.0, TP=2)" in text and "(estimate)" not in text
    assert main(["budget", "--non-kv-gib", "2", "--gpu", "H100", "--format", "json", "--", *SMALL.split()]) == 0
    assert json.loads(capsys.readouterr().out)["non_kv_source"] == "user"  # the command line wins


def test_other_release_applies_with_a_note_and_given_says_given(repo):
    entry = {"model": MODEL, "gpu": "H100", "tp": 2, "engine": "vllm", "engine_version": "0.19.0",
             "non_kv_gib": 6.0, "source_log": "old.log"}
    (repo / ".kvlint.yaml").write_text(USER_CONFIG + yaml.safe_dump({"calibration": [entry]}))
    result = lint(["small.sh"], LintOptions())
    kv101 = next(f for f in result.findings if f.code == "KV101")
    assert "non-KV 6.0 GiB calibrated)" in kv101.message and not kv101.estimated
    assert any("calibrated on vllm 0.19.0 applied to vllm 0.33.0" in n for n in result.notes)
    (repo / ".kvlint.yaml").write_text(USER_CONFIG + "non-kv-gib: 6.0\n")
    kv101 = next(f for f in lint(["small.sh"], LintOptions()).findings if f.code == "KV101")
    assert "non-KV 6.0 GiB given)" in kv101.message and not kv101.estimated


@pytest.mark.parametrize("item, where", [
    ("{model: m, gpu: H100, tp: 0, engine: vllm, non_kv_gib: 1}", "calibration.0.tp"),
    ("{model: m, gpu: H100, tp: 1, engine: vllm, non_kv_gib: 1, colour: red}", "calibration.0.colour: unknown key"),
    ("{model: m, gpu: H100, tp: 1, engine: trt, non_kv_gib: 1}", "calibration.0.engine"),
])
def test_bad_calibration_block_names_file_line_and_key(repo, capsys, item, where):
    (repo / ".kvlint.yaml").write_text(USER_CONFIG + "calibration:\n  - " + item + "\n")
    assert main(["check", "small.sh"]) == 2
    err = capsys.readouterr().err
    assert f".kvlint.yaml:6: {where}" in err and "Traceback" not in err


def test_documented_example_configuration_validates(tmp_path):
    import re

    doc = (Path(__file__).resolve().parents[1] / "docs" / "configuration.md").read_text(encoding="utf-8")
    (tmp_path / ".kvlint.yaml").write_text(re.findall(r"```yaml\n(.*?)```", doc, re.S)[0])
    config = load_config(str(tmp_path / ".kvlint.yaml"))
    assert [(c.model, c.tp, c.non_kv_gib) for c in config.calibrations] == [(MODEL, 2, 5.67)]


def test_verify_with_manifest_calibrates_the_manifests_configuration(repo, capsys):
    sub = repo / "team"
    sub.mkdir()
    (sub / ".kvlint.yaml").write_text("# team b\nfail-on: warning\n")
    shutil.move(repo / "deploy.yaml", sub / "deploy.yaml")
    assert main(["verify", "start.log", "--manifest", "team/deploy.yaml", "--calibrate"]) == 0
    assert "calibration" not in yaml.safe_load((repo / ".kvlint.yaml").read_text())
    entry = yaml.safe_load((sub / ".kvlint.yaml").read_text())["calibration"][0]
    assert entry["gpu"] == "H100-SXM-80GB" and entry["tp"] == 2  # from the manifest's nodeSelector and flags
    _, doc = check("team/deploy.yaml")
    assert " calibrated)" in by_code(doc)["KV103"]["message"]
