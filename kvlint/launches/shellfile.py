"""Shell scripts and Slurm batch files: every launch, with `#SBATCH` GPU requests attached."""

from __future__ import annotations

import re

from kvlint.deployment import Deployment
from kvlint.launches import gpus_in_manifest as g
from kvlint.launches.build import Context, GpuFacts, finish
from kvlint.launches.script import run_script
from kvlint.sources.text import LineIndex, Mapped

_SBATCH = re.compile(r"^#SBATCH\s+(--gres[= ]|--gpus(?:-per-node)?[= ]|-G\s*)(\S+)", re.M)


def read_shell(path: str, text: str, index: LineIndex | None = None) -> list[Deployment]:
    index = index or LineIndex(text)
    launches, _, notes = run_script(Mapped.whole(path, text, index), {})
    gpu = _sbatch_gpus(path, text, index)
    ctx = Context(notes=tuple(notes))
    return [finish(path, f, ctx, gpu) for f in launches]


def _sbatch_gpus(path: str, text: str, index: LineIndex) -> GpuFacts:
    from kvlint.span import Span

    for m in _SBATCH.finditer(text):
        opt = m.group(1).strip(" =")
        product, count = g.parse_gres(f"{opt.lstrip('-')}={m.group(2)}" if opt != "--gres" else m.group(2))
        line, col = index.locate(m.start(2))
        span = Span(path, line, col, line, col + len(m.group(2)))
        return GpuFacts(product, span if product else None, count, span if count else None)
    return GpuFacts()
