"""The length vLLM's refusal prints against the length kvlint suggests (issue O item 4).

vLLM checks the workers in rank order (kv_cache_planning.get_kv_cache_configs) and the first that fails raises with
its own binary search, so with PP 3 or 4 its message can quote a length a later stage cannot hold. kvlint keeps the
length that fits every stage as its suggestion and shows the engine's beside it.
INTELLECT-3-Base (46 layers: stages of 15, 16 and 15) on H200 at PP 3, --max-model-len 131072.
"""

from __future__ import annotations

import pytest

from kvlint.gpus import lookup_gpu
from kvlint.memory import compute_budget
from kvlint.models.resolve import from_registry


def _budget(util: float, pp: int = 3):
    return compute_budget("vllm", from_registry("PrimeIntellect/INTELLECT-3-Base"),
                          {"pipeline_parallel_size": pp, "max_model_len": 131072, "gpu_memory_utilization": util},
                          lookup_gpu("H200"))


@pytest.mark.parametrize(("util", "fits_every_stage", "printed"), [
    (0.53, 768, 125_504),  # stage 0 fails first with room for 125,504; stage 1 holds 768
    (0.51, 0, 76_592),  # a later stage has no pool at all; vLLM still prints stage 0's estimate
    (0.54, 23_696, 23_696),  # the first failing stage is the binding one
])
def test_printed_estimate_is_the_first_failing_stage(util, fits_every_stage, printed):
    b = _budget(util)
    assert not b.fits_one_request
    assert (b.estimated_max_model_len, b.detail.engine_estimated_len) == (fits_every_stage, printed)
    assert b.to_json()["engine_estimated_max_model_len"] == printed
    extra = [s for s in b.steps if s.name == "estimated max model len (vLLM's message)"]
    assert [s.value for s in extra] == ([] if printed == fits_every_stage else [printed])


def test_no_printed_estimate_when_it_starts():
    b = _budget(0.54, pp=4)
    assert b.fits_one_request and b.detail.engine_estimated_len is None
    assert "engine_estimated_max_model_len" not in b.to_json()


def test_kv101_shows_the_engine_number_and_its_own(tmp_path):
    from click.testing import CliRunner

    from kvlint.cli import cli

    (tmp_path / "serve.sh").write_text("vllm serve PrimeIntellect/INTELLECT-3-Base -pp 3 --max-model-len 131072 "
                                       "--gpu-memory-utilization 0.53\n")
    out = CliRunner().invoke(cli(), ["check", "--gpu", "H200", "--format", "json", str(tmp_path)]).stdout
    import json

    kv101 = next(f for f in json.loads(out)["findings"] if f["code"] == "KV101")
    assert ('vLLM refuses to start (its message: "the estimated maximum model length is 125504"; that is the first '
            "pipeline stage that fails: 768 tokens fit every stage). Fits: --max-model-len 768") in kv101["message"]
    assert kv101["data"]["engine_estimated_max_model_len"] == 125504 and kv101["data"]["fits_max_model_len"] == 768


def test_kv101_says_nothing_more_where_the_engine_prints_the_suggested_length(tmp_path):
    from click.testing import CliRunner

    from kvlint.cli import cli

    (tmp_path / "serve.sh").write_text("vllm serve PrimeIntellect/INTELLECT-3-Base -pp 3 --max-model-len 131072 "
                                       "--gpu-memory-utilization 0.54\n")
    out = CliRunner().invoke(cli(), ["check", "--gpu", "H200", "--format", "json", str(tmp_path)]).stdout
    import json

    kv101 = next(f for f in json.loads(out)["findings"] if f["code"] == "KV101")
    assert "vLLM refuses to start. Fits: --max-model-len 23696" in kv101["message"]
    assert kv101["data"]["engine_estimated_max_model_len"] == 23696


@pytest.mark.parametrize(("version", "kv", "per_token"), [
    ("0.11.0", "bfloat16", 327_680),  # ModelOptFp8Config keeps kv_cache_quant_algo; the cache stays the model dtype
    ("0.12.0", "bfloat16", 327_680),
    ("0.13.0", "bfloat16", 327_680),
    ("0.14.0", "fp8", 163_840),  # arg_utils resolves auto from the checkpoint (vllm#30785; first in the 0.14 wheel)
    ("0.15.0", "fp8", 163_840),
    ("0.33.0", "fp8", 163_840),
])
def test_auto_kv_dtype_follows_a_modelopt_checkpoint_from_0_14(version, kv, per_token):
    """Found by the conformance harness once refusal numbers were compared: on 0.11 kvlint read a ModelOpt
    checkpoint's FP8 KV scheme into --kv-cache-dtype auto and printed twice the length the engine prints.
    Llama-3.1-70B: 80 layers x 8 KV heads x 128 x (K + V)."""
    b = compute_budget("vllm", from_registry("nvidia/Llama-3.1-70B-Instruct-FP8"), {"tensor_parallel_size": 1},
                       lookup_gpu("H200"), version=version)
    assert (b.kv_cache_dtype, b.kv_bytes_per_token) == (kv, per_token)
