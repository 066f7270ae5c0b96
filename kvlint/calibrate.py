"""Calibration: replace the one estimated term (non-KV memory) with what a real startup measured.

Everything in a KV budget is exact arithmetic except non-KV memory (activation peak, CUDA graphs,
CUDA context, NCCL buffers). A startup log shows it indirectly: vLLM requests ceil(total x util) and
gives the rest after weights and non-KV to the pool, so non-KV = requested - weights - pool. Stored in
.kvlint.yaml per (model, GPU, TP, engine, engine version), later checks of that deployment use the
measured figure and say "calibrated" instead of "estimated".

The `calibration:` block is written textually (replace or append that block only) so the user's other
keys, comments and layout survive; round-tripping through yaml.dump would drop every comment.

Shape (a list; keys exactly these; kvlint/data/calibration.schema.json validates it):

    calibration:
      - model: meta-llama/Llama-3.1-8B-Instruct     # ModelSpec.model_id
        gpu: H100-SXM-80GB                         # catalogue id (aliases match too)
        tp: 2
        engine: vllm
        engine_version: 0.19.0
        non_kv_gib: 3.21
        source_log: logs/start.log

non_kv_gib is what compute_budget takes as `non_kv_bytes=` (in GiB): for vLLM activations + CUDA graphs +
non-torch memory; for SGLang the allocations made before the pool besides the weights.
"""

from __future__ import annotations

import json
import math
import os
import re
from dataclasses import asdict, dataclass
from functools import lru_cache
from typing import Any, Iterable, Mapping

from kvlint.errors import InputError, KvlintError
from kvlint.logs.record import GIB, LogRecord

KEYS = ("model", "gpu", "tp", "engine", "engine_version", "non_kv_gib", "source_log")
CONFIG_NAMES = (".kvlint.yaml", ".kvlint.yml")
_TOP_KEY = re.compile(r"^[^\s#-][^:]*:")


@dataclass(frozen=True)
class Calibration:
    model: str
    gpu: str
    tp: int
    engine: str
    engine_version: str
    non_kv_gib: float
    source_log: str = ""

    def same_target(self, other: "Calibration") -> bool:
        return _target(self) == _target(other)


@dataclass(frozen=True)
class Measurement:
    """The measured non-KV bytes per rank and how they were obtained (for `verify` to print).

    non_kv_bytes compares with Budget.non_kv_bytes; calibration_bytes is what compute_budget takes as
    `non_kv_bytes=` (the same for vLLM; SGLang's pre-pool allocations only).
    """

    non_kv_bytes: int
    formula: str
    calibration_bytes: int | None = None

    @property
    def calibration(self) -> int:
        return self.non_kv_bytes if self.calibration_bytes is None else self.calibration_bytes


def _norm(text: Any) -> str:
    return re.sub(r"[\s_-]+", " ", str(text or "")).strip().lower()


def _norm_version(text: Any) -> str:
    """'v0.33.0', '0.33' and '0.33.0+cu128' are one release: compare the leading numbers, trailing zeros off."""
    raw = str(text or "").strip().lower().removeprefix("v")
    m = re.match(r"\d+(?:\.\d+)*", raw)
    if not m:
        return raw
    parts = [int(p) for p in m.group(0).split(".")]
    while len(parts) > 1 and parts[-1] == 0:
        parts.pop()
    return ".".join(map(str, parts))


def _norm_gpu(name: Any) -> str:
    """The catalogue id when the name resolves ("H100" and "H100-SXM-80GB" are one key), else the text."""
    try:
        from kvlint.gpus import lookup_gpu

        return _norm(lookup_gpu(str(name)).id)
    except (ImportError, KvlintError):
        return _norm(name)


def _target(c: Calibration) -> tuple:
    return (_norm(c.model), _norm_gpu(c.gpu), int(c.tp), _norm(c.engine), _norm_version(c.engine_version))


