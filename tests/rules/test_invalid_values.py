"""KV007 end to end: refused values become findings at the value, fail the gate, and stop the capacity rules."""

from __future__ import annotations

import pytest

from kvlint.launches.argv import detect, parse
from kvlint.lint import LintOptions, exit_code, fail_threshold, lint
from kvlint.span import Span, Token


def check(text: str, gpu: str = "L4"):
    result = lint(["-"], LintOptions(gpu=gpu, stdin_text=text))
    return result, exit_code(result, fail_threshold(None, result))


def tokens(line: str) -> list[Token]:
    out, col = [], 1
    for word in line.split(" "):
        out.append(Token(word, Span("-", 1, col, 1, col + len(word))))
        col += len(word) + 1
    return out


@pytest.mark.parametrize(("engine", "argv", "flag", "raw", "reason"), [
    ("vllm", "-tp two", "-tp", "two", "not an integer"),
    ("vllm", "--kv-cache-dtype fp16", "--kv-cache-dtype", "fp16", "valid: auto, float16, bfloat16"),
    ("sglang", "--kv-cache-dtype fp8", "--kv-cache-dtype", "fp8", "valid: auto, fp8_e5m2, fp8_e4m3"),
    ("sglang", "--context-length 32K", "--context-length", "32K", "case-sensitive"),
])
def test_parse_records_the_refused_value_at_its_own_span(engine, argv, flag, raw, reason):
    parsed = parse(engine, tokens(argv))
    [bad] = parsed.invalid
    assert (bad.flag, bad.raw) == (flag, raw) and reason in bad.reason
    assert bad.span.col == len(flag) + 2 and bad.span.end_col == bad.span.col + len(raw)
    assert parsed.errors == []  # reported once, as KV007, not again as a "flag parse" note
    assert not parsed.settings


def test_refused_parse_value_fails_the_gate_and_skips_capacity_rules():
    result, code = check("vllm serve Qwen/Qwen3-8B --max-model-len 1.5K\n")
    assert [(f.code, f.span.col) for f in result.findings] == [("KV007", 42)]
    assert result.findings[0].message.startswith("vLLM rejects --max-model-len 1.5K: not a count vLLM reads")
    assert code == 1 and not any("flag parse" in n for n in result.notes)


def test_engine_range_check_is_a_finding_at_the_value_not_a_note():
    result, code = check("vllm serve Qwen/Qwen3-8B --gpu-memory-utilization 1.5\n")
    [f] = result.findings
    assert (f.code, f.span.col, f.span.end_col) == ("KV007", 51, 54)
    assert f.message.startswith("vLLM rejects --gpu-memory-utilization 1.5: must be in (0, 1]")
    assert code == 1 and not any("capacity rules skipped" in n for n in result.notes)


def test_sglang_parallel_size_names_the_flag_it_came_from():
    result, _ = check("sglang serve Qwen/Qwen3-8B --tp-size 0\n", gpu="H100")
    assert [(f.code, f.data["flag"], f.data["value"]) for f in result.findings] == [("KV007", "--tp-size", "0")]


def test_kvlint_limitations_stay_notes():
    """A dtype kvlint does not model is not the engine refusing it: no KV007, the capacity rules say why."""
    result, code = check("vllm serve Qwen/Qwen3-8B --kv-cache-dtype turboquant_k8v4\n")
    assert not any(f.code == "KV007" for f in result.findings)
    assert any("does not model" in n for n in result.notes) and code == 0


def test_sglang_serve_takes_a_positional_model():
    line = tokens("sglang serve Qwen/Qwen3-8B --tp-size 2")
    engine, start = detect(line)
    parsed = parse(engine, line[start:])
    assert engine == "sglang" and parsed.model.value == "Qwen/Qwen3-8B" and parsed.model.span.col == 14
    assert parsed.settings["tp_size"].value == 2 and parsed.errors == []
    launch = tokens("python -m sglang.launch_server Qwen/Qwen3-8B")
    engine, start = detect(launch)
    refused = parse(engine, launch[start:])
    assert refused.model is None and "unrecognized argument 'Qwen/Qwen3-8B'" in refused.errors[0]


def test_sglang_serve_launch_span_covers_serve():
    result, _ = check("sglang serve Qwen/Qwen3-8B --tp-size 0\n", gpu="H100")
    assert result.deployments == 1
    from kvlint.launches import read_path

    dep = read_path("-", "sglang serve Qwen/Qwen3-8B\n").deployments[0]
    assert (dep.model, dep.launch_span.col, dep.launch_span.end_col) == ("Qwen/Qwen3-8B", 1, 13)


