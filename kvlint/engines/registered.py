"""Which engines kvlint knows: one line names each engine's folder. Every other module asks here or get_engine().

An engine is a package (kvlint/engines/vllm/, kvlint/engines/sglang/) holding the same parts under the same
names (PARTS); this module imports none of them until asked, and nothing of kvlint but errors, so any floor
of the pipeline may ask it for an engine's facts (its leaf module) or its argument syntax without an import
circle: the engine's folder imports the floors below it, they never import the folder.
"""

from __future__ import annotations

import importlib
from types import ModuleType

ENGINES = {"vllm": "kvlint.engines.vllm", "sglang": "kvlint.engines.sglang"}  # name -> package: registration

# The modules every engine folder has (tests/engines/test_folders.py checks each registered engine).
PARTS = ("facts", "syntax", "memory", "releases", "nonkv", "logs", "maxlen", "engine")
_FOUND: dict[tuple[str, str], ModuleType] = {}  # the flag parser asks for a syntax per value: a dict, not an import


def engine_names() -> tuple[str, ...]:
    """The registered engines' names, in registration order (the order searches try them)."""
    return tuple(ENGINES)


def register(name: str, package: str) -> None:
    """Add an engine whose folder is the importable package `package` (a plugin, the toy-engine test)."""
    ENGINES[name] = package
    _FOUND.clear()


def part(name: str, piece: str) -> ModuleType:
    """Module `piece` of engine `name`'s folder, imported on first use (KvlintError for an unknown engine)."""
    found = _FOUND.get((name, piece))
    if found is not None:
        return found
    package = ENGINES.get(name)
    if package is None:
        from kvlint.errors import KvlintError

        raise KvlintError(f"unknown engine {name!r}: expected one of {', '.join(ENGINES)}")
    found = _FOUND[name, piece] = importlib.import_module(f"{package}.{piece}")
    return found


def facts(name: str) -> ModuleType:
    """Engine `name`'s leaf module of facts: its name, roles, flag spellings, image markers, capabilities."""
    return part(name, "facts")
