"""kvlint.launches.ansible: Jinja in a playbook's task strings, and one launch per element of a task's loop."""

from __future__ import annotations

from kvlint.launches import read_path
from kvlint.launches.ansible import as_shell
from kvlint.sources.text import Mapped
from tests.launches.test_docker_and_positional import FIX, _at


def test_a_task_templating_a_deployment_per_loop_element_gives_one_launch_each():
    result = read_path(str(FIX / "ansible" / "loop-heredoc.yaml"))
    got = [(d.model, _at(d.model_span), d.get("max_model_len"), d.engine_version) for d in result.deployments]
    assert got == [("facebook/opt-6.7b", (30, 33), 1024, "0.10.1"),
                   ("microsoft/Phi-3-mini-4k-instruct", (30, 33), 1024, "0.10.1"),
                   ("Qwen/Qwen2.5-1.5B-Instruct", (38, 25), 4096, None)]
    assert [d.gpu_count for d in result.deployments[:2]] == [1, 1]


def test_a_task_list_looping_a_command_over_inline_models():
    result = read_path(str(FIX / "ansible" / "loop-list.yaml"))
    assert [(d.model, d.get("max_model_len")) for d in result.deployments] == \
        [("Qwen/Qwen2.5-0.5B-Instruct", 2048), ("Qwen/Qwen2.5-1.5B-Instruct", 2048)]


def test_jinja_expressions_read_as_shell_variables_at_their_place():
    m = as_shell(Mapped.whole("x", "vllm serve {{ item.model }} --tp {{ tp | default(2) }} {{ hostvars.a }}"))
    assert m.text == "vllm serve ${ANSIBLE_ITEM__model} --tp ${tp:-2} {{ hostvars.a }}"
    assert m.at(m.text.index("--tp")) == (1, m.text.index("--tp") - len("${ANSIBLE_ITEM__model}")
                                          + len("{{ item.model }}") + 1)


def test_one_task_per_node_rank_is_one_deployment():
    (dep,) = read_path(str(FIX / "ansible" / "two-node-ranks.yaml")).deployments
    assert (dep.model, dep.get("node_rank"), _at(dep.model_span)) == ("deepseek-ai/DeepSeek-R1", 0, (6, 54))
    assert any("2 launches of one deployment" in n for n in dep.notes)
