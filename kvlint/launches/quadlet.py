"""Podman Quadlet units (`*.container`): the `[Container]` section is a `podman run`, written as keys.

`Image=` is the image, `Exec=` the arguments its entry point gets (or a command), `Environment=` the container's
variables and `AddDevice=` its devices (`nvidia.com/gpu=all`). The reader writes the `podman run` those keys
stand for, every value at its own place in the unit, and hands it to the script reader that reads any other
`podman run`, so a unit and the command it replaces give the same launch.
"""

from __future__ import annotations

from kvlint.launches import ReadResult
from kvlint.lazyre import lazy
from kvlint.sources.text import LineIndex, Mapped

_KEY = lazy(r"(?m)^[ \t]*(Image|Exec|Environment|AddDevice)[ \t]*=[ \t]*(.*?)[ \t]*$")
_SECTION = lazy(r"(?m)^[ \t]*\[([A-Za-z]+)\][ \t]*$")


def read(path: str, text: str, _as_vllm_config: bool | None = None) -> ReadResult:
    """The reader protocol's entry (kvlint.launches.kinds)."""
    from kvlint.launches.build import LaunchContext, ManifestGpu, finish
    from kvlint.launches.groups import is_launch
    from kvlint.launches.script import run_script
    from kvlint.sources.comments import scan_comments

    section = _container_section(text)
    if section is None:
        return ReadResult(path)
    script, offsets = _podman_run(text, *section)
    if not script:
        return ReadResult(path)
    launches, _, notes = run_script(Mapped(path, script, index=LineIndex(text), offsets=offsets), {})
    ctx = LaunchContext(notes=("a Quadlet unit: its [Container] keys read as the `podman run` they stand for",
                               *notes))
    deps = [d for d in (finish(path, f, ctx, ManifestGpu()) for f in launches) if is_launch(d)]
    return ReadResult(path, deps, comments=scan_comments(text))


def _container_section(text: str) -> tuple[int, int] | None:
    """(start, end) offsets of the `[Container]` section's body."""
    sections = list(_SECTION.finditer(text))
    for k, m in enumerate(sections):
        if m.group(1) == "Container":
            return m.end(), sections[k + 1].start() if k + 1 < len(sections) else len(text)
    return None


def _podman_run(text: str, start: int, end: int) -> tuple[str, list[int]]:
    """`podman run [--device X] [-e K=V] IMAGE EXEC...` and, per character, its offset in the unit (the words
    kvlint adds sit at the key they come from). Empty when the section names no image."""
    keys = [(m.group(1), m.start(1), m.group(2), m.start(2)) for m in _KEY.finditer(text, start, end)]
    image = next(((value, at) for key, _, value, at in keys if key == "Image" and value), None)
    if image is None:
        return "", []
    # (text, offset, whether it is written in the unit: its characters at their own places, else all at `offset`)
    parts: list[tuple[str, int, bool]] = [("podman run", keys[0][1], False)]
    for key, key_at, value, at in keys:
        if key == "AddDevice":
            parts += [(" --device ", key_at, False), (value, at, True)]
        elif key == "Environment":
            for word, word_at in _words(value, at):
                parts += [(" -e ", key_at, False), (word, word_at, True)]
    parts += [(" ", image[1], False), (image[0], image[1], True)]
    for key, key_at, value, at in keys:
        if key == "Exec":
            parts += [(" ", key_at, False), (value, at, True)]
    script = "".join(p for p, _, _ in parts)
    offsets = [at + (k if written else 0) for p, at, written in parts for k in range(len(p))]
    return script, offsets + [end]


def _words(value: str, at: int) -> list[tuple[str, int]]:
    """`Environment=A=1 B=2`: each assignment and its offset."""
    out: list[tuple[str, int]] = []
    k = 0
    for word in value.split(" "):
        if word:
            out.append((word, at + k))
        k += len(word) + 1
    return out
