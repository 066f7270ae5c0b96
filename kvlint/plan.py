"""`kvlint plan`: which GPU / parallelism / precision combinations hold a context x concurrency target.

The planner only enumerates and ranks; every number comes from compute_budget, so a plan and a later
`kvlint check` of the chosen deployment cannot disagree. Options are one engine instance (one DP
replica): TP x PP GPUs of one type, a KV dtype, and a weight precision among what the checkpoint ships
and what the engine can apply at load time (fp8 online quantization of a 16-bit checkpoint).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from kvlint.budget import Budget
from kvlint.errors import KvlintError
from kvlint.models.spec import ModelSpec
from kvlint.record import field, record, replace
from kvlint.sizes import GIB

TP_SIZES = (1, 2, 4, 8, 16, 32)
PP_SIZES = (1, 2, 4, 8)


@record
class PlanOption:
    gpu: str
    tp: int
    pp: int
    kv_cache_dtype: str  # as the engine resolved it
    weights: str  # "bf16", "fp8 (online)", or the checkpoint's quantization
    holds: bool
    failure: str | None  # the first setting that fails, in words
    kv_pool_bytes: int  # per rank
    kv_bytes_per_token: int  # per rank
    per_request_bytes: int  # per rank, one request at the target context
    weights_bytes: int
    non_kv_bytes: int
    kv_tokens: int
    max_concurrency: float
    headroom: float  # full-length requests beyond the target (negative: short)
    budget: Budget | None = field(default=None, compare=False, repr=False)

    @property
    def gpus(self) -> int:
        return self.tp * self.pp

    def to_json(self) -> dict[str, Any]:
        return {"gpu": self.gpu, "tp": self.tp, "pp": self.pp, "gpus": self.gpus,
                "kv_cache_dtype": self.kv_cache_dtype, "weights": self.weights, "holds": self.holds,
                "failure": self.failure, "kv_pool_bytes": self.kv_pool_bytes,
                "kv_bytes_per_token": self.kv_bytes_per_token, "per_request_bytes": self.per_request_bytes,
                "weights_bytes": self.weights_bytes, "non_kv_bytes": self.non_kv_bytes,
                "kv_tokens": self.kv_tokens, "max_concurrency": round(self.max_concurrency, 2),
                "headroom": round(self.headroom, 2),
                "non_kv_source": self.budget.non_kv_source if self.budget else None}


@record
class Plan:
    model: str
    engine: str
    context: int
    concurrency: int
    options: tuple[PlanOption, ...]  # holding options first (fewest GPUs, then most headroom), then the rest
    skipped: tuple[str, ...] = ()  # combinations never tried, and why
    omitted: int = 0  # options left out by top()

    @property
    def holding(self) -> list[PlanOption]:
        return [o for o in self.options if o.holds]

    def top(self, limit: int | None) -> Plan:
        """The first `limit` holding and the first `limit` failing options, in rank order (None: all)."""
        if limit is None:
            return self
        failing = [o for o in self.options if not o.holds]
        kept = tuple(self.holding[:limit] + failing[:limit])
        return replace(self, options=kept, omitted=self.omitted + len(self.options) - len(kept))

    def to_json(self) -> dict[str, Any]:
        return {"version": 1, "model": self.model, "engine": self.engine, "context": self.context,
                "concurrency": self.concurrency, "options": [o.to_json() for o in self.options],
                "omitted": self.omitted, "skipped": list(self.skipped)}


def valid_tp(model: ModelSpec, tp: int) -> str | None:
    """Why this TP size is invalid for the model (None when valid): heads split evenly, KV heads split or replicate."""
    if model.num_attention_heads % tp:
        return f"TP={tp} does not divide {model.num_attention_heads} attention heads"
    kv = model.num_kv_heads
    if not model.is_mla and kv and kv % tp and tp % kv:
        return f"TP={tp} neither divides nor is a multiple of {kv} KV heads"
    return None


def weight_choices(model: ModelSpec) -> list[tuple[str, str | None]]:
    """(label, quantization setting): the checkpoint as shipped, plus fp8 online for 16-bit checkpoints."""
    if model.quant is not None:
        bits = f" {model.quant.bits}-bit" if model.quant.bits else ""
        return [(f"{model.quant.method}{bits} (checkpoint)", None)]
    native = "bf16" if model.dtype in ("bfloat16", "float32") else "fp16"
    return [(native, None), ("fp8 (online)", "fp8")]


def _per_request(budget: Budget) -> int:
    if budget.request_bytes:
        return budget.request_bytes
    return budget.kv_bytes_per_token * budget.max_model_len


def _failure(budget: Budget, target: int) -> str | None:
    if budget.requested_bytes and budget.weights_bytes >= budget.requested_bytes:
        return (f"weights do not fit: {budget.weights_bytes / GIB:.1f} GiB per GPU of "
                f"{budget.requested_bytes / GIB:.1f} GiB usable")
    if budget.kv_pool_bytes <= 0:
        return "no KV pool left after weights and non-KV memory"
    if not budget.fits_one_request:
        longest = budget.estimated_max_model_len or 0
        return f"one request does not fit: the pool holds {longest:,} tokens of one request"
    if budget.max_concurrency < target:
        return f"concurrency short by {target - int(budget.max_concurrency)}"
    return None


def _option(gpu_label: str, tp: int, pp: int, weights: str, budget: Budget, target: int) -> PlanOption:
    failure = _failure(budget, target)
    return PlanOption(
        gpu=gpu_label, tp=tp, pp=pp, kv_cache_dtype=budget.kv_cache_dtype, weights=weights,
        holds=failure is None, failure=failure, kv_pool_bytes=budget.kv_pool_bytes,
        kv_bytes_per_token=budget.kv_bytes_per_token, per_request_bytes=_per_request(budget),
        weights_bytes=budget.weights_bytes, non_kv_bytes=budget.non_kv_bytes, kv_tokens=budget.kv_tokens,
        max_concurrency=budget.max_concurrency, headroom=budget.max_concurrency - target, budget=budget)


def _rank(options: Iterable[PlanOption]) -> tuple[PlanOption, ...]:
    return tuple(sorted(options, key=lambda o: (not o.holds, o.gpus, -o.headroom, o.gpu, o.tp, o.pp)))


def _shapes(model: ModelSpec, max_gpus: int, skipped: list[str]) -> list[tuple[int, int]]:
    """(TP, PP) pairs within max_gpus whose TP the model's heads allow."""
    out = []
    for tp in (t for t in TP_SIZES if t <= max_gpus):
        why = valid_tp(model, tp)
        if why:
            skipped.append(why)
            continue
        out += [(tp, pp) for pp in PP_SIZES if tp * pp <= max_gpus and pp <= model.num_layers]
    return out


