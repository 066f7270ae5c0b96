"""Shapes the turn-37 held-out samples (and the turn-36 leftovers) showed kvlint passing over or misreading, each read
by a mechanism, not a case."""

from __future__ import annotations

from kvlint.launches import read_path


def test_a_dockerfile_env_value_quoted_with_spaces_is_one_value(tmp_path):
    """Turn 36's K323 (RunPod worker): `ENV SGLANG_SERVER_CMD="python3 -m sglang.launch_server ..."` then
    `CMD ["bash", "-c", "$SGLANG_SERVER_CMD"]`. Docker splits ENV pairs as a shell does, so the quoted command is
    one value, which the shell the CMD starts expands into the engine's command line. Before, the value was cut at
    its spaces (`SGLANG_SERVER_CMD=python3`) and the image was said to start the engine with no model."""
    path = tmp_path / "Dockerfile"
    path.write_text('FROM ubuntu:22.04\n'
                    'ENV SGLANG_SERVER_CMD="python3 -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct'
                    ' --tp 2" PORT=30000\n'
                    'ARG TAG="v 1"\n'
                    'CMD ["bash", "-c", "$SGLANG_SERVER_CMD --port $PORT"]\n')
    (dep,) = read_path(str(path)).deployments
    assert (dep.engine, dep.model) == ("sglang", "Qwen/Qwen2.5-7B-Instruct")
    assert dep.get("tp_size") == 2 and dep.get("port") == 30000
    # an unbalanced quote is read word by word, as before, and gives no traceback
    path.write_text('FROM ubuntu:22.04\nENV A="x y\nCMD ["bash", "-c", "$A"]\n')
    assert not read_path(str(path)).deployments
