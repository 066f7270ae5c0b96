"""Shapes the turn-39 held-out samples (and the turn-38 leftovers) showed kvlint passing over or misreading, each read
by a mechanism, not a case."""

from __future__ import annotations

from kvlint.launches import read_path


def _checked(path) -> list[dict]:
    """The findings `kvlint check PATH --format json` reports (what a user sees, rules included)."""
    import json

    from click.testing import CliRunner

    from kvlint.cli import cli

    result = CliRunner().invoke(cli(), ["check", str(path), "--format", "json", "--exit-zero"])
    return list(json.loads(result.stdout)["findings"])


def test_a_plugin_server_module_in_an_indented_block_is_a_launch(tmp_path):
    """Turn 38's K346 (a design plan): `python -m vllm_omni.entrypoints.openai.serving_image --model Qwen/Qwen-Image`
    pasted as an indented (unfenced) block three times. Lines outside fences are read where they name an entry point;
    a plugin package's own server module (kvlint/data/plugins.json) is one, as in a fenced block. A module of a
    package the data does not list, or prose naming the module, is not."""
    path = tmp_path / "plan.md"
    path.write_text("# Plan\n\nUsage:\n\n    python -m vllm_omni.entrypoints.openai.serving_image \\\n"
                    "        --model Qwen/Qwen-Image --port 8091\n\nThe module `vllm_omni.entrypoints` serves it.\n\n"
                    "    python -m other_pkg.entrypoints.openai.serving_image --model Qwen/Qwen-Image\n")
    (dep,) = read_path(str(path)).deployments
    assert (dep.engine, dep.model) == ("vllm", "Qwen/Qwen-Image")
    assert dep.model_span is not None and (dep.model_span.line, dep.model_span.col) == (6, 17)
