"""Which documented release a date or a version number is modelled as, at the boundaries (issue O item 9).

The build dates are the `released` fields of kvlint/data/engine_versions.json (the date of vllm/_version.py in each
release wheel); a log or a date-tagged image that names no release is judged on the release built on or before its
date, and on the next one (a development build sits between them).
"""

from __future__ import annotations

import pytest

from kvlint.errors import KvlintError
from kvlint.memory.versions import (
    _key,
    _padded,
    release_on,
    releases_around,
    sglang_version,
    vllm_release_on,
    vllm_version,
)


@pytest.mark.parametrize("date, want", [
    ("2025-02-05", None),  # the day before 0.7.2's build: older than the tables
    ("2025-02-06", "0.7.2"),  # its build day itself
    ("2025-03-17", "0.7.2"),
    ("2025-03-18", "0.8.0"),
    ("2025-12-18", "0.12.0"),
    ("2025-12-19", "0.13.0"),  # vllm/_version.py's date in the 0.13.0 wheel (and its upload day)
    ("2026-01-18", "0.14.0"),  # the 0.14.0 wheel's build day (uploaded 2026-01-20)
    ("2026-01-29", "0.15.0"),
    ("2026-10-31", "0.27.0"),
    ("2026-11-01", "0.33.0"),
    ("2030-01-01", "0.33.0"),
])
def test_vllm_release_on_a_date(date, want):
    assert vllm_release_on(date) == want == release_on("vllm", date)


@pytest.mark.parametrize("date, want", [
    ("2025-02-05", ("0.7.2",)),  # before the first: the nearest modelled
    ("2025-02-06", ("0.7.2", "0.8.0")),  # on a build day: that release and the next
    ("2025-03-17", ("0.7.2", "0.8.0")),
    ("2025-03-18", ("0.8.0", "0.9.2")),
    ("2026-11-01", ("0.33.0",)),  # the newest: no next one
])
def test_vllm_releases_around_a_date(date, want):
    assert releases_around("vllm", date) == want


def test_sglang_releases_around_a_date():
    assert releases_around("sglang", "2025-07-05") == ("0.4.9",)
    assert releases_around("sglang", "2025-10-06") == ("0.5.3", "0.5.4")
    assert releases_around("sglang", "2025-10-05") == ("0.4.9", "0.5.3")
    assert release_on("sglang", "2025-07-05") is None and release_on("sglang", "2026-10-30") == "0.5.23"


@pytest.mark.parametrize("text, key", [
    ("0.10.1.1+cu128", (0, 10, 1, 1)),
    ("v0.8.5.post1", (0, 8, 5)),
    ("0.33", (0, 33)),
    (" 1 ", (1,)),
])
def test_version_keys(text, key):
    assert _key(text) == key


def test_padded_keys_order_a_point_release_after_its_base():
    assert _padded((0, 33)) == (0, 33, 0) and _padded((0, 10, 1, 1)) == (0, 10, 1, 1)
    assert _padded((1,)) == (1, 0, 0)


@pytest.mark.parametrize("text", ["latest", "", "nightly-0.9", "x1.2"])
def test_text_without_a_leading_number_is_no_version(text):
    with pytest.raises(KvlintError, match="is not a version number"):
        _key(text)


@pytest.mark.parametrize("asked, modelled, noted", [
    ("0.7.1", "0.7.2", True),  # below the first documented release: the first, with a note
    ("0.7.2", "0.7.2", False),
    ("0.7.2.1", "0.7.2", True),  # a patch of a documented release is not that release
    ("0.8", "0.8.0", False),  # 0.8 is 0.8.0
    ("0.8.1", "0.8.0", True),
    ("0.10.1.1", "0.10.1", True),
    ("0.33.0", "0.33.0", False),
    ("1.0.0", "0.33.0", True),
])
def test_vllm_version_mapping(asked, modelled, noted):
    resolved = vllm_version(asked)
    assert resolved.record.version == modelled
    assert bool(resolved.note) is noted
    if noted:
        assert resolved.note == f"vllm {asked} is not in kvlint's release table; modelled as {modelled}"


def test_sglang_version_mapping_and_default():
    assert sglang_version(None).record.version == "0.5.23" and sglang_version(None).note == ""
    assert sglang_version("0.5.22").record.version == "0.5.12"
    assert sglang_version("0.4.0").record.version == "0.4.9"
    assert sglang_version("0.4.9").record.fixed_reserve[0] == (20480, 2.8, 0.1)
    assert sglang_version("0.5.23").record.fixed_reserve == ()