# ---------------------------------------------------------------- measuring


def measure_non_kv(record: LogRecord, *, total_bytes: int | None = None, utilization: float | None = None,
                   requested_bytes: int | None = None) -> Measurement:
    """Non-KV bytes per rank from a log (raises KvlintError naming what the log lacks).

    vLLM's requested memory comes from the log when printed, else ceil(total x util) from the log's
    total and utilization, else `requested_bytes` (what compute_budget derived for this GPU and version).
    """
    if record.engine == "sglang":
        return _measure_sglang(record, total_bytes)
    return _measure_vllm(record, total_bytes, utilization, requested_bytes)


def _measure_vllm(record: LogRecord, total_bytes: int | None, utilization: float | None,
                  requested_bytes: int | None = None) -> Measurement:
    if record.model_loading_gib is None or record.available_kv_gib is None:
        raise KvlintError("the log does not show both 'Model loading took' and 'Available KV cache memory'; "
                          "cannot measure non-KV memory")
    if record.requested_memory_gib is not None:
        requested = record.requested_memory_gib * GIB
        how = f"requested {record.requested_memory_gib} GiB (logged)"
    else:
        util = record.gpu_memory_utilization or utilization
        total = record.total_gpu_memory_gib * GIB if record.total_gpu_memory_gib else total_bytes
        if (util is None or total is None) and requested_bytes:
            requested, how = requested_bytes, f"requested {requested_bytes / GIB:.2f} GiB (predicted)"
            return _vllm_result(record, requested, how)
        if util is None or total is None:
            raise KvlintError("the log shows neither the requested memory nor the GPU total and utilization; "
                              "pass --gpu (and the command line) so the requested memory can be computed")
        requested = math.ceil(total * util)
        how = f"requested ceil({total / GIB:.2f} GiB x {util})"
    return _vllm_result(record, requested, how)


def _vllm_result(record: LogRecord, requested: float, how: str) -> Measurement:
    non_kv = requested - record.model_loading_gib * GIB - record.available_kv_gib * GIB
    formula = (f"{how} - model loading {record.model_loading_gib} GiB - "
               f"available KV {record.available_kv_gib} GiB")
    return Measurement(int(round(non_kv)), formula)


def _measure_sglang(record: LogRecord, total_bytes: int | None) -> Measurement:
    """SGLang sizes the pool as mfs x pre-load free - weights - other pre-pool allocations; solve for "other".

    pre-load free memory is the "Load weight begin. avail mem" line when logged, else the GPU total (an
    upper bound: it ignores the CUDA context). The calibration value is "other" (what compute_budget takes
    as non_kv_bytes for SGLang); the comparable non-KV adds what was used before the weights loaded.
    """
    mfs = record.mem_fraction_static
    kv_gb = _sglang_pool_gb(record)
    if mfs is None or kv_gb is None or record.weights_mem_usage_gb is None:
        raise KvlintError("the log does not show mem_fraction_static, 'Load weight end' and the KV pool size; "
                          "cannot measure non-KV memory")
    if record.avail_mem_gb_load_begin is not None:
        pre_load, where = record.avail_mem_gb_load_begin * GIB, f"pre-load free {record.avail_mem_gb_load_begin} GB"
    elif total_bytes is not None:
        pre_load, where = float(total_bytes), f"GPU total {total_bytes / GIB:.2f} GiB"
    else:
        raise KvlintError("SGLang logs do not print the GPU total; pass --gpu or --gpu-memory")
    other = pre_load * mfs - record.weights_mem_usage_gb * GIB - kv_gb * GIB
    before = (total_bytes - pre_load) if total_bytes is not None else 0
    formula = (f"{where} x mem_fraction_static {mfs} - weights {record.weights_mem_usage_gb} GB - "
               f"KV pool {kv_gb:.2f} GB (+ {before / GIB:.2f} GiB used before loading)")
    return Measurement(int(round(other + before)), formula, calibration_bytes=int(round(other)))


