"""What `kvlint check PATH --format json` reports, for tests that assert on findings a user sees (rules included)."""

from __future__ import annotations

import json

from click.testing import CliRunner

from kvlint.cli import cli


def checked(path) -> list[dict]:
    """The findings `kvlint check PATH --format json --exit-zero` reports."""
    result = CliRunner().invoke(cli(), ["check", str(path), "--format", "json", "--exit-zero"])
    return list(json.loads(result.stdout)["findings"])
