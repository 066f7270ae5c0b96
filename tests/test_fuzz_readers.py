"""Hostile values in real manifests: every reader answers with a finding or a clean skip, never an internal error.

Hypothesis takes a manifest from examples/ and replaces one node with a value a reader does not expect
(a mapping where a string was, an integer of 5,000 digits, 1e999, Unicode digits, a 300-character model
name, a deep list) or splices hostile text into it, then runs the whole `kvlint check` pipeline on it.
An "internal error" is what lint() reports when a reader or a rule raised: it must never appear.
bench/fuzz_manifests.py does the same on 20,000 cases.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kvlint.lint import LintOptions, lint
from kvlint.sources.yaml import YNode

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
SEEDS = sorted(p for p in EXAMPLES.rglob("*") if p.suffix in (".yaml", ".yml", ".sh") and not p.name.startswith("."))

_hostile = st.one_of(
    st.sampled_from([{"a": "b"}, ["x", {"y": 1}], None, True, 2**63, int("9" * 400), "9" * 5000, "²", "٣", "1e999",
                     "a" * 300, "/".join(["c" * 200] * 30), "${A:-${B}}", "$(X)", "{{ .V }}", [[[[[[[[1]]]]]]]]]),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=40),
    st.lists(st.integers(), max_size=3),
    st.dictionaries(st.text(max_size=5), st.integers(), max_size=3),
)
_snippets = st.sampled_from(["{{", "${", "$(", '"', "'", "\\", "\t", "&a ", "*a", "- ", ": ", "#", "\n", "<<EOF\n",
                             "9" * 5000, " --max-model-len ", "\x00", "\r\n", "---\n"])


def _paths(data, prefix=()):
    out = [prefix]
    if isinstance(data, dict):
        for k, v in data.items():
            out += _paths(v, prefix + (k,))
    elif isinstance(data, list):
        for i, v in enumerate(data):
            out += _paths(v, prefix + (i,))
    return out


def _replaced(text: str, pick: int, value) -> str | None:
    try:
        docs = list(yaml.safe_load_all(text))
    except yaml.YAMLError:
        return None
    if not docs:
        return None
    doc_index = pick % len(docs)
    paths = _paths(docs[doc_index])
    path = paths[(pick // len(docs)) % len(paths)]
    if not path:
        docs[doc_index] = value
    else:
        node = docs[doc_index]
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value
    return yaml.safe_dump_all(docs, sort_keys=False, width=10**6)


def _internal_errors(tmp_path: Path, name: str, text: str) -> list[str]:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    result = lint([str(path)], LintOptions())
    return [r for _, r in result.unreadable if "internal error" in r] + [n for n in result.notes if "internal error" in n]


@pytest.fixture(scope="module")
def seed_texts() -> list[tuple[str, str]]:
    if not SEEDS:
        pytest.skip("no examples/ beside the tests")
    return [(p.name, p.read_text(encoding="utf-8")) for p in SEEDS]


@settings(max_examples=120, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(min_value=0), pick=st.integers(min_value=0, max_value=10**6), value=_hostile)
def test_a_hostile_value_anywhere_in_a_manifest_is_never_an_internal_error(tmp_path_factory, seed_texts, seed,
                                                                         pick, value):
    name, text = seed_texts[seed % len(seed_texts)]
    if not name.endswith((".yaml", ".yml")):
        name, text = next((n, t) for n, t in seed_texts if n.endswith((".yaml", ".yml")))
    mutated = _replaced(text, pick, value)
    if mutated is None:
        return
    assert _internal_errors(tmp_path_factory.mktemp("fuzz"), name, mutated) == []


@settings(max_examples=120, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(min_value=0), at=st.floats(min_value=0, max_value=1), snippet=_snippets,
       times=st.sampled_from([1, 2, 50]))
def test_hostile_text_spliced_into_a_manifest_is_never_an_internal_error(tmp_path_factory, seed_texts, seed, at,
                                                                        snippet, times):
    name, text = seed_texts[seed % len(seed_texts)]
    cut = int(at * len(text))
    assert _internal_errors(tmp_path_factory.mktemp("fuzz"), name, text[:cut] + snippet * times + text[cut:]) == []


@pytest.mark.parametrize("name,text,expect", [
    # `command:` as a mapping: AttributeError in the Kubernetes reader, the whole file lost
    ("pod.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: x}\nspec:\n  containers:\n  - name: c\n"
                 "    command: {a: b}\n    args: [vllm, serve, org/m]\n", "org/m"),
    # a 5,000-digit GPU count: ValueError (Python's int conversion limit)
    ("pod.yaml", "apiVersion: v1\nkind: Pod\nspec:\n  containers:\n  - name: c\n    args: [--model, org/m, --max-model-len, '4096']\n"
                 f"    resources: {{limits: {{nvidia.com/gpu: {'9' * 5000}}}}}\n", "org/m"),
    # a GPU count in Unicode digits: isdigit() is true, int() raises
    ("pod.yaml", "apiVersion: v1\nkind: Pod\nspec:\n  containers:\n  - name: c\n    args: [--model, org/m, --max-model-len, '4096']\n"
                 "    resources: {limits: {nvidia.com/gpu: '²'}}\n", "org/m"),
    ("job.slurm", f"#!/bin/bash\n#SBATCH --gres=gpu:{'9' * 5000}\n#SBATCH -N²\nvllm serve org/m\n", "org/m"),
    ("sky.yaml", f"resources:\n  accelerators: H100:{'9' * 5000}\nrun: vllm serve org/m\n", "org/m"),
])
def test_reader_crash_repros_read_the_launch(tmp_path, name, text, expect):
    from kvlint.launches import read_path

    assert _internal_errors(tmp_path, name, text) == []
    assert [d.model for d in read_path(str(tmp_path / name)).deployments] == [expect]


def test_a_gpu_count_that_is_no_count_is_unknown_not_an_error(tmp_path):
    from kvlint.launches import read_path

    (tmp_path / "pod.yaml").write_text("apiVersion: v1\nkind: Pod\nspec:\n  containers:\n  - name: c\n"
                                       "    args: [--model, org/m, --max-model-len, '4096']\n    resources: {limits: {nvidia.com/gpu: '²'}}\n")
    (dep,) = read_path(str(tmp_path / "pod.yaml")).deployments
    assert dep.gpu_count is None


@pytest.mark.parametrize("where", ["flag", "chart"])
def test_a_huge_max_model_len_is_a_finding_not_a_skipped_rule(tmp_path, capsys, where):
    from kvlint.cli import main

    huge = "9" * 400
    if where == "flag":
        text = ("apiVersion: v1\nkind: Pod\nspec:\n  containers:\n  - name: c\n"
                f"    args: [--model, Qwen/Qwen3-8B, --max-model-len, '{huge}']\n    resources: {{limits: {{nvidia.com/gpu: 1}}}}\n")
    else:
        text = f"servingEngineSpec:\n  modelSpec:\n  - name: m\n    modelURL: Qwen/Qwen3-8B\n    requestGPU: 1\n" \
               f"    vllmConfig:\n      maxModelLen: {huge}\n"
    (tmp_path / "deploy.yaml").write_text(text)
    main(["check", "--gpu", "H100", "--format", "json", str(tmp_path / "deploy.yaml")])
    report = json.loads(capsys.readouterr().out)
    assert [f["code"] for f in report["findings"]] == ["KV007"]
    assert not [n for n in report["notes"] if "internal error" in n or "skipped" in n]


def test_a_model_name_no_file_system_can_hold_is_kv002(tmp_path, capsys):
    from kvlint.cli import main

    (tmp_path / "serve.sh").write_text("vllm serve " + "/".join(["c" * 200] * 30) + " --max-model-len 4096\n")
    main(["check", "--gpu", "H100", "--format", "json", str(tmp_path / "serve.sh")])
    report = json.loads(capsys.readouterr().out)
    (kv002,) = [f for f in report["findings"] if f["code"] == "KV002"]
    assert "cannot be looked up on this machine" in kv002["message"] and "internal error" not in kv002["message"]


def test_an_unreadable_hf_cache_is_kv002(tmp_path, capsys, monkeypatch):
    from kvlint.cli import main
    from kvlint.models.resolve import clear_cache

    cache = tmp_path / "hub"
    cache.mkdir()
    monkeypatch.setenv("HF_HUB_CACHE", str(cache))
    real = Path.iterdir

    def iterdir(self):
        if self == cache:  # what a cache folder without read permission does (root ignores chmod in CI)
            raise PermissionError(13, "Permission denied", str(self))
        return real(self)

    monkeypatch.setattr(Path, "iterdir", iterdir)
    clear_cache()
    (tmp_path / "serve.sh").write_text("vllm serve org/not-bundled --max-model-len 4096\n")
    main(["check", "--gpu", "H100", "--format", "json", str(tmp_path / "serve.sh")])
    report = json.loads(capsys.readouterr().out)
    (kv002,) = [f for f in report["findings"] if f["code"] == "KV002"]
    assert "Permission denied" in kv002["message"]
    clear_cache()


def test_ynode_elements_are_a_sequences_items_only():
    from kvlint.sources.yaml import parse_yaml

    doc = parse_yaml("x.yaml", "m: {a: b}\ns: [1, 2]\nv: 3\n").docs[0]
    assert [e.value for e in doc.get("s").elements] == [1, 2]
    assert doc.get("m").elements == () and doc.get("v").elements == ()
    assert isinstance(doc.get("s").elements[0], YNode)


def test_budget_with_a_model_name_no_file_system_can_hold_is_a_clean_error(capsys):
    from kvlint.cli import main

    assert main(["budget", "--", "vllm", "serve", "/".join(["c" * 200] * 30)]) == 2
    err = capsys.readouterr().err
    assert "cannot be looked up on this machine" in err and "internal error" not in err and len(err) < 400
