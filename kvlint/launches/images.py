"""Which container images carry an engine, and whether their entry point starts it.

One table, keyed by engine, so readers never branch on the engine name themselves (the lead's
per-engine records in kvlint/engines/ can absorb it). An image whose entry point *is* the engine
(`vllm/vllm-openai` runs `vllm serve`) turns bare arguments into a launch; one that only ships the
engine (`lmsysorg/sglang` starts a shell) needs an explicit command, but still names the engine for
an unknown chart that uses it.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class EngineImages:
    engine: str
    entrypoint: tuple[str, ...]  # substrings of images whose entry point starts the engine
    ships: tuple[str, ...]  # substrings of images that carry the engine (entry point or not)


IMAGES: tuple[EngineImages, ...] = (
    EngineImages("vllm", ("vllm-openai", "vllm/vllm-tpu", "vllm-tpu", "vllm/vllm"),
                 ("vllm-openai", "vllm/vllm", "vllm-tpu", "vllm-rocm", "vllm-cpu", "nm-vllm", "rhaiis/vllm",
                  "modh/vllm", "opendatahub/vllm", "vllm-cuda")),
    EngineImages("sglang", (), ("lmsysorg/sglang", "sglang:", "/sglang")),
)


def entrypoint_engine(image: str | None) -> str | None:
    """The engine an image starts when run with arguments only (None: it needs a command)."""
    if not image:
        return None
    return next((e.engine for e in IMAGES if any(t in image for t in e.entrypoint)), None)


def shipped_engine(image: str | None) -> str | None:
    """The engine an image carries, whether or not its entry point starts it: a known image, or an
    image whose own name is the engine's (`opea/vllm`, `org/vllm-gaudi`, `org/sglang-rocm`)."""
    if not image:
        return None
    low = image.lower()
    name = low.split("@", 1)[0].rsplit("/", 1)[-1].split(":", 1)[0]
    return next((e.engine for e in IMAGES if any(t in low for t in e.ships)
                 or name == e.engine or name.startswith(e.engine + "-")), None)
