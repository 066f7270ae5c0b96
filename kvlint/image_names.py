"""Whether an image name is one of an engine's own published images: asked by the readers (which images start
the engine), by resolve (what a `:latest` tag pins) and by the rules (whose build decides a flag), so it sits below
all three stages. The names live in each engine's record (`image_markers`, `image_ships`)."""

from __future__ import annotations

from functools import cache


def known_image(image: str | None) -> bool:
    """Whether kvlint knows this image by an engine's own list (not only by its name): it then knows what
    its entry point does, so flags alone never make it start an engine it does not start itself
    (`lmsysorg/sglang` runs a shell). An image known only by its name (`vastai/vllm`) is not known. The engines
    are asked one by one (a vLLM image never loads SGLang's record)."""
    from kvlint.engines import all_engines

    low = (image or "").lower()
    return bool(low) and any(t in low for e in all_engines() for t in _own_markers(e.image_markers + e.image_ships))


@cache
def _own_markers(markers: tuple[str, ...]) -> tuple[str, ...]:
    """An engine's image markers less the name patterns (`/sglang`, `sglang:` match `voipmonitor/sglang:cu130`,
    `lavd/sglang-d4f-b12x`: they say an image carries the engine, not that it is the engine's own image)."""
    return tuple(t for t in markers if not t.startswith("/") and not t.endswith(":"))


def month_tag(image: str | None) -> str | None:
    """`YYYY-MM` for an image whose tag is a container release of a year and month (`nvcr.io/nvidia/vllm:25.11-py3`,
    NVIDIA NGC's `YY.MM` scheme, sample K113): the engine inside is whichever release that month's build carried,
    never an engine release `25.11`. None for any other tag (`v0.8.5`, `0.11.0`, `2025-05-27`)."""
    if not image or ":" not in image.rsplit("/", 1)[-1]:
        return None
    tag = image.rsplit(":", 1)[1].split("@", 1)[0]
    head = tag.split("-", 1)[0]
    year, dot, month = head.partition(".")
    if not dot or len(year) != 2 or len(month) != 2 or not (year + month).isdigit():
        return None
    return f"20{year}-{month}" if 20 <= int(year) <= 40 and 1 <= int(month) <= 12 else None
