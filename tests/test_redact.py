"""No secret is ever printed: fake credentials through every command and format, and the rule itself.

Before, `kvlint inspect` printed --api-key and --hf-token values (also ones filled in from `env:`
entries on other lines) and `kvlint verify --format json` echoed a log's api_key and hf_token.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kvlint.cli import main
from kvlint.redact import MASK, is_reference, is_secret_name, redact_text, redact_value

HF = "hf_FAKEfakeFAKEfakeFAKEfakeFAKEfake12"
SK = "sk-FAKEfakeFAKEfake1234567890"
PLAIN_ENV = "correct-horse-battery-staple"  # no token shape: only its name says it is a secret
PLAIN_FLAG = "hunter2-but-longer"
PLAIN_LOG = "swordfish-in-a-log"
SECRETS = (HF, SK, PLAIN_ENV, PLAIN_FLAG, PLAIN_LOG, "export-me-not")
FIXTURES = Path(__file__).resolve().parent / "fixtures" / "logs"

POD = f"""\
apiVersion: v1
kind: Pod
metadata: {{name: serve}}
spec:
  containers:
  - name: vllm
    image: vllm/vllm-openai:v0.10.1
    env:
    - name: API_KEY
      value: {PLAIN_ENV}
    - name: HUGGING_FACE_HUB_TOKEN
      value: {HF}
    args: [--model, Qwen/Qwen3-8B, --api-key, $(API_KEY), --hf-token, $(HUGGING_FACE_HUB_TOKEN), --max-model-len, '1000000']
    resources: {{limits: {{nvidia.com/gpu: 1}}}}
