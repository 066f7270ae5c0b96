"""`kvlint models lock` and `--check` against a stand-in Hub on 127.0.0.1 (HF_ENDPOINT), run as real
subprocesses (huggingface_hub reads HF_HUB_OFFLINE and the endpoint at import, as it does for a user); then
`kvlint check` offline, with an empty HF cache, sizes the launch from the lock alone."""

from __future__ import annotations

import json

import pytest

from kvlint.models.lock import LockEntry, digest_of, parse, render
from tests.commands.test_models_pull import TINY, env_for, run
from tests.models.hubstandin import COMMIT, StandInHub, closed_port, require_loopback

QUANT = json.dumps({"quantization": {"quant_algo": "FP8", "kv_cache_quant_algo": "FP8"}}).encode()


@pytest.fixture
def tree(tmp_path):
    require_loopback()
    (tmp_path / ".git").mkdir()
    deploy = tmp_path / "deploy"
    deploy.mkdir()
    (deploy / "serve.sh").write_text("vllm serve acme/tiny-llama --max-model-len 2048 --gpu-memory-utilization 0.9\n")
    return tmp_path


def hub_repos():
    return {"acme/tiny-llama": {"config.json": json.dumps({**TINY, "eos_token_id": 2}).encode(),
                                "hf_quant_config.json": QUANT, "model.safetensors": b"w" * 64},
            "acme/other-3b": {"config.json": json.dumps({**TINY, "num_hidden_layers": 5}).encode()}}


def offline_env(tree):
    env = env_for(tree, f"http://127.0.0.1:{closed_port()}")
    env.update(HF_HUB_OFFLINE="1", HF_HUB_CACHE=str(tree / "empty-cache"))
    return env


def check_json(tree, env):
    code, out, err, _ = run(["check", "deploy", "--gpu", "L4", "--format", "json"], env, tree)
    return code, json.loads(out), err


def test_round_trip_lock_then_check_offline_then_check_flag(tree):
    offline = offline_env(tree)
    code, before, _ = check_json(tree, offline)  # not bundled, no cache, no Hub: skipped
    assert [d["skip_kind"] for d in before["deployments"]] == ["unknown-model"]

    with StandInHub(hub_repos()) as hub:
        code, out, err, _ = run(["models", "lock", "deploy"], env_for(tree, hub.endpoint), tree)
    assert code == 0, (out, err)
    assert "added    acme/tiny-llama -> acme/tiny-llama (hub, revision 0123456789ab)" in out
    assert "wrote kvlint.lock: 1 added, 0 kept, 0 dropped, 0 failed" in out
    assert not any(path.endswith("model.safetensors") for _, path, _ in hub.requests)  # never the weights
    text = (tree / "kvlint.lock").read_text()
    entry = parse(text).entries[0]
    assert entry.revision == COMMIT and entry.source == "hub" and not entry.edited
    assert set(entry.files) == {"config.json", "hf_quant_config.json"}
    assert "eos_token_id" not in entry.config and entry.config["num_hidden_layers"] == 3  # trimmed, facts kept
    assert "config.num_hidden_layers = 3\n" in text

    code, after, _ = check_json(tree, offline)  # offline, empty cache: the lock alone sizes it
    launch = after["deployments"][0]
    assert launch["model_source"] == "lock" and launch["capacity"] == "evaluated", launch
    assert launch["kv_tokens"] > 0

    code, out, _, _ = run(["models", "lock", "--check", "deploy"], offline, tree)
    assert code == 0, out

    (tree / "deploy" / "more.sh").write_text("vllm serve acme/other-3b\n")  # a new model is named
    code, out, _, _ = run(["models", "lock", "--check", "deploy"], offline, tree)
    assert code == 1 and "missing  acme/other-3b (named in deploy/more.sh)" in out
    with StandInHub(hub_repos()) as hub:
        code, out, err, _ = run(["models", "lock", "deploy"], env_for(tree, hub.endpoint), tree)
    assert code == 0, (out, err)
    assert "kept     acme/tiny-llama" in out and "added    acme/other-3b" in out
    assert [p for _, p, _ in hub.requests if "tiny-llama" in p] == []  # a locked model is not asked for again
    code, out, _, _ = run(["models", "lock", "--check", "deploy"], offline, tree)
    assert code == 0, out

    edited = (tree / "kvlint.lock").read_text().replace("config.num_hidden_layers = 5", "config.num_hidden_layers = 2")
    (tree / "kvlint.lock").write_text(edited)
    code, out, _, _ = run(["models", "lock", "--check", "deploy"], offline, tree)
    assert code == 1 and "edited   acme/other-3b (kvlint.lock:" in out


