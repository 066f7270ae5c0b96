"""The settings view the memory models read: answers as a mapping, and records asks for unresolved settings."""

from __future__ import annotations


def test_settings_view_get_answers_as_mapping_get_and_records_unresolved_asks():
    from collections.abc import Mapping

    from kvlint.resolve.sizing import SettingsView

    view = SettingsView({"max_model_len": 4096}, frozenset({"tensor_parallel_size"}))
    generic = SettingsView({"max_model_len": 4096}, frozenset({"tensor_parallel_size"}))
    for key, default in (("max_model_len", None), ("dtype", "auto"), ("tensor_parallel_size", 1)):
        assert view.get(key, default) == Mapping.get(generic, key, default)
    assert view.asked == generic.asked == {"tensor_parallel_size"}
