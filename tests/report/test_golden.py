"""One set of findings through every reporter, compared with committed golden files.

Regenerate after an intended format change with KVLINT_UPDATE_GOLDEN=1 and review the diff.
"""

from __future__ import annotations

import json
import os
from importlib import resources
from pathlib import Path

import pytest

from kvlint.findings import Finding, Related, Severity
from kvlint.lint import LintResult
from kvlint.report import FORMATS, render
from kvlint.span import Span
from kvlint.status import CardVerdict, LaunchStatus, Sweep

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
SAMPLE = "tests/golden/values.yaml"
EXT = {"text": "txt", "json": "json", "sarif": "sarif", "github": "txt", "gitlab": "json", "html": "html",
       "concise": "txt", "junit": "xml"}


def sample_result() -> LintResult:
    text = (GOLDEN / "values.yaml").read_text(encoding="utf-8")
    findings = [
        Finding("KV101", "pool-below-one-request", Severity.ERROR,
                "max_model_len 131072 needs 16.00 GiB of KV cache per rank; the pool holds 6.23 GiB (25,512 tokens) "
                "on H100-SXM-80GB (weights 30.5 GiB, non-KV 6.0 GiB est.). vLLM refuses to start. "
                "Fits: --max-model-len 25504, or --kv-cache-dtype fp8 (51,024 tokens).",
                Span(SAMPLE, 7, 22, 7, 28),
                related=(Related(Span(SAMPLE, 8, 29, 8, 30), "splits KV heads and weights across ranks"),),
                fix="--max-model-len 25504", estimated=True, path=SAMPLE, data={"kv_tokens": 25512}),
        Finding("KV204", "gpu-count-mismatch", Severity.ERROR,
                "-tp 2 needs 2 GPU(s) per instance but the instance requests 1: the engine cannot start all its "
                "ranks", Span(SAMPLE, 8, 29, 8, 30),
                related=(Related(Span(SAMPLE, 5, 19, 5, 20), "requests 1 GPU(s)"),), fix="request 2 GPU(s)",
                path=SAMPLE),
        Finding("KV103", "concurrency-exceeds-pool", Severity.WARNING,
                "max_num_seqs 256 x max_model_len 131,072 = 33,554,432 tokens, but the KV pool holds 25,512 tokens: "
                "only 0.19 full-length requests fit at once, 100% of slots, 50,000 tokens",
                Span(SAMPLE, 9, 35, 9, 40), fix="--max-num-seqs 1", path=SAMPLE),
        Finding("KV003", "unknown-gpu", Severity.INFO, "no GPU product declared; capacity rules skipped",
                None, path="other.yaml"),
    ]
    findings.sort(key=lambda f: f.sort_key)
    launches = [
        LaunchStatus(SAMPLE, Span(SAMPLE, 6, 5, 6, 9), "vllm", "chat", "Qwen/Qwen3-8B", "bundled", "H100-SXM-80GB",
                     "manifest", "evaluated", engine_version="0.33.0", kv_tokens=25512, max_concurrency=0.19,
                     fits_one_request=False),
        LaunchStatus("other.yaml", Span("other.yaml", 3, 7, 3, 11), "sglang", "", "Qwen/Qwen3-8B", "bundled", None,
                     "catalogue", "evaluated", engine_version="0.5.23",
                     sweep=Sweep(20 * 2**30, None, (CardVerdict("L4-24GB", 23034 * 2**20, True, None, 24),
                                                    CardVerdict("T4-16GB", 15360 * 2**20, False, None, 16)))),
        LaunchStatus("other.yaml", Span("other.yaml", 9, 7, 9, 11), "vllm", "", "{{ .Values.model }}", None, None,
                     None, "skipped", skipped_because="the model is {{ .Values.model }}, an unresolved expression",
                     skip_kind="unresolved-model", engine_version="0.33.0"),
    ]
    return LintResult(findings=findings, files=[SAMPLE, "other.yaml"], deployments=3, suppressed=1,
                      texts={SAMPLE: text}, launches=launches)


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_golden(fmt):
    out = render(fmt, sample_result())
    path = GOLDEN / f"check.{fmt}.{EXT[fmt]}"
    if os.environ.get("KVLINT_UPDATE_GOLDEN"):
        path.write_text(out, encoding="utf-8")
    assert out == path.read_text(encoding="utf-8")


def test_text_frame_points_at_the_value():
    out = render("text", sample_result()).splitlines()
    i = out.index(next(l for l in out if l.startswith(f"{SAMPLE}:7:22: KV101 [error] ")))
    assert out[i + 2].endswith("maxModelLen: 131072")
    caret_line = out[i + 3]
    assert caret_line.index("^") - caret_line.index("|") - 2 == 21 and caret_line.count("^") == 6


def test_color_only_when_asked():
    assert "\x1b[" not in render("text", sample_result())
    assert "\x1b[" in render("text", sample_result(), color=True)


def test_json_validates_against_own_schema():
    import jsonschema

    schema = json.loads(resources.files("kvlint.data").joinpath("report.schema.json").read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    doc = json.loads(render("json", sample_result()))
    jsonschema.validate(doc, schema)
    assert doc["summary"]["error"] == 2 and doc["findings"][1]["span"]["line"] == 7
    assert doc["findings"][0]["span"] is None and doc["findings"][1]["estimated"] is True


def test_sarif_validates_against_sarif_schema(shared_dir):
    import jsonschema

    schema = json.loads((shared_dir / "schemas" / "sarif-schema-2.1.0.json").read_text())
    doc = json.loads(render("sarif", sample_result()))
    jsonschema.validate(doc, schema)
    run = doc["runs"][0]
    ids = [r["id"] for r in run["tool"]["driver"]["rules"]]
    for res in run["results"]:
        assert ids[res["ruleIndex"]] == res["ruleId"]
    kv101 = next(r for r in run["results"] if r["ruleId"] == "KV101")
    assert kv101["locations"][0]["physicalLocation"]["region"] == {"startLine": 7, "startColumn": 22,
                                                                    "endLine": 7, "endColumn": 28}
    assert kv101["relatedLocations"][0]["physicalLocation"]["region"]["startLine"] == 8


def test_github_escapes_and_levels():
    lines = render("github", sample_result()).splitlines()
    assert lines[0].startswith("::notice file=other.yaml,title=KV003::")
    kv103 = next(l for l in lines if "title=KV103" in l)
    assert kv103.startswith(f"::warning file={SAMPLE},line=9,col=35,endLine=9,endColumn=39,title=KV103::")
    assert "100%25 of slots" in kv103 and "\n" not in kv103
