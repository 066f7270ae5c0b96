"""Apptainer definitions (kvlint.launches.apptainer): only their script sections are shell."""

from __future__ import annotations

from pathlib import Path

from kvlint.launches import read_path

FIX = Path(__file__).resolve().parent.parent / "fixtures" / "launches" / "apptainer"


def test_a_definitions_help_text_written_by_a_here_document_is_no_launch():
    """Sample K87's build job: `cat > vllm.def <<EOF` holding `%help` lines with `vllm serve <model_name>` was read
    as two launches; the %help section is text."""
    result = read_path(str(FIX / "build.job"))
    assert result.deployments == []


def test_a_definition_files_runscript_is_read_and_its_help_is_not():
    (d,) = read_path(str(FIX / "serve.def")).deployments
    assert (d.model, d.model_span.line, d.get("max_model_len")) == ("org/runscript-model", 9, 8192)


def test_a_def_file_that_is_no_definition_holds_nothing(tmp_path):
    path = tmp_path / "module.def"
    path.write_text("EXPORTS\n    vllm serve org/m\n")
    assert read_path(str(path)).deployments == []
