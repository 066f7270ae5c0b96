"""`lazy(pattern)`: a module-level regular expression compiled the first time it is used.

Why: kvlint declares about sixty patterns at module level, and compiling them all was a visible part of
a one-file pre-commit run, most of them for inputs that file does not have (a Helm chart, a log, a
secret to redact). A lazy pattern compiles on its first method call, then keeps the compiled
pattern's bound methods on itself, so every later call costs what a compiled pattern's does.
Use it where a compiled pattern is used through its methods (`P.match(s)`, `P.sub(f, s)`); the
re module's functions (`re.sub(P, ...)`) want a real pattern.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, AnyStr, cast

_METHODS = ("match", "fullmatch", "search", "sub", "subn", "split", "findall", "finditer", "scanner",
            "pattern", "flags", "groups", "groupindex")


class _Lazy:
    def __init__(self, pattern: Any, flags: int) -> None:
        self._source = (pattern, flags)

    def __getattr__(self, name: str) -> Any:  # only for a name not yet on the instance: the first use
        pattern, flags = self._source
        compiled = re.compile(pattern() if callable(pattern) else pattern, flags)
        for method in _METHODS:
            setattr(self, method, getattr(compiled, method))
        return getattr(compiled, name)

    def __repr__(self) -> str:
        return f"lazy({self._source[0]!r})"


def lazy(pattern: AnyStr, flags: int = 0) -> re.Pattern[AnyStr]:
    """`re.compile(pattern, flags)`, done on first use (see the module's doc)."""
    return cast("re.Pattern[AnyStr]", _Lazy(pattern, flags))


def lazy_built(build: Callable[[], str], flags: int = 0) -> re.Pattern[str]:
    """A pattern whose text `build` makes on first use: one that holds names from a data file (an engine plugin's
    module, kvlint/data/plugins.json), read only when a file asks the pattern something."""
    return cast("re.Pattern[str]", _Lazy(build, flags))
