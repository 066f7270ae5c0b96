"""A flag that older engine releases accepted and the configured release has removed.

## What it checks
Flags removed from the engine's parser, such as `--swap-space` (gone from vLLM 0.33, which no longer
has a CPU swap pool). The readers mark them when the flag table records the removal.

## Why it matters
A manifest copied from an older tutorial starts fine on the old image and crash-loops with
`unrecognized arguments` after an image bump: the same failure as a typo, with a different fix.

## Example
```
vllm serve meta-llama/Llama-3.1-8B-Instruct --swap-space 16
```

## Use instead
Drop the flag (or pin the engine version the manifest was written for). When the image tag pins a release the
removal record saw with the flag (between the first and the last release read that have it: older releases' parsers
are read statically for this, bench/older_options.py --history), the launch starts there and the finding is a
warning about the next upgrade that says so. When it pins a release older than the first one read without the flag
but outside the sightings, the flag may still work there: the finding is then a warning about the next upgrade; a
release older than the first one read with the flag (or than every one kvlint reads, for a flag no release read had)
is said to be unknown there (the flag may be younger than the release), not "still accepted". An engine image
without a tag (or `:latest`) is the newest release (an error); one pinned by digest alone (`@sha256:...`) is one
build of a date the digest does not say, so its release is open (an info). A script that runs the engine installed
on the host and pins no release is judged on the newest release too, but as a warning that says so: the release it
meets is the one installed where it runs, which the file does not show (an image may run the script: held-out files
where the host was assumed ran in a vendor's image or an older install), unless it runs the engine by `docker exec`
in a container it does not start (that container's image decides: open), or its repository pins the engine's image
beside or above it (a root Dockerfile's FROM, a benchmark matrix's `image:`: the image it may run in, so the release
is open and the finding an info naming the pin). A script the repository's own image runs (a Dockerfile copies it,
or a file it runs) or that runs a vendor image's launcher takes that image's release instead. A launch through a
project runner (`uv run`, `poetry run`, `pixi run`) runs the release the project's lock pins, and a host install the
one its requirements pin (`==`), the finding's note naming the file and line; a runner whose project pins none
leaves the release open over the releases its range allows, so the verdict is given only where they agree. A script
that runs the engine from a source checkout (a `PYTHONPATH` holding the engine's tree, `pip install -e` of it) runs
that checkout's commit, whatever release it is: open too, the finding an info. When the repository holds its own
engine tree (`python/sglang/srt/server_args.py`, `vllm/engine/arg_utils.py` between the file and the project root),
the launch runs that fork, whatever stock releases dropped: the finding is an info naming the tree and whether its
parser still defines the flag. A launch that pins no release and passes a platform no stock release serves
(`--device rbln`: a value vLLM's `--device` never took; `--attention-backend dcu_mla`: a backend no release lists
and no slip of one) runs a vendor's build of the engine (Rebellions' vllm-rbln, Hygon DCU's SGLang), whose flags are
its own: the finding is an info naming the platform. When nothing pins a release otherwise (a manifest or chart
whose image is set elsewhere), the release decides and kvlint does not assume one: the finding is an info that says
from which release the server exits, and how to pin it.

## Options
None.
"""

from __future__ import annotations

from collections.abc import Iterator

from kvlint.errors import KvlintError
from kvlint.findings import Finding, Severity
from kvlint.flags.flag_table import flag_table, removed_flag
from kvlint.registry import Context, rule
from kvlint.rules import _common as c
from kvlint.span import Span


def table_version(engine: str) -> str:
    """The engine release the flag table was read from (the release the removal is judged against): the
    table the readers parsed the launch with, not a second read of its file."""
    try:

        return flag_table(engine).version
    except KvlintError:
        return ""


