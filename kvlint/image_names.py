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