def _sglang_pool_gb(record: LogRecord) -> float | None:
    if record.k_size_gb is not None and record.v_size_gb is not None:
        return record.k_size_gb + record.v_size_gb
    return record.kv_size_gb


# ---------------------------------------------------------------- reading


def entries(config: Mapping[str, Any] | None) -> list[Calibration]:
    """The well-formed calibration entries of a loaded configuration mapping (others are skipped)."""
    raw = (config or {}).get("calibration") or []
    out = []
    for item in raw if isinstance(raw, list) else []:
        try:
            out.append(Calibration(
                model=str(item["model"]), gpu=str(item["gpu"]), tp=int(item.get("tp", 1)),
                engine=str(item["engine"]), engine_version=str(item.get("engine_version", "")),
                non_kv_gib=float(item["non_kv_gib"]), source_log=str(item.get("source_log", ""))))
        except (KeyError, TypeError, ValueError, AttributeError):
            continue
    return out


def lookup(config: Mapping[str, Any] | None, model: str | None, gpu: str | None, tp: int | None,
           engine: str | None, version: str | None) -> int | None:
    """Calibrated non-KV bytes per rank for this deployment, or None.

    `gpu` may be any spelling the catalogue accepts (compared by catalogue id); model ids compare case- and
    separator-insensitively.
    With version None, the newest calibrated version for the rest of the key is used.
    """
    if not model or not gpu or not engine:
        return None
    want = (_norm(model), _norm_gpu(gpu), int(tp or 1), _norm(engine))
    found = [c for c in entries(config) if _target(c)[:4] == want]
    if version is not None:
        found = [c for c in found if _norm_version(c.engine_version) == _norm_version(version)]
    if not found:
        return None
    best = max(found, key=lambda c: _version_key(c.engine_version))
    return int(round(best.non_kv_gib * GIB))


def _version_key(text: str) -> tuple[int, ...]:
    return tuple(int(p) for p in re.findall(r"\d+", text)[:4])


# ---------------------------------------------------------------- applying to a deployment


@dataclass(frozen=True)
class Match:
    """The calibration that applies to one deployment; exact when its engine version is the deployment's."""

    entry: Calibration
    exact: bool
    version: str  # the deployment's version it was matched against

    @property
    def non_kv_bytes(self) -> int:
        return int(round(self.entry.non_kv_gib * GIB))

    def describe(self) -> str:
        where = f" from {self.entry.source_log}" if self.entry.source_log else ""
        return f"calibrated{where} ({self.entry.engine} {self.entry.engine_version or '?'}, TP={self.entry.tp})"

    def note(self) -> str | None:
        """Why a calibration of another release still applies (None when the versions agree)."""
        if self.exact:
            return None
        got = self.entry.engine_version or "an unknown version"
        return (f"non-KV calibrated on {self.entry.engine} {got} applied to {self.entry.engine} {self.version} "
                f"(no calibration for that release; recalibrate with `kvlint verify LOG --calibrate`)")


def match(items: Iterable[Calibration], model: str | None, gpu: str | None, tp: int | None,
          engine: str | None, version: str | None) -> Match | None:
    """The calibration for (model, GPU, TP, engine, version), or None.

    Model id (ModelSpec.model_id), GPU (catalogue id) and TP and engine must all agree. Among those, the
    entry of the deployment's engine version wins (v-prefix, trailing .0 and build suffix ignored); else the
    newest calibrated version of that engine applies, not exact (the caller notes it). `version` None means
    the release kvlint models by default.
    """
    if not model or not gpu or not engine:
        return None
    want = (_norm(model), _norm_gpu(gpu), int(tp or 1), _norm(engine))
    found = [c for c in items if _target(c)[:4] == want]
    if not found:
        return None
    version = version or default_version(engine)
    same = [c for c in found if _norm_version(c.engine_version) == _norm_version(version)]
    best = same[-1] if same else max(found, key=lambda c: _version_key(c.engine_version))
    return Match(best, bool(same), str(version).removeprefix("v"))


