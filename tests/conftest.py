"""Shared fixtures: the ../shared folder (skipped with a reason when absent) and an offline environment."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import settings

# CI explores the same examples on every run (no flaky reds from a new random draw) and never fails on
# timing; developers' runs keep drawing new examples, which is how new bugs are found.
settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    """../shared beside the clone (CI has it); tests that need it skip with a clear reason otherwise."""
    if not (SHARED / "models").is_dir():
        pytest.skip(f"../shared not found at {SHARED}: shared models, corpus and logs are needed for this test")
    return SHARED


@pytest.fixture(autouse=True)
def _offline(monkeypatch, tmp_path_factory):
    """No test may reach the network; an empty HF cache unless a test builds its own."""
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_DISABLE_TELEMETRY", "1")
    if "HF_HUB_CACHE" not in os.environ:
        monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path_factory.mktemp("empty-hf-cache")))
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)  # else `kvlint check` would pick the github format
