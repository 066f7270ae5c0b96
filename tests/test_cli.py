"""The CLI's last line of defence: any bug surfaces as one line and exit 2, unless KVLINT_DEBUG asks."""

from __future__ import annotations

import sys

import pytest

from kvlint import cli


def _boom():
    raise ZeroDivisionError("integer division or modulo by zero")


def test_internal_error_is_one_line(monkeypatch, capsys):
    monkeypatch.delenv("KVLINT_DEBUG", raising=False)
    monkeypatch.setattr(cli.cli(), "main", lambda **kw: _boom())
    assert cli.main(["rules"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("kvlint: internal error: ZeroDivisionError")
    assert "Traceback" not in err and err.count("\n") == 1


def test_debug_env_reraises(monkeypatch):
    monkeypatch.setenv("KVLINT_DEBUG", "1")
    monkeypatch.setattr(cli.cli(), "main", lambda **kw: _boom())
    with pytest.raises(ZeroDivisionError):
        cli.main(["rules"])


def test_internal_error_on_the_plain_check_path_is_one_line(monkeypatch, capsys):
    from kvlint.commands import check

    monkeypatch.delenv("KVLINT_DEBUG", raising=False)
    monkeypatch.setattr(check, "run", lambda **kw: _boom())
    assert cli.main(["check", "--exit-zero", "examples"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("kvlint: internal error: ZeroDivisionError") and err.count("\n") == 1


def test_version_and_unknown_command(capsys):
    assert cli.main(["--version"]) == 0
    assert "kvlint" in capsys.readouterr().out
    assert cli.main(["frobnicate"]) == 2


# ---------------------------------------------------------------- the console script's exit (kvlint.cli.entry)

REPO = __import__("pathlib").Path(__file__).resolve().parent.parent
GOOD = str(REPO / "examples" / "kubernetes" / "good-deployment.yaml")


def _run(code: str, *args: str, **kwargs):
    import subprocess
    import sys

    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=120,
                          cwd=REPO, **kwargs)


def test_entry_exits_with_mains_code_its_output_whole_and_atexit_run():
    """The teardown is skipped, not what a normal exit promises: the report reaches a file or pipe in full,
    atexit handlers run (after the report, as at a normal exit), and the exit code is main's."""
    code = ("import atexit, sys; atexit.register(lambda: print('atexit ran')); from kvlint.cli import entry; "
            "entry(sys.argv[1:])")
    expected = _run("import sys; from kvlint.cli import main; sys.exit(main(sys.argv[1:]))", "check", "examples")
    out = _run(code, "check", "examples")
    assert out.returncode == expected.returncode == 1  # examples/ holds errors
    assert out.stdout == expected.stdout + "atexit ran\n" and "Found" in out.stdout
    assert _run(code, "check", GOOD).returncode == 0


def test_entry_leaves_the_normal_exit_to_a_run_with_other_threads(tmp_path):
    """Another thread alive: the normal exit, which waits for it (os._exit would kill it mid-work)."""
    marker = tmp_path / "done"
    code = ("import sys, threading, time, pathlib\n"
            "def work():\n    time.sleep(0.3); pathlib.Path(sys.argv[1]).write_text('done')\n"
            "threading.Thread(target=work).start()\n"
            "from kvlint.cli import entry\nentry(['check', sys.argv[2]])\n")
    out = _run(code, str(marker), GOOD)
    assert out.returncode == 0 and marker.read_text() == "done"


def test_a_closed_pipe_ends_quietly_with_exit_0():
    """`kvlint check . | head -1`: the reader goes away; no traceback, no 'Exception ignored', exit 0."""
    import subprocess
    import sys

    proc = subprocess.Popen([sys.executable, "-m", "kvlint", "check", "--jobs", "1", "examples"], cwd=REPO,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # before the first line: every write of the report meets a closed pipe
    assert proc.wait(timeout=120) == 0
    assert proc.stderr.read() == ""


@pytest.mark.parametrize("argv", [["check", "x.sh"], ["inspect", "x.sh"], ["check", "--format", "json", "x.sh"]])
def test_ctrl_c_is_one_line_and_exit_130(tmp_path, monkeypatch, capsys, argv):
    import kvlint.launches

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.chdir(tmp_path)
    (tmp_path / "x.sh").write_text("vllm serve Qwen/Qwen3-8B\n")
    monkeypatch.setattr(kvlint.launches, "read_path", interrupted)
    assert cli.main(argv) == 130
    err = capsys.readouterr().err
    assert err.strip().splitlines()[-1] == "kvlint: interrupted" and "Traceback" not in err


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signal")
def test_a_real_sigint_mid_run_prints_no_traceback(tmp_path):
    import signal
    import subprocess

    for i in range(1500):
        (tmp_path / f"f{i}.sh").write_text(f"vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len {40000 + i}\n")
    # A child inherits an ignored SIGINT, and Python then installs no KeyboardInterrupt handler: whatever the test
    # runner's own state (an earlier test may leave SIGINT ignored), kvlint starts as a shell would start it.
    proc = subprocess.Popen([sys.executable, "-m", "kvlint", "check", "-j1", str(tmp_path)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    assert proc.stdout is not None and proc.stdout.readline()  # the run is under way
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and err.strip().splitlines()[-1] == "kvlint: interrupted"
