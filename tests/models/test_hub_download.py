"""kvlint.models.hub.download against a Hub stand-in on 127.0.0.1 whose answers each break one rule (issue O item 9).

Every check download makes before and while it writes into the cache, at its edges: the commit and ETag names
(40 hex; 40 or 64 hex), the size cap (4 MiB exactly is read, one byte more is refused, announced or not), the
body's status (404: the file is missing; 400 and above: the Hub is broken; below: read), the Hub's 404s and 403
told apart, the token never sent to another host, a revision's ref file, a cache path that would leave the cache,
and the per-file and per-run deadlines. huggingface_hub reads HF_HUB_OFFLINE and HF_ENDPOINT at import, so the
calls run in one child process (as `kvlint models pull` does for a user), which prints each outcome.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import textwrap
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from tests.models.hubstandin import require_loopback

COMMIT = "0123456789abcdef0123456789abcdef01234567"
TOKEN = "hf_standInTokenForTests0123456789"
CAP = 4 * 2**20
BODY = b'{"model_type": "llama"}'


def _repos(other: str) -> dict[str, dict[str, object]]:
    """repo -> how the stand-in answers for it (HEAD headers, GET status and body)."""
    sha1 = hashlib.sha1(BODY).hexdigest()
    return {
        "ok/model": {},
        "ok64/model": {"etag": hashlib.sha256(BODY).hexdigest()},
        "badcommit/model": {"commit": "abc123"},
        "nocommit/model": {"commit": None},
        "badetag/model": {"etag": "../../outside"},
        "shortetag/model": {"etag": sha1[:39]},
        "big/model": {"size": CAP + 1},
        "edge/model": {"body": b"x" * CAP},
        "nosize/model": {"size": None, "body": b"x" * (CAP + 1)},
        "get404/model": {"get": 404},
        "get400/model": {"get": 400},
        "get399/model": {"get": 399},
        "norepo/model": {"head": 404, "code": "RepoNotFound"},
        "noentry/model": {"head": 404, "code": "EntryNotFound"},
        "norev/model": {"head": 404, "code": "RevisionNotFound"},
        "gated/model": {"head": 403, "code": "GatedRepo"},
        "broken/model": {"head": 500},
        "moved/model": {"location": f"{other}/moved/model/resolve/main/config.json"},
        "esc/model": {},
        "slow/model": {},
    }


class Hub:
    def __init__(self, repos_for) -> None:
        self.requests: list[tuple[str, str, str | None]] = []
        hub = self

        class Handler(BaseHTTPRequestHandler):
            def do_HEAD(self) -> None:
                self._answer(False)

            def do_GET(self) -> None:
                self._answer(True)

            def _answer(self, body: bool) -> None:
                hub.requests.append((self.command, self.path, self.headers.get("Authorization")))
                repo = self.path.lstrip("/").partition("/resolve/")[0]
                how = hub.repos.get(repo, {"head": 404, "code": "RepoNotFound"})
                data = how.get("body", BODY)
                status = how.get("get" if body else "head", 200)
                self.send_response(status)
                if status == 200 or (body and status < 400):
                    commit = how.get("commit", COMMIT)
                    if commit is not None:
                        self.send_header("X-Repo-Commit", commit)
                    self.send_header("ETag", '"' + str(how.get("etag", hashlib.sha1(data).hexdigest())) + '"')
                    if "location" in how and not body:
                        self.send_header("Location", str(how["location"]))
                    size = how.get("size", len(data))
                    if body:
                        self.send_header("Content-Length", str(len(data)))
                    elif size is not None:
                        self.send_header("Content-Length", str(size))
                    self.end_headers()
                    if body:
                        self.wfile.write(data)
                    return
                self.send_header("X-Error-Code", str(how.get("code", "")))
                self.send_header("X-Error-Message", "no")
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.endpoint = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.repos = repos_for(self)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


CHILD = textwrap.dedent("""
    import json, os, sys, time
    from pathlib import Path
    from kvlint.models import hub

    cache = Path(sys.argv[1])
    out = {}

    def attempt(key, repo, revision=None, keep=False):
        if not keep:
            hub.reset()
        try:
            path = hub.download(repo, "config.json", revision, cache)
            folder = cache / ("models--" + repo.replace("/", "--"))
            refs = sorted(p.name + "=" + p.read_text() for p in (folder / "refs").iterdir()) \\
                if (folder / "refs").is_dir() else []
            out[key] = ["ok", str(path.relative_to(cache)), path.stat().st_size, os.path.islink(path), refs]
        except (hub.HubMissing, hub.HubUnreachable) as exc:
            out[key] = [type(exc).__name__, str(exc)]
        out[key].append(hub.attempts())

    for repo in ("ok/model", "ok64/model", "badcommit/model", "nocommit/model", "badetag/model", "shortetag/model",
                 "big/model", "edge/model", "nosize/model", "get404/model", "get400/model", "get399/model",
                 "norepo/model", "noentry/model", "norev/model", "gated/model", "moved/model"):
        attempt(repo, repo)
    attempt("ok again", "ok/model")
    attempt("ok v1.0", "ok/model", "v1.0")
    attempt("ok by commit", "ok64/model", "0123456789abcdef0123456789abcdef01234567")
    attempt("ok -bad revision", "edge/model", "-bad")
    attempt("broken", "broken/model")
    attempt("after broken", "ok/model", keep=True)
    outside = cache.parent / "outside"
    outside.mkdir()
    (cache / "models--esc--model").mkdir(parents=True)
    (cache / "models--esc--model" / "blobs").symlink_to(outside)
    attempt("escape", "esc/model")
    hub.FILE_DEADLINE_S = -1.0
    attempt("file deadline", "slow/model")
    hub.FILE_DEADLINE_S = 30.0
    hub.reset()
    hub._started.append(time.monotonic() - hub.RUN_DEADLINE_S - 5)
    attempt("run deadline", "slow/model", keep=True)
    hub.reset()
    hub._started.append(time.monotonic() - hub.RUN_DEADLINE_S + 60)
    attempt("within the run deadline", "slow/model", keep=True)
    print(json.dumps(out))
