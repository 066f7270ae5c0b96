"""The engine release a build installs by an exact pin (`RUN pip install "sglang[all]==0.4.5.post3"`).

An image built FROM a CUDA or Python base runs whichever engine release its build installs: an `==` pin says which,
as an engine image's tag does. Asked by the Dockerfile reader (the image's own launch) and by resolve (a script the
repository's image runs), so it sits below both. A range (`>=0.6`), a URL or an unpinned install says no release.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from kvlint.lazyre import lazy

# an install command, then (on its logical line) the engine with extras and an exact pin: `pip3 install -U
# "vllm==0.6.3"`, `uv pip install --system vllm[audio]==0.9.2`, `python -m pip install sglang[all]==0.4.6.post1`
_INSTALL = lazy(r"\b(?:pip3?|uv[ \t]+pip|python3?(?:\.\d+)?[ \t]+-m[ \t]+pip)[ \t]+install\b[^\n]*")
_VARIABLE = lazy(r"\$\{?([A-Za-z_]\w*)\}?")


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