def test_refused_value_in_a_config_file_points_into_that_file(tmp_path):
    (tmp_path / "engine.yaml").write_text("max-model-len: 8192\nkv-cache-dtype: fp16\n", encoding="utf-8")
    (tmp_path / "run.sh").write_text("#!/bin/sh\nvllm serve Qwen/Qwen3-8B --config engine.yaml\n", encoding="utf-8")
    result = lint([str(tmp_path / "run.sh")], LintOptions(gpu="H100"))
    assert [(f.code, f.span.path.rsplit("/", 1)[-1], f.span.line, f.span.col) for f in result.findings] == \
        [("KV007", "engine.yaml", 2, 17)]
    (tmp_path / "run.sh").write_text("#!/bin/sh\nvllm serve Qwen/Qwen3-8B --config engine.yaml --kv-cache-dtype fp8\n",
                                     encoding="utf-8")
    overridden = lint([str(tmp_path / "run.sh")], LintOptions(gpu="H100"))
    assert not [f for f in overridden.findings if f.code == "KV007"]  # the command line wins over the file


def _kv007(path, text: str) -> list:
    """The KV007 findings of a file written with `text`."""
    path.write_text(text)
    return [f for f in lint([str(path)], LintOptions()).findings if f.code == "KV007"]


def _pinned(tmp_path, image: str, words: str) -> list[str]:
    """The KV007 severities of a compose service on `image` given `--model facebook/opt-125m WORDS`."""
    return [f.severity.name.lower() for f in _kv007(tmp_path / "compose.yaml", f"services:\n  v:\n    image: {image}"
                                                      f"\n    command: --model facebook/opt-125m {words}\n")]


@pytest.mark.parametrize(("image", "severity"), [
    ("vllm/vllm-openai:v0.6.3", None),  # 0.5.5 to 0.8.0 read the word as the switch's value: no finding
    ("vllm/vllm-openai:v0.8.3", "warning"),  # between the last release read with the word and the first without
    ("vllm/vllm-openai:v0.15.1", "error"),  # a plain switch on every release the tables read
    ("vllm/vllm-openai:v0.4.3", "error"),  # a plain switch before the word was read, too
])
def test_a_word_after_a_switch_older_releases_took_is_judged_on_the_pinned_release(tmp_path, image, severity):
    """Sample K98 (measured: an error on `--enable-chunked-prefill False` in an unpinned 2025 script): vLLM 0.5.5 to
    0.8.0 read that word as the switch's value (argparse StoreBoolean, read from those wheels), so the verdict is the
    release's; an unpinned host install is a warning that says so."""
    assert _pinned(tmp_path, image, "--enable-chunked-prefill False") == ([severity] if severity else [])
    host = tmp_path / "serve.sh"
    (kv007,) = _kv007(host, "vllm serve facebook/opt-125m --enforce-eager --enable-chunked-prefill False\n")
    assert kv007.severity.name == "WARNING" and "0.5.5 to 0.8.0" in kv007.message
    (kv007,) = _kv007(host, "vllm serve facebook/opt-125m --enforce-eager false\n")  # always a plain switch: an error
    assert kv007.severity.name == "ERROR"


def test_a_python_helpers_image_keyword_is_the_commands_image(tmp_path):
    """Sample K163's CLI (measured: two warnings): `run_container(image=f"liquidai/liquid-labs-vllm:{v}", command=[
    "--model", "/model", "--enable-chunked-prefill", "False", ...])`: the image the list goes to decides the
    release, as in a compose file (an info when it names none); a pinned one is read as pinned."""
    text = ("import docker_helper\n\n\ndef run(v):\n    docker_helper.run_container(\n"
            "        image=IMAGE,\n        command=[\"--model\", \"/model\", \"--max-model-len\", \"4096\","
            " \"--enable-chunked-prefill\", \"False\"],\n    )\n")
    (open_,) = _kv007(tmp_path / "model.py", text.replace("IMAGE", 'f"liquidai/liquid-labs-vllm:{v}"'))
    assert open_.severity.name == "INFO" and "liquidai/liquid-labs-vllm:${v}" in open_.message
    assert _kv007(tmp_path / "model.py", text.replace("IMAGE", '"vllm/vllm-openai:v0.6.3"')) == []


def test_a_json_value_written_as_a_name_is_a_pattern_not_invalid_json(tmp_path):
    """Sample K166's runlog (measured: four KV007 errors): "Command pattern: `vllm serve M --speculative-config
    '{"method":"eagle3","num_speculative_tokens":N}'`", N the sweep's value: a pattern the reader fills in, left
    unresolved; JSON with Python's `True` stays an error (the engine is handed it as written)."""
    from kvlint.flags.flag_values import is_unresolved

    assert is_unresolved('{"method":"eagle3","num_speculative_tokens":N}') and is_unresolved('{"k":DRAFT_TOKENS,"m":1}')
    assert not is_unresolved('{"enable": True}') and not is_unresolved('{"k": 2}')
    # sample K256: a recipe's format field inside the JSON, filled by its runner (a wrong KV007 error at measurement)
    assert is_unresolved('{"method":"dspark","num_speculative_tokens":{k},"x":1}') and not is_unresolved('{"a":{}}')
    assert _kv007(tmp_path / "runlog.md", "Command pattern: `vllm serve /data/Qwen3-8B --speculative-config "
                  "'{\"method\":\"eagle3\",\"num_speculative_tokens\":N}' --no-enable-prefix-caching`\n") == []
    (kv007,) = _kv007(tmp_path / "run.sh", "vllm serve /data/Qwen3-8B --speculative-config '{\"method\": True}'\n")
    assert "not valid JSON" in kv007.message


