"""kvlint.lock's text, byte for byte, and every message a broken lock gives (issue O item 9: lock.py's mutants)."""

from __future__ import annotations

import os

import pytest

from kvlint.models.lock import HEADER, LockEntry, LockError, digest_of, load, parse, render, spec_of
from kvlint.models.lockpath import lock_dir, lock_path_for

ENTRIES = [
    LockEntry(id="b/model", source="hub", config={"z": None, "a": {"y": 1, "x": [1, 2]}, "é": "ü"},
              revision="f" * 40, names=("b/model", "/data/b"), files={"quantize_config.json": "sha256:01",
                                                                      "config.json": "sha256:00"},
              hf_quant_config={"quantization": {"quant_algo": "FP8"}}),
    LockEntry(id="B/model", source="bundled", config={"hidden_size": 8}),
    LockEntry(id="a/model", source="local", config={"n": 1}, digest="sha256:kept"),
]
TEXT = HEADER + """lock-version = 1

[model "a/model"]
source = "local"
revision = null
names = []
config.n = 1
digest = "sha256:kept"

[model "B/model"]
source = "bundled"
revision = null
names = []
config.hidden_size = 8
digest = "{B}"

[model "b/model"]
source = "hub"
revision = "ffffffffffffffffffffffffffffffffffffffff"
names = ["/data/b", "b/model"]
file.config.json = "sha256:00"
file.quantize_config.json = "sha256:01"
hf_quant_config = {"quantization": {"quant_algo": "FP8"}}
config.a = {"x": [1, 2], "y": 1}
config.z = null
config.é = "ü"
digest = "{b}"
"""


def test_the_text_is_pinned_byte_for_byte_and_reads_back():
    want = TEXT.replace("{B}", digest_of(ENTRIES[1])).replace("{b}", digest_of(ENTRIES[0]))
    assert render(ENTRIES) == want
    lock = parse(want, "x/kvlint.lock")
    assert [(e.id, e.line, e.edited) for e in lock.entries] == [("a/model", 6, True), ("B/model", 13, False),
                                                                ("b/model", 20, False)]
    b = lock.entries[2]
    assert (b.config, b.files, b.names, b.revision, b.hf_quant_config) == (
        ENTRIES[0].config, ENTRIES[0].files, ("/data/b", "b/model"), "f" * 40, ENTRIES[0].hf_quant_config)
    assert render(lock.entries) == want  # kept digests stay, edited or not
    assert digest_of(ENTRIES[0]) == "sha256:" + __import__("hashlib").sha256(
        want.split("\n\n")[3].rsplit("digest", 1)[0].encode()).hexdigest()


def test_spec_of_names_the_lock_and_the_revision():
    assert spec_of(LockEntry(id="o/m", source="hub", revision="0123456789abcdef" * 2 + "01234567",
                             config=_LLAMA)).source == "lock:o/m@0123456789ab"
    assert spec_of(LockEntry(id="o/m", source="hf-cache", config=_LLAMA)).source == "lock:o/m (hf-cache)"
    quant = spec_of(LockEntry(id="o/m", source="hub", config=_LLAMA,
                              hf_quant_config={"quantization": {"quant_algo": "NVFP4", "group_size": 16}}))
    assert (quant.quant.method, quant.quant.bits, quant.quant.group_size) == ("modelopt", 4, 16)


_LLAMA = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 256, "num_hidden_layers": 2,
          "num_attention_heads": 4, "intermediate_size": 512, "vocab_size": 1000}


@pytest.mark.parametrize(("text", "message"), [
    ("model = 1\n", "L:1: only `lock-version = 1` may come before the first model"),
    ("lock-version = 2\n", "L:1: only `lock-version = 1` may come before the first model"),
    ("\n# c\nlock-version = 1\nnot a line\n", "L:4: expected `[model \"<id>\"]` or `key = <JSON value>`, got "
                                              "'not a line'"),
    ("lock-version = 1\n[model \"x/y\"]\nsource = \"hub\"\nconfig.a = {\n", "L:4: the value is not JSON "
                                                                              "(Expecting property name enclosed in "
                                                                              "double quotes)"),
    ("[model \"x/y\"]\nsource = \"hub\"\n", "L:1: a model block needs an id, `source` and `config.*` lines"),
    ("[model \"\"]\nsource = \"hub\"\nconfig.a = 1\n", "L:1: a model block needs an id"),
    ("[model \"x/y\"]\nsource = 3\nconfig.a = 1\n", "L:1: a model block needs an id"),
    ("[model \"x/y\"]\nsource = \"hub\"\nconfig.a = 1\nconfig.a = 2\n", "L:4: config.a is given twice in the "
                                                                          "block of x/y"),
    ("[model \"x/y\"]\nsource = \"hub\"\nconfig.a = 1\nweights = 1\n", "L:4: unknown key 'weights' in the block of "
                                                                          "x/y"),
    ("[model \"x/y\"]\nsource = \"hub\"\nconfig.a = 1\nnames = \"x/y\"\n", "L:1: `names` must be a list of strings"),
    ("[model \"x/y\"]\nsource = \"hub\"\nconfig.a = 1\nnames = [1]\n", "L:1: `names` must be a list of strings"),
    ("[model \"x/y\"]\nsource = \"hub\"\nconfig.a = 1\nrevision = 1\n", "L:1: `names` must be a list of strings"),
    ("[model \"x/y\"]\nsource = \"hub\"\nconfig.a = 1\nhf_quant_config = []\n", "L:1: `names` must be"),
    ("[model \"x/y\"]\nsource = \"hub\"\nconfig.a = 1\n[model \"z\"]\nsource = \"hub\"\n",
     "L:4: a model block needs an id"),
])
def test_a_broken_lock_names_its_line_and_what_is_wrong(text, message):
    with pytest.raises(LockError) as caught:
        parse(text, "L")
    assert caught.value.message.startswith(message), caught.value.message


