"""kvlint.resolve.repository: a host script whose repository pins the engine's image beside or above it may run in
that image, so a flag the newest release removed is said (an info naming the pin), not asserted (samples K147 and
K149: a root Dockerfile `FROM lmsysorg/sglang:nightly-dev-...-20260715`, a root changelog of
`lmsysorg/sglang:v0.5.12-cu130` images, and scripts whose `--cuda-graph-max-bs` those images still accept)."""

from __future__ import annotations

from pathlib import Path

from kvlint.findings import Severity
from kvlint.lint import LintOptions, lint
from kvlint.resolve.repository import repository_pins

SCRIPT = "#!/bin/bash\npython3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --cuda-graph-max-bs 512 &\n"


def _repo(tmp_path: Path, files: dict[str, str], git: bool = True) -> Path:
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    if git:
        (tmp_path / ".git").mkdir()
    return tmp_path / "setup" / "scripts" / "launch.sh"


def _kv005(script: Path):
    [found] = [f for f in lint([str(script)], LintOptions(select=("KV005",))).findings]
    return found


def test_a_pin_at_the_repositorys_root_makes_the_release_open(tmp_path):
    script = _repo(tmp_path, {"setup/scripts/launch.sh": SCRIPT,
                              "Dockerfile.sglang": "FROM lmsysorg/sglang:nightly-dev-cu13-20260715-50d1edaa\n"})
    found = _kv005(script)
    assert found.severity == Severity.INFO
    assert "its repository pins lmsysorg/sglang:nightly-dev-cu13-20260715-50d1edaa at Dockerfile.sglang:1" in \
        found.message and "the release decides" in found.message


def test_outside_a_repository_the_host_release_is_assumed(tmp_path):
    script = _repo(tmp_path, {"setup/scripts/launch.sh": SCRIPT,
                              "Dockerfile.sglang": "FROM lmsysorg/sglang:v0.5.12-cu130\n"}, git=False)
    found = _kv005(script)
    assert found.severity == Severity.WARNING and "installed today" in found.message


def test_a_pin_beside_the_scripts_folders_is_another_projects(tmp_path):
    """A monorepo's other project (`other/compose.yaml`) is not a folder the script sits in: no evidence."""
    script = _repo(tmp_path, {"setup/scripts/launch.sh": SCRIPT,
                              "other/compose.yaml": "services:\n  s:\n    image: lmsysorg/sglang:v0.5.12-cu130\n"})
    assert _kv005(script).severity == Severity.WARNING


def test_only_the_engines_own_tagged_images_are_pins(tmp_path):
    _repo(tmp_path, {"setup/scripts/launch.sh": SCRIPT,
                     "setup/images.yaml": "a: lmsysorg/sglang:latest\nb: myorg/sglang-app:v1.2.0\n"
                                          "c: vllm/vllm-openai:v0.10.1\nd: lmsysorg/sglang:v0.5.12-cu130\n"})
    pins = repository_pins(str(tmp_path / "setup" / "scripts" / "launch.sh"), "sglang")
    assert pins == (("lmsysorg/sglang:v0.5.12-cu130", "setup/images.yaml:4"),)
    assert repository_pins(str(tmp_path / "setup" / "scripts" / "launch.sh"), "vllm") == \
        (("vllm/vllm-openai:v0.10.1", "setup/images.yaml:3"),)

