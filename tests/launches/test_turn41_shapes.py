"""Shapes the turn-41 held-out samples (and the turn-40 ones left) showed kvlint passing over or misreading, each read
by a mechanism, not a case."""

from __future__ import annotations

import json

from kvlint.launches import read_path
from tests.launches.checked import checked as _checked


def _notebook(cells: list[tuple[str, str]]) -> str:
    return json.dumps({"cells": [{"cell_type": kind, "metadata": {}, "source": source.splitlines(keepends=True)}
                                 for kind, source in cells], "metadata": {}, "nbformat": 4, "nbformat_minor": 5},
                      indent=1)


def test_a_notebook_markdown_cell_holding_a_pasted_command_is_read_as_a_markdown_document_is(tmp_path):
    """K374 (a client notebook): a markdown cell that is just `python -m vllm.entrypoints.openai.api_server --model M
    ...`, the server to start before the OpenAI client's cells. Only fenced blocks of a markdown cell were read, so
    the launch was passed over in silence; a cell is now read as a Markdown document is, each value at its place in
    the .ipynb file. A cell of prose that names the engine is still no launch."""
    command = "python -m vllm.entrypoints.openai.api_server --model Qwen/Qwen2.5-7B-Instruct --enable-prefix-caching"
    path = tmp_path / "api.ipynb"
    path.write_text(_notebook([("markdown", "We serve the model with vLLM first.\n"), ("markdown", command),
                               ("code", "from openai import OpenAI\nclient = OpenAI()\n")]))
    (dep,) = read_path(str(path)).deployments
    assert dep.model == "Qwen/Qwen2.5-7B-Instruct" and dep.get("enable_prefix_caching") is True
    span = dep.model_span
    assert span is not None
    line = path.read_text().splitlines()[span.line - 1]
    assert line[span.col - 1:span.end_col - 1] == "Qwen/Qwen2.5-7B-Instruct"
    path.write_text(_notebook([("markdown", "We serve the model with vLLM first, then query it.\n"),
                               ("code", "print(1)\n")]))
    assert list(read_path(str(path)).deployments) == []


def test_a_launch_on_ascend_npus_is_not_sized_over_the_gpu_catalogue(tmp_path):
    """K386 (AIBrix on Ascend, a vllm-ascend fork's smoke test): a Deployment of `quay.io/ascend/vllm-ascend` asking for
    `huawei.com/Ascend910: "2"`, and a script that exports `ASCEND_RT_VISIBLE_DEVICES` before `python -m
    vllm.entrypoints.openai.api_server`. Both were swept over the GPU catalogue ("starts on every card with at least
    10.8 GiB"), a card they never run on. The resource, the image and a variable only the CANN runtime reads each put
    the launch on Ascend NPUs now; a CUDA launch beside them is still a GPU's."""
    manifest = tmp_path / "npu-deploy.yaml"
    manifest.write_text(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: q}\nspec:\n  template:\n    spec:\n      containers:\n"
        "        - name: vllm\n          image: registry.local/serving:v1\n"
        "          command: [vllm, serve, Qwen/Qwen2.5-7B-Instruct, --tensor-parallel-size, '2']\n"
        "          resources:\n            limits:\n              huawei.com/Ascend910: \"2\"\n")
    (dep,) = read_path(str(manifest)).deployments
    assert dep.gpu == "huawei.com/Ascend910" and dep.gpu_count == 2
    image = tmp_path / "compose.yaml"
    image.write_text("services:\n  llm:\n    image: quay.io/ascend/vllm-ascend:v0.11.0rc1\n"
                     "    command: [vllm, serve, Qwen/Qwen2.5-7B-Instruct]\n")
    (dep,) = read_path(str(image)).deployments
    assert dep.gpu == "ascend"
    script = tmp_path / "smoke.sh"
    script.write_text("export ASCEND_RT_VISIBLE_DEVICES=0\n"
                      "python -m vllm.entrypoints.openai.api_server --model Qwen/Qwen2.5-0.5B-Instruct --port 8000\n")
    (dep,) = read_path(str(script)).deployments
    assert dep.gpu == "ascend" and any("ASCEND_RT_VISIBLE_DEVICES" in n for n in dep.notes)
    script.write_text("export CUDA_VISIBLE_DEVICES=0\n"
                      "python -m vllm.entrypoints.openai.api_server --model Qwen/Qwen2.5-0.5B-Instruct --port 8000\n")
    (dep,) = read_path(str(script)).deployments
    assert dep.gpu is None


def test_an_exec_form_list_item_holding_an_option_and_its_value_is_one_argument(tmp_path):
    """K388 (a compose file): `command:` of `vllm/vllm-openai:latest` lists `- --max-num-batched-tokens 2048` as one
    item. No shell splits an exec-form list: the image's `vllm serve` gets one word holding a space, which argparse
    takes as the positional model, over `--model=...`. kvlint read that word as the model (KV002 "not known
    offline: --max-num-batched-tokens 2048"); the launch is read as meant now, and the word's error is said (KV013).
    `--flag=value` is one word argparse splits at `=`: no finding."""
    path = tmp_path / "docker-compose.yml"
    listed = ("services:\n  vllm:\n    image: vllm/vllm-openai:v0.11.0\n    command:\n"
              "      - --model=Qwen/Qwen3-8B\n      - --max-model-len=4096\n      - {}\n")
    path.write_text(listed.format("--max-num-batched-tokens 2048"))
    (dep,) = read_path(str(path)).deployments
    assert dep.model == "Qwen/Qwen3-8B" and dep.get("max_num_batched_tokens") == 2048
    (kv013,) = [f for f in _checked(path) if f["code"] == "KV013"]
    assert kv013["severity"] == "error" and "exec-form list" in kv013["message"]
    assert (kv013["span"]["line"], kv013["span"]["col"]) == (7, 9)
    path.write_text(listed.format("--max-num-batched-tokens=2048"))
    assert not [f for f in _checked(path) if f["code"] == "KV013"]


def test_a_features_switch_and_its_knob_are_one_family_of_a_build(tmp_path):
    """K387 (a fork of SGLang): `--enable-decode-token-budget --decode-token-budget-stall-limit 4`, two options no
    release has. A switch that turns a feature on and a knob of the same feature come from one build (a fork or a
    plugin adds them together; a typo does not come in consistently named pairs): an info, as for two options that
    share their first two words. One such option alone stays a warning."""
    path = tmp_path / "restart.sh"
    cmd = "python -m sglang.launch_server --model-path Qwen/Qwen3-8B {}\n"
    path.write_text(cmd.format("--enable-decode-token-budget --decode-token-budget-stall-limit 4"))
    assert [f["severity"] for f in _checked(path) if f["code"] == "KV004"] == ["info", "info"]
    path.write_text(cmd.format("--enable-decode-token-budget"))
    assert [f["severity"] for f in _checked(path) if f["code"] == "KV004"] == ["warning"]
