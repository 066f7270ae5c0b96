"""Issue 23, the reviewer's last wrong and noisy findings (bench/reviewer-table-2.tsv): each fixture marks the
warnings and errors it must give (`# expect:`); every other warning or error is a failure, and the infos that
replace a verdict are asserted by what they say."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _expect import expected

from kvlint.findings import Severity
from kvlint.lint import LintOptions, lint

VERDICTS = Path(__file__).resolve().parents[1] / "fixtures" / "verdicts"


def check(path: Path, gpu: str | None = None):
    result = lint([str(path)], LintOptions(gpu=gpu))
    assert result.unreadable == []
    loud = {(f.span.line, f.code) for f in result.findings if f.severity > Severity.INFO and f.span}
    assert loud == expected(path)
    return result


def infos(result, code: str) -> list:
    return [f for f in result.findings if f.code == code and f.severity == Severity.INFO]


def test_a_disabled_chart_entry_is_not_deployed():
    """production-stack's modelSpec example (`enabled: false`): its KV204 is an info saying so."""
    result = check(VERDICTS / "disabled-entries.yaml")
    [off] = infos(result, "KV204")
    assert off.span.line == 14 and "enabled: false at line 7" in off.message
    assert off.data["severity_if_enabled"] == "error"


def test_a_disabled_kubeai_catalogue_entry_is_not_deployed():
    result = check(VERDICTS / "kubeai-disabled.yaml")
    [off] = infos(result, "KV204")
    assert off.span.line == 9 and "not deployed" in off.message


def test_a_flag_spelled_like_no_option_is_a_warning_without_a_suggestion():
    """LSMCache's `--enable-kvstore`: "did you mean --enable-trace" was a nonsense fix on a fork's own flag."""
    result = check(VERDICTS / "unknown-flag-no-spelling.sh")
    by_line = {f.span.line: f for f in result.findings if f.code == "KV004"}
    assert by_line[8].severity == Severity.ERROR and "did you mean --context-length" in by_line[8].message
    kvstore = by_line[9]
    assert kvstore.severity == Severity.WARNING and "did you mean" not in kvstore.message
    assert "--enable-trace" not in kvstore.message and "fork" in kvstore.message
    assert kvstore.fix and "--enable-trace" not in kvstore.fix


def test_a_fork_in_the_repository_runs_its_own_flags():
    """The repository holds python/sglang/srt/server_args.py: the launch runs that tree, and it defines the flag."""
    result = check(VERDICTS / "sglang-fork" / "server.sh")
    [f] = [f for f in result.findings if f.code == "KV004"]
    assert f.severity == Severity.INFO and f.span.line == 7
    assert "python/sglang/srt/server_args.py), which defines it" in f.message
    assert f.data["fork"].endswith("sglang-fork/python/sglang/srt/server_args.py")


def test_the_search_for_a_fork_stops_at_the_project_root(tmp_path):
    from kvlint.resolve.fork import engine_tree

    (tmp_path / "outer" / "sglang" / "srt").mkdir(parents=True)
    (tmp_path / "outer" / "sglang" / "srt" / "server_args.py").write_text('p.add_argument("--x-y")\n')
    project = tmp_path / "outer" / "project"
    (project / ".git").mkdir(parents=True)
    (project / "run.sh").write_text("python -m sglang.launch_server --x-y\n")
    assert engine_tree(str(project / "run.sh"), ("sglang/srt/server_args.py",)) is None
    tree = engine_tree(str(tmp_path / "outer" / "run.sh"), ("sglang/srt/server_args.py",))
    assert tree is not None and tree.defines("--x-y") and not tree.defines("--z")
