"""`kvlint budget -- <engine command line>`: where every GiB of the card goes, and how each number was reached.

The command line is read with the engine's own flag rules (kvlint.flags.parse), the model resolved
offline, and the memory model (kvlint.memory.compute_budget) run once; the text view is a bar of the
card, the derivation steps, and how many full-length requests fit at each context length.
"""

from __future__ import annotations

import json
import os
import shlex
from typing import TYPE_CHECKING, Any

import click

from kvlint.budget import Budget
from kvlint.deployment import Deployment
from kvlint.engines import get_engine
from kvlint.errors import InputError, KvlintError, UnknownFlagError
from kvlint.printable import printable
from kvlint.record import record, replace
from kvlint.redact import redact_text
from kvlint.report.tenants import segments
from kvlint.resolve import Resolved, ResolveOptions, Resolver
from kvlint.sizes import GIB
from kvlint.span import Token
from kvlint.status import Sweep

if TYPE_CHECKING:
    from kvlint.config import Config

BAR_WIDTH = 60
USAGE = ("expected an engine command line after `--`: `vllm serve MODEL ...`, `python -m "
         "vllm.entrypoints.openai.api_server --model M ...`, `python -m sglang.launch_server --model-path M ...` "
         "or `sglang serve M ...`")


@record
class Shown:
    """One instance as `budget` prints it: the budget drawn, its concurrency table, and the sweep behind it."""

    budget: Budget
    table: list[tuple[int, int]]
    sweep: Sweep | None = None
    model_max: int | None = None  # the model's derived maximum length (the curve marks it)


@click.command("budget", context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False})
@click.option("--gpu", help="GPU name, e.g. H100, A100-80GB, L40S (a command line: default H100; a file: its own).")
@click.option("--gpu-memory", help="GPU total as the engine sees it, e.g. 79.19GiB or 81559MiB.")
@click.option("--engine-version", help="Engine release when the image tag does not say (default: vLLM 0.33.0 / "
                                       "SGLang 0.5.23).")
@click.option("--non-kv-gib", type=float, help="Non-KV memory per rank in GiB instead of the estimate.")
@click.option("--online", is_flag=True, help="Allow fetching config.json from the Hugging Face Hub.")
@click.option("--format", "fmt", type=click.Choice(["text", "json", "svg"]), default="text", show_default=True,
              help="svg: the memory picture and the concurrency curve of one instance, as one SVG file.")
@click.argument("argv", nargs=-1, type=click.UNPROCESSED)
def command(gpu: str | None, gpu_memory: str | None, engine_version: str | None, non_kv_gib: float | None,
            online: bool, fmt: str, argv: tuple[str, ...]) -> int:
    """Show the KV budget of one engine command line (after `--`) or of every instance in FILE."""
    from kvlint.resolve import ResolveOptions

    options = ResolveOptions(gpu=gpu, gpu_memory=gpu_memory, engine_version=engine_version, online=online,
                             non_kv_gib=non_kv_gib)
    words = list(argv)
    if len(words) > 1 and os.path.isfile(words[0]) and words[1].startswith("-") and "--" not in words:
        # `kvlint budget FILE --format json`: options after the file are still kvlint's own
        return int(command.main(args=[*words[1:], words[0]], prog_name="kvlint budget", standalone_mode=False))
    if len(words) == 1 and os.path.isfile(words[0]):
        results = budgets_from_file(words[0], options)
    elif len(words) == 1 and " " not in words[0] and (os.sep in words[0] or _looks_like_file(words[0])):
        raise KvlintError(f"{words[0]}: no such file (to budget a command line, put it after `--`)")
    else:
        if len(words) == 1 and " " in words[0]:
            words = shlex.split(words[0])
        results = [budget_from_argv(words, replace(options, assume_gpu=options.gpu or "H100"))]
    if fmt == "json":
        payload = [_json(r) for r in results]
        click.echo(redact_text(json.dumps(payload[0] if len(payload) == 1 else payload, indent=2)))
    elif fmt == "svg":
        click.echo(redact_text(_svg(results)), nl=False)
    else:
        click.echo(printable(redact_text("\n\n".join(render_text(r.budget, r.table, r.sweep) for r in results))))
    return 0


def _svg(results: list[Shown]) -> str:
    from kvlint.report.svg import instance

    if len(results) != 1:
        raise KvlintError(f"--format svg draws one instance and this file has {len(results)}; "
                          "`kvlint check FILE --format html` draws them all")
    return instance(results[0].budget, model_max=results[0].model_max)


def _looks_like_file(word: str) -> bool:
    return word.endswith((".yaml", ".yml", ".json", ".sh", ".toml")) or os.path.basename(word) == "Dockerfile"


