"""`kvlint plan MODEL --context N --concurrency N`: the smallest deployments that hold a target.

Exit 0 when at least one option holds the target, 1 when none does (so a CI job can assert a fleet
plan still works after a model or context change), 2 for usage errors.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING

import click

from kvlint.engines.registered import engine_names
from kvlint.sizes import GIB

if TYPE_CHECKING:
    from kvlint.config import Config
    from kvlint.models.spec import ModelSpec
    from kvlint.plan import Plan, PlanOption

DEFAULT_GPUS = "H100,H200,B200,A100-80GB,L40S"
TEXT_ROWS = 12


@click.command("plan")
@click.argument("model")
@click.option("--context", type=int, required=True, help="Tokens per request (max_model_len / context_length).")
@click.option("--concurrency", type=int, required=True, help="Full-length requests to hold at once.")
@click.option("--engine", type=click.Choice(list(engine_names())), default="vllm", show_default=True)
@click.option("--engine-version", help="Engine release to model (default: the newest documented).")
@click.option("--gpus", help=f"Comma-separated GPU types to consider (default: {DEFAULT_GPUS}).")
@click.option("--gpu", "gpu_names", multiple=True,
              help="A GPU type to consider (repeatable; replaces the default list).")
@click.option("--gpu-memory", help="Override every GPU's total, e.g. 81559MiB (the seed's H100).")
@click.option("--non-kv-gib", type=float, help="Non-KV memory per GPU instead of the estimate.")
@click.option("--max-gpus", type=int, default=16, show_default=True, help="Largest TP x PP to consider.")
@click.option("--limit", type=click.IntRange(min=1), help="Options per table: text shows 12 unless told, JSON all.")
@click.option("--online", is_flag=True, help="Fetch config.json from the Hugging Face Hub when not cached.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
def command(model: str, context: int, concurrency: int, engine: str, engine_version: str | None, gpus: str | None,
            gpu_names: tuple[str, ...], gpu_memory: str | None, non_kv_gib: float | None, max_gpus: int,
            limit: int | None, online: bool, fmt: str) -> int:
    """Rank GPU type x TP x PP x KV dtype x weight precision options that hold the target."""
    from kvlint.config import ConfigCache
    from kvlint.errors import KvlintError
    from kvlint.gpus import lookup_gpu, parse_memory_size
    from kvlint.plan import plan
    from kvlint.resolve import ResolveOptions
    from kvlint.resolve.lookups import lookup_model

    if max_gpus < 1:
        raise KvlintError("--max-gpus must be at least 1")
    config = ConfigCache(None).for_file("-")
    found = lookup_model(model, config, ResolveOptions(online=online))
    if found.spec is None:
        raise KvlintError(found.reason or f"model {model!r} is not known offline")
    spec = found.spec
    names = _gpu_names(gpus, gpu_names)
    catalogue = [(lookup_gpu(n).id, lookup_gpu(n)) for n in names]
    result = plan(spec, context=context, concurrency=concurrency, gpus=list(dict(catalogue).items()), engine=engine,
                  version=engine_version, gpu_memory_bytes=parse_memory_size(gpu_memory) if gpu_memory else None,
                  non_kv_bytes=int(round(non_kv_gib * GIB)) if non_kv_gib is not None else None,
                  max_gpus=max_gpus, non_kv_for=None if non_kv_gib is not None else _calibrated(spec, engine,
                                                                                              engine_version, config))
    text = json.dumps(result.top(limit).to_json(), indent=2) if fmt == "json" else render(result, limit or TEXT_ROWS)
    from kvlint.printable import printable
    from kvlint.redact import redact_text

    click.echo(printable(redact_text(text)))  # the model name is the user's input: masked and escaped as anywhere
    return 0 if result.holding else 1


def _gpu_names(gpus: str | None, repeated: tuple[str, ...]) -> list[str]:
    """--gpus (comma-separated) and every --gpu, in order; the default list only when neither is given."""
    from kvlint.errors import KvlintError

    listed = [g.strip() for g in (gpus or "").split(",") if g.strip()] + [g.strip() for g in repeated if g.strip()]
    if gpus is not None or repeated:
        if not listed:
            raise KvlintError("--gpus / --gpu name no GPU")
        return list(dict.fromkeys(listed))
    return DEFAULT_GPUS.split(",")


def _calibrated(spec: ModelSpec, engine: str, version: str | None,
                config: Config) -> Callable[[str, int], int | None] | None:
    """Per (GPU, TP) non-KV from the calibrations of the configuration `check` reads here, if any."""
    if not config.calibrations:
        return None
    from kvlint.calibration.match import match

    def non_kv(gpu_id: str, tp: int) -> int | None:
        found = match(config.calibrations, spec.model_id, gpu_id, tp, engine, version)
        return found.non_kv_bytes if found is not None else None

    return non_kv


def _row(o: PlanOption) -> tuple[str, ...]:
    return (o.gpu, f"{o.tp}x{o.pp}", str(o.gpus), o.weights, o.kv_cache_dtype, f"{o.kv_pool_bytes / GIB:.2f}",
            f"{o.per_request_bytes / GIB:.3f}", f"{o.max_concurrency:.2f}", f"{o.headroom:+.2f}")


def _table(head: tuple[str, ...], rows: list[tuple[str, ...]]) -> list[str]:
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]
    fmt = "  ".join(f"{{:<{w}}}" for w in widths)
    return [fmt.format(*head), fmt.format(*("-" * w for w in widths))] + [fmt.format(*r) for r in rows]


def render(result: Plan, limit: int) -> str:
    head = ("gpu", "tp x pp", "gpus", "weights", "kv dtype", "pool GiB/gpu", "GiB/request", "concurrency", "headroom")
    out = [f"{result.model} on {result.engine}: {result.concurrency} concurrent requests of {result.context:,} tokens"]
    holding = result.holding
    if holding:
        shown = f"; the first {limit} shown, --limit N for more" if len(holding) > limit else ""
        out += ["", f"{len(holding)} option(s) hold the target (fewest GPUs first{shown}):"]
        out += _table(head, [_row(o) for o in holding[:limit]])
    else:
        out += ["", "no option within the limits holds the target"]
    fewest = holding[0].gpus if holding else None
    failing = [o for o in result.options if not o.holds and (fewest is None or o.gpus < fewest)]
    if failing:
        out += ["", "smaller options that fall short (first failing setting):"]
        out += _table(("gpu", "tp x pp", "weights", "kv dtype", "why not"),
                      [(o.gpu, f"{o.tp}x{o.pp}", o.weights, o.kv_cache_dtype, o.failure or "")
                       for o in failing[:limit]])
    return "\n".join(out)
