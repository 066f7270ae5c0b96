"""Shapes the turn-35 held-out samples showed kvlint passing over or misreading, each read by a mechanism, not a
case."""

from __future__ import annotations

from kvlint.flags.flag_table import flag_table
from kvlint.flags.flag_values import read_value
from kvlint.launches import read_path
from kvlint.lint import LintOptions, lint


def _at(span):
    return (span.line, span.col) if span is not None else None


def test_vllm_folds_the_case_and_dashes_of_its_kernel_backends_before_checking_the_choices():
    """Sample K301: `--moe-backend FLASHINFER_CUTLASS` starts vLLM (its argparse type lower-cases the value and makes
    dashes underscores); a value that is still no choice after folding is refused."""
    spec = flag_table("vllm").by_option["--moe-backend"]
    assert read_value("vllm", spec, "FLASHINFER_CUTLASS") == ("flashinfer_cutlass", None)
    assert read_value("vllm", spec, "flashinfer-cutlass") == ("flashinfer_cutlass", None)
    value, reason = read_value("vllm", spec, "FLASHINFER_CUTLAS")
    assert value is None and reason is not None and reason.startswith("valid: ")
    # SGLang's choices are compared as written: no SGLang option folds its value
    assert all(s.type != "lower_snake" for s in flag_table("sglang").flags)


_SETUP = """\
#!/usr/bin/env bash
SPEC_TOKENS="${SPEC_TOKENS:-3}"
SPECARG="--speculative-config '{\\"method\\":\\"mtp\\",\\"num_speculative_tokens\\":$SPEC_TOKENS}'"
setup_script() {
  cat <<EOF
exec vllm serve Qwen/Qwen3-8B \\\\
  --max-model-len 8192 ${SPECARG}
EOF
}
docker run --gpus all vllm/vllm-openai:v0.20.0 --entrypoint bash -lc "$(setup_script)"
"""


def test_a_value_written_into_a_here_document_script_keeps_its_quotes_as_quotes(tmp_path):
    """Sample K301: `SPECARG="--speculative-config '{...}'"` written by an unquoted here-document into a script that
    `bash -lc` runs: the written script holds the value as text, so its single quotes quote the JSON there (one
    word, valid JSON), not characters of the word."""
    script = tmp_path / "start.sh"
    script.write_text(_SETUP)
    deps = read_path(str(script)).deployments
    dep = next(d for d in deps if d.model == "Qwen/Qwen3-8B")
    assert dep.get("speculative_config") == {"method": "mtp", "num_speculative_tokens": 3}
    assert dep.invalid_values == ()
    assert _at(dep.settings["speculative_config"].span)[0] == 7  # at the expression in the body
    # a quoted delimiter writes `${SPECARG}` as it is: the written script expands it itself, with no value set
    script.write_text(_SETUP.replace("cat <<EOF", "cat <<'EOF'"))
    dep = next(d for d in read_path(str(script)).deployments if d.model == "Qwen/Qwen3-8B")
    assert dep.get("speculative_config") is None


def test_a_runbook_saved_under_a_scripts_name_is_read_as_markdown(tmp_path):
    """Sample K300: a file named `.sh` whose first line is a Markdown fence holds three fenced commands; read as a
    script, the backquotes made nothing of it."""
    notes = tmp_path / "serve.sh"
    notes.write_text("```bash\nvllm serve Qwen/Qwen2.5-0.5B-Instruct-AWQ \\\n    --max-model-len 2048\n```\n\n"
                     "Kieu 2:\n\n```\npython -m vllm.entrypoints.openai.api_server --model 'HuggingFaceTB/SmolLM2-135M'"
                     " \\\n  --max-model-len 512\n```\n")
    deps = read_path(str(notes)).deployments
    assert [(d.model, d.get("max_model_len"), d.launch_span.line) for d in deps] == [
        ("Qwen/Qwen2.5-0.5B-Instruct-AWQ", 2048, 2), ("HuggingFaceTB/SmolLM2-135M", 512, 9)]
    # a script that only mentions a fence later is still a script
    notes.write_text("#!/bin/sh\necho '```'\nvllm serve Qwen/Qwen2.5-0.5B-Instruct-AWQ --max-model-len 2048\n")
    (dep,) = read_path(str(notes)).deployments
    assert dep.launch_span.line == 3


