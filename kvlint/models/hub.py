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
import time
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from kvlint.lazyre import lazy

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
    _started.clear()


def download(repo_id: str, filename: str, revision: str | None, cache: Path) -> Path:
    """Fetch one file into the HF cache; HubMissing when the Hub says it is not there (or answers with
    names or sizes kvlint refuses to write), HubUnreachable when the Hub cannot be asked (at most one
    request is tried once the Hub is found unreachable).

    The metadata (HEAD) is validated before anything is written: huggingface_hub's own download builds
    the blob path from the ETag, so an endpoint answering `ETag: "../../x"` would write outside the cache.
    Here the body is fetched by kvlint into names it checked (commit: 40 hex, ETag: 40 or 64 hex, the
    final paths inside the cache after realpath), stopped past MAX_FILE_BYTES or FILE_DEADLINE_S (a
    server sending a byte a second passes every per-read timeout), and laid out as huggingface_hub's
    cache is (blobs/<etag>, snapshots/<commit>/<file>, refs/<revision>), so later offline reads find it."""
    if _state["unreachable"]:
        raise HubUnreachable(str(_state["unreachable"]))
    _run_deadline_check()
    import huggingface_hub
    from huggingface_hub import errors

    url = huggingface_hub.hf_hub_url(repo_id, filename, revision=revision, endpoint=endpoint())
    _state["attempts"] = attempts() + 1
    try:
        meta = huggingface_hub.get_hf_file_metadata(url, timeout=TIMEOUT_S)
    except (errors.RepositoryNotFoundError, errors.GatedRepoError, errors.RevisionNotFoundError,
            errors.RemoteEntryNotFoundError) as exc:
        raise HubMissing(_missing_reason(exc)) from None
    except Exception as exc:  # noqa: BLE001 - connection refused, timeout, offline mode, 5xx
        _mark_unreachable(exc)
    commit, etag = _checked_names(meta.commit_hash, meta.etag, meta.size)
    folder = cache / ("models--" + repo_id.replace("/", "--"))
    blob = _inside(cache, folder / "blobs" / etag)
    snapshot = _inside(cache, folder / "snapshots" / commit / filename)
    if not snapshot.is_file():
        if not blob.is_file():
            _fetch_body(str(meta.location), blob)
        _link(blob, snapshot)
    _write_ref(cache, folder, revision, commit)
    return snapshot


MAX_FILE_BYTES = 4 * 2**20  # a model's config.json is under 100 KB; kvlint.models.resolve reads no more
FILE_DEADLINE_S = 30.0  # one file, start to end (TIMEOUT_S bounds each read only)
RUN_DEADLINE_S = 300.0  # every Hub request of one process together
_HEX40 = lazy(r"[0-9a-f]{40}")
_ETAG = lazy(r"[0-9a-f]{40}|[0-9a-f]{64}")  # git blob sha1 or LFS sha256, as the Hub sends them
_REVISION = lazy(r"[A-Za-z0-9][\w.-]{0,99}")  # a branch or tag name kvlint keeps a ref file for
_started: list[float] = []


def _refused(why: str) -> HubMissing:
    return HubMissing(f"refused the Hub's answer: {why}")


def _checked_names(commit: str | None, etag: str | None, size: int | None) -> tuple[str, str]:
    """The commit and ETag the Hub answered, when they are the hex names a cache path may be built from."""
    if not commit or _HEX40.fullmatch(commit) is None:
        raise _refused("the commit (X-Repo-Commit) is not 40 hex digits")
    if not etag or _ETAG.fullmatch(etag) is None:
        raise _refused("the ETag is not a 40- or 64-digit hex digest")
    if size is not None and size > MAX_FILE_BYTES:
        raise _refused(f"the file is {size:,} bytes, above the {MAX_FILE_BYTES // 2**20} MiB cap")
    return commit, etag


def _inside(cache: Path, path: Path) -> Path:
    """path, when it stays inside the cache once every symlink is resolved."""
    root = os.path.realpath(cache)
    real = os.path.realpath(path)
    if os.path.commonpath([root, real]) != root:
        raise _refused(f"a cache path would leave the cache ({path.name})")
    return path


def _run_deadline_check() -> None:
    now = time.monotonic()
    if not _started:
        _started.append(now)
    elif now - _started[0] > RUN_DEADLINE_S:
        _mark_unreachable(TimeoutError(), f"over {RUN_DEADLINE_S:.0f} s of Hub requests in this run")