def test_dropped_entries_and_unchanged_file(tree):
    with StandInHub(hub_repos()) as hub:
        env = env_for(tree, hub.endpoint)
        (tree / "deploy" / "more.sh").write_text("vllm serve acme/other-3b\n")
        assert run(["models", "lock", "deploy"], env, tree)[0] == 0
        (tree / "deploy" / "more.sh").unlink()
        code, out, _, _ = run(["models", "lock", "deploy"], env, tree)
        assert code == 0 and "dropped  acme/other-3b (no launch names it)" in out
        stamp = (tree / "kvlint.lock").stat().st_mtime_ns
        code, out, _, _ = run(["models", "lock", "deploy"], env, tree)
    assert code == 0 and "unchanged kvlint.lock: 0 added, 1 kept, 0 dropped, 0 failed" in out
    assert (tree / "kvlint.lock").stat().st_mtime_ns == stamp  # not rewritten
    assert [e.id for e in parse((tree / "kvlint.lock").read_text()).entries] == ["acme/tiny-llama"]


def test_lock_sits_beside_the_configuration(tree):
    (tree / "deploy" / ".kvlint.yaml").write_text("gpu: L4\n")
    with StandInHub(hub_repos()) as hub:
        code, out, err, _ = run(["models", "lock", "deploy"], env_for(tree, hub.endpoint), tree)
    assert code == 0, (out, err)
    assert (tree / "deploy" / "kvlint.lock").is_file() and not (tree / "kvlint.lock").exists()
    code, out, _, _ = run(["check", "deploy", "--format", "json"], offline_env(tree), tree)
    assert json.loads(out)["deployments"][0]["model_source"] == "lock"


def test_unknown_model_fails_and_bundled_models_need_no_hub(tree):
    (tree / "deploy" / "serve.sh").write_text("vllm serve Qwen/Qwen3-8B\nvllm serve acme/never-published-7b\n"
                                              "vllm serve /var/mdl/YOUR-MODEL-PATH\n")
    with StandInHub(hub_repos()) as hub:
        code, out, _, _ = run(["models", "lock", "deploy"], env_for(tree, hub.endpoint), tree)
    assert code == 1
    assert "added    Qwen/Qwen3-8B -> Qwen/Qwen3-8B (bundled)" in out
    assert "failed   acme/never-published-7b: acme/never-published-7b: no such model on the Hub" in out
    assert "skipped  /var/mdl/YOUR-MODEL-PATH: a path that names no model" in out
    assert "1 added, 0 kept, 0 dropped, 1 failed, 1 not lockable" in out
    code, out, _, _ = run(["models", "lock", "--check", "deploy"], offline_env(tree), tree)
    assert code == 1 and "missing  acme/never-published-7b" in out and "YOUR-MODEL-PATH" not in out


def test_a_broken_lock_is_a_usage_error_for_lock_and_a_note_for_check(tree):
    (tree / "kvlint.lock").write_text("lock-version = 1\n\n[model \"acme/tiny-llama\"]\nsource hub\n")
    code, _, err, _ = run(["models", "lock", "--check", "deploy"], offline_env(tree), tree)
    assert code == 2 and "kvlint.lock:4: expected" in err
    code, out, err, _ = run(["check", "deploy", "--format", "json"], offline_env(tree), tree)
    assert "the lock is ignored" in err and json.loads(out)["deployments"][0]["skip_kind"] == "unknown-model"


def test_format_is_stable_sorted_and_detects_edits():
    b = LockEntry(id="b/model", source="hub", config={"z": None, "a": {"y": 1, "x": [1, 2]}}, revision="f" * 40,
                  names=("b/model",), files={"config.json": "sha256:00"})
    a = LockEntry(id="A/model", source="bundled", config={"hidden_size": 8})
    text = render([b, a])
    assert text == render([a, b])
    assert text.index('[model "A/model"]') < text.index('[model "b/model"]')
    assert 'config.a = {"x": [1, 2], "y": 1}\nconfig.z = null\n' in text  # one key a line, JSON with sorted keys
    parsed = parse(text)
    assert [e.id for e in parsed.entries] == ["A/model", "b/model"]
    assert all(not e.edited for e in parsed.entries) and parsed.entries[1].config == b.config
    assert not parse(text.replace("config.z = null", "config.z   =   null".replace("   =   ", " = "))).entries[1].edited
    assert parse(text.replace("config.z = null", "config.z = 0")).entries[1].edited
    assert digest_of(parsed.entries[0]) == parsed.entries[0].digest


