"""A lock entry keeps the trimmed config (kvlint.models.trim): it must size every real model as the whole
config.json does, or `kvlint check` from the lock would disagree with `kvlint check --online`."""

from __future__ import annotations

import json

from kvlint.models.config import ModelConfigError, spec_from_config
from kvlint.models.trim import trim
from kvlint.record import replace


def test_trimmed_configs_give_the_same_spec(shared_dir):
    configs = sorted((shared_dir / "models").glob("*/*/config.json"))
    assert len(configs) > 50
    compared = 0
    for path in configs:
        cfg = json.loads(path.read_text())
        model_id = f"{path.parent.parent.name}/{path.parent.name}"
        try:
            whole = spec_from_config(cfg, model_id, "x")
        except ModelConfigError:
            continue
        cut = spec_from_config(trim(cfg), model_id, "x")
        assert replace(cut, raw={}) == replace(whole, raw={}), model_id
        compared += 1
    assert compared > 50


def test_trim_drops_what_kvlint_never_reads():
    cfg = {"architectures": ["X"], "hidden_size": 8, "eos_token_id": 2, "auto_map": {"a": "b"},
           "text_config": {"num_hidden_layers": 2, "bos_token_id": 1}}
    assert trim(cfg) == {"architectures": ["X"], "text_config": {"num_hidden_layers": 2}}


def test_the_lock_keeps_every_key_the_bundle_keeps():
    """One list for both (a Nemotron-H config locked without `hybrid_override_pattern` would be sized as 88
    attention + MoE blocks: 174.6 GiB of weights per rank instead of 14.3)."""
    import importlib.util
    from pathlib import Path

    from kvlint.models import trim

    script = Path(__file__).resolve().parents[2] / "scripts" / "refresh_registry.py"
    spec = importlib.util.spec_from_file_location("refresh_registry", script)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.TEXT_KEYS is trim.TEXT_KEYS and "hybrid_override_pattern" in trim.TEXT_KEYS
