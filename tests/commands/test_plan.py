"""`kvlint plan` CLI: text and JSON shapes, exit codes, one-line errors."""

from __future__ import annotations

import json

import pytest

from .conftest import run_cli

SEED = ["--gpus", "H100", "--gpu-memory", "81559MiB", "--non-kv-gib", "6"]


pytestmark = pytest.mark.usefixtures("isolated_cwd")
_run = run_cli


def test_text_lists_holding_options_and_why_smaller_ones_fail(capsys):
    code, out, _ = _run(capsys, "plan", "meta-llama/Meta-Llama-3-70B", "--context", "8192", "--concurrency", "162",
                        *SEED)
    assert code == 0
    assert "162 concurrent requests of 8,192 tokens" in out
    assert "weights do not fit" in out  # bf16 on one H100
    holding = out.split("hold the target")[1].split("smaller options")[0]
    assert "1x1" not in holding and "8x1" in holding


def test_json_is_ranked_and_complete(capsys):
    code, out, _ = _run(capsys, "plan", "Qwen/Qwen3-32B", "--context", "8192", "--concurrency", "17", *SEED,
                        "--max-gpus", "2", "--format", "json")
    data = json.loads(out)
    assert code == 0 and data["version"] == 1 and data["concurrency"] == 17
    opts = data["options"]
    assert all(o["gpus"] <= 2 for o in opts)
    holds = [o["holds"] for o in opts]
    assert holds == sorted(holds, reverse=True)  # every holding option before any failing one
    one_gpu = [o for o in opts if o["gpus"] == 1 and o["kv_cache_dtype"] == "bfloat16"]
    assert {o["weights"]: o["holds"] for o in one_gpu} == {"bf16": False, "fp8 (online)": True}
    short = next(o for o in one_gpu if o["weights"] == "bf16")
    assert short["failure"] == "concurrency short by 14"  # 3 of 17 fit


def test_exit_1_when_nothing_holds(capsys):
    code, out, _ = _run(capsys, "plan", "meta-llama/Meta-Llama-3-70B", "--context", "8192", "--concurrency", "1",
                        *SEED, "--max-gpus", "1")
    assert code == 1 and "no option within the limits holds the target" in out


def test_bad_input_is_one_line(capsys):
    code, _, err = _run(capsys, "plan", "Qwen/Qwen3-32B", "--context", "8192", "--concurrency", "1",
                        "--gpus", "H100,NoSuchCard")
    assert code == 2 and err.startswith("kvlint: error:") and "Traceback" not in err
    code, _, err = _run(capsys, "plan", "nobody/unknown-model-xyz", "--context", "8192", "--concurrency", "1")
    assert code == 2 and "Traceback" not in err
    code, _, err = _run(capsys, "plan", "Qwen/Qwen3-32B", "--context", "0", "--concurrency", "1")
    assert code == 2 and "positive" in err


def _json(capsys, *extra):
    code, out, _ = _run(capsys, "plan", "Qwen/Qwen3-32B", "--context", "32768", "--concurrency", "8",
                        "--gpu-memory", "81559MiB", "--non-kv-gib", "6", "--format", "json", *extra)
    return code, json.loads(out)


def test_gpu_filter_is_repeatable_and_replaces_the_default_list(capsys):
    code, data = _json(capsys, "--gpu", "H100", "--gpu", "L40S")
    assert code == 0 and {o["gpu"] for o in data["options"]} == {"H100-SXM-80GB", "L40S-48GB"}
    _, everything = _json(capsys)
    assert {o["gpu"] for o in everything["options"]} > {"H100-SXM-80GB", "L40S-48GB"}
    _, both = _json(capsys, "--gpus", "B200", "--gpu", "H100")  # --gpus and --gpu add up
    assert {o["gpu"] for o in both["options"]} == {"B200-180GB", "H100-SXM-80GB"}
    code, _, err = _run(capsys, "plan", "Qwen/Qwen3-32B", "--context", "8192", "--concurrency", "1",
                        "--gpu", "NoSuchCard")
    assert code == 2 and err.startswith("kvlint: error:") and "NoSuchCard" in err


def test_limit_keeps_the_best_of_each_kind_in_json(capsys):
    _, full = _json(capsys, "--gpu", "H100", "--gpu", "L40S")
    code, top = _json(capsys, "--gpu", "H100", "--gpu", "L40S", "--limit", "3")
    holding = [o for o in full["options"] if o["holds"]]
    failing = [o for o in full["options"] if not o["holds"]]
    assert code == 0 and len(holding) > 3 and len(failing) > 3
    assert top["options"] == holding[:3] + failing[:3]  # rank order kept
    assert top["omitted"] == len(full["options"]) - 6 and full["omitted"] == 0


def test_limit_in_text_and_says_so(capsys):
    code, out, _ = _run(capsys, "plan", "Qwen/Qwen3-32B", "--context", "32768", "--concurrency", "8", *SEED,
                        "--limit", "2")
    holding = out.split("hold the target")[1].split("\n\n")[0].splitlines()[3:]
    assert code == 0 and len(holding) == 2
    assert "the first 2 shown, --limit N for more" in out
    code, _, err = _run(capsys, "plan", "Qwen/Qwen3-32B", "--context", "32768", "--concurrency", "8", "--limit", "0")
    assert code == 2 and "--limit" in err