def test_a_good_lock_with_nulls_and_comments_reads():
    lock = parse("# a\n\nlock-version = 1\n[model \"x/y\"]\nsource = \"hub\"\nrevision = null\nnames = []\n"
                 "hf_quant_config = null\nconfig.a = 1\nfile.config.json = 5\n", "L")
    [e] = lock.entries
    assert (e.revision, e.hf_quant_config, e.files, e.digest, e.line) == (None, None, {"config.json": "5"}, "", 4)


def test_find_by_name_then_id_then_other_names():
    lock = parse(render([LockEntry(id="Org/Model-7B", source="hub", config={"x": 1}, names=("/data/m", " spaced ")),
                         LockEntry(id="Org/Other", source="hub", config={"x": 1}, names=("Org/Model-7B@v2",))]))
    assert lock.find("Org/Model-7B@v2").id == "Org/Other"  # a pinned revision: only its own name
    assert lock.find("Org/Model-7B@v3") is None
    assert lock.find("https://huggingface.co/org/model-7b").id == "Org/Model-7B"
    assert lock.find("HF://org/MODEL-7b").id == "Org/Model-7B"
    assert lock.find("hf://org/MODEL-7b").id == "Org/Model-7B"
    assert lock.find("  /data/m  ").id == "Org/Model-7B"
    assert lock.find("", ["", "   ", "Org/Other"]).id == "Org/Other"
    assert lock.find("/data/x", ["nobody/none"]) is None
    assert lock.find("models/Org/Model-7B") is None


def test_load_reads_once_per_change_and_names_an_unreadable_lock(tmp_path):
    path = tmp_path / "kvlint.lock"
    assert load(str(path)) is None
    path.write_text(render([LockEntry(id="a/b", source="hub", config={"x": 1})]))
    first = load(str(path))
    assert first is load(str(path)) and [e.id for e in first.entries] == ["a/b"]
    path.write_text(render([LockEntry(id="a/c", source="hub", config={"x": 1})]) + "\n")
    assert [e.id for e in load(str(path)).entries] == ["a/c"]
    (tmp_path / "dir.lock").mkdir()
    with pytest.raises(LockError, match="dir.lock: cannot read the lock"):
        load(str(tmp_path / "dir.lock"))


def test_the_lock_lives_at_the_configuration_else_the_git_root(tmp_path, monkeypatch):
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "team" / "deep").mkdir(parents=True)
    (repo / "team" / ".kvlint.yaml").write_text("gpu: L4\n")
    (repo / "other").mkdir()
    (repo / "py").mkdir()
    (repo / "py" / "pyproject.toml").write_text("[tool.kvlint]\ngpu = 'L4'\n")
    (repo / "plain").mkdir()
    (repo / "plain" / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    assert lock_dir(str(repo / "team" / "deep")) == str(repo / "team")
    assert lock_dir(str(repo / "other")) == str(repo)
    assert lock_dir(str(repo / "py")) == str(repo / "py")
    assert lock_dir(str(repo / "plain")) == str(repo)
    assert lock_path_for(str(repo / "team" / "deep" / "a.sh")) == str(repo / "team" / "kvlint.lock")
    monkeypatch.chdir(repo / "other")
    assert lock_path_for("-") == str(repo / "kvlint.lock")
    outside = tmp_path / "nogit" / "x"
    outside.mkdir(parents=True)
    monkeypatch.chdir(outside)
    from kvlint.models import lockpath

    lockpath._lock_dir.cache_clear()  # the walk memoises per folder (the current folder of an earlier test too)
    assert lock_dir(str(outside)) == os.getcwd()  # no configuration, no git root: the current folder
    lockpath._lock_dir.cache_clear()


def test_remembered_roots_are_answered_without_a_walk_and_bounded(tmp_path, monkeypatch):
    from kvlint.models import lockpath

    monkeypatch.setattr(lockpath, "_TOLD", {})
    monkeypatch.setattr(lockpath, "TOLD_BOUND", 3)
    folders = [str(tmp_path / f"f{i}") for i in range(4)]
    for i, folder in enumerate(folders[:3]):
        lockpath.remember(folder, f"/root{i}")  # roots a walk would not find: only the memo answers these
    assert [lock_dir(f) for f in folders[:3]] == ["/root0", "/root1", "/root2"]
    lockpath.remember(folders[3], "/root3")  # full: cleared, then kept
    assert lock_dir(folders[3]) == "/root3" and lock_dir(folders[0]) != "/root0"
