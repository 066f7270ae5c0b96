"""Hand-made records for rule unit tests: a tiny vLLM-like budget so rules are tested in isolation.

The arithmetic here is deliberately the textbook one (pool = util x total - weights - non-KV;
tokens = pool // cell); the real engine models are tested in tests/engines.
"""

from __future__ import annotations

from dataclasses import replace

from kvlint.budget import Budget, Parallel
from kvlint.deployment import Deployment, Setting
from kvlint.engines import get_engine
from kvlint.models.spec import LayerKV, MLADims, ModelSpec
from kvlint.registry import Context
from kvlint.resolve import declarations
from kvlint.span import Span

GIB = 2**30
PATH = "deploy.yaml"


def span(line: int, col: int = 7, width: int = 5) -> Span:
    return Span(PATH, line, col, line, col + width)


def model(**kw) -> ModelSpec:
    layers, kvh, hd = kw.pop("num_layers", 64), kw.pop("num_kv_heads", 8), kw.pop("head_dim", 128)
    base = dict(model_id="test/dense-32b", source="bundled:test/dense-32b", architecture="LlamaForCausalLM",
                model_type="llama", num_layers=layers,
                layers=tuple(LayerKV("full", kvh, hd, hd) for _ in range(layers)), hidden_size=5120,
                num_attention_heads=40, num_kv_heads=kvh, head_dim=hd, v_head_dim=hd, intermediate_size=27648,
                vocab_size=152064, tie_word_embeddings=False, dtype="bfloat16", max_len_vllm=32768,
                max_len_sglang=32768, max_len_key="max_position_embeddings",
                raw={"num_key_value_heads": kvh, "max_position_embeddings": 32768})
    base.update(kw)
    return ModelSpec(**base)


def mla_model() -> ModelSpec:
    return model(model_id="test/mla", num_attention_heads=128, num_kv_heads=128, num_layers=61,
                 mla=MLADims(kv_lora_rank=512, qk_rope_head_dim=64, qk_nope_head_dim=128, v_head_dim=128),
                 raw={"kv_lora_rank": 512})


def deployment(engine: str = "vllm", **settings) -> Deployment:
    """Settings as name=(value, line); line None means the engine default (no span)."""
    made = {}
    for name, (value, line) in settings.items():
        made[name] = Setting(name, value, span=span(line) if line else None,
                             origin="explicit" if line else "default")
    return Deployment(path=PATH, engine=engine, launch_span=span(2, 5, 4), model="test/dense-32b",
                      model_span=span(3), settings=made)


def budget(m: ModelSpec, settings: dict, *, total: int = 80 * GIB, engine: str = "vllm", weights: int = 61 * GIB,
           non_kv: int = 6 * GIB, util: float = 0.92) -> Budget:
    tp = settings.get("tensor_parallel_size", settings.get("tp_size", 1))
    quant = settings.get("quantization")
    w = (weights // 2 if quant == "fp8" else weights) // tp
    kvh = m.num_kv_heads if m.mla is None else 1
    width = (m.mla.kv_lora_rank + m.mla.qk_rope_head_dim) if m.mla else 2 * m.head_dim
    dtype_bytes = 1 if "fp8" in str(settings.get("kv_cache_dtype", "auto")) else 2
    cell = m.num_layers * max(1, kvh // tp if m.mla is None else 1) * width * dtype_bytes
    requested = int(total * util)
    pool = requested - w - non_kv
    length = settings.get("max_model_len", settings.get("context_length", m.max_len_vllm))
    tokens = max(0, pool) // cell // 16 * 16
    fits = tokens >= length
    return Budget(engine=engine, engine_version="0.33.0", model=m.model_id, gpu_name="H100-SXM-80GB",
                  gpu_memory_bytes=total, parallel=_parallel(engine, settings, tp), kv_bytes_per_token=cell, weights_bytes=w,
                  non_kv_bytes=non_kv, non_kv_source="estimated", kv_pool_bytes=pool, kv_pool_estimated=True,
                  max_model_len=length, kv_tokens=tokens, max_concurrency=tokens / length,
                  fits_one_request=fits, estimated_max_model_len=None if fits else max(0, tokens - 16),
                  requested_bytes=requested, kv_cache_dtype=str(settings.get("kv_cache_dtype", "auto")),
                  block_size=16, max_num_seqs=settings.get("max_num_seqs", settings.get("max_running_requests", 256)),
                  mem_fraction_static=0.85 if engine == "sglang" else None)


def _parallel(engine: str, settings: dict, tp: int) -> Parallel:
    """The engine's own reading of the parallel sizes (SGLang's DP attention included)."""
    if engine != "sglang":
        return Parallel(tp=tp)
    from kvlint.engines.sglang.memory import parallel_sizes

    (tp, pp, dp, dcp, attn_dp), _ = parallel_sizes(settings)
    return Parallel(tp=tp, pp=pp, dp=dp, dcp=dcp, attn_dp=attn_dp)


def context(dep: Deployment, m: ModelSpec | None = None, *, with_budget: bool = True, **budget_kw) -> Context:
    m = m or model()
    settings = {k: s.value for k, s in dep.settings.items()}
    what_if = lambda changes: budget(m, dict(settings, **changes), engine=dep.engine, **budget_kw)  # noqa: E731
    declared = [n for n, _ in declarations(dep, get_engine(dep.engine))]
    return Context(deployment=dep, model=m, gpu=object(), budget=what_if({}) if with_budget else None,  # type: ignore[arg-type]
                   what_if=what_if, declared_load=min(declared) if declared else None)


def with_options(ctx: Context, **kw) -> Context:
    return replace(ctx, **kw)
