"""`sglang serve` on a diffusion model starts SGLang's diffusion server (sglang.multimodal_gen), whose parser is not
the LLM server's and which has no KV cache. Its flags are read with its own table (kvlint/data/
sglang_diffusion_flags.json), the launch is not sized, and its status says why. Fixtures are our own files in the
shape of a real start script (minimax-h3's start_sglang.sh got four wrong KV004 errors and a warning); their
`# expect:` markers pin the KV004s, and a diffusion launch gets no other finding."""

from __future__ import annotations

import json
import sys
from importlib import resources
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _expect import expected

from kvlint.flags.flag_table import flag_table
from kvlint.flags.server import server_of
from kvlint.launches import read_path
from kvlint.lint import LintOptions, lint

FIX = Path(__file__).resolve().parent.parent / "fixtures" / "launches" / "diffusion"
FILES = ("minimax.sh", "unknown-flag.sh", "llm-typo.sh", "module.sh", "deployment.yaml")


@pytest.fixture(autouse=True)
def _offline(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")


@pytest.mark.parametrize("name", FILES)
def test_unknown_flags_match_markers(name):
    path = FIX / name
    result = lint([str(path)], LintOptions(select=("KV004",)))
    assert {(f.span.line, f.span.col, f.code) for f in result.findings} == expected(path)


@pytest.mark.parametrize("name", ("minimax.sh", "unknown-flag.sh", "module.sh", "deployment.yaml"))
def test_diffusion_launches_are_not_sized_and_say_why(name):
    result = lint([str(FIX / name)], LintOptions())
    assert {f.code for f in result.findings} <= {"KV004", "KV010"}  # no KV002 for the model, no capacity rule
    assert result.launches and all(s.skip_kind == "no-kv-cache" for s in result.launches)
    assert len([f for f in result.findings if f.code == "KV010"]) == len(result.launches)  # one info each
    assert result.launches[0].skipped_because == "SGLang's diffusion server: no KV cache to size"


def test_llm_launches_stay_on_the_llm_server():
    deps = read_path(str(FIX / "llm-typo.sh")).deployments
    assert [d.server for d in deps] == [None, None]
    assert [u.flag for d in deps for u in d.unknown_flags] == ["--num-gpus", "--num-gpus"]  # --model-type is no KV004


def test_minimax_shape_reads_every_flag_with_the_diffusion_table():
    (dep,) = read_path(str(FIX / "minimax.sh")).deployments
    assert dep.server == "diffusion" and dep.unknown_flags == () and dep.model == "MiniMaxAI/MiniMax-H3"
    assert dep.settings["num_gpus"].value == 1 and dep.settings["dit_cpu_offload"].value is True


@pytest.mark.parametrize(("argv", "server"), [
    ("serve --model-path MiniMaxAI/MiniMax-H3 --port 1", "diffusion"),  # the registry names the model
    ("serve /models/minimax-h3 --port 1", "diffusion"),  # its repository name, in a local folder
    ("serve /hf/hub/models--Qwen--Qwen-Image/snapshots/0a1b --port 1", "diffusion"),  # in the Hub's cache
    ("serve /hf/hub/models--Qwen--Qwen3-8B/snapshots/0a1b --port 1", None),
    ("serve --model-path my/model --num-gpus 2", "diffusion"),  # a flag only the diffusion server takes
    ("serve --model-path my/model --num-gpus 2 --mem-fraction-static 0.8", None),  # and one only the LLM server takes
    ("serve --model-path my/model --port 1", None),  # nothing says diffusion
    ("serve --model-type=diffusion --model-path my/model", "diffusion"),
    ("serve --model-type llm --model-path MiniMaxAI/MiniMax-H3", None),
    ("sglang.multimodal_gen.runtime.launch_server --model-path my/model", "diffusion"),
    ("sglang.launch_server --model-path MiniMaxAI/MiniMax-H3 --num-gpus 1", None),  # the LLM server's own entry
])
def test_server_evidence(argv, server):
    assert server_of("sglang", argv.split(), 1) == server


def test_vllm_has_one_server():
    assert server_of("vllm", ["serve", "my/model", "--num-gpus", "2"], 1) is None


def test_table_matches_the_schema_and_has_the_diffusion_flags():
    import jsonschema

    schema = json.loads(resources.files("kvlint.data").joinpath("flags.schema.json").read_text())
    data = json.loads(resources.files("kvlint.data").joinpath("sglang_diffusion_flags.json").read_text())
    jsonschema.validate(data, schema)
    assert data["engine"] == "sglang" and data["server"] == "diffusion" and data["versions_read"][0] == "0.5.5"
    table = flag_table("sglang", "diffusion")
    for option in ("--num-gpus", "--dit-cpu-offload", "--text-encoder-cpu-offload", "--vae-cpu-offload",
                   "--pin-cpu-memory", "--sp-degree", "--ulysses-degree", "--ring-degree"):
        assert option in table.by_option, option
    assert "--context-length" not in table.by_option and "--num-gpus" not in flag_table("sglang").by_option
    count = sum(len(f.options) + len(f.negative) for f in table.flags)
    assert count == len(table.by_option)  # no option string twice
