"""Configuration discovery, validation errors that name file, line and key, and what each key does."""

from __future__ import annotations

import json
import os
import re
import sys
from importlib import resources
from pathlib import Path

import pytest

from kvlint.config import ConfigCache, ConfigError, find_config, load_config
from kvlint.findings import Severity


def write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_schema_is_valid_json_schema():
    import jsonschema

    schema = json.loads(resources.files("kvlint.data").joinpath("config.schema.json").read_text())
    jsonschema.Draft202012Validator.check_schema(schema)


def test_discovery_walks_up_and_stops_at_repo_root(tmp_path):
    write(tmp_path / ".kvlint.yaml", "gpu: A100-SXM-80GB\n")
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    deep = repo / "deploy" / "prod"
    deep.mkdir(parents=True)
    assert find_config(str(deep)) is None  # the file above .git belongs to another project
    cfg = write(repo / ".kvlint.yaml", "gpu: H100-SXM-80GB\n")
    assert find_config(str(deep)) == str(cfg)
    assert ConfigCache().for_file(str(deep / "values.yaml")).gpu == "H100-SXM-80GB"


def test_pyproject_section(tmp_path):
    (tmp_path / ".git").mkdir()
    write(tmp_path / "pyproject.toml", '[project]\nname = "x"\n\n[tool.kvlint]\nignore = ["KV3"]\n'
                                       'fail-on = "warning"\n\n[tool.kvlint.severity]\nKV103 = "error"\n')
    cfg = load_config(find_config(str(tmp_path)))
    assert set(cfg.ignore) == {"KV301", "KV302"} and cfg.fail_on is Severity.WARNING
    assert cfg.severities == {"KV103": Severity.ERROR}


def test_pyproject_error_names_line(tmp_path):
    path = write(tmp_path / "pyproject.toml", '[tool.kvlint]\nselect = ["KV1"]\nfail_on = "error"\n')
    with pytest.raises(ConfigError, match=r"pyproject.toml:3: fail_on: unknown key 'fail_on'"):
        load_config(str(path))


@pytest.mark.parametrize("text,message", [
    ("select: [KV1]\ngpu-count: 8\n", r":2: gpu-count: unknown key 'gpu-count'"),
    ("severity:\n  KV103: errror\n", r":2: severity.KV103: 'errror' is not one of"),
    ("select:\n  - KV1\n  - KV9999\n", r":3: select: unknown rule 'KV9999'"),
    ("rules:\n  KV103:\n    min-ratio: 2\n  KV301:\n    weight-share: 0.5\n",
     r":5: rules.KV301: unknown option 'weight-share' for KV301 \(options: weights-share\)"),
    ("rules:\n  KV301:\n    weights-share: lots\n", r":3: rules.KV301.weights-share: expected a number"),
    ("fail-on: warn\n", r":1: fail-on: 'warn' is not one of"),
    ("gpu-memory: eighty gigs\n", r":1: gpu-memory: 'eighty gigs' does not match"),
    ("- just\n- a list\n", r":1: the configuration must be a mapping"),
    ("select: [KV1]\ngpu: H100-SXM-80G\n", r":2: gpu: unknown GPU 'H100-SXM-80G' \(did you mean H100-SXM-80GB"),
    ("gpu: google-tpu-v5e\n", r":1: gpu: .* not a GPU"),
    ("select: [KV1\n", r"invalid YAML"),
])
def test_errors_name_line_and_key(tmp_path, text, message):
    path = write(tmp_path / ".kvlint.yaml", text)
    with pytest.raises(ConfigError, match=message) as exc:
        load_config(str(path))
    assert exc.value.exit_code == 2 and "\n" not in str(exc.value)


