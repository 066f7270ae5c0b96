"""A command line a Python program makes from a dict of the engine's flags (kvlint.launches.pyflags), in a Modal app
whose decorator names the image and the GPUs (sample K250, measured: two launches passed over, said only)."""

from __future__ import annotations

from pathlib import Path

from kvlint.findings import Severity
from kvlint.launches import read_path
from kvlint.lint import LintOptions, lint

FIX = Path(__file__).parent.parent / "fixtures" / "launches" / "python"


def _at(span):
    return (span.line, span.col) if span else None


def test_a_dict_joined_into_flags_is_the_launch_each_value_at_its_key():
    """`" ".join([f"--{k} {v}" for k, v in serve_params.items()])` after `python -m sglang.launch_server `: each key
    is a flag, each value its value, placed in the dict; the decorator's image pins the release and its `gpu=` the
    cards; `--pp 2` on 0.4.10.post2 (older than every release read, where `--pp-size` was the only `--pp` option) is
    the pipeline size, not the default of 1."""
    (d,) = read_path(str(FIX / "modal_dict_flags.py")).deployments
    assert (d.engine, d.model, _at(d.model_span)) == ("sglang", "/model_storage/qwen3-coder-30b", (15, 28))
    assert (d.get("tp_size"), _at(d.settings["tp_size"].span)) == (8, (17, 19))
    assert (d.get("pp_size"), _at(d.settings["pp_size"].span)) == (2, (18, 14))
    assert (d.image, d.engine_version, d.gpu, d.gpu_count) == \
        ("lmsysorg/sglang:v0.4.10.post2-cu126", "0.4.10.post2", "h100", 16)
    assert [(u.flag, u.reason, _at(u.span)) for u in d.unknown_flags] == [
        ("--pp", "ambiguous", (18, 14)), ("--cuda-graph-bs", "removed", (19, 14))]


def test_the_abbreviation_on_a_release_older_than_the_tables_is_the_upgrade_that_breaks(tmp_path):
    """The same `--pp` with no pinned release is SGLang's today, where it is ambiguous: an error; on the pinned
    0.4.10.post2 a warning that names the upgrade, never an exit."""
    pinned = lint([str(FIX / "modal_dict_flags.py")], LintOptions(select=("KV004",))).findings
    assert [(f.code, f.severity, f.span.line) for f in pinned] == [("KV004", Severity.WARNING, 18)]
    assert "upgrading breaks" in pinned[0].message
    p = tmp_path / "serve.sh"
    p.write_text("python -m sglang.launch_server --model-path org/m --pp 2\n")
    (today,) = lint([str(p)], LintOptions(select=("KV004",))).findings
    assert today.severity == Severity.ERROR and "ambiguous abbreviation" in today.message


def test_other_comprehensions_stay_the_expression_they_are(tmp_path):
    """A condition in the loop, or a loop over something other than a dict's items, is not read as flags."""
    base = ('import subprocess\np = {"model": "org/m", "tp-size": 2}\n'
            'subprocess.Popen("python -m sglang.launch_server " + " ".join([f"--{k} {v}" for k, v in p.items()'
            '{cond}]), shell=True)\n')
    (plain,) = read_path("a.py", base.replace("{cond}", "")).deployments
    assert (plain.model, plain.get("tp_size")) == ("org/m", 2)
    guarded = read_path("a.py", base.replace("{cond}", " if v")).deployments
    assert all(d.model != "org/m" for d in guarded)
