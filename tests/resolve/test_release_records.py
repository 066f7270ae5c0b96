"""vLLM 0.13 and 0.14 have records of their own (read in their wheels, bench/conformance/README.md "vLLM 0.12-0.15
records"): an image tagged with either release is sized on it, not on 0.12.0 with a "modelled as" note."""

from __future__ import annotations

from pathlib import Path

from kvlint.config import Config
from kvlint.launches import read_path
from kvlint.memory.versions import vllm_version
from kvlint.resolve import ResolveOptions, Resolver

NANO = "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16"  # config.json names mamba_ssm_cache_dtype float32


def _resolve(tag: str, tmp_path: Path):
    compose = (f"services:\n  vllm:\n    image: vllm/vllm-openai:{tag}\n"
               f"    command: --model {NANO} --max-model-len 8192\n")
    path = tmp_path / "docker-compose.yaml"
    path.write_text(compose)
    [dep] = read_path(str(path)).deployments
    return Resolver(ResolveOptions(gpu="H100")).resolve(dep, Config(root=str(tmp_path)))


def test_a_v0_13_image_is_sized_on_the_0_13_record(tmp_path):
    r = _resolve("v0.13.0", tmp_path)
    assert r.budget is not None and r.budget.engine_version == "0.13.0"
    assert not any("modelled as" in note for note in r.budget.notes)
    assert vllm_version("v0.13.0").note == "" and vllm_version("0.14.0").record.version == "0.14.0"


def test_nemotron_h_ssm_state_is_float16_or_the_configs_from_0_13(tmp_path):
    """models/config.py NemotronHForCausalLMConfig appears in the 0.13.0 wheel: --mamba-ssm-cache-dtype auto takes
    the config's mamba_ssm_cache_dtype, float16 where it names none; 0.12 keeps the model dtype. Nemotron-3-Nano names
    float32, so its Mamba page (and the attention page aligned to it) is larger on 0.13 than on 0.12."""
    assert vllm_version("0.13.0").record.nemotron_h_ssm_dtype == "float16"
    assert vllm_version("0.14.0").record.nemotron_h_ssm_dtype == "float16"
    assert vllm_version("0.12.0").record.nemotron_h_ssm_dtype == "model"
    new, old = _resolve("v0.13.0", tmp_path).budget, _resolve("v0.12.0", tmp_path).budget
    assert new is not None and old is not None
    assert new.detail.bytes_per_block > old.detail.bytes_per_block
