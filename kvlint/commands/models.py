"""`kvlint models pull [PATHS]`: fill the Hugging Face cache with the configs a tree needs, so `kvlint
check` resolves them offline afterwards.

Only config.json and the quantization side files (hf_quant_config.json, quantize_config.json) are
fetched, never weights, through huggingface_hub into its normal cache (HF_HOME / HF_HUB_CACHE,
HF_ENDPOINT and HF_TOKEN honoured; the token is never printed). Hub access is bounded as for
`--online` (kvlint.models.hub): an unreachable Hub fails every remaining model at once.
Exit codes: 0 every model fetched or already known, 1 some could not be fetched, 2 usage.
"""

from __future__ import annotations

from pathlib import Path

import click

from kvlint.commands.lock import lock
from kvlint.record import record

SIDE_FILES = ("hf_quant_config.json", "quantize_config.json")


@record
class Wanted:
    """One model reference of the tree, with the Hub ids it may name (reference first, then aliases)."""

    ref: str
    hub_ids: tuple[str, ...]


@click.group("models")
def group() -> None:
    """Model configs kvlint resolves offline."""


group.add_command(lock)


@group.command("pull")
@click.argument("paths", nargs=-1)
def pull(paths: tuple[str, ...]) -> int:
    """Fetch config.json (and quantization files, never weights) of every model the tree names that is
    not known offline into the Hugging Face cache."""
    from kvlint.errors import InputError
    from kvlint.printable import printable
    from kvlint.redact import redact_text

    wanted, missing = _models_in(paths or (".",))
    if missing and not wanted:
        raise InputError(f"no such file or directory: {', '.join(missing)}")
    failed = pulled = known = 0
    for item in wanted:
        status, line = _pull_one(item)
        click.echo(printable(redact_text(line)))
        failed += status == "failed"
        pulled += status == "pulled"
        known += status == "known"
    click.echo(f"{len(wanted)} model(s): {pulled} pulled, {known} already known offline, {failed} failed")
    return 1 if failed else 0


def _models_in(paths: tuple[str, ...]) -> tuple[list[Wanted], list[str]]:
    """Every distinct, resolvable-looking model reference in the deployment files, in order of first sight."""
    from kvlint.launches import iter_files, read_path
    from kvlint.models.resolve import candidate_ids, split_revision

    seen: dict[str, Wanted] = {}
    missing = []
    for path, reason in iter_files(paths):
        if reason == "no such file or directory":
            missing.append(path)
        if reason is not None:
            continue
        for dep in read_path(path).deployments:
            if not dep.model or not dep.model_resolved or dep.model in seen:
                continue
            names = [dep.model] + [a.name for a in dep.model_aliases]
            ids = tuple(dict.fromkeys(i for n in names for i in candidate_ids(split_revision(n)[0])))
            seen[dep.model] = Wanted(dep.model, ids)
    return list(seen.values()), missing


def _pull_one(item: Wanted) -> tuple[str, str]:
    """("known" | "pulled" | "failed", the progress line)."""
    from kvlint.errors import KvlintError
    from kvlint.models.resolve import clear_cache, resolve_model

    try:
        spec = resolve_model(item.ref, base_dir=Path.cwd())
        return "known", f"known   {item.ref} ({spec.source})"
    except KvlintError:
        pass
    if not item.hub_ids:
        return "failed", f"failed  {item.ref}: names no Hugging Face model id"
    reasons = []
    for repo_id in item.hub_ids:
        status, detail = _fetch(repo_id)
        if status == "pulled":
            clear_cache()
            return "pulled", f"pulled  {repo_id} ({detail})"
        reasons.append(f"{repo_id}: {detail}")
        if status == "unreachable":
            break
    return "failed", f"failed  {item.ref}: {'; '.join(reasons)}"


def _fetch(repo_id: str) -> tuple[str, str]:
    """("pulled", files) | ("missing", why) | ("unreachable", why) for one Hub id."""
    from kvlint.models.hub import HubMissing, HubUnreachable, download
    from kvlint.models.resolve import _hf_cache_dir, split_revision

    name, revision = split_revision(repo_id)
    cache = Path(_hf_cache_dir())
    try:
        download(name, "config.json", revision, cache)
    except HubMissing as exc:
        return "missing", str(exc)
    except HubUnreachable as exc:
        return "unreachable", f"the Hub is unreachable ({exc})"
    files = ["config.json"]
    for side in SIDE_FILES:
        try:
            download(name, side, revision, cache)
            files.append(side)
        except HubMissing:
            continue
        except HubUnreachable as exc:
            return "unreachable", f"the Hub is unreachable ({exc})"
    return "pulled", ", ".join(files)