def budget_from_argv(words: list[str], options: ResolveOptions) -> Shown:
    """A command line read with the engine's own flag rules, resolved like any manifest's launch."""
    from kvlint.config import ConfigCache
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
    for name, s in parsed.settings.items():
        if not s.resolved:
            raise KvlintError(f"{s.flag or name} has an unresolved value {s.raw!r}; give a literal value")
    model = str(parsed.model.value) if parsed.model is not None else None
    notes: tuple[str, ...] = ()
    if model is None:
        default = get_engine(engine).default_model
        if default is None:
            raise KvlintError(f"{engine} needs --model-path MODEL (or `{engine} serve MODEL`)")
        model, notes = default, (f"no model given: {get_engine(engine).title}'s default {default}",)
    dep = Deployment(path="<command line>", engine=engine, launch_span=None, model=model,
                     settings=dict(parsed.settings))
    config = ConfigCache(None).for_file("-")
    return _shown(Resolver(options), dep, config, notes, strict=True)


def _raise_for_flags(engine: str, parsed: Any) -> None:
    if parsed.unknown:
        u = parsed.unknown[0]
        hint = f"did you mean {u.suggestion}?" if u.suggestion else None
        raise UnknownFlagError(f"{engine} would reject {u.flag} ({u.reason})", hint)
    if parsed.errors:
        raise KvlintError(parsed.errors[0])


def budgets_from_file(path: str, options: ResolveOptions) -> list[Shown]:
    """Every instance in a manifest, resolved exactly as `kvlint check` resolves it."""
    from kvlint.config import ConfigCache
    from kvlint.launches import read_path

    result = read_path(path)
    refused = next((f for f in result.findings if f.code == "KV001" and str(f.severity) == "error"), None)
    if not result.deployments and refused is not None:  # over the size cap, binary, not YAML: say so (exit 3)
        where = f":{refused.span.line}" if refused.span else ""
        raise InputError(f"{path}{where}: {refused.message}")
    if not result.deployments:
        why = f" ({result.skipped})" if result.skipped else ""
        raise KvlintError(f"{path}: no vLLM or SGLang launch found{why}")
    configs, resolver = ConfigCache(None), Resolver(options)
    out, errors = [], []
    for dep, shown, error in file_budgets(result.deployments, configs.for_file(path), resolver):
        if shown is not None:
            out.append(shown)
        else:
            errors.append(f"{path}: {dep.name or dep.engine}: {error}")
    if not out:
        raise KvlintError(errors[0])
    for line in errors:
        click.echo(printable(redact_text(f"kvlint: skipped {line}")), err=True)
    return out


def file_budgets(deployments: list[Deployment], config: Config,
                 resolver: Resolver) -> list[tuple[Deployment, Shown | None, str | None]]:
    """Each launch of a file with what `budget` shows for it, or why it cannot (in file order)."""
    out: list[tuple[Deployment, Shown | None, str | None]] = []
    for dep in deployments:
        label = f"{dep.path}: {dep.name or dep.engine}"
        try:
            out.append((dep, _shown(resolver, dep, config, (label,)), None))
        except KvlintError as exc:
            out.append((dep, None, str(exc)))
    return out


def _shown(resolver: Resolver, dep: Deployment, config: Config, notes: tuple[str, ...], *,
           strict: bool = False) -> Shown:
    """The budget to draw: the launch's own card, else (no GPU known) the smallest catalogue card that starts it."""
    r = resolver.resolve(dep, config)
    if strict and r.gpu.name is not None and r.gpu.reason:
        raise KvlintError(r.gpu.reason)
    budget, sweep = r.budget, r.sweep or r.candidates
    extra = notes + _notes(r)
    if budget is None and sweep is not None:
        from kvlint.gpus import lookup_gpu

        card = next(iter(sweep.passing), None) or (sweep.cards[-1].gpu if sweep.cards else None)
        budget = resolver.on_card(r, lookup_gpu(card)) if card else None
        how = "the smallest catalogue card that starts it" if sweep.passing else "the largest card (none starts it)"
        extra += (f"no GPU product declared: drawn on {card}, {how}; see the catalogue verdict below",)
    if budget is None:
        raise KvlintError(r.skipped_because or r.model.reason or "cannot size this launch")
    budget = replace(budget, notes=extra + budget.notes)
    table = concurrency_table(r, budget)
    model_max = r.engine.derived_max_len(r.model.spec) if r.model.spec is not None else None
    return Shown(budget, table, sweep if r.budget is None else r.candidates, model_max)


