"""Flags older engine releases took, and builds whose release the file does not name (sample K152: a Neuron
benchmark script with vLLM 0.7-0.10 flags, read as today's vLLM: two wrong KV004s and four KV005 warnings)."""

from __future__ import annotations

from kvlint.findings import Severity
from kvlint.lint import LintOptions, lint


def test_flags_older_vllm_releases_had_are_removed_not_unknown(tmp_path):
    """`--speculative-max-model-len` (vLLM 0.7.3-0.8.0) and `--override-neuron-config` (to 0.10.0), read in those
    releases' sources: a flag an older release took is a KV005 (removed), never "no release kvlint knows" (a KV004
    error, wrong for a script that runs such a release: sample K152)."""
    script = tmp_path / "serve.sh"
    script.write_text("vllm serve org/m --speculative-max-model-len 2048 --override-neuron-config '{}'\n")
    codes = sorted((f.code, f.severity) for f in lint([str(script)], LintOptions(select=("KV004", "KV005"))).findings)
    assert codes == [("KV005", Severity.WARNING), ("KV005", Severity.WARNING)]


def test_a_script_exporting_neuron_variables_runs_the_neuron_build(tmp_path):
    """`export NEURON_RT_INSPECT_ENABLE=0` before the server: an AWS Neuron build of vLLM, whose release the file does
    not name: removed flags are infos naming the build (sample K152's four warnings)."""
    script = tmp_path / "start_server.sh"
    script.write_text("export NEURON_RT_INSPECT_ENABLE=0\n"
                      "python3 -m vllm.entrypoints.openai.api_server --model org/m --use-v2-block-manager\n")
    (found,) = lint([str(script)], LintOptions(select=("KV005",))).findings
    assert found.severity == Severity.INFO and "AWS Neuron build" in found.message


def test_flags_read_from_older_wheels_are_removed_with_the_release_that_last_had_them(tmp_path):
    """Sample K251's Railway script (`--engine-use-ray false`, a KV004 "no release kvlint knows" warning): the vLLM
    0.5.5, 0.6.6 and 0.8.5 wheels' parsers hold four options no release read before had; each is a removed flag
    (KV005) now; on a release read with the flag (0.5.5: `--engine-use-ray` was read in 0.4.3 and 0.5.5), it starts: a warning
    about the next upgrade that says so."""
    script = tmp_path / "serve.sh"
    script.write_text("python -m vllm.entrypoints.openai.api_server --model org/m --engine-use-ray "
                      "--quantization-param-path s.json --prompt-adapters a=/p\n")
    found = lint([str(script)], LintOptions(select=("KV004", "KV005"))).findings
    assert sorted((f.code, f.severity) for f in found) == [("KV005", Severity.WARNING)] * 3
    pinned = tmp_path / "compose.yaml"
    pinned.write_text("services:\n  v:\n    image: vllm/vllm-openai:v0.5.5\n"
                      "    command: [--model, org/m, --engine-use-ray]\n")
    (kept,) = lint([str(pinned)], LintOptions(select=("KV004", "KV005"))).findings
    assert kept.code == "KV005" and kept.severity is Severity.WARNING and "0.5.5 (pinned) has it" in kept.message


def test_sglang_options_only_releases_before_the_tables_had_are_removed(tmp_path):
    """SGLang 0.4.10.post2's parser (read from its wheel for sample K250) holds three options no table had:
    `--max-micro-batch-size` (now `--pp-max-micro-batch-size`) is a removed flag naming its successor."""
    script = tmp_path / "serve.sh"
    script.write_text("python -m sglang.launch_server --model-path org/m --max-micro-batch-size 4 --pdlb-url http://x\n")
    found = lint([str(script)], LintOptions(select=("KV004", "KV005"))).findings
    assert sorted(f.code for f in found) == ["KV005", "KV005"]
    assert any("--pp-max-micro-batch-size" in f.message for f in found)


def test_a_value_older_releases_read_on_a_vendors_build_is_that_builds_to_decide(tmp_path):
    """Sample K254's Neuron example (measured: a KV007 warning a reviewer calls noise): `VLLM_NEURON_FRAMEWORK=...
    python -m vllm.entrypoints.openai.api_server ... --limit-mm-per-prompt image=2 --device neuron` after `export
    NEURON_COMPILED_ARTIFACTS=...`: an AWS Neuron build, of a release its SDK pairs, which may read `image=2`: an
    info, as KV005 says the removed `--device` there. On a host install the warning stays."""
    script = tmp_path / "serve.sh"
    script.write_text("export NEURON_COMPILED_ARTIFACTS=/x\npython -m vllm.entrypoints.openai.api_server --model org/m "
                      "--limit-mm-per-prompt image=2\n")
    (neuron,) = lint([str(script)], LintOptions(select=("KV007",))).findings
    assert neuron.severity == Severity.INFO and "that build's release decides" in neuron.message
    plain = tmp_path / "host.sh"
    plain.write_text("vllm serve org/m --limit-mm-per-prompt image=2\n")
    (host,) = lint([str(plain)], LintOptions(select=("KV007",))).findings
    assert host.severity == Severity.WARNING