def _fetch_body(location: str, blob: Path) -> None:
    """GET location into blob through a temporary file beside it: at most MAX_FILE_BYTES, FILE_DEADLINE_S."""
    from urllib.parse import urlsplit

    from huggingface_hub.utils import build_hf_headers, get_session

    headers = build_hf_headers()
    if urlsplit(location).netloc != urlsplit(endpoint()).netloc:
        headers.pop("authorization", None)
        headers.pop("Authorization", None)  # the token goes to the endpoint only, never to a redirect's host
    headers["Accept-Encoding"] = "identity"
    blob.parent.mkdir(parents=True, exist_ok=True)
    _inside(blob.parent.parent.parent, blob.parent)
    import tempfile  # only when a file is fetched: every run imports this module, few download

    deadline = time.monotonic() + FILE_DEADLINE_S
    fd, tmp = tempfile.mkstemp(prefix=".kvlint-", suffix=".incomplete", dir=blob.parent)
    try:
        with os.fdopen(fd, "wb") as out:
            try:
                with get_session().stream("GET", location, headers=headers, timeout=TIMEOUT_S,
                                          follow_redirects=True) as response:
                    if response.status_code == 404:
                        raise HubMissing("the file is not in the repo")
                    if response.status_code >= 400:
                        raise OSError(f"HTTP {response.status_code}")
                    _copy(response.iter_bytes(), out, deadline)
            except (HubMissing, HubUnreachable):
                raise
            except Exception as exc:  # noqa: BLE001 - reset, timeout, protocol error mid-body
                _mark_unreachable(exc)
        os.replace(tmp, blob)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def _copy(chunks: Iterator[bytes], out: BinaryIO, deadline: float) -> None:
    got = 0
    for chunk in chunks:
        got += len(chunk)
        if got > MAX_FILE_BYTES:
            raise _refused(f"the file is larger than the {MAX_FILE_BYTES // 2**20} MiB cap")
        if time.monotonic() > deadline:
            raise _refused(f"the file took longer than {FILE_DEADLINE_S:.0f} s to arrive")
        out.write(chunk)


def _link(blob: Path, snapshot: Path) -> None:
    """snapshots/<commit>/<file> -> ../../blobs/<etag>, as huggingface_hub lays it out (a copy where
    symlinks are not allowed)."""
    snapshot.parent.mkdir(parents=True, exist_ok=True)
    tmp = snapshot.with_name(f".{snapshot.name}.kvlint-tmp")
    if os.path.lexists(tmp):
        os.unlink(tmp)
    try:
        os.symlink(os.path.relpath(blob, snapshot.parent), tmp)
    except OSError:
        import shutil

        shutil.copyfile(blob, tmp)
    os.replace(tmp, snapshot)


def _write_ref(cache: Path, folder: Path, revision: str | None, commit: str) -> None:
    """refs/<revision> holds the commit (a revision that is itself a commit needs no ref)."""
    name = revision or "main"
    if _HEX40.fullmatch(name) is not None or _REVISION.fullmatch(name) is None:
        return
    ref = _inside(cache, folder / "refs" / name)
    ref.parent.mkdir(parents=True, exist_ok=True)
    ref.write_text(commit)


def _missing_reason(exc: Exception) -> str:
    name = type(exc).__name__
    return {
        "RepositoryNotFoundError": "no such model on the Hub (or it is private and no valid HF_TOKEN is set)",
        "GatedRepoError": "the model is gated: accept its licence on the Hub and set HF_TOKEN",
        "RevisionNotFoundError": "no such revision",
        "RemoteEntryNotFoundError": "the file is not in the repo",
    }.get(name, name)


def _mark_unreachable(exc: Exception, why: str | None = None) -> None:
    """Remember the verdict for the rest of the run and say it once on stderr; then raise."""
    name = type(exc).__name__
    from kvlint.redact import redact_text

    shown = redact_text(endpoint())  # a user:password inside HF_ENDPOINT is never printed
    reason = "HF_HUB_OFFLINE is set" if name == "OfflineModeIsEnabled" else f"{shown} did not answer ({why or name})"
    _state["unreachable"] = reason
    if not _state["noted"]:
        _state["noted"] = True
        print(f"kvlint: note: the Hugging Face Hub is unreachable: {reason}; not asked again in this run",
              file=sys.stderr)
    raise HubUnreachable(reason) from None
