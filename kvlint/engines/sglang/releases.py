"""SGLang's releases: the per-release constants its memory model follows (kvlint/data/engine_versions.json).

The table and its lookup stay in kvlint.memory.versions, one module for both engines (the release picking and
the dates are shared arithmetic); this module is the engine's entry in it, which the engine record exposes.
"""

from kvlint.memory.versions import Resolved, sglang_version

from .facts import NAME


def lookup(version: str | None) -> Resolved:
    """The documented release `version` is modelled as (None: the default release), with its constants."""
    return sglang_version(version)


def release(version: str | None) -> str:
    """The name of that release."""
    return str(lookup(version).record.version)


def documented() -> list[str]:
    """Every release the table documents, oldest first."""
    from kvlint.memory.versions import documented as of_engine

    return of_engine(NAME)
