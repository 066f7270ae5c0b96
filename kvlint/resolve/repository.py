"""The engine images a repository pins near a script: the image a host script of it may run in.

A shell script that runs the engine installed on the host and pins no release is judged on the newest release
(kvlint.resolve.lookups). Held-out repositories pin the engine's image beside or above such a script instead: a
Dockerfile at the root (`FROM lmsysorg/sglang:nightly-dev-cu13-20260715-...`, whose pods run the script, sample
K147), a benchmark changelog or matrix at the root (`image: lmsysorg/sglang:v0.5.12-cu130`, sample K149). A flag the
newest release removed is then not known to fail where the script runs: its release is open, and KV005 says so as
an info that names the pin.

Asked only for a host launch with a removed flag, once per folder and run. The repository is the nearest folder at
or above the file that holds `.git`, at most eight folders up (none: nothing is read, so files taken out of their
repositories are never read across). The files of configuration kinds (YAML, JSON, TOML, Dockerfiles, shell, .env,
HCL) directly in the script's folder and in each folder above it up to that root are scanned for the engine's own
image with a release or dated tag: not the folders beside them (a monorepo's other projects), at most 200 files a
folder, 256 KiB each; a file that cannot be read is passed over.
"""

from __future__ import annotations

import os
import re
from functools import lru_cache

_LEVELS = 8
_FILES = 200
_READ_CAP = 256 * 1024
_KINDS = (".yaml", ".yml", ".json", ".toml", ".sh", ".bash", ".env", ".hcl", ".tf", ".cfg", ".ini", ".conf")
_IMAGE = re.compile(r"(?<![\w./-])((?:[\w.-]+/)*[\w.-]+:[\w.+-]+)")


def repository_pins(path: str, engine: str) -> tuple[tuple[str, str], ...]:
    """(image, "file:line") of each tagged image of `engine` in the files beside the script and in the folders above
    it up to its repository's root, nearest first; () outside a repository."""
    if path in ("", "-"):
        return ()
    folders = _up_to_root(os.path.dirname(os.path.abspath(path)))
    found: dict[str, str] = {}
    for folder in folders:  # each place said from the repository's root (`docker/Dockerfile:3`)
        for image, where in _pins(folder, engine):
            found.setdefault(image, os.path.relpath(os.path.join(folder, where), folders[-1]))
    return tuple(found.items())


def _up_to_root(folder: str) -> list[str]:
    """The folder and those above it up to the nearest one holding `.git`; [] when none is within reach."""
    chain = []
    for _ in range(_LEVELS + 1):
        chain.append(folder)
        if os.path.isdir(os.path.join(folder, ".git")):
            return chain
        parent = os.path.dirname(folder)
        if parent == folder:
            return []
        folder = parent
    return []


@lru_cache(maxsize=256)
def _pins(folder: str, engine: str) -> tuple[tuple[str, str], ...]:
    """(image, "name:line") of the engine's tagged images in the folder's own configuration files."""
    found: dict[str, str] = {}
    try:
        names = sorted(e.name for e in os.scandir(folder) if e.is_file())
    except OSError:
        return ()
    for name in [n for n in names if n.lower().endswith(_KINDS) or "dockerfile" in n.lower()
                 or "containerfile" in n.lower()][:_FILES]:
        try:
            with open(os.path.join(folder, name), "rb") as handle:
                text = handle.read(_READ_CAP).decode("utf-8", "replace")
        except OSError:
            continue
        if engine not in text:
            continue
        for m in _IMAGE.finditer(text):
            image = m.group(1)
            if image not in found and _pinned_engine_image(image, engine):
                found[image] = f"{name}:{text.count(chr(10), 0, m.start()) + 1}"
    return tuple(found.items())


def _pinned_engine_image(image: str, engine: str) -> bool:
    """The engine's own published image with a tag that names a release or a build date (not `latest`, `nightly`)."""
    from kvlint.image_names import known_image

    if not known_image(image) or engine not in image.lower():
        return False
    tag = image.rsplit(":", 1)[1]
    return _RELEASE_TAG.match(tag) is not None or _DATE.search(tag) is not None


_RELEASE_TAG = re.compile(r"v?\d+\.\d+(\.\d+)?")
_DATE = re.compile(r"20\d\d-?[01]\d-?[0-3]\d")
