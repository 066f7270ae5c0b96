"""`kvlint check` end to end: exit codes, suppression in every form, configuration, stdin, output."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from kvlint.cli import main

OVERSIZED = "vllm serve Qwen/Qwen2.5-32B-Instruct --max-model-len 32768\n"  # KV101 (+ KV301/KV302 info) on H100
TOO_MANY_SEQS = "vllm serve Qwen/Qwen2.5-14B-Instruct --max-model-len 32768 --max-num-seqs 64\n"  # KV103 only
K8S = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: chat
  annotations:
    kvlint.io/ignore: {ignore}
spec:
  template:
    spec:
      nodeSelector:
        nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.33.0
          args: ["vllm", "serve", "Qwen/Qwen2.5-14B-Instruct", "--max-model-len", "32768", "--max-num-seqs", "64"]
"""


@pytest.fixture
def repo(tmp_path, monkeypatch):
    (tmp_path / ".git").mkdir()
    (tmp_path / ".kvlint.yaml").write_text("gpu: H100-SXM-80GB\n")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def check(*args: str) -> tuple[int, dict]:
    out = Path("report.json")
    code = main(["check", *args, "--format", "json", "--output", str(out)])
    return code, json.loads(out.read_text()) if out.exists() else {}


def codes(doc: dict) -> list[str]:
    return [f["code"] for f in doc["findings"]]


def test_exit_codes_follow_fail_on(repo):
    (repo / "big.sh").write_text(OVERSIZED)
    (repo / "busy.sh").write_text(TOO_MANY_SEQS)
    assert check("big.sh")[0] == 1
    assert check("big.sh", "--exit-zero")[0] == 0
    code, doc = check("busy.sh")
    assert (code, codes(doc)) == (0, ["KV103"])  # an info does not fail by default
    assert check("busy.sh", "--fail-on", "warning")[0] == 0
    assert check("busy.sh", "--fail-on", "info")[0] == 1
    (repo / ".kvlint.yaml").write_text("gpu: H100-SXM-80GB\nfail-on: info\n")
    assert check("busy.sh")[0] == 1


def test_usage_and_input_errors(repo, capsys):
    assert main(["check", "missing.yaml"]) == 3
    assert main(["check", ".", "--select", "KV999"]) == 2
    assert main(["check", ".", "--config", "nope.yaml"]) == 2
    assert main(["check", ".", "--engine-version", "latest"]) == 2
    (repo / ".kvlint.yaml").write_text("gpu: H100\nselcet: [KV1]\n")
    assert main(["check", "."]) == 2
    err = capsys.readouterr().err
    assert ".kvlint.yaml:2: selcet: unknown key 'selcet'" in err and "Traceback" not in err


def test_select_ignore_and_severity(repo):
    (repo / "big.sh").write_text(OVERSIZED)
    assert set(codes(check("big.sh")[1])) == {"KV101", "KV301", "KV302"}
    assert codes(check("big.sh", "--select", "KV3")[1]) == ["KV301", "KV302"]
    assert codes(check("big.sh", "--ignore", "KV3,pool-below-one-request")[1]) == []
    (repo / ".kvlint.yaml").write_text("gpu: H100-SXM-80GB\nestimated-severity: {KV101: warning}\nignore: [KV3]\n")
    code, doc = check("big.sh")
    assert (code, [f["severity"] for f in doc["findings"]]) == (0, ["warning"])


def test_inline_suppression_and_unused(repo):
    (repo / "s.sh").write_text("# kvlint: ignore[KV103] chat prompts are short\n" + TOO_MANY_SEQS +
                               "# kvlint: ignore[KV101]\nvllm serve Qwen/Qwen3-8B --max-model-len 8192 --max-num-seqs 8\n")
    code, doc = check("s.sh")
    assert codes(doc) == [] and doc["summary"]["suppressed"] == 1
    code, doc = check("s.sh", "--show-unused-suppressions")
    assert [(f["code"], f["span"]["line"]) for f in doc["findings"]] == [("KV006", 3)]
    (repo / "d.sh").write_text("# kvlint: disable-file\n" + TOO_MANY_SEQS)
    assert codes(check("d.sh")[1]) == []


def test_annotation_and_per_path_ignores(repo):
    (repo / "a.yaml").write_text(K8S.format(ignore="KV103"))
    (repo / "b.yaml").write_text(K8S.format(ignore="KV101"))
    assert codes(check("a.yaml")[1]) == []
    assert codes(check("b.yaml")[1]) == ["KV103"]
    (repo / "vendor").mkdir()
    (repo / "vendor" / "busy.sh").write_text(TOO_MANY_SEQS)
    (repo / "busy.sh").write_text(TOO_MANY_SEQS)
    (repo / ".kvlint.yaml").write_text('gpu: H100-SXM-80GB\nper-path-ignores: {"vendor/**": [KV103]}\n'
                                       'exclude: ["b.yaml"]\n')
    doc = check(".")[1]
    assert sorted((Path(f["path"]).name, f["code"]) for f in doc["findings"]) == [("busy.sh", "KV103")]
    assert all("vendor" not in f["path"] for f in doc["findings"])


def test_gpu_precedence_and_memory(repo):
    (repo / "busy.sh").write_text(TOO_MANY_SEQS)
    small = check("busy.sh", "--gpu", "L40S")[1]["findings"][0]["data"]["kv_tokens"]
    big = check("busy.sh")[1]["findings"][0]["data"]["kv_tokens"]
    assert small < big
    (repo / ".kvlint.yaml").write_text("select: [KV003]\n")
    assert codes(check("busy.sh")[1]) == ["KV003"]
    assert codes(check("busy.sh", "--gpu-memory", "81559MiB")[1]) == []
    assert main(["check", "busy.sh", "--gpu-memory", "lots"]) == 2