def plan(model: ModelSpec, *, context: int, concurrency: int, gpus: Iterable[tuple[str, Any]],
         engine: str = "vllm", version: str | None = None, non_kv_bytes: int | None = None,
         gpu_memory_bytes: int | None = None, max_gpus: int = 16, kv_dtypes: Iterable[str] | None = None,
         extra_settings: dict[str, Any] | None = None,
         non_kv_for: Callable[[str, int], int | None] | None = None) -> Plan:
    """Every option within max_gpus, ranked. `gpus` is (label, Gpu-or-None) pairs as the catalogue resolved them.

    non_kv_for(label, tp) may return a calibrated non-KV for that GPU and TP (else non_kv_bytes / the estimate).
    """
    from kvlint.engines import get_engine
    from kvlint.memory import compute_budget

    record = get_engine(engine)
    if context <= 0 or concurrency <= 0:
        raise KvlintError("--context and --concurrency must be positive")
    names = {"len": record.setting("max_len"), "tp": record.setting("tp"), "pp": record.setting("pp")}
    kvs = list(kv_dtypes) if kv_dtypes is not None else ["auto", record.fp8_kv_dtype]
    options: dict[tuple, PlanOption] = {}
    skipped: list[str] = []
    for label, gpu in gpus:
        for tp, pp in _shapes(model, max_gpus, skipped):
            calibrated = non_kv_for(label, tp) if non_kv_for else None
            for weights, quant in weight_choices(model):
                for kv in kvs:
                    settings = {names["len"]: context, names["tp"]: tp, names["pp"]: pp, "kv_cache_dtype": kv,
                                **({"quantization": quant} if quant else {}), **(extra_settings or {})}
                    try:
                        budget = compute_budget(engine, model, settings, gpu, version=version,
                                                non_kv_bytes=non_kv_bytes if calibrated is None else calibrated,
                                                gpu_memory_bytes=gpu_memory_bytes)
                    except KvlintError as exc:
                        skipped.append(f"{label} TP={tp} PP={pp} {weights} KV {kv}: {exc}")
                        continue
                    if calibrated is not None:
                        budget = replace(budget, non_kv_source="calibrated")
                    option = _option(label, tp, pp, weights, budget, concurrency)
                    options.setdefault((label, tp, pp, weights, option.kv_cache_dtype), option)
    return Plan(model=model.model_id, engine=engine, context=context, concurrency=concurrency,
                options=_rank(options.values()), skipped=tuple(dict.fromkeys(skipped)))