def default_version(engine: str) -> str:
    """The release compute_budget models when a deployment does not say."""
    from kvlint.engines.versions import sglang_version, vllm_version

    try:
        resolved = vllm_version(None) if engine == "vllm" else sglang_version(None)
    except (KvlintError, KeyError):
        return ""
    return str(resolved.record.version)


def settings_tp(engine: str, settings: Mapping[str, Any]) -> int:
    """TP from canonical settings (vLLM tensor_parallel_size, SGLang tp_size); 1 when unset or unreadable."""
    value = settings.get("tensor_parallel_size" if engine == "vllm" else "tp_size")
    try:
        return max(int(value), 1) if value is not None and not isinstance(value, bool) else 1
    except (TypeError, ValueError):
        return 1


def apply(budget: Any, found: Match) -> Any:
    """Relabel a budget computed with `non_kv_bytes=found.non_kv_bytes` as calibrated.

    compute_budget labels every given value "user"; a pool given outright ("not-needed") never used the
    non-KV term, so it stays as it is. The derivation step of the non-KV term names its source log.
    """
    from dataclasses import replace

    if budget is None or budget.non_kv_source != "user":
        return budget
    how = found.describe()
    steps = tuple(replace(s, formula=how, estimated=False) if s.name in NON_KV_STEPS else s for s in budget.steps)
    extra = dict(budget.extra, calibration={**asdict(found.entry), "exact_version": found.exact})
    return replace(budget, non_kv_source="calibrated", kv_pool_estimated=False, steps=steps, extra=extra)


NON_KV_STEPS = ("non-KV", "pre-pool allocations")  # the step each engine's derivation names the given term


# ---------------------------------------------------------------- writing


def find_config_file(start: str) -> str | None:
    """The nearest .kvlint.yaml from start up to the repository root (the folder with .git)."""
    here = os.path.abspath(start)
    while True:
        for name in CONFIG_NAMES:
            path = os.path.join(here, name)
            if os.path.isfile(path):
                return path
        parent = os.path.dirname(here)
        if os.path.exists(os.path.join(here, ".git")) or parent == here:
            return None
        here = parent


def render_block(items: Iterable[Calibration]) -> str:
    lines = ["calibration:"]
    for c in items:
        values = asdict(c)
        first = True
        for key in KEYS:
            value = values[key]
            if key == "source_log" and not value:
                continue
            text = _scalar(value)
            lines.append(f"  {'- ' if first else '  '}{key}: {text}")
            first = False
    return "\n".join(lines) + "\n"


def _scalar(value: Any) -> str:
    """A YAML scalar that reads back as the same type (JSON strings are valid YAML)."""
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    if isinstance(value, (int, float)):
        return repr(value)
    text = str(value)
    plain = re.fullmatch(r"[A-Za-z][\w./@+-]*(?: [\w./@+-]+)*", text)
    reserved = text.lower() in ("true", "false", "null", "yes", "no", "on", "off", "y", "n", "~")
    return text if plain and not reserved else json.dumps(text)


def splice(text: str, block: str) -> str:
    """Replace the top-level `calibration:` block of a YAML text, or append it; keep everything else."""
    lines = text.splitlines(keepends=True)
    start = next((i for i, line in enumerate(lines) if re.match(r"^calibration\s*:", line)), None)
    if start is None:
        sep = "" if not text or text.endswith("\n") else "\n"
        return text + sep + ("\n" if text.strip() else "") + block
    end = start + 1
    while end < len(lines) and not _TOP_KEY.match(lines[end]):
        end += 1
    while end > start + 1 and lines[end - 1].strip().startswith("#"):
        end -= 1  # a comment just above the next key belongs to that key
    tail = lines[end:]
    blank = "\n" if tail and lines[end - 1].strip() == "" else ""
    return "".join(lines[:start]) + block + blank + "".join(tail)


