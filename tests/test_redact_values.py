"""Credentials known by their value, not their name (secret-in-baseline.sh, secret-inspect.yaml,
redact-eats-docs-line.sh): URL user:password, `s3://KEY:SECRET@`, `Authorization: Bearer`, `--password=X`,
through every format, inspect, budget, the baseline file, and the text frame when its window cuts a flag's
name off. Every secret below is fake."""

from __future__ import annotations

import json
import shutil

import pytest

from kvlint.redact import redact_text
from tests.test_redact import _run

SCRIPT = (
    "vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 4096 --bogus https://u:FAKEPASS0017@h.example.com "
    "--ssl-keyfile-password FAKEPASS0018 --aws-secret wJalrFAKEFAKEFAKE0019 --foo-key FAKEKEY0020 "
    "--password=FAKEPASS0021\n"
    "vllm serve https://fakeuser:FAKEPASS0014@host.example.com/Qwen/Qwen2.5-7B-Instruct --max-model-len 999999 "
    '--unknown-flag "Bearer FAKEBEARER0016abc"\n'
)
POD = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: v}
spec:
  template:
    spec:
      containers:
      - name: vllm
        image: vllm/vllm-openai:v0.8.5
        command: ["vllm", "serve", "Qwen/Qwen2.5-7B-Instruct"]
        args: ["--served-model-name", "https://fakeuser:FAKEPASS0007@host.example.com/x",
               "--download-dir", "s3://AKIAFAKEFAKEFAKE0008:wJalrFAKEFAKEFAKE0008@bucket",
               "--middleware", "Authorization: Bearer FAKEBEARER0009abc"]
