"""Bad input never stops a run: each case gives a KV001 with a line, or a skip reason, quickly."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from kvlint.launches import iter_files, read_path
from tests.launches import bad_cases


@pytest.mark.parametrize("builder", bad_cases.BUILDERS, ids=[b.__name__ for b in bad_cases.BUILDERS])
def test_bad_input(tmp_path, builder):
    path, expect = builder(tmp_path)
    start = time.process_time()  # CPU time: a busy machine does not stretch it
    if expect == "walk":
        found = list(iter_files([str(path)]))
        reasons = [r for _, r in found if r]
        assert any("symlink loop" in r for r in reasons)
        readable = [p for p, r in found if r is None]
        assert len(readable) == 1 and read_path(readable[0]).deployments
    else:
        result = read_path(str(path))
        kv001 = [f for f in result.findings if f.code == "KV001"]
        if isinstance(expect, int):
            assert kv001 and kv001[0].span is not None and kv001[0].span.line == expect, kv001
            assert str(kv001[0].severity) == "error"
        elif expect == "cap":
            assert kv001 and "size cap" in kv001[0].message
        elif expect.startswith("skip:"):
            assert result.skipped and expect[5:] in result.skipped
        elif expect == "none":
            assert not result.deployments
        else:
            assert result.deployments and result.deployments[0].model == "m"
    assert time.process_time() - start < 2.0


def test_merge_conflict_still_reads_first_side(tmp_path):
    path, _ = bad_cases.merge_conflict(tmp_path)
    deps = read_path(str(path)).deployments
    assert [d.model for d in deps] == ["org/m"] and deps[0].get("max_model_len") == 4096


def test_other_files_still_read_after_bad_ones(tmp_path):
    for builder in bad_cases.BUILDERS:
        if builder is not bad_cases.symlink_loop:
            builder(tmp_path)
    (tmp_path / "good.yaml").write_text(bad_cases.GOOD)
    results = {Path(p).name: read_path(p) for p, r in iter_files([str(tmp_path)]) if r is None}
    assert results["good.yaml"].deployments[0].model == "org/m"
    assert "huge.yaml" in results and "bomb.yaml" in results


def test_duplicate_key_message_names_both_lines(tmp_path):
    path, _ = bad_cases.duplicate_keys(tmp_path)
    (finding,) = read_path(str(path)).findings
    assert "'a'" in finding.message and "line 1" in finding.message


def test_stdin_dash_reads_text_argument():
    result = read_path("-", "vllm serve org/m --max-model-len 2048\n")
    assert result.deployments[0].get("max_model_len") == 2048


_pieces = st.sampled_from(list("ab -_:=\n\t'\"\\$(){}[]|>&;#*!`,.09") + [
    "vllm serve ", "--model ", "python -m sglang.launch_server ", "  - ", "args:", "command:", "{{ x }}", "${A:-",
    "$((", "<<EOF\n", "eval ", "bash -c ", "docker run ", "apiVersion: v1\nkind: Pod\n", "containers:\n", "services:\n", "run: |\n",
])


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(parts=st.lists(_pieces, max_size=40), name=st.sampled_from(["x.yaml", "x.sh", "Dockerfile", "x.json"]))
@example(parts=["vllm serve ", "#", "containers:\n", "-", "a"], name="x.sh")
@example(parts=["vllm serve ", "#", "containers:\n", "-"], name="x.sh")
@example(parts=["vllm serve ", "\n", "--model "], name="x.sh")
def test_arbitrary_text_never_raises(parts, name):
    text = "".join(parts)
    result = read_path(name, text)
    # KV008: the text names an engine and gave no launch (the never-silent note, info); KV012: a comment or a line
    # with no `\` ends a launch line and an option line follows it (`vllm serve #x` then `-a`; `vllm serve` then
    # `--model`, a CI run's draw), which the pieces can spell for real
    cut = "#" in text or re.search(r"\n[ \t]*-", text) is not None
    assert all(f.code == "KV001" or (f.code == "KV008" and str(f.severity) == "info")
               or (f.code == "KV012" and cut) for f in result.findings)
    # a lone `-` after the comment is no option line: nothing is cut
    assert text != "vllm serve #containers:\n-" or not result.findings


def test_folder_walk_passes_over_unrelated_json(tmp_path):
    """Every JSON file up to 256 KiB is walked (sample K14's `configs/config.json` of services was silent); one that
    names no engine is passed over before parsing (a broken package.json gives no KV001), a larger one is data."""
    (tmp_path / "package.json").write_text("{")
    (tmp_path / "tokenizer.json").write_text('{"v": "' + "x" * 300_000 + '"}')
    (tmp_path / "engine.vllm.json").write_text('{"model": "org/m", "max-model-len": 4096, "tensor-parallel-size": 2}')
    found = [Path(p).name for p, r in iter_files([str(tmp_path)]) if r is None]
    assert found == ["engine.vllm.json", "package.json"]
    assert read_path(str(tmp_path / "engine.vllm.json")).deployments[0].get("max_model_len") == 4096
    assert read_path(str(tmp_path / "package.json")).findings == []


def test_a_json_stack_config_of_services_is_read(tmp_path):
    """A stack's JSON config whose `vllm` service names the engine image and its flags as a command string."""
    p = tmp_path / "configs" / "config.json"
    p.parent.mkdir()
    p.write_text('{"services": {"db": {"image": "postgres"}, "vllm": {"image": "docker.io/vllm/vllm-openai",\n'
                 '  "tag": "v0.17.1", "command": "--model Qwen/Qwen2.5-1.5B-Instruct --max-model-len 2048"}}}\n')
    assert [Path(q).name for q, r in iter_files([str(tmp_path)]) if r is None] == ["config.json"]
    (dep,) = read_path(str(p)).deployments
    assert (dep.model, dep.get("max_model_len")) == ("Qwen/Qwen2.5-1.5B-Instruct", 2048)


def test_crlf_and_bom_keep_positions():
    result = read_path("run.sh", "\ufeff#!/bin/sh\r\nvllm serve org/m \\\r\n  --max-model-len 4096\r\n")
    (dep,) = result.deployments
    assert dep.model == "org/m" and dep.get("max_model_len") == 4096
    assert (dep.settings["max_model_len"].span.line, dep.settings["max_model_len"].span.col) == (3, 19)


def test_a_command_cut_by_thousands_of_comments_is_bounded(tmp_path):
    """KV012's joining of a command a comment cut (kvlint.launches.script._cut_piece) stops past a bound: a generated
    script of thousands of `--opt x  # why \\` lines is read in linear time and joins nothing past the bound, while a
    real cut (a few pieces) is still read as meant."""
    from kvlint.launches import read_path
    from kvlint.launches.script import _MAX_JOINED

    many = ["docker run --rm \\"] + [f"  --label k{i}=v  # why \\" for i in range(_MAX_JOINED)]
    p = tmp_path / "generated.sh"
    p.write_text("\n".join(many + ["  --gpus all \\", "  vllm/vllm-openai:v0.11.0 --model org/m"]) + "\n")
    result = read_path(str(p))
    assert result.deployments == [] and not [f for f in result.findings if f.code == "KV012"]
    few = tmp_path / "real.sh"
    few.write_text("\n".join(many[:3] + ["  --gpus all \\", "  vllm/vllm-openai:v0.11.0 --model org/m"]) + "\n")
    (d,) = read_path(str(few)).deployments
    assert d.model == "org/m"
