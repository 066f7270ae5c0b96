"""The resolve stage's reading of a launch's inputs at their edges (issue O item 9): what counts as a declared load,
which GPU counts bound an open TP, which candidate GPUs are tried, and which config sources get spans."""

from __future__ import annotations

import json

from kvlint.config import Config
from kvlint.deployment import DeclaredLoad, Deployment, GpuOption, Setting
from kvlint.engines import get_engine
from kvlint.resolve import Resolver, declarations, declared_load

VLLM = get_engine("vllm")


def _dep(**kw) -> Deployment:
    settings = {"max_model_len": Setting("max_model_len", 8192), **kw.pop("settings", {})}
    return Deployment(path="serve.sh", engine="vllm", launch_span=None, model="Qwen/Qwen3-8B", settings=settings, **kw)


def test_what_counts_as_a_declared_load():
    seqs = VLLM.setting("max_seqs")
    assert declarations(_dep(settings={seqs: Setting(seqs, 16)}), VLLM) == [(16, "flag")]
    assert declarations(_dep(settings={seqs: Setting(seqs, 1)}), VLLM) == [(1, "flag")]
    for value in (0, -3, True, "16"):
        assert declarations(_dep(settings={seqs: Setting(seqs, value)}), VLLM) == [], value
    assert declarations(_dep(settings={seqs: Setting(seqs, 16, origin="default")}), VLLM) == []
    assert declarations(_dep(settings={seqs: Setting(seqs, 16, resolved=False)}), VLLM) == []
    target = DeclaredLoad(8, "containerConcurrency", None)
    assert declarations(_dep(declared_load=target), VLLM) == [(8, "target")]
    assert declarations(_dep(declared_load=DeclaredLoad(0, "hpa", None)), VLLM) == []
    both = _dep(settings={seqs: Setting(seqs, 16)}, declared_load=target)
    assert declarations(both, VLLM) == [(16, "flag"), (8, "target")]
    r = Resolver().resolve(both, Config())
    assert declared_load(r) == 8
    assert declared_load(Resolver().resolve(_dep(), Config())) is None


def _open_tp(count: int | None):
    tp = VLLM.setting("tp")
    dep = _dep(settings={tp: Setting(tp, "$(TP)", flag="-tp", raw="$(TP)", resolved=False)}, gpu_count=count)
    return Resolver().resolve(dep, Config()).open_input


def test_an_open_tp_is_bounded_by_one_to_sixty_four_gpus():
    assert _open_tp(64).values[:2] == ("64", "32") and len(_open_tp(64).values) == 7
    assert _open_tp(65) is None and _open_tp(None) is None and _open_tp(0) is None
    assert _open_tp(1) is None  # one GPU: one value, nothing open
    two = _open_tp(2)
    assert two.values == ("2", "1") and two.name == "-tp"
    assert two.settle.startswith("-tp is '$(TP)', bounded by the 2 GPUs requested")
    assert _open_tp(7).values == ("7", "1")


def _candidates(*names: str):
    dep = _dep(gpu_options=tuple(GpuOption(n, 1, None) for n in names))
    return Resolver().resolve(dep, Config()).candidates


def test_candidate_gpus_need_two_known_distinct_cards():
    assert [c.gpu for c in _candidates("L4", "H100").cards] == ["L4-24GB", "H100-SXM-80GB"]
    assert _candidates("L4") is None and _candidates("L4", "L4") is None and _candidates("L4", "Z9000") is None
    assert len(_candidates("L4", "Z9000", "H100", "h100").cards) == 2


def test_config_key_spans_only_for_a_config_the_user_owns(tmp_path):
    from kvlint.models.resolve import from_registry
    from kvlint.record import replace
    from kvlint.resolve import _find_keys

    cfg = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 1024, "num_hidden_layers": 2,
           "num_attention_heads": 8, "num_key_value_heads": 2, "intermediate_size": 2048, "vocab_size": 100,
           "max_position_embeddings": 4096}
    path = tmp_path / "config.json"
    path.write_text(json.dumps(cfg, indent=1))
    spec = replace(from_registry("Qwen/Qwen3-8B"), raw=cfg)
    for source, found in ((str(path), True), (str(tmp_path), True), (f"override:{path}", True),
                          (f"local:{path}", True), (f"path:{path}", True), (f"file:{path}", True),
                          (f"hf-cache:{path}", False), (f"bundled:{path}", False), ("bundled:Qwen/Qwen3-8B", False),
                          (str(tmp_path / "nothing.json"), False)):
        spans = _find_keys(replace(spec, source=source))
        assert bool(spans) is found, source
        if found:
            assert set(spans) == {"num_key_value_heads", "num_attention_heads", "num_hidden_layers",
                                  "max_position_embeddings"}
            assert spans["num_hidden_layers"].line == 7 and spans["num_hidden_layers"].col == 2


def test_a_name_this_machine_cannot_look_up_and_a_bad_memory_size(tmp_path):
    import pytest

    from kvlint.errors import KvlintError
    from kvlint.resolve import ResolveOptions
    from kvlint.resolve.lookups import lookup_model, memory_total

    got = lookup_model("/" + "a" * 300 + "/model", Config(root=str(tmp_path)), ResolveOptions())
    assert got.spec is None and got.reason.startswith("/aaaa") and "cannot be looked up on this machine (" in got.reason
    assert got.reason.endswith("give a Hub id or a readable local path, or map it under `models:`")
    with pytest.raises(KvlintError, match="invalid GPU memory size 'lots'"):
        memory_total(Config(), ResolveOptions(gpu_memory="lots"))
    assert memory_total(Config(gpu_memory="24GiB"), ResolveOptions()) == 24 * 2**30
    assert memory_total(Config(gpu_memory="24GiB"), ResolveOptions(gpu_memory="16GiB")) == 16 * 2**30
    assert memory_total(Config(), ResolveOptions()) is None
