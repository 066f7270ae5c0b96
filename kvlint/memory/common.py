"""Helpers both memory models share: the derivation log, the GPU facts they read, and the weights hook.

The engines take a Gpu record (kvlint.gpus) or an explicit byte count; reading both through one place
keeps vllm.py and sglang.py free of duck-typing and lets tests pass hand-built numbers.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any, overload

from kvlint.budget import Step
from kvlint.errors import InvalidSettingError, KvlintError
from kvlint.models.spec import ModelSpec
from kvlint.record import record
from kvlint.sizes import GIB, MIB

if TYPE_CHECKING:
    from kvlint.models.weights import Placement

H100_MIB = 81559  # what nvidia-smi reports for an H100 80GB (seed chapter, engines.md 3.1)


class Steps:
    """Accumulates derivation lines in the order a reader should follow them."""

    quiet = False  # True: nothing is recorded (see quiet_steps); the memory models skip their logging blocks

    def __init__(self) -> None:
        self.items: list[Step] = []
        self.notes: list[str] = []

    def add(self, name: str, formula: str, value: float | int | str, unit: str = "",
            estimated: bool = False) -> float | int | str:
        self.items.append(Step(name, formula, value, unit, estimated))
        return value

    def note(self, text: str) -> None:
        if text and text not in self.notes:
            self.notes.append(text)


class _QuietSteps(Steps):
    """The log of a budget whose derivation no one reads: the numbers are the same, no line is kept."""

    quiet = True

    def add(self, name: str, formula: str, value: float | int | str, unit: str = "",
            estimated: bool = False) -> float | int | str:
        return value

    def note(self, text: str) -> None:
        return None


_QUIET: ContextVar[bool] = ContextVar("kvlint_quiet_steps", default=False)


@contextmanager
def quiet_steps() -> Iterator[None]:
    """Budgets computed inside the block keep no derivation (steps and notes empty): a catalogue sweep's trial
    cards and bisection points are read for their verdict only (kvlint.resolve.sweep), never shown or stored.
    Nothing a budget computes reads its own log, so every number is what a logged budget has."""
    token = _QUIET.set(True)
    try:
        yield
    finally:
        _QUIET.reset(token)


def weights_unchecked_text(model: ModelSpec, given: bool = False) -> str:
    """What a budget says of weights counted for a bundled config with no published total to check them against
    (registry/weights.json `unchecked`): appended to the weights step and kept as a note. Empty otherwise."""
    if given or not model.weights_unchecked:
        return ""
    return f"weights not checked against a published total ({model.weights_unchecked})"


def gib(n: float) -> str:
    return f"{n / GIB:.5f} GiB"


@record
class GpuFacts:
    name: str
    total_bytes: int  # what this engine sees
    memory_mib: int | None  # nvidia-smi MiB (SGLang's bands)
    compute_capability: tuple[int, int] | None
    defaulted: bool = False


def _cc(value: Any) -> tuple[int, int] | None:
    if value is None:
        return None
    if isinstance(value, (tuple, list)) and len(value) >= 2:
        return int(value[0]), int(value[1])
    try:
        major, _, minor = str(value).partition(".")
        return int(major), int(minor or 0)
    except ValueError:
        return None


def gpu_facts(engine: str, gpu: Any, gpu_memory_bytes: int | None) -> GpuFacts:
    """Total memory as `engine` measures it; an explicit byte count wins over the catalogue."""
    defaulted = False
    if gpu is None and gpu_memory_bytes is None:
        gpu, defaulted = _default_gpu(), True
    name = getattr(gpu, "name", None) or ("custom" if gpu is None else str(gpu))
    mib = getattr(gpu, "memory_mib", None)
    cc = _cc(getattr(gpu, "compute_capability", None))
    if gpu_memory_bytes is not None:
        total = int(gpu_memory_bytes)
        mib = total // MIB if gpu is None or mib is None else mib
    elif gpu is None:
        total, mib, cc, name = H100_MIB * MIB, H100_MIB, (9, 0), "H100 80GB"
    else:
        total = int(gpu.total_bytes(engine)) if hasattr(gpu, "total_bytes") else int(mib or 0) * MIB
    if total <= 0:
        raise KvlintError(f"GPU memory must be positive, got {total} bytes")
    return GpuFacts(name, total, mib, cc, defaulted)


def start_steps(engine: str, resolved: Any, gpu: Any, gpu_memory_bytes: int | None) -> tuple[Steps, GpuFacts]:
    """The first derivation lines both engines share: which release is modelled, which card is assumed."""
    steps = _QuietSteps() if _QUIET.get() else Steps()
    steps.note(resolved.note)
    facts = gpu_facts(engine, gpu, gpu_memory_bytes)
    if facts.defaulted:
        steps.note(f"no GPU given: assuming {facts.name}")
    return steps, facts


def _default_gpu() -> Any:
    """H100 from the catalogue when it exists; None makes gpu_facts use the seed's 81,559 MiB."""
    try:
        from kvlint.gpus import lookup_gpu
    except ImportError:
        return None
    try:
        return lookup_gpu("H100")
    except KvlintError:
        return None


