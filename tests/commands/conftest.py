"""Helpers the command tests share."""

from __future__ import annotations

import pytest

from kvlint.cli import main


@pytest.fixture
def isolated_cwd(tmp_path, monkeypatch):
    """No .kvlint.yaml of the checkout (or above it) may leak a calibration into these runs."""
    (tmp_path / ".git").mkdir(exist_ok=True)
    monkeypatch.chdir(tmp_path)


def run_cli(capsys, *argv):
    """(exit code, stdout, stderr) of one in-process kvlint run."""
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err
