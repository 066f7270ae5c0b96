"""Bounded Hugging Face Hub access for `--online` and `kvlint models pull`.

huggingface_hub retries a failed connection for tens of seconds per file, and a run asks for every
unknown model in turn: offline, `kvlint check --online examples/` took minutes of retry lines. Here
each file costs one metadata request with a short timeout before any download, and the first time the
Hub is found unreachable in a process it is not asked again: every later model fails at once. Tokens
are left to huggingface_hub (HF_TOKEN or the stored login) and never appear in a message.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

TIMEOUT_S = 5.0  # per request (connect and read)
_state: dict[str, object] = {"unreachable": None, "attempts": 0, "noted": False}


class HubUnreachable(Exception):
    """The Hub (HF_ENDPOINT) cannot be reached in this run: no connection, timeout, offline mode."""


class HubMissing(Exception):
    """The Hub answered: the repo, revision or file does not exist or is gated."""


def endpoint() -> str:
    return (os.environ.get("HF_ENDPOINT") or "https://huggingface.co").rstrip("/")


def attempts() -> int:
    """Metadata requests made so far in this process (tests assert the fail-fast)."""
    return int(_state["attempts"])  # type: ignore[call-overload]


def reset() -> None:
    """Forget an earlier unreachable verdict (tests; a long-lived process that changed network)."""
    _state.update(unreachable=None, attempts=0, noted=False)


def download(repo_id: str, filename: str, revision: str | None, cache: Path) -> Path:
    """Fetch one file into the HF cache; HubMissing when the Hub says it is not there, HubUnreachable
    when the Hub cannot be asked (at most one request is tried once the Hub is found unreachable)."""
    if _state["unreachable"]:
        raise HubUnreachable(str(_state["unreachable"]))
    import huggingface_hub
    from huggingface_hub import errors

    url = huggingface_hub.hf_hub_url(repo_id, filename, revision=revision, endpoint=endpoint())
    _state["attempts"] = attempts() + 1
    try:
        huggingface_hub.get_hf_file_metadata(url, timeout=TIMEOUT_S)
    except (errors.RepositoryNotFoundError, errors.GatedRepoError, errors.RevisionNotFoundError,
            errors.RemoteEntryNotFoundError) as exc:
        raise HubMissing(_missing_reason(exc)) from None
    except Exception as exc:  # noqa: BLE001 - connection refused, timeout, offline mode, 5xx
        _mark_unreachable(exc)
    try:
        path = huggingface_hub.hf_hub_download(
            repo_id, filename, revision=revision, cache_dir=str(cache), endpoint=endpoint(), etag_timeout=TIMEOUT_S
        )
    except (errors.RepositoryNotFoundError, errors.GatedRepoError, errors.RevisionNotFoundError,
            errors.RemoteEntryNotFoundError) as exc:
        raise HubMissing(_missing_reason(exc)) from None
    except Exception as exc:  # noqa: BLE001
        _mark_unreachable(exc)
    return Path(path)


def _missing_reason(exc: Exception) -> str:
    name = type(exc).__name__
    return {
        "RepositoryNotFoundError": "no such model on the Hub (or it is private and no valid HF_TOKEN is set)",
        "GatedRepoError": "the model is gated: accept its licence on the Hub and set HF_TOKEN",
        "RevisionNotFoundError": "no such revision",
        "RemoteEntryNotFoundError": "the file is not in the repo",
    }.get(name, name)


def _mark_unreachable(exc: Exception) -> None:
    """Remember the verdict for the rest of the run and say it once on stderr; then raise."""
    name = type(exc).__name__
    reason = "HF_HUB_OFFLINE is set" if name == "OfflineModeIsEnabled" else f"{endpoint()} did not answer ({name})"
    _state["unreachable"] = reason
    if not _state["noted"]:
        _state["noted"] = True
        print(f"kvlint: note: the Hugging Face Hub is unreachable: {reason}; not asked again in this run",
              file=sys.stderr)
    raise HubUnreachable(reason) from None
