"""DJL-Serving / SageMaker LMI serving.properties as a launch: the engine from `option.rolling_batch` (or LMI's
default for `engine=Python|MPI`), `option.` keys through the engine's flag table, inline comments cut, a
placeholder model left unresolved. Fixtures in tests/fixtures/launches/properties."""

from __future__ import annotations

from pathlib import Path

from kvlint.launches import read_path
from kvlint.launches.kinds import kind_for, walked

FIX = Path(__file__).resolve().parent.parent / "fixtures" / "launches" / "properties"


def _at(span):
    return (span.line, span.col)


def test_lmi_properties_are_a_vllm_launch_with_each_value_at_its_place():
    (d,) = read_path(str(FIX / "serving.properties")).deployments
    assert (d.engine, d.model, d.model_resolved, _at(d.model_span)) == ("vllm", "org/lmi-model", True, (3, 17))
    assert d.get("max_model_len") == 32768 and _at(d.settings["max_model_len"].span) == (5, 22)
    assert d.get("tensor_parallel_size") == 2 and _at(d.settings["tensor_parallel_size"].span) == (6, 33)
    assert d.get("gpu_memory_utilization") == 0.85 and _at(d.settings["gpu_memory_utilization"].span) == (7, 31)
    assert d.get("trust_remote_code") is True and d.unknown_flags == ()


def test_a_placeholder_model_and_an_inline_comment():
    (d,) = read_path(str(FIX / "template" / "serving.properties")).deployments
    assert (d.engine, d.model, d.model_resolved, _at(d.model_span)) == ("vllm", "your-model-id", False, (2, 17))
    assert any("placeholder" in n for n in d.notes)
    assert d.get("tensor_parallel_size") == 1


def test_properties_without_an_engine_are_no_launch_and_are_walked():
    assert read_path("x.properties", "option.model_id=org/m\noption.rolling_batch=trtllm\n").deployments == []
    assert read_path("log4j.properties", "log4j.rootLogger=INFO\n").deployments == []
    assert kind_for("serving.properties").name == "properties" and walked("code/serving.properties")
