"""A stand-in for the Hugging Face Hub on 127.0.0.1, serving what hf_hub_download asks for.

huggingface_hub (file_download.get_hf_file_metadata, then the download) sends HEAD and GET to
`{HF_ENDPOINT}/{repo_id}/resolve/{revision}/{filename}`. It needs `X-Repo-Commit` and `ETag` on the
answer, and reads `X-Error-Code` (RepoNotFound, EntryNotFound) on a 404 to tell a missing repo from a
missing file. Every request is recorded (method, path, Authorization header) for the tests to check.
"""

from __future__ import annotations

import hashlib
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

COMMIT = "0123456789abcdef0123456789abcdef01234567"


class StandInHub:
    """`with StandInHub({"acme/tiny": {"config.json": b"{...}"}}) as hub:` then hub.endpoint, hub.requests."""

    def __init__(self, repos: dict[str, dict[str, bytes]]):
        self.repos = repos
        self.requests: list[tuple[str, str, str | None]] = []
        hub = self

        class Handler(BaseHTTPRequestHandler):
            def do_HEAD(self) -> None:
                self._answer(body=False)

            def do_GET(self) -> None:
                self._answer(body=True)

            def _answer(self, body: bool) -> None:
                hub.requests.append((self.command, self.path, self.headers.get("Authorization")))
                repo, _, rest = self.path.lstrip("/").partition("/resolve/")
                filename = rest.partition("/")[2].split("?")[0]
                files = hub.repos.get(repo)
                if files is None or filename not in files:
                    self.send_response(404)
                    self.send_header("X-Error-Code", "RepoNotFound" if files is None else "EntryNotFound")
                    self.send_header("X-Error-Message", "not found")
                    if files is not None:
                        self.send_header("X-Repo-Commit", COMMIT)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                data = files[filename]
                self.send_response(200)
                self.send_header("X-Repo-Commit", COMMIT)
                self.send_header("ETag", '"' + hashlib.sha1(data).hexdigest() + '"')
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                if body:
                    self.wfile.write(data)

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.endpoint = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> StandInHub:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


class DroppingListener:
    """Accepts TCP connections on 127.0.0.1 and closes them at once, counting them (a Hub that is there
    but broken: every request fails with a protocol error, like a proxy that drops the connection)."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.sock.settimeout(0.2)
        self.endpoint = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        self.accepted = 0
        self._stop = threading.Event()
        self.thread = threading.Thread(target=self._loop, daemon=True)

    def _loop(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            self.accepted += 1
            conn.close()

    def __enter__(self) -> DroppingListener:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self.thread.join(timeout=2)
        self.sock.close()


def require_loopback() -> None:
    """Skip, saying why, where 127.0.0.1 cannot be bound (a network namespace whose lo is down)."""
    import pytest

    try:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            s.listen(1)
            with socket.create_connection(s.getsockname(), timeout=2):
                pass
    except OSError as exc:
        pytest.skip(f"loopback unavailable ({exc}): the stand-in Hub needs 127.0.0.1 (bring lo up in the namespace)")


def closed_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port
