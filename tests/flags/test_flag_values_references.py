"""References of other tools' expansion syntax are never judged as the engine's values."""

from __future__ import annotations

import pytest

from kvlint.flags.flag_values import is_unresolved


@pytest.mark.parametrize("text", ["%PORT%", "!PORT!", "@PORT@", "#{PORT}", "%{ if gpu }", "<%= port %>", "${X}",
                                  "$(X)", "{{ .Values.x }}"])
def test_another_tools_reference_is_unresolved(text):
    """cmd, configure_file, token-replacement tools, Terraform directives, ERB: a reader that misses the tool's own
    expansion leaves the value open (K18's `!PORT!` was judged "not an integer")."""
    assert is_unresolved(text)


@pytest.mark.parametrize("text", ["8000", "0.9", "auto", "100%", "a!b", "fp8_e4m3"])
def test_a_plain_value_is_resolved(text):
    assert not is_unresolved(text)
