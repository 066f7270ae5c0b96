"""What a Dockerfile's build puts in its image: the engine release it installs by an exact pin (`RUN pip install
"sglang[all]==0.4.5.post3"`) and the files it copies in (`COPY start.sh /app/start.sh`).

An image built FROM a CUDA or Python base runs whichever engine release its build installs: an `==` pin says which,
as an engine image's tag does; a range (`>=0.6`), a URL or an unpinned install says no release. Asked by the
Dockerfile reader (the image's own launch, the script it copies in and runs) and by resolve (a script the
repository's image runs), so it sits below both.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Mapping

from kvlint.lazyre import lazy

# an install command, then (on its logical line) the engine with extras and an exact pin: `pip3 install -U
# "vllm==0.6.3"`, `uv pip install --system vllm[audio]==0.9.2`, `python -m pip install sglang[all]==0.4.6.post1`
_INSTALL = lazy(r"\b(?:pip3?|uv[ \t]+pip|python3?(?:\.\d+)?[ \t]+-m[ \t]+pip)[ \t]+install\b[^\n]*")
_VARIABLE = lazy(r"\$\{?([A-Za-z_]\w*)\}?")
# the names of a Dockerfile (`Dockerfile`, `Dockerfile.vllm`, `x.dockerfile`) and of a compose file
DOCKERFILE_NAME = lazy(r"^(docker|container)file|\.(docker|container)file$", re.IGNORECASE)
COMPOSE_NAME = lazy(r"^(docker-)?compose([.-][\w.-]*)?\.ya?ml$", re.IGNORECASE)


def image_file(name: str) -> bool:
    """A Dockerfile's or a compose file's name (substring tests first: most of a folder's names are neither)."""
    low = name.lower()
    return ("file" in low and DOCKERFILE_NAME.search(name) is not None) or \
        ("compose" in low and COMPOSE_NAME.search(name) is not None)


def installed_engine(text: str) -> str | None:
    """The engine an install command of the build installs (`RUN pip install sglang`, pinned or not), else None."""
    for line in _INSTALL.finditer(text):
        found = next((e for e in ("vllm", "sglang") if re.search(rf"(?<![\w-]){e}(?![\w-])", line.group())), None)
        if found is not None:
            return found
    return None


def pinned_release(text: str, engine: str, env: Mapping[str, str] | None = None) -> tuple[str, int] | None:
    """(release, offset of the pin's version in `text`) of the last exact pin of `engine` an install command of
    `text` makes (`\\`-continued lines joined by spaces of the same length, so offsets hold); a `${VAR}` version is
    looked up in `env` (the build's ARG / ENV defaults). None when no install pins one."""
    if engine not in text.lower() or "install" not in text:
        return None
    joined = re.sub(r"\\\n", "  ", text)  # a continuation keeps its two characters' length
    pin = re.compile(rf"(?<![\w.-]){re.escape(engine)}(?:\[[^\]\s]*\])?==[\"']?(\$\{{?\w+\}}?|\d[\w.+-]*)", re.I)
    found: tuple[str, int] | None = None
    for line in _INSTALL.finditer(joined):
        for m in pin.finditer(line.group()):
            version = _expanded(m.group(1), env or {})
            if version is not None:
                found = (version, line.start() + m.start(1))
    return found


def _expanded(word: str, env: Mapping[str, str]) -> str | None:
    """A version as written, or the value of the variable it is; None for a variable with no default."""
    m = _VARIABLE.fullmatch(word)
    if m is None:
        return word.rstrip(".\"'")
    value = env.get(m.group(1), "").strip("\"'")
    return value if re.fullmatch(r"\d[\w.+-]*", value) else None


_COPY = lazy(r"^\s*(?:COPY|ADD)\s+(.+?)\s*$", re.IGNORECASE | re.MULTILINE)


def copies(text: str) -> Iterator[tuple[list[str], str]]:
    """(sources, destination) of each COPY or ADD line, in order (options such as `--chmod=755` passed over; quotes
    and exec-form brackets dropped)."""
    for line in _COPY.findall(text):
        words = [w for w in (w.strip("\"'[],") for w in line.split() if not w.startswith("--")) if w]
        if len(words) >= 2:
            yield words[:-1], words[-1]


def landed(source: str, dest: str) -> str:
    """Where a copied source lands in the image: under a destination folder (`/app/`), else the destination."""
    return dest + os.path.basename(source.rstrip("/")) if dest.endswith("/") else dest