def test_a_runbooks_choice_among_values_is_a_placeholder_not_a_refused_value(tmp_path):
    """Sample K301: a README's `--node-rank {0,1}` beside `<deepseek-v4-model>` is the document's notation for a value
    its reader picks; a script that writes the same passes it to the engine as written."""
    readme = tmp_path / "README.md"
    readme.write_text("```bash\nvllm serve <model> --nnodes 2 --node-rank {0,1} --max-model-len 8192\n```\n")
    (dep,) = read_path(str(readme)).deployments
    assert dep.invalid_values == ()
    assert any("{0,1} is a placeholder" in n for n in dep.notes)
    script = tmp_path / "run.sh"
    script.write_text("vllm serve Qwen/Qwen3-8B --nnodes 2 --node-rank {0,1} --max-model-len 8192\n")
    (dep,) = read_path(str(script)).deployments
    assert [v.raw for v in dep.invalid_values] == ["{0,1}"]


def test_a_command_in_a_sentence_on_a_variable_model_is_a_launch(tmp_path):
    """Sample K300: "then rerun `uv run vllm serve $MODEL --enable-chunked-prefill --tensor-parallel-size $TP_SIZE`":
    a whole command with its options, its model a variable the runbook leaves to its reader; a span that only names
    the command is still prose."""
    readme = tmp_path / "README.md"
    readme.write_text("Update $MODEL, then rerun `uv run vllm serve $MODEL --enable-chunked-prefill "
                      "--tensor-parallel-size $TP_SIZE`.\n\nThe server is `vllm serve $MODEL` as before.\n")
    (dep,) = read_path(str(readme)).deployments
    assert (dep.engine, dep.model, dep.model_resolved, _at(dep.model_span)) == ("vllm", "$MODEL", False, (1, 46))


_MLPERF = """\
guide: optimized-baseline
model:
  name: openai/gpt-oss-120b
  source: pvc
modelserver:
  engine: vllm
  replicas: 4
  tensor_parallel_size: 2
  vllm_args:
    - "--max-model-len=49000"
    - "--max-num-seqs=1024"
router:
  mode: standalone
"""


def test_settings_beside_the_model_that_name_the_engine_and_hold_its_arguments_are_a_launch(tmp_path):
    """Sample K302: a deploy tool's values, the model at `model.name` and beside it `modelserver: {engine: vllm,
    tensor_parallel_size: 2, vllm_args: [...]}`: one launch with those settings. A map of settings alone beside the
    model (a benchmark's bookkeeping, sample K88) stays no launch."""
    values = tmp_path / "override.yaml"
    values.write_text(_MLPERF)
    (dep,) = read_path(str(values)).deployments
    assert (dep.engine, dep.model, dep.get("tensor_parallel_size"), dep.get("max_model_len"),
            dep.get("max_num_seqs")) == ("vllm", "openai/gpt-oss-120b", 2, 49000, 1024)
    assert _at(dep.model_span) == (3, 9)
    values.write_text(_MLPERF.replace('  vllm_args:\n    - "--max-model-len=49000"\n    - "--max-num-seqs=1024"\n', ""))
    assert read_path(str(values)).deployments == []


def test_a_plugin_that_places_its_stages_on_devices_is_not_judged_by_tp_times_pp(tmp_path):
    """Sample K302: `vllm serve --omni` with `--stage-overrides` putting stages on device 1, two GPUs requested: no
    KV204 "1 requested GPU stays idle"; the same launch without the plugin's switch keeps it."""
    manifest = tmp_path / "omni.yaml"
    body = ("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: omni}\nspec:\n  template:\n    spec:\n"
            "      containers:\n        - name: vllm\n          image: vllm/vllm-omni:v0.24.0\n"
            "          args: [vllm, serve, Qwen/Qwen2.5-7B-Instruct, --omni, --max-model-len, '8192']\n"
            "          resources: {limits: {nvidia.com/gpu: 2}}\n")
    manifest.write_text(body)
    options = LintOptions(select=("KV204",))
    assert [f.code for f in lint([str(manifest)], options).findings] == []
    manifest.write_text(body.replace(", --omni", "").replace("vllm-omni", "vllm-openai"))
    assert [f.code for f in lint([str(manifest)], options).findings] == ["KV204"]
