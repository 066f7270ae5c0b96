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


def _values(tmp_path, body):
    p = tmp_path / "values.yaml"
    p.write_text(textwrap.dedent(body))
    return read_path(str(p))


def test_empty_model_key_beside_an_engine_image_is_a_launch_at_the_image(tmp_path):
    res = _values(tmp_path, """\
        llm:
          modelHFName: ""
        image:
          repository: vllm/vllm-openai
          tag: v0.13.0
        """)
    (dep,) = res.deployments
    assert dep.engine == "vllm" and dep.model_resolved is False
    assert "modelHFName" in (dep.model or "")
    assert dep.launch_span is not None and (dep.launch_span.line, dep.launch_span.col) == (4, 15)


def test_engine_block_with_a_null_model_and_a_gpu_is_a_launch(tmp_path):
    res = _values(tmp_path, """\
        modelId: null
        vllm:
          image:
            tag: v0.25.1-1
          tensorParallelSize: 2
        resources:
          limits:
            nvidia.com/gpu: 2
        """)
    (dep,) = res.deployments
    assert dep.model_resolved is False and dep.model_span is not None and dep.model_span.line == 1
    assert dep.settings["tensor_parallel_size"].value == 2
    assert dep.gpu_count == 2


def test_engine_block_with_no_model_key_is_counted_at_the_block(tmp_path):
    res = _values(tmp_path, """\
        tolerations:
          - key: nvidia.com/gpu
            operator: Exists
        sglang:
          env:
            - name: CUDA_VISIBLE_DEVICES
              value: "0"
        """)
    (dep,) = res.deployments
    assert dep.engine == "sglang" and dep.model_resolved is False
    assert dep.launch_span is not None and dep.launch_span.line == 4


def test_engine_block_without_a_gpu_request_is_not_a_launch(tmp_path):
    res = _values(tmp_path, """\
        vllm:
          enabled: true
          url: http://vllm:8000/v1
        """)
    assert res.deployments == []


def test_a_disabled_engine_block_of_an_umbrella_chart_is_not_a_launch(tmp_path):
    """Sample K7's infracloud ai-stack: `vllm: {enabled: false, config: {model: ...}}` beside other GPU services
    renders nothing; enabled, its nested `config.model` is the model."""
    body = """\
        ollama:
          resources:
            limits:
              nvidia.com/gpu: 1
        vllm:
          enabled: {on}
          config:
            model: "meta-llama/Meta-Llama-3.1-8B-Instruct"
        """
    assert _values(tmp_path, body.format(on="false")).deployments == []
    (dep,) = _values(tmp_path, body.format(on="true")).deployments
    assert dep.model == "meta-llama/Meta-Llama-3.1-8B-Instruct" and dep.model_span.line == 8
