"""Baseline round trip: write, re-run clean, move lines (still clean), add a bad file (only it fails),
fix a finding (it drops out on the next write); plus the file's shape and its failure modes."""

from __future__ import annotations

import json
import os
from pathlib import Path

import jsonschema
import pytest

from kvlint.baseline import Subject, fingerprint
from kvlint.cli import main
from kvlint.data import load_json

BAD = "#!/bin/sh\nvllm serve Qwen/Qwen2.5-32B-Instruct --max-model-len 32768\n"  # KV101, KV301, KV302 on H100
OTHER = "vllm serve meta-llama/Meta-Llama-3-8B --max-model-len 16384 --max-num-seqs 64\n"  # KV105, KV103
TWICE = "vllm serve Qwen/Qwen3-8B --max-model-len 32768 --max-num-seqs 512\n" * 2  # KV103 twice, same subject


@pytest.fixture
def repo(tmp_path, monkeypatch):
    (tmp_path / ".git").mkdir()
    (tmp_path / "deploy").mkdir()
    (tmp_path / "deploy" / "bad.sh").write_text(BAD)
    (tmp_path / "deploy" / "other.sh").write_text(OTHER)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def check(capsys, *args: str) -> tuple[int, list[dict], str]:
    """(exit code, findings of the JSON report, stderr) of `kvlint check --gpu H100 ARGS`."""
    code = main(["check", "--gpu", "H100", "--format", "json", *args])
    out, err = capsys.readouterr()
    return code, json.loads(out)["findings"] if out.strip() else [], err


def entries(path: Path) -> list[dict]:
    return json.loads(path.read_text())["entries"]


def test_round_trip(repo, capsys):
    code, before, _ = check(capsys, "deploy")
    assert code == 1 and {f["code"] for f in before} == {"KV101", "KV301", "KV302", "KV105", "KV103"}

    code, after, err = check(capsys, "deploy", "--write-baseline", "kvlint-baseline.json")
    assert code == 0 and after == []
    assert "wrote 5 findings to the baseline kvlint-baseline.json" in err
    assert len(entries(repo / "kvlint-baseline.json")) == 5

    code, again, err = check(capsys, "deploy", "--baseline", "kvlint-baseline.json")
    assert (code, again) == (0, []) and "5 findings in the baseline" in err

    bad = repo / "deploy" / "bad.sh"  # move every line down: matched by what, never by where
    bad.write_text("#!/bin/sh\n# sized for one H100\n\nset -e\n" + BAD.split("\n", 1)[1])
    code, moved, _ = check(capsys, "deploy", "--baseline", "kvlint-baseline.json")
    assert (code, moved) == (0, [])

    (repo / "deploy" / "new.sh").write_text(TWICE)
    code, new, _ = check(capsys, "deploy", "--baseline", "kvlint-baseline.json")
    assert code == 0  # KV103 is an info: below the default --fail-on
    assert {f["path"] for f in new} == {"deploy/new.sh"} and [f["code"] for f in new] == ["KV103", "KV103"]
    code, _, _ = check(capsys, "deploy", "--baseline", "kvlint-baseline.json", "--fail-on", "info")
    assert code == 1
    os.remove(repo / "deploy" / "new.sh")

    (repo / "deploy" / "other.sh").write_text(OTHER.replace("16384", "8192").replace("64", "16"))  # both fixed
    code, fixed, err = check(capsys, "deploy", "--baseline", "kvlint-baseline.json", "--show-unused-baseline")
    assert (code, fixed) == (0, [])
    unused = [line for line in err.splitlines() if "unused baseline entry" in line]
    assert len(unused) == 2 and all("deploy/other.sh" in line for line in unused)
    assert any("KV105" in line and "'16384'" in line for line in unused)

    check(capsys, "deploy", "--write-baseline", "kvlint-baseline.json")
    assert {(e["path"], e["code"]) for e in entries(repo / "kvlint-baseline.json")} == {
        ("deploy/bad.sh", "KV101"), ("deploy/bad.sh", "KV301"), ("deploy/bad.sh", "KV302")}


