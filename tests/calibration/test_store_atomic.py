"""`verify --calibrate` writes .kvlint.yaml atomically: a failing disk, a kill, a symlink, a second run at once.

Before, the file was opened for writing (emptied) and then written: a full disk or SIGKILL left 0 bytes.
"""

from __future__ import annotations

import errno
import os
import signal
import stat
import subprocess
import sys
import textwrap
import time
from dataclasses import replace

import pytest
import yaml

from kvlint.calibration import store
from kvlint.calibration.entry import Calibration, entries
from kvlint.errors import InputError, KvlintError

ENTRY = Calibration(model="meta-llama/Llama-3.1-8B-Instruct", gpu="H100 SXM 80GB", tp=2, engine="vllm",
                    engine_version="0.19.0", non_kv_gib=3.96, source_log="logs/start.log")
ORIGINAL = b"# team settings\nfail-on: warning\ncalibration:\n  - model: old/m\n    gpu: A100\n"


@pytest.fixture
def repo(tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / ".kvlint.yaml").write_bytes(ORIGINAL)
    return tmp_path


def _leftovers(folder) -> list[str]:
    return [p.name for p in folder.iterdir() if p.name.endswith(store.TEMP_SUFFIX)]


@pytest.mark.parametrize("fail", ["write", "fsync", "replace"])
def test_a_failing_write_leaves_the_original_bytes(repo, monkeypatch, fail):
    real = getattr(os, fail)
    calls = []

    def full_disk(*args):
        calls.append(args)
        if fail == "write" and len(calls) == 1:  # part of the text lands, then the disk is full
            return real(args[0], bytes(args[1][:10]))
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, fail, full_disk)
    with pytest.raises(InputError, match="No space left on device; the file is unchanged"):
        store.save(ENTRY, str(repo))
    monkeypatch.undo()
    assert (repo / ".kvlint.yaml").read_bytes() == ORIGINAL
    assert _leftovers(repo) == []


KILLED_CHILD = textwrap.dedent("""
    import os, sys, time
    from kvlint.calibration import store
    from kvlint.calibration.entry import Calibration
    real = os.fsync
    def stall(fd):  # the text is written, not yet renamed: the moment a kill used to cost the file
        open(sys.argv[2], "w").close()
        time.sleep(60)
    os.fsync = stall
    store.save(Calibration(model="m/x", gpu="H100 SXM 80GB", tp=1, engine="vllm", engine_version="0.19.0",
                           non_kv_gib=1.0), sys.argv[1])
""")


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs POSIX signals")
def test_sigkill_during_the_write_leaves_the_original_bytes(repo):
    marker = repo / "at-the-write"
    child = subprocess.Popen([sys.executable, "-c", KILLED_CHILD, str(repo), str(marker)])
    deadline = time.monotonic() + 60
    while not marker.exists() and child.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    assert marker.exists(), "the child never reached the write"
    child.send_signal(signal.SIGKILL)
    child.wait(timeout=30)
    assert (repo / ".kvlint.yaml").read_bytes() == ORIGINAL
    assert len(_leftovers(repo)) == 1  # the killed run's temporary file, beside the untouched original
    store.save(ENTRY, str(repo))  # the next run cleans it up and lands
    assert _leftovers(repo) == [] and ENTRY in entries(yaml.safe_load((repo / ".kvlint.yaml").read_text()))


def test_the_file_keeps_its_mode_and_other_content(repo):
    os.chmod(repo / ".kvlint.yaml", 0o640)
    store.save(ENTRY, str(repo))
    assert stat.S_IMODE(os.stat(repo / ".kvlint.yaml").st_mode) == 0o640
    text = (repo / ".kvlint.yaml").read_text()
    assert text.startswith("# team settings\nfail-on: warning\n") and ENTRY in entries(yaml.safe_load(text))


@pytest.mark.skipif(sys.platform == "win32", reason="symlinks need privileges on Windows")
def test_a_symlink_out_of_the_repository_is_not_followed(tmp_path):
    repo, outside = tmp_path / "repo", tmp_path / "elsewhere"
    (repo / ".git").mkdir(parents=True)
    outside.mkdir()
    (outside / "shared.yaml").write_bytes(ORIGINAL)
    os.symlink(outside / "shared.yaml", repo / ".kvlint.yaml")
    with pytest.raises(KvlintError, match="outside this repository"):
        store.save(ENTRY, str(repo))
    assert (outside / "shared.yaml").read_bytes() == ORIGINAL


@pytest.mark.skipif(sys.platform == "win32", reason="symlinks need privileges on Windows")
def test_a_symlink_inside_the_repository_is_written_through_and_kept(repo):
    (repo / "config").mkdir()
    os.replace(repo / ".kvlint.yaml", repo / "config" / "kvlint.yaml")
    os.symlink("config/kvlint.yaml", repo / ".kvlint.yaml")
    store.save(ENTRY, str(repo))
    assert os.path.islink(repo / ".kvlint.yaml")
    assert ENTRY in entries(yaml.safe_load((repo / "config" / "kvlint.yaml").read_text()))


CONCURRENT_CHILD = textwrap.dedent("""
    import sys
    from kvlint.calibration import store
    from kvlint.calibration.entry import Calibration
    store.save(Calibration(model="m/x", gpu="H100 SXM 80GB", tp=int(sys.argv[2]), engine="vllm",
                           engine_version="0.19.0", non_kv_gib=1.0), sys.argv[1])
""")


@pytest.mark.skipif(sys.platform == "win32", reason="the folder lock needs fcntl")
def test_runs_calibrating_at_once_all_land(repo):
    children = [subprocess.Popen([sys.executable, "-c", CONCURRENT_CHILD, str(repo), str(tp)]) for tp in range(1, 7)]
    assert [c.wait(timeout=120) for c in children] == [0] * 6
    found = entries(yaml.safe_load((repo / ".kvlint.yaml").read_text()))
    assert sorted(e.tp for e in found if e.model == "m/x") == [1, 2, 3, 4, 5, 6]


def test_an_alias_bomb_configuration_is_refused_not_expanded(repo):
    lines = ['a0: &a0 ["x","x","x","x","x","x","x","x","x"]']
    lines += [f"a{i}: &a{i} [" + ",".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, 10)]
    (repo / ".kvlint.yaml").write_text("\n".join(lines) + "\n")
    with pytest.raises(KvlintError, match="alias bomb"):
        store.save(ENTRY, str(repo))
    assert store.load_file(str(repo / ".kvlint.yaml")) == {}


def test_a_new_file_is_created_with_the_default_mode(tmp_path):
    (tmp_path / ".git").mkdir()
    path = store.save(replace(ENTRY, tp=8), str(tmp_path))
    mask = os.umask(0)
    os.umask(mask)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o666 & ~mask