def _notes(r: Resolved) -> tuple[str, ...]:
    out: list[str] = []
    if r.gpu.source == "assumed":
        out.append(f"no --gpu given: assuming {r.gpu.label}")
    if r.non_kv.source == "calibrated" and r.non_kv.how:
        out.append(f"non-KV {r.non_kv.how}")
    out += [n.split(": ", 1)[-1] for n in r.notes]
    return tuple(out)


def contexts(max_len: int) -> list[int]:
    """2k, 4k, 8k, ... below max_model_len, then max_model_len itself."""
    out, c = [], 2048
    while c < max_len:
        out.append(c)
        c *= 2
    return out + [max_len]


def concurrency_table(r: Resolved, budget: Budget) -> list[tuple[int, int]]:
    """Full-length requests the same pool holds at each context (vLLM: same num_blocks, exact block math)."""
    spec = r.model.spec
    if spec is None:
        return []
    gpu = r.gpu.gpu
    if gpu is None and r.gpu.memory_bytes is None:
        from kvlint.gpus import lookup_gpu

        gpu = lookup_gpu(budget.gpu_name) if budget.gpu_name else None
    return [(c, r.engine.requests_at(budget, c, spec, dict(r.settings), gpu, r.gpu.memory_bytes))
            for c in contexts(budget.max_model_len)]


def _json(shown: Shown) -> dict[str, Any]:
    out = shown.budget.to_json()
    out["concurrency_by_context"] = [{"context": c, "requests": n} for c, n in shown.table]
    if shown.sweep is not None:
        out["sweep"] = {"min_gpu_memory_bytes": shown.sweep.min_gpu_memory_bytes,
                        "min_load_memory_bytes": shown.sweep.min_load_memory_bytes,
                        "candidates": shown.sweep.candidates,
                        "cards": [{"gpu": v.gpu, "memory_bytes": v.memory_bytes, "starts": v.starts,
                                   "holds_load": v.holds_load} for v in shown.sweep.cards]}
    return out


# ---------------------------------------------------------------- text view


def _g(n: float) -> str:
    return f"{n / GIB:.2f} GiB"


def bar(b: Budget) -> str:
    parts = segments(b)
    total = max(b.gpu_memory_bytes, sum(p[2] for p in parts), 1)
    chars = "".join(ch * round(BAR_WIDTH * max(n, 0) / total) for _, ch, n, _ in parts)
    return "[" + chars[:BAR_WIDTH].ljust(BAR_WIDTH) + "]"


def _mark(b: Budget, label: str, estimated: bool) -> str:
    if estimated:
        return " (estimate)"
    return " (calibrated)" if label == "non-KV" and b.non_kv_source == "calibrated" else ""


def _float(name: str, value: object) -> str:
    """SGLang's fraction is rounded to 3 places; the VLM factor makes it long (0.7532616796874999)."""
    if isinstance(value, float) and name.startswith("mem_fraction_static"):
        return f"{round(value, 3):g}"
    return str(value)


def render_sweep(sweep: Sweep) -> list[str]:
    """The verdict on each card tried: the catalogue (no GPU declared) or the file's candidates."""
    what = "the GPUs the file offers" if sweep.candidates else "the GPU catalogue"
    lines = ["", f"on {what}:"]
    if sweep.min_gpu_memory_bytes:
        lines.append(f"  starts on every card from {_g(sweep.min_gpu_memory_bytes)} per GPU")
    if sweep.min_load_memory_bytes:
        lines.append(f"  holds the declared concurrency from {_g(sweep.min_load_memory_bytes)} per GPU")
    for v in sweep.cards:
        verdict = "starts" if v.starts else "does not start"
        load = "" if v.holds_load is None else (", holds the load" if v.holds_load else ", short of the load")
        lines.append(f"  {v.gpu:<22} {_g(v.memory_bytes):>11}  {verdict}{load}")
    return lines


def render_text(b: Budget, table: list[tuple[int, int]], sweep: Sweep | None = None) -> str:
    p = b.parallel
    lines = [f"{b.engine} {b.engine_version}  {b.model}  on {b.gpu_name} ({_g(b.gpu_memory_bytes)})  "
             f"TP {p.tp} PP {p.pp} DP {p.dp} DCP {p.dcp}"]
    lines += [f"note: {n}" for n in b.notes]
    lines += ["", bar(b)]
    lines += ["  " + "   ".join(f"{ch} {label} {_g(n)}{_mark(b, label, est)}" for label, ch, n, est in segments(b))]
    mark = " (estimate)" if b.kv_pool_estimated else ""
    fits = "yes" if b.fits_one_request else f"NO (longest that fits: {b.estimated_max_model_len})"
    over = b.fixed_pool.overcommit_bytes if b.fixed_pool is not None else 0
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
    if sweep is not None:
        lines += render_sweep(sweep)
    return "\n".join(lines)