@rule("KV005", "removed-flag", Severity.ERROR, "A flag the configured engine release no longer accepts.")
def check(ctx: Context) -> Iterator[Finding]:
    dep = ctx.deployment
    removed = [unknown for unknown in dep.unknown_flags if unknown.reason == "removed"]
    if not removed:
        return
    engine = c.title(dep.engine)
    table = table_version(dep.engine)
    pinned = ctx.pinned_version
    for unknown in removed:
        hint = f"; use {unknown.suggestion}" if unknown.suggestion else ""
        gone_in = _absent_in(dep.engine, unknown.flag) or table
        gone = f"{unknown.flag} was removed from {engine} (absent from the {gone_in or 'current'} parser)"
        if ctx.engine_tree is not None:
            yield _fork(ctx, unknown.flag, gone, unknown.span or dep.launch_span)
            continue
        severity: Severity | None = None
        platform = c.vendor_platform(dep) if pinned is None else None
        if platform:
            outcome = (f"the launch passes {platform}, a platform only a vendor's build of {engine} serves, so that "
                       "build (which may keep the flag) decides")
            severity = Severity.INFO
        elif pinned is None and ctx.version_source == "host":
            outcome = (f"the server exits with 'unrecognized arguments' on the {engine} release installed today "
                       f"({table or 'the newest'} assumed: the script pins none; an older install or an image "
                       f"that runs the script may still accept it)")
            severity = Severity.WARNING
        elif pinned is None:  # the release is open: the verdict depends on it, so it is said, not asserted
            why = f" ({ctx.version_why})" if ctx.version_why else ""
            outcome = (f"the launch pins no {engine} release{why}, so the release decides: from "
                       f"{gone_in or 'the current'} "
                       f"on the server exits with 'unrecognized arguments' (pin the image tag, or `engine-version:` "
                       f"in .kvlint.yaml, to settle it)")
            severity = Severity.INFO
        else:
            outcome, severity = _pinned_outcome(dep.engine, pinned, unknown.flag, gone_in)
        yield check.rule.finding(
            ctx, f"{gone}: {outcome}{hint}", unknown.span or dep.launch_span,
            fix=unknown.suggestion and f"use {unknown.suggestion}" or f"remove {unknown.flag}", flag=unknown.flag,
            severity=severity)


def _fork(ctx: Context, flag: str, gone: str, span: Span | None) -> Finding:
    """The repository holds its own engine tree (a fork of the engine's source): the launch runs that tree's
    release, not the newest stock one, so a flag stock releases dropped is the fork's to keep (as KV004 says of a
    flag the fork adds)."""
    tree = ctx.engine_tree
    assert tree is not None
    said = "defines it" if tree.defines(flag) else "does not name it where kvlint looks (string literals)"
    return check.rule.finding(
        ctx, f"{gone}, but the repository holds its own {c.title(ctx.deployment.engine)} tree ({tree.parser}), "
        f"which {said}: the launch runs that fork", span, severity=Severity.INFO,
        fix=None if tree.defines(flag) else f"check that {tree.parser} still adds {flag}", flag=flag,
        fork=tree.parser)


def _absent_in(engine: str, flag: str) -> str | None:
    """The first release read without the flag (the tables' removal record), when known."""

    try:
        found = removed_flag(engine, flag)
    except KvlintError:
        return None
    return str(found["absent_in"]) if found and found.get("absent_in") else None


def _pinned_outcome(engine: str, pinned: str, flag: str, gone_in: str) -> tuple[str, Severity | None]:
    """What a pinned release does with the flag: accepts it where the removal record saw it on both sides of the
    release, may accept it before the first release read without it (either way a warning about the next upgrade,
    said as what is known), or exits (the rule's error). A release older than the flag's first sighting is not known
    to have it."""
    title = c.title(engine)
    if not _older(pinned, gone_in):
        return "the server exits with 'unrecognized arguments'", None
    if seen := _pinned_has_it(engine, pinned, flag):
        return (f"{title} {pinned} (pinned) has it ({seen}); upgrading to {gone_in} or later breaks the launch "
                "with 'unrecognized arguments'", Severity.WARNING)
    if before := _before_sightings(engine, pinned, flag):
        return (f"{title} {pinned} (pinned) is older than {before}, so whether it has the flag is not known here "
                f"(a flag younger than {pinned} exits there too); from {gone_in} on the server exits with "
                "'unrecognized arguments'", Severity.WARNING)
    return (f"{title} {pinned} (pinned) may still accept it; upgrading breaks the launch with 'unrecognized "
            "arguments'", Severity.WARNING)


def _before_sightings(engine: str, pinned: str, flag: str) -> str | None:
    """The pinned release comes before the oldest release read with the flag, or (a record with no sighting) before
    every release read: its presence there is unknown, not "still there". Said as the release it is older than."""
    found = removed_flag(engine, flag) or {}
    if first := found.get("first_seen"):
        return f"{first}, the oldest release kvlint read with it" if c.older(pinned, str(first)) else None
    first = c.first_read(engine)
    if not found.get("last_seen") and _older(pinned, first):
        return f"every release kvlint reads ({first} on)"
    return None


def _pinned_has_it(engine: str, pinned: str, flag: str) -> str | None:
    """The parsers read with the flag on both sides of the pinned release (its removal record's first and last
    sighting, bench/older_options.py --history), said as a reader checks it; None when the release falls outside
    them. The pinned release then accepts the flag, so the launch starts: only an upgrade breaks it."""
    found = removed_flag(engine, flag) or {}
    first, last = found.get("first_seen"), found.get("last_seen")
    if not (first and last) or c.older(pinned, str(first)) or c.older(str(last), pinned):
        return None
    return f"kvlint read it in the {first} and {last} parsers" if first != last else \
        f"kvlint read it in the {first} parser"


def _older(version: str | None, table: str) -> bool:
    """True when the pinned release is before the first one read without the flag (where it may still exist)."""
    return bool(version and table) and c.older(str(version), table)