def test_an_image_that_names_no_release_decides_an_older_reading(tmp_path):
    """Sample K163 (measured: three warnings): a vendor's vLLM image tagged by a variable
    (`liquidai/liquid-labs-vllm:${VLLM_VERSION}`, a V0-era build) given `--enable-chunked-prefill False`: its release,
    not the newest, decides whether the word is the switch's value, so the finding is an info, as KV005 says it."""
    assert _pinned(tmp_path, "liquidai/liquid-labs-vllm:${VLLM_VERSION}", "--enable-chunked-prefill False") == ["info"]
    (kv007,) = _kv007(tmp_path / "compose.yaml", "services:\n  v:\n    image: org/vllm-build:${TAG}\n"
                      "    command: --model facebook/opt-125m --enable-chunked-prefill False\n")
    assert "the image's release decides" in kv007.message


@pytest.mark.parametrize(("image", "severity"), [
    ("vllm/vllm-openai:v0.7.3", None),  # 0.5.5 to 0.9.2 read KEY=VALUE pairs beside JSON
    ("vllm/vllm-openai:v0.11.0", "error"),  # JSON only
])
def test_key_value_pairs_older_releases_read_for_a_json_option(tmp_path, image, severity):
    """Sample K103 (measured: an error on a model README's `--limit-mm-per-prompt image=5,video=5`): vLLM 0.5.5 to
    0.9.2 read that form (`nullable_kvs`, read from those wheels); a README's command pins no release: a warning that
    says so; a pinned image decides."""
    assert _pinned(tmp_path, image, "--limit-mm-per-prompt image=5,video=5") == ([severity] if severity else [])
    (kv007,) = _kv007(tmp_path / "README.md",
                      "```bash\nvllm serve facebook/opt-125m --limit-mm-per-prompt image=5,video=5\n```\n")
    assert kv007.severity.name == "WARNING" and "0.5.5 to 0.9.2" in kv007.message


@pytest.mark.parametrize(("image", "severity"), [
    ("vllm/vllm-openai:v0.30.0", None),  # MambaCacheMode was Literal["all", "align", "none"] from 0.15.0 to 0.31.0
    ("vllm/vllm-openai:v0.32.0", "error"),  # Literal["align", "none"] from 0.32.0 on
])
def test_a_choice_a_later_release_dropped(tmp_path, image, severity):
    """Sample K205 (measured: an error on `--mamba-cache-mode all` in a script that requires vLLM >= 0.30.0): `all`
    was one of the option's choices from 0.15.0 to 0.31.0 (read from those wheels' vllm/config/cache.py), so on a
    launch that pins no release the finding is a warning naming those releases, and a pinned image decides; another
    value no release listed (`every`) is not said to be read by them."""
    assert _pinned(tmp_path, image, "--mamba-cache-mode all") == ([severity] if severity else [])
    (kv007,) = _kv007(tmp_path / "serve.sh", "vllm serve facebook/opt-125m --mamba-cache-mode all\n")
    assert kv007.severity.name == "WARNING" and "0.15.0 to 0.31.0" in kv007.message
    (kv007,) = _kv007(tmp_path / "serve.sh", "vllm serve facebook/opt-125m --mamba-cache-mode every\n")
    assert kv007.severity.name != "WARNING" and "0.15.0" not in kv007.message


def test_a_builds_own_choice_on_a_custom_image_with_no_pinned_release_is_the_builds_to_decide(tmp_path):
    """Sample K251 (measured: a wrong KV007 error): a vLLM fork for SM75 cards run from its local image
    `vllm-sm75:v${VERSION}` with `--gdn-prefill-backend flashqla_sm75`, no slip of a stock backend: an info, the
    build decides. A slip (`flashinfr`) on the same image, or the value on the stock image, stays the error."""
    from kvlint.findings import Severity

    p = tmp_path / "run.sh"
    text = 'docker run --gpus all "vllm-sm75:v${VERSION}" org/m --gdn-prefill-backend flashqla_sm75\n'
    p.write_text(text)
    (custom,) = lint([str(p)], LintOptions(select=("KV007",))).findings
    assert custom.severity == Severity.INFO and "the build (which may add it) decides" in custom.message
    p.write_text(text.replace("flashqla_sm75", "flashinfr"))
    (slip,) = lint([str(p)], LintOptions(select=("KV007",))).findings
    assert slip.severity == Severity.ERROR
    p.write_text(text.replace('"vllm-sm75:v${VERSION}"', "vllm/vllm-openai:latest"))
    (stock,) = lint([str(p)], LintOptions(select=("KV007",))).findings
    assert stock.severity == Severity.ERROR
