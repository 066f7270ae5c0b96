"""Structured settings are keyword arguments, not CLI text (sample F: a RayService's `engine_kwargs:
disable_log_stats: false` became `--no-disable-log-stats` and a KV004 "the server exits"): `false` of a
store_true flag is its default and spells nothing; `false` of an on/off flag is its `--no-` form."""

from __future__ import annotations

from kvlint.launches import read_path

RAYSERVICE = """apiVersion: ray.io/v1
kind: RayService
metadata:
  name: llm
spec:
  serveConfigV2: |
    applications:
      - name: llms
        import_path: ray.serve.llm:build_openai_app
        args:
          llm_configs:
            - model_loading_config:
                model_id: Qwen/Qwen2.5-7B-Instruct
              engine_kwargs:
                max_model_len: 8192
                disable_log_stats: false
                enable_prefix_caching: false
                enforce_eager: true
"""

RAY_PY = """from ray.serve.llm import LLMConfig
config = LLMConfig(
    model_loading_config=dict(model_id="Qwen/Qwen2.5-7B-Instruct"),
    engine_kwargs=dict(max_model_len=8192, disable_log_stats=False, enable_prefix_caching=False),
)
"""


def _flags(dep):
    return {s.flag for s in dep.settings.values()}, [u.flag for u in dep.unknown_flags]


def test_false_of_a_store_true_key_is_the_default_and_of_an_on_off_key_its_no_form():
    [dep] = read_path("rayservice.yaml", RAYSERVICE).deployments
    flags, unknown = _flags(dep)
    assert unknown == [] and "--no-disable-log-stats" not in flags
    assert dep.get("enable_prefix_caching") is False and dep.get("enforce_eager") is True
    assert dep.get("max_model_len") == 8192


def test_python_keyword_arguments_likewise():
    [dep] = read_path("serve.py", RAY_PY).deployments
    assert _flags(dep)[1] == [] and dep.get("enable_prefix_caching") is False and dep.get("max_model_len") == 8192


def test_false_is_the_default_by_the_launch_s_own_engine_table():
    """Sample K162's RLinf server group: SGLang's `skip_tokenizer_init: False` is its store_true default; vLLM's
    table has `--no-skip-tokenizer-init` (an on/off flag there), which must not be spelled for SGLang (a wrong
    KV004 "SGLang rejects")."""
    text = ("rollout_backend: sglang\nserver:\n  model_path: org/m\n  mem_fraction_static: 0.85\n"
            "  skip_tokenizer_init: False\n  max_running_requests: 64\n")
    result = read_path("server.yaml", text)
    [dep] = result.deployments
    assert dep.engine == "sglang" and _flags(dep)[1] == [] and "--no-skip-tokenizer-init" not in _flags(dep)[0]
    assert [f.code for f in result.findings if f.code == "KV004"] == []