def test_full_configuration(tmp_path):
    path = write(tmp_path / ".kvlint.yaml", """\
select: [KV1, KV2]
ignore: [kv-heads-replicated]
fail-on: warning
severity: {concurrency-exceeds-pool: error}
estimated-severity: {KV101: warning}
rules: {KV103: {min-ratio: 2}}
gpu: H100-SXM-80GB
gpu-memory: 81559MiB
engine-version: {vllm: 0.33.0}
models: {my-org/private-70b: models/private/config.json}
non-kv-gib: {default: 5.5, my-org/private-70b: 7}
per-path-ignores: {"vendor/**": [KV103]}
exclude: ["charts/templates/*"]
""")
    cfg = load_config(str(path))
    assert "KV202" not in cfg.select or "KV202" in cfg.ignore
    assert cfg.severities == {"KV103": Severity.ERROR}
    assert cfg.estimated_severities == {"KV101": Severity.WARNING}
    assert cfg.rule_options == {"KV103": {"min-ratio": 2}}
    assert cfg.engine_versions == {"vllm": "0.33.0"}
    assert cfg.models["my-org/private-70b"] == str(tmp_path / "models" / "private" / "config.json")
    assert cfg.non_kv_for("my-org/private-70b") == 7.0 and cfg.non_kv_for("other") == 5.5
    assert cfg.ignored_here(str(tmp_path / "vendor" / "x" / "values.yaml")) == {"KV103"}
    assert cfg.ignored_here(str(tmp_path / "deploy" / "values.yaml")) == frozenset()
    assert cfg.excluded(str(tmp_path / "charts" / "templates" / "d.yaml"))
    assert not cfg.excluded(str(tmp_path / "charts" / "values.yaml"))


def test_empty_file_is_defaults(tmp_path):
    cfg = load_config(str(write(tmp_path / ".kvlint.yaml", "# nothing yet\n")))
    assert cfg.select is None and cfg.ignore == () and cfg.fail_on is None


@pytest.mark.parametrize("text,message", [
    ("engine-version: latest\n", r":1: engine-version: 'latest' does not match"),
    ("non-kv-gib: {default: lots}\n", r":1: non-kv-gib: default: 'lots' is not of type 'number'"),
    ("non-kv-gib: -1\n", r":1: non-kv-gib: -1 is less than the minimum of 0"),
])
def test_one_of_errors_say_which_alternative(tmp_path, text, message):
    with pytest.raises(ConfigError, match=message):
        load_config(str(write(tmp_path / ".kvlint.yaml", text)))


def test_gpu_checked_against_catalogue_unless_memory_given(tmp_path):
    assert load_config(str(write(tmp_path / "a" / ".kvlint.yaml", "gpu: nvidia-h100-80gb-hbm3\n"))).gpu == "nvidia-h100-80gb-hbm3"
    # with gpu-memory the name may be a card the catalogue does not list: kept as written
    cfg = load_config(str(write(tmp_path / "b" / ".kvlint.yaml", "gpu: Acme-X1\ngpu-memory: 80GiB\n")))
    assert (cfg.gpu, cfg.gpu_memory) == ("Acme-X1", "80GiB")


# ---------------------------------------------------------------- hostile configuration files

def _error(path) -> str:
    with pytest.raises(ConfigError) as exc:
        load_config(str(path))
    assert exc.value.exit_code == 2 and "\n" not in str(exc.value)
    return str(exc.value)


def test_non_utf8_configuration_names_file_and_line(tmp_path):
    path = tmp_path / ".kvlint.yaml"
    path.write_bytes(b"select: [KV1]\n# caf\xe9\n")
    assert _error(path) == f"{path}:2: not UTF-8 text (byte 0xe9)"