""")


def _run(tmp):
    other = Hub(lambda h: {"moved/model": {}})
    main = Hub(lambda h: _repos(other.endpoint))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HF_", "HUGGINGFACE_"))}
    env.update(HF_ENDPOINT=main.endpoint, HF_HUB_OFFLINE="0", HF_HOME=str(tmp / "home"), HF_TOKEN=TOKEN,
               HF_HUB_DISABLE_TELEMETRY="1", HF_HUB_DISABLE_XET="1")
    try:
        proc = subprocess.run([sys.executable, "-c", CHILD, str(tmp / "cache")], capture_output=True, text=True,
                              env=env, timeout=120)
    finally:
        main.close()
        other.close()
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout), main.requests, other.requests, proc.stderr


def _a_good_answer_is_laid_out_as_huggingface_hubs_cache(outcome):
    got = outcome[0]
    sha1 = hashlib.sha1(BODY).hexdigest()
    assert got["ok/model"] == ["ok", f"models--ok--model/snapshots/{COMMIT}/config.json", len(BODY), True,
                               [f"main={COMMIT}"], 1]
    assert got["ok64/model"][:4] == ["ok", f"models--ok64--model/snapshots/{COMMIT}/config.json", len(BODY), True]
    assert got["ok again"][:2] == got["ok/model"][:2]
    assert got["ok v1.0"][4] == [f"main={COMMIT}", f"v1.0={COMMIT}"]
    assert got["ok by commit"][4] == [f"main={COMMIT}"]  # a commit needs no ref: only the first download's
    assert got["ok -bad revision"][0] == "ok"
    assert got["ok -bad revision"][4] == [f"main={COMMIT}"]  # the first download's; -bad is no ref name kvlint keeps
    assert sha1 != hashlib.sha256(BODY).hexdigest()


def _names_a_cache_path_is_built_from_must_be_hex(outcome):
    got = outcome[0]
    commit = "refused the Hub's answer: the commit (X-Repo-Commit) is not 40 hex digits"
    etag = "refused the Hub's answer: the ETag is not a 40- or 64-digit hex digest"
    assert got["badcommit/model"][:2] == ["HubMissing", commit]
    assert got["nocommit/model"][:2] == ["HubMissing", commit]
    assert got["badetag/model"][:2] == ["HubMissing", etag]
    assert got["shortetag/model"][:2] == ["HubMissing", etag]
    escape = f"refused the Hub's answer: a cache path would leave the cache ({hashlib.sha1(BODY).hexdigest()})"
    assert got["escape"][:2] == ["HubMissing", escape]


def _the_size_cap_is_four_mib_exactly_announced_or_not(outcome):
    got = outcome[0]
    assert got["big/model"][:2] == ["HubMissing", "refused the Hub's answer: the file is 4,194,305 bytes, above "
                                                  "the 4 MiB cap"]
    assert got["edge/model"][:3] == ["ok", f"models--edge--model/snapshots/{COMMIT}/config.json", CAP]
    assert got["nosize/model"][:2] == ["HubMissing", "refused the Hub's answer: the file is larger than the 4 MiB "
                                                     "cap"]


def _the_body_status_and_the_hubs_refusals_are_told_apart(outcome):
    got, _, _, stderr = outcome
    assert got["get404/model"][:2] == ["HubMissing", "the file is not in the repo"]
    assert got["get400/model"][0] == "HubUnreachable" and got["get400/model"][1].endswith("did not answer (OSError)")
    assert got["get399/model"][:3] == ["ok", f"models--get399--model/snapshots/{COMMIT}/config.json", len(BODY)]
    assert got["norepo/model"][:2] == ["HubMissing", "no such model on the Hub (or it is private and no valid "
                                                     "HF_TOKEN is set)"]
    assert got["noentry/model"][:2] == ["HubMissing", "the file is not in the repo"]
    assert got["norev/model"][:2] == ["HubMissing", "no such revision"]
    assert got["gated/model"][:2] == ["HubMissing", "the model is gated: accept its licence on the Hub and set "
                                                    "HF_TOKEN"]
    assert TOKEN not in stderr and TOKEN not in json.dumps(got)


def _a_broken_hub_is_not_asked_again_and_says_so_once(outcome):
    got, requests, _, stderr = outcome
    assert got["broken"][0] == "HubUnreachable" and "did not answer" in got["broken"][1] and got["broken"][2] == 1
    assert got["after broken"] == ["HubUnreachable", got["broken"][1], 1]  # no second request
    assert stderr.count("the Hugging Face Hub is unreachable") == stderr.count("kvlint: note:") >= 1
    assert [p for m, p, _ in requests if "broken" in p] == ["/broken/model/resolve/main/config.json"]


def _the_token_goes_to_the_endpoint_only(outcome):
    _, requests, elsewhere, _ = outcome
    assert all(auth == f"Bearer {TOKEN}" for method, _, auth in requests if method == "HEAD")
    assert elsewhere and all(auth is None for _, _, auth in elsewhere)
    assert outcome[0]["moved/model"][0] == "ok"
    gets = [p for m, p, _ in requests if m == "GET" and p.startswith("/ok/")]
    assert len(gets) == 1  # a file already in the cache is not fetched again


def _the_deadlines(outcome):
    got = outcome[0]
    assert got["file deadline"][:2] == ["HubMissing", "refused the Hub's answer: the file took longer than -1 s to "
                                                      "arrive"]
    assert got["run deadline"][0] == "HubUnreachable" and "over 300 s of Hub requests in this run" in \
        got["run deadline"][1]
    assert got["run deadline"][2] == 0  # not even one request
    assert got["within the run deadline"][0] == "ok"


def test_download_checks_every_answer_before_and_while_it_writes(tmp_path):
    """One child process, one run of every case (a module fixture would tie the child's coverage to one test)."""
    require_loopback()
    outcome = _run(tmp_path)
    _a_good_answer_is_laid_out_as_huggingface_hubs_cache(outcome)
    _names_a_cache_path_is_built_from_must_be_hex(outcome)
    _the_size_cap_is_four_mib_exactly_announced_or_not(outcome)
    _the_body_status_and_the_hubs_refusals_are_told_apart(outcome)
    _a_broken_hub_is_not_asked_again_and_says_so_once(outcome)
    _the_token_goes_to_the_endpoint_only(outcome)
    _the_deadlines(outcome)
