"""`kvlint verify`: real logs against predictions, the CLI shapes, and calibration."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml

from kvlint.errors import UnknownModelError
from kvlint.logs import parse_log
from kvlint.logs.compare import compare, settings_from_log
from kvlint.models.resolve import resolve_model
from tests.conftest import SHARED

from .conftest import run_cli

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "logs"
CASES_FILE = SHARED / "logs" / "cases.json"
CASE_IDS = [c["id"] for c in json.loads(CASES_FILE.read_text())] if CASES_FILE.is_file() else ["<no shared>"]


def _spec(shared_dir, case):
    ref = (case["hf_model_id"] or case["model"] or "").split(" (")[0]
    local = shared_dir / "models" / ref / "config.json"
    try:
        return resolve_model(str(local.parent) if local.is_file() else ref)
    except UnknownModelError:
        return None


@pytest.fixture(scope="module")
def cases(shared_dir):
    return {c["id"]: c for c in json.loads((shared_dir / "logs" / "cases.json").read_text())}


@pytest.mark.parametrize("case_id", CASE_IDS)
def test_tokens_match_given_the_logged_pool(cases, shared_dir, case_id):
    case = cases[case_id]
    record = parse_log("\n".join(case["lines"]))
    spec = _spec(shared_dir, case)
    usable = record.engine == "vllm" and record.kv_tokens is not None and (record.available_kv_gib or 0) > 0
    if spec is None or not usable:
        pytest.skip("model config not available offline, or the log shows no pool and token count")
    settings = settings_from_log(record, "vllm")
    settings.setdefault("tensor_parallel_size", case["tp"] or 1)
    settings.setdefault("max_model_len", case["max_model_len"] or record.max_concurrency_len)
    total = int(record.total_gpu_memory_gib * 2**30) if record.total_gpu_memory_gib else None
    result = compare(record, spec, settings, None, engine="vllm", version=record.engine_version,
                     gpu_memory_bytes=total)
    assert result.pooled_match is True, result.pooled_rows
    assert not [c for c in result.checks if c.status == "fail"]


def test_enough_real_logs_are_checked_exactly(cases, shared_dir):
    exact = 0
    for case in cases.values():
        record = parse_log("\n".join(case["lines"]))
        if record.engine == "vllm" and record.kv_tokens and (record.available_kv_gib or 0) > 0 \
                and _spec(shared_dir, case) is not None:
            exact += 1
    assert exact >= 18


def test_full_prediction_rows_report_deltas(cases, shared_dir):
    case = cases["vllm-planner-h100-qwen-qwen3-8b-tp1pp1dp1--8192"]
    record = parse_log("\n".join(case["lines"]))
    result = compare(record, _spec(shared_dir, case), settings_from_log(record, "vllm"), None, engine="vllm",
                     version="0.19.0", gpu_memory_bytes=int(79.19 * 2**30))
    rows = {r.name: r for r in result.rows}
    assert rows["weights"].logged == 15.27 and abs(rows["weights"].delta) < 0.2
    assert rows["requested"].predicted == pytest.approx(75.23, abs=0.01)  # ceil(79.19 GiB x 0.95)
    assert rows["tokens"].logged == 418_688 and rows["tokens"].delta is not None
    assert rows["verdict"].predicted == rows["verdict"].logged == "starts"
    # measured non-KV = requested - weights - pool, as the profiler's own breakdown says (17.73 - 15.27)
    assert result.measured.non_kv_bytes / 2**30 == pytest.approx(2.46, abs=0.02)


pytestmark = pytest.mark.usefixtures("isolated_cwd")
_run = run_cli


def test_cli_text_json_and_report(capsys, tmp_path):
    log = str(FIXTURES / "vllm033_tp2.log")
    code, out, _ = _run(capsys, "verify", log, "--gpu", "H100")
    assert code == 0
    assert "Given the logged pool (58.1 GiB" in out and ": match" in out
    assert "[ok] (a) tokens / max_model_len = concurrency" in out
    report = tmp_path / "kv_report.json"
    code, out, _ = _run(capsys, "verify", log, "--gpu", "H100", "--format", "json", "--report", str(report))
    data = json.loads(out)
    assert code == 0 and data == json.loads(report.read_text())
    assert data["given_logged_pool"]["tokens_match"] is True
    assert data["logged"]["kv_tokens"] == 951_984
    assert {r["quantity"] for r in data["comparison"]} >= {"weights", "non-KV", "KV pool", "tokens", "verdict"}


def test_cli_command_line_overrides_the_log(capsys):
    log = str(FIXTURES / "vllm033_tp2.log")
    code, out, _ = _run(capsys, "verify", log, "--gpu", "H100", "--format", "json", "--",
                        "vllm", "serve", "meta-llama/Llama-3.1-8B-Instruct", "--tensor-parallel-size", "1",
                        "--max-model-len", "8192")
    data = json.loads(out)
    assert code == 0
    assert data["prediction"]["parallel"]["tp"] == 1 and data["prediction"]["max_model_len"] == 8192


def test_cli_refused_log_verdict(capsys):
    code, out, _ = _run(capsys, "verify", str(FIXTURES / "vllm033_refused.log"), "--gpu", "H100", "--format", "json")
    data = json.loads(out)
    verdict = next(r for r in data["comparison"] if r["quantity"] == "verdict")
    assert code == 0 and verdict["logged"] == "refuses" and verdict["predicted"] == "refuses"


def test_cli_bad_inputs(capsys, tmp_path):
    code, _, err = _run(capsys, "verify", str(tmp_path / "missing.log"))
    assert code == 3 and "cannot read the log" in err
    empty = tmp_path / "empty.log"
    empty.write_text("nothing to see\n")
    code, _, err = _run(capsys, "verify", str(empty))
    assert code == 2 and "no vLLM or SGLang startup lines" in err and "Traceback" not in err
    code, _, err = _run(capsys, "verify", str(FIXTURES / "vllm033_tp2.log"), "--gpu", "NoSuchGPU9000")
    assert code == 2 and "Traceback" not in err


def test_calibrate_writes_and_is_used(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".kvlint.yaml").write_text("# ours\nfail-on: warning\n")
    log = tmp_path / "start.log"
    shutil.copy(FIXTURES / "vllm033_tp2.log", log)
    code, out, _ = _run(capsys, "verify", str(log), "--gpu", "H100", "--calibrate")
    assert code == 0 and "calibrated: non-KV" in out
    text = (tmp_path / ".kvlint.yaml").read_text()
    assert text.startswith("# ours\nfail-on: warning\n")
    entry = yaml.safe_load(text)["calibration"][0]
    assert entry["model"] == "meta-llama/Llama-3.1-8B-Instruct" and entry["tp"] == 2
    assert entry["engine"] == "vllm" and entry["engine_version"] == "0.33.0"
    assert entry["non_kv_gib"] == pytest.approx(71.28 - 7.51 - 58.1, abs=0.001)
    # the next run predicts with the calibrated term: the full prediction's pool is now the logged one
    code, out, _ = _run(capsys, "verify", str(log), "--gpu", "H100", "--format", "json")
    data = json.loads(out)
    assert data["prediction"]["non_kv_source"] == "calibrated"
    assert data["prediction"]["non_kv_bytes"] == round(entry["non_kv_gib"] * 2**30)


def test_cli_manifest_supplies_flags_and_gpu(capsys):
    code, out, _ = _run(capsys, "verify", str(FIXTURES / "vllm033_tp2.log"), "--manifest",
                        str(FIXTURES / "vllm_deployment.yaml"), "--format", "json")
    data = json.loads(out)
    assert code == 0
    assert data["prediction"]["gpu"]["name"].startswith("NVIDIA H100")  # from the nodeSelector
    assert data["prediction"]["parallel"]["tp"] == 2
    assert data["given_logged_pool"]["tokens_match"] is True
