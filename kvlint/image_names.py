"""Whether an image name is one of an engine's own published images: asked by the readers (which images start
the engine), by resolve (what a `:latest` tag pins) and by the rules (whose build decides a flag), so it sits below
all three stages. The names live in each engine's record (`image_markers`, `image_ships`)."""

from __future__ import annotations

import re
from functools import cache

from kvlint.lazyre import lazy


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


def release_tagged(repo: str, stems: tuple[str, ...]) -> bool:
    """Whether an image repository is one the engine's releases tag: its own name (`vllm-openai`, `sglang`) or that
    name with build-variant words only (`vllm-openai-rocm`, `sglang-rocm`, `vllm-rocm-gfx1151`). Any other word makes
    it an image of its own that versions itself: a project's build on the engine (turn 47's K482:
    `sglang-qwen38-flash-next-sm120:v0.1.0-rc.9` was read as SGLang 0.1.0), a vendor's product
    (`vllm-rocm-rhel9:3.2.5`), a tool beside the engine (`sglang-router`, Dynamo's `sglang-runtime:0.8.1`)."""
    for stem in stems:
        rest = repo[len(stem):]
        if repo.startswith(stem) and (not rest or rest[0] in "-_" and
                                      all(_VARIANT_WORD.fullmatch(w) for w in re.split(r"[-_]", rest[1:]))):
            return True
    return False


# the words a variant of an engine's image adds to its name: a platform, an architecture, a build channel, the
# release repository (vLLM's `vllm-cpu-release-repo` on ECR)
_VARIANT_WORD = lazy(r"(?i)openai|rocm\d*|cpu|gpu|tpu|xpu|hpu|npu|cuda\d*|cu\d+|arm64|aarch64|amd64|x86|64|"
                     r"gfx\d+\w*|mi\d+x?|nightly|dev|base|release|repo")