def test_file_is_sorted_schema_valid_and_stable(repo, capsys):
    (repo / "deploy" / "new.sh").write_text(TWICE)
    check(capsys, "deploy", "--write-baseline", "bl.json")
    first = (repo / "bl.json").read_bytes()
    doc = json.loads(first)
    jsonschema.validate(doc, load_json("baseline.schema.json"))
    assert doc["version"] == 1 and doc["tool"] == "kvlint"
    keys = [(e["path"], e["code"], e["fingerprint"]) for e in doc["entries"]]
    assert keys == sorted(keys)
    assert first.decode() == json.dumps(doc, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    twice = [e for e in doc["entries"] if e["path"] == "deploy/new.sh"]
    assert len(twice) == 1 and twice[0]["count"] == 2 and twice[0]["setting"] == "max_num_seqs"
    kv101 = next(e for e in doc["entries"] if e["code"] == "KV101")
    assert (kv101["model"], kv101["setting"], kv101["value"]) == ("Qwen/Qwen2.5-32B-Instruct", "max_model_len", "32768")
    assert kv101["fingerprint"] == fingerprint("KV101", Subject("", "Qwen/Qwen2.5-32B-Instruct", "max_model_len",
                                                                "32768"))
    check(capsys, "deploy", "--write-baseline", "bl.json")
    assert (repo / "bl.json").read_bytes() == first  # writing again changes nothing
    assert sorted(os.listdir(repo)) == [".git", "bl.json", "deploy"]  # no temporary file left behind


def test_a_third_identical_launch_is_new(repo, capsys):
    (repo / "deploy" / "new.sh").write_text(TWICE)
    check(capsys, "deploy", "--write-baseline", "bl.json")
    (repo / "deploy" / "new.sh").write_text(TWICE + TWICE.split("\n")[0] + "\n")
    code, found, _ = check(capsys, "deploy", "--baseline", "bl.json")
    assert [(f["code"], f["span"]["line"]) for f in found] == [("KV103", 3)]


def test_a_changed_value_or_model_is_a_new_finding(repo, capsys):
    check(capsys, "deploy", "--write-baseline", "bl.json")
    (repo / "deploy" / "bad.sh").write_text(BAD.replace("32768", "32769"))
    _, found, _ = check(capsys, "deploy", "--baseline", "bl.json")
    assert {f["code"] for f in found} == {"KV101", "KV301", "KV302"}
    (repo / "deploy" / "bad.sh").write_text(BAD.replace("Qwen2.5-32B-Instruct", "Qwen2.5-32B"))
    _, found, _ = check(capsys, "deploy", "--baseline", "bl.json")
    assert "KV101" in {f["code"] for f in found}


def test_writing_from_a_subset_keeps_the_rest(repo, capsys):
    check(capsys, "deploy", "--write-baseline", "bl.json")
    check(capsys, "deploy/bad.sh", "--write-baseline", "bl.json")  # other.sh not read: its entries stay
    assert {e["path"] for e in entries(repo / "bl.json")} == {"deploy/bad.sh", "deploy/other.sh"}
    check(capsys, "deploy", "--select", "KV1", "--write-baseline", "bl.json")  # KV3xx not run: kept
    assert {e["code"] for e in entries(repo / "bl.json")} == {"KV101", "KV103", "KV105", "KV301", "KV302"}
    os.remove(repo / "deploy" / "other.sh")  # a deleted file's entries go
    check(capsys, "deploy", "--write-baseline", "bl.json")
    assert {e["path"] for e in entries(repo / "bl.json")} == {"deploy/bad.sh"}


def test_paths_are_relative_to_the_baseline_file(repo, capsys, monkeypatch):
    check(capsys, "deploy", "--write-baseline", "bl.json")
    monkeypatch.chdir(repo / "deploy")  # another working directory, other spellings of the same files
    code, found, _ = check(capsys, ".", "--baseline", "../bl.json")
    assert (code, found) == (0, [])
    code, found, _ = check(capsys, str(repo / "deploy" / "bad.sh"), "--baseline", str(repo / "bl.json"))
    assert (code, found) == (0, [])


def test_config_key(repo, capsys):
    (repo / "known").mkdir()
    check(capsys, "deploy", "--write-baseline", "known/bl.json")
    (repo / ".kvlint.yaml").write_text("baseline: known/bl.json\n")
    code, found, err = check(capsys, "deploy")
    assert (code, found) == (0, []) and "known/bl.json" in err
    (repo / ".kvlint.yaml").write_text("baseline: missing.json\n")
    code, _, err = check(capsys, "deploy")
    assert code == 2 and "baseline file not found" in err and "Traceback" not in err
    code, found, _ = check(capsys, "deploy", "--baseline", "known/bl.json")  # the option wins
    assert (code, found) == (0, [])
    (repo / ".kvlint.yaml").write_text("baseline: ''\n")
    code, _, err = check(capsys, "deploy")
    assert code == 2 and "baseline" in err


@pytest.mark.parametrize("content", ["{not json", '{"version": 1, "tool": "eslint", "entries": []}', '[1, 2]',
                                     '{"version": 1, "tool": "kvlint", "entries": [{"path": "a", "code": "KV101"}]}'])
def test_foreign_file_is_a_usage_error_and_never_overwritten(repo, capsys, content):
    (repo / "bl.json").write_text(content)
    code, _, err = check(capsys, "deploy", "--baseline", "bl.json")
    assert code == 2 and err.startswith("kvlint: error:") and "not a kvlint baseline" in err
    code, _, err = check(capsys, "deploy", "--write-baseline", "bl.json")
    assert code == 2 and (repo / "bl.json").read_text() == content


def test_unwritable_destination_is_one_line(repo, capsys):
    code, _, err = check(capsys, "deploy", "--write-baseline", "no/such/dir/bl.json")
    assert code == 2 and err.startswith("kvlint: error: cannot write") and "Traceback" not in err


def test_two_writers_of_one_baseline_lose_no_entry(tmp_path, monkeypatch):
    """baseline-race.sh: two `--write-baseline` runs on one file lost one run's entries 9 times in 30 (each read
    the old file, merged, and replaced it). Writer A is held right after its read; B starts meanwhile and must
    wait for A's file, not merge into the one A read."""
    import threading
    import time

    from kvlint import baseline
    from kvlint.lint import LintOptions, lint

    for tree, n in (("ex", 0), ("ex2", 1)):
        (tmp_path / tree).mkdir()
        (tmp_path / tree / f"s{n}.sh").write_text(f"vllm serve Qwen/Qwen3-32B --max-model-len {131072 * (n + 2)}\n")
    target = str(tmp_path / "race.json")
    results = {t: lint([str(tmp_path / t)], LintOptions()) for t in ("ex", "ex2")}
    assert all(r.findings for r in results.values())
    loaded, go = threading.Event(), threading.Event()
    real_load = baseline.load

    def slow_load(path):
        got = real_load(path)
        if threading.current_thread().name == "A":
            loaded.set()
            go.wait(timeout=30)
        return got

    monkeypatch.setattr(baseline, "load", slow_load)
    (tmp_path / "race.json").write_text(baseline.document([]))

    def writer(tree):
        r = results[tree]
        baseline.write(target, r.findings, r, r.files)

    a = threading.Thread(target=writer, args=("ex",), name="A")
    b = threading.Thread(target=writer, args=("ex2",), name="B")
    a.start()
    assert loaded.wait(timeout=30)
    b.start()
    time.sleep(0.3)  # lets B reach its read while A holds the file it read (not a timing assertion)
    go.set()
    a.join(timeout=60)
    b.join(timeout=60)
    paths = {e["path"] for e in json.loads((tmp_path / "race.json").read_text())["entries"]}
    assert paths == {"ex/s0.sh", "ex2/s1.sh"}


def test_many_unknown_flags_on_one_launch_cost_linear_work(tmp_path, monkeypatch):
    """bad_input.py's '10,000 unknown flags' row took 54 s: each finding's setting was looked up by comparing its
    span with every unknown flag. Bounded on this thread's CPU time, generously, by this test itself: reading the
    file takes about 1 s, so the per-file budget (1 s by default) is lifted, or a busy machine measures the
    budget's cut-off (a KV001) instead of the work."""
    import time

    monkeypatch.setenv("KVLINT_FILE_SECONDS", "10")

    from kvlint.baseline import about
    from kvlint.lint import LintOptions, lint

    (tmp_path / "uf.sh").write_text("vllm serve m " + "--xx-yy 1 " * 6000 + "\n")
    started = time.thread_time()
    result = lint([str(tmp_path / "uf.sh")], LintOptions())  # each finding's origin names its setting here
    settings = {about(f, result).setting for f in result.findings if f.code == "KV004"}
    assert time.thread_time() - started < 6  # now about 1 s; before, 11 s
    assert len(result.findings) >= 6000 and settings == {"--xx-yy"}
