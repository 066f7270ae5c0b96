"""Shapes the turn-45 samples (K452-K455) showed kvlint passing over or misreading, each read by a mechanism, not a
case: every test writes the shape small, with what it must give (and what it must not)."""

from __future__ import annotations

from kvlint.launches import read_path

_UNIT = """[Unit]
Description=serving lane %i

[Service]
Type=exec
Environment=PYTHONPATH=@@REPO@@/python
ExecStart=@@VENV@@/bin/python -m sglang.srt.turnkey --config @@CONFIG@@ boot %i
Restart=on-failure
"""


def _kv008(result):
    return [(f.span.line, f.span.col) for f in result.findings if f.code == "KV008"]


def test_a_module_of_the_engines_own_package_run_as_a_service_is_said(tmp_path):
    """K452: a fork's launcher module inside the engine's package (`python -m sglang.srt.turnkey ... boot %i`), its
    model in its own configuration: no launch kvlint can read, so a KV008 at the module, never silent."""
    path = tmp_path / "serving@.service"
    path.write_text(_UNIT)
    result = read_path(str(path))
    assert not result.deployments
    assert _kv008(result) == [(7, 34)]


def test_an_engines_tools_run_as_modules_are_not_places(tmp_path):
    """A benchmark, an environment report or a router of the engine's package starts no server of a deployment:
    no KV008 for them (a script of tools alone is no passed-over launch)."""
    path = tmp_path / "tools.sh"
    path.write_text("#!/bin/bash\npython -m sglang.bench_serving --backend sglang --num-prompts 10\n"
                    "python -m vllm.collect_env\npython3 -m sglang.srt.disaggregation.mini_lb --port 8000\n"
                    "python -m sglang.check_env\n")
    assert not _kv008(read_path(str(path)))


def test_a_container_passed_the_hosts_prefixed_engine_settings_is_said(tmp_path):
    """K452: `docker run -e ONLINE_TENSOR_PARALLEL_SIZE -e ONLINE_GPU_MEMORY_UTILIZATION ... IMAGE` hands the host's
    values of engine settings (a prefix before each flag's name) to an image whose entry point writes the command:
    said at the first setting. One setting alone stays no evidence."""
    path = tmp_path / "run_online.sh"
    path.write_text("#!/usr/bin/env bash\n# vLLM server configuration\nexport ONLINE_MODEL=${ONLINE_MODEL:-org/m}\n"
                    "exec docker run --rm --gpus all \\\n  -e ONLINE_MODEL \\\n  -e ONLINE_TENSOR_PARALLEL_SIZE \\\n"
                    "  -e ONLINE_GPU_MEMORY_UTILIZATION \\\n  \"$IMAGE_NAME\"\n")
    assert _kv008(read_path(str(path))) == [(6, 13)]
    one = tmp_path / "one.sh"
    one.write_text("#!/bin/bash\n# vLLM client\ndocker run --rm -e ONLINE_TENSOR_PARALLEL_SIZE \"$IMAGE\"\n")
    assert not _kv008(read_path(str(one)))


def test_powershells_all_streams_redirection_is_no_word_of_the_command(tmp_path):
    """K453: `& $py @argv *>&1 | Tee-Object` redirects every stream: its `*` is the operator's, not a model the
    program is handed (it was read as a second launch serving `*`)."""
    path = tmp_path / "serve.ps1"
    path.write_text("$Model = 'org/model'\n$argv = @(\n    '-m', 'vllm.entrypoints.openai.api_server',\n"
                    "    '--model', $Model\n)\n& $py @argv *>&1 | Tee-Object -FilePath $log -Append\n")
    assert [d.model for d in read_path(str(path)).deployments] == ["org/model"]


_RBG = """apiVersion: workloads.x-k8s.io/v1alpha1
kind: RoleBasedGroup
metadata:
  name: pd
spec:
  roles:
    - name: decode
      replicas: 1
      leaderWorkerSet:
        size: 2
        patchLeaderTemplate:
          spec:
            containers:
            - command: [python3, -m, sglang.launch_server, --model-path, org/m, --disaggregation-mode, decode]
        patchWorkerTemplate:
          spec:
            containers:
            - command: [python3, -m, sglang.launch_server, --model-path, org/m, --disaggregation-mode, decode]
      template:
        spec:
          containers:
          - name: sglang
            image: lmsysorg/sglang:latest
"""


def test_a_role_based_groups_leader_and_worker_patches_are_one_launch(tmp_path):
    """K455: a RoleBasedGroup role lays `patchLeaderTemplate` / `patchWorkerTemplate` over a LeaderWorkerSet: its
    leader and workers are the ranks of one engine, one launch (as LeaderWorkerSet's own templates), not two."""
    path = tmp_path / "rbg.yaml"
    path.write_text(_RBG)
    assert [(d.engine, d.launch_span.line) for d in read_path(str(path)).deployments] == [("sglang", 14)]


def test_a_thematic_break_between_a_documents_yaml_objects_is_a_document_marker(tmp_path):
    """K455: an MDX page whose converter wrote Markdown's `***` for YAML's `---` inside a block: the block is read as
    the two documents meant (the Deployment's launch kept), not refused whole as YAML."""
    path = tmp_path / "page.mdx"
    path.write_text("# Deploy\n\n```yaml Config\napiVersion: apps/v1\nkind: Deployment\nspec:\n  template:\n"
                    "    spec:\n      containers:\n      - image: vllm/vllm-openai:v0.11.0\n"
                    "        args: [--model, org/m]\n***\napiVersion: v1\nkind: Service\n```\n")
    assert [(d.engine, d.model) for d in read_path(str(path)).deployments] == [("vllm", "org/m")]


def test_an_engine_chosen_by_type_with_its_flags_listed_is_said(tmp_path):
    """K455: a tool's package manifest (`type: vllm`, its flags listed under `serve.args`, the model under a key of
    the tool's) for an accelerator with no GPU request: a KV008 at the engine's name, never silent. A `type: vllm`
    with no flags of the engine listed (a client's backend choice) is not a place."""
    path = tmp_path / "package.yaml"
    path.write_text("name: m\nweights: org/m\ntype: vllm\nserve:\n  args:\n    - --trust-remote-code\n"
                    "    - --enable-prefix-caching\n    - [--tool-call-parser, hermes]\n")
    assert _kv008(read_path(str(path))) == [(3, 7)]
    client = tmp_path / "client.yaml"
    client.write_text("provider:\n  type: vllm\n  base_url: http://localhost:8000/v1\nflags:\n  - --verbose\n")
    assert not _kv008(read_path(str(client)))