def test_stdin(repo, monkeypatch):
    import io

    monkeypatch.setattr(sys, "stdin", io.StringIO(TOO_MANY_SEQS))
    code, doc = check("-", "--fail-on", "info")
    assert code == 1 and codes(doc) == ["KV103"]


def test_text_output_has_no_colour_off_tty(repo, capsys):
    (repo / "busy.sh").write_text(TOO_MANY_SEQS)
    assert main(["check", "busy.sh"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("busy.sh:1:") and " KV103 [info] " in out and "\x1b[" not in out


def test_force_color_colours_a_piped_report(repo, capsys, monkeypatch):
    (repo / "busy.sh").write_text(TOO_MANY_SEQS)
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("FORCE_COLOR", "1")
    assert main(["check", "busy.sh"]) == 0
    out = capsys.readouterr().out
    assert "\x1b[1mbusy.sh:1:" in out and "KV103" in out  # FORCE_COLOR turns colour on off a terminal (docs/ci.md)


def test_plain_run_does_not_import_jsonschema(tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / "x.sh").write_text(TOO_MANY_SEQS)
    code = ("import sys; from kvlint.cli import main; rc = main(['check', 'x.sh', '--gpu', 'H100']); "
            "print(rc, 'jsonschema' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, check=True)
    assert out.stdout.split()[-2:] == ["0", "False"]


def test_corpus_runs_without_traceback(shared_dir, tmp_path):
    out = tmp_path / "corpus.json"
    proc = subprocess.run([sys.executable, "-m", "kvlint", "check", str(shared_dir / "corpus"), "--format", "json",
                           "--output", str(out)], capture_output=True, text=True, timeout=600)
    assert "Traceback" not in proc.stderr and proc.returncode in (0, 1), proc.stderr[-2000:]
    doc = json.loads(out.read_text())
    assert doc["summary"]["files"] >= 60 and doc["summary"]["deployments"] >= 60


def test_private_model_override_gives_related_config_span(repo, shared_dir):
    import shutil

    (repo / "models").mkdir()
    shutil.copy(shared_dir / "models" / "Qwen" / "Qwen2.5-32B-Instruct" / "config.json", repo / "models" / "cfg.json")
    (repo / ".kvlint.yaml").write_text("gpu: H100-SXM-80GB\nselect: [KV0, KV101]\n"
                                       "models: {my-org/private-32b: models/cfg.json}\n")
    (repo / "p.sh").write_text("vllm serve my-org/private-32b --max-model-len 32768\n")
    code, doc = check("p.sh")
    [f] = doc["findings"]
    assert (code, f["code"]) == (1, "KV101")
    cfg_lines = (repo / "models" / "cfg.json").read_text().splitlines()
    want = next(i for i, line in enumerate(cfg_lines, start=1) if '"num_key_value_heads"' in line)
    [rel] = [r for r in f["related"] if r["span"]["path"].endswith("cfg.json")]
    assert rel["span"]["line"] == want and "num_key_value_heads" in rel["message"]


def test_a_crashing_rule_costs_a_note_not_the_run(repo, monkeypatch, capsys):
    from kvlint.registry import get_rule

    rule = get_rule("KV103")
    import kvlint.registry as registry

    broken = registry.Rule(**{**rule.__dict__, "check": lambda ctx: [1 / 0]})
    monkeypatch.setitem(registry._RULES, "KV103", broken)
    (repo / "busy.sh").write_text(TOO_MANY_SEQS)
    assert main(["check", "busy.sh"]) == 0
    err = capsys.readouterr().err
    assert "internal error in KV103 (ZeroDivisionError" in err and "Traceback" not in err


def test_a_file_no_launch_can_be_in_is_scanned_not_parsed(repo, monkeypatch):
    """Early exit: YAML that names no engine, model, GPU or sizing flag is not parsed (a broken one is quiet:
    it cannot hold a launch); one with any of those words is parsed and its error reported."""
    import kvlint.sources.yaml as ysrc

    parsed: list[str] = []
    real = ysrc.parse_yaml
    monkeypatch.setattr(ysrc, "parse_yaml", lambda path, text: parsed.append(path) or real(path, text))
    Path("ci.yaml").write_text("jobs: [\n  build: {\n")  # broken, and nothing a launch is written with
    Path("gpu.yaml").write_text("resources: {limits: {nvidia.com/gpu: [\n")
    code, doc = check(".")
    assert [p for p in parsed if not p.endswith(".kvlint.yaml")] == ["./gpu.yaml"]
    assert [(f["code"], Path(f["path"]).name) for f in doc["findings"]] == [("KV001", "gpu.yaml")]
    assert doc["summary"]["files"] == 2 and code == 1


def test_a_named_vllm_config_file_is_read_whatever_its_words(repo):
    Path(".kvlint.yaml").write_text("gpu: H100-SXM-80GB\nvllm-config-files: ['engine/*.yaml']\n")
    Path("engine").mkdir()
    Path("engine/flags.yaml").write_text("enforce-eager: true\nswap-space: 4\n")
    _, doc = check(".", "--engine-version", "0.33.0")
    assert "KV005" in codes(doc)  # --swap-space is gone from vLLM 0.33: the file was read as one
