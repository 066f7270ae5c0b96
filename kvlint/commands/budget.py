"""`kvlint budget -- <engine command line>`: where every GiB of the card goes, and how each number was reached.

The command line is read with the engine's own flag rules (kvlint.flags.parse), the model resolved
offline, and the memory model (kvlint.memory.compute_budget) run once; the text view is a bar of the
card, the derivation steps, and how many full-length requests fit at each context length.
"""

from __future__ import annotations

import json
import math
import os
import shlex
from typing import Any

import click

from kvlint.budget import Budget
from kvlint.errors import InputError, KvlintError, UnknownFlagError
from kvlint.redact import redact_text
from kvlint.span import Token

GIB = 2**30
BAR_WIDTH = 60
USAGE = ("expected an engine command line after `--`: `vllm serve MODEL ...`, `python -m "
         "vllm.entrypoints.openai.api_server --model M ...`, `python -m sglang.launch_server --model-path M ...` "
         "or `sglang serve M ...`")


@click.command("budget", context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False})
@click.option("--gpu", help="GPU name, e.g. H100, A100-80GB, L40S (default: H100).")
@click.option("--gpu-memory", help="GPU total as the engine sees it, e.g. 79.19GiB or 81559MiB.")
@click.option("--engine-version", help="Engine release to model (default: vLLM 0.33.0 / SGLang 0.5.23).")
@click.option("--non-kv-gib", type=float, help="Non-KV memory per rank in GiB instead of the estimate.")
@click.option("--online", is_flag=True, help="Allow fetching config.json from the Hugging Face Hub.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.argument("argv", nargs=-1, type=click.UNPROCESSED)
def command(gpu, gpu_memory, engine_version, non_kv_gib, online, fmt, argv) -> int:
    """Show the KV budget of one engine command line (after `--`) or of every instance in FILE."""
    options = dict(gpu=gpu, gpu_memory=gpu_memory, version=engine_version, non_kv_gib=non_kv_gib, online=online)
    words = list(argv)
    if len(words) > 1 and os.path.isfile(words[0]) and words[1].startswith("-") and "--" not in words:
        # `kvlint budget FILE --format json`: options after the file are still kvlint's own
        return command.main(args=[*words[1:], words[0]], prog_name="kvlint budget", standalone_mode=False)
    if len(words) == 1 and os.path.isfile(words[0]):
        results = budgets_from_file(words[0], options)
    elif len(words) == 1 and " " not in words[0] and (os.sep in words[0] or _looks_like_file(words[0])):
        raise KvlintError(f"{words[0]}: no such file (to budget a command line, put it after `--`)")
    else:
        if len(words) == 1 and " " in words[0]:
            words = shlex.split(words[0])
        results = [budget_from_argv(words, options)]
    if fmt == "json":
        payload = [_json(b, table) for b, table in results]
        click.echo(redact_text(json.dumps(payload[0] if len(payload) == 1 else payload, indent=2)))
    else:
        click.echo(redact_text("\n\n".join(render_text(b, table) for b, table in results)))
    return 0


def _looks_like_file(word: str) -> bool:
    return word.endswith((".yaml", ".yml", ".json", ".sh", ".toml")) or os.path.basename(word) == "Dockerfile"


def budget_from_argv(words: list[str], options: dict[str, Any]) -> tuple[Budget, list[tuple[int, int]]]:
    from kvlint.flags.launch import detect_launch
    from kvlint.flags.parse import parse_args

    if not words:
        raise KvlintError(f"no command line given; {USAGE}")
    tokens = [Token(w) for w in words]
    found = detect_launch(tokens)
    if found is None:
        raise KvlintError(f"not an engine command line: {' '.join(words[:3])!r}; {USAGE}")
    engine, index = found
    parsed = parse_args(engine, tokens, index)
    _raise_for_flags(engine, parsed)
    settings = {}
    for name, s in parsed.settings.items():
        if not s.resolved:
            raise KvlintError(f"{s.flag or name} has an unresolved value {s.raw!r}; give a literal value")
        settings[name] = s.value
    model = parsed.model.value if parsed.model is not None else None
    notes = ()
    if model is None:
        if engine == "sglang":
            raise KvlintError("sglang needs --model-path MODEL (or `sglang serve MODEL`)")
        model, notes = "Qwen/Qwen3-0.6B", ("no model given: vLLM's default Qwen/Qwen3-0.6B",)
    return run(engine, str(model), settings, options, extra_notes=notes)


def _raise_for_flags(engine: str, parsed) -> None:
    if parsed.unknown:
        u = parsed.unknown[0]
        hint = f"did you mean {u.suggestion}?" if u.suggestion else None
        raise UnknownFlagError(f"{engine} would reject {u.flag} ({u.reason})", hint)
    if parsed.errors:
        raise KvlintError(parsed.errors[0])


def run(engine: str, model_ref: str, settings: dict[str, Any], options: dict[str, Any], *,
        gpu_name: str | None = None, version: str | None = None, extra_notes: tuple[str, ...] = (),
        base_dir: str = "."):
    """One budget; without --non-kv-gib, a calibration in the nearest .kvlint.yaml (from base_dir) applies."""
    from dataclasses import replace

    from kvlint.memory import compute_budget
    from kvlint.models.resolve import resolve_model

    try:
        spec = resolve_model(model_ref, online=bool(options.get("online")))
    except OSError as exc:  # a 300-character name, an unreadable HF cache: a clean error, not an internal one
        shown = model_ref if len(model_ref) <= 80 else model_ref[:77] + "..."
        raise KvlintError(f"model {shown!r} cannot be looked up on this machine ({exc.strerror or exc})") from None
    gpu, memory, notes = _gpu(options.get("gpu") or gpu_name, options.get("gpu_memory"))
    non_kv = options.get("non_kv_gib")
    version = options.get("version") or version
    found = None if non_kv is not None else _calibration(engine, spec, settings, gpu, version, base_dir)
    if found is not None:
        non_kv, notes = found.entry.non_kv_gib, notes + tuple(n for n in [found.note()] if n)
    budget = compute_budget(engine, spec, settings, gpu, version=version,
                            non_kv_bytes=None if non_kv is None else int(round(non_kv * GIB)), gpu_memory_bytes=memory)
    if found is not None:
        from kvlint.calibration.match import apply

        budget = apply(budget, found)
        notes += (f"non-KV {found.describe()}",) if budget.non_kv_source == "calibrated" else ()
    budget = replace(budget, notes=tuple(extra_notes) + notes + budget.notes)
    return budget, concurrency_table(budget, spec, settings, gpu, memory, options)


def _calibration(engine: str, spec, settings: dict[str, Any], gpu, version: str | None, base_dir: str):
    """The matching entry of the nearest .kvlint.yaml (read leniently: `kvlint check` is where it is validated)."""
    if gpu is None:
        return None
    from kvlint.calibration.entry import entries
    from kvlint.calibration.match import match, settings_tp
    from kvlint.calibration.store import find_config_file, load_file

    path = find_config_file(base_dir)
    items = entries(load_file(path)) if path else []
    return match(items, spec.model_id, gpu.id, settings_tp(engine, settings), engine, version) if items else None


def _gpu(name: str | None, memory: str | None):
    from kvlint.gpus import lookup_gpu, parse_memory_size

    total = parse_memory_size(memory) if memory else None
    if name:
        return lookup_gpu(name), total, ()
    if total is not None:
        return None, total, ()
    return lookup_gpu("H100"), None, ("no --gpu given: assuming H100 80GB",)


def contexts(max_len: int) -> list[int]:
    """2k, 4k, 8k, ... below max_model_len, then max_model_len itself."""
    out, c = [], 2048
    while c < max_len:
        out.append(c)
        c *= 2
    return out + [max_len]


def concurrency_table(budget: Budget, spec, settings, gpu, memory, options) -> list[tuple[int, int]]:
    """Full-length requests the same pool holds at each context (vLLM: same num_blocks, exact block math)."""
    from kvlint.memory import compute_budget

    rows = []
    for ctx in contexts(budget.max_model_len):
        if budget.engine == "sglang" or budget.num_blocks is None:
            rows.append((ctx, budget.kv_tokens // ctx))
            continue
        b = compute_budget("vllm", spec, {**settings, "max_model_len": ctx, "num_gpu_blocks_override": budget.num_blocks},
                           gpu, version=budget.engine_version, non_kv_bytes=0, gpu_memory_bytes=memory,
                           weights_bytes=0)
        rows.append((ctx, math.floor(b.max_concurrency + 1e-9)))
    return rows


def budgets_from_file(path: str, options: dict[str, Any]):
    try:
        from kvlint.launches import read_path
    except ImportError:
        raise KvlintError("kvlint budget FILE is not available yet; pass the command line after `--`") from None
    result = read_path(path)
    refused = next((f for f in result.findings if f.code == "KV001" and str(f.severity) == "error"), None)
    if not result.deployments and refused is not None:  # over the size cap, binary, not YAML: say so (exit 3)
        where = f":{refused.span.line}" if refused.span else ""
        raise InputError(f"{path}{where}: {refused.message}")
    if not result.deployments:
        raise KvlintError(f"{path}: no vLLM or SGLang launch found" + (f" ({result.skipped})" if result.skipped else ""))
    out, errors = [], []
    for dep in result.deployments:
        label = f"{path}: {dep.name or dep.engine}"
        try:
            if not dep.model or not dep.model_resolved:
                raise KvlintError("no literal model reference")
            settings = {name: s.value for name, s in dep.settings.items() if s.resolved}
            out.append(run(dep.engine, dep.model, settings, options, gpu_name=dep.gpu, version=dep.engine_version,
                           extra_notes=(label,), base_dir=os.path.dirname(os.path.abspath(path))))
        except KvlintError as exc:
            errors.append(f"{label}: {exc}")
    if not out:
        raise KvlintError(errors[0])
    for line in errors:
        click.echo(redact_text(f"kvlint: skipped {line}"), err=True)
    return out


def _json(budget: Budget, table: list[tuple[int, int]]) -> dict[str, Any]:
    out = budget.to_json()
    out["concurrency_by_context"] = [{"context": c, "requests": n} for c, n in table]
    return out


# ---------------------------------------------------------------- text view


def _g(n: float) -> str:
    return f"{n / GIB:.2f} GiB"


def segments(b: Budget) -> list[tuple[str, str, int, bool]]:
    """(label, bar character, bytes, estimated) in card order; the KV pool never shows negative."""
    pool = max(b.kv_pool_bytes, 0)
    if b.engine == "sglang":
        head = b.extra.get("reserve_bytes", 0)
    else:
        head = max(b.gpu_memory_bytes - b.requested_bytes, 0) if b.requested_bytes else 0
    est = b.kv_pool_estimated
    non_kv, non_kv_est = b.non_kv_bytes, b.non_kv_source == "estimated"
    if "fixed_pool_non_kv_bytes" in b.extra:  # a fixed pool: the working set still shares the card
        non_kv, non_kv_est = b.extra["fixed_pool_non_kv_bytes"], b.extra.get("fixed_pool_estimated", False)
    return [("weights", "W", b.weights_bytes, False), ("non-KV", "n", non_kv, non_kv_est),
            ("headroom" if b.engine == "vllm" else "reserve (activations, graphs)", ".", head, False),
            ("KV pool", "#", pool, est)]


def bar(b: Budget) -> str:
    parts = segments(b)
    total = max(b.gpu_memory_bytes, sum(p[2] for p in parts), 1)
    chars = "".join(ch * round(BAR_WIDTH * max(n, 0) / total) for _, ch, n, _ in parts)
    return "[" + chars[:BAR_WIDTH].ljust(BAR_WIDTH) + "]"


def _mark(b: Budget, label: str, estimated: bool) -> str:
    if estimated:
        return " (estimate)"
    return " (calibrated)" if label == "non-KV" and b.non_kv_source == "calibrated" else ""


def _float(name: str, value) -> str:
    """SGLang's fraction is rounded to 3 places; the VLM factor makes it long (0.7532616796874999)."""
    if isinstance(value, float) and name.startswith("mem_fraction_static"):
        return f"{round(value, 3):g}"
    return str(value)


def render_text(b: Budget, table: list[tuple[int, int]]) -> str:
    p = b.parallel
    lines = [f"{b.engine} {b.engine_version}  {b.model}  on {b.gpu_name} ({_g(b.gpu_memory_bytes)})  "
             f"TP {p.tp} PP {p.pp} DP {p.dp} DCP {p.dcp}"]
    lines += [f"note: {n}" for n in b.notes]
    lines += ["", bar(b)]
    lines += ["  " + "   ".join(f"{ch} {label} {_g(n)}{_mark(b, label, est)}" for label, ch, n, est in segments(b))]
    mark = " (estimate)" if b.kv_pool_estimated else ""
    fits = "yes" if b.fits_one_request else f"NO (longest that fits: {b.estimated_max_model_len})"
    over = b.extra.get("fixed_pool_overcommit_bytes", 0)
    if over > 0:
        fits = f"NO (weights + the fixed KV pool + non-KV exceed the GPU by {_g(over)}: CUDA out of memory)"
    lines += ["", f"KV per token per rank: {b.kv_bytes_per_token:,} B ({b.kv_cache_dtype})",
              f"KV pool: {_g(max(b.kv_pool_bytes, 0))}{mark} -> {b.kv_tokens:,} tokens, "
              f"{b.max_concurrency:.2f}x requests of {b.max_model_len:,} tokens{mark}",
              f"one full-length request fits: {fits}", "", "derivation:"]
    for s in b.steps:
        value = f"{s.value:,}" if isinstance(s.value, int) else _float(s.name, s.value)
        lines.append(f"  {s.name:<28} {value:>18} {s.unit:<6} {s.formula}{' (estimate)' if s.estimated else ''}")
    lines += ["", f"context   full-length requests that fit{mark}"]
    lines += [f"{c:>9,}   {n:,}" for c, n in table]
    return "\n".join(lines)
