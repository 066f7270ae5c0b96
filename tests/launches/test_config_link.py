"""`vllm serve --config FILE` (kvlint.launches.config_link) and a run that holds both the command and the file
(kvlint.lint.Run): sample K230's `scripts/start_vllm.sh` (`cd "$(dirname "$0")/.."; vllm serve --config
configs/deployment/x.yaml`) was a KV002 ("unresolved") and its config file, walked alone, a second launch."""

from __future__ import annotations

from pathlib import Path

from kvlint.launches import read_path
from kvlint.lint import lint

CONFIG = "model: org/cfg-model\nmax-model-len: 8192\ntensor-parallel-size: 2\n"


def _repo(tmp_path: Path) -> Path:
    (tmp_path / "scripts").mkdir()
    (tmp_path / "configs" / "deployment").mkdir(parents=True)
    (tmp_path / "configs" / "deployment" / "x.yaml").write_text(CONFIG)
    (tmp_path / "scripts" / "start.sh").write_text(
        'cd "$(dirname "${BASH_SOURCE[0]}")/.."\nexec vllm serve --config configs/deployment/x.yaml --port 8001\n')
    return tmp_path


def test_a_relative_config_path_is_looked_up_in_the_folders_above_the_script(tmp_path):
    repo = _repo(tmp_path)
    (dep,) = read_path(str(repo / "scripts" / "start.sh")).deployments
    assert (dep.model, dep.get("max_model_len"), dep.get("tensor_parallel_size"), dep.get("port")) == \
        ("org/cfg-model", 8192, 2, 8001)
    assert dep.config_file == str((repo / "configs" / "deployment" / "x.yaml").resolve())
    assert dep.settings["max_model_len"].span.path.endswith("x.yaml")  # the value is where the file writes it


def test_a_config_path_in_no_folder_above_stays_open(tmp_path):
    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / "a" / "b" / "start.sh").write_text("vllm serve --config nowhere/x.yaml\n")
    (dep,) = read_path(str(tmp_path / "a" / "b" / "start.sh")).deployments
    assert (dep.model_resolved, dep.config_file) == (False, None)
    assert any("nor in a folder above it" in n for n in dep.notes)


def test_a_config_file_a_launch_of_the_run_merged_is_not_a_launch_of_its_own(tmp_path):
    repo = _repo(tmp_path)
    both = lint([str(repo)])
    assert both.deployments == 1 and len(both.launches) == 1
    assert str(repo / "configs" / "deployment" / "x.yaml") in both.files  # still linted (its lines frame findings)
    assert any("read as the --config file of the launch that names it" in n for n in both.notes)
    alone = lint([str(repo / "configs" / "deployment" / "x.yaml")])  # a hook run on the changed file alone
    assert alone.deployments == 1
    (repo / "scripts" / "start.sh").write_text("exec vllm serve --config other.yaml\n")  # names another file
    assert lint([str(repo)]).deployments == 2