def save(entry: Calibration, start_dir: str = ".") -> str:
    """Add or replace `entry` in the nearest .kvlint.yaml (created in start_dir if none); returns its path."""
    import yaml

    path = find_config_file(start_dir) or _new_file(entry, start_dir)
    try:
        text = open(path, encoding="utf-8").read() if os.path.exists(path) else ""
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror}") from None
    try:
        current = yaml.safe_load(text) if text.strip() else {}
    except yaml.YAMLError:
        raise KvlintError(f"{path}: not valid YAML; fix it before calibrating") from None
    if current is not None and not isinstance(current, dict):
        raise KvlintError(f"{path}: the configuration must be a mapping of keys")
    kept = [c for c in entries(current) if not c.same_target(entry)]
    new_text = splice(text, render_block(kept + [entry]))
    if not _round_trips(new_text, current or {}, kept + [entry]):
        raise KvlintError(f"{path}: cannot place a calibration block in this layout; add it by hand:\n"
                          + render_block([entry]))
    try:
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(new_text)
    except OSError as exc:
        raise InputError(f"{path}: cannot write: {exc.strerror}") from None
    return path


def _new_file(entry: Calibration, start_dir: str) -> str:
    """A new .kvlint.yaml in start_dir, unless [tool.kvlint] in a pyproject.toml governs it: a new file would
    hide those settings from `kvlint check` (it prefers .kvlint.yaml), so ask for the TOML entry instead."""
    from kvlint.config import find_config

    governing = find_config(os.path.abspath(start_dir))
    if governing and os.path.basename(governing) == "pyproject.toml":
        raise KvlintError(f"{governing} configures kvlint ([tool.kvlint]); a new .kvlint.yaml would hide it. "
                          f"Add this to {governing}:\n" + render_toml(entry))
    return os.path.join(os.path.abspath(start_dir), CONFIG_NAMES[0])


def render_toml(entry: Calibration) -> str:
    """The entry as a [[tool.kvlint.calibration]] table (JSON strings and numbers are valid TOML)."""
    values = asdict(entry)
    lines = ["[[tool.kvlint.calibration]]"]
    lines += [f"{key} = {json.dumps(values[key])}" for key in KEYS if key != "source_log" or values[key]]
    return "\n".join(lines) + "\n"


def _round_trips(text: str, before: dict[str, Any], wanted: list[Calibration]) -> bool:
    """The spliced text still parses, keeps every other key unchanged, and reads back our entries."""
    import yaml

    try:
        after = yaml.safe_load(text)
    except yaml.YAMLError:
        return False
    if not isinstance(after, dict):
        return False
    others = {k: v for k, v in before.items() if k != "calibration"}
    return {k: v for k, v in after.items() if k != "calibration"} == others and entries(after) == wanted


def load_file(path: str) -> dict[str, Any]:
    """A configuration file as a plain mapping (for lookup); {} when absent or not a mapping."""
    import yaml

    try:
        with open(path, encoding="utf-8") as fh:
            data = yaml.safe_load(fh)
    except (OSError, yaml.YAMLError):
        return {}
    return data if isinstance(data, dict) else {}


def lookup_file(path: str | None, model: str | None, gpu: str | None, tp: int | None, engine: str | None,
                version: str | None) -> int | None:
    """lookup() against a .kvlint.yaml path (the check helper's Config.path); None for other files."""
    if not path or os.path.basename(path) not in CONFIG_NAMES:
        return None
    try:
        stamp = os.stat(path).st_mtime_ns
    except OSError:
        return None
    return lookup(_cached_file(path, stamp), model, gpu, tp, engine, version)


@lru_cache(maxsize=32)
def _cached_file(path: str, stamp: int) -> dict[str, Any]:
    return load_file(path)
