"""A script the repository's own image runs: its engine is that image's, not the host's newest release.

A shell script is read as run on the host, with whatever engine release is installed there (the newest
assumed). A Dockerfile of the same repository can say otherwise: it copies the script (`COPY serve.sh /app/`)
into its image, or a file that the script runs by its place there
(nonokangwei/LLM-Tuning-On-GCP: `COPY launcher.py /root/scripts/launcher.py` in Serve/vLLM-on-Vertex/docker*/,
and script.sh beside them runs `python3 /root/scripts/launcher.py ...`). The script's commands then run in that
image: its FROM is the release when one Dockerfile says so, else the release is left open. A compose service that
mounts the script and runs it (`./entrypoint.sh:/app/entrypoint.sh`, `entrypoint: [bash, /app/entrypoint.sh]`) runs
it in the service's image the same way.

Dockerfiles are looked for beside the script, in the folders right under it (the first 200) and up to three
folders above (not past a repository root); each is read at most 256 KiB, each folder once per run.
"""

from __future__ import annotations

import os
import re
from functools import lru_cache

from kvlint.builds import DOCKERFILE_NAME, copies, image_file, landed
from kvlint.record import record

_LEVELS = 3
_CHILDREN = 200  # folders right under the script looked into (docker/, dockerfile/, deploy/...)
_READ_CAP = 256 * 1024
_FROM = re.compile(r"^\s*FROM\s+(?:--\S+\s+)*(\S+)", re.IGNORECASE | re.MULTILINE)


@record
class BuiltImage:
    """The image a script runs in, by the Dockerfile that builds it."""

    dockerfile: str  # relative to the script's folder (a compose file, for a service that mounts the script)
    base: str | None  # the final stage's FROM (None: an ARG, or scratch)
    why: str  # "docker/Dockerfile copies /root/scripts/launcher.py, which the script runs"
    pinned: tuple[tuple[str, str], ...] = ()  # (engine, release) its build installs by an exact pin (kvlint.builds)


def images_running(path: str) -> tuple[BuiltImage, ...]:
    """Every Dockerfile near the script whose image runs it (distinct by FROM), in the order found; () for none."""
    if path in ("", "-"):
        return ()
    return _images_running(os.path.abspath(path))


@lru_cache(maxsize=1024)
def _images_running(script: str) -> tuple[BuiltImage, ...]:  # once per script, not once per launch in it
    try:
        with open(script, "rb") as handle:
            text = handle.read(_READ_CAP).decode("utf-8", "replace")
    except OSError:
        return ()
    folder = os.path.dirname(script)
    found: dict[str | None, BuiltImage] = {}
    for dockerfile in _dockerfiles(folder):
        built = _runs(dockerfile, os.path.basename(script), text, folder) if DOCKERFILE_NAME.search(
            os.path.basename(dockerfile)) else _mounts(dockerfile, os.path.basename(script), folder)
        if built is not None:
            found.setdefault(built.base, built)
    return tuple(found.values())


def _dockerfiles(folder: str) -> list[str]:
    """Dockerfiles beside the script, in its child folders, then in up to three folders above."""
    out = list(_listed(folder))
    try:
        children = sorted(e.path for e in os.scandir(folder) if e.is_dir() and not e.name.startswith("."))
    except OSError:
        children = []
    for child in children[:_CHILDREN]:
        out.extend(_listed(child))
    here = folder
    for _ in range(_LEVELS):
        if os.path.exists(os.path.join(here, ".git")):
            break
        parent = os.path.dirname(here)
        if parent == here:
            break
        here = parent
        out.extend(_listed(here))
    return out


@lru_cache(maxsize=2048)
def _listed(folder: str) -> tuple[str, ...]:
    """The Dockerfiles and compose files of a folder."""
    try:
        return tuple(os.path.join(folder, n) for n in sorted(os.listdir(folder))
                     if image_file(n) and os.path.isfile(os.path.join(folder, n)))
    except OSError:
        return ()


def _mounts(compose: str, base_name: str, folder: str) -> BuiltImage | None:
    """A compose service that mounts the script (`./entrypoint.sh:/app/entrypoint.sh`) and runs it as its entry
    point or command (sample K404: `image: vllm/vllm-openai:v0.15.0`, `entrypoint: ["/bin/bash",
    "/app/entrypoint.sh"]`): the script runs in that image."""
    import yaml

    text = _read(compose)
    if text is None or base_name not in text:
        return None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError:
        return None
    services = data.get("services") if isinstance(data, dict) else None
    for service in services.values() if isinstance(services, dict) else ():
        if not isinstance(service, dict) or not isinstance(service.get("image"), str):
            continue
        runs = " ".join(str(service.get(key)) for key in ("entrypoint", "command"))
        for volume in service.get("volumes") or ():
            host, _, inside = str(volume).partition(":")
            target = inside.split(":", 1)[0]
            if os.path.basename(host) == base_name and target and target in runs:
                shown = os.path.relpath(compose, folder)
                return BuiltImage(shown, service["image"], f"{shown} mounts it into a container and runs it")
    return None


@lru_cache(maxsize=1024)
def _read(path: str) -> str | None:
    try:
        if os.path.getsize(path) > _READ_CAP:
            return None
        with open(path, "rb") as handle:
            return handle.read().decode("utf-8", "replace")
    except OSError:
        return None


def _runs(dockerfile: str, base_name: str, script: str, folder: str) -> BuiltImage | None:
    text = _read(dockerfile)
    if text is None:
        return None
    shown = os.path.relpath(dockerfile, folder)
    why = None
    for sources, dest in copies(text):
        if any(os.path.basename(s.rstrip("/")) == base_name for s in sources):
            why = f"{shown} copies it into its image"
            break
        for target in (landed(source, dest) for source in sources):
            if target.startswith("/") and re.search(rf"(?<![\w./-]){re.escape(target)}(?![\w./-])", script):
                why = f"{shown} copies {target} into its image, and the script runs it"
                break
        if why:
            break
    if why is None:
        return None
    stages = _FROM.findall(text)
    base = stages[-1] if stages and "$" not in stages[-1] and stages[-1].lower() != "scratch" else None
    return BuiltImage(shown, base, why, _pins(text))


def _pins(text: str) -> tuple[tuple[str, str], ...]:
    """(engine, release) for each engine the build installs by an exact pin, its ARG defaults expanded."""
    from kvlint.builds import pinned_release
    from kvlint.engines.registered import engine_names

    args = dict(re.findall(r"(?m)^[ \t]*ARG[ \t]+(\w+)=[\"']?([^\s\"']+)", text))
    found = ((e, pinned_release(text, e, args)) for e in engine_names())
    return tuple((e, pin[0]) for e, pin in found if pin is not None)