def test_a_value_the_pinned_release_reads_is_sized_and_the_release_a_repository_image_installs_pins_it(tmp_path):
    """Sample K259's RunPod handler (measured: a KV007 warning a reviewer calls noise): `subprocess.Popen([...,
    "vllm.entrypoints.openai.api_server", ..., "--limit-mm-per-prompt", "image=5"])` in a program the repository's
    Dockerfile runs (`RUN pip install vllm==0.7.3`, `CMD ["python3.11", "-u", "/handler.py"]`): 0.7.3 reads `image=5`,
    so there is no finding and the launch is sized, not skipped for a value the engine rejects."""
    (tmp_path / "Dockerfile").write_text("FROM runpod/base:0.6.2\nRUN pip install vllm==0.7.3 runpod\n"
                                         "COPY handler.py /handler.py\nCMD [\"python3.11\", \"-u\", \"/handler.py\"]\n")
    (tmp_path / "handler.py").write_text(
        'import subprocess\nsubprocess.Popen(["python3", "-m", "vllm.entrypoints.openai.api_server", "--model",\n'
        '    "Qwen/Qwen2.5-7B-Instruct", "--limit-mm-per-prompt", "image=5"])\n')
    result = lint([str(tmp_path / "handler.py")], LintOptions(select=("KV007",)))
    assert result.findings == []
    (launch,) = result.launches
    assert launch.skip_kind != "rejected-value"


def _kv007(tmp_path, text):
    script = tmp_path / "serve.sh"
    script.write_text(text)
    return [(f.severity, f.message) for f in lint([str(script)], LintOptions(select=("KV007",))).findings]


def test_a_choice_older_sglang_releases_listed_is_judged_on_the_release_the_launch_pins(tmp_path):
    """Sample K276 (measured: a KV007 error, wrong): `--fp4-gemm-backend cutlass` on a script that pins no SGLang
    release. SGLang 0.5.10 to 0.5.13 listed `cutlass` (read from each release's choice lists, 0.5.4 to 0.5.23); the
    newest does not. Unpinned: a warning naming the releases that read it. Pinned inside them: no finding; before or
    after them: the error stands."""
    head = "python -m sglang.launch_server --model-path Qwen/Qwen3-8B "
    ((severity, message),) = _kv007(tmp_path, head + "--fp4-gemm-backend cutlass\n")
    assert severity == Severity.WARNING and "0.5.10 to 0.5.13" in message
    image = "docker run --gpus all lmsysorg/sglang:{} python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B {}\n"
    assert _kv007(tmp_path, image.format("v0.5.11", "--fp4-gemm-backend cutlass")) == []
    assert _kv007(tmp_path, image.format("v0.5.9", "--attention-backend cutlass_mla")) == []
    assert [s for s, _ in _kv007(tmp_path, image.format("v0.5.9", "--fp4-gemm-backend cutlass"))] == [Severity.ERROR]
    assert [s for s, _ in _kv007(tmp_path, image.format("v0.5.23", "--attention-backend cutlass_mla"))] == \
        [Severity.ERROR]


def test_an_older_releases_pool_setting_is_not_sized_with_the_newest_arithmetic(tmp_path):
    """`--kv-cache-dtype fp4_e2m1` on SGLang 0.5.9 (a choice of 0.5.5 to 0.5.13): the server starts, so KV007 is
    silent, but kvlint's arithmetic is the newest release's, which has no such dtype: the launch is not sized, and
    says why, rather than sized at the model's dtype."""
    script = tmp_path / "serve.sh"
    script.write_text("docker run --gpus all lmsysorg/sglang:v0.5.9 python3 -m sglang.launch_server "
                      "--model-path Qwen/Qwen3-8B --kv-cache-dtype fp4_e2m1\n")
    assert _kv007(tmp_path, script.read_text()) == []
    (status,) = lint([str(script)], LintOptions()).launches
    assert status.skip_kind == "older-value" and "fp4_e2m1" in (status.skipped_because or "")


def test_a_choice_older_vllm_releases_listed_is_judged_on_the_release_the_launch_pins(tmp_path):
    """`--all2all-backend mori` (ROCm's MoRI all-to-all): vLLM 0.15.0 and 0.20.0 list it as a choice; 0.27.0 and
    the newest list only `mori_high_throughput` and `mori_low_latency` (the config Literals of each wheel read,
    0.11.0 to 0.27.0). Unpinned: a warning naming the releases; pinned inside them: no finding; after: an error."""
    head = "vllm serve Qwen/Qwen3-30B-A3B --enable-expert-parallel "
    ((severity, message),) = _kv007(tmp_path, head + "--all2all-backend mori\n")
    assert severity == Severity.WARNING and "0.15.0 to 0.20.0" in message
    image = "docker run --gpus all vllm/vllm-openai:{} Qwen/Qwen3-30B-A3B --enable-expert-parallel {}\n"
    assert _kv007(tmp_path, image.format("v0.20.0", "--all2all-backend mori")) == []
    assert [s for s, _ in _kv007(tmp_path, image.format("v0.33.0", "--all2all-backend mori"))] == [Severity.ERROR]
    assert [s for s, _ in _kv007(tmp_path, image.format("v0.20.0", "--all2all-backend moriX"))] == [Severity.ERROR]
