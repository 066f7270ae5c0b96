"""Issue 23 item 1 (the engine release, an input): a launch through a project runner (`uv run`, `poetry run`,
`pixi run`) runs the engine of the project's environment, which its lock decides; a host install runs what the
project's requirements pin. The release comes from there, with its file and line; when nothing pins it, the
releases it could be are candidates (never the newest assumed). Sample G's one noise KV005 (bench/reviewer-table-G.tsv,
prabodh1194/annual-reports-parser) is the case without any project file."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _expect import expected

from kvlint.findings import Severity
from kvlint.lint import LintOptions, lint
from kvlint.resolve.project import allows, project_release, releases_within

PROJECTS = Path(__file__).resolve().parents[1] / "fixtures" / "verdicts" / "project-release"


def check(path: Path):
    result = lint([str(path)], LintOptions(select=("KV005",)))
    assert result.unreadable == []
    loud = {(f.span.line, f.code) for f in result.findings if f.severity > Severity.INFO and f.span}
    assert loud == expected(path)
    return result


def test_uv_run_runs_the_release_its_uv_lock_pins():
    result = check(PROJECTS / "uv-lock" / "scripts" / "serve.sh")
    [f] = result.findings
    assert f.severity == Severity.WARNING and "vLLM 0.8.5 (pinned) has it" in f.message
    assert f.data["modelled_release"] == "vLLM 0.8.5 from uv.lock:11: modelled as 0.8.0"
    [status] = result.launches
    assert status.engine_version == "0.8.5" and status.open_input is None


def test_a_host_install_runs_the_release_its_requirements_pin():
    [f] = check(PROJECTS / "host-requirements" / "start.sh").findings
    assert f.severity == Severity.WARNING and f.data["modelled_release"] == "vLLM 0.7.2 from requirements.txt:2"


def test_a_pixi_lock_pins_by_its_package_entry():
    [f] = check(PROJECTS / "pixi-lock" / "run.sh").findings
    assert f.data["modelled_release"] == "vLLM 0.10.1 from pixi.lock:13"


def test_a_declared_range_bounds_the_candidates():
    """Poetry's ^0.9.1 holds one documented release (0.9.2): that is the release; a host range below the newest
    (vllm>=0.9,<0.11) is open over the releases it allows, each of which still has --swap-space."""
    [poetry] = check(PROJECTS / "poetry-range" / "Makefile").findings
    assert "0.9.2 (pinned)" in poetry.message
    assert poetry.data["modelled_release"] == "pyproject.toml:7 allows vllm>=0.9.1,<0.10: modelled as 0.9.2"
    result = check(PROJECTS / "host-range" / "start.sh")
    [status] = result.launches
    assert status.open_input.startswith("vLLM release 0.10.2 or 0.9.2 (requirements-serve.txt:1 allows")


def test_uv_run_without_a_readable_lock_leaves_the_release_open(tmp_path):
    """Sample G's noise: `uv run python -m vllm... --task embed` was an error on 0.33.0 "assumed"; the project's lock
    decides, and --task exists before 0.15: an info naming the release as the input, never an error."""
    copy = tmp_path / "setup.sh"
    shutil.copy(PROJECTS / "uv-nolock" / "serve.sh", copy)
    result = lint([str(copy)], LintOptions(select=("KV005",)))
    [f] = result.findings
    assert f.severity == Severity.INFO and "the verdict differs on vLLM release 0.11.0, 0.7.2" in f.message
    assert "no project file (pyproject.toml, uv.lock, requirements*.txt) is above the file" in f.message
    assert "commit the project's uv.lock" in f.message and "assumed" not in f.message
    [status] = result.launches
    assert status.open_input.startswith("vLLM release 0.33.0 or 0.19.0 or 0.15.0 or 0.11.0 or 0.7.2")


def test_files_that_cannot_be_read_leave_the_release_open_without_a_traceback(tmp_path):
    """Written here, not kept as fixtures: a broken pyproject.toml in the tree breaks the tools that read it."""
    (tmp_path / "pyproject.toml").write_text('[project\nname = "broken\ndependencies = [\n')
    (tmp_path / "uv.lock").write_bytes(b'[[package]]\nname = "vllm"\nversion = \x00\xff\n[[package\n')
    (tmp_path / "pixi.toml").write_text('dependencies = ["vllm"]\nfeature = 3\n[project.optional-dependencies]\n')
    (tmp_path / "serve.sh").write_text("uv run vllm serve Qwen/Qwen2.5-7B-Instruct --swap-space 4\n")
    result = lint([str(tmp_path / "serve.sh")], LintOptions(select=("KV005",)))
    [f] = result.findings
    assert f.severity == Severity.INFO and "no uv.lock in it pins vllm" in f.message
    for name, text in (("pyproject.toml", "project = 3\ntool = []\n[dependency-groups]\nx = 5\n"),
                       ("Pipfile.lock", "{not json"), ("requirements.txt", "vllm==\n")):
        (tmp_path / name).write_text(text)
        from kvlint.resolve import project

        project._declared_cached.cache_clear()
        project._lock_pins_cached.cache_clear()
        assert project_release(str(tmp_path / "serve.sh"), "vllm", None).pinned is None


def test_a_plain_host_script_without_a_pin_keeps_the_newest_assumed(tmp_path):
    (tmp_path / "requirements.txt").write_text("vllm>=0.8\n")
    (tmp_path / "start.sh").write_text("vllm serve Qwen/Qwen2.5-7B-Instruct --swap-space 4\n")
    [f] = lint([str(tmp_path / "start.sh")], LintOptions(select=("KV005",))).findings
    assert f.severity == Severity.WARNING and "0.33.0 assumed: the script pins none" in f.message


def test_the_project_is_the_nearest_folder_with_a_project_file(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\ndependencies = ["sglang[all]==0.4.9.post2"]\n')
    deep = tmp_path / "deploy" / "scripts"
    deep.mkdir(parents=True)
    found = project_release(str(deep / "serve.sh"), "sglang", "uv")
    assert found.folder == str(tmp_path) and found.pinned is not None
    assert (found.pinned.version, found.pinned.where) == ("0.4.9.post2", "pyproject.toml:3")
    (deep / ".git").mkdir()  # a repository root stops the walk
    from kvlint.resolve.project import _marks, _project_folder

    _project_folder.cache_clear()
    _marks.cache_clear()
    assert project_release(str(deep / "serve.sh"), "sglang", "uv").folder is None


def test_specifiers():
    assert allows(">=0.6,<0.8", "0.7.2") and not allows(">=0.6,<0.8", "0.8.0")
    assert allows("~=0.9.1", "0.9.2") and not allows("~=0.9.1", "0.10.1")
    assert allows("==0.10.*", "0.10.2") and not allows("!=0.10.*", "0.10.2")
    assert allows("", "0.33.0") and allows(">=banana", "0.1")
    documented = ["0.7.2", "0.8.0", "0.9.2", "0.10.1", "0.10.2", "0.11.0", "0.33.0"]
    eras = ("0.7.2", "0.11.0", "0.33.0")
    assert releases_within("", documented, eras) == (("0.33.0", "0.11.0", "0.7.2"), False)
    assert releases_within(">=0.8,<0.11", documented, eras) == (("0.10.2", "0.8.0"), False)
    assert releases_within("<0.6", documented, eras) == (("0.7.2",), True)
    assert releases_within(">=1.0", documented, eras) == (("0.33.0",), True)


def test_an_open_release_keeps_a_tp_bounded_to_one_gpu(tmp_path):
    """Sample E's Leroll/llm-server: `CUDA_VISIBLE_DEVICES=0 ... uv run vllm serve ... --tensor-parallel-size
    $NUM_GPUS`. TP bounded to the one visible GPU settles before the open release, so the launch stays sized on
    every release (it was skipped as "tensor_parallel_size is '$NUM_GPUS'" once the release was open)."""
    script = tmp_path / "start.sh"
    script.write_text('export CUDA_VISIBLE_DEVICES="0"\nNUM_GPUS=$(nproc)\n'
                      "uv run vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 8192 --tensor-parallel-size $NUM_GPUS\n")
    [status] = lint([str(script)], LintOptions()).launches
    assert status.capacity == "evaluated" and status.open_input.startswith("vLLM release 0.33.0 or")


def test_uvx_runs_the_tools_newest_release_not_the_projects(tmp_path):
    """`uvx vllm serve` installs vLLM in a tool environment of its own, not the project's: its pin does not apply."""
    (tmp_path / "requirements.txt").write_text("vllm==0.7.2\n")
    (tmp_path / "serve.sh").write_text("uvx vllm serve Qwen/Qwen2.5-7B-Instruct --swap-space 4\n")
    [f] = lint([str(tmp_path / "serve.sh")], LintOptions(select=("KV005",))).findings
    assert f.severity == Severity.WARNING and "0.33.0 assumed" in f.message


def test_side_files_that_are_not_regular_files_are_passed_over_not_waited_on(tmp_path):
    """A FIFO named uv.lock, a sourced env.sh or a Dockerfile: opening one for reading waits for a writer, so the
    run hung (bad input, issue Q). Side files go through kvlint.sidefile.side_text, which checks the type first."""
    import os
    import subprocess

    if not hasattr(os, "mkfifo"):
        import pytest

        pytest.skip("no FIFOs on this platform")
    os.mkfifo(tmp_path / "uv.lock")
    os.mkfifo(tmp_path / "env.sh")
    os.mkfifo(tmp_path / "Dockerfile")
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\ndependencies = ["vllm"]\n')
    (tmp_path / "serve.sh").write_text(". ./env.sh\ndocker build -t mine .\nuv run vllm serve Qwen/Qwen2.5-7B-Instruct\n"
                                       "docker run mine --model Qwen/Qwen2.5-7B-Instruct\n")
    run = subprocess.run([sys.executable, "-m", "kvlint", "check", "--format", "json", str(tmp_path / "serve.sh")],
                         capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert run.returncode in (0, 1) and "Traceback" not in run.stderr
    from kvlint.sidefile import side_text

    assert side_text(str(tmp_path / "uv.lock"), 1024) is None
    assert side_text(str(tmp_path / "pyproject.toml"), 1024) is not None
    assert side_text(str(tmp_path / "pyproject.toml"), 8) is None  # over the cap
