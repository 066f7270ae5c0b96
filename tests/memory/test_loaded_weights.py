"""vLLM's "Model loading took": parameters in the layout the release's kernels keep, plus the RoPE table."""

from __future__ import annotations

import json

from kvlint.gpus import lookup_gpu
from kvlint.memory import compute_budget
from kvlint.models.config import spec_from_config
from kvlint.models.weights import mxfp4_layout_bytes, rope_cache_bytes, weights_bytes

GIB = 2**30


def _load(shared, model_id):
    path = shared / "models" / model_id / "config.json"
    return spec_from_config(json.loads(path.read_text()), model_id, str(path))


def _weights(spec, version, gpu, **settings):
    card = lookup_gpu(gpu) if gpu else None
    return compute_budget("vllm", spec, settings, card, version=version, gpu_memory_bytes=80 * GIB,
                          non_kv_bytes=GIB).weights_bytes


def test_mxfp4_backend_follows_release_and_card(shared_dir):
    """get_mxfp4_backend: Marlin on Hopper in 0.10.1 (torch 2.7.1 < 2.8) and below SM 9.0, Triton on Hopper from
    0.10.2, FlashInfer on SM 10.x; the checkpoint layout when the card is unknown."""
    spec = _load(shared_dir, "openai/gpt-oss-120b")
    plain = weights_bytes(spec) + rope_cache_bytes(spec)
    expect = {("0.10.1", "H100"): "marlin", ("0.11.0", "H100"): "triton", ("0.33.0", "H100"): "triton",
              ("0.11.0", "A100 80GB"): "marlin", ("0.33.0", "B200"): "flashinfer", ("0.33.0", None): "checkpoint"}
    for (version, gpu), backend in expect.items():
        assert _weights(spec, version, gpu) == plain + mxfp4_layout_bytes(spec, backend), (version, gpu)
    assert _weights(spec, "0.10.1", "H100") - _weights(spec, "0.11.0", "H100") > GIB  # Marlin pads 2880 -> 3072


def test_rope_table_is_part_of_the_loaded_weights(shared_dir):
    """Llama-4 Scout at TP 4 (vLLM 0.19 logged 53.12 GiB): 10,485,760 positions x 128 x 2 B of cos/sin per rank."""
    spec = _load(shared_dir, "meta-llama/Llama-4-Scout-17B-16E-Instruct")
    loaded = _weights(spec, "0.19.0", "H100", tensor_parallel_size=4)
    assert loaded - weights_bytes(spec, tp=4) == 10_485_760 * 128 * 2
    assert abs(loaded / GIB - 53.12) < 0.2
