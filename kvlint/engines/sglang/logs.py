"""SGLang's start-up log lines: the patterns kvlint.logs.patterns tags with its name.

The patterns stay in one table for both engines (the parser scans each line once against all of them and
votes on the engine from what matched); this module is the engine's entry in it, which the record exposes.
"""

from kvlint.logs.patterns import ARGS_PATTERNS, FAILURES, LINE_PATTERNS, Pattern

from .facts import NAME


def line_patterns() -> tuple[Pattern, ...]:
    """The line patterns only this engine prints."""
    return tuple(p for p in LINE_PATTERNS if p.engine == NAME)


def failure_kinds() -> tuple[str, ...]:
    """The start-up failures only this engine reports, by kind."""
    return tuple(kind for kind, p in FAILURES if p.engine == NAME)


def prints_args() -> bool:
    """Whether this engine logs its parsed arguments (kvlint reads the settings back from them)."""
    return any(engine == NAME for _, _, engine in ARGS_PATTERNS)