"""
SECRETS = ("FAKEPASS", "FAKEKEY", "FAKEBEARER", "FAKEFAKEFAKE")


@pytest.fixture
def tree(tmp_path, monkeypatch):
    (tmp_path / ".git").mkdir()
    monkeypatch.chdir(tmp_path)
    (tmp_path / "serve.sh").write_text(SCRIPT)
    (tmp_path / "pod.yaml").write_text(POD)
    return tmp_path


def _leaks(text: str) -> list[str]:
    return [s for s in SECRETS if s in text]


@pytest.mark.parametrize("fmt", ["text", "json", "sarif", "html", "github", "gitlab"])
def test_check_shows_no_value_credential(tree, capsys, fmt):
    out = _run(capsys, "check", "--format", fmt, "--gpu", "H100", "serve.sh", "pod.yaml")
    assert "KV004" in out or "--bogus" in out
    assert _leaks(out) == []


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_inspect_and_budget_show_no_value_credential(tree, capsys, fmt):
    out = _run(capsys, "inspect", "--format", fmt, "serve.sh", "pod.yaml")
    assert "bucket" in out and "host.example.com" in out
    assert _leaks(out) == []
    out = _run(capsys, "budget", "--format", fmt, "--gpu", "H100", "pod.yaml")
    assert _leaks(out) == []


def test_the_baseline_keeps_no_credential_and_still_matches(tree, capsys):
    _run(capsys, "check", "--gpu", "H100", "--write-baseline", "b.json", "serve.sh")
    text = (tree / "b.json").read_text()
    assert json.loads(text)["entries"] and _leaks(text) == []
    out = _run(capsys, "check", "--gpu", "H100", "--baseline", "b.json", "serve.sh")
    assert "No findings" in out


def test_an_old_baseline_with_raw_text_still_matches(tree, capsys):
    """Baselines written before kept the raw value; their fingerprints are those of the raw subject."""
    _run(capsys, "check", "--gpu", "H100", "--write-baseline", "b.json", "serve.sh")
    data = json.loads((tree / "b.json").read_text())
    for e in data["entries"]:
        e["value"] = "--password=FAKEPASS0021" if e["value"] == "--password=***" else e["value"]
    (tree / "b.json").write_text(json.dumps(data))
    assert "No findings" in _run(capsys, "check", "--gpu", "H100", "--baseline", "b.json", "serve.sh")


def test_a_frame_cut_before_a_flag_name_shows_no_value(tree, capsys):
    out = _run(capsys, "check", "--gpu", "H100", "serve.sh")
    frames = [line for line in out.splitlines() if line.startswith("1 | ...")]
    assert frames and _leaks(out) == []
    # the carets stay under the flagged flag once the masks shortened the line before it
    lines = out.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("1 | ") and "^" in lines[i + 1]:
            col = lines[i + 1].index("^")
            flagged = [w for w in ("--bogus", "--aws-secret", "--foo-key", "--password", "--ssl-keyfile-password")
                       if line[col:].startswith(w)]
            assert flagged, (line, lines[i + 1])


def test_a_file_named_secret_keeps_its_place(tree, capsys):
    shutil.copy(tree / "serve.sh", tree / "secret-in-baseline.sh")
    out = _run(capsys, "check", "--gpu", "H100", "secret-in-baseline.sh")
    assert "secret-in-baseline.sh:1:" in out


@pytest.mark.parametrize(("text", "shown"), [
    ("http://fakeuser:FAKEPASS0024@127.0.0.1:1 did not answer", "http://***@127.0.0.1:1 did not answer"),
    ("s3://AKIAFAKE:wJalrFAKE@bucket/x", "s3://***@bucket/x"),
    ("Authorization: Bearer FAKEBEARER0009abc", "Authorization: Bearer ***"),
    ('"Authorization": "Basic dXNlcjpwYXNz"', '"Authorization": "Basic ***"'),
    ("git@github.com:org/repo and https://huggingface.co/org/m", "git@github.com:org/repo and https://huggingface.co/org/m"),
    ("a basic check of 16384 tokens", "a basic check of 16384 tokens"),
])
def test_value_shapes(text, shown):
    assert redact_text(text) == shown


def test_redaction_stops_at_the_line_end():
    """redact-eats-docs-line.sh: `--api-key` at a line's end took the next line's `= docs:` for its value."""
    text = "   = fix: use --api-key\n   = docs: kvlint rule KV004\napi_key:\n  other: 1"
    assert redact_text(text) == text


def test_the_docs_line_after_a_credential_flag_fix_is_kept(tree, capsys):
    (tree / "k.sh").write_text("vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 4096 --apikey FAKE\n")
    out = _run(capsys, "check", "--gpu", "H100", "k.sh")
    assert "= fix: use --api-key\n   = docs: kvlint rule KV004" in out


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_verify_shows_no_value_credential_of_the_log(tree, capsys, fmt):
    from pathlib import Path

    log = (Path(__file__).resolve().parent / "fixtures" / "logs" / "vllm033_tp2.log").read_text().replace(
        "'gpu_memory_utilization': 0.9}", "'gpu_memory_utilization': 0.9, 'download_dir': "
        "'s3://AKIAFAKE:FAKEPASS0030@bucket', 'middleware': 'Authorization: Bearer FAKEBEARER31abc'}")
    (tree / "start.log").write_text(log + "\nERROR fetch https://u:FAKEPASS0032@h.example/x failed\n")
    out = _run(capsys, "verify", "--format", fmt, "--report", "cmp.json", "start.log")
    assert out and _leaks(out) == [] and _leaks((tree / "cmp.json").read_text()) == []


def _redactions(monkeypatch) -> list[int]:
    """The length of every text kvlint.redact.redact_text is asked to mask, as the run goes. The per-file time
    budget is lifted: these tests are about the redaction's reach, and on a busy machine the 1 s of CPU such a
    file takes ran out first (the file became one KV001)."""
    import kvlint.redact

    seen: list[int] = []
    real = kvlint.redact.redact_text

    def counting(text):
        seen.append(len(text))
        return real(text)

    monkeypatch.setattr(kvlint.redact, "redact_text", counting)
    monkeypatch.setenv("KVLINT_FILE_SECONDS", "30")
    return seen


def test_a_long_line_is_redacted_around_each_window_not_whole_per_finding(tree, capsys, monkeypatch):
    """A 25 KB line with 2,000 unknown flags (a fuzz mutant) took 7 s of CPU when every finding's frame redacted
    the whole line; each frame now redacts the few hundred characters around its window. A secret whose value
    runs long before a window is still masked."""
    flags = " ".join("--bogus-flag 1" for _ in range(1000))
    (tree / "long.sh").write_text(f"vllm serve Qwen/Qwen2.5-7B-Instruct --api-key {'S' * 400}FAKEKEY0099 {flags}\n")
    seen = _redactions(monkeypatch)
    out = _run(capsys, "check", "--gpu", "H100", "long.sh")
    findings = out.count("KV004")
    assert findings >= 1000 and _leaks(out) == [] and "SSSS" not in out
    assert sum(seen) < 5_000 * findings  # before: the whole line (about 15,000 characters here) three times per finding


def test_a_long_line_without_spaces_is_not_one_word_per_finding(tree, capsys, monkeypatch):
    """A PowerShell array of 20,000 unknown flags on one line with no space: widening the window to whole words
    took the whole 120 KB line for each of 4,096 findings (9 s); the reach past the window is bounded."""
    (tree / "run.ps1").write_text('$a = @(' + '"--x",' * 20000 + ')\nvllm serve Qwen/Qwen2.5-7B-Instruct $a\n')
    seen = _redactions(monkeypatch)
    out = _run(capsys, "check", "--gpu", "H100", "run.ps1")
    findings = out.count("KV004")
    assert findings >= 1000 and max(seen) < 10_000  # before: 120,000 characters per finding