def setting(settings: Mapping[str, Any], name: str, default: Any = None) -> Any:
    """A canonical setting's value; Setting records (kvlint.deployment) are unwrapped."""
    value = settings.get(name, default)
    if value is None or type(value) in _PLAIN:
        return default if value is None else value
    if hasattr(value, "value") and hasattr(value, "resolved"):
        value = value.value if value.resolved else default
    return default if value is None else value


_PLAIN = frozenset({int, float, str, bool})  # values with no Setting to unwrap (most reads of a budget)


@overload
def int_setting(settings: Mapping[str, Any], name: str, default: int) -> int: ...
@overload
def int_setting(settings: Mapping[str, Any], name: str, default: None = None) -> int | None: ...
def int_setting(settings: Mapping[str, Any], name: str, default: int | None = None) -> int | None:
    value = setting(settings, name, default)
    if value is None:
        return None
    try:
        return int(value)
    except (TypeError, ValueError):
        raise InvalidSettingError(f"{name} must be an integer, got {value!r}", name, "not an integer") from None


@overload
def float_setting(settings: Mapping[str, Any], name: str, default: float) -> float: ...
@overload
def float_setting(settings: Mapping[str, Any], name: str, default: None = None) -> float | None: ...
def float_setting(settings: Mapping[str, Any], name: str, default: float | None = None) -> float | None:
    value = setting(settings, name, default)
    if value is None:
        return None
    try:
        return float(value)
    except (TypeError, ValueError):
        raise InvalidSettingError(f"{name} must be a number, got {value!r}", name, "not a number") from None


def model_weights(model: ModelSpec, *, tp: int, pp: int, pp_rank: int | None, ep: int, dtype: str | None,
                  quantization: str | None, placement: Placement | None = None) -> int:
    """Per-rank weight bytes from the models helper (kvlint.models.weights)."""
    try:
        from kvlint.models.weights import weights_bytes
    except ImportError:
        raise KvlintError("weights model (kvlint.models.weights) is not available; pass the weights explicitly "
                          "or give --kv-cache-memory-bytes") from None
    return int(weights_bytes(model, tp=tp, pp=pp, pp_rank=pp_rank, ep=ep, dtype=dtype, quantization=quantization,
                             placement=placement))


def resolve_model_dtype(flag: str | None, model: ModelSpec, cc: tuple[int, int] | None) -> str:
    """--dtype auto keeps the checkpoint dtype, except float32, which both engines downcast (bf16 on SM80+)."""
    value = (flag or "auto").lower()
    aliases = {"half": "float16", "float16": "float16", "bfloat16": "bfloat16", "float": "float32",
               "float32": "float32", "bf16": "bfloat16", "fp16": "float16"}
    if value != "auto":
        if value not in aliases:
            raise InvalidSettingError(f"dtype {flag!r} is not one of auto, half, float16, bfloat16, float, float32",
                                      "dtype", "valid: auto, half, float16, bfloat16, float, float32")
        return aliases[value]
    ckpt = aliases.get((model.dtype or "bfloat16").lower(), "bfloat16")
    if ckpt == "float32":
        return "bfloat16" if cc is None or cc >= (8, 0) else "float16"
    return ckpt


def ceil_mul(total: int, fraction: float) -> int:
    return math.ceil(total * fraction)
