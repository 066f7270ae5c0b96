"""`kvlint budget`: text and JSON for real command lines, exit 2 with one line for every bad input."""

from __future__ import annotations

import json

import pytest

from kvlint.cli import main

LLAMA = ["vllm", "serve", "meta-llama/Meta-Llama-3-8B", "--max-model-len", "8192"]


def run(capsys, *args):
    code = main(["budget", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_text_view_has_bar_steps_and_table(capsys):
    code, out, _ = run(capsys, "--", *LLAMA)
    assert code == 0
    assert "assuming H100" in out
    bar = next(line for line in out.splitlines() if line.startswith("["))
    assert len(bar) == 62 and "W" in bar and "#" in bar
    assert "(estimate)" in out and "derivation:" in out and "GPU KV cache size" in out
    table = out.split("full-length requests that fit")[1].split()
    assert table[:2] == ["(estimate)", "2,048"] and "8,192" in table


def test_json_keys_and_consistency(capsys):
    code, out, _ = run(capsys, "--format", "json", "--gpu", "H100", "--", *LLAMA)
    data = json.loads(out)
    assert code == 0
    for key in ("engine", "engine_version", "model", "gpu", "parallel", "kv_bytes_per_token", "weights_bytes",
                "non_kv_bytes", "kv_pool_bytes", "kv_pool_estimated", "max_model_len", "kv_tokens",
                "max_concurrency", "fits_one_request", "estimated_max_model_len", "num_blocks", "block_size"):
        assert key in data
    assert data["kv_bytes_per_token"] == 131_072 and data["block_size"] == 16
    assert data["kv_tokens"] == int(data["num_blocks"] / 512 * 8192)
    assert data["kv_pool_estimated"] is True
    by_ctx = {row["context"]: row["requests"] for row in data["concurrency_by_context"]}
    assert by_ctx[8192] == int(data["max_concurrency"]) and by_ctx[2048] >= 4 * by_ctx[8192]


def test_non_kv_override_makes_pool_not_estimated(capsys):
    _, out, _ = run(capsys, "--format", "json", "--non-kv-gib", "6", "--gpu-memory", "81559MiB", "--", *LLAMA)
    data = json.loads(out)
    assert data["non_kv_bytes"] == 6 * 2**30 and data["non_kv_source"] == "user"
    assert data["kv_pool_estimated"] is False


def test_engine_version_pins_the_model(capsys):
    _, out, _ = run(capsys, "--format", "json", "--engine-version", "0.19.0", "--", *LLAMA)
    data = json.loads(out)
    assert data["engine_version"] == "0.19.0" and data["kv_tokens"] == data["num_blocks"] * 16


def test_sglang_launch_server(capsys):
    code, out, _ = run(capsys, "--format", "json", "--", "python", "-m", "sglang.launch_server", "--model-path",
                       "meta-llama/Meta-Llama-3-8B", "--tp-size", "2")
    data = json.loads(out)
    assert code == 0 and data["engine"] == "sglang" and data["mem_fraction_static"] == pytest.approx(0.828)
    assert data["parallel"]["tp"] == 2 and data["kv_bytes_per_token"] == 65_536


def test_sglang_vlm_fraction_printed_to_three_places(capsys):
    cmd = ["python", "-m", "sglang.launch_server", "--model-path", "Qwen/Qwen2.5-VL-7B-Instruct"]
    _, out, _ = run(capsys, "--format", "json", "--", *cmd)
    exact = json.loads(out)["mem_fraction_static"]
    assert exact != round(exact, 3)  # the VLM factor leaves a long float
    _, out, _ = run(capsys, "--", *cmd)
    vlm = next(line for line in out.splitlines() if "mem_fraction_static (VLM)" in line)
    assert vlm.split()[2] == f"{round(exact, 3):g}" and str(exact) not in out


def test_api_server_entry_point_and_quoted_command(capsys):
    code, out, _ = run(capsys, "--format", "json", "--",
                       "python -m vllm.entrypoints.openai.api_server --model meta-llama/Meta-Llama-3-8B -tp 2")
    assert code == 0 and json.loads(out)["parallel"]["tp"] == 2


@pytest.mark.parametrize("args, message", [
    (["--", "vllm", "serve", "nosuch/model"], "not known offline"),
    (["--gpu", "H1000", "--", *LLAMA], "did you mean H100"),
    (["--", *LLAMA, "--max-modl-len", "8192"], "did you mean --max-model-len"),
    (["--", "ls", "-la"], "not an engine command line"),
    ([], "no command line given"),
    (["--", *LLAMA[:3], "--max-model-len", "abc"], "max-model-len"),
    (["--", "sglang", "serve"], "needs --model-path"),
    (["--gpu-memory", "12XB", "--", *LLAMA], "cannot read memory size"),
    (["missing/deploy.yaml"], "no such file"),
])
def test_bad_input_is_exit_2_with_one_line(capsys, args, message):
    code, out, err = run(capsys, *args)
    assert code == 2
    assert message in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_manifest_file(capsys, tmp_path):
    manifest = tmp_path / "serve.sh"
    manifest.write_text("#!/bin/sh\nvllm serve meta-llama/Meta-Llama-3-8B --max-model-len 4096\n")
    code, out, _ = run(capsys, "--format", "json", str(manifest))
    assert code == 0 and json.loads(out)["max_model_len"] == 4096


def test_manifest_with_one_bad_instance_still_budgets_the_others(capsys, tmp_path):
    manifest = tmp_path / "serve.sh"
    manifest.write_text("vllm serve meta-llama/Meta-Llama-3-8B --max-model-len 4096\n"
                        "vllm serve nosuch/model\n")
    code, out, err = run(capsys, "--format", "json", str(manifest))
    assert code == 0 and json.loads(out)["model"] == "meta-llama/Meta-Llama-3-8B"
    assert "skipped" in err and "nosuch/model" in err


def test_options_after_the_manifest_file_are_kvlints(capsys, tmp_path):
    manifest = tmp_path / "serve.sh"
    manifest.write_text("vllm serve meta-llama/Meta-Llama-3-8B --max-model-len 4096\n")
    code, out, _ = run(capsys, str(manifest), "--format", "json", "--gpu", "L40S")
    assert code == 0
    doc = json.loads(out)
    assert doc["max_model_len"] == 4096 and "L40S" in doc["gpu"]["name"]
