"""The resolve stage's memo (kvlint.resolve.sizing): bounded to the entry, kept or not as asked, keyed by every input
that moves a budget, and a launch on another card or release is the engine's arithmetic again."""

from __future__ import annotations

from kvlint.config import Config
from kvlint.deployment import Deployment, Setting
from kvlint.errors import InvalidSettingError, KvlintError
from kvlint.gpus import lookup_gpu
from kvlint.resolve import ResolveOptions, Resolver
from kvlint.resolve.sizing import BudgetCache, Outcome, WhatIf, _key, refused


def _what_if(length: int = 8192, **options) -> WhatIf:
    dep = Deployment(path="serve.sh", engine="vllm", launch_span=None, model="Qwen/Qwen3-8B",
                     settings={"max_model_len": Setting("max_model_len", length)})
    r = Resolver(ResolveOptions(**{"gpu": "H100", **options})).resolve(dep, Config())
    assert isinstance(r.what_if, WhatIf)
    return r.what_if


def test_bounds_to_the_entry():
    cache = BudgetCache(bound=32)
    assert cache.sweep_bound == 2 and BudgetCache().sweep_bound == 256
    cache.adopt([((i,), Outcome(None)) for i in range(32)], [((i,), None) for i in range(2)])
    assert len(cache.outcomes) == 32 and len(cache.sweeps) == 2
    cache.adopt([((99,), Outcome(None))], [((99,), None)])
    assert list(cache.outcomes) == [(99,)] and list(cache.sweeps) == [(99,)]  # cleared when full, then kept


def test_kept_or_not_as_asked_and_stored_within_the_bound():
    w = _what_if()
    cache = BudgetCache(bound=2)
    sizing, settings = w.sizing, dict(w.settings)
    first = cache.get(sizing, settings, keep=False)
    assert first.budget is not None and cache.outcomes == {}
    kept = cache.get(sizing, settings)
    assert cache.get(sizing, settings) is kept and len(cache.outcomes) == 1
    cache.get(sizing, {**settings, "max_model_len": 4096})
    assert len(cache.outcomes) == 2
    cache.get(sizing, {**settings, "max_model_len": 2048})
    assert len(cache.outcomes) == 1  # full: cleared, then the new one


def test_the_key_holds_every_input_that_moves_a_budget():
    w = _what_if()
    s, settings = w.sizing, dict(w.settings)
    base = _key(s, settings)
    card = s.on(lookup_gpu("L4"))
    assert _key(card, settings) != base and _key(s.on(s.gpu, 70 * 2**30), settings) != base
    assert _key(s, {**settings, "max_model_len": 4096}) != base
    assert _key(s, settings, (("x", "1"),)) != base
    assert s.on(lookup_gpu("L4")) is card and s.on(lookup_gpu("L4"), 1) is not card  # memoised per card and total


def test_what_if_changes_release_and_refusals():
    w = _what_if()
    own = w({})
    assert own is not None and w({"max_model_len": 4096}).kv_tokens == own.kv_tokens
    assert w({"gpu_memory_utilization": 0.5}).kv_tokens < own.kv_tokens
    old = w.on_release("0.8.5")
    assert old is not None and old.kv_tokens != own.kv_tokens
    bad = w.outcome({"kv_cache_dtype": "fp8_ds_mla"})
    assert bad.budget is None and refused(bad) is bad.error and isinstance(bad.error, InvalidSettingError)
    assert refused(Outcome(None, KvlintError("x"))) is None and refused(Outcome(None)) is None


def test_non_kv_from_the_command_line_is_the_users():
    w = _what_if(non_kv_gib=2.0)
    assert (w.sizing.non_kv_bytes, w.sizing.non_kv_source) == (2 * 2**30, "user")
    assert w({}).non_kv_bytes == 2 * 2**30
    assert w.sizing.calibration(dict(w.settings)) is None


def _refusal(setting, **options):
    from kvlint.span import Span

    launch = Span("serve.sh", 1, 1, 1, 10)
    dep = Deployment(path="serve.sh", engine="vllm", launch_span=launch, model="Qwen/Qwen3-8B",
                     settings={"max_model_len": Setting("max_model_len", 8192), setting.name: setting})
    return Resolver(ResolveOptions(gpu="H100", **options)).resolve(dep, Config()).refusal, launch


def test_a_refusal_is_placed_at_the_setting_and_quotes_it_as_written_or_as_read():
    from kvlint.span import Span

    at = Span("serve.sh", 1, 30, 1, 40)
    written, _ = _refusal(Setting("kv_cache_dtype", "fp8_ds_mla", flag="--kv-cache-dtype", raw="'fp8_ds_mla'",
                                  span=at))
    assert (written.flag, written.raw, written.span, written.setting) == ("--kv-cache-dtype", "'fp8_ds_mla'", at,
                                                                          "kv_cache_dtype")
    read, launch = _refusal(Setting("kv_cache_dtype", "fp8_ds_mla"))  # from a structured file: no text, no span
    assert (read.flag, read.raw, read.span) == ("kv_cache_dtype", "fp8_ds_mla", launch)
    util, _ = _refusal(Setting("gpu_memory_utilization", 1.5, flag="--gpu-memory-utilization"))
    assert (util.raw, util.reason) == ("1.5", "must be in (0, 1]")


def test_a_what_if_is_its_launch_whatever_memo_serves_it():
    w = _what_if()
    assert WhatIf(w.sizing, w.settings, BudgetCache()) == WhatIf(w.sizing, w.settings, BudgetCache(bound=2)) == w
    assert WhatIf(w.sizing, {**w.settings, "max_model_len": 1}, w.cache) != w
