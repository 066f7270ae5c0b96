"""`--online` with a Hub that cannot be asked: one request, one note, a clean KV002 per unknown model.

Runs `kvlint check --online` as a subprocess (huggingface_hub reads HF_HUB_OFFLINE and HF_ENDPOINT at
import) against 127.0.0.1 only: a listener that drops every connection and counts them, and a closed port.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.models.hubstandin import DroppingListener, closed_port, require_loopback

LAUNCHES = "vllm serve acme/a-7b\nvllm serve acme/b-7b\nvllm serve acme/c-7b\nvllm serve Qwen/Qwen3-8B --gpu H100\n"


@pytest.fixture
def tree(tmp_path):
    require_loopback()
    (tmp_path / ".git").mkdir()
    (tmp_path / "serve.sh").write_text(LAUNCHES)
    return tmp_path


def check_online(tree, endpoint):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HF_", "HUGGINGFACE_"))}
    env.update(HF_ENDPOINT=endpoint, HF_HUB_OFFLINE="0", HF_HUB_CACHE=str(tree / "cache"), HF_HOME=str(tree / "home"),
               HF_HUB_DISABLE_TELEMETRY="1")
    proc = subprocess.run([sys.executable, "-m", "kvlint", "check", "--online", "--exit-zero", "--format", "json",
                           "serve.sh"], capture_output=True, text=True, env=env, cwd=tree, timeout=60)
    return proc.returncode, json.loads(proc.stdout), proc.stderr


def kv002_models(report):
    """The models of the run's one KV002 info (kvlint.lint.per_run: not a warning per launch)."""
    found = [f for f in report["findings"] if f["code"] == "KV002"]
    assert len(found) == 1 and found[0]["severity"] == "info"
    return found[0]["data"]["models"]


def test_a_broken_hub_is_asked_once_per_run(tree):
    with DroppingListener() as hub:
        code, report, err = check_online(tree, hub.endpoint)
    assert code == 0
    assert hub.accepted == 1  # four models (one bundled), one connection: the first failure is remembered
    assert err.count("kvlint: note: the Hugging Face Hub is unreachable") == 1 and "Retry" not in err
    assert kv002_models(report) == ["acme/a-7b", "acme/b-7b", "acme/c-7b"]
    assert sum(d["skip_kind"] == "unknown-model" for d in report["deployments"]) == 3


def test_a_closed_port_gives_the_same_clean_result(tree):
    code, report, err = check_online(tree, f"http://127.0.0.1:{closed_port()}")
    assert code == 0 and err.count("unreachable") == 1
    assert kv002_models(report) == ["acme/a-7b", "acme/b-7b", "acme/c-7b"]


def test_a_run_past_its_hub_deadline_asks_no_more(tmp_path, capsys):
    """Per-read timeouts do not bound a run that meets many slow files: past RUN_DEADLINE_S of Hub requests the
    Hub counts as unreachable for the rest of the run, before any request is made."""
    import time

    from kvlint.models import hub

    hub.reset()
    try:
        hub._started.append(time.monotonic() - hub.RUN_DEADLINE_S - 1)
        with pytest.raises(hub.HubUnreachable, match="of Hub requests in this run"):
            hub.download("acme/x", "config.json", None, tmp_path)
        assert hub.attempts() == 0
        assert "not asked again" in capsys.readouterr().err
    finally:
        hub.reset()