"""
SCRIPT = f"""\
#!/bin/sh
export HF_TOKEN=export-me-not
vllm serve Qwen/Qwen3-8B --api-key {SK} --hf-token $HF_TOKEN --max-model-len 1000000 --admin-api-key={PLAIN_FLAG}
"""


@pytest.fixture
def files(tmp_path, monkeypatch):
    (tmp_path / ".git").mkdir()
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pod.yaml").write_text(POD)
    (tmp_path / "serve.sh").write_text(SCRIPT)
    log = (FIXTURES / "vllm033_tp2.log").read_text().replace(
        "'gpu_memory_utilization': 0.9}", f"'gpu_memory_utilization': 0.9, 'api_key': '{PLAIN_LOG}', 'hf_token': '{HF}'}}")
    (tmp_path / "start.log").write_text(log + f"\nERROR Engine failed: bad credentials --api-key {PLAIN_LOG}\n")
    return tmp_path


def _run(capsys, *argv) -> str:
    main(list(argv))
    out, err = capsys.readouterr()
    return out + err


def _leaks(text: str) -> list[str]:
    return [s for s in SECRETS if s in text]


@pytest.mark.parametrize("fmt", ["text", "json", "sarif", "github"])
def test_check_prints_no_secret_in_any_format(files, capsys, fmt):
    out = _run(capsys, "check", "--format", fmt, "--gpu", "H100", str(files))
    assert "KV105" in out  # the files were read, the frames shown
    assert _leaks(out) == []
    _run(capsys, "check", "--format", fmt, "--gpu", "H100", "-o", str(files / f"report.{fmt}"), str(files))
    assert _leaks((files / f"report.{fmt}").read_text()) == []
    if fmt in ("json", "sarif"):
        json.loads((files / f"report.{fmt}").read_text())  # masking never breaks the document


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_inspect_prints_no_secret(files, capsys, fmt):
    out = _run(capsys, "inspect", "--format", fmt, str(files))
    assert "api_key" in out and MASK in out
    assert _leaks(out) == []
    if fmt == "json":
        settings = {s for f in json.loads(out)["files"] for d in f["deployments"] for s in d["settings"]}
        assert {"api_key", "hf_token"} <= settings


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_budget_prints_no_secret(files, capsys, fmt):
    out = _run(capsys, "budget", "--format", fmt, "--gpu", "H100", "--", "vllm", "serve", "Qwen/Qwen3-8B",
               "--api-key", PLAIN_FLAG, "--hf-token", HF)
    assert "Qwen3-8B" in out and _leaks(out) == []
    out = _run(capsys, "budget", "--format", fmt, str(files / "serve.sh"))
    assert _leaks(out) == []


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_verify_prints_no_secret_of_the_log(files, capsys, fmt):
    out = _run(capsys, "verify", "--format", fmt, "--report", str(files / "cmp.json"), str(files / "start.log"))
    assert _leaks(out) == [] and _leaks((files / "cmp.json").read_text()) == []
    if fmt == "json":
        logged = json.loads(out)["logged"]["args"]
        assert logged["api_key"] == MASK and logged["hf_token"] == MASK


def test_errors_print_no_secret(files, capsys):
    out = _run(capsys, "budget", "--", "vllm", "serve", "Qwen/Qwen3-8B", "--api-key", PLAIN_FLAG, "--bogus-flag")
    assert "bogus" in out and _leaks(out) == []


def test_the_records_hold_no_secret():
    from kvlint.launches import read_path
    from kvlint.logs import parse_log

    (dep,) = read_path("pod.yaml", POD).deployments
    assert dep.settings["api_key"].value == [MASK] and dep.settings["hf_token"].raw == MASK
    record = parse_log(f"server_args=ServerArgs(model_path='m', api_key='{PLAIN_LOG}', tp_size=2)")
    assert record.args["api_key"] == MASK and record.args["tp_size"] == 2


@pytest.mark.parametrize("name", ["--api-key", "--hf-token", "api_key", "HF_TOKEN", "HUGGING_FACE_HUB_TOKEN",
                                  "--admin-api-key", "ssl_keyfile_password", "AWS_SECRET_ACCESS_KEY", "DB_PASSWORD",
                                  "OPENAI_API_KEYS", "TOKEN", "SSH_KEY"])
def test_credential_names(name):
    assert is_secret_name(name)


@pytest.mark.parametrize("name", ["--max-num-batched-tokens", "max_num_batched_tokens", "KV_CACHE_DTYPE",
                                  "kv_bytes_per_token", "--bucket-time-to-first-token", "--ssl-keyfile", "key",
                                  "AWS_ACCESS_KEY_ID", "pad_token", "dotted_json_keys", "--tokenizer", ""])
def test_ordinary_names(name):
    assert not is_secret_name(name)


def test_references_and_shapes():
    assert is_reference("$(API_KEY)") and is_reference("${HF_TOKEN}") and is_reference("{{ .Values.token }}")
    assert not is_reference("${HF_TOKEN:-" + HF + "}")
    assert redact_value("api_key", "$(API_KEY)") == "$(API_KEY)"
    assert redact_value("api_key", ["a", "b"]) == [MASK, MASK]
    assert redact_value("served_model_name", f"model {HF}") == f"model {MASK}"
    assert redact_value("max_num_batched_tokens", 8192) == 8192


@pytest.mark.parametrize("text,expected", [
    (f"vllm serve m --api-key {PLAIN_FLAG} --max-num-batched-tokens 8192", "vllm serve m --api-key *** --max-num-batched-tokens 8192"),
    (f"--hf-token={PLAIN_FLAG} x", "--hf-token=*** x"),
    (f"HF_TOKEN={PLAIN_ENV} KV_CACHE_DTYPE=fp8", "HF_TOKEN=*** KV_CACHE_DTYPE=fp8"),
    (f"server_args=ServerArgs(api_key='{PLAIN_LOG}', tp_size=2)", "server_args=ServerArgs(api_key='***', tp_size=2)"),
    ("api_key = '$(API_KEY)' is not resolved", "api_key = '$(API_KEY)' is not resolved"),
    (f"a {HF} b {SK}", "a *** b ***"),
    ('"api_key": null, "hf_token": 1234', '"api_key": null, "hf_token": "***"'),
    ("hf-token-secret and hf_short stay", "hf-token-secret and hf_short stay"),
    ("the api_key is set", "the api_key is set"),
])
def test_redact_text(text, expected):
    assert redact_text(text) == expected


def test_redact_text_is_linear_on_long_lines():
    from kvlint import limits

    with limits.file_limits(seconds=5):  # a quadratic pattern would take minutes here, not milliseconds
        assert redact_text("a=" * 200_000) == "a=" * 200_000
        assert redact_text('"' * 200_000 + "api_key: x") .endswith("api_key: ***")
        limits.check()


def _three_passes(text: str) -> str:
    """redact_text without its preconditions: what it must equal on every text."""
    from kvlint import redact

    text = redact._TOKEN.sub(redact.MASK, text)
    text = redact._FLAG.sub(redact._mask_named, text)
    return redact._KEYED.sub(redact._mask_named, text)


def test_the_preconditions_never_change_what_is_masked():
    import random

    pieces = ["--api-key", "api_key", "HF_TOKEN", "ſecret_value", "passwd", "Password", "tokens", "KEY", "my-key",
              "x", "=", ": ", " ", "'", '"', "hf_" + "a" * 34, "sk-" + "b" * 24, "ghp_" + "c" * 36, "gh_x", "ß",
              "$(HF_TOKEN)", "{{ .Values.token }}", "value123", "\n", ",", "{", "}", "--max-num-batched-tokens",
              "token", "Token.", "keys", "api_keys", "per token", "-token", "key_", "TOKEN2", "\u017f", "\ufb01",
              "\u212a", "key.", "tokens:", "my.key"]
    rng = random.Random(7)
    for _ in range(10000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(1, 9)))
        assert redact_text(text) == _three_passes(text), text


@pytest.mark.parametrize("text", ["Bearer abc", "x-authorization: y", "AUTHORIZATION", "a BEARER b", "no auth words",
                                  "bearing", "authorızation: Basic x", "Authorization: Bearer \u212a", "\u212a only", ""])
def test_the_auth_words_precondition_agrees_with_the_pattern(text):
    """The plain-substring test on ASCII text and the pattern elsewhere give the pattern's answer (the dotless i
    of `authorızation` folds to i only in the pattern, which non-ASCII text keeps)."""
    from kvlint.redact import _AUTH_WORDS, _names_auth

    assert _names_auth(text) == (_AUTH_WORDS.search(text) is not None)


def test_a_credential_inside_another_flags_quoted_value_is_masked():
    """A quoted value of an ordinary flag that holds a credential's flag (`--model "${M --password=X}"`, a mutated
    script of the fuzz run): the ordinary flag's match took the whole string, and the source line under a finding
    printed the password. The value inside is masked as it would be alone; the quotes and the rest stay."""
    line = '    --model "${MODEL_PA --password=FAKEPASS0025  --api-key=FAKEPASS0026 TH}"'
    out = redact_text(line)
    assert "FAKEPASS0025" not in out and "FAKEPASS0026" not in out
    assert out == f'    --model "${{MODEL_PA --password={MASK}  --api-key={MASK} TH}}"'
    assert redact_text('--model "org/name with spaces"') == '--model "org/name with spaces"'


def test_a_value_cut_for_a_message_is_masked_before_the_cut(tmp_path):
    """Fuzz seed 105, case 663: a model value of ten `s3://AKIAFAKE:FAKEPASS0027@b` words, cut to 60 characters for
    KV002's list of models: the cut took the second URL's `@`, so the output's last net no longer saw a credential
    and printed the secret. A value is masked before it is cut (an `hf_` token cut short of its length the same)."""
    from kvlint.findings import short

    long_value = " ".join(["s3://AKIAFAKE:FAKEPASS0027@b"] * 10)
    assert "FAKEPASS" not in short(long_value, 60) and short(long_value, 60).startswith("s3://***@b")
    token = "hf_" + "A" * 40
    assert token[:20] not in short("x" * 50 + token, 70)
    assert short("org/model", 60) == "org/model"
    script = tmp_path / "colon-default.sh"
    script.write_text(f': "${{MODEL_ID:= {long_value} Qwen/Qwen3-VL-2B}}"\n'
                      'vllm serve "$MODEL_ID" --port 8000 --max-model-len 4096\n')
    from kvlint.lint import LintOptions, lint

    result = lint([str(script)], LintOptions())
    assert result.findings and not any("FAKEPASS" in f.message for f in result.findings)


def test_a_model_id_taken_from_a_references_last_segments_holds_no_credential(tmp_path):
    """Fuzz seed 109, case 5791: an `args:` scalar of `s3://AKIAFAKE:FAKEPASS0027@b` words run into the list below it
    was read as one model reference; its last two path segments became the model id KV108 named, the secret with its
    `s3://` cut off, which the output's last net no longer saw. A candidate id never holds blanks or a
    `user:password@`; a revision pin (`Qwen/Qwen3-8B@0123abc`) still is one."""
    from kvlint.models.resolve import candidate_ids

    assert candidate_ids("s3://AKIAFAKE:FAKEPASS0027@b  s3://AKIAFAKE:FAKEPASS0027@b - --model - org/m - x") == []
    assert candidate_ids("Qwen/Qwen3-8B@0123abc") == ["Qwen/Qwen3-8B@0123abc"]
    manifest = tmp_path / "fleet.yaml"
    manifest.write_text("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: chat\nspec:\n  template:\n    spec:\n"
                        "      containers:\n        - name: vllm\n          image: vllm/vllm-openai:v0.33.0\n"
                        "          args: s3://AKIAFAKE:FAKEPASS0027@b  s3://AKIAFAKE:FAKEPASS0027@b\n"
                        "            - --model\n            - meta-llama/Llama-3.1-405B-Instruct\n"
                        "          resources:\n            limits:\n              nvidia.com/gpu: 1\n")
    from kvlint.lint import LintOptions, lint
    from kvlint.redact import redact_text

    result = lint([str(manifest)], LintOptions())
    assert result.findings and not any("FAKEPASS" in redact_text(f.message) for f in result.findings)
