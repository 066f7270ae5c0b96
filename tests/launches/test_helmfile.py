"""kvlint.launches.helmfile: a release's inline values read by the chart adapters in place, and a release given
only `set:` entries assembled as Terraform's helm_release is."""

from __future__ import annotations

from kvlint.launches import read_path
from tests.launches.test_docker_and_positional import FIX, _at


def test_inline_values_and_set_entries_are_each_a_launch_at_their_values():
    deps = read_path(str(FIX / "helmfile" / "helmfile.yaml")).deployments
    got = [(d.model, _at(d.model_span), d.engine_version, d.get("max_model_len"), d.gpu_count) for d in deps]
    assert got == [("meta-llama/Llama-3.1-8B-Instruct", (16, 25), "0.10.1", 16384, 1),
                   ("Qwen/Qwen2.5-7B-Instruct", (24, 16), "0.10.1", None, 2)]
    assert _at(deps[1].gpu_count_span) == (30, 16)
