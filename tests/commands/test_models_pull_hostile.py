"""`kvlint models pull` against a hostile Hub on 127.0.0.1 (../shared/repro/reliability/hostile-hub-server.py):
an ETag or commit that is a path, a body past the size cap, a body sent a byte at a time. Nothing is written
outside the cache, nothing past the cap is kept, and a slow file stops at its deadline."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from tests.commands.test_models_pull import TINY, env_for
from tests.models.hubstandin import require_loopback


@pytest.fixture
def tree(tmp_path):
    require_loopback()
    (tmp_path / ".git").mkdir()
    (tmp_path / "deploy").mkdir()
    return tmp_path

BODY = json.dumps(TINY).encode()
SHA1 = "5" * 40


class HostileHub:
    """Modes are the model's name: etagdotdot, commitdotdot, huge, hugenolength, drip."""

    def __init__(self, outside: str):
        hub = self
        self.sent = 0

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:
                pass

            def do_HEAD(self) -> None:
                self._go(head=True)

            def do_GET(self) -> None:
                self._go(head=False)

            def _go(self, head: bool) -> None:
                mode = self.path.split("/")[2] if self.path.count("/") > 2 else ""
                if not self.path.endswith("/config.json"):
                    self.send_response(404)
                    self.send_header("X-Error-Code", "EntryNotFound")
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                huge = mode.startswith("huge")
                size = 64 * 2**20 if huge else len(BODY)
                self.send_response(200)
                etag = f"../../../../../../../../{outside}/PWNED_ETAG" if mode == "etagdotdot" else SHA1
                commit = f"../../../../{outside}/c" if mode == "commitdotdot" else "a" * 40
                self.send_header("ETag", f'"{etag}"')
                self.send_header("X-Repo-Commit", commit)
                if mode != "hugenolength" or head:
                    self.send_header("Content-Length", str(size))
                self.end_headers()
                if head:
                    return
                try:
                    if huge:
                        for _ in range(64):
                            self.wfile.write(b" " * 2**20)
                            hub.sent += 2**20
                    elif mode == "drip":
                        for b in BODY:
                            self.wfile.write(bytes([b]))
                            self.wfile.flush()
                            hub.sent += 1
                            threading.Event().wait(0.2)
                    else:
                        self.wfile.write(BODY)
                except OSError:
                    pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.endpoint = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> HostileHub:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


def pull(tree, endpoint, model, deadline=None):
    (tree / "deploy" / "serve.sh").write_text(f"vllm serve x/{model} --max-model-len 2048\n")
    code = "import sys, kvlint.models.hub as h\n"
    if deadline is not None:
        code += f"h.FILE_DEADLINE_S = {deadline}\n"
    code += "from kvlint.cli import main\nsys.exit(main(['models', 'pull', 'deploy']))\n"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env_for(tree, endpoint), cwd=tree, timeout=120)
    return proc.returncode, proc.stdout, proc.stderr


def files_under(folder):
    return sorted(os.path.relpath(os.path.join(d, f), folder) for d, _, fs in os.walk(folder) for f in fs)


@pytest.mark.parametrize("mode", ["etagdotdot", "commitdotdot"])
def test_a_path_in_the_etag_or_commit_writes_nothing_outside_the_cache(tree, tmp_path_factory, mode):
    require_loopback()
    outside = tmp_path_factory.mktemp("outside")
    with HostileHub(str(outside).lstrip("/")) as hub:
        code, out, err = pull(tree, hub.endpoint, mode)
    assert code == 1, (out, err)
    assert "refused the Hub's answer" in out
    assert os.listdir(outside) == []
    assert [f for f in files_under(tree) if "PWNED" in f or f.endswith("/c")] == []


@pytest.mark.parametrize("mode", ["huge", "hugenolength"])
def test_a_config_past_the_cap_is_not_downloaded(tree, mode):
    require_loopback()
    with HostileHub("tmp") as hub:
        code, out, err = pull(tree, hub.endpoint, mode)
    assert code == 1, (out, err)
    assert "MiB cap" in out
    cached = [os.path.getsize(os.path.join(tree, f)) for f in files_under(tree) if "hf-cache" in f]
    assert all(size <= 4 * 2**20 for size in cached)
    assert hub.sent <= 16 * 2**20  # refused on the HEAD's size, or stopped soon after the cap


def test_a_server_sending_a_byte_at_a_time_stops_at_the_file_deadline(tree):
    require_loopback()
    with HostileHub("tmp") as hub:
        code, out, err = pull(tree, hub.endpoint, "drip", deadline=1)
    assert code == 1, (out, err)
    assert "took longer than" in out
    assert hub.sent < len(BODY)  # stopped before the end: the bound is the deadline, not the body


def test_a_valid_answer_is_laid_out_as_the_hf_cache_is(tree):
    require_loopback()
    with HostileHub("tmp") as hub:
        code, out, err = pull(tree, hub.endpoint, "plain")
    assert code == 0, (out, err)
    repo = tree / "hf-cache" / "models--x--plain"
    assert (repo / "refs" / "main").read_text() == "a" * 40
    assert json.loads((repo / "snapshots" / ("a" * 40) / "config.json").read_text()) == TINY
    assert (repo / "blobs" / SHA1).is_file()


def test_a_password_in_hf_endpoint_is_never_printed(tree):
    """hf-endpoint-password.sh: the "Hub unreachable" note and KV002's message named the endpoint whole."""
    from tests.models.hubstandin import closed_port

    require_loopback()
    (tree / "deploy" / "serve.sh").write_text("vllm serve org/not-bundled-model\n")
    env = env_for(tree, f"http://fakeuser:FAKEPASS0024@127.0.0.1:{closed_port()}")
    for args in (["check", "--online", "deploy"], ["check", "--online", "--format", "json", "deploy"],
                 ["models", "pull", "deploy"]):
        proc = subprocess.run([sys.executable, "-m", "kvlint", *args], capture_output=True, text=True, env=env,
                              cwd=tree, timeout=60)
        assert "127.0.0.1" in proc.stdout + proc.stderr, args  # the endpoint is still named
        assert "FAKEPASS0024" not in proc.stdout + proc.stderr, args


def test_check_online_writes_nothing_outside_the_cache(tree, tmp_path_factory):
    """The same download serves `check --online`: the hostile ETag is refused there too."""
    outside = tmp_path_factory.mktemp("outside-online")
    (tree / "deploy" / "serve.sh").write_text("vllm serve x/etagdotdot --max-model-len 2048\n")
    with HostileHub(str(outside).lstrip("/")) as hub:
        proc = subprocess.run([sys.executable, "-m", "kvlint", "check", "--online", "deploy"], capture_output=True,
                              text=True, env=env_for(tree, hub.endpoint), cwd=tree, timeout=120)
    assert "KV002" in proc.stdout and "Traceback" not in proc.stderr, (proc.stdout, proc.stderr)
    assert os.listdir(outside) == []
