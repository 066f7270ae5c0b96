"""The CLI's last line of defence: any bug surfaces as one line and exit 2, unless KVLINT_DEBUG asks."""

from __future__ import annotations

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
