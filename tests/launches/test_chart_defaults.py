"""What a chart implies when the file is silent: written so a silent file is not read as a wrong one."""

from __future__ import annotations

import json
import textwrap

from kvlint.launches import read_path


def _hub(tmp_path, env):
    doc = {"title": "w", "config": {"gpuIds": "ADA_80_PRO", "gpuCount": 1, "presets": [
        {"name": "p", "defaults": {"MODEL_NAME": "Qwen/Qwen3-8B"}}], "env": env}}
    p = tmp_path / "hub.json"
    p.write_text(json.dumps(doc, indent=2))
    return read_path(str(p))


def _bool_env(key, default):
    return {"key": key, "input": {"name": key, "type": "boolean", "default": default}}


def test_runpod_false_store_true_flag_is_unset_not_a_no_flag(tmp_path):
    res = _hub(tmp_path, [_bool_env("DISABLE_LOG_STATS", False), _bool_env("ENFORCE_EAGER", True)])
    dep = res.deployments[0]
    assert dep.unknown_flags == ()
    assert "disable_log_stats" not in dep.settings
    assert dep.settings["enforce_eager"].value is True


def test_runpod_false_boolean_with_a_negative_form_is_kept(tmp_path):
    res = _hub(tmp_path, [_bool_env("ENABLE_PREFIX_CACHING", False)])
    dep = res.deployments[0]
    assert dep.unknown_flags == ()
    assert dep.settings["enable_prefix_caching"].value is False


WORKSPACE = textwrap.dedent("""\
    apiVersion: kaito.sh/v1beta1
    kind: Workspace
    metadata:
      name: ws
    resource:
      count: {count}
      instanceType: "Standard_NC48ads_A100_v4"
    inference:
      preset:
        name: llama-3.3-70b-instruct
    """)


def test_kaito_sizes_tp_to_the_vm_and_pp_to_the_nodes(tmp_path):
    p = tmp_path / "ws.yaml"
    p.write_text(WORKSPACE.format(count=3))
    dep = read_path(str(p)).deployments[0]
    assert dep.settings["tensor_parallel_size"].value == 2
    assert dep.settings["tensor_parallel_size"].span.line == 7
    assert dep.settings["pipeline_parallel_size"].value == 3
    assert dep.gpu_count == 6


def test_kaito_single_node_has_no_pipeline_stage(tmp_path):
    p = tmp_path / "ws.yaml"
    p.write_text(WORKSPACE.format(count=1))
    dep = read_path(str(p)).deployments[0]
    assert dep.settings["tensor_parallel_size"].value == 2
    assert dep.get("pipeline_parallel_size", 1) == 1