@pytest.mark.parametrize("text,line", [
    ("model = 1\n", 1), ("lock-version = 1\n[model \"x/y\"]\nsource = \"hub\"\nconfig.a = {\n", 4),
    ("lock-version = 1\n[model \"x/y\"]\nsource = \"hub\"\n", 2),
])
def test_bad_lock_text_names_the_line(text, line):
    from kvlint.models.lock import LockError

    with pytest.raises(LockError, match=f"kvlint.lock:{line}:"):
        parse(text)


def test_lookup_by_id_name_and_alias_not_by_a_paths_tail():
    lock = parse(render([LockEntry(id="Org/Model-7B", source="hub", config={"x": 1},
                                   names=("/data/Model-7B",))]))
    assert lock.find("org/model-7b") is not None and lock.find("hf://Org/Model-7B") is not None
    assert lock.find("/data/Model-7B") is not None
    assert lock.find("/other/Org/Model-7B") is None  # a path's last two segments are no id
    assert lock.find("/mnt/models", ["Org/Model-7B"]) is not None  # the launch's other name for it
    assert lock.find("Org/Model-7B@abc") is None  # a pinned revision only by its own name


def test_an_edited_entry_the_hub_cannot_give_again_is_kept_and_still_fails_check(tree):
    with StandInHub(hub_repos()) as hub:
        assert run(["models", "lock", "deploy"], env_for(tree, hub.endpoint), tree)[0] == 0
    lock = tree / "kvlint.lock"
    lock.write_text(lock.read_text().replace("config.num_hidden_layers = 3", "config.num_hidden_layers = 4"))
    code, out, _, _ = run(["models", "lock", "deploy"], offline_env(tree), tree)  # no Hub: cannot redo it
    assert code == 1 and "its edited entry is kept as it is" in out and "dropped  " not in out
    assert "config.num_hidden_layers = 4" in lock.read_text()
    code, out, _, _ = run(["models", "lock", "--check", "deploy"], offline_env(tree), tree)
    assert code == 1 and "edited   acme/tiny-llama" in out


def test_a_subfolder_configuration_gets_its_own_lock_the_one_its_files_read(tree):
    team = tree / "team"
    team.mkdir()
    (team / ".kvlint.yaml").write_text("gpu: L4\n")
    (team / "serve.sh").write_text("vllm serve acme/other-3b\n")
    with StandInHub(hub_repos()) as hub:
        code, out, err, _ = run(["models", "lock"], env_for(tree, hub.endpoint), tree)
    assert code == 0, (out, err)
    assert [e.id for e in parse((tree / "kvlint.lock").read_text()).entries] == ["acme/tiny-llama"]
    assert [e.id for e in parse((team / "kvlint.lock").read_text()).entries] == ["acme/other-3b"]
    code, out, _, _ = run(["models", "lock", "--check"], offline_env(tree), tree)
    assert code == 0, out
    code, out, _, _ = run(["check", ".", "--format", "json"], offline_env(tree), tree)
    assert sorted(d["model_source"] for d in json.loads(out)["deployments"]) == ["lock", "lock"]


def test_a_config_in_the_project_is_read_as_it_is_not_locked(tree):
    folder = tree / "models" / "tiny"
    folder.mkdir(parents=True)
    (folder / "config.json").write_text(json.dumps(TINY))
    (tree / "deploy" / "serve.sh").write_text("vllm serve ./models/tiny --max-model-len 2048\n")
    code, out, _, _ = run(["models", "lock"], offline_env(tree), tree)
    assert code == 0 and "project  ./models/tiny: its config is in the project (models/tiny/config.json)" in out
    assert not (tree / "kvlint.lock").exists()  # nothing to lock: no file is written
    code, out, _, _ = run(["models", "lock", "--check"], offline_env(tree), tree)
    assert code == 0, out
