"""`read_path(..., variables=...)`: values for variables a repo leaves to its deploy tooling, used only
where the file does not set them, marked origin "config-variable"; and which YAML maps are vLLM
--config files (`as_vllm_config`, or every top-level key a vLLM argument)."""

from __future__ import annotations

from pathlib import Path

from kvlint.launches import read_path
from kvlint.lint import LintOptions, lint

FIX = Path(__file__).resolve().parent.parent / "fixtures" / "launches"
VARS = {"MODEL": "example-org/demo-8b", "MAX_LEN": "8192", "PARALLELISM_SIZE": "8", "MODEL_SOURCE": "example-org/demo-3b"}


def _one(tmp_path, name: str, text: str, variables=VARS):
    p = tmp_path / name
    p.write_text(text)
    (d,) = read_path(str(p), variables=variables).deployments
    return d


def test_script_variables_fill_only_what_the_script_leaves_unset(tmp_path):
    d = _one(tmp_path, "run.sh", "vllm serve $MODEL --max-model-len ${MAX_LEN:-4096} --max-num-seqs ${SEQS:-16}\n")
    assert (d.model, d.model_resolved) == ("example-org/demo-8b", True)
    mml = d.settings["max_model_len"]
    assert (mml.value, mml.origin, mml.span.col) == (8192, "config-variable", 35)
    assert (d.get("max_num_seqs"), d.settings["max_num_seqs"].origin) == (16, "default-expansion")
    d = _one(tmp_path, "own.sh", "MAX_LEN=2048\nvllm serve $MODEL --max-model-len $MAX_LEN\n")
    assert (d.get("max_model_len"), d.settings["max_model_len"].origin) == (2048, "variable")  # the file's own wins


def test_without_variables_nothing_changes(tmp_path):
    d = _one(tmp_path, "run.sh", "vllm serve $MODEL --max-model-len ${MAX_LEN:-4096}\n", variables=None)
    assert not d.model_resolved and d.settings["max_model_len"].origin == "default-expansion"


def test_kubernetes_dollar_paren_uses_container_env_first(tmp_path):
    text = ("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: s\n"
            "    image: lmsysorg/sglang:v0.4.6\n"
            "    command: [python3, -m, sglang.launch_server, --model-path, $(MODEL), --tp-size, $(PARALLELISM_SIZE)]\n"
            "    env:\n    - {name: MODEL, value: example-org/own}\n")
    d = _one(tmp_path, "pod.yaml", text)
    assert d.model == "example-org/own"  # defined in the container: the file wins
    tp = d.settings["tp_size"]
    assert (tp.value, tp.resolved, tp.origin, tp.span.line) == (8, True, "config-variable", 8)


def test_compose_dotenv_wins_over_variables(tmp_path):
    (tmp_path / ".env").write_text("MODEL=example-org/from-dotenv\n")
    text = "services:\n  api:\n    image: vllm/vllm-openai:v0.9.0\n    command: --model ${MODEL} --max-model-len ${MAX_LEN}\n"
    d = _one(tmp_path, "compose.yaml", text)
    assert d.model == "example-org/from-dotenv" and d.get("max_model_len") == 8192
    assert d.settings["max_model_len"].origin == "config-variable"


def test_structured_chart_values_take_variables(tmp_path):
    text = ("applications:\n  - name: llm\n    import_path: ray.serve.llm:build_openai_app\n    args:\n      llm_configs:\n"
            "        - model_loading_config: {model_id: demo, model_source: '${MODEL_SOURCE}'}\n"
            "          engine_kwargs: {max_model_len: '${MAX_LEN}'}\n")
    d = _one(tmp_path, "serve.yaml", text)
    assert (d.model, d.model_resolved) == ("example-org/demo-3b", True)
    assert (d.get("max_model_len"), d.settings["max_model_len"].origin) == (8192, "config-variable")


def test_application_serving_config_is_not_a_vllm_config():
    """The false positive of issue F: six KV004 errors and exit 1 on an app's own settings file."""
    path = FIX / "vllm-config" / "serving_config.yaml"
    assert read_path(str(path)).deployments == []
    result = lint([str(path)], LintOptions())
    assert [f for f in result.findings if f.code == "KV004"] == []
    assert not any(f.severity >= 3 for f in result.findings)


def test_every_key_a_vllm_argument_is_a_config_file():
    (d,) = read_path(str(FIX / "vllm-config" / "engine.yaml")).deployments
    assert (d.model, d.get("max_model_len"), d.get("tensor_parallel_size")) == ("example-org/demo-8b", 16384, 2)
    assert d.settings["max_model_len"].origin == "config-file"


def test_a_config_file_named_by_a_launch_or_the_caller_is_read_whatever_its_keys():
    typo = FIX / "vllm-config" / "engine-typo.yaml"
    assert read_path(str(typo)).deployments == []  # `temperature` is not a vLLM argument
    (forced,) = read_path(str(typo), as_vllm_config=True).deployments
    assert forced.get("max_model_len") == 16384 and [u.flag for u in forced.unknown_flags] == ["--temperature"]
    (d,) = read_path(str(FIX / "vllm-config" / "serve.sh")).deployments
    assert d.get("tensor_parallel_size") == 2 and d.get("max_model_len") == 16384
    assert [(u.flag, u.span.line) for u in d.unknown_flags] == [("--temperature", 4)]  # vLLM would refuse it
    never = read_path(str(FIX / "vllm-config" / "engine.yaml"), as_vllm_config=False)
    assert never.deployments == []


def test_a_command_string_grown_by_reassignment_keeps_its_words_places(tmp_path):
    """Sample K61 (measured: launches placed at the `nohup $CMD` line): `CMD="python3 -m vllm... --model $M"`, then
    `CMD="$CMD --max-model-len 8192"` under a condition: every word still at the place the string writes it."""
    from kvlint.launches import read_path

    p = tmp_path / "run.sh"
    p.write_text('M=org/m\nCMD="python3 -m vllm.entrypoints.openai.api_server \\\n  --port 8000 \\\n  --model $M"\n'
                 'if [ -n "$LEN" ]; then\n  CMD="$CMD --max-model-len 8192"\nfi\nnohup $CMD > log 2>&1 &\n')
    (dep,) = read_path(str(p)).deployments
    assert (dep.model, dep.launch_span.line, dep.get("max_model_len")) == ("org/m", 2, 8192)
    assert dep.settings["max_model_len"].span.line == 6
