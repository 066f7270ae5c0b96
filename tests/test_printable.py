"""terminal-escapes.sh: no control character from a manifest reaches a terminal raw (window title, clear
screen, colour, a carriage return overwriting the line); kvlint's own colour codes still do."""

from __future__ import annotations

import re

import pytest

from kvlint.cli import main
from kvlint.printable import printable

ESC_FILE = ("vllm serve 'org/\x1b]0;PWNED-TITLE\x07\x1b[2J\x1b[31mRED' --max-model-len 4096\n"
            "vllm serve Qwen/Qwen2.5-7B-Instruct --served-model-name 'a\rFAKE-OVERWRITE' --bogus-\x1b]0;x 1\n"
            "vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len \x9b31m\u202e4096\n")
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e]")


@pytest.fixture
def esc(tmp_path, monkeypatch):
    (tmp_path / ".git").mkdir()
    monkeypatch.chdir(tmp_path)
    (tmp_path / "esc.sh").write_text(ESC_FILE, newline="")
    return tmp_path


@pytest.mark.parametrize("argv", [
    ["check", "esc.sh"], ["check", "--format", "github", "esc.sh"], ["check", "--gpu", "H100", "esc.sh"],
    ["inspect", "esc.sh"], ["budget", "--gpu", "H100", "esc.sh"], ["models", "pull", "esc.sh"],
    ["budget", "--gpu", "H100", "--", "vllm", "serve", "Qwen/Qwen2.5-7B-Instruct", "--bogus-\x1b]0;x"],
    ["check", "--config", "no-such-\x1b[2J.yaml", "esc.sh"],
])
def test_no_control_character_reaches_the_terminal(esc, capsys, argv):
    main(argv)
    out, err = capsys.readouterr()
    assert out + err
    assert RAW.findall(out + err) == []


def test_the_escapes_are_shown_and_the_carets_follow_them(esc, capsys):
    main(["check", "esc.sh"])
    out = capsys.readouterr().out
    assert "org/\\x1b]0;PWNED-TITLE\\x07\\x1b[2J" in out
    lines = out.splitlines()
    frame = next(i for i, line in enumerate(lines) if line.startswith("1 | vllm serve 'org/"))
    carets = lines[frame + 1]
    marked = lines[frame][carets.index("^"):len(carets.rstrip())]
    assert marked == "org/\\x1b]0;PWNED-TITLE\\x07\\x1b[2J\\x1b[31mRED"


def test_printable():
    assert printable("a\tb\nc") == "a\tb\nc"
    assert printable("\x1b[2J\r\x7f\x9b\u202e") == "\\x1b[2J\\x0d\\x7f\\x9b\\u202e"