def test_configuration_over_the_size_cap(tmp_path):
    from kvlint.config import MAX_BYTES

    path = tmp_path / ".kvlint.yaml"
    path.write_text("# padding\n" * (MAX_BYTES // 10 + 1))
    assert "size cap for configuration files" in _error(path)


def test_a_100000_deep_configuration_is_a_config_error_with_a_line(tmp_path):
    path = write(tmp_path / ".kvlint.yaml", "select: [KV1]\nrules: " + "[" * 100_000 + "]" * 100_000 + "\n")
    message = _error(path)
    assert message.startswith(f"{path}:2: ") and ("nest" in message or "depth" in message)


def test_a_deep_block_configuration_stops_at_the_depth_limit(tmp_path):
    from kvlint.config import MAX_DEPTH

    text = "".join("  " * i + f"k{i}:\n" for i in range(MAX_DEPTH + 5))
    path = write(tmp_path / ".kvlint.yaml", text)
    assert _error(path) == f"{path}:{MAX_DEPTH + 1}: nested over {MAX_DEPTH} levels deep"


def test_an_alias_bomb_configuration_is_refused_before_validation(tmp_path):
    lines = ['a0: &a0 ["x","x","x","x","x","x","x","x","x"]']
    lines += [f"a{i}: &a{i} [" + ",".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, 10)]
    path = write(tmp_path / ".kvlint.yaml", "models:\n  bomb: *a9\n".join(["\n".join(lines) + "\n", ""]))
    message = _error(path)
    assert message.startswith(f"{path}:") and "alias bomb" in message


def test_a_configuration_under_the_node_limit_still_loads(tmp_path):
    cfg = load_config(str(write(tmp_path / ".kvlint.yaml", "select: [" + ", ".join(["KV1"] * 5000) + "]\n")))
    assert "KV101" in cfg.select


@pytest.mark.parametrize("text,line", [("select: [KV1]\ngpu: {{ .Values.gpu }}\n", 2),
                                       ("{{- if .Values.lint }}\nselect: [KV1]\n{{- end }}\n", 1)])
def test_template_expressions_in_a_configuration_are_an_error(tmp_path, text, line):
    path = write(tmp_path / ".kvlint.yaml", text)
    assert _error(path).startswith(f"{path}:{line}: invalid YAML")


def test_a_null_document_is_the_defaults(tmp_path):
    assert load_config(str(write(tmp_path / ".kvlint.yaml", "~\n"))).select is None


def test_a_fifo_named_kvlint_yaml_is_a_config_error_not_a_hang(tmp_path):
    if not hasattr(os, "mkfifo"):
        pytest.skip("named pipes need POSIX")
    os.mkfifo(tmp_path / ".kvlint.yaml")
    assert "not a regular file" in _error(tmp_path / ".kvlint.yaml")


def test_a_100000_deep_pyproject_is_a_config_error_with_a_line(tmp_path):
    path = write(tmp_path / "pyproject.toml", '[tool.kvlint]\nselect = ["KV1"]\nx = ' + "[" * 100_000 + "]" * 100_000 + "\n")
    assert _error(path) == f"{path}:3: nested over 64 levels deep"


def test_invalid_toml_names_its_line(tmp_path):
    path = write(tmp_path / "pyproject.toml", '[tool.kvlint]\nselect = ["KV1"\nfail-on = "error"\n')
    assert _error(path).startswith(f"{path}:3: invalid TOML")


def test_a_hostile_configuration_exits_2_through_the_cli(tmp_path, capsys):
    from kvlint.cli import main

    (tmp_path / ".git").mkdir()
    (tmp_path / ".kvlint.yaml").write_bytes(b"\xff\xfd")  # not a byte-order mark: \xff\xfe now reads as UTF-16
    (tmp_path / "serve.sh").write_text("vllm serve org/m\n")
    assert main(["check", str(tmp_path / "serve.sh")]) == 2
    assert f"{tmp_path / '.kvlint.yaml'}:1: not UTF-8" in capsys.readouterr().err


def test_the_walks_listings_find_what_the_stats_find(tmp_path):
    """During a walk, configuration lookups read the listings of the folders the walk is in instead of four
    stats a folder; every file gets the configuration find_config finds, and no listing outlives its folder."""
    from kvlint.launches.discover import Listings, iter_files

    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    write(repo / "a" / ".kvlint.yaml", "gpu: L40S\n")
    write(repo / "a" / "b" / "pyproject.toml", '[project]\nname = "x"\n')  # no [tool.kvlint]: not a config
    write(repo / "c" / "pyproject.toml", '[tool.kvlint]\ngpu = "H100-SXM-80GB"\n')
    (repo / "d" / ".kvlint.yml").mkdir(parents=True)  # a folder with a config's name is not a config
    write(repo / "e" / "sub" / ".git", "gitdir: elsewhere\n")  # a submodule's .git file is a repository root
    write(repo / "e" / ".kvlint.yaml", "gpu: A10G\n")
    for folder in ("a/b/deep", "c", "d", "e/sub", "."):
        write(repo / folder / "serve.sh", "vllm serve Qwen/Qwen3-8B\n")
    listings = Listings()
    cache = ConfigCache(None, listings)
    checked = []
    for path, skip in iter_files([str(repo)], listings):
        assert skip is None
        inside = Path(path).parent
        chain = {str(p) for p in (inside, *inside.parents) if p == repo or repo in p.parents}
        assert set(listings.by_folder) == chain  # the folders the walk is in, and only those
        assert cache.for_file(path).path == find_config(path), path
        checked.append(os.path.relpath(path, repo))
    assert sorted(p for p in checked if p.endswith("serve.sh")) == [
        "a/b/deep/serve.sh", "c/serve.sh", "d/serve.sh", "e/sub/serve.sh", "serve.sh"]
    assert listings.by_folder == {}
    configs = {os.path.relpath(path, repo): cache.for_file(path).gpu for path in
               (str(repo / f / "serve.sh") for f in ("a/b/deep", "c", "d", "e/sub", "."))}
    assert configs == {"a/b/deep/serve.sh": "L40S", "c/serve.sh": "H100-SXM-80GB", "d/serve.sh": None,
                       "e/sub/serve.sh": None, "serve.sh": None}


def test_the_walk_tells_each_folders_lock_root_as_the_stats_find_it(tmp_path, monkeypatch):
    """The configuration lookup of a walk tells kvlint.models.lockpath each folder's project root (where its
    kvlint.lock lives), so the launches need no stats of their own; the answer is the one the stats give."""
    from kvlint.launches.discover import Listings, iter_files
    from kvlint.models import lockpath

    monkeypatch.setattr(lockpath, "_TOLD", {})
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    write(repo / "a" / ".kvlint.yaml", "gpu: L40S\n")
    write(repo / "c" / "pyproject.toml", '[tool.kvlint]\ngpu = "H100-SXM-80GB"\n')
    write(repo / "e" / "sub" / ".git", "gitdir: elsewhere\n")
    for folder in ("a/b/deep", "c/x", "e/sub/y", "f/g", "."):
        write(repo / folder / "serve.sh", "vllm serve Qwen/Qwen3-8B\n")
    write(tmp_path / "outside" / "serve.sh", "vllm serve Qwen/Qwen3-8B\n")  # no repository: the current folder
    listings = Listings()
    cache = ConfigCache(None, listings)
    for path, _ in iter_files([str(repo), str(tmp_path / "outside")], listings):
        cache.for_file(path)
    told = dict(lockpath._TOLD)
    assert {os.path.relpath(f, tmp_path) for f in told} >= {"repo/a/b/deep", "repo/c/x", "repo/e/sub/y", "repo/f/g",
                                                            "repo", "outside"}
    lockpath._lock_dir.cache_clear()
    assert {f: lockpath._lock_dir(f) for f in told} == told
    assert told[str(repo / "a" / "b" / "deep")] == str(repo / "a")
    assert told[str(repo / "c" / "x")] == str(repo / "c")
    assert told[str(repo / "e" / "sub" / "y")] == str(repo / "e" / "sub")
    assert told[str(repo / "f" / "g")] == str(repo)
    lockpath._lock_dir.cache_clear()


def test_pyproject_is_read_on_python_3_10_with_tomli(tmp_path, monkeypatch):
    """3.10 has no tomllib: tomli (a dependency there) reads [tool.kvlint]; without it, a note, not silence."""
    import importlib
    import types

    from kvlint import config

    reader = importlib.import_module("tomllib" if sys.version_info >= (3, 11) else "tomli")

    monkeypatch.setattr(config.sys, "version_info", (3, 10, 14, "final", 0))
    monkeypatch.setitem(sys.modules, "tomllib", None)  # as on 3.10: `import tomllib` fails
    fake = types.ModuleType("tomli")
    fake.loads, fake.TOMLDecodeError = reader.loads, reader.TOMLDecodeError  # tomllib is tomli, vendored
    monkeypatch.setitem(sys.modules, "tomli", fake)
    path = write(tmp_path / "pyproject.toml", '[tool.kvlint]\nfail-on = "warning"\n')
    assert load_config(str(path)).fail_on is Severity.WARNING
    monkeypatch.setitem(sys.modules, "tomli", None)
    assert any("needs tomli" in n for n in load_config(str(path)).notes)


def test_tomli_is_a_dependency_on_python_3_10_only():
    text = (Path(__file__).resolve().parents[1] / "pyproject.toml").read_text(encoding="utf-8")
    assert re.search(r"""\"tomli>=[\d.]+; python_version < '3\.11'\",""", text)


def test_exclude_globs_are_one_matcher_with_the_same_answers():
    """5,000 `exclude:` globs x 2,000 files took 58 s, each glob tried in turn; now one compiled matcher per run
    (bounded on CPU time, generously: before, this loop alone took over 20 s)."""
    import time

    from kvlint.config import _glob, _matcher

    patterns = tuple(f"gen/x{i}/*.yaml" for i in range(5000)) + ("vendor", "*.tmp.yaml", "deploy/a?/b.sh", "[ab]*.sh")
    paths = [f"d/f{i}.sh" for i in range(2000)] + ["vendor/x.sh", "gen/x42/a.yaml", "q/w.tmp.yaml", "deploy/a1/b.sh",
                                                   "b.sh", "c.sh", "gen/x42/a.yml", "vendorx/c.sh"]
    started = time.thread_time()
    got = [_matcher(patterns)(p) for p in paths]
    assert time.thread_time() - started < 5  # now about 0.1 s
    assert got[-8:] == [True, True, True, True, True, False, False, False]
    assert not any(got[:2000])
    sample = patterns[-4:] + patterns[:3]
    assert [_matcher(sample)(p) for p in paths[-8:]] == [any(_glob(p, g) for g in sample) for p in paths[-8:]]


def test_the_one_matcher_answers_as_each_glob_does():
    """The per-run matcher keeps gitignore semantics (`*` within a folder, `**` across, a slash-free pattern
    at any depth, a folder covering what it holds): the same answer as `_glob` for every pattern and path."""
    import random

    from kvlint.config import _glob, _matcher

    rng = random.Random(7)
    words = ["k8s", "deploy", "a", "b1", "x.yaml", "y.sh", "vendor", "charts"]
    globs = ["k8s/*.yaml", "k8s/**", "**/x.yaml", "*.sh", "vendor/", "/deploy", "deploy/*/y.sh", "a?", "[ab]*",
             "charts/**/x.yaml", "b1/", "*", "k8s\\*x", "deploy/**/b1"]
    for _ in range(300):
        path = "/".join(rng.choice(words) for _ in range(rng.randint(1, 4)))
        chosen = tuple(rng.sample(globs, rng.randint(1, 4)))
        assert _matcher(chosen)(path) == any(_glob(path, g) for g in chosen), (path, chosen)
